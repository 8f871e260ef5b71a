"""MEM003 without jsonschema: the quick check (`_surely_valid`) never vouches
for frontmatter jsonschema would reject, and the short validator
(`_known_errors`) reports exactly the messages jsonschema's errors give."""
from __future__ import annotations

import json
import random

import jsonschema
import pytest

from memlint.markdown import parse
from memlint.rules.frontmatter_schema import SHIPPED, _jsonable, _known_errors, _message, _surely_valid
from tests.conftest import TESTDATA

SCHEMAS = sorted(SHIPPED.glob("*.json"))
VALUES = ["", "x", "user", "feedback", "active", "archived", "2024-02-30", "2024-02-29", "2024-2-1", "٢٠٢٤-٠١-٠١",
          0, 1, 2.5, True, False, None, [], ["a"], ["a", 1], {}, {"type": "user"}, {"type": "nope"}]
KEYS = ["name", "title", "description", "type", "metadata", "status", "created", "date", "last_verified",
        "tags", "expires", "priority", "category", "originSessionId", "other"]


def errors(schema, instance) -> list:
    cls = jsonschema.validators.validator_for(schema)
    return list(cls(schema, format_checker=cls.FORMAT_CHECKER).iter_errors(instance))


def generated(schema, seed: str) -> list:
    """Every testdata frontmatter, then 3,000 variations and random mappings."""
    rng = random.Random(seed)
    instances = [parse(p.read_text(encoding="utf-8", errors="replace")).frontmatter for p in TESTDATA.rglob("*.md")]
    valid = [i for i in instances if isinstance(i, dict) and not errors(schema, _jsonable(i))]
    for _ in range(3000):  # valid frontmatter with up to two fields changed, or a random mapping
        instance = dict(rng.choice(valid)) if valid and rng.random() < 0.7 else {}
        instance.update({k: rng.choice(VALUES) for k in rng.sample(KEYS, rng.randint(0, 2 if instance else 6))})
        instances.append(instance)
    return instances


def messages(found) -> list:
    return [_message(e) for e in sorted(found, key=lambda e: list(map(str, e.absolute_path)))]


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_short_validator_reports_what_jsonschema_reports(path):
    schema = json.loads(path.read_text(encoding="utf-8"))
    mirrored = invalid = 0
    for instance in generated(schema, path.name):
        instance = _jsonable(instance)
        ours = _known_errors(schema, instance)
        if ours is None:
            continue  # left to jsonschema
        mirrored += 1
        theirs = errors(schema, instance)
        invalid += bool(theirs)
        assert messages(ours) == messages(theirs), instance
    assert mirrored > 2500 and invalid > 500  # it answers nearly every file, errors included


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_never_vouches_for_invalid_frontmatter(path):
    schema = json.loads(path.read_text(encoding="utf-8"))
    instances = generated(schema, path.name)
    vouched = 0
    for instance in instances:
        instance = _jsonable(instance)
        if _surely_valid(schema, instance):
            vouched += 1
            assert errors(schema, instance) == [], instance
    assert vouched > 20  # it does vouch, so jsonschema is not needed for most files


@pytest.mark.parametrize("schema", [
    {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"},  # another draft
    {"type": "object", "maxProperties": 1},  # a keyword it does not know
    {"type": "object", "properties": {"a": {"type": "strng"}}},  # a malformed schema
    {"title": 5},
    {"minLength": -1},
])
def test_leaves_what_it_does_not_know_to_jsonschema(schema):
    assert not _surely_valid(schema, {"a": "x"})

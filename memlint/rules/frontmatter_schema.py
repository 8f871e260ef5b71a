"""A frontmatter field is missing, has the wrong type, or a value outside the vocabulary.

Why: the harness routes and filters memories by these fields; a ``type:
feedbak`` or a missing ``description`` silently changes what the agent loads.

Options: none here; the schema is a JSON Schema file chosen by the store
setting ``schema`` (shipped: ``claude-code.json``, ``three-layer.json``,
``moc.json``; or a path to your own, relative to the config file). The
claude-code schema accepts ``type`` flat or nested under ``metadata:``.
Dates are checked as ``YYYY-MM-DD`` strings (YAML dates count).

Fires:

    ---
    name: deploy-smoke-test
    type: feedbak
    ---

Fix: add the missing field or use a value the message lists.
"""
from __future__ import annotations

import hashlib
import json
import re
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path

from memlint.finding import Problem

CODE = "MEM003"
NAME = "frontmatter-schema"
SEVERITY = "error"
SCOPE = "file"
TAGS = ("frontmatter",)
OPTIONS: dict = {}

SHIPPED = Path(__file__).resolve().parent.parent / "schemas"


def schema_path(store) -> Path | None:
    name = store.settings.get("schema")
    if not name:
        return None
    shipped = SHIPPED / name
    if shipped.is_file():
        return shipped
    base = store.config.base_dir or store.dir
    return (base / name).resolve()


@lru_cache(maxsize=8)
def _schema(path: str) -> tuple[object, str]:
    """The schema and a digest of its file."""
    from memlint.config import ConfigError

    try:
        data = Path(path).read_bytes()
        return json.loads(data.decode("utf-8")), hashlib.sha1(data).hexdigest()
    except (OSError, ValueError) as exc:
        raise ConfigError(f"schema {path}: cannot load: {exc}") from None


@lru_cache(maxsize=8)
def _validator(path: str):
    from memlint.config import ConfigError

    schema = _schema(path)[0]
    import jsonschema  # ~0.2 s to import: only for frontmatter _surely_valid cannot vouch for

    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ConfigError(f"schema {path}: not a valid JSON Schema: {exc.message}") from None
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _jsonable(value):
    """YAML values as JSON Schema sees them: dates become ISO strings."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _field_path(error) -> str:
    parts = [str(p) for p in error.absolute_path]
    return ".".join(parts)


def _message(error) -> tuple[str, str]:
    """(field path, readable message) for one validation error."""
    where = _field_path(error)
    v = error.validator
    if v == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        field = f"{where}.{missing}" if where else missing
        return field, f"required field `{field}` is missing"
    if v == "anyOf":
        # e.g. claude-code: type flat or under metadata
        needed = set()
        for sub in error.context:
            if sub.validator == "required":
                needed.add(sub.message.split("'")[1])
        if needed == {"type", "metadata"} or "type" in needed:
            return "type", "required field `type` is missing (flat, or nested under `metadata:`)"
        return where, f"frontmatter matches none of the allowed shapes ({error.message})"
    if v == "enum":
        allowed = ", ".join(str(x) for x in error.validator_value)
        return where, f"`{where}: {error.instance}` is not one of: {allowed}"
    if v == "type":
        return where, f"`{where}` must be {error.validator_value}, not {type(error.instance).__name__}"
    if v == "minLength" and error.instance == "":
        return where, f"`{where}` is empty"
    if v == "format":
        return where, f"`{where}: {error.instance}` is not a {error.validator_value} (use YYYY-MM-DD)"
    return where, f"`{where or 'frontmatter'}`: {error.message}"


def check(doc, store, options):
    if doc.role != "memory" or doc.frontmatter is None:
        return
    path = schema_path(store)
    if path is None:
        return
    schema, digest = _schema(str(path))
    skip = tuple(store.settings["date-fields"])
    # Depends only on the file's content, the schema and the date fields: kept by blob id.
    found = store.memo(doc, f"schema:{digest}:{','.join(skip)}", lambda: _problems(doc, str(path), schema, skip))
    for line, column, message in found:
        yield Problem(doc.path, line, column, message)


def _problems(doc, path: str, schema, skip: tuple[str, ...]) -> list[tuple[int, int, str]]:
    instance = _jsonable(doc.frontmatter)
    if _surely_valid(schema, instance):
        return []
    validator = _validator(path)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    found = []
    for error in errors:
        field, message = _message(error)
        if error.validator == "format" and field in skip:
            continue  # MEM004 frontmatter-date owns date values
        found.append((doc.key_line(field.split(".")[-1] if field.startswith("metadata.") else field), 1, message))
    return found


# A conservative check for the keywords the shipped schemas use: True only
# when jsonschema would surely find nothing (same semantics, draft 2020-12,
# 2019-09 or 7); anything else (another keyword, a value it cannot vouch
# for, a schema that may be malformed) leaves the verdict to jsonschema.
_DRAFTS = {None, "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
           "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"}
_ANNOTATIONS = {"$schema": str, "$id": str, "$comment": str, "title": str, "description": str}
_TYPES = {
    "string": lambda v: isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


def _surely_valid(schema, instance, top: bool = True) -> bool:
    if schema is True:
        return True
    if not isinstance(schema, dict) or (top and schema.get("$schema") not in _DRAFTS):
        return False
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            if not isinstance(value, _ANNOTATIONS[keyword]):
                return False
        elif keyword == "type":
            names = value if isinstance(value, list) else [value]
            if not names or not all(isinstance(n, str) and n in _TYPES for n in names):
                return False
            if not any(_TYPES[n](instance) for n in names):
                return False
        elif keyword == "enum":
            if not (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
                return False
            if not (isinstance(instance, str) and instance in value):
                return False
        elif keyword == "minLength":
            if not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
                return False
            if isinstance(instance, str) and len(instance) < value:
                return False
        elif keyword == "required":
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value) and len(set(value)) == len(value)):
                return False
            if isinstance(instance, dict) and not all(k in instance for k in value):
                return False
        elif keyword == "properties":
            if not isinstance(value, dict):
                return False
            if isinstance(instance, dict) and not all(
                    _surely_valid(sub, instance[name], False) for name, sub in value.items() if name in instance):
                return False
            if not all(isinstance(sub, (dict, bool)) for sub in value.values()):
                return False
        elif keyword == "items":
            if not isinstance(value, (dict, bool)):
                return False
            if isinstance(instance, list) and not all(_surely_valid(value, item, False) for item in instance):
                return False
        elif keyword == "anyOf":
            if not (isinstance(value, list) and value and all(isinstance(sub, (dict, bool)) for sub in value)):
                return False
            if not any(_surely_valid(sub, instance, False) for sub in value):
                return False
        elif keyword == "format":
            if value != "date":
                return False
            if isinstance(instance, str):
                if not _ISO_DATE.fullmatch(instance):
                    return False
                try:
                    date.fromisoformat(instance)
                except ValueError:
                    return False
        else:
            return False
    return True

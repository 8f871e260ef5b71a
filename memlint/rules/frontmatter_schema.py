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

import json
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
def _validator(path: str):
    from memlint.config import ConfigError

    try:
        schema = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"schema {path}: cannot load: {exc}") from None
    import jsonschema

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
    validator = _validator(str(path))
    errors = sorted(validator.iter_errors(_jsonable(doc.frontmatter)), key=lambda e: list(map(str, e.absolute_path)))
    for error in errors:
        field, message = _message(error)
        if error.validator == "format" and field in store.settings["date-fields"]:
            continue  # MEM004 frontmatter-date owns date values
        yield Problem(doc.path, doc.key_line(field.split(".")[-1] if field.startswith("metadata.") else field), 1, message)

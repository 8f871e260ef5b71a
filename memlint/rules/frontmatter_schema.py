"""A frontmatter field is missing, has the wrong type, or a value outside the vocabulary.

Why: the harness routes and filters memories by these fields; a ``type:
feedbak`` or a missing ``description`` silently changes what the agent loads.

Options: none here; the schema is a JSON Schema file chosen by the store
setting ``schema`` (shipped: ``claude-code.json``, ``three-layer.json``,
``moc.json``; or a path to your own, relative to the config file). The
claude-code schema accepts ``type`` flat or nested under ``metadata:``, the
three-layer schema ``status`` (where the lifecycle rules read it). Dates are checked as ``YYYY-MM-DD`` strings (YAML dates count).

Fires:

    ---
    name: deploy-smoke-test
    type: feedbak
    ---

Fix: add the missing field or use a value the message lists.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path

from memlint.finding import Problem
from memlint.lifecycle import retired_statuses

CODE = "MEM003"
NAME = "frontmatter-schema"
SEVERITY = "error"
SCOPE = "file"
LOCAL = True
TAGS = ("frontmatter",)
OPTIONS: dict = {}

SHIPPED = Path(__file__).resolve().parent.parent / "schemas"


def schema_path(store) -> Path | None:
    name = store.settings.get("schema")
    if not name:
        return None
    from memlint.config import ConfigError, where_is

    base = store.config.base_dir or store.dir
    if "\0" in name:  # the file system would refuse the name with an error of its own
        raise ConfigError(f"{where_is(store.config, ('schema',))}: schema {name!r}: "
                          "no such file (a file name cannot hold a NUL byte)")
    try:
        path = _schema_path(name, base)
    except RuntimeError:  # Path.resolve: a symbolic link loop (OSError from Python 3.13)
        raise ConfigError(f"{where_is(store.config, ('schema',))}: schema {name!r}: "
                          f"a symbolic link loop: {base / name}") from None
    if name == store.config.data.get("schema") and not _found(store, path):
        shipped = ", ".join(sorted(p.name for p in SHIPPED.glob("*.json")))
        raise ConfigError(f"{where_is(store.config, ('schema',))}: schema {name!r}: "
                          f"{'not a regular file' if path.exists() else 'no such file'}: {path} (shipped: {shipped})")
    named = base / name  # a symbolic link, where it is one: the commit needs it too (`..` read as the links lead)
    if name == store.config.data.get("schema") and not _in_commit(store, path, named):
        from memlint.gitrun import advice

        left = next((link for link in _links(store, named) if store._repo_path(link) not in store.indexed_paths()),
                    path)
        add = advice(store.repo_root, ["add"], [store._repo_path(left)])
        raise ConfigError(f"{where_is(store.config, ('schema',))}: schema {name!r}: {left} is not in the commit "
                          "(untracked, or removed from the index), though the config naming it is: the committed "
                          f"store could not be checked; `{add}`")
    return path


def _in_commit(store, path: Path, named: Path) -> bool:
    """In a staged run, whether the index holds the schema a committed config
    names (a file of the repository the commit leaves out would make every
    check of the commit fail), and the symbolic link it is named by, if one;
    asked once a store."""
    found = store.__dict__.get("_schema_in_commit")
    if found is None:
        config = store.config.path
        found = not (store.staged and store._has_git_folder and config is not None
                     and path.is_relative_to(store.repo_root) and not path.is_relative_to(SHIPPED)
                     and Path(config).resolve().is_relative_to(store.repo_root)
                     and store._repo_path(Path(config).resolve()) in store.indexed_paths()
                     and (store._repo_path(path) not in store.indexed_paths()
                          or any(store._repo_path(link) not in store.indexed_paths()
                                 for link in _links(store, named))))
        store.__dict__["_schema_in_commit"] = found
    return found


def _links(store, named: Path) -> list[Path]:
    """The symbolic links of the repository on the way to ``named``, the
    schema's path as the config writes it, each followed in turn (``schemas
    -> real``, then ``real/my.json -> actual.json``) as the file system
    follows them: a ``..`` after a link climbs from where the link leads,
    and a link out of the repository that leads back in (an absolute target
    written through ``/home -> /usr/home``) leads on to the links beyond.
    The links git tracks, a folder's included, for none of the paths beyond
    one can be added; the commit needs every one."""
    parts = list(named.parts if named.is_absolute() else (Path.cwd() / named).parts)
    at = Path(parts.pop(0))  # no symbolic link on the way to it: its parent is the folder above
    links: list[Path] = []
    hops = 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            at = at.parent
            continue
        if not (at / part).is_symlink():
            at = at / part
            continue
        hops += 1
        if hops > 40:  # (a loop: Path.resolve has refused one already)
            break
        if (at / part).is_relative_to(store.repo_root):
            links.append(at / part)
        target = Path(os.readlink(at / part))
        if target.is_absolute():
            at = Path(target.anchor)
        parts = [*target.relative_to(target.anchor).parts, *parts]
    return links


def _found(store, path: Path) -> bool:
    """Whether the configured schema is there: asked once a store, not for every file."""
    found = store.__dict__.get("_schema_found")
    if found is None:
        found = store.__dict__["_schema_found"] = path.is_relative_to(SHIPPED) or path.is_file()
    return found


@lru_cache(maxsize=8)
def _schema_path(name: str, base: Path) -> Path:
    """A shipped schema, else ``name`` from ``base`` (asked once per file: the
    answer is kept). An absolute ``name`` is none of the shipped ones, though
    ``SHIPPED / name`` is that path, as written."""
    shipped = SHIPPED / name
    if not os.path.isabs(name) and shipped.is_file():
        return shipped
    return (base / name).resolve()


@lru_cache(maxsize=8)
def _schema(path: str) -> tuple[object, str]:
    """The schema and a digest of its file."""
    from memlint.config import ConfigError

    try:
        if Path(path).exists() and not Path(path).is_file():  # a FIFO or a device would block or never end
            raise ValueError("not a regular file")
        data = Path(path).read_bytes()
        schema = json.loads(data.decode("utf-8"))
        return schema, _digest_with_refs(Path(path), data, schema)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"schema {path}: cannot load: {exc}") from None
    except RecursionError:
        raise ConfigError(f"schema {path}: cannot load: nested too deeply") from None


def schema_digest(path: Path) -> str:
    """A digest of the schema file and of the local files its ``$ref``s
    read (what the cache keeps schema errors under); of the bytes alone
    when the schema cannot be loaded (the rule then says why)."""
    from memlint.config import ConfigError

    try:
        return _schema(str(path))[1]
    except ConfigError:
        try:
            return hashlib.sha1(path.read_bytes()).hexdigest() if path.is_file() else "not a file"
        except OSError:
            return "unreadable"


def _digest_with_refs(path: Path, data: bytes, schema) -> str:
    h = hashlib.sha1(data)
    seen: set[Path] = set()
    todo = [(path, schema)]
    while todo:
        base, node = todo.pop()
        for target in sorted(filter(None, (_local_ref(base, ref) for ref in _refs_in(node)))):
            if target in seen:
                continue
            seen.add(target)
            try:
                raw = target.read_bytes() if target.is_file() else b"not a file"  # (a FIFO is not read)
            except OSError:
                raw = b"unreadable"
            h.update(b"\0" + os.fsencode(target) + b"\0" + raw)
            try:
                todo.append((target, json.loads(raw)))
            except (ValueError, RecursionError):
                pass
    return h.hexdigest()


def _refs_in(node) -> list[str]:
    """Every ``$ref`` string in a JSON value (walked without recursion: a schema may nest deeply)."""
    found, stack = [], [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.append(ref)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _local_ref(base: Path, ref: str) -> Path | None:
    """The file a ``$ref`` in the schema file ``base`` reads (``_files_registry``), or None: in the same file, or remote."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(ref)
    if parts.scheme == "file":
        return Path(unquote(parts.path))
    if parts.scheme or parts.netloc or not parts.path:
        return None
    return base.parent / unquote(parts.path)


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
    id_key = "id" if cls in (jsonschema.Draft3Validator, jsonschema.Draft4Validator) else "$id"
    if isinstance(schema, dict) and id_key not in schema:
        # Its file's URI as its base: a `$ref` to `other.json` means the file beside it.
        schema = {id_key: Path(path).as_uri(), **schema}
    return cls(schema, format_checker=cls.FORMAT_CHECKER, registry=_files_registry())


def _files_registry():
    """Where a ``$ref`` to another schema file is read: a local file (a path
    beside the schema, or a file: URI), never the network."""
    from referencing import Registry, Resource
    from referencing.exceptions import NoSuchResource
    from referencing.jsonschema import DRAFT202012

    def retrieve(uri: str):
        # (a relative `$ref` reaches here as a file: URI, the schema's own being its base)
        target = _local_ref(Path(), uri) if uri.startswith("file:") else None
        try:
            if target is None or not target.is_file():  # a FIFO or a device would block or never end
                raise NoSuchResource(ref=uri)
            contents = json.loads(target.read_bytes().decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            raise NoSuchResource(ref=uri) from None
        return Resource.from_contents(contents, default_specification=DRAFT202012)

    return Registry(retrieve=retrieve)


def _iter_errors(path: str, instance) -> list:
    """jsonschema's errors, or a ConfigError for a schema that cannot be
    applied: a ``$ref`` to nothing, or to itself with nothing between."""
    from referencing.exceptions import Unresolvable

    from memlint.config import ConfigError

    try:
        return list(_validator(path).iter_errors(instance))
    except RecursionError:
        raise ConfigError(f"schema {path}: cannot be applied: its `$ref`s loop without end") from None
    except Unresolvable as exc:
        raise ConfigError(f"schema {path}: cannot be applied: `$ref` {exc.ref!r} names nothing that can be read "
                          "(a file beside the schema, or in it)") from None


@lru_cache(maxsize=8)
def _is_shipped(path: str) -> bool:
    return Path(path).is_relative_to(SHIPPED)


def _jsonable(value):
    """YAML values as JSON Schema sees them: dates become ISO strings, keys strings."""
    if type(value) is dict and all(type(k) is str and type(v) is str for k, v in value.items()):
        return value  # most frontmatter: nothing to convert
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
        field = _nested_or_flat(needed, error.validator_value)
        if field:
            return field, f"required field `{field}` is missing (flat, or nested under `metadata:`)"
        return where, f"frontmatter matches none of the allowed shapes ({error.message})"
    if v == "enum":
        allowed = ", ".join(str(x) for x in error.validator_value)
        return where, f"`{where}: {error.instance}` is not one of: {allowed}"
    if v == "type":
        wanted = error.validator_value
        wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return where, f"`{where}` must be {wanted}, not {_json_type(error.instance)}"
    if v == "minLength" and error.instance == "":
        return where, f"`{where}` is empty"
    if v == "format":
        hint = " (use YYYY-MM-DD)" if error.validator_value == "date" else ""
        return where, f"`{where}: {error.instance}` is not a valid {error.validator_value}{hint}"
    return where, f"`{where or 'frontmatter'}`: {error.message}"


def _nested_or_flat(needed: set, shapes) -> str | None:
    """The field an ``anyOf`` asks for flat or under ``metadata:`` (claude-code's
    ``type``, three-layer's ``status``), given the fields its failed shapes
    required; None for another ``anyOf``."""
    fields = needed - {"metadata"}
    if len(fields) != 1:
        return None
    field = next(iter(fields))
    # a shape asking for `metadata:` with the field inside it (not `metadata:` alone)
    def nests(shape) -> bool:  # (a schema may be a boolean, `true`, anywhere)
        if not isinstance(shape, dict):
            return False
        properties = shape.get("properties")
        metadata = properties.get("metadata") if isinstance(properties, dict) else None
        required = metadata.get("required") if isinstance(metadata, dict) else None
        return "metadata" in (shape.get("required") or ()) and isinstance(required, list) and field in required

    return field if any(map(nests, shapes)) else None


def _json_type(value) -> str:
    """The JSON Schema name of a YAML value's type, as the schema names types
    (a bare `created:` is null, `created: 2024` an integer)."""
    if value is None:
        return "null (no value)"
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
                       (list, "array (a list)"), (dict, "object (a mapping)")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _status_as_lifecycle_reads_it(instance, schema, retired: tuple[str, ...]):
    """The frontmatter with a ``status`` (flat or under ``metadata:``) that
    the lifecycle rules read as a known status, in any case and padding, or
    one of the store's ``retired-statuses``, spelt as the schema lists it:
    the schema must not call invalid what the lifecycle accepts."""
    if not isinstance(instance, dict):
        return instance
    allowed = _status_enum(schema)
    if not allowed:
        return instance
    by_fold = {value.casefold(): value for value in allowed if isinstance(value, str)}
    out = dict(instance)
    for holder in (out, out.get("metadata")):
        if not isinstance(holder, dict) or not isinstance(holder.get("status"), str):
            continue
        folded = holder["status"].strip().casefold()
        spelt = by_fold.get(folded) or (next(iter(by_fold.values()), None) if folded in retired else None)
        if spelt is not None and spelt != holder["status"]:
            if holder is not out:
                holder = out["metadata"] = dict(holder)
            holder["status"] = spelt
    return out


def _status_enum(schema) -> list:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    status = properties.get("status") if isinstance(properties, dict) else None
    return status.get("enum") or [] if isinstance(status, dict) else []


def _field_line(doc, field: str) -> int:
    """The line of the key a schema error is about: ``metadata.type`` the
    nested key's (not a flat ``type``'s), ``tags.1`` the ``tags`` key's, a
    key written inside ``{...}`` its parent's."""
    parts = field.split(".")
    while len(parts) > 1 and parts[-1].isdigit():  # an item of a list: its key's line
        parts.pop()
    keys = doc.parsed.key_lines if doc.parsed is not None else {}
    for depth in range(len(parts), 0, -1):  # a key inside a flow mapping (`metadata: {type: x}`): its parent's line
        line = keys.get(".".join(parts[:depth]))
        if line:
            return line
    return doc.key_line(parts[-1] if parts[0] == "metadata" else ".".join(parts))


def content_memo(store, options):
    """(cache kind, function of a doc): the schema errors of one file depend
    only on its content, the schema and the date fields (kept by blob id)."""
    path = schema_path(store)
    if path is None:
        return None
    schema, digest = _schema(str(path))
    skip = tuple(store.settings["date-fields"])
    retired = tuple(sorted(retired_statuses(store.settings)))

    def problems(doc):
        return _problems(doc, str(path), schema, skip, retired) if doc.frontmatter is not None else []

    return f"schema:{digest}:{','.join(skip)}:{','.join(retired)}", problems


def check(doc, store, options):
    if not doc.is_memory or doc.frontmatter is None:
        return
    task = content_memo(store, options)
    if task is None:
        return
    kind, problems = task
    for line, column, message in store.memo(doc, kind, lambda: problems(doc)):
        yield Problem(doc.path, line, column, message)


def _problems(doc, path: str, schema, skip: tuple[str, ...], retired: tuple[str, ...] = ()) -> list[tuple[int, int, str]]:
    """(line, column, message) of each schema error in the doc's frontmatter."""
    if not _is_shipped(path):
        _validator(path)  # a user's schema is checked against its meta-schema once (ConfigError: exit 2)
    instance = _status_as_lifecycle_reads_it(_jsonable(doc.frontmatter), schema, retired)
    test = _path_test(path)
    if test is not None and test(instance):
        return []
    errors = _known_errors(schema, instance)
    if errors is None:  # a keyword or value the short validator leaves to jsonschema
        errors = _iter_errors(path, instance)
    errors = sorted(errors, key=lambda e: list(map(str, e.absolute_path)))
    found = []
    for error in errors:
        field, message = _message(error)
        if error.validator == "format" and field in skip:
            continue  # MEM004 frontmatter-date owns date values
        found.append((_field_line(doc, field), 1, message))
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


def _surely_valid(schema, instance) -> bool:
    test = _quick_test(json.dumps(schema, sort_keys=True))
    return test is not None and test(instance)


@lru_cache(maxsize=8)
def _path_test(path: str):
    return _quick_test(json.dumps(_schema(path)[0], sort_keys=True))


@lru_cache(maxsize=8)
def _quick_test(schema_json: str):
    """The schema as one function instance -> bool (True: surely valid), or
    None when the schema uses anything it cannot vouch for."""
    schema = json.loads(schema_json)
    if not isinstance(schema, dict) or schema.get("$schema") not in _DRAFTS:
        return None
    return _compile(schema)


def _compile(schema):
    if schema is True:
        return lambda instance: True
    if not isinstance(schema, dict):
        return None
    tests = []
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            if not isinstance(value, _ANNOTATIONS[keyword]):
                return None
        elif keyword == "type":
            names = value if isinstance(value, list) else [value]
            if not names or not all(isinstance(n, str) and n in _TYPES for n in names) or len(set(names)) != len(names):
                return None
            checks = [_TYPES[n] for n in names]
            tests.append(checks[0] if len(checks) == 1 else lambda v, checks=checks: any(c(v) for c in checks))
        elif keyword == "enum":
            if not (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
                return None
            allowed = frozenset(value)
            tests.append(lambda v, allowed=allowed: isinstance(v, str) and v in allowed)
        elif keyword == "minLength":
            if not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
                return None
            tests.append(lambda v, n=value: not isinstance(v, str) or len(v) >= n)
        elif keyword == "required":
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value) and len(set(value)) == len(value)):
                return None
            tests.append(lambda v, keys=tuple(value): not isinstance(v, dict) or all(k in v for k in keys))
        elif keyword == "properties":
            if not isinstance(value, dict):
                return None
            subs = {name: _compile(sub) for name, sub in value.items()}
            if any(sub is None for sub in subs.values()):
                return None
            tests.append(functools.partial(_properties_hold, tuple(subs.items())))
        elif keyword == "items":
            sub = _compile(value)
            if sub is None:
                return None
            tests.append(lambda v, sub=sub: not isinstance(v, list) or all(map(sub, v)))
        elif keyword == "anyOf":
            if not (isinstance(value, list) and value):
                return None
            subs = [_compile(sub) for sub in value]
            if any(sub is None for sub in subs):
                return None
            tests.append(lambda v, subs=subs: any(sub(v) for sub in subs))
        elif keyword == "format":
            if value != "date":
                return None
            tests.append(lambda v: not isinstance(v, str) or _is_date(v))
        else:
            return None
    if len(tests) == 1:
        return tests[0]
    return functools.partial(_all_hold, tuple(tests))


# Plain loops, not generators: the quick test runs for every file's frontmatter.
def _all_hold(tests, instance) -> bool:
    for test in tests:
        if not test(instance):
            return False
    return True


def _properties_hold(subs, instance) -> bool:
    if not isinstance(instance, dict):
        return True
    for name, test in subs:
        if name in instance and not test(instance[name]):
            return False
    return True


def _is_date(value: str) -> bool:
    if not _ISO_DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


# The errors jsonschema would report, for the keywords _compile knows, without
# importing it (~60 ms: most stores have a frontmatter error or two). Same
# order (schema keyword order, depth first) and the attributes _message reads;
# anything it cannot mirror exactly is left to jsonschema.
class _Unsure(Exception):
    pass


class _Error:
    def __init__(self, validator, validator_value, instance, path, message="", context=()):
        self.validator, self.validator_value, self.instance = validator, validator_value, instance
        self.absolute_path, self.message, self.context = path, message, context


def _known_errors(schema, instance) -> list | None:
    if _path_test_for(schema) is None:
        return None
    try:
        return _errors(schema, instance, ())
    except _Unsure:
        return None


def _path_test_for(schema):
    return _quick_test(json.dumps(schema, sort_keys=True)) if isinstance(schema, dict) else None


def _errors(schema, instance, path: tuple) -> list:
    if schema is True:
        return []
    found = []
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        if keyword == "type":
            names = value if isinstance(value, list) else [value]
            if not any(_TYPES[n](instance) for n in names):
                if isinstance(instance, float) and "integer" in names:
                    raise _Unsure  # jsonschema counts 1.0 as an integer
                found.append(_Error("type", value, instance, path))
        elif keyword == "enum":
            if not (isinstance(instance, str) and instance in value):
                found.append(_Error("enum", value, instance, path))
        elif keyword == "minLength":
            if isinstance(instance, str) and len(instance) < value:
                if instance != "":
                    raise _Unsure  # the message wording differs between jsonschema versions
                found.append(_Error("minLength", value, instance, path))
        elif keyword == "required":
            if isinstance(instance, dict):
                for name in value:
                    if name not in instance:
                        if "'" in name:
                            raise _Unsure
                        found.append(_Error("required", value, instance, path, f"{name!r} is a required property"))
        elif keyword == "properties":
            if isinstance(instance, dict):
                for name, sub in value.items():
                    if name in instance:
                        found.extend(_errors(sub, instance[name], (*path, name)))
        elif keyword == "items":
            if isinstance(instance, list):
                for index, item in enumerate(instance):
                    found.extend(_errors(value, item, (*path, index)))
        elif keyword == "anyOf":
            context = []
            for sub in value:
                sub_errors = _errors(sub, instance, path)
                if not sub_errors:
                    break
                context.extend(sub_errors)
            else:
                needed = {e.message.split("'")[1] for e in context if e.validator == "required"}
                if not _nested_or_flat(needed, value):
                    raise _Unsure  # _message would quote jsonschema's own text
                found.append(_Error("anyOf", value, instance, path, context=context))
        elif keyword == "format":
            if isinstance(instance, str) and not _is_date(instance):
                found.append(_Error("format", value, instance, path))
        else:
            raise _Unsure
    return found

"""Find, load and strictly validate memlint configuration.

Sources, first found wins: ``--config FILE``; ``.memlint.yaml`` (or
``.memlint.yml``) in the folder being linted or any parent up to the git
root; ``[tool.memlint]`` in a ``pyproject.toml`` along the same walk. A typo
is an error (exit 2), never silently ignored.
"""
from __future__ import annotations

import copy
import fnmatch
import functools
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from memlint import rules as rule_registry
from memlint.presets import BASE_SETTINGS, DEFAULT_EXCLUDE, PRESET_NAMES, PRESETS

CONFIG_NAMES = (".memlint.yaml", ".memlint.yml")
TOP_LEVEL_KEYS = {"preset", "root", "include", "exclude", "rules", *BASE_SETTINGS}
SEVERITY_VALUES = ("error", "warning", "off")
# Settings that are lists of globs matched against store paths.
GLOB_SETTINGS = ("include", "exclude", "topics", "daily-logs", "append-only", "exempt")


class ConfigError(Exception):
    """Bad configuration; the CLI prints it and exits 2. ``key``: the path of
    the key at fault (("rules", "orphan")), as YAML read it (True for `on`),
    to name its line."""

    def __init__(self, message: str, key: tuple[str, ...] | None = None):
        super().__init__(message)
        self.key = key


# Plain words YAML 1.1 (PyYAML) would read as booleans or null.
_YAML_KEYWORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def yaml_flow(value) -> str:
    """A value as .memlint.yaml takes it, on one line: plain for simple
    words, JSON (valid YAML) otherwise, so that a glob's `*` (a YAML alias)
    or a word YAML reads as a boolean is quoted and loads as it was."""
    if isinstance(value, str) and re.fullmatch(r"[a-z][a-z0-9-]*", value) and value not in _YAML_KEYWORDS:
        return value
    if value is None:
        return "null"
    text = json.dumps(value, ensure_ascii=False)
    # YAML reads \x85, \u2028 and \u2029 as line breaks, even quoted: escaped, with all else unusual
    return text if text.isprintable() else json.dumps(value)


@dataclass
class RuleConfig:
    severity: str  # "error" | "warning" | "off"
    options: dict
    ignore: list[str] = field(default_factory=list)


@dataclass
class Config:
    path: Path | None  # the file it came from, if any
    base_dir: Path | None  # paths in the file are relative to this folder
    data: dict  # validated raw mapping

    @property
    def preset(self) -> str | None:
        return self.data.get("preset")

    @property
    def root(self) -> Path | None:
        root = self.data.get("root")
        if root is None:
            return None
        return (self.base_dir or Path.cwd()) / root

    def settings(self, preset: str) -> dict:
        merged = copy.deepcopy(BASE_SETTINGS)
        merged.update(copy.deepcopy(PRESETS[preset]["settings"]))
        for key in BASE_SETTINGS:
            if key in self.data and key != "root":
                merged[key] = copy.deepcopy(self.data[key])
        merged["include"] = list(self.data.get("include", ["**/*.md"]))
        merged["exclude"] = DEFAULT_EXCLUDE + list(self.data.get("exclude", []))
        return merged

    def rule_config(self, rule, preset: str) -> RuleConfig:
        options = {name: default for name, (_, default) in rule.OPTIONS.items()}
        preset_rule = dict(PRESETS[preset].get("rules", {}).get(rule.NAME, {}))
        severity = preset_rule.pop("severity", rule.SEVERITY)  # a preset may soften a rule
        options.update(preset_rule)
        ignore: list[str] = []
        entry = _rule_entry(self.data.get("rules") or {}, rule)
        if entry is False:  # YAML reads a bare `off` as false
            severity = "off"
        elif isinstance(entry, str):
            severity = entry
        elif isinstance(entry, dict):
            for key, value in entry.items():
                if key == "severity":
                    severity = value
                elif key == "ignore":
                    ignore = list(value)
                else:
                    options[key] = value
        return RuleConfig(severity, options, ignore)


def _rule_entry(rules_conf: dict, rule):
    """The settings ``rules:`` gives ``rule``, under its code (any case), name
    or an alias (validation allows one entry per rule)."""
    for key in (rule.CODE, rule.NAME):
        if key in rules_conf:
            return rules_conf[key]
    for key, value in rules_conf.items():
        try:
            if rule_registry.get(str(key)) is rule:
                return value
        except ValueError:
            continue
    return None


def _git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def find_config_file(start: Path) -> Path | None:
    for path in config_candidates(start):
        if path.name != "pyproject.toml" or _pyproject_section(path) is not None:
            return path
    return None


def is_config_file(path: Path) -> bool:
    """Whether memlint reads settings from a file at ``path``: a
    .memlint.yaml (there or not yet), a pyproject.toml with a [tool.memlint] table."""
    if path.name in CONFIG_NAMES:
        return True
    try:
        return path.name == "pyproject.toml" and path.is_file() and _pyproject_section(path) is not None
    except ConfigError:
        return False  # unreadable TOML: no settings memlint could take from it


def config_candidates(start: Path, *, on_disk: bool = True) -> list[Path]:
    """The files that may hold the config for ``start``, nearest first, as
    found on disk (``on_disk=False``: whether there or not, for a staged
    run, which asks the git index): each folder's .memlint.yaml,
    .memlint.yml and pyproject.toml (which counts only with a [tool.memlint]
    table), up to the top of the repository."""
    start = start if start.is_dir() or not os.path.lexists(start) else start.parent  # (a folder a sparse checkout left out)
    start = start.resolve()
    stop = _git_root(start)
    found = []
    for folder in (start, *start.parents):
        found += [folder / name for name in (*CONFIG_NAMES, "pyproject.toml") if not on_disk or (folder / name).is_file()]
        if stop is not None and folder == stop:
            break
    return found


def _pyproject_section(path: Path, text: str | None = None):
    try:
        import tomllib  # type: ignore[import-not-found]
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8") if text is None else text)
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: cannot read TOML: nested too deep") from None
    tool = data.get("tool")
    return tool.get("memlint") if isinstance(tool, dict) else None  # `tool = 3` or `[[tool]]`: no [tool.memlint]


def not_utf8(path: Path, exc: UnicodeDecodeError) -> ConfigError:
    """The error for a config file that is no UTF-8, naming the line of the
    first byte that is not (a Windows editor may have saved it as UTF-16)."""
    data = exc.object
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return ConfigError(f"{path}:1: the file is UTF-16 encoded; memlint reads a config file as UTF-8: save it so")
    line = data.count(b"\n", 0, exc.start) + 1
    return ConfigError(f"{path}:{line}: not valid UTF-8 (byte 0x{data[exc.start]:02x}); memlint reads a config file as UTF-8")


def load(path: Path | None = None, *, start: Path | None = None, text: str | None = None) -> Config:
    """Load and validate config from ``path``, or discover it from ``start``.
    ``text``: the file's content as given (the staged one), not read from disk."""
    if path is None and start is not None:
        path = find_config_file(start)
    if path is None:
        return Config(None, None, {})
    path = Path(path)
    if text is None and not path.is_file():
        raise ConfigError(f"{path}: " + ("not a file: name a config file" if path.exists() else "config file not found"))
    if path.suffix.lower() == ".toml":  # pyproject.toml, or a TOML file of its own, named with --config
        data = _pyproject_section(path, text)
        if data is None:
            raise ConfigError(f"{path}: no [tool.memlint] table: memlint reads its settings from there in a TOML file")
        _validate_naming_line(data, path, _toml_line_of,
                              lambda: path.read_text(encoding="utf-8") if text is None else text)
        return Config(path, path.parent.resolve(), data)
    from memlint.frontmatter_yaml import load_yaml

    try:
        text = path.read_text(encoding="utf-8") if text is None else text
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    # The frontmatter loader: duplicate keys are errors (a second `rules:`
    # would silently drop the first), alias bombs and deep nesting bounded.
    data, error = load_yaml(text, 1, what="config")
    if error is not None:
        raise ConfigError(f"{path}:{error.line}:{error.column}: {error.message}")
    if data is None:
        data = {}
    _validate_naming_line(data, path, _line_of, lambda: text, written=lambda key: _yaml_key_written(text, key))
    return Config(path, path.parent.resolve(), data)


def where_is(config: Config, key: tuple[str, ...]) -> str:
    """``path:line`` of a key of a loaded config file (``path`` when the
    line cannot be told), for an error found after loading it."""
    if config.path is None:
        return "config"
    try:
        text = config.path.read_text(encoding="utf-8")
        line = (_toml_line_of if config.path.suffix.lower() == ".toml" else _line_of)(text, key)
    except (OSError, UnicodeDecodeError):
        line = None
    return f"{config.path}:{line}" if line else str(config.path)


def _validate_naming_line(data: dict, path: Path, finder, read, written=None) -> None:
    """``validate``, its error naming the line of the key at fault: found in
    the file's text (``read()``) by ``finder`` (YAML's or TOML's), or, for a
    key YAML read as no string (``on``: True), by ``written``."""
    try:
        validate(data, str(path), written)
    except ConfigError as exc:
        try:
            if exc.key and written is not None and not all(isinstance(part, str) for part in exc.key):
                line = (written(exc.key) or (None, None))[1]
            else:
                line = finder(read(), exc.key) if exc.key else None
        except (OSError, UnicodeDecodeError):
            line = None
        if line is None:
            raise
        raise ConfigError(str(exc).replace(f"{path}: ", f"{path}:{line}: ", 1), exc.key) from None


def _line_of(text: str, key: tuple[str, ...]) -> int | None:
    """1-based line of a key at any depth (("rules", "MEM101", "max-lines")) in
    a block-style YAML mapping, or of the deepest of its parents written so;
    None when not even the top key is."""
    lines = text.removeprefix("\ufeff").split("\n")
    start, end, parent_indent, found = 0, len(lines), -1, None
    for part in key:
        pattern = re.compile(r"^[ \t]*(['\"]?)" + re.escape(str(part)) + r"\1[ \t]*:(?:[ \t]|$)")
        level = hit = None
        for i in range(start, end):
            line = lines[i]
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            indent = len(line) - len(line.lstrip(" \t"))
            level = indent if level is None else level
            if indent == level and pattern.match(line):  # a deeper line is a sibling's child
                hit = i
                break
        if hit is None:
            return found
        found, parent_indent, start = hit + 1, level, hit + 1
        end = start  # this key's block: the lines indented deeper than it
        while end < len(lines) and (not lines[end].strip() or lines[end].lstrip().startswith("#")
                                    or len(lines[end]) - len(lines[end].lstrip(" \t")) > parent_indent):
            end += 1
    return found


def _yaml_key_written(text: str, key: tuple) -> tuple[str, int] | None:
    """(the last key of ``key`` as the YAML ``text`` writes it, its 1-based
    line): ``key`` is a path of keys as YAML loaded them, where YAML 1.1 reads
    ``on`` as True and ``~`` as None. None where the path is not there."""
    from memlint.frontmatter_yaml import _yaml_loader

    yaml, loader_class = _yaml_loader()
    try:
        node = yaml.compose(text.removeprefix("\ufeff"), Loader=loader_class)
        loader = loader_class("")
        found = None
        for part in key:
            if not isinstance(node, yaml.MappingNode):
                return None
            for key_node, value_node in node.value:
                value = loader.construct_object(key_node, deep=True) if isinstance(key_node, yaml.ScalarNode) else None
                if type(value) is type(part) and value == part:  # (True == 1: the types must agree too)
                    found, node = (key_node.value, key_node.start_mark.line + 1), value_node
                    break
            else:
                return None
        return found
    except (yaml.YAMLError, RecursionError):
        return None


_TOML_TABLE = re.compile(r"^[ \t]*\[(\[?)([^\[\]]+)\]\]?[ \t]*(?:#.*)?$")
_TOML_KEY_PART = r"(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')"
_TOML_KEY = re.compile(rf"^[ \t]*({_TOML_KEY_PART}(?:[ \t]*\.[ \t]*{_TOML_KEY_PART})*)[ \t]*=")


def _toml_key(text: str) -> tuple[str, ...]:
    """The parts of a TOML key: ``rules."MEM101".max-lines`` -> (rules, MEM101, max-lines)."""
    parts, current, quote = [], "", None
    for ch in text.strip():
        if quote:
            if ch == quote:
                quote = None
            else:
                current += ch
        elif ch in "\"'":
            quote = ch
        elif ch == ".":
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    parts.append(current.strip())
    return tuple(parts)


def _closing(text: str, quote: str, start: int = 0) -> int:
    """Where the triple ``quote`` that closes a multi-line string is in
    ``text``, or -1: in a basic (\"\"\") string, not one a backslash escapes."""
    end = text.find(quote, start)
    while quote == '"' * 3 and end != -1:
        before = end
        while before > start and text[before - 1] == "\\":
            before -= 1
        if (end - before) % 2 == 0:
            break
        end = text.find(quote, end + 1)
    return end


def _opens_multiline(value: str) -> str | None:
    """The triple quote a TOML value opens and leaves open on its line, if
    any: quotes inside a one-line string or a comment do not count."""
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "#":
            return None
        triple = value[i:i + 3]
        if triple in ('"""', "'''"):
            end = _closing(value, triple, i + 3)
            if end == -1:
                return triple
            i = end + 3
            continue
        if ch in "\"'":
            i += 1
            while i < len(value) and value[i] != ch:
                i += 2 if ch == '"' and value[i] == "\\" else 1
        i += 1
    return None


def _toml_line_of(text: str, key: tuple[str, ...]) -> int | None:
    """1-based line of a key of ``[tool.memlint]`` in a pyproject.toml, written
    as a table (``[tool.memlint.rules.MEM101]``), a key (``max-lines =``,
    dotted or not) or inside a parent's inline table (``rules = {...}``): the
    first line that names it or something in it, else the deepest parent's;
    None when there is none. Text inside multi-line strings is skipped."""
    want = ("tool", "memlint", *map(str, key))
    table: tuple[str, ...] = ()
    best, best_depth = None, 1
    in_string = None  # the triple quote that opened a multi-line string
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        if in_string:
            end = _closing(line, in_string)
            if end != -1:  # closed: what follows is TOML again (a comment quoting quotes, another string)
                in_string = _opens_multiline(line[end + 3:])
            continue
        header = _TOML_TABLE.match(line)
        if header:
            table = _toml_key(header.group(2)) if not header.group(1) else ("\0array of tables",)
            path = table
        else:
            assigned = _TOML_KEY.match(line)
            if not assigned:
                continue
            path = table + _toml_key(assigned.group(1))
            in_string = _opens_multiline(line[assigned.end():])
        if path[:len(want)] == want:
            return number  # the key itself, or a setting in it
        if want[:len(path)] == path and len(path) > best_depth:
            best, best_depth = number, len(path)
    return best


def _bad_item(value) -> str:
    """", not ITEM (item N)" for the first item of a list that is no string."""
    if not isinstance(value, list):
        return ""
    for n, item in enumerate(value, 1):
        if not isinstance(item, str):
            quote = " (quote it)" if isinstance(item, (int, float, bool)) else ""
            return f"; item {n} is {item!r}, not a string{quote}"
    return ""


def _is_str_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _check_type(value, types) -> bool:
    if value is None:
        return type(None) in types
    if isinstance(value, bool):
        return bool in types
    if isinstance(value, int) and float in types:
        return True
    if list in types and isinstance(value, list):
        return all(isinstance(v, str) for v in value)
    return isinstance(value, tuple(t for t in types if t is not list))


def _type_names(types) -> str:
    names = {int: "integer", float: "number", bool: "true/false", str: "string", list: "list of strings", type(None): "null"}
    return " or ".join(names.get(t, t.__name__) for t in types)


# The least value of a whole-number setting (0 for the others), and what it counts.
_LEAST = {"index-depth": (1, " (links from the root to a memory: 1 when the root lists every memory)")}


def validate(data, where: str = "config", written=None) -> None:
    """Raise ConfigError on anything memlint would not understand.
    ``written(key path)``: how the file wrote a key YAML read as no string
    (``on``, ``~``), and its line (see ``_yaml_key_written``)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: config must be a mapping, not {type(data).__name__}")

    def shown_key(path: tuple) -> str:
        """The last key of ``path`` as the file wrote it, quoted; where YAML
        read it as a boolean or null (`on`, `~`), saying so."""
        key = path[-1]
        if isinstance(key, str):
            return repr(key)
        spelled = (written(path) if written is not None else None) or (str(key), None)
        read_as = "null" if key is None else str(key).lower() if isinstance(key, bool) else None
        return repr(spelled[0]) + (f", which YAML reads as {read_as}" if read_as else "")

    unknown = sorted(set(data) - TOP_LEVEL_KEYS, key=str)  # YAML keys may be numbers, booleans or null
    if unknown:
        raise ConfigError(f"{where}: unknown key {shown_key((unknown[0],))} (known: {', '.join(sorted(TOP_LEVEL_KEYS))})",
                          key=(unknown[0],))
    preset = data.get("preset")
    if preset is not None and preset not in PRESET_NAMES:
        raise ConfigError(f"{where}: unknown preset {preset!r} (known: {', '.join(PRESET_NAMES)})", key=("preset",))
    for key in ("root",):
        if key in data and not isinstance(data[key], str):
            raise ConfigError(f"{where}: {key!r} must be a path string", key=(key,))
    for key in ("include", "exclude"):
        if key in data and not _is_str_list(data[key]):
            raise ConfigError(f"{where}: {key!r} must be a list of glob strings{_bad_item(data[key])}", key=(key,))
    for key in GLOB_SETTINGS:
        if _is_str_list(data.get(key)):
            data[key] = _normal_globs(data[key], f"{where}: {key}", (key,), from_config=key in ("include", "exclude"))
    if _is_str_list(data.get("retired-exempt-rules")):  # named rules must exist (the rules load only then)
        known = rule_registry.all_rules()
        for key in data["retired-exempt-rules"]:
            if not any(rule_registry.matches(rule, (key,)) for rule in known):
                raise ConfigError(f"{where}: retired-exempt-rules: no rule, tag or code prefix matches {key!r}", key=("retired-exempt-rules",))
    if data.get("wikilinks") is False:  # YAML 1.1 reads a bare `off` as false
        data["wikilinks"] = "off"
    for key, default in BASE_SETTINGS.items():
        if key == "root" or key not in data:
            continue
        value = data[key]
        if isinstance(default, list):
            ok = _is_str_list(value)
        elif isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, int):
            least, counts = _LEAST.get(key, (0, ""))
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= least
        elif key == "schema":
            ok = value is None or isinstance(value, str)
        else:
            ok = value is None or isinstance(value, (str, int)) and not isinstance(value, bool)
        if not ok and isinstance(default, int) and not isinstance(default, bool) and isinstance(value, int) \
                and not isinstance(value, bool):
            raise ConfigError(f"{where}: {key!r} must be {least} or more, not {value}{counts}", key=(key,))
        if not ok and isinstance(default, list) and isinstance(value, list):
            raise ConfigError(f"{where}: {key!r} must be a list of strings{_bad_item(value)}", key=(key,))
        if not ok:
            raise ConfigError(f"{where}: {key!r} has the wrong type ({type(value).__name__})", key=(key,))
        if key.endswith("-days") and value is not None and (not isinstance(value, int) or value < 0):
            raise ConfigError(f"{where}: {key!r} must be a number of days (0 or more) or null, not {value!r}", key=(key,))
    choices = {
        "frontmatter": ("required", "optional"),
        "wikilinks": ("strict", "dangling-ok", "off"),
        "date-source": ("author", "committer"),
    }
    for key, allowed in choices.items():
        if key in data and data[key] not in allowed:
            raise ConfigError(f"{where}: {key!r} must be one of {', '.join(allowed)}, not {data[key]!r}", key=(key,))
    rules_conf = data.get("rules", {})
    if rules_conf is None:
        return
    if not isinstance(rules_conf, dict):
        raise ConfigError(f"{where}: 'rules' must be a mapping of rule code or name to settings", key=("rules",))
    named: dict[str, str] = {}  # rule code -> the key that configures it
    # the store settings as this config gives them, valid by now: an option may name one of them
    # (no preset changes a setting a rule's option is checked against)
    settings = {**BASE_SETTINGS, **{key: data[key] for key in BASE_SETTINGS if key in data}}
    for key, value in rules_conf.items():
        if not isinstance(key, str):  # `~: off`, `on: off`: named as written, not as 'None' or 'True'
            raise ConfigError(f"{where}: rules: no such rule: {shown_key(('rules', key))} (see `memlint rules`)",
                              key=("rules", key))
        try:
            rule = rule_registry.get(key)
        except ValueError as exc:
            raise ConfigError(f"{where}: rules: {exc}", key=("rules", key)) from None
        if rule.CODE in named:  # one would silently win over the other
            raise ConfigError(f"{where}: rules: {named[rule.CODE]!r} and {str(key)!r} both configure {rule.CODE} "
                              f"{rule.NAME}: keep one", key=("rules", str(key)))
        named[rule.CODE] = str(key)
        if isinstance(value, bool):  # YAML 1.1: off/on, no/yes
            continue
        if isinstance(value, str):
            if value not in SEVERITY_VALUES:
                raise ConfigError(f"{where}: rules.{key}: severity must be error, warning or off, not {value!r}", key=("rules", str(key)))
            continue
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: rules.{key}: expected a severity or a mapping of options", key=("rules", str(key)))
        for opt, opt_value in value.items():
            if opt == "severity":
                if opt_value is False:
                    value[opt] = "off"
                elif opt_value not in SEVERITY_VALUES:
                    hint = " (YAML reads a bare on or yes as true: write error or warning)" if opt_value is True else ""
                    raise ConfigError(f"{where}: rules.{key}.severity must be error, warning or off, not {opt_value!r}{hint}",
                                      key=("rules", str(key), str(opt)))
            elif opt == "ignore":
                if not _is_str_list(opt_value):
                    raise ConfigError(f"{where}: rules.{key}.ignore must be a list of glob strings{_bad_item(opt_value)}",
                                      key=("rules", str(key), str(opt)))
                value[opt] = _normal_globs(opt_value, f"{where}: rules.{key}.ignore", ("rules", str(key), str(opt)),
                                           from_config=True)
            elif opt not in rule.OPTIONS:
                known = ", ".join(["severity", "ignore", *rule.OPTIONS]) or "severity, ignore"
                raise ConfigError(f"{where}: rules.{key}: unknown option {shown_key(('rules', key, opt))} (known: {known})",
                                  key=("rules", key, opt))
            elif not _check_type(opt_value, rule.OPTIONS[opt][0]):
                raise ConfigError(
                    f"{where}: rules.{key}.{opt} must be {_type_names(rule.OPTIONS[opt][0])}, not {opt_value!r}"
                    f"{_bad_item(opt_value)}", key=("rules", str(key), str(opt)))
            elif opt in getattr(rule, "GLOB_OPTIONS", ()):  # globs, read as `ignore:`'s are
                if not _is_str_list(opt_value):
                    raise ConfigError(f"{where}: rules.{key}.{opt} must be a list of glob strings{_bad_item(opt_value)}",
                                      key=("rules", str(key), str(opt)))
                value[opt] = _normal_globs(opt_value, f"{where}: rules.{key}.{opt}", ("rules", str(key), str(opt)))
            elif (bad := getattr(rule, "check_option", lambda name, v, s: None)(opt, opt_value, settings)) is not None:
                raise ConfigError(f"{where}: rules.{key}.{opt}: {bad}", key=("rules", str(key), str(opt)))
            elif isinstance(opt_value, (int, float)) and not isinstance(opt_value, bool):
                low, high = getattr(rule, "BOUNDS", {}).get(opt, (0, None))
                # NaN passes every comparison: a value that is no number fails first
                if opt_value != opt_value or opt_value in (float("inf"), float("-inf")) or opt_value < low or (
                        high is not None and opt_value > high):
                    span = f"from {low} to {high}" if high is not None else f"{low} or more"
                    raise ConfigError(f"{where}: rules.{key}.{opt} must be {span}, not {opt_value!r}", key=("rules", str(key), str(opt)))


def _normal_globs(globs: list[str], where: str, key: tuple, *, from_config: bool = False) -> list[str]:
    """Globs as the store matches them, written as people write paths: a
    leading ``./`` is the folder itself (``./drafts/**``), a trailing ``/``
    the whole folder (``drafts/``: ``drafts/**``). Matched as written, each
    would match nothing, silently; so would an absolute one (paths are
    matched relative to the store, or for ``from_config`` globs, include,
    exclude and ignore, also to the config file's folder), which is an error."""
    out = []
    for glob in globs:
        if glob.startswith("/"):
            also = (", or to the config file's folder where the store is below it (`memory/drafts/**`)"
                    if from_config else "")
            raise ConfigError(f"{where}: {glob!r} is absolute: globs match paths relative to the store's folder "
                              f"(`drafts/**` for its drafts/ folder){also}", key=key)
        glob = glob + "**" if glob.endswith("/") else glob
        while glob.startswith("./"):
            glob = glob[2:].lstrip("/")
        out.append(glob)
    return out


def glob_match(path: str, patterns) -> bool:
    """gitignore-ish globs: ``**/`` matches any depth, including none."""
    return bool(patterns) and glob_matcher(patterns)(path)


def glob_matcher(patterns):
    """``glob_match`` with the patterns bound and compiled once: a predicate
    of a path, for the loops that ask of every file of a store."""
    if not patterns:
        return lambda path: False
    regex, prefixes, needles = _compiled_globs(tuple(patterns))
    single = isinstance(needles, str)
    if regex is None:
        return lambda path: (path + "/").startswith(prefixes)

    def matches(path: str) -> bool:
        # A path holding none of the needles cannot match: most paths skip the regex.
        if needles is not None and not (needles in path if single else needles.search(path)):
            return bool(prefixes) and (path + "/").startswith(prefixes)
        return regex.match(path) is not None or bool(prefixes) and (path + "/").startswith(prefixes)

    return matches


@functools.lru_cache(maxsize=256)
def _compiled_globs(patterns: tuple[str, ...]):
    """One regex for a list of globs (a store has thousands of paths to match),
    the folder prefixes of its ``dir/**`` patterns, and what every match
    holds one of (each glob's longest run of plain characters): that string
    when one, a regex of them when several, None when a glob has none."""
    alternatives, prefixes, needles = [], [], []
    for pattern in patterns:
        for variant in _zero_depths(pattern):
            alternatives.append(variant)
            if variant.startswith("**/"):
                alternatives.append(variant[3:])
        if pattern.endswith("/**"):
            prefixes.append(pattern[:-2])
    for glob in alternatives:
        needles.append(_literal_run(glob))
    regex = re.compile("|".join(f"(?:{fnmatch.translate(a)})" for a in alternatives)) if alternatives else None
    if not all(needles):
        return regex, tuple(prefixes), None
    # A path holding a needle holds each needle within it: those are enough.
    needles = sorted({n for n in needles if not any(other in n for other in needles if other != n)})
    needle = needles[0] if len(needles) == 1 else re.compile("|".join(map(re.escape, needles)))
    return regex, tuple(prefixes), needle


def _zero_depths(pattern: str) -> list[str]:
    """``pattern`` and, for a ``/**/`` inside it, the pattern with it matching
    no folder at all (``drafts/**/*.md`` matches ``drafts/a.md``: fnmatch's
    ``*`` crosses folders, but the slashes around it need one). Each of the
    first few ``/**/`` is taken either way: a handful of alternatives."""
    pieces = pattern.split("/**/")
    variants = [pieces[0]]
    for n, piece in enumerate(pieces[1:]):
        variants = [v + joint + piece for v in variants for joint in (("/**/", "/") if n < 4 else ("/**/",))]
    return variants


def _literal_run(glob: str) -> str:
    """The longest run of characters that ``glob`` matches only as themselves
    ("" when unsure: an unclosed ``[``)."""
    runs, run, i = [], [], 0
    while i < len(glob):
        char = glob[i]
        if char in "*?":
            runs.append("".join(run))
            run = []
        elif char == "[":
            end = i + 1
            if end < len(glob) and glob[end] == "!":
                end += 1
            if end < len(glob) and glob[end] == "]":
                end += 1  # a ] first in a class is one of its characters
            end = glob.find("]", end)
            if end < 0:
                return ""  # fnmatch reads it as a plain [: too subtle to bet on
            runs.append("".join(run))
            run = []
            i = end
        else:
            run.append(char)
        i += 1
    runs.append("".join(run))
    return max(runs, key=len)

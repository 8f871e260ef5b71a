"""Frontmatter YAML, read safely: bounded in size, aliases, nesting and
values; duplicate keys are errors; dates kept as written. Simple frontmatter
(most of it) is read by hand with the same result as the loader.

Its own module so that loading a config file does not import the markdown
link machinery (dozens of regexes compiled at import)."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass


class _UniqueKeys:
    """Duplicate keys are an error, as in YAML 1.2 and the JavaScript loaders
    harnesses use; PyYAML alone would silently keep the last value."""

    def construct_mapping(self, node, deep=False):
        import yaml

        written = list(node.value)  # before merge keys (<<) are flattened in
        mapping = super().construct_mapping(node, deep=deep)
        if len(mapping) == len(written):
            return mapping  # the common case costs one comparison
        seen = set()
        for key_node, _ in written:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = (key_node.tag, key_node.value)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key_node.value!r}", key_node.start_mark
                )
            seen.add(key)
        return mapping


_KEY_AND_VALUE = re.compile(r"[ \t]*(?:- )?([^\s:#'\"][^:\n]{0,60}?):[ \t]+(?=\S)")


def _quote_hint(fm_text: str, offset: int) -> str:
    """What fixes a ``: `` inside a plain value (``description: Fix: use X``),
    the commonest way an agent breaks its own frontmatter."""
    line_start = fm_text.rfind("\n", 0, offset) + 1
    found = _KEY_AND_VALUE.match(fm_text, line_start)
    if found is None or found.end() > offset:
        return ""
    line_end = fm_text.find("\n", offset)
    value = fm_text[found.end():line_end if line_end >= 0 else len(fm_text)]
    if '"' not in value:
        return f": a value holding `: ` must be quoted, `{found.group(1)}: \"...\"`"
    twice = " (each ' in it written twice)" if "'" in value else ""
    return f": a value holding `: ` must be quoted, `{found.group(1)}: '...'`{twice}"


@functools.lru_cache(maxsize=1)
def _yaml_loader():
    """(the yaml module, memlint's loader class), imported on first need:
    simple frontmatter and config files are read without them (importing
    PyYAML costs ~15 ms, a twentieth of a hook call on a thousand files)."""
    import yaml

    try:  # the C loader is ~5x faster; PyYAML wheels ship it
        from yaml import CSafeLoader as base
    except ImportError:  # pragma: no cover - depends on the PyYAML build
        from yaml import SafeLoader as base

    class Loader(_UniqueKeys, base):
        """Safe loader that keeps dates as written: memlint parses them itself,
        so a bad date is a date finding on its line, not a broken block."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    return yaml, Loader


def __getattr__(name: str):
    if name == "_Loader":  # the loader class, for tests that compare with it
        return _yaml_loader()[1]
    raise AttributeError(name)


# Bounded so that a hostile file cannot make YAML parsing slow or huge.
MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_ALIASES = 100
MAX_YAML_VALUES = 10_000  # after aliases are expanded: what rules may walk
MAX_YAML_DEPTH = 32  # legitimate frontmatter nests 2 or 3 levels
_LIBYAML_SAFE_DEPTH = 1_000  # far below the ~20,000 levels where libyaml's C recursion overflows


@dataclass(frozen=True)
class FrontmatterError:
    message: str
    line: int
    column: int


def _count_aliases(fm_text: str) -> int:
    # A cheap upper bound: '*name' outside quotes. Alias bombs need many.
    return len(re.findall(r"(?:^|[\s\[{,:-])\*[^\s,\]}]+", fm_text))


_PASTED_BREAKS = {0x85: " ", 0x2028: " ", 0x2029: " "}


def load_yaml(fm_text: str, first_line: int, *, what: str = "frontmatter") -> tuple[object, FrontmatterError | None]:
    """Parse frontmatter YAML; errors carry the file line and column.

    ``what`` names the text in messages (the config file reuses this)."""
    if len(fm_text) > MAX_FRONTMATTER_CHARS:
        return None, FrontmatterError(
            f"{what} is {len(fm_text)} characters, over the {MAX_FRONTMATTER_CHARS} memlint reads", first_line, 1
        )
    if "*" in fm_text and "&" in fm_text and _count_aliases(fm_text) > MAX_ALIASES:
        return None, FrontmatterError(
            f"{what} uses more than {MAX_ALIASES} YAML aliases (an alias bomb?); not expanded", first_line, 1
        )
    conflict = ("<<<<<<<" in fm_text or ">>>>>>>" in fm_text or "=======" in fm_text) and _CONFLICT_MARKER.search(fm_text)
    if conflict:
        line = first_line + fm_text.count("\n", 0, conflict.start())
        return None, FrontmatterError(f"unresolved merge conflict marker {conflict.group(1)}", line, 1)
    if "\u2028" in fm_text or "\u2029" in fm_text or "\x85" in fm_text:
        # PyYAML (YAML 1.1) breaks lines at these, where the file and YAML 1.2
        # do not: pasted into a value, one made a false error. A space each
        # (as YAML 1.1 folds one in a quoted value), so every offset holds.
        fm_text = fm_text.translate(_PASTED_BREAKS)
    data = _simple_yaml(fm_text)
    if data is not _NOT_SIMPLE:
        return data, None
    # A line adds at most twice its length to the bound: short text is safe.
    if len(fm_text) > _LIBYAML_SAFE_DEPTH // 2 and _nesting_bound(fm_text) > _LIBYAML_SAFE_DEPTH:
        # libyaml recurses in C once per level and crashes the whole process
        # past ~20,000 levels; the pure-Python loader is quadratic there.
        return None, FrontmatterError(f"{what} nests too deep to read safely; not read", first_line, 1)
    yaml, loader = _yaml_loader()
    try:
        data = yaml.load(fm_text, Loader=loader)
    except RecursionError:
        return None, FrontmatterError(f"{what} nests too deep to read safely; not read", first_line, 1)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if exc.problem and exc.context and exc.context_mark is not None:
            # what YAML was reading, and where it began: "while scanning a quoted scalar" from line 2
            problem += f" ({exc.context} that began on line {first_line + exc.context_mark.line})"
        if mark is None:
            return None, FrontmatterError(f"invalid YAML: {problem}", first_line, 1)
        # YAML also breaks lines at a lone \r, U+0085, U+2028 and U+2029,
        # where the file does not: take those back out of YAML's count.
        offset = min(mark.index, len(fm_text))
        extra = len(_YAML_ONLY_BREAK.findall(fm_text, 0, offset))
        line = min(first_line + mark.line - extra, first_line + fm_text.count("\n") + 1)
        at_offset = line == first_line + fm_text.count("\n", 0, offset)  # else past the last line
        column = offset - fm_text.rfind("\n", 0, offset) if at_offset else 1
        if problem.startswith("mapping values are not allowed"):
            problem += _quote_hint(fm_text, offset)
        return None, FrontmatterError(f"invalid YAML: {problem}", line, column)
    except (yaml.YAMLError, ValueError, OverflowError) as exc:
        return None, FrontmatterError(f"invalid YAML: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", first_line, 1)
    except (KeyError, AttributeError, TypeError):  # PyYAML's own, for `!!bool maybe`, `!!timestamp foo`
        return None, FrontmatterError("invalid YAML: a value its tag (`!!bool`, `!!timestamp`...) cannot be read as",
                                      first_line, 1)
    too_big = _too_big(data, what)
    if too_big:
        return None, FrontmatterError(too_big, first_line, 1)
    return data, None


# ------------------------------------------------ simple frontmatter, fast
#
# Most frontmatter is flat ``key: value`` lines, a few one-line lists, maybe
# one nested mapping of such lines. Reading those by hand is ~10x faster than
# the loader (whose cost is Python-level node construction). Anything else,
# or anything unsure, goes to the loader: the result is always what the
# loader would give (tests/test_parse_fastpaths.py compares them).

_NOT_SIMPLE = object()
# YAML's printable characters, less the tab and the breaks that YAML alone
# counts (\x85, \u2028, \u2029) and the BOM; the ASCII ones alone first (the
# full class costs 3 ms to compile, on every run, and most frontmatter is ASCII).
_SIMPLE_ASCII = re.compile("[\n\x20-\x7e]*")


@functools.lru_cache(maxsize=1)
def _simple_text():
    return re.compile("[\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*")
# A key is at most 1024 characters: YAML rejects longer implicit keys.
_SIMPLE_ENTRY = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_-]{0,1023}):(?: +(.*))?")
_TOP_ENTRY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]{0,1023}):(?: +(.*))?")
_SIMPLE_ITEM = re.compile(r"( *)- +(.*)")
_DOUBLE_QUOTED = re.compile(r'"([^"\\]*)" *')
_SINGLE_QUOTED = re.compile(r"'((?:[^']|'')*)' *")
_FLOW_ITEM = re.compile(
    r"""(?:"([^"\\]*)"|'((?:[^']|'')*)'|([^\s,\[\]{}#:'"&*!|>%@`?-](?:[^,\[\]{}#:'"]*[^\s,\[\]{}#:'"])?)) *(?:(,) *|$)"""
)
_PLAIN_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@` ")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)")
# YAML 1.1 types a plain scalar by its first character: bool (yes/no,
# true/false, on/off), null (~, null), int and float (a digit, a sign or a
# dot), merge (<<), value (=) and the alias/anchor/tag indicators. Timestamps
# are left as strings (memlint reads dates itself). The fast path types
# bools, nulls and decimal ints itself and leaves every other number, and
# those indicators, to the loader (a test checks this against its table).
_BOOL_WORDS = {form: value for words, value in (("yes true on", True), ("no false off", False))
               for word in words.split() for form in (word, word.capitalize(), word.upper())}
_NULL_WORDS = frozenset(("~", "null", "Null", "NULL"))
_NUMBER_FIRST = frozenset("0123456789+-.")
_RESOLVED_FIRST = frozenset("yYnNtTfFoO~<=!&*") | _NUMBER_FIRST
_SPECIAL_FIRST = _PLAIN_INDICATORS | _RESOLVED_FIRST
# Every character of YAML 1.1's int and float forms (binary, octal, hex,
# sexagesimal, exponents, .inf, .nan).
_NUMBER_CHARS = frozenset("0123456789_.:+-eExXoObBabcdefABCDEFinfINFNaN")


def _plain_value(text: str):
    """A plain scalar typed as the loader's resolvers type it, or _NOT_SIMPLE."""
    if text[0] not in _RESOLVED_FIRST:
        return text
    try:
        return _PLAIN_TYPED[text]  # dates and keys repeat across a store
    except KeyError:
        pass
    if len(_PLAIN_TYPED) > 10_000:
        _PLAIN_TYPED.clear()
    value = _PLAIN_TYPED[text] = _resolve_plain(text)
    return value


_PLAIN_TYPED: dict[str, object] = {}


def _resolve_plain(text: str):
    """A plain scalar with a typed first character: its value, or _NOT_SIMPLE
    for a type the loader must decide (a number other than a decimal int, a
    merge or value key)."""
    if text[0] in _NUMBER_FIRST:
        if _DECIMAL.fullmatch(text):
            return int(text)
        return _NOT_SIMPLE if _may_be_number(text) else text
    if text in _BOOL_WORDS:
        return _BOOL_WORDS[text]
    if text in _NULL_WORDS:
        return None
    return _NOT_SIMPLE if text[0] in "<=!&*" else text


def _may_be_number(text: str) -> bool:
    """Whether a YAML 1.1 int or float could be spelled so: only their
    characters, and a sign only first or after an exponent's e (a date,
    2024-05-23, is not one)."""
    if not _NUMBER_CHARS.issuperset(text):
        return False
    for sign in "+-":
        at = text.find(sign, 1)
        while at != -1:
            if text[at - 1] not in "eE":
                return False
            at = text.find(sign, at + 1)
    return True


def _simple_scalar(text: str):
    """One line's value after ``key: `` or ``- ``, trailing spaces stripped."""
    first = text[0]
    if first not in _SPECIAL_FIRST:  # the common case: a plain string
        return _NOT_SIMPLE if ": " in text or " #" in text or text[-1] == ":" else text
    if first == '"':
        m = _DOUBLE_QUOTED.fullmatch(text)
        return m.group(1) if m else _NOT_SIMPLE
    if first == "'":
        m = _SINGLE_QUOTED.fullmatch(text)
        return m.group(1).replace("''", "'") if m else _NOT_SIMPLE
    if first == "[":
        return _simple_flow_list(text)
    if first in _PLAIN_INDICATORS or ": " in text or " #" in text or text.endswith(":"):
        return _NOT_SIMPLE
    return _plain_value(text)


def _simple_flow_list(text: str):
    """``[a, "b", 'c']`` on one line, items scalars."""
    inner = text.rstrip(" ")
    if not inner.endswith("]"):
        return _NOT_SIMPLE
    inner = inner[1:-1].strip(" ")
    items: list = []
    pos, end = 0, len(inner)
    while pos < end:
        m = _FLOW_ITEM.match(inner, pos)
        if not m:
            return _NOT_SIMPLE
        double, single, plain, comma = m.groups()
        if double is not None:
            items.append(double)
        elif single is not None:
            items.append(single.replace("''", "'"))
        else:
            value = _plain_value(plain)
            if value is _NOT_SIMPLE:
                return _NOT_SIMPLE
            items.append(value)
        pos = m.end()
        if comma is None and pos < end:
            return _NOT_SIMPLE
    return items


def _simple_yaml(fm_text: str):
    """What the loader makes of ``fm_text`` when it is simple, else _NOT_SIMPLE."""
    if not (_SIMPLE_ASCII if fm_text.isascii() else _simple_text()).fullmatch(fm_text):
        return _NOT_SIMPLE
    data: dict = {}
    values = 1
    lines = fm_text.split("\n")
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        i += 1
        m = _TOP_ENTRY.fullmatch(line)
        if not m:
            if not line.strip(" ") or line[0] == "#":
                continue
            return _NOT_SIMPLE
        key, text = m.groups()
        if key in data or key[0] in _RESOLVED_FIRST and type(_plain_value(key)) is not str:
            return _NOT_SIMPLE
        text = text.rstrip(" ") if text else ""
        if text:
            value = _simple_scalar(text)
            if value is _NOT_SIMPLE:
                return _NOT_SIMPLE
            values += 1 + (len(value) if type(value) is list else 0)
        else:  # a list or a mapping on the lines below, or null
            while i < n and not lines[i].strip(" "):
                i += 1
            value = None
            if i < n and lines[i][:1] == " " or lines[i:i + 1] and lines[i][:2] in ("- ", "-"):
                value, i, count = _simple_block(lines, i)
                if value is _NOT_SIMPLE:
                    return _NOT_SIMPLE
                values += count
            values += 1
        if values > MAX_YAML_VALUES:
            return _NOT_SIMPLE
        data[key] = value
    return data if data else _NOT_SIMPLE


def _simple_block(lines: list[str], i: int):
    """(value, next line, values) for a block list of scalars or a mapping of
    ``key: scalar`` lines, starting at line ``i``."""
    first = lines[i]
    indent = len(first) - len(first.lstrip(" "))
    prefix = " " * indent
    item = _SIMPLE_ITEM.fullmatch(first)
    out: list | dict = [] if item else {}
    count = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if not line.strip(" "):
            i += 1
            continue
        if not line.startswith(prefix) or line[indent:indent + 1] == " ":
            break  # a deeper line is not simple; a shallower one ends the block
        if type(out) is list:
            m = _SIMPLE_ITEM.fullmatch(line)
            if not m or len(m.group(1)) != indent:
                break
            text = m.group(2).rstrip(" ")
            value = _simple_scalar(text) if text else _NOT_SIMPLE
            if value is _NOT_SIMPLE or type(value) is list:
                return _NOT_SIMPLE, i, 0
            out.append(value)
        else:
            if indent == 0:
                break
            m = _SIMPLE_ENTRY.fullmatch(line)
            if not m or len(m.group(1)) != indent or not m.group(3):
                return _NOT_SIMPLE, i, 0
            key, text = m.group(2), m.group(3).rstrip(" ")
            if key in out or type(_plain_value(key)) is not str or not text:
                return _NOT_SIMPLE, i, 0
            value = _simple_scalar(text)
            if value is _NOT_SIMPLE:
                return _NOT_SIMPLE, i, 0
            count += len(value) if type(value) is list else 0
            out[key] = value
        count += 1
        i += 1
    if i < n and lines[i].strip(" ") and lines[i][:1] == " ":
        return _NOT_SIMPLE, i, 0  # indented, yet not part of the block
    return out, i, count


_YAML_ONLY_BREAK = re.compile("\r|[\x85\u2028\u2029]")  # line-end \r are stripped before YAML
_CONFLICT_MARKER = re.compile(r"^(<{7}|>{7}|={7})(?: |$)", re.M)


def _nesting_bound(fm_text: str) -> int:
    """A cheap upper bound on how deep the YAML can nest: open flow brackets
    plus, on the deepest line, its indentation and block indicators."""
    flow = deepest = 0
    for line in fm_text.split("\n"):
        opened = line.count("[") + line.count("{")
        block = 2 * (len(line) - len(line.lstrip())) + line.count("- ") + line.count("? ") + line.count(": ")
        deepest = max(deepest, flow + opened + block)
        flow = max(0, flow + opened - line.count("]") - line.count("}"))
    return deepest


def _too_big(data: object, what: str) -> str | None:
    """Why a loaded value is too large for the rules to walk, or None.

    Aliases make shared references, so an alias bomb loads in microseconds
    and then makes every consumer (schema validation, JSON output) walk
    billions of values. Count values as a consumer sees them, iteratively,
    and stop at the budget.
    """
    count = 0
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        count += 1
        if count > MAX_YAML_VALUES:
            return f"{what} expands to more than {MAX_YAML_VALUES:,} values (an alias bomb?); not read"
        if depth > MAX_YAML_DEPTH:
            return f"{what} nests deeper than {MAX_YAML_DEPTH} levels; not read"
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return None

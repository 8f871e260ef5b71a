"""Add missing date fields to one file's frontmatter, changing nothing else.

Pure: bytes in, bytes out. The edit is made on the text: each new key is one
line inserted before the closing fence (``created: 2024-03-05``, in the
file's own newline style and at its frontmatter's indentation, after a BOM if
there is one), and an empty value (``created:``, ``created: ~``,
``created: ""``, ``created: |``, ``created: !!null``), flat or one level under
``metadata:``, is filled in on its own line. Every other byte stays, and the
body after the closing fence is checked to be byte-identical. ruamel.yaml
(round-trip) reads the result too, where it can read the original (it refuses
some valid YAML that ``check`` accepts, such as a tab inside a plain value);
only where a plain insert would not give the same fields (a frontmatter
written as a flow mapping, ``{name: a}``) does it rewrite the frontmatter,
keeping key order, comments and quoting. Invalid YAML is never touched.

``memlint.commands.backfill`` is the command around it; only that command
imports this module, so ruamel.yaml never loads on the ``check`` path.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from memlint import markdown

BOM = b"\xef\xbb\xbf"
_EMPTY_SCALAR = r"~|null|Null|NULL|''|\"\""
# A block scalar's header (`|`, `>-`, `|2+`): empty only when no more-indented line follows it.
_BLOCK_HEADER = r"[|>](?:[1-9][+-]?|[+-][1-9]?)?"
_TAG = r"![^ \t\r]*"  # `!!null`, `!!str`: alone, or before an empty value (a CR ends it)
_EMPTY_VALUES = (rf"(?:(?:{_TAG}[ \t]+)?(?:{_EMPTY_SCALAR}|(?P<block>{_BLOCK_HEADER}))|{_TAG})?")


@dataclass(frozen=True)
class Outcome:
    data: bytes  # the new content; the input itself when nothing changed
    added: tuple[str, ...] = ()  # fields written, in the order given
    unknown: tuple[str, ...] = ()  # fields missing whose date is unknown (not committed yet)
    skipped: str | None = None  # why the file was left alone

    @property
    def changed(self) -> bool:
        return bool(self.added)


@dataclass
class _Plan:
    fill: dict[str, str] = field(default_factory=dict)  # empty flat key -> value
    fill_metadata: dict[str, str] = field(default_factory=dict)  # empty key under `metadata:` -> value
    insert: dict[str, str] = field(default_factory=dict)  # absent key -> value


def _missing(value) -> bool:
    return value is None or value == ""


def add_dates(data: bytes, dates: dict[str, date | None], *, create_block: bool,
              parsed: markdown.Parsed | None = None) -> Outcome:
    """Write the fields of ``dates`` that the frontmatter lacks (absent or empty,
    flat or under ``metadata:``). A None date is unknown: that field is left
    out and listed in ``unknown``. ``create_block``: a file with no
    frontmatter gets a minimal block; otherwise it is left alone. ``parsed``:
    the caller's parse of these bytes, used only if it is of the same text."""
    bom = data.startswith(BOM)
    try:
        text = data[len(BOM):].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError:
        return Outcome(data, skipped="not valid UTF-8")
    lines = text.split("\n")
    fences = markdown._find_frontmatter(lines)
    if fences is not None and fences[1] != -1:
        if parsed is None or parsed.text != text:
            parsed = markdown.parse(text)
        fences = _as_check_reads(fences, parsed)
    if fences is None and "\r" in text.replace("\r\n", ""):
        # Lines that end in a lone CR (old Mac files) read as one line here,
        # and perhaps as frontmatter elsewhere: a new block could be a second one.
        return Outcome(data, skipped="lines end in a lone CR (\\r): convert them to \\n first")
    if fences is None:
        if not create_block:
            return Outcome(data, skipped="no frontmatter, and this store does not require one: left alone")
        wanted = {k: v for k, v in dates.items() if v is not None}
        unknown = tuple(k for k, v in dates.items() if v is None)
        if not wanted:
            return Outcome(data, unknown=unknown)
        nl = "\r\n" if lines[0].endswith("\r") else "\n"
        block = "".join(f"{line}{nl}" for line in ["---", *(f"{k}: {v.isoformat()}" for k, v in wanted.items()), "---"])
        new_text = block + text
        _check(new_text, text)
        return Outcome(_encode(new_text, bom), tuple(wanted), unknown)
    start, end = fences
    if start > 0:
        return Outcome(data, skipped="frontmatter after other text (MEM005): move it to line 1 first")
    if end == -1:
        return Outcome(data, skipped="frontmatter is never closed (MEM002): not touched")
    if parsed is None or parsed.text != text:
        parsed = markdown.parse(text)
    if parsed.frontmatter_error is not None:
        err = parsed.frontmatter_error
        return Outcome(data, skipped=f"invalid frontmatter (MEM002, line {err.line}): {err.message}; not touched")
    fm = parsed.frontmatter or {}
    meta = fm.get("metadata") if isinstance(fm.get("metadata"), dict) else {}

    plan = _Plan()
    unknown = []
    for name, when in dates.items():
        if not _missing(fm.get(name)) or not _missing(meta.get(name)):
            continue  # already dated (an unparseable date is MEM004's, not ours to overwrite)
        if when is None:
            unknown.append(name)
        elif name in fm:
            plan.fill[name] = when.isoformat()
        elif name in meta:
            plan.fill_metadata[name] = when.isoformat()
        else:
            plan.insert[name] = when.isoformat()
    said = _drop_inverted(plan, fm, meta)
    if not plan.fill and not plan.insert and not plan.fill_metadata:
        return Outcome(data, unknown=tuple(unknown), skipped=said)

    original_fm = "\n".join(line.rstrip("\r") for line in lines[start + 1:end])
    # ruamel.yaml is a second reader: it refuses some YAML that check's
    # reader (libyaml) accepts, such as a tab inside a plain value. Such a
    # frontmatter still takes a plain insert, which leaves every existing
    # byte as it was; only a rewrite needs ruamel.
    ruamel_refuses = None
    try:
        _ruamel_load(original_fm)
    except Exception as exc:  # ruamel's errors share no base class worth naming
        ruamel_refuses = f"ruamel.yaml cannot read this frontmatter ({_first_line(exc)}): not touched"
    crlf = lines[end - 1].endswith("\r")  # the line before the closing fence: that fence may end the file
    new_fm_lines = _edit_lines(lines[start + 1:end], plan, "\r" if crlf else "")
    added = {**plan.fill, **plan.insert, **plan.fill_metadata}
    new_text = None
    over = _over_limit(new_fm_lines) if new_fm_lines is not None else None
    if over:
        return Outcome(data, unknown=tuple(unknown), skipped=over)
    if new_fm_lines is not None:
        candidate = "\n".join([*lines[:start + 1], *new_fm_lines, *lines[end:]])
        if _same_fields(candidate, original_fm, plan, ruamel=ruamel_refuses is None):
            new_text = candidate
    if new_text is None and ruamel_refuses:
        return Outcome(data, unknown=tuple(unknown), skipped=ruamel_refuses)
    if new_text is None:  # a plain insert would not read back the same: round-trip instead
        dumped = _ruamel_round_trip(original_fm, plan)
        if dumped is not None and not _keeps_comments(original_fm, dumped):
            return Outcome(data, unknown=tuple(unknown),
                           skipped="a rewrite of this frontmatter would lose a comment: add the dates by hand")
        over = _over_limit(dumped.split("\n")) if dumped is not None else None
        if over:
            return Outcome(data, unknown=tuple(unknown), skipped=over)
        if dumped is not None:
            fm_lines = dumped.split("\n")
            if crlf:
                fm_lines = [line + "\r" for line in fm_lines]
            candidate = "\n".join([*lines[:start + 1], *fm_lines, *lines[end:]])
            if _same_fields(candidate, original_fm, plan):
                new_text = candidate
    if new_text is None:
        return Outcome(data, unknown=tuple(unknown),
                       skipped="could not add the dates without changing other fields: add them by hand")
    _check(new_text, text)
    order = [name for name in dates if name in added]
    return Outcome(_encode(new_text, bom), tuple(order), tuple(unknown), skipped=said)


def _over_limit(fm_lines: list[str]) -> str | None:
    """Why frontmatter of these lines would not be read (longer than the
    frontmatter memlint reads), or None."""
    from memlint.frontmatter_yaml import MAX_FRONTMATTER_CHARS

    size = len("\n".join(line.rstrip("\r") for line in fm_lines))  # as check counts it
    if size <= MAX_FRONTMATTER_CHARS:
        return None
    return (f"with the dates its frontmatter would be {size} characters, over the {MAX_FRONTMATTER_CHARS} memlint "
            "reads (MEM002): not written; shorten it first")


def _encode(text: str, bom: bool) -> bytes:
    return (BOM if bom else b"") + text.encode("utf-8")


def _edit_lines(fm_lines: list[str], plan: _Plan, cr: str) -> list[str] | None:
    """The frontmatter lines with empty keys filled and new keys appended; None
    if an empty key is written in a form this does not recognise."""
    out = list(fm_lines)
    top = _top_indent(out)  # a frontmatter indented as a whole keeps its indentation
    # Where YAML reads each key: a line inside a multi-line string may look like `created:` too.
    key_rows = _key_rows(out) if plan.fill or plan.fill_metadata else {}
    for name, value in plan.fill.items():
        rows = [key_rows[(name,)]] if (name,) in key_rows else range(len(out))
        if not _fill(out, rows, top, name, value):
            return None
    if plan.fill_metadata:
        children = _metadata_children(out, top)
        if children is None:
            return None
        indent, rows = children
        for name, value in plan.fill_metadata.items():
            where = key_rows.get(("metadata", name))
            if not _fill(out, [where] if where in rows else rows, indent, name, value):
                return None
    out.extend(f"{top}{name}: {value}{cr}" for name, value in plan.insert.items())
    return out


def _key_rows(fm_lines: list[str]) -> dict[tuple[str, ...], int]:
    """The row of each top-level key, and of each key directly under
    ``metadata:`` (``("metadata", name)``), as YAML reads the frontmatter;
    {} where it cannot."""
    from memlint.frontmatter_yaml import _yaml_loader

    # YAML alone breaks lines at these: a space each keeps every row where the file has it
    text = "\n".join(line.rstrip("\r") for line in fm_lines).translate({0x0D: " ", 0x85: " ", 0x2028: " ", 0x2029: " "})
    yaml, loader = _yaml_loader()
    try:
        root = yaml.compose(text, Loader=loader)
    except Exception:  # PyYAML's errors share no base class with RecursionError and the rest
        return {}
    rows: dict[tuple[str, ...], int] = {}

    def take(mapping, path: tuple[str, ...]) -> None:
        for key, value in mapping.value:
            if isinstance(key, yaml.ScalarNode):
                rows.setdefault((*path, key.value), key.start_mark.line)
                if not path and key.value == "metadata" and isinstance(value, yaml.MappingNode):
                    take(value, ("metadata",))

    if isinstance(root, yaml.MappingNode):
        take(root, ())
    return rows


def _top_indent(lines: list[str]) -> str:
    """The spaces before the frontmatter's first key (its top level), "" when
    none: blank lines and comments aside."""
    for line in lines:
        text = line.rstrip("\r")
        if text.strip() and not text.lstrip(" ").startswith("#"):
            return text[:len(text) - len(text.lstrip(" "))]
    return ""


def _fill(out: list[str], rows, indent: str, name: str, value: str) -> bool:
    """Write ``value`` into the first of ``rows`` that holds ``name`` at
    ``indent`` with an empty value; False when none does."""
    key = re.escape(name)
    pattern = re.compile(rf"^{indent}({key}|\"{key}\"|'{key}')[ \t]*:[ \t]*{_EMPTY_VALUES}([ \t]*)(#.*?)?(\r?)$")
    for i in rows:
        m = pattern.match(out[i])
        if not m:
            continue
        if m.group("block") and _more_indented_follows(out, i, len(indent)):
            return False  # the block scalar's lines run on below: one line cannot stand for them
        key_as_written, gap, comment, line_cr = m.group(1), m.group(3), m.group(4), m.group(5)
        # `key: ""  # why`: the comment keeps the gap written before it
        comment = f"{gap or ' '}{comment}" if comment else ""
        out[i] = f"{indent}{key_as_written}: {value}{comment}{line_cr}"  # the key as it was written (quoted or not)
        return True
    return False


def _more_indented_follows(lines: list[str], i: int, indent: int) -> bool:
    """Whether a line indented deeper than ``indent`` comes after ``lines[i]``
    before the next line that is not blank (a block scalar's content). A
    line of spaces alone is blank: YAML reads it as an empty line, not content."""
    for line in lines[i + 1:]:
        if not line.rstrip("\r").strip(" "):
            continue
        return len(line) - len(line.lstrip(" \t")) > indent
    return False


def _metadata_children(lines: list[str], top: str = "") -> tuple[str, range] | None:
    """The indentation of the keys under a top-level ``metadata:`` line (keys
    at ``top``) and the rows that block spans; None where it is not written
    that way."""
    opening = re.compile(rf"^{top}(metadata|\"metadata\"|'metadata')[ \t]*:[ \t]*(#.*)?\r?$")
    start = next((i for i, line in enumerate(lines) if opening.match(line)), None)
    if start is None:
        return None
    end, indent = start + 1, None
    while end < len(lines):
        line = lines[end].rstrip("\r")
        # blank lines and comments neither end the block nor set its indentation
        if line.strip() and not line.lstrip(" ").startswith("#"):
            if not line.startswith(top + " "):
                break
            indent = indent or line[:len(line) - len(line.lstrip(" "))]
        end += 1
    # Only lines at the children's own indentation are its keys (deeper ones
    # belong to a nested value); the fields check then proves what was filled.
    return (indent, range(start + 1, end)) if indent else None


def _drop_inverted(plan: _Plan, fm: dict, meta: dict) -> str | None:
    """Leave out a planned date that would put ``last_verified`` before
    ``created`` (MEM004 reports that pair), and say why; None when none is."""
    from memlint.dates import parse_date

    def when(name: str) -> tuple[date | None, bool]:
        planned = plan.fill.get(name) or plan.insert.get(name) or plan.fill_metadata.get(name)
        if planned:
            return date.fromisoformat(planned), True
        value = fm.get(name) if not _missing(fm.get(name)) else meta.get(name)
        try:
            return (parse_date(value) if not _missing(value) else None), False
        except ValueError:
            return None, False

    (created, created_new), (verified, verified_new) = when("created"), when("last_verified")
    if created is None or verified is None or verified >= created or not (created_new or verified_new):
        return None  # in order, or both written by hand already (MEM004 reports that pair)
    if verified_new:  # git's last change dated before its first add (author dates out of order), or before `created`
        for planned in (plan.fill, plan.insert, plan.fill_metadata):
            planned.pop("last_verified", None)
        return (f"git dates its last change {verified.isoformat()}, before `created: {created.isoformat()}`: "
                "last_verified left out; check the dates, then set it by hand")
    for planned in (plan.fill, plan.insert, plan.fill_metadata):
        planned.pop("created", None)
    return (f"`last_verified: {verified.isoformat()}` is before the day git first added it "
            f"({created.isoformat()}): created left out; a memory older than its repository is dated by hand")


def _keeps_comments(old_fm: str, new_fm: str) -> bool:
    """Whether every comment of ``old_fm`` (from a ``#`` at a line's start or
    after a space) is still in ``new_fm``."""
    for line in old_fm.split("\n"):
        m = re.search(r"(?:^|[ \t])(#.*)$", line)
        if m and m.group(1).strip() not in new_fm:
            return False
    return True


def _same_fields(new_text: str, old_fm_text: str, plan: _Plan, *, ruamel: bool = True) -> bool:
    """Does the new frontmatter read back as the old fields plus the planned
    ones, in the same order, and nothing else, both as ``check`` reads YAML
    and (when ``ruamel``) as ruamel.yaml does? (Read with its final newline, as
    YAML means it: a ``|+`` block scalar at the end keeps its trailing blank lines.)"""
    parsed = markdown.parse(new_text)
    if parsed.frontmatter_error is not None or parsed.frontmatter is None:
        return False
    start, end = parsed.frontmatter_lines
    new_fm_text = "\n".join(line.rstrip("\r") for line in new_text.split("\n")[start:end - 1])
    old, _ = _load_yaml(old_fm_text)
    new, error = _load_yaml(new_fm_text)
    old = old or {}
    if error is not None or not isinstance(new, dict):
        return False
    added = {**plan.fill, **plan.insert}
    expected = {**old, **added}
    if plan.fill_metadata:  # filled where they were: metadata keeps its own order
        expected["metadata"] = {**old["metadata"], **plan.fill_metadata}
        if not isinstance(new.get("metadata"), dict) or list(new["metadata"]) != list(old["metadata"]):
            return False
    if new != expected or list(new) != [*old, *(k for k in added if k not in old)]:
        return False
    if not ruamel:
        return True
    try:
        loaded = _ruamel_load(new_fm_text + "\n")
    except Exception:
        return False
    return hasattr(loaded, "keys") and list(loaded.keys()) == list(new)


def _load_yaml(fm_text: str):
    """``load_yaml`` of frontmatter with its final newline, but for one at
    memlint's size limit, which that newline would put over it."""
    from memlint.frontmatter_yaml import MAX_FRONTMATTER_CHARS

    return markdown.load_yaml(fm_text + "\n" if len(fm_text) < MAX_FRONTMATTER_CHARS else fm_text, 1)


def _check(new_text: str, old_text: str) -> None:
    """The promise, verified: the body after the closing fence is byte-identical."""
    if _body(new_text) != _body(old_text):
        raise AssertionError("memlint backfill would change the body: nothing written (please report this)")


def _as_check_reads(fences: tuple[int, int], parsed: markdown.Parsed) -> tuple[int, int] | None:
    """``fences`` (of a closed block), or None where check reads no
    frontmatter there: ``markdown.parse`` takes two ``---`` around plain
    markdown (bold text, a table) for horizontal rules (MEM001, not MEM002)."""
    return fences if parsed.frontmatter_lines is not None else None


def _body(text: str) -> str:
    lines = text.split("\n")
    fences = markdown._find_frontmatter(lines)
    if fences is not None and fences[1] != -1:
        fences = _as_check_reads(fences, markdown.parse(text))
    if fences is None or fences[1] == -1:
        return text
    end = fences[1]
    return "\n".join(lines[end + 1:]) if end + 1 < len(lines) else ""


def _yaml():
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 1 << 16  # never fold a long line
    return yaml


def _ruamel_load(fm_text: str):
    return _yaml().load(fm_text) if fm_text.strip() else {}


def _ruamel_round_trip(fm_text: str, plan: _Plan) -> str | None:
    import io

    yaml = _yaml()
    try:
        data = yaml.load(fm_text) if fm_text.strip() else None
        if data is None:
            from ruamel.yaml.comments import CommentedMap

            data = CommentedMap()
        if not hasattr(data, "insert"):
            return None
        for name, value in {**plan.fill, **plan.insert}.items():
            data[name] = date.fromisoformat(value)
        for name, value in plan.fill_metadata.items():
            data["metadata"][name] = date.fromisoformat(value)
        out = io.StringIO()
        yaml.dump(data, out)
    except Exception:
        return None
    text = out.getvalue()
    return text[:-1] if text.endswith("\n") else text


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


__all__ = ["Outcome", "add_dates"]

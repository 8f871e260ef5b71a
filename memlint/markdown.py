"""Split frontmatter and extract links from one markdown file.

Links follow CommonMark (inline, reference, autolinks; nothing inside code).
A regex pass over the text with code blanked out is about 15x faster than a
full markdown-it-py parse; it is used only when the text has none of the
constructs it cannot judge (reference definitions, backslash escapes, raw
HTML blocks, indented code, nested brackets...). Otherwise markdown-it-py, the
CommonMark reference, decides. ``tests/test_links_commonmark.py`` proves both
paths agree with the spec examples.
"""
from __future__ import annotations

import bisect
import re
import sys
from itertools import accumulate, chain, repeat
from operator import attrgetter, itemgetter
from dataclasses import dataclass, field
from typing import NamedTuple
from urllib.parse import unquote

# The YAML side lives in memlint.frontmatter_yaml (a config load needs only it).
from memlint.frontmatter_yaml import FrontmatterError, load_yaml

BOM = "\ufeff"
# markdown-it-py's inline pass is quadratic on some hostile paragraphs (a
# line of 100,000 '[' takes seconds) and costs ~10 s a megabyte on link-dense
# text; past these lengths the regex pass decides.
MAX_PARSER_BLOCK_CHARS = 10_000
MAX_PARSER_CHARS = 500_000


class Link(NamedTuple):
    """A tuple, not a dataclass: a big store has tens of thousands of links,
    and a tuple is made, and loaded from the cache, twice as fast."""

    target: str  # destination as the author meant it: percent-decoded (but %, # and ?: decode_destination), <> stripped
    line: int  # 1-based line in the file
    column: int  # 1-based
    kind: str  # "link" | "image" | "autolink" | "wiki" | "embed" | "code"
    text: str = ""  # link text, wikilink alias
    anchor: str = ""  # "#heading" or "^block" part of a wikilink


@dataclass
class Parsed:
    """Everything memlint needs from one file's text, computed once."""

    text: str
    line_count: int
    frontmatter: dict | None = None
    frontmatter_error: FrontmatterError | None = None
    frontmatter_lines: tuple[int, int] | None = None  # 1-based lines of the opening and closing ---
    preamble_lines: int = 0  # lines before an opening --- that is not on line 1
    key_lines: dict[str, int] = field(default_factory=dict)  # "name", "metadata.type" -> 1-based line
    body_start: int = 0  # where the body starts in the text (after the frontmatter): see ``body``
    body_line: int = 1  # 1-based line where the body starts
    links: tuple[Link, ...] = ()
    used_reference_parser: bool = False
    # Whether the text holds "memlint-", as an inline directive does (None: not
    # looked): every run asks it of every file, and a cached parse answers at once.
    names_memlint: bool | None = None

    @property
    def body(self) -> str:
        """The text after the frontmatter (all of it when there is none).
        Sliced when asked, not kept: four places ask, once a file each, and
        a second copy of every text held 17 MB more of a 10,000-file store
        in memory, made on every load of its cache."""
        return self.text[self.body_start:]

    def __reduce__(self):
        # Compact for the cache (memlint.cache): the fields as a tuple.
        return _parsed, (self.text, self.line_count, self.frontmatter, self.frontmatter_error, self.frontmatter_lines,
                         self.preamble_lines, self.key_lines, self.body_start, self.body_line, self.links,
                         self.used_reference_parser, self.names_memlint)

    def may_hold_directives(self) -> bool:
        """Whether the text holds "memlint-": without it, no inline directive (memlint.suppress)."""
        if self.names_memlint is None:
            self.names_memlint = "memlint-" in self.text
        return self.names_memlint


def _parsed(text, line_count, frontmatter, error, fm_lines, preamble, key_lines, body_start, body_line, links, slow,
            names_memlint=None) -> Parsed:
    return Parsed(text, line_count, frontmatter, error, fm_lines, preamble, key_lines, body_start, body_line, links,
                  slow, names_memlint)


# ---------------------------------------------------------------- frontmatter

_FENCE_LINE = re.compile(r"---[ \t]*\r?$")
_CLOSE_LINE = re.compile(r"(?:---|\.\.\.)[ \t]*\r?$")
_KEY_LINE = re.compile(r"^( *)([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]|$)")


def _split_lines(text: str) -> list[str]:
    return text.split("\n")


# The fields a memory's frontmatter names (the shipped schemas', lifecycle
# and date fields): a block after other text that names one of them, as
# written, is a frontmatter pushed down rather than text between two rules.
_FIELD_NAMES = frozenset({
    "name", "description", "type", "title", "date", "created", "updated", "last_verified", "expires", "tags",
    "aliases", "status", "priority", "category", "metadata", "key", "supersedes", "superseded_by",
    "superseded-by", "supersededBy", "originSessionId",
})


def _names_a_field(block: list[str]) -> bool:
    """Whether a block after other text reads as fields: it names one a
    memory has, or its keys are written as fields are (lower case:
    `reviewed:`, not `Owner:`), and two or more of them or no markdown
    link (`warning: see [runbook](x.md)` alone is a line of text)."""
    keys = [m.group(2) for m in map(_KEY_LINE.match, block) if m is not None and not m.group(1)]
    if any(key in _FIELD_NAMES for key in keys):
        return True
    return bool(keys) and all(key[:1].islower() for key in keys) and (
        len(keys) >= 2 or not any("](" in line for line in block))


# A line of paragraph text, which a `---` below underlines (a setext heading):
# not blank, not a comment, heading, fence, quote or list item.
_PARAGRAPH_LINE = re.compile(r"[ ]{0,3}(?![-*+>#]|<!--|```|~~~|[0-9]+[.)][ \t]|[ \t]*\r?$)")

# A line of plain text, which YAML would read as no key: not blank, not
# indented, no list item or comment, no `key:`.
_TEXT_LINE = re.compile(r"(?![ \t\-#]|[^:\n]*:(?:[ \t]|\r?$))[^\r\n]")

# Lines that are markdown, which no frontmatter holds: a table row, bold
# text, a task list item (`- [x] done`; YAML would read it as a list).
_MARKDOWN_ONLY = re.compile(r"[ \t]*(?:\|.*\|[ \t]*\r?$|\*\*\S|[-*+][ \t]+\[[ xX]\](?:[ \t]|\r?$))")


# A line's first word, and the colon and character after it when they are glued
# (`owner:dana`, which YAML reads as text).
_FIRST_WORD = re.compile(r"[ \t]*([\w-]+)(:\S)?")


def _tries_a_field(line: str) -> bool:
    """A line written as a field: a known field's name first (`name pricing`,
    `name:pricing`), or a key glued to its value (`owner:dana`)."""
    m = _FIRST_WORD.match(line)
    return m is not None and (m.group(1) in _FIELD_NAMES or m.group(2) is not None)


def _no_fields(data, block: list[str]) -> bool:
    """Whether YAML read a block as no field at all: text (a paragraph) or
    a list of plain items. Frontmatter written as a list (`- name: x`), or
    missing its colons or spaces (`name pricing`, `name:pricing`), is a
    mistake to say."""
    if any(map(_tries_a_field, block)):
        return False
    if isinstance(data, list):
        return not any(isinstance(item, (dict, list)) for item in data)
    return isinstance(data, (str, int, float))


def _find_frontmatter(lines: list[str]) -> tuple[int, int] | None:
    """Return 0-based (open, close) line indexes of the frontmatter fences.

    Frontmatter is a ``---`` first line (close -1: never closed). A ``---``
    a few lines down that is followed by ``key:`` lines and a closing fence
    is frontmatter after a preamble: parsed, and reported, because most
    harnesses will not see it.
    """
    start = None
    if lines and _FENCE_LINE.match(lines[0]):
        start = 0
    else:
        for i in range(1, min(len(lines), 12)):
            if _FENCE_LINE.match(lines[i]):
                if i + 1 < len(lines) and _KEY_LINE.match(lines[i + 1]):
                    start = i
                break
            if lines[i - 1].strip() and not lines[i - 1].lstrip().startswith(("<!--", "#")) and i > 3:
                break
    if start is None:
        return None
    limit = len(lines)
    for j in range(start + 1, limit):
        if lines[j][:3] in ("---", "...") and _CLOSE_LINE.match(lines[j]):
            if start and not _names_a_field(lines[start + 1:j]):
                # Two rules around "Owner: Dana" lines: markdown, not a
                # frontmatter pushed down (which names a memory's fields).
                return None
            return start, j
    # Never closed. On the first line, that is a broken frontmatter; further
    # down, only after a comment or with two `key:` lines below it: else it
    # is a rule, or a heading's underline, before a line such as "Note: ...".
    if start == 0 or lines[start - 1].lstrip().startswith("<!--"):
        return start, -1
    keyed = start + 2 < len(lines) and _KEY_LINE.match(lines[start + 2])
    return (start, -1) if keyed else None


# Any key a finding may name: quoted ("type": as JSON-minded agents write it) or
# starting with a digit or a symbol, as well as _KEY_LINE's.
_ANY_KEY_LINE = re.compile(r"""^( *)(?:"((?:[^"\\]|\\.)+)"|'((?:[^']|'')+)'|([^\s:#'"\-{\[][^:#]*?))[ \t]*:(?:[ \t]|$)""")


_FLOW_KEY = re.compile(r"""[{,]\s*["']?([A-Za-z_][\w.-]*)["']?\s*:""")  # a key of a flow mapping on one line


def _interned_keys(data: dict) -> dict:
    """``data`` with its keys (and those of a mapping one level down, as
    ``metadata:`` holds) interned: a store's files repeat the same few
    field names, and the cache then keeps one string for each in a shard
    rather than one per file (on 10,000 files, 120,000 strings fewer to
    load, with ``_key_lines``'s). Two levels only: YAML aliases can make a
    mapping hold itself."""
    return {_intern(key): {_intern(k): v for k, v in value.items()} if type(value) is dict else value
            for key, value in data.items()}


def _intern(key):
    return sys.intern(key) if type(key) is str else key


def _key_lines(fm_lines: list[str], first_line: int) -> dict[str, int]:
    """Map top-level keys (and keys one level down, dotted) to 1-based lines
    (the keys interned, as ``_interned_keys`` does)."""
    out: dict[str, int] = {}
    parent = None
    for offset, raw in enumerate(fm_lines):
        m = _ANY_KEY_LINE.match(raw)  # a trailing \r matters only after a bare "key:"
        if not m and raw.endswith("\r"):
            m = _ANY_KEY_LINE.match(raw.rstrip("\r"))
        if not m:
            continue
        indent, key = len(m.group(1)), m.group(2) or m.group(3) or m.group(4)
        line = first_line + offset
        if indent == 0:
            parent = key
            out.setdefault(sys.intern(key), line)
            value = raw[m.end():].lstrip()
            if value.startswith("{"):  # `metadata: {type: user, status: x}`: its keys are on this line
                for inner in _FLOW_KEY.findall(value):
                    out.setdefault(sys.intern(f"{key}.{inner}"), line)
        elif parent is not None:
            out.setdefault(sys.intern(f"{parent}.{key}"), line)
    return out


def _line_offset(lines: list[str], index: int) -> int:
    """Offset in the text of the start of ``lines[index]`` (lines split at "\n")."""
    return sum(map(len, lines[:index])) + index


def parse(text: str, *, backtick_refs: bool = True, wikilinks: bool = True) -> Parsed:
    """Parse one file's text (already decoded). Pure: same text, same result.

    ``wikilinks=False`` reads ``[[x]]`` as CommonMark does (brackets, not a link).
    """
    if text.startswith(BOM):
        text = text[1:]
    lines = _split_lines(text)
    line_count = len(lines) - (1 if text.endswith("\n") else 0) if text else 0
    result = Parsed(text=text, line_count=line_count)
    fences = _find_frontmatter(lines)
    body_index = 0
    if fences is not None:
        start, end = fences
        result.preamble_lines = start
        if end == -1:
            result.frontmatter_lines = (start + 1, start + 1)
            result.frontmatter_error = FrontmatterError(
                "frontmatter opened with --- is never closed", start + 1, 1
            )
            body_index = start  # treat everything as body: links still count
        else:
            result.frontmatter_lines = (start + 1, end + 1)
            fm_lines = lines[start + 1 : end]
            fm_start = _line_offset(lines, start + 1)
            fm_text = text[fm_start:max(fm_start, _line_offset(lines, end) - 1)]  # the lines, joined
            if "\r" in fm_text:
                fm_text = "\n".join(l.rstrip("\r") for l in fm_lines)
            result.key_lines = _key_lines(fm_lines, start + 2)
            data, error = load_yaml(fm_text, start + 2)
            if error is not None:
                result.frontmatter_error = error
            elif data is None:
                result.frontmatter = {}
            elif not isinstance(data, dict):
                result.frontmatter_error = FrontmatterError(
                    f"frontmatter is a YAML {type(data).__name__}, not a mapping of fields", start + 2, 1
                )
            else:
                result.frontmatter = _interned_keys(data)
            body_index = end + 1
            if result.frontmatter_error is not None and not result.key_lines and start == 0 \
                    and (_no_fields(data, fm_lines) or any(map(_MARKDOWN_ONLY.match, fm_lines))):
                # Not one `key:` line, and markdown no YAML block holds (a
                # table, bold text), or what YAML reads holds no field at
                # all (a paragraph, a list of lines): the two `---` are
                # horizontal rules around plain markdown.
                result.frontmatter_lines = None
                result.frontmatter_error = None
                result.key_lines = {}
                body_index = 0
            elif result.frontmatter_error is not None and start > 0 and _PARAGRAPH_LINE.match(lines[start - 1]) \
                    and any(map(_TEXT_LINE.match, fm_lines)):
                # Not YAML, holding a line of plain text, and the `---`
                # underlines a line of text: a setext heading ("Setup\n---\n
                # Server: prod\n\nUsage\n---"), not a late frontmatter.
                result.frontmatter_lines = None
                result.frontmatter_error = None
                result.key_lines = {}
                result.preamble_lines = 0
                body_index = 0
                fences = None
    # Lines before a preamble-frontmatter are body-like text too; keep them out
    # of the body but count lines correctly: the body starts after the fence.
    result.body_start = _line_offset(lines, body_index) if body_index else 0  # the text of lines[body_index:]
    result.body_line = body_index + 1
    links, slow = extract_links(result.body, result.body_line, backtick_refs=backtick_refs, wikilinks=wikilinks)
    if result.preamble_lines and fences is not None:
        pre, pre_slow = extract_links("\n".join(lines[: fences[0]]), 1, backtick_refs=backtick_refs, wikilinks=wikilinks)
        links = pre + links
        slow = slow or pre_slow
    result.links = tuple(links)
    result.used_reference_parser = slow
    result.names_memlint = "memlint-" in text
    return result


# ---------------------------------------------------------------- links

_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
# Patterns start with a literal character where they can: the regex engine
# then skips ahead to it instead of trying every position. A '!' before '['
# (image, embed) is looked up by hand.
_WIKI = re.compile(r"\[\[([^\[\]\n]+)\]\]")
# CommonMark whitespace is ASCII only: a no-break space belongs to the destination.
_INLINE = re.compile(
    r"\[([^\[\]]*)\]\([ \t\n]*(<[^<>\n]*>|[^ \t\n\x00-\x1f()<>]*(?:\([^ \t\n\x00-\x1f()<>]*\)[^ \t\n\x00-\x1f()<>]*)*)"
    r"(?:[ \t\n]+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t\n]*\)"
)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_EMAIL_AUTOLINK = re.compile(
    r"<([a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>"
)
# A path in backticks: what a file name may hold (no control character, no
# backtick, none of the `<>:"\|?*` a Windows file system refuses, which
# also leaves out URLs, globs and `key: value`), ending in .md, with an
# optional #anchor; `#` is not part of a name here.
_PATH_REF = re.compile(r'^[^\x00-\x1f\x7f`<>:"\\|?*#]*[^\x00-\x1f\x7f`<>:"\\|?*# ./]\.md(?:#[\w\-]+)?$')

# Constructs the regex pass cannot judge the way CommonMark does; any one of
# them sends the file to markdown-it-py. Over-triggering costs time, never
# correctness, so these err on the side of firing. Checked on the body with
# fenced code, code spans, comments and wikilinks blanked, unless noted.
# "]:" anywhere is a reference definition (in quotes, lists, multi-line labels).
# Each pattern below is tried only where its first character is (str.find is
# far faster than a regex scan).
# (Each class also excludes the character the pattern starts with, so that a
# try stops where the next one starts: linear, not quadratic, on a line of
# thousands of brackets; whether anything matches is the same.)
_AFTER_OPEN = re.compile(r"\[[^\[\]\n]*(?:\[(?!\[)|<)")  # nested brackets; '<' in link text
_AFTER_CLOSE = re.compile(r"\][^\[\]\n]*\]\(|\]\([^()\n]*\([^()\n]*\(")  # nested brackets; nested parentheses
_ENTITY = re.compile(r"&#?\w+;")  # entities can sit in destinations
# Backslash escapes only matter near link syntax: of a character that builds
# links, or on a line holding a link, a definition or a '<'.
_ESCAPE = re.compile(r"\\[!-/:-@\[-`{-~]")
_ESCAPE_MATTERS = set("[]()<>!`\\\"'")
# Raw HTML: a tag opening a line (after container markers) may open an HTML
# block, whose text is never markdown; processing instructions, declarations
# and CDATA may hold anything. An inline tag matters only if what it spans
# (to its '>') could belong to link syntax or hide a '>' in quotes.
_TAG_NAME = re.compile(r"/?[A-Za-z]*")
_CONTAINER_PREFIX = re.compile(r"(?:[ \t>]|[-+*][ \t]|\d{1,9}[.)][ \t])*")
_RAW_TEXT_TAGS = {"script", "pre", "style", "textarea"}  # HTML blocks that run past blank lines
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|$)")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:[ \t\n/>]|$)")
_TAG_MATTERS = set("[]()`\"'<")
# Checked before code spans are blanked (see _code_competes).
_UNSURE_BEFORE_CODE = re.compile(r"<[^<>\n]*`")
_TAG_OPEN = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*[ \t/>]|<[?!]")
# Checked after fenced code is blanked: a fence that blank_fenced_code did not
# take (inside a list item or a block quote, or indented further).
_NESTED_FENCE = re.compile(r"^[ \t]*(?:(?:[>*+\-]|\d{1,9}[.)])[ \t]*)+(?:`{3,}|~{3,})|^ {4,}(?:`{3,}|~{3,})", re.M)
# Indented code: four columns of indentation, also inside block quotes, or a
# list item whose text starts five spaces after its marker.
_INDENTED = re.compile(r"^(?:[ \t]*>)*(?: {4}| {0,3}\t)|^(?:[ \t]*>)* {0,3}(?:[-+*]|\d{1,9}[.)])(?: {5}| {0,4}\t)", re.M)
_ITEM_CODE = re.compile(r"(?:[ \t]*>)* {0,3}(?:[-+*]|\d{1,9}[.)])(?: {5}| {0,4}\t)")
_QUOTE_PREFIX = re.compile(r"(?: {0,3}>)*")
_LINK_CHARS = set("[]<`")
# A line after which an indented line may start indented code: an ATX
# heading, a thematic break or setext underline, an empty list item.
_BLOCK_LINE = re.compile(
    r" {0,3}(?:#{1,6}(?:[ \t]|$)|[-*_=+][ \t*_=+-]*$|(?:[-+*]|\d{1,9}[.)])[ \t]*(?:#{1,6}(?:[ \t]|$)|[-*_][ \t*_-]*$|$))"
)


def _blank_text(text: str, fill: str = "_") -> str:
    """Same length, same newlines; '_' (not a space) so no indentation is faked."""
    if "\n" not in text:
        return fill * len(text)
    return "\n".join(fill * len(part) for part in text.split("\n"))


def blank_fenced_code(text: str) -> str:
    """Replace fenced code blocks with spaces, keeping every newline."""
    if "```" not in text and "~~~" not in text:
        return text
    parts, copied = [], 0  # text[:copied] is in parts
    for start, end, _, _ in _fences(text):
        parts.append(text[copied:start])
        parts.append(_blank_text(text[start:end], " "))
        copied = end
    if not parts:
        return text
    parts.append(text[copied:])
    return "".join(parts)


def _fence_may_end_with_its_item(text: str) -> bool:
    """Whether a fence opened with one to three spaces before it (as in a
    list item: ``- step``, then the fence under its text) is left open, or
    meets a line less indented before or as its closing line. Inside a list
    item the fence ends with the item, and what follows is no longer code
    (a closing line at the margin opens a new fence instead), where
    ``blank_fenced_code`` blanks to the closing line, or to the end: the
    parser decides."""
    return any(indented and (not closed or outdented) for _, _, closed, (indented, outdented) in _fences(text))


def _fences(text: str):
    """(start of the opening line, end of the closing line or of the text,
    whether a closing line was found, (whether the opening line is indented,
    whether a line up to the closing one is less so)) of each fenced code
    block, in order. Only lines inside a fence are walked: from fence to fence."""
    fences = _FenceStarts(text)
    start = fences.next(0)
    while start >= 0:
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        opening = _FENCE_OPEN.match(text[start:end])
        if not opening or opening.group(2)[0] == "`" and "`" in opening.group(3):
            start = fences.next(end)
            continue
        indent, fence = len(opening.group(1)), opening.group(2)
        closed = outdented = False
        while end < len(text):  # to the closing line, or the end of the text
            line_start = end + 1
            end = text.find("\n", line_start)
            end = len(text) if end < 0 else end
            line = text[line_start:end]
            stripped = line.strip()
            line_indent = len(line) - len(line.lstrip(" "))
            outdented = outdented or bool(indent and stripped and line_indent < indent)
            if line_indent < 4 and stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                closed = True
                break
        yield start, end, closed, (indent > 0, outdented)
        start = fences.next(end)


class _FenceStarts:
    """``next(pos)``: the start of the first line at or after ``pos`` (a line
    start, never smaller than the last asked) that opens with up to three
    spaces and ``` or ~~~; -1 if none. Where each marker was seen last is
    kept, so a text with many fences of one kind is not searched to its end
    for the other kind at every fence. (str.find, not a regex scan: a regex
    starting with ^ is tried at every offset.)"""

    def __init__(self, text: str):
        self.text = text
        self.seen = {needle: text.find(needle) for needle in ("```", "~~~")}  # -1: none at or after

    def next(self, pos: int) -> int:
        text, first = self.text, -1
        for needle in ("```", "~~~"):
            i = self.seen[needle]
            if 0 <= i < pos:
                i = self.seen[needle] = text.find(needle, pos)
            while i >= 0 and (first < 0 or i < first):
                line_start = text.rfind("\n", pos, i) + 1 or pos
                if i - line_start <= 3 and text[line_start:i] == " " * (i - line_start):
                    first = line_start
                    break
                line_end = text.find("\n", i)
                i = self.seen[needle] = text.find(needle, line_end) if line_end >= 0 else -1
        return first


def code_spans(text: str) -> list[tuple[int, int, int, int]]:
    """CommonMark code spans: (start, content start, content end, end) offsets.

    A run of backticks opens a span that the next run of the same length
    closes; a run with no such partner is literal text. A span does not
    cross a blank line (a paragraph ends there), and a backtick after an
    odd number of backslashes is escaped: it opens nothing, though inside a
    span a backslash is literal and the run still closes it. Linear time.
    """
    return _code_spans(text)[0]


def _code_spans(text: str) -> tuple[list[tuple[int, int, int, int]], bool]:
    """(code_spans(text), whether a span holds a line break)."""
    runs = []
    i = text.find("`")
    while i >= 0:  # str.find is far faster than a regex here
        j = i + 1
        while j < len(text) and text[j] == "`":
            j += 1
        runs.append((i, j))
        i = text.find("`", j)
    escaped = "\\`" in text
    if not escaped and len(runs) == text.count("`"):
        # single backticks (the usual case): they pair in order
        spans = [(runs[k][0], runs[k][1], runs[k + 1][0], runs[k + 1][1]) for k in range(0, len(runs) - 1, 2)]
    else:
        spans = _pair_by_width(text, runs, escaped, None)
    if not spans:
        return spans, False
    multiline = _holds_line_break(text, spans)
    if multiline and any(_PARAGRAPH_BREAK.search(text, s[1], s[2]) for s in spans):
        # Paired as if the text were one paragraph, that made a span over a
        # blank line: pair again within paragraphs. (Up to that span, the two
        # pairings agree: each opener finds the same nearest partner.)
        spans = _pair_by_width(text, runs, escaped, [m.start() for m in _PARAGRAPH_BREAK.finditer(text)])
        multiline = _holds_line_break(text, spans)
    return spans, multiline


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_CONTENT_START, _CONTENT_END = itemgetter(1), itemgetter(2)


def _holds_line_break(text: str, spans) -> bool:
    """Whether the content of one of ``spans`` holds a line break (C-level maps)."""
    return any(map(text.count, repeat("\n", len(spans)), map(_CONTENT_START, spans), map(_CONTENT_END, spans)))


def _pair_by_width(text: str, runs: list[tuple[int, int]], escaped: bool, breaks: list[int] | None):
    """code_spans's pairing of backtick ``runs`` of any widths, escapes
    honoured, no span crossing an offset of ``breaks``."""
    opens = [start for start, _ in runs]  # where a run starts as an opener
    if escaped:
        for k, (start, _) in enumerate(runs):
            slashes = start
            while slashes and text[slashes - 1] == "\\":
                slashes -= 1
            if (start - slashes) % 2:
                opens[k] = start + 1  # the escape takes the first backtick
    partner = [-1] * len(runs)
    last: dict[int, int] = {}  # closer width -> the nearest run of that width to the right
    block = None
    for k in range(len(runs) - 1, -1, -1):
        if breaks:
            here = bisect.bisect_left(breaks, runs[k][0])
            if here != block:
                block, last = here, {}
        start, end = runs[k]
        if end > opens[k]:
            partner[k] = last.get(end - opens[k], -1)
        last[end - start] = k
    spans = []
    i = 0
    while i < len(runs):
        j = partner[i]
        if j < 0:
            i += 1
            continue
        spans.append((opens[i], runs[i][1], runs[j][0], runs[j][1]))
        i = j + 1
    return spans


def _blank_ranges(text: str, ranges: list[tuple[int, int]], fill: str = "_") -> str:
    """``text`` with each (start, end) range blanked; ranges in order, not overlapping."""
    parts, pos = [], 0
    for start, end in ranges:
        parts.append(text[pos:start])
        chunk = text[start:end]
        parts.append(fill * (end - start) if "\n" not in chunk else _blank_text(chunk, fill))
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


_PLUS_ONE = (1).__add__


class _LineIndex:
    """1-based (line, column) of offsets in a text. The first few lookups
    count newlines (most texts have a few links); then a table of line
    starts is built, so that many links stay linear."""

    def __init__(self, text: str, first_line: int):
        self.text = text
        self.starts: list[int] | None = None
        self.first_line = first_line
        self.counted = 0

    def at(self, offset: int) -> tuple[int, int]:
        if self.starts is None:
            if self.counted < 8:
                self.counted += 1
                text = self.text
                return self.first_line + text.count("\n", 0, offset), offset - text.rfind("\n", 0, offset)
            # line start offsets, without a Python-level loop
            self.starts = list(accumulate(map(_PLUS_ONE, map(len, self.text.split("\n"))), initial=0))
        i = bisect.bisect_right(self.starts, offset) - 1
        return self.first_line + i, offset - self.starts[i] + 1


_LINE_COLUMN = attrgetter("line", "column")


def extract_links(
    body: str,
    first_line: int = 1,
    *,
    backtick_refs: bool = True,
    wikilinks: bool = True,
    force_reference: bool = False,
) -> tuple[list[Link], bool]:
    """Return (links, used_reference_parser) for a markdown body.

    ``first_line`` is the file line the body starts on. ``wikilinks=False``
    leaves ``[[x]]`` to CommonMark; ``force_reference=True`` skips the regex
    fast path (tests compare the two).
    """
    index = _LineIndex(body, first_line)
    no_fences = blank_fenced_code(body)
    links: list[Link] = []
    spans, multiline = _code_spans(no_fences) if "`" in no_fences else ([], False)
    no_code = _blank_ranges(no_fences, [(s[0], s[3]) for s in spans]) if spans else no_fences
    comments = _html_comments(no_code) if "<!--" in no_code else []
    if comments:
        no_code = _blank_ranges(no_code, comments)

    # Wikilinks are not CommonMark: always found by regex, then blanked so the
    # CommonMark pass does not see their brackets.
    quotable: list[Link] = []
    if wikilinks and "[[" in no_code:
        no_code, wikis = _take_wikilinks(no_code)
        quotable += [_wikilink(start, inner, bang, index) for start, inner, bang in wikis]

    if backtick_refs:
        for _, start, end, _ in spans:
            ref = no_fences[start:end].strip()
            if _PATH_REF.match(ref) and "://" not in ref:
                line, col = index.at(start)
                quotable.append(Link(ref, line, col, "code"))
    if quotable:
        # Code the blanking above cannot see (an indented block; a fence in
        # a quote or a list item) may quote them: on a line indented as code
        # could be, or in a quote, the block parser says.
        body_lines = body.split("\n")
        if any(_may_be_code(body_lines, link.line - first_line) for link in quotable
               if 0 <= link.line - first_line < len(body_lines)) or any(map(_opens_item_fence, body_lines)):
            code = _code_lines(body, first_line)
            quotable = [link for link in quotable if link.line not in code]
        links.extend(quotable)

    used_parser = False
    # A span over a line break may really end at a block boundary (a list
    # item, a heading): the links it seems to hide are the parser's to judge.
    if "[" in no_code or "<" in no_code or multiline and ("[" in no_fences or "<" in no_fences):
        found = None
        if not force_reference and not _unsure(no_code, no_fences, body, multiline, comments):
            found = _links_by_regex(no_code, index)
        # markdown-it-py is quadratic on some hostile paragraphs and slow on
        # huge link-dense text: past these sizes the regex pass decides.
        if found is None and len(no_code) <= MAX_PARSER_CHARS and _longest_block(no_code) <= MAX_PARSER_BLOCK_CHARS:
            try:
                found = _links_by_markdown_it(body, index, no_code.split("\n"), wikilinks)
                used_parser = True
            except RecursionError:  # nested deeper than Python's stack allows
                found = None
        if found is None:
            found = _links_by_regex(_blank_raw_blocks(no_code, body, wikilinks), index, whole_lines=False)
        links.extend(found)
    links.sort(key=_LINE_COLUMN)
    return links, used_parser


# A paragraph: a line, then the lines that continue it (not blank, not a new
# list item, quote, table row or heading). Cheap, and only an estimate.
# (A reference definition, `[x]: file.md`, starts one too: markdown-it reads
# a run of them in linear time.)
_BLOCK = re.compile(r"^[^\n]*(?:\n(?![ \t]*(?:[-*+>|#]|\d{1,9}[.)]|\[[^\]\n]*\]:|\n|$))[^\n]*)*", re.M)


def _longest_block(text: str) -> int:
    return max((m.end() - m.start() for m in _BLOCK.finditer(text)), default=0)


def _may_be_nested_code(line: str) -> bool:
    """Whether a line could sit in code the fence blanking does not see: it
    is indented four columns or more, or it is in a block quote."""
    indent = 0
    for char in line:
        if char == " ":
            indent += 1
        elif char == "\t":
            indent += 4 - indent % 4
        else:
            return indent >= 4 or (char == ">" and indent <= 3)
        if indent >= 4:
            return True
    return False


def _may_be_code(lines: list[str], i: int) -> bool:
    """Whether line ``i`` could be code the fence blanking does not see: in a
    quote, or indented as code with its run of lines (to the blank line
    above) starting so. A line indented under a list item or a paragraph
    (an Obsidian vault's nested items) continues them: no code starts there."""
    if not _may_be_nested_code(lines[i]):
        return False
    if lines[i].lstrip(" \t").startswith(">"):
        return True
    start = i
    while start > 0 and lines[start - 1].strip() and not _ATX_HEADING.match(lines[start - 1]):
        start -= 1  # (a heading ends a paragraph: code may start right below it)
    return _may_be_nested_code(lines[start])


_ATX_HEADING = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]|$)")


_ITEM_FENCE = re.compile(r"(?:[-*+]|\d{1,9}[.)])[ \t]+(?:```|~~~)")


def _opens_item_fence(line: str) -> bool:
    """Whether a list item opens with a fence (`- ```` ): the code in it is
    indented as the item is, not as code is."""
    stripped = line.lstrip(" \t")
    return bool(stripped) and stripped[0] in "-*+0123456789" and _ITEM_FENCE.match(stripped) is not None


_BLOCKS = None


def _code_lines(body: str, first_line: int) -> set[int]:
    """The file lines CommonMark reads as code (indented blocks, fences at
    any depth), by markdown-it-py's block parser alone; none when it cannot
    tell."""
    if len(body) > MAX_PARSER_CHARS or _longest_block(body) > MAX_PARSER_BLOCK_CHARS:
        return set()  # as for the links: past these sizes markdown-it-py may take too long
    return {first_line + row for token in _block_tokens(body) if token.type in ("code_block", "fence") and token.map
            for row in range(token.map[0], token.map[1])}


def _block_tokens(body: str) -> list:
    """markdown-it-py's block tokens of ``body``, its inline parser (which
    may not stay linear) not run; none where it cannot tell (nested deeper
    than Python's stack allows)."""
    global _BLOCKS
    if _BLOCKS is None:
        from markdown_it import MarkdownIt

        _BLOCKS = MarkdownIt("commonmark", {"maxNesting": 100_000}).disable("inline")  # blocks are enough
    if "\r" in body:  # as _links_by_markdown_it: a lone \r is no line break to memlint
        body = re.sub(r"\r(?!\n)", " ", body)
    try:
        return _BLOCKS.parse(body)
    except RecursionError:
        return []


def _raw_block_lines(body: str, wikilinks: bool = True) -> list[tuple[int, int]]:
    """(first, end) 0-based line ranges of the HTML blocks (an unclosed
    ``<!--`` runs to the end; a ``<div>`` to the next blank line) and
    indented code blocks of ``body``, by markdown-it-py's block parser,
    which stays linear where its inline parser may not; none where it cannot
    tell (nested deeper than the stack allows), or for a body past
    MAX_PARSER_CHARS."""
    if len(body) > MAX_PARSER_CHARS:
        return []
    return [tuple(token.map) for token in _block_tokens(_as_parsed(body, wikilinks))
            if token.type in ("html_block", "code_block") and token.map]


def _blank_raw_blocks(no_code: str, body: str, wikilinks: bool = True) -> str:
    """``no_code`` (``body`` with its code blanked, line for line) with the
    lines of its HTML blocks and indented code blanked too: where the
    reference parser is not run (a block too long for it), the regex pass
    must not take the text there for links."""
    if "<" not in no_code and "    " not in no_code and "\t" not in no_code:
        return no_code  # neither HTML nor indented code can start a block
    ranges = _raw_block_lines(body, wikilinks)
    if not ranges:
        return no_code
    lines = no_code.split("\n")
    for first, end in ranges:
        for row in range(first, min(end, len(lines))):
            lines[row] = " " * len(lines[row])
    return "\n".join(lines)


def _html_comments(text: str) -> list[tuple[int, int]]:
    """(start, end) of every ``<!-- ... -->``. A find loop, not a lazy regex:
    the regex rescans to the end of the text for each unclosed ``<!--``."""
    found = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        end = text.find("-->", start + 4) if start >= 0 else -1
        if end < 0:
            return found
        pos = end + 3
        found.append((start, pos))


def _take_wikilinks(text: str, fill: str = "_") -> tuple[str, list[tuple[int, str, bool]]]:
    """(text with every [[...]] and ![[...]] blanked, [(start, inner, is_embed)])."""
    found, ranges = [], []
    for m in _matches(_WIKI, text, "["):
        start = m.start()
        bang = start > 0 and text[start - 1] == "!"
        if bang:
            start -= 1
        found.append((start, m.group(1), bang))
        ranges.append((start, m.end()))
    return (_blank_ranges(text, ranges, fill) if ranges else text), found


_BACKTICK_IN_DESTINATION = re.compile(r"\]\([^)\n`]*`")


def _unsure(no_code: str, no_fences: str, body: str, multiline_span: bool, comments) -> bool:
    """Whether the text holds a construct only a CommonMark parser can judge.

    Every check is linear in the text, hostile input included."""
    if "]:" in no_code:
        return True
    # (A search tries each '[' or ']' once, as a find loop would, in C.)
    if _AFTER_OPEN.search(no_code) or _AFTER_CLOSE.search(no_code):
        return True
    if "&" in no_code and _ENTITY.search(no_code):
        return True
    if "\\" in no_code and _escape_matters(no_code):
        return True
    if "<" in no_code and _html_matters(no_code, body):
        return True
    if "`" in no_fences and "<" in no_fences and _code_competes(no_fences):
        return True
    # A backtick in a link's destination: the link is parsed first (markdown-it
    # keeps it, percent-encoded), not a code span the regex pass would blank.
    if "`" in no_fences and "](" in no_fences and _BACKTICK_IN_DESTINATION.search(no_fences):
        return True
    # A code span or comment over a line break may cross a block boundary
    # (a blank line, a new list item), where CommonMark would end it.
    if multiline_span:
        return True
    if comments and _comments_matter(no_fences, body, comments):
        return True
    if ("```" in no_fences or "~~~" in no_fences) and _NESTED_FENCE.search(no_fences):
        return True
    if ("```" in body or "~~~" in body) and _fence_may_end_with_its_item(body):
        return True
    # Comments stay visible to the indentation check ('<' on each of their
    # lines): a paragraph does not continue after an HTML block.
    return _indented_code_matters(_blank_ranges(no_fences, comments, "<") if comments else no_fences)


def _comments_matter(text: str, body: str, comments: list[tuple[int, int]]) -> bool:
    """A comment opening a line is an HTML block: the rest of its closing line
    is HTML too, and a fence inside it is not a fence. One inside a list item
    or block quote ends with its container; one inside a paragraph cannot
    run over a blank line. Only the plain cases are left to the regex pass."""
    previous_end = 0
    for start, end in comments:
        newline = text.rfind("\n", previous_end, start)  # not past the previous comment: linear
        opens_line = newline >= 0 or previous_end == 0
        prefix = text[newline + 1:start] if opens_line else "x"
        previous_end = end
        multiline = "\n" in text[start:end]
        if multiline and (prefix.strip(" ") or len(prefix) > 3):
            return True
        if not _CONTAINER_PREFIX.fullmatch(prefix):
            continue  # inline, on one line
        line_end = text.find("\n", end)
        if text[end:line_end if line_end >= 0 else len(text)].strip():
            return True
        inside = body[start:end]
        if "```" in inside or "~~~" in inside:
            return True
    return False


def _matches(pattern: re.Pattern, text: str, first: str):
    """pattern.finditer(text) for a pattern that starts with the character ``first``."""
    i = text.find(first)
    while i >= 0:
        m = pattern.match(text, i)
        if m:
            yield m
            i = text.find(first, m.end())
        else:
            i = text.find(first, i + 1)


def _code_competes(text: str) -> bool:
    """A backtick inside what is an autolink or may be an HTML tag: the two
    compete with a code span, and the leftmost wins."""
    for m in _UNSURE_BEFORE_CODE.finditer(text):
        start = m.start()
        if _TAG_OPEN.match(text, start):
            return True
        auto = _AUTOLINK.match(text, start) or _EMAIL_AUTOLINK.match(text, start)
        if auto and "`" in auto.group(0):
            return True
    return False


def _escape_matters(text: str) -> bool:
    checked_to = -1  # lines up to here hold no link, definition or '<'
    for m in _ESCAPE.finditer(text):
        if text[m.start() + 1] in _ESCAPE_MATTERS:
            return True
        if m.start() < checked_to:
            continue  # same line as the last one looked at
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        line = text[start:end]
        if "](" in line or "<" in line or "]:" in line:
            return True
        checked_to = end
    return False


def _html_matters(text: str, body: str) -> bool:
    """``text`` is the body with code and comments blanked (same offsets)."""
    line_end = -1  # the line of the last '<' looked at: where it ends, where its text starts
    text_start = 0
    region_end = -1  # the HTML-block region last found clean
    i = text.find("<")
    while i >= 0:
        after = text[i + 1:i + 2]
        if after in ("?", "!"):
            return True  # processing instructions, declarations, CDATA: anything goes
        if after.isascii() and after.isalpha() or after == "/":
            if i > line_end:
                line_start = text.rfind("\n", 0, i) + 1
                line_end = text.find("\n", i)
                line_end = len(text) if line_end < 0 else line_end
                text_start = _CONTAINER_PREFIX.match(text, line_start).end()
            if i == text_start:
                # An HTML block (a tag opening a line) runs to the next blank line;
                # nothing in it is markdown. It matters only if the regex pass would
                # find something there: a bracket, a backtick, an autolink, a fence.
                name = _TAG_NAME.match(text, i + 1).group(0).lstrip("/").lower()
                if name in _RAW_TEXT_TAGS:
                    return True
                if i > region_end:
                    blank = _BLANK_LINE.search(body, i)
                    region_end = blank.start() if blank else len(body)
                    region = body[text.rfind("\n", 0, i) + 1:region_end]
                    if ("[" in region or "`" in region or "~~~" in region or "<!--" in region
                            or _AUTOLINK.search(region) or _EMAIL_AUTOLINK.search(region)):
                        return True
            elif _HTML_TAG.match(text, i):
                # Up to its '>': another '<' first (a tag cannot hold one) is unsure too.
                following = text.find("<", i + 1)
                close = text.find(">", i, following if following >= 0 else len(text))
                if close < 0 or not _TAG_MATTERS.isdisjoint(text[i + 1:close]):
                    return True
        i = text.find("<", i + 1)
    return False


def _indented_code_matters(text: str) -> bool:
    """Whether a line that may be indented code holds link syntax.

    Indented code cannot interrupt a paragraph: an indented line right after
    paragraph text (at the same block-quote depth) continues it, as do the
    lines of its indented run. Elsewhere (after a blank line, a heading, a
    break, an empty list item, an HTML line, or at the start; or a list item
    opening with indented code) it may be code, in which a '[', '<' or '`'
    is literal, so only such lines send the file to the parser.
    """
    if "    " not in text and "\t" not in text:
        return False
    if not _indented_link_line(text):
        return False  # only an indented line with link syntax can matter: most texts have none
    # What the line before says about an indented run starting after it:
    prev_blank, prev_depth, prev_ends_block = True, None, True  # (the start of the text)
    run_depth, run_code = None, False  # the indented run we are in (its block-quote depth), else None
    for line in text.split("\n"):
        if not line.strip():
            prev_blank, prev_depth, prev_ends_block, run_depth = True, None, True, None
            continue
        depth = _quote_depth(line)
        if _INDENTED.match(line):
            if depth != run_depth:  # a new run: the line before it decides
                run_code = prev_blank or prev_depth != depth or prev_ends_block
                run_depth = depth
            run_code = run_code or bool(_ITEM_CODE.match(line))  # a list item opening with indented code
            if run_code and not _LINK_CHARS.isdisjoint(line):
                return True
            prev_blank, prev_depth, prev_ends_block = False, depth, True
            continue
        content = line[len(_QUOTE_PREFIX.match(line).group(0)):]
        # '<': maybe a one-line HTML block (a comment), which a paragraph does not continue
        prev_blank, prev_depth, run_depth = False, depth, None
        prev_ends_block = bool(not content.strip() or _BLOCK_LINE.match(content) or "<" in content)
    return False


def _indented_link_line(text: str) -> bool:
    """Whether a line that may be indented code (``_INDENTED``) holds a '[',
    ']', '<' or '`'. Such a line holds four spaces or a tab: only those
    lines are looked at, each once per needle."""
    for needle in ("    ", "\t"):
        i = text.find(needle)
        while i >= 0:
            start = text.rfind("\n", 0, i) + 1
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            line = text[start:end]
            if not _LINK_CHARS.isdisjoint(line) and _INDENTED.match(line):
                return True
            i = text.find(needle, end)
    return False


def _quote_depth(line: str) -> int:
    return _QUOTE_PREFIX.match(line).group(0).count(">")


def _wikilink(start: int, inner: str, embed: bool, index: _LineIndex) -> Link:
    target, _, alias = inner.partition("|")
    anchor = ""
    for sep in ("#", "^"):
        if sep in target:
            target, rest = target.split(sep, 1)
            anchor = sep + rest
            break
    line, col = index.at(start)
    return Link(target.strip(), line, col, "embed" if embed else "wiki", alias.strip(), anchor.strip())


# ``%23``, ``%3F`` and ``%25`` (``%`` itself), and a ``%`` that starts no
# escape (CommonMark reads it as ``%25``): what ``decode_destination`` keeps.
_KEPT_ENCODED = re.compile(r"%(23|25|3[fF]|(?![0-9A-Fa-f]{2}))")


def decode_destination(dest: str) -> str:
    """A link destination percent-decoded, but for ``%23``, ``%3F`` and
    ``%25``: an encoded ``#`` or ``?`` belongs to the path (``c%23.md`` is
    the file ``c#.md``), a bare one starts the fragment or query; and ``%``
    stays encoded so that each ``%`` left starts one of the three
    (``c%2523.md``, the file ``c%23.md``, is not read as ``c#.md``).
    ``memlint.graph`` decodes them once the path is split from the rest.
    Bytes that are no UTF-8 (``%E9``) decode as memlint names a file that
    holds them (surrogateescape), so the link reaches it."""
    if "%" not in dest:
        return dest
    return unquote(_KEPT_ENCODED.sub(lambda m: "%25" + (m.group(1) or "25"), dest), errors="surrogateescape")


def shown_destination(link: Link) -> str:
    """A link's target as a message names it: in a markdown link, the ``%``
    that ``decode_destination`` keeps encoded (``%25``) is shown as the
    ``%`` the file has (``[x](50%.md)`` names ``50%.md``, not ``50%25.md``);
    a wikilink or a backtick path is read as written."""
    target = link.target
    return target.replace("%25", "%") if "%25" in target and link.kind in _DECODED_KINDS else target


_DECODED_KINDS = frozenset({"link", "image", "autolink"})


_KEPT_ESCAPE = re.compile(r"%(23|25|3[fF])")
_KEPT_CHARACTER = {"23": "#", "25": "%", "3F": "?", "3f": "?"}


def decode_kept(path: str) -> str:
    """The ``%23``, ``%3F`` and ``%25`` that ``decode_destination`` keeps,
    decoded in one pass (``%2523`` is ``%23``): for a target's path, once
    split from its fragment and query."""
    return _KEPT_ESCAPE.sub(lambda m: _KEPT_CHARACTER[m.group(1)], path)


def _links_by_regex(text: str, index: _LineIndex, *, whole_lines: bool = True) -> list[Link] | None:
    """Inline links, images and autolinks; None when a link runs over a line
    break (it may cross a block boundary: the parser must judge), unless
    ``whole_lines`` is False."""
    out = []
    for m in _matches(_INLINE, text, "["):
        if whole_lines and "\n" in m.group(0):
            return None
        start = m.start()
        image = start > 0 and text[start - 1] == "!"
        dest = m.group(2)
        if dest.startswith("<"):
            dest = dest[1:-1]
        line, col = index.at(start - image)
        out.append(Link(decode_destination(dest), line, col, "image" if image else "link", m.group(1).strip()))
    if "<" in text:
        for pattern in (_AUTOLINK, _EMAIL_AUTOLINK):
            for m in _matches(pattern, text, "<"):
                line, col = index.at(m.start())
                dest = m.group(1) if pattern is _AUTOLINK else "mailto:" + m.group(1)
                out.append(Link(decode_destination(dest), line, col, "autolink", m.group(1)))
    return out


_MD = None


def _markdown_it():
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        # The preset's maxNesting of 20 silently drops everything after the
        # 10th nested list level; nesting is bounded by the RecursionError
        # fallback in extract_links instead.
        _MD = MarkdownIt("commonmark", {"maxNesting": 100_000})
        # markdown-it drops javascript:, vbscript:, file: and data: links to keep
        # HTML safe; memlint renders nothing and must see them (MEM203 reports file:).
        _MD.validateLink = lambda url: True
    return _MD


_ESCAPED = re.compile(r"\\.")
# A footnote's mark or definition label (GitHub): `[^1]`, `[^note]`, not `[^x](a.md)`
_FOOTNOTE = re.compile(r"\[\^[^\]\s\[]+\](?!\()")


def _as_parsed(body: str, wikilinks: bool) -> str:
    """``body`` as markdown-it-py is given it: wikilinks a word of the same
    length ('_' could fake a thematic break), GitHub's footnotes ([^1],
    [^1]: Source; no links to files) too, a lone \\r no line break."""
    source = _take_wikilinks(body, "w")[0] if wikilinks and "[[" in body else body
    if "[^" in source:
        source = _FOOTNOTE.sub(lambda m: "w" * len(m.group()), source)
    if "\r" in source:  # markdown-it counts a lone \r as a line break; memlint counts \n only
        source = re.sub(r"\r(?!\n)", " ", source)
    return source


def _links_by_markdown_it(body: str, index: _LineIndex, probe_lines: list[str], wikilinks: bool = True) -> list[Link]:
    """CommonMark links by the reference parser, with their lines and columns.

    ``probe_lines`` is the body with code, comments and wikilinks blanked: it
    is where columns are looked up, so a bracket in code is never taken.
    """
    source = _as_parsed(body, wikilinks)
    out: list[Link] = []
    cursors: dict[int, int] = {}
    source_lines: list[str] | None = None
    for token in _markdown_it().parse(source):
        if token.type != "inline" or not token.map or not token.children:
            continue
        line0 = token.map[0]
        offset = 0
        for child in token.children:
            if child.type in ("softbreak", "hardbreak"):
                offset += 1
            elif child.type in ("link_open", "image"):
                attr = "href" if child.type == "link_open" else "src"
                href = decode_destination(str(child.attrs.get(attr, "")))
                is_auto = child.markup == "autolink" or child.info == "auto"
                kind = "autolink" if is_auto else ("image" if child.type == "image" else "link")
                row = line0 + offset
                col = _column(probe_lines, row, cursors, href, kind)
                if col is None:
                    # Blanked as code where CommonMark sees none (a stray backtick on the
                    # line above, in another block): the line as written holds it
                    if source_lines is None:
                        source_lines = source.split("\n")
                    col = _column(source_lines, row, cursors, href, kind)
                # A code span across lines holds its line break as a space: the link may sit further down
                later = row + 1
                while col is None and later < token.map[1]:
                    col = _column(probe_lines, later, cursors, href, kind)
                    if col is not None:
                        row, offset = later, later - line0
                    later += 1
                out.append(Link(href, index.first_line + row, col or 1, kind,
                                child.content if kind == "image" else ""))
            elif child.type == "html_inline":
                offset += child.content.count("\n")
    return out


# A reference link's text (brackets one deep inside, as an image's) and label.
_REFERENCE_SHAPE = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\](?:\[[^\[\]]*\])?")


def _column(probe_lines: list[str], row: int, cursors: dict[int, int], href: str, kind: str) -> int | None:
    """1-based column of the next link on a line: its '[' (or '!['), or '<'; None when the line has none."""
    if not 0 <= row < len(probe_lines):
        return None
    line = _ESCAPED.sub("__", probe_lines[row])
    cursor = cursors.get(row, 0)
    pos = end = -1
    if kind == "autolink":
        for needle in ("<" + href, "<" + href.removeprefix("mailto:"), "<"):
            pos = line.find(needle, cursor)
            if pos >= 0:
                break
        end = line.find(">", pos) + 1 if pos >= 0 else -1
    else:
        # `](href`, `](<href` or `]( href`: the first after the cursor (a space is allowed before a destination)
        found = re.compile(r"\]\([ \t]*<?" + re.escape(href)).search(line, cursor) if href else None
        if found is not None:
            close = found.start()
            depth, i = 0, close
            while i >= 0:
                if line[i] == "]":
                    depth += 1
                elif line[i] == "[":
                    depth -= 1
                    if depth == 0:
                        break
                i -= 1
            pos, end = i, found.end()
        if pos < 0:  # a reference link, `[text][label]` or `[label]`: the next one starts after it
            pos = line.find("[", cursor)
            shape = _REFERENCE_SHAPE.match(line, pos) if pos >= 0 else None
            end = shape.end() if shape else pos + 1
        if pos > 0 and line[pos - 1] == "!" and kind == "image":
            pos -= 1
    if pos < 0:
        return None
    cursors[row] = max(end, pos + 1)  # the next link on this line starts after this one
    return pos + 1


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")


def is_external(target: str) -> bool:
    """A URL with a scheme other than file: is not an edge of the store graph,
    nor is a scheme-relative one (``//host/path``: a web page, whatever the
    scheme of the page it is on)."""
    m = _SCHEME.match(target)
    if not m:
        return target.startswith("//") and len(target) > 2 and target[2] != "/"
    scheme = m.group(1).lower()
    if len(scheme) == 1:  # a Windows drive letter, C:\...
        return False
    return scheme != "file"


# A link destination after `](`, as CommonMark reads one (in <>, or no space
# or control character, parentheses balanced, backslash escapes), and a
# reference definition's: what ``written_destinations`` looks for.
_DESTINATION_AFTER = re.compile(
    r"\]\([ \t]*\n?[ \t]*(<(?:\\.|[^<>\n\\])*>|(?:\\.|[^ \t\n\x00-\x1f()\\]|\((?:\\.|[^ \t\n\x00-\x1f()\\])*\))*)")
_DEFINED_DESTINATION = re.compile(r"\[(?:\\.|[^\[\]\\\n])+\]:[ \t]*\n?[ \t]*(<(?:\\.|[^<>\n\\])*>|\S+)")
_WRITTEN_REACH = 4000  # characters from a link's '[' within which its destination is looked for


def written_destinations(text: str, links) -> list[str]:
    """The destination of each of ``links`` (of ``text``, the file's whole
    text) as written there, its ``<>`` dropped: ``b%20c.md`` where the
    target is ``b c.md``. Looked for after the link's ``[`` (a reference
    link's, among the definitions), and the one whose reading is the
    target is taken; the target itself where none is (a wikilink's or a
    backtick path's is as written)."""
    starts = None
    out = []
    for link in links:
        written = link.target
        if link.kind in ("link", "image", "autolink"):
            if starts is None:
                starts = list(accumulate(map(_PLUS_ONE, map(len, text.split("\n"))), initial=0))
            start = starts[link.line - 1] + link.column - 1 if 0 < link.line <= len(starts) else 0
            if link.kind == "autolink":
                m = _AUTOLINK.match(text, start) or _EMAIL_AUTOLINK.match(text, start)
                written = m.group(1) if m else written
            else:
                # on the link's own line (a paragraph's next link is another's), else its definition's
                line_end = text.find("\n", start)
                reach = min(start + _WRITTEN_REACH, len(text) if line_end < 0 else line_end + 1)
                for m in chain(_DESTINATION_AFTER.finditer(text, start, reach), _DEFINED_DESTINATION.finditer(text)):
                    raw = m.group(1)
                    raw = raw[1:-1] if raw.startswith("<") else raw
                    if _reads_as(raw, link.target):
                        written = raw
                        break
        out.append(written)
    return out


def _reads_as(raw: str, target: str) -> bool:
    """Whether the destination ``raw`` (as written, no <>) is read as ``target``:
    by the regex pass (as is) or by markdown-it (escapes and entities
    resolved, then percent-encoded)."""
    if decode_destination(raw) == target:
        return True
    from markdown_it.common.utils import unescapeAll

    return decode_destination(_markdown_it().normalizeLink(unescapeAll(raw))) == target

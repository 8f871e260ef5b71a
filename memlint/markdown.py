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
from dataclasses import dataclass, field
from urllib.parse import unquote

import yaml

try:  # the C loader is ~5x faster; PyYAML wheels ship it
    from yaml import CSafeLoader as _YamlLoader
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml import SafeLoader as _YamlLoader  # type: ignore[assignment]



class _UniqueKeys:
    """Duplicate keys are an error, as in YAML 1.2 and the JavaScript loaders
    harnesses use; PyYAML alone would silently keep the last value."""

    def construct_mapping(self, node, deep=False):
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


class _Loader(_UniqueKeys, _YamlLoader):
    """Safe loader that keeps dates as written: memlint parses them itself,
    so a bad date is a date finding on its line, not a broken block."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _YamlLoader.yaml_implicit_resolvers.items()
}

BOM = "\ufeff"
# Bounded so that a hostile file cannot make YAML parsing slow or huge.
MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_ALIASES = 100
# markdown-it-py's inline pass is quadratic on some hostile paragraphs (a
# line of 100,000 '[' takes seconds) and costs ~10 s a megabyte on link-dense
# text; past these lengths the regex pass decides.
MAX_PARSER_BLOCK_CHARS = 10_000
MAX_PARSER_CHARS = 500_000
MAX_YAML_VALUES = 10_000  # after aliases are expanded: what rules may walk
MAX_YAML_DEPTH = 32  # legitimate frontmatter nests 2 or 3 levels
_LIBYAML_SAFE_DEPTH = 1_000  # far below the ~20,000 levels where libyaml's C recursion overflows


@dataclass(frozen=True)
class Link:
    target: str  # destination as the author meant it: percent-decoded, <> stripped
    line: int  # 1-based line in the file
    column: int  # 1-based
    kind: str  # "link" | "image" | "autolink" | "wiki" | "embed" | "code"
    text: str = ""  # link text, wikilink alias
    anchor: str = ""  # "#heading" or "^block" part of a wikilink


@dataclass(frozen=True)
class FrontmatterError:
    message: str
    line: int
    column: int


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
    body: str = ""
    body_line: int = 1  # 1-based line where the body starts
    links: tuple[Link, ...] = ()
    used_reference_parser: bool = False


# ---------------------------------------------------------------- frontmatter

_FENCE_LINE = re.compile(r"---[ \t]*\r?$")
_CLOSE_LINE = re.compile(r"(?:---|\.\.\.)[ \t]*\r?$")
_KEY_LINE = re.compile(r"^( *)([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]|$)")


def _split_lines(text: str) -> list[str]:
    return text.split("\n")


def _find_frontmatter(lines: list[str]) -> tuple[int, int] | None:
    """Return 0-based (open, close) line indexes of the frontmatter fences.

    Frontmatter is a ``---`` first line. A ``---`` a few lines down that is
    followed by ``key:`` lines and a closing fence is frontmatter after a
    preamble: parsed, and reported, because most harnesses will not see it.
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
        if _CLOSE_LINE.match(lines[j]):
            return start, j
    return (start, -1)


def _key_lines(fm_lines: list[str], first_line: int) -> dict[str, int]:
    """Map top-level keys (and keys one level down, dotted) to 1-based lines."""
    out: dict[str, int] = {}
    parent = None
    for offset, raw in enumerate(fm_lines):
        m = _KEY_LINE.match(raw.rstrip("\r"))
        if not m:
            continue
        indent, key = len(m.group(1)), m.group(2)
        line = first_line + offset
        if indent == 0:
            parent = key
            out.setdefault(key, line)
        elif parent is not None:
            out.setdefault(f"{parent}.{key}", line)
    return out


def _count_aliases(fm_text: str) -> int:
    # A cheap upper bound: '*name' outside quotes. Alias bombs need many.
    return len(re.findall(r"(?:^|[\s\[{,:-])\*[^\s,\]}]+", fm_text))


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
    conflict = _CONFLICT_MARKER.search(fm_text)
    if conflict:
        line = first_line + fm_text.count("\n", 0, conflict.start())
        return None, FrontmatterError(f"unresolved merge conflict marker {conflict.group(1)}", line, 1)
    if _nesting_bound(fm_text) > _LIBYAML_SAFE_DEPTH:
        # libyaml recurses in C once per level and crashes the whole process
        # past ~20,000 levels; the pure-Python loader is quadratic there.
        return None, FrontmatterError(f"{what} nests too deep to read safely; not read", first_line, 1)
    try:
        data = yaml.load(fm_text, Loader=_Loader)
    except RecursionError:
        return None, FrontmatterError(f"{what} nests too deep to read safely; not read", first_line, 1)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if mark is None:
            return None, FrontmatterError(f"invalid YAML: {problem}", first_line, 1)
        # YAML also breaks lines at a lone \r, U+0085, U+2028 and U+2029,
        # where the file does not: take those back out of YAML's count.
        offset = min(mark.index, len(fm_text))
        extra = len(_YAML_ONLY_BREAK.findall(fm_text, 0, offset))
        line = min(first_line + mark.line - extra, first_line + fm_text.count("\n") + 1)
        at_offset = line == first_line + fm_text.count("\n", 0, offset)  # else past the last line
        column = offset - fm_text.rfind("\n", 0, offset) if at_offset else 1
        return None, FrontmatterError(f"invalid YAML: {problem}", line, column)
    except (yaml.YAMLError, ValueError, OverflowError) as exc:
        return None, FrontmatterError(f"invalid YAML: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", first_line, 1)
    too_big = _too_big(data, what)
    if too_big:
        return None, FrontmatterError(too_big, first_line, 1)
    return data, None


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
                result.frontmatter = data
            body_index = end + 1
    # Lines before a preamble-frontmatter are body-like text too; keep them out
    # of the body but count lines correctly: the body starts after the fence.
    body_lines = lines[body_index:]
    result.body = "\n".join(body_lines)
    result.body_line = body_index + 1
    links, slow = extract_links(result.body, result.body_line, backtick_refs=backtick_refs, wikilinks=wikilinks)
    if result.preamble_lines and fences is not None:
        pre, pre_slow = extract_links("\n".join(lines[: fences[0]]), 1, backtick_refs=backtick_refs, wikilinks=wikilinks)
        links = pre + links
        slow = slow or pre_slow
    result.links = tuple(links)
    result.used_reference_parser = slow
    return result


# ---------------------------------------------------------------- links

_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_BACKTICKS = re.compile(r"`+")
_WIKI = re.compile(r"(!?)\[\[([^\[\]\n]+)\]\]")
# CommonMark whitespace is ASCII only: a no-break space belongs to the destination.
_INLINE = re.compile(
    r"(!?)\[([^\[\]]*)\]\([ \t\n]*(<[^<>\n]*>|[^ \t\n\x00-\x1f()<>]*(?:\([^ \t\n\x00-\x1f()<>]*\)[^ \t\n\x00-\x1f()<>]*)*)"
    r"(?:[ \t\n]+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t\n]*\)"
)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_EMAIL_AUTOLINK = re.compile(
    r"<([a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>"
)
_PATH_REF = re.compile(r"^[\w@~.\-/ ]*[\w\-]\.md(?:#[\w\-]+)?$", re.U)
# Constructs the regex pass cannot judge the way CommonMark does; any one of
# them sends the file to markdown-it-py. Over-triggering costs time, never
# correctness, so these err on the side of firing.
_UNSURE = re.compile(
    r"\\[!-/:-@\[-`{-~]"  # a backslash escape (of any ASCII punctuation)
    r"|\]:"  # a reference definition (anywhere: in quotes, lists, multi-line labels)
    r"|^(?: {4,}|\t)\S"  # indented code (or list continuation: only the parser knows)
    r"|<[A-Za-z][A-Za-z0-9-]*(?:[ \t\n/>]|$)|</[A-Za-z]|<[?!]"  # raw HTML, inline or block
    r"|&#?\w+;"  # entities can sit in destinations
    # nested brackets; the classes exclude both brackets so that each try
    # stops at the next one (same answer, linear instead of quadratic)
    r"|\[[^\[\]\n]*\[(?!\[)|\][^\[\]\n]*\]\("
    # (classes exclude the character that starts the next try: linear, not quadratic)
    r"|\[[^\[\]\n]*<"  # a '<' in link text: an autolink or HTML may win over the link
    r"|\]\([^()\n]*\([^()\n]*\(",  # nested parentheses in a destination
    re.M,
)
# Checked before code spans are blanked: a backtick inside <...> means an
# autolink or HTML tag and a code span compete, and the leftmost wins.
_UNSURE_BEFORE_CODE = re.compile(r"<[^<>\n]*`")


def _blanked(text: str) -> str:
    """Same length, same newlines; '_' (not a space) so no indentation is faked."""
    return re.sub(r"[^\n]", "_", text)


def _blank(match: re.Match) -> str:
    return _blanked(match.group(0))


def blank_fenced_code(text: str) -> str:
    """Replace fenced code blocks with spaces, keeping every newline."""
    if "```" not in text and "~~~" not in text:
        return text
    lines = text.split("\n")
    fence = None
    for i, line in enumerate(lines):
        if fence is None:
            m = _FENCE_OPEN.match(line)
            if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
                fence = m.group(2)
                lines[i] = " " * len(line)
        else:
            stripped = line.strip()
            if (
                len(line) - len(line.lstrip(" ")) < 4
                and stripped.startswith(fence[0] * len(fence))
                and set(stripped) == {fence[0]}
            ):
                fence = None
            lines[i] = " " * len(line)
    return "\n".join(lines)


def _code_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end, backtick count) of each code span: a run of backticks up
    to the next run of the same length. Runs are indexed by length, where a
    lazy regex would rescan the rest of the text for every unmatched run."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for i, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(i)
    spans = []
    i = 0
    while i < len(runs):
        start, end = runs[i]
        same = by_length[end - start]
        k = bisect.bisect_right(same, i)
        if k == len(same):
            i += 1  # no closing run: these backticks are literal text
            continue
        closer = same[k]
        spans.append((start, runs[closer][1], end - start))
        i = closer + 1
    return spans


def _blank_html_comments(text: str) -> str:
    """Blank every ``<!-- ... -->``. A find loop, not a lazy regex: the regex
    rescans to the end of the text for each unclosed ``<!--`` (quadratic)."""
    parts: list[str] = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        end = text.find("-->", start + 4) if start >= 0 else -1
        if end < 0:
            break
        end += 3
        parts.append(text[pos:start])
        parts.append(_blanked(text[start:end]))
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


class _LineIndex:
    def __init__(self, text: str, first_line: int):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.first_line = first_line

    def at(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return self.first_line + i, offset - self.starts[i] + 1


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
    code_spans: list[tuple[int, str]] = []
    no_code = no_fences
    if "`" in no_fences:
        pieces, pos = [], 0
        for start, end, ticks in _code_spans(no_fences):
            code_spans.append((start + ticks, no_fences[start + ticks : end - ticks]))
            pieces.append(no_fences[pos:start])
            pieces.append(_blanked(no_fences[start:end]))
            pos = end
        pieces.append(no_fences[pos:])
        no_code = "".join(pieces)
    no_code = _blank_html_comments(no_code) if "<!--" in no_code else no_code

    # Wikilinks are not CommonMark: always found by regex, then blanked so the
    # CommonMark pass does not see their brackets.
    if wikilinks and "[[" in no_code:
        for m in _WIKI.finditer(no_code):
            links.append(_wikilink(m, index))
        no_code = _WIKI.sub(_blank, no_code)

    if backtick_refs:
        for start, content in code_spans:
            ref = content.strip()
            if _PATH_REF.match(ref) and "://" not in ref:
                line, col = index.at(start)
                links.append(Link(ref, line, col, "code"))

    used_parser = False
    if "[" in no_code or "<" in no_code:
        unsure = force_reference or _UNSURE.search(no_code) or ("`" in no_fences and _UNSURE_BEFORE_CODE.search(no_fences))
        if unsure and len(no_code) <= MAX_PARSER_CHARS and _longest_block(no_code) <= MAX_PARSER_BLOCK_CHARS:
            try:
                links.extend(_links_by_markdown_it(body, index, no_code.split("\n"), wikilinks))
                used_parser = True
            except RecursionError:  # nested deeper than Python's stack allows
                links.extend(_links_by_regex(no_code, index))
        else:
            links.extend(_links_by_regex(no_code, index))
    links.sort(key=lambda l: (l.line, l.column))
    return links, used_parser


# A paragraph: a line, then the lines that continue it (not blank, not a new
# list item, quote, table row or heading). Cheap, and only an estimate.
_BLOCK = re.compile(r"^[^\n]*(?:\n(?![ \t]*(?:[-*+>|#]|\d{1,9}[.)]|\n|$))[^\n]*)*", re.M)


def _longest_block(text: str) -> int:
    return max((m.end() - m.start() for m in _BLOCK.finditer(text)), default=0)


def _wikilink(m: re.Match, index: _LineIndex) -> Link:
    inner = m.group(2)
    target, _, alias = inner.partition("|")
    anchor = ""
    for sep in ("#", "^"):
        if sep in target:
            target, rest = target.split(sep, 1)
            anchor = sep + rest
            break
    line, col = index.at(m.start())
    return Link(target.strip(), line, col, "embed" if m.group(1) else "wiki", alias.strip(), anchor.strip())


def _links_by_regex(text: str, index: _LineIndex) -> list[Link]:
    out = []
    for m in _INLINE.finditer(text):
        dest = m.group(3)
        if dest.startswith("<"):
            dest = dest[1:-1]
        line, col = index.at(m.start())
        out.append(Link(unquote(dest), line, col, "image" if m.group(1) else "link", m.group(2).strip()))
    if "<" in text:
        for pattern in (_AUTOLINK, _EMAIL_AUTOLINK):
            for m in pattern.finditer(text):
                line, col = index.at(m.start())
                dest = m.group(1) if pattern is _AUTOLINK else "mailto:" + m.group(1)
                out.append(Link(unquote(dest), line, col, "autolink", m.group(1)))
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


def _links_by_markdown_it(body: str, index: _LineIndex, probe_lines: list[str], wikilinks: bool = True) -> list[Link]:
    """CommonMark links by the reference parser, with their lines and columns.

    ``probe_lines`` is the body with code, comments and wikilinks blanked: it
    is where columns are looked up, so a bracket in code is never taken.
    """
    source = _WIKI.sub(_blank, body) if wikilinks and "[[" in body else body
    if "\r" in source:  # markdown-it counts a lone \r as a line break; memlint counts \n only
        source = re.sub(r"\r(?!\n)", " ", source)
    out: list[Link] = []
    cursors: dict[int, int] = {}
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
                href = unquote(str(child.attrs.get(attr, "")))
                is_auto = child.markup == "autolink" or child.info == "auto"
                kind = "autolink" if is_auto else ("image" if child.type == "image" else "link")
                row = line0 + offset
                col = _column(probe_lines, row, cursors, href, kind)
                out.append(Link(href, index.first_line + row, col, kind, child.content if kind == "image" else ""))
            elif child.type == "html_inline":
                offset += child.content.count("\n")
    return out


def _column(probe_lines: list[str], row: int, cursors: dict[int, int], href: str, kind: str) -> int:
    """1-based column of the next link on a line: its '[' (or '!['), or '<'."""
    if not 0 <= row < len(probe_lines):
        return 1
    line = _ESCAPED.sub("__", probe_lines[row])
    cursor = cursors.get(row, 0)
    pos = end = -1
    if kind == "autolink":
        pos = line.find("<", cursor)
        end = line.find(">", pos) + 1 if pos >= 0 else -1
    else:
        for needle in ("](" + href, "](<" + href):
            close = line.find(needle, cursor)
            if close >= 0:
                depth, i = 0, close
                while i >= 0:
                    if line[i] == "]":
                        depth += 1
                    elif line[i] == "[":
                        depth -= 1
                        if depth == 0:
                            break
                    i -= 1
                pos, end = i, close + len(needle)
                break
        if pos < 0:
            pos = line.find("[", cursor)
            end = pos + 1
        if pos > 0 and line[pos - 1] == "!" and kind == "image":
            pos -= 1
    if pos < 0:
        return 1
    cursors[row] = max(end, pos + 1)  # the next link on this line starts after this one
    return pos + 1


def is_external(target: str) -> bool:
    """A URL with a scheme other than file: is not an edge of the store graph."""
    m = re.match(r"^([A-Za-z][A-Za-z0-9+.\-]*):", target)
    if not m:
        return False
    scheme = m.group(1).lower()
    if len(scheme) == 1:  # a Windows drive letter, C:\...
        return False
    return scheme != "file"

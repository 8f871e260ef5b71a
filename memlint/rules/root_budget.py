"""The root index is over the harness's load cap: everything past the cut is invisible.

Why: Claude Code loads only the first 200 lines or 25,000 bytes of
MEMORY.md (whichever comes first; the cut is by line, then at the last
newline under the byte cap); OpenClaw loads 12,000 characters. The rest is
dropped with no error, and the newest entries, often corrections, are the
ones lost.

Options (defaults by preset): ``max-lines`` (claude-code 200, moc 40),
``max-bytes`` (25000), ``max-chars`` (openclaw 12000); ``null`` turns one off.

Fires: a 249-line MEMORY.md under claude-code. The finding sits on the first
line that will not load and counts the index entries past it. A byte order
mark counts (three bytes, one character). Characters are counted as
OpenClaw (JavaScript) counts them: an emoji outside the Basic Multilingual
Plane is two. Blank lines past the cap, and nothing else, lose nothing and
are not reported.

Fix: move detail into topic files and keep one short line per topic in the root.
"""
from memlint.finding import Problem
from memlint.rules._common import entry_lines, plural

CODE = "MEM101"
NAME = "root-budget"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("budget",)
OPTIONS = {
    "max-lines": ((int, type(None)), 200),
    "max-bytes": ((int, type(None)), 25000),
    "max-chars": ((int, type(None)), None),
}


def first_hidden_line(text: str, max_lines, max_bytes, max_chars) -> int:
    """1-based first line a harness does not load (0 if the whole file loads).

    Lines are cut first, then at the last newline under the byte or
    character cap, as Claude Code and OpenClaw do.
    """
    lines = text.split("\n")
    newline_at_end = text.endswith("\n")
    if newline_at_end:
        lines.pop()
    cut = len(lines) if max_lines is None else min(len(lines), max_lines)
    for cap, measure in ((max_bytes, lambda s: len(s.encode("utf-8"))), (max_chars, js_length)):
        if cap is None:
            continue
        total = 0
        for i in range(cut):
            # each line's newline, but the last line's only if the file has one
            total += measure(lines[i]) + (newline_at_end or i < len(lines) - 1)
            if total > cap:
                cut = i
                break
    return 0 if cut >= len(lines) else cut + 1


def js_length(text: str) -> int:
    """Characters as OpenClaw counts them: JavaScript's ``length``, in UTF-16
    code units, so a character outside the Basic Multilingual Plane (an
    emoji) counts two."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def nothing_lost(text: str, first_hidden: int) -> bool:
    """All of the root loads, or what is cut is blank lines: nothing is lost."""
    return not first_hidden or not "".join(text.split("\n")[first_hidden - 1:]).strip()


def caps_exceeded(text: str, line_count: int, max_lines, max_bytes, max_chars) -> list[str]:
    over = []
    if max_lines is not None and line_count > max_lines:
        over.append(f"{max_lines:,} lines")
    if max_bytes is not None and len(text.encode("utf-8")) > max_bytes:
        over.append(f"{max_bytes:,} bytes")
    if max_chars is not None and js_length(text) > max_chars:
        over.append(f"{max_chars:,} characters")
    return over


def check(store, options):
    root = store.root
    if root is None or root.parsed is None:
        return
    text = loaded_text(store, root)
    caps = options["max-lines"], options["max-bytes"], options["max-chars"]
    first_hidden = first_hidden_line(text, *caps)
    if nothing_lost(text, first_hidden):
        return
    total_lines = root.parsed.line_count
    reasons = caps_exceeded(text, total_lines, *caps)
    size = len(text.encode("utf-8"))
    entries = entry_lines(root)
    hidden_entries = [n for n in entries if n >= first_hidden]
    cut_off = _targets_cut_off(root, first_hidden, set(entries))
    yield Problem(
        root.path,
        first_hidden,
        1,
        f"{root.rel} is {total_lines:,} lines / {size:,} bytes / {js_length(text):,} characters, over the load cap "
        f"({' and '.join(reasons)}): "
        + (f"line {first_hidden:,} is" if first_hidden == total_lines else f"lines {first_hidden:,}-{total_lines:,} are")
        + " never loaded, "
        f"hiding {plural(len(hidden_entries), 'index entry')}"
        + (f"; {plural(cut_off, 'entry')} above the cut {'links' if cut_off == 1 else 'link'} through a reference "
           f"definition below it (`[x]: file.md`), so {'it loses its' if cut_off == 1 else 'they lose their'} "
           "target too" if cut_off else ""),
    )


def _targets_cut_off(root, first_hidden: int, entries: set[int]) -> int:
    """How many entries above the cut link only through reference
    definitions past it (`[Alpha][a]` ... `[a]: a.md`): what the harness
    loads of them is text without a target."""
    if "]:" not in root.parsed.text:
        return 0  # no reference definition anywhere
    from memlint import markdown

    visible = "\n".join(root.parsed.text.split("\n")[:first_hidden - 1]) + "\n"
    kept = {(link.line, link.target) for link in markdown.parse(visible).links}
    lost = {link.line for link in root.parsed.links
            if link.line < first_hidden and link.line in entries and (link.line, link.target) not in kept}
    return len(lost)


def loaded_text(store, root) -> str:
    """The root's text as the harness measures it: with its byte order mark,
    if it has one (three bytes, one character of line 1; the parse drops it)."""
    return "\ufeff" + root.parsed.text if _starts_with_bom(store, root) else root.parsed.text


def _starts_with_bom(store, root) -> bool:
    """Whether the root's bytes start with a UTF-8 byte order mark."""
    data = store.staged_bytes(root)
    if data is None:
        try:
            with open(root.abspath, "rb") as fh:
                data = fh.read(3)
        except OSError:
            return False
    return data.startswith(b"\xef\xbb\xbf")

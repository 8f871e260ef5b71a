"""The root index is over the harness's load cap: what it drops is invisible.

Why: Claude Code loads only the first 200 lines or 25,000 bytes of
MEMORY.md (whichever comes first; the cut is by line, then at the last
newline at or before byte 25,000, so a line whose text ends on the cap
loads): the rest is dropped with no error, and the
newest entries, often corrections, are the ones lost. OpenClaw's cap is
12,000 characters of the file with its trailing whitespace trimmed; over
it, it keeps the first 70 % of the cap and the last 20 % (8,400 and 2,400
characters) and drops the middle, with a marker: the lines there are lost,
and so is a line cut into at either end (its link may be cut in two).

Options (defaults by preset): ``max-lines`` (claude-code, moc and
three-layer 200), ``max-bytes`` (the same three 25000), ``max-chars`` (openclaw 12000; OpenClaw's rule: over
it, the middle is dropped); ``null`` turns one off. ``budget-lines`` (moc
40, others none): a line budget below the load cap, which keeps a thin
root thin: over it, with the whole root still loaded, the finding says so
(on the first line past the budget) and claims no loss.

Fires: a 249-line MEMORY.md under claude-code; a 44-line one under moc. The finding sits on the first
line that will not load, counts the index entries that will not, and names
the files the agent then reaches no other way (an entry past the cut for a
file a topic above it lists too loses nothing; one for a topic loses all it
lists, live memories behind a retired topic included; a daily log, read
by its date, a file the store exempts, and a retired memory or topic, kept
for provenance, are never named). A byte order mark
counts (three bytes, one character). Characters are counted as OpenClaw
(JavaScript) counts them: an emoji outside the Basic Multilingual Plane is
two. Blank lines past the cap, and nothing else, lose
nothing and are not reported.

Fix: move detail into topic files and keep one short line per topic in the root.
"""
import math

from memlint.finding import Problem
from memlint.graph import root_links_cut_off
from memlint.lifecycle import is_retired
from memlint.rules._common import entry_lines, name_some, plural

CODE = "MEM101"
NAME = "root-budget"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("budget",)
READS_ROUTES = True  # which files only the lines cut off reach (memlint.linter runs it beside the graph)
OPTIONS = {
    "max-lines": ((int, type(None)), 200),
    "max-bytes": ((int, type(None)), 25000),
    "max-chars": ((int, type(None)), None),
    "budget-lines": ((int, type(None)), None),
}


# OpenClaw, over its character cap, keeps this much of the cap from the
# start and from the end (trimBootstrapContent: Math.floor(cap * 0.7) and
# Math.floor(cap * 0.2), in floating point as JavaScript computes them).
HEAD_SHARE, TAIL_SHARE = 0.7, 0.2
# JavaScript's whitespace, which trimEnd takes off the end (not Python's: no
# \x1c-\x1f or \x85, and the byte order mark is one).
_JS_SPACE = "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"


def first_hidden_line(text: str, max_lines, max_bytes, max_chars) -> int:
    """1-based first line a harness does not load (0 if the whole file loads)."""
    ranges = hidden_ranges(text, max_lines, max_bytes, max_chars)
    return ranges[0][0] if ranges else 0


def hidden_ranges(text: str, max_lines, max_bytes, max_chars) -> list[tuple[int, int]]:
    """The 1-based line ranges (first, last) a harness does not load, in
    order: none when the whole file loads.

    Claude Code's caps cut the end: lines first, then at the last newline
    at or before the byte cap. OpenClaw's character cap, over what is left with its
    trailing whitespace trimmed, drops the middle: all of each line it
    drops a part of is counted lost.
    """
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    cut = len(lines) if max_lines is None else min(len(lines), max_lines)
    if max_bytes is not None:
        total = 0
        for i in range(cut):
            # a line loads when its text ends within the cap: the cut is at the
            # last newline at or before the cap (lastIndexOf("\n", cap)), so the
            # newline after it may be the byte just past the cap
            total += len(lines[i].encode("utf-8"))
            if total > max_bytes:
                cut = i
                break
            total += 1
    ranges = []
    if max_chars is not None:
        middle = _middle_dropped(lines[:cut], max_chars)
        if middle is not None:
            ranges.append(middle)
    if cut < len(lines):
        if ranges and ranges[-1][1] >= cut:
            ranges[-1] = (ranges[-1][0], len(lines))
        else:
            ranges.append((cut + 1, len(lines)))
    return ranges


def _middle_dropped(lines: list[str], cap: int) -> tuple[int, int] | None:
    """(first, last) line OpenClaw drops of ``lines`` (the whole text,
    newlines between them), or None when it keeps all: it keeps the first
    HEAD_SHARE and the last TAIL_SHARE tenths of the cap, in UTF-16 units."""
    length = loaded_chars("\n".join(lines))
    if length <= cap:
        return None
    start, end = math.floor(cap * HEAD_SHARE), length - math.floor(cap * TAIL_SHARE)  # units [start, end) dropped
    dropped = []
    offset = 0
    for number, line in enumerate(lines, 1):
        size = js_length(line)
        # a line's text, or for a blank line its newline, meets the dropped units
        if offset < end and offset + max(size, 1) > start:
            dropped.append(number)
        elif offset >= end:
            break
        offset += size + 1
    return (dropped[0], dropped[-1]) if dropped else None


def loaded_chars(text: str) -> int:
    """The root's characters as OpenClaw measures them against its cap: its
    trailing whitespace trimmed (JavaScript's trimEnd), in ``js_length``."""
    return js_length(text.rstrip(_JS_SPACE))


def js_length(text: str) -> int:
    """Characters as OpenClaw counts them: JavaScript's ``length``, in UTF-16
    code units, so a character outside the Basic Multilingual Plane (an
    emoji) counts two."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def nothing_lost(text: str, ranges) -> bool:
    """All of the root loads, or what is dropped is blank lines: nothing is lost.
    ``ranges``: ``hidden_ranges``'s, or a first hidden line (cut to the end)."""
    if not ranges:
        return True
    lines = text.split("\n")
    if isinstance(ranges, int):
        ranges = [(ranges, len(lines))]
    return not any("".join(lines[start - 1:end]).strip() for start, end in ranges)


def caps_exceeded(text: str, line_count: int, max_lines, max_bytes, max_chars) -> list[str]:
    over = []
    if max_lines is not None and line_count > max_lines:
        over.append(f"{max_lines:,} lines")
    if max_bytes is not None and len(text.encode("utf-8")) > max_bytes:
        over.append(f"{max_bytes:,} bytes")
    if max_chars is not None and loaded_chars(text) > max_chars:
        over.append(f"{max_chars:,} characters")
    return over


def check(store, options):
    root = store.root
    if root is None or root.parsed is None:
        return
    text = loaded_text(store, root)
    caps = options["max-lines"], options["max-bytes"], options["max-chars"]
    ranges = hidden_ranges(text, *caps)
    total_lines = root.parsed.line_count
    if nothing_lost(text, ranges):
        yield from _over_budget(root, text, total_lines, options["budget-lines"], caps)
        return
    reasons = caps_exceeded(text, total_lines, *caps)
    size = len(text.encode("utf-8"))
    entries = entry_lines(root, store)
    hidden = set().union(*(range(start, end + 1) for start, end in ranges))
    hidden_entries = [n for n in entries if n in hidden]
    targetless = root_links_cut_off(store, hidden)
    cut_off = len({line for line, _ in targetless if line in entries})
    # (a daily log, or a file the store exempts, is read by its date or by name, not through an index: not lost;
    # nor is a retired memory or topic, kept for provenance: MEM205 reports an entry routing to it, and the
    # dashboard's past-cap count leaves it out too)
    lost = [rel for rel in store.graph.reached_only_through(hidden, targetless)
            if store.docs[rel].role not in ("log", "exempt") and not is_retired(store.docs[rel], store.settings)]
    shown = " and ".join(f"line {start:,}" if start == end else f"lines {start:,}-{end:,}" for start, end in ranges)
    yield Problem(
        root.path,
        ranges[0][0],
        1,
        f"{root.rel} is {total_lines:,} lines / {size:,} bytes / {loaded_chars(text):,} characters, over the load cap "
        f"({' and '.join(reasons)}): "
        + shown + (" is" if len(hidden) == 1 else " are") + " never loaded, "
        f"hiding {plural(len(hidden_entries), 'index entry')}"
        + (f"; {plural(len(lost), 'file')} {'is' if len(lost) == 1 else 'are'} reached only through "
           f"{'what the cut drops' if targetless else 'that line' if len(hidden) == 1 else 'those lines'}, so the "
           f"agent never reads {'it' if len(lost) == 1 else 'them'}: {name_some(lost, 5)}" if lost else "")
        + (f"; {plural(cut_off, 'entry')} above the cut {'links' if cut_off == 1 else 'link'} through a reference "
           f"definition below it (`[x]: file.md`), so {'it loses its' if cut_off == 1 else 'they lose their'} "
           "target too" if cut_off else ""),
    )


def past_budget(text: str, budget) -> bool:
    """Whether the root runs past its line budget (``budget-lines``) with more than blank lines."""
    return budget is not None and bool("".join(text.split("\n")[budget:]).strip())


def _over_budget(root, text: str, total_lines: int, budget, caps):
    """The finding of a root that loads whole but runs past its line budget."""
    if not past_budget(text, budget):
        return
    loads = " / ".join(f"{cap:,} {unit}" for cap, unit in zip(caps, ("lines", "bytes", "characters")) if cap is not None)
    yield Problem(
        root.path, budget + 1, 1,
        f"{root.rel} is {total_lines:,} lines, over the store's budget of {budget:,}: it still loads whole "
        f"(the load cap is {loads or 'not set'}), but every session reads all of it; move detail into topic files "
        "and keep one short line per topic",
    )


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

"""Git's conflict markers left in a memory: a merge nobody finished.

Why: two agents (or two machines) that edit the same memory, or the root
index, on different branches meet in a merge; git writes both versions into
the file between ``<<<<<<<``, ``=======`` and ``>>>>>>>`` lines, and a
``git add`` marks it resolved as it is. The harness then loads both sides,
markers and all: two contradicting facts, or a root index with every
entry twice and the cap reached sooner. In frontmatter, the YAML breaks too
(MEM002).

A conflict is the three markers in that order, each at the start of a line
and of the same length (7, git's default; longer with the
``conflict-marker-size`` attribute); a ``|||||||`` base section (diff3) may
sit between the first two. A marker line alone is not one (``=======``
under a title is a heading). Code blocks are not exempt: git writes its
markers wherever the two versions differ, inside a fenced block too, and
its fences may then pair up wrongly. A memory that quotes a conflict as an
example can indent it (an indented code block), or silence the rule around
it (``<!-- memlint-disable MEM007 -->`` ... ``<!-- memlint-enable MEM007 -->``).

Options: none.

Fires:

    <<<<<<< HEAD
    The API key rotates every 30 days.
    =======
    The API key rotates every 90 days.
    >>>>>>> laptop

Fix: keep what is true (one side, the other, or both merged by hand), then
delete the three marker lines.
"""
import re

from memlint.finding import Problem

CODE = "MEM007"
NAME = "merge-conflict"
SEVERITY = "error"
SCOPE = "file"
LOCAL = True
TAGS = ("files",)
OPTIONS: dict = {}

# One marker line: its character run (7 or more), then a space and a label, or nothing.
_MARKER = re.compile(r"^(<{7,}|\|{7,}|={7,}|>{7,})(?:[ \t].*)?\r?$", re.MULTILINE)


def check(doc, store, options):
    text = doc.parsed.text if doc.parsed is not None else None
    if not text or "<<<<<<<" not in text:
        return
    for first, last in conflicts(text):
        yield Problem(
            doc.path, first, 1,
            f"unresolved merge conflict (lines {first}-{last}): git left both versions here, and the harness "
            "loads both; keep what is true, then delete the marker lines",
        )


def conflicts(text: str) -> list[tuple[int, int]]:
    """(line of ``<<<<<<<``, line of ``>>>>>>>``) of each complete conflict in ``text``."""
    found = []
    opened = separated = None  # (line, marker length) of the current conflict's markers
    line, counted = 1, 0  # newlines counted from the last marker on, not from the start: linear
    for match in _MARKER.finditer(text):
        run = match.group(1)
        kind, size = run[0], len(run)
        if kind == "=" and match.group(0).rstrip("\r") != run:
            continue  # "======= x" is no separator: git writes it alone
        line += text.count("\n", counted, match.start())
        counted = match.start()
        if kind == "<":
            opened, separated = (line, size), None
        elif opened is None or size != opened[1]:
            continue
        elif kind == "|":
            if separated is not None:
                opened = None
        elif kind == "=":
            separated = (line, size)
        elif separated is not None:  # ">" after "<" and "="
            found.append((opened[0], line))
            opened = separated = None
    return found

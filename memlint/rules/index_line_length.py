"""An index entry line is longer than its cap.

Why: the root and topic indexes are loaded on every session; an entry is a
pointer (``- [Title](file.md) — one-line hook``), not the memory itself.
Long entries burn the load budget (with long lines the byte cap binds in a
few dozen lines).

Options: ``max-length`` in characters (claude-code and moc 150; ``null``
turns it off). Only index entries (list items or table rows with a link; a
backtick path is one only when it names a file) in
the root and topic indexes count.

Fires: a 400-character entry in MEMORY.md.

Fix: cut the hook to one short clause and move the detail into the memory.
"""
from memlint.finding import Problem
from memlint.rules._common import entry_lines

CODE = "MEM102"
NAME = "index-line-length"
SEVERITY = "warning"
SCOPE = "file"
TAGS = ("budget",)
# Not LOCAL: a backtick path is an entry only when it names a file, which the link graph says
# (memlint.linter runs it beside the graph).
READS_ROUTES = True
OPTIONS = {"max-length": ((int, type(None)), 150)}


def check(doc, store, options):
    limit = options["max-length"]
    if limit is None or doc.role not in ("root", "index") or doc.parsed is None:
        return
    lines = doc.parsed.text.split("\n")
    for n in entry_lines(doc, store):
        length = len(lines[n - 1].rstrip("\r"))
        if length > limit:
            yield Problem(doc.path, n, limit + 1, f"index entry is {length:,} characters, over {limit:,}")

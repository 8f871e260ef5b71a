"""A topic index lists more entries, or has more lines, than its cap.

Why: a map-of-content works only while each topic stays small enough for
the agent to read whole; past the cap it becomes a second fat root.

Options: ``max-entries`` (moc 25, others 50), ``max-lines`` (moc 100,
openclaw 300, others 200); ``null`` turns one off. Topic indexes are the
files the store setting ``topics`` names (``MOC-*.md``, ``topics/*.md``...)
and files whose body is mostly a list of links (at least 5 links to files,
on 60 % or more of its lines other than headings).

Fires: a ``MOC-projects.md`` with 40 entries under moc.

Fix: split the topic into sub-topics, or archive entries nobody needs.
"""
from memlint.finding import Problem
from memlint.rules._common import entry_lines, lines_but_blank_tail

CODE = "MEM103"
NAME = "topic-oversized"
SEVERITY = "warning"
SCOPE = "file"
TAGS = ("budget",)
# Not LOCAL: a backtick path is an entry only when it names a file, which the link graph says
# (memlint.linter runs it beside the graph).
READS_ROUTES = True
OPTIONS = {
    "max-entries": ((int, type(None)), 50),
    "max-lines": ((int, type(None)), 200),
}


def check(doc, store, options):
    if doc.role != "index" or doc.parsed is None:
        return
    max_entries, max_lines = options["max-entries"], options["max-lines"]
    entries = entry_lines(doc, store)
    if max_entries is not None and len(entries) > max_entries:
        yield Problem(
            doc.path, entries[max_entries], 1, f"topic lists {len(entries):,} entries, over its cap of {max_entries:,}"
        )
    lines = lines_but_blank_tail(doc)
    if max_lines is not None and lines > max_lines:
        yield Problem(doc.path, max_lines + 1, 1, f"topic is {lines:,} lines, over its cap of {max_lines:,}")

"""The same memory is listed twice in one index, or in two topic indexes.

Why: a map of content works when each memory has one home. A second entry
spends the index's line budget twice, the two hooks drift apart, and an
agent that reads both topics loads the file twice. Only entries count (list
items and table rows, the first store file each links to); a prose mention
("see also") is not a listing, nor is a path in backticks. The root listing a memory that a topic also
lists is not reported: roots often keep a few hot entries.

Options: none.

Fires: ``tools/rg.md`` listed on line 4 and line 9 of ``MOC-tools.md``, or
in both ``MOC-tools.md`` and ``MOC-projects.md``.

Fix: keep the entry in the one topic where the agent would look for it;
cross-link topics instead of copying entries.
"""
from memlint.finding import Problem
from memlint.graph import INDEX_ROLES
from memlint.rules._common import line_targets

CODE = "MEM204"
NAME = "filed-twice"
SEVERITY = "warning"
SCOPE = "store"
TAGS = ("links", "graph", "duplicates")
OPTIONS: dict = {}


def check(store, options):
    graph = store.graph
    docs = store.docs
    homes: dict[str, tuple[str, int]] = {}  # memory -> (first topic, line)
    for rel in sorted(r for r, d in docs.items() if d.role in INDEX_ROLES):
        doc = docs[rel]
        first_here: dict[str, int] = {}
        for line, edge in line_targets(graph, rel, entries_only=True, kinds=("link", "wiki")):
            target = edge.target
            if target == rel or docs[target].role in INDEX_ROLES:
                continue
            if target in first_here:
                yield Problem(doc.path, line, edge.link.column, f"{target} is listed twice in this index (first on line {first_here[target]})")
                continue
            first_here[target] = line
            if doc.role != "index":
                continue  # the root is not a topic
            if target in homes:
                other, other_line = homes[target]
                yield Problem(
                    doc.path,
                    line,
                    edge.link.column,
                    f"{target} is filed in two topics: also in {other} (line {other_line})",
                )
            else:
                homes[target] = (rel, line)

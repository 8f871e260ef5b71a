"""An index routes the agent to a memory that is retired: the index lies.

Why: when a fact changes, the old memory is marked (``status: superseded``,
``outdated``, ``archived``...) or given an ``expires`` date, and kept for
provenance. If an index still lists it, the agent loads the old fact next
to (or instead of) the new one, which is how eight stale memories outvote
one correction. ``stale`` is not retired: it means "verify me", and the
entry is still the right route.

A memory is retired when its ``status`` (flat or under ``metadata:``) is
one of the store setting ``retired-statuses`` (default: superseded,
outdated, archived, conflicted, conflict, cancelled, canceled, deleted,
deprecated, obsolete, retired), when another memory supersedes it (either
side naming the other), or when its ``expires`` date is before today
(``--today`` sets the date); ``memlint.lifecycle`` decides, for every rule.
Only the first store file each index line links to counts: ``- [New](new.md)
— replaces [old](old.md)`` routes to new.md.

Options: none (see the store settings ``retired-statuses`` and
``core-priorities``: core memories never expire).

Fires: ``- [Pricing](pricing.md)`` in MEMORY.md where pricing.md has
``status: superseded``.

Fix: point the entry at the memory that replaced it, or drop the entry.
"""
from memlint.finding import Problem
from memlint.graph import INDEX_ROLES
from memlint.rules._common import line_targets

CODE = "MEM205"
NAME = "routes-to-retired"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("links", "graph", "lifecycle")
OPTIONS: dict = {}


def check(store, options):
    graph = store.graph
    docs = store.docs
    lifecycle = store.lifecycle
    verdicts: dict[str, str | None] = {}
    for rel in sorted(r for r, d in docs.items() if d.role in INDEX_ROLES):
        if not graph.routes(rel) or lifecycle.retired_because(rel):
            continue  # an index the agent does not read (MEM201 says so), or one retired itself, routes nobody
        for line, edge in line_targets(graph, rel):
            target = edge.target
            if target not in verdicts:
                verdicts[target] = lifecycle.retired_because(target)
            why = verdicts[target]
            if why:
                yield Problem(docs[rel].path, line, edge.link.column, f"routes to {target}, which is retired: {why}")

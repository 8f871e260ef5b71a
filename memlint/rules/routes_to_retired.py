"""An index routes the agent to a memory that is retired: the index lies.

Why: when a fact changes, the old memory is marked (``status: superseded``,
``outdated``, ``archived``...) or given an ``expires`` date, and kept for
provenance. If an index still lists it, the agent loads the old fact next
to (or instead of) the new one, which is how eight stale memories outvote
one correction. ``stale`` is not retired: it means "verify me", and the
entry is still the right route.

A memory is retired when its ``status`` (flat or under ``metadata:``) is
one of the ``statuses`` option, when it names a ``superseded_by``, or when
its ``expires`` date is before today (``--today`` sets the date). Only the
first store file each index line links to counts: ``- [New](new.md) —
replaces [old](old.md)`` routes to new.md.

Options: ``statuses`` (default: superseded, outdated, archived,
conflicted, conflict, cancelled, canceled, deleted, deprecated, obsolete,
retired).

Fires: ``- [Pricing](pricing.md)`` in MEMORY.md where pricing.md has
``status: superseded``.

Fix: point the entry at the memory that replaced it, or drop the entry.
"""
from memlint.dates import parse_date
from memlint.finding import Problem
from memlint.graph import INDEX_ROLES
from memlint.rules._common import line_targets

CODE = "MEM205"
NAME = "routes-to-retired"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("links", "graph", "lifecycle")
OPTIONS = {
    "statuses": (
        (list,),
        ["superseded", "outdated", "archived", "conflicted", "conflict", "cancelled", "canceled", "deleted", "deprecated", "obsolete", "retired"],
    ),
}


def retired_because(doc, today, statuses) -> str | None:
    """Why ``doc`` is retired, or None if it is live."""
    if doc.parsed is None or not doc.frontmatter:
        return None
    status = doc.field("status")
    if isinstance(status, str) and status.strip().casefold() in statuses:
        return f"status: {status.strip()} (line {doc.key_line('status')})"
    for key in ("superseded_by", "superseded-by", "supersededBy"):
        value = doc.field(key)
        if value not in (None, "", []):
            return f"{key}: {value} (line {doc.key_line(key)})"
    expires = doc.field("expires")
    if expires not in (None, ""):
        try:
            when = parse_date(expires)
        except ValueError:
            return None  # MEM004 reports the bad date
        if when < today:
            return f"expired on {when.isoformat()} (line {doc.key_line('expires')})"
    return None


def check(store, options):
    graph = store.graph
    docs = store.docs
    statuses = {s.casefold() for s in options["statuses"]}
    verdicts: dict[str, str | None] = {}
    for rel in sorted(r for r, d in docs.items() if d.role in INDEX_ROLES):
        for line, edge in line_targets(graph, rel):
            target = edge.target
            if target not in verdicts:
                verdicts[target] = retired_because(docs[target], store.today, statuses)
            why = verdicts[target]
            if why:
                yield Problem(docs[rel].path, line, edge.link.column, f"routes to {target}, which is retired: {why}")

"""A memory's ``expires`` date has passed, yet it is still live or still routed to by an index.

Why: ``expires`` is how a memory says "this is only true until then" (a
price for a quarter, a freeze until a release). After that date the agent
keeps loading a fact its author already said would be false.

A memory has expired the day after its ``expires`` date (``--today`` sets
the date). Core memories (``priority`` 🔴 or ``core``) never expire. An
expired memory that is retired (``status: archived``...) is fine unless an
index still lists it.

Options: none.

Fires: ``expires: 2026-09-30`` with ``status: active`` on 2026-11-30; or
``status: archived`` with an ``INDEX.md`` line that still links to it.

Fix: if it still holds, verify it and move ``expires`` forward; otherwise
set ``status: archived`` (or move it to ``.archive/``) and remove the index
entry the message names. memlint changes nothing itself.
"""
from memlint.finding import Problem
from memlint.lifecycle import expired_on, is_live, retire_as, retired_statuses, status_of
from memlint.rules._common import plural

CODE = "MEM502"
NAME = "expired"
SEVERITY = "error"
SCOPE = "file"
TAGS = ("lifecycle", "dates")
OPTIONS: dict = {}
READS_ROUTES = True  # the index entries that route to a memory (memlint.linter runs it beside the graph)


def check(doc, store, options):
    if not doc.is_memory or doc.parsed is None:
        return
    when = expired_on(doc, store.today, store.settings)
    if when is None:
        return
    routes = store.lifecycle.routes.get(doc.rel, [])
    live = is_live(doc, store.settings)
    if not live and not routes:
        return
    where = ", ".join(f"{store.docs[r.index].path}:{r.line}" for r in routes)
    days = (store.today - when).days
    archive = "archived" if "archived" in retired_statuses(store.settings) else retire_as(store.settings)
    status = status_of(doc)
    if live:
        state = f"`status: {status}` is still live" if status else "it has no `status`, so it is still live"
        message = (f"expired on {when.isoformat()} ({plural(days, 'day')} ago) but {state}: if it still holds, verify it "
                   f"and move `expires` forward; if not, set `status: {archive}`")
        if routes:
            message += f" and remove its index entry ({where})"
    else:
        message = (f"expired on {when.isoformat()} and is `status: {status}`, but an index still routes to it: "
                   f"remove the entry ({where})")
    yield Problem(doc.path, doc.key_line("expires"), 1, message)

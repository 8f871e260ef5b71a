"""A live memory has not been verified within the store's window: it may no longer be true.

Why: memory that is not maintained lies. An agent trusts what it loads; a
price, a command or a decision nobody has checked for months is loaded with
the same weight as one checked yesterday.

The date is ``last_verified``; where a memory has none, the last git commit
that changed it (no ``last_verified`` and no git: the rule stays quiet). The
windows are store settings: ``stale-days`` (three-layer 30, moc 60, other
presets none) and ``core-stale-days`` for core memories (``priority`` 🔴 or
``core``; default none: core memories do not go stale). Retired memories
(``status: outdated``, ``archived``...) are never stale; ``status: stale``
is still live, so it keeps firing until the memory is verified again.

Options: none; set ``stale-days``/``core-stale-days`` in ``.memlint.yaml``.

Fires: under three-layer, ``last_verified: 2026-04-01`` checked on
2026-11-30 (243 days; window 30).

Fix: check that the memory still holds and set ``last_verified`` to today.
If it no longer holds, mark it retired (``status: superseded``) and remove
its index entry, if an index lists it.
"""
from memlint.finding import Problem
from memlint.lifecycle import is_core, retire_as
from memlint.rules._common import empty_key_line, plural

CODE = "MEM501"
NAME = "stale"
SEVERITY = "warning"
SCOPE = "store"
TAGS = ("lifecycle", "dates")
OPTIONS: dict = {}
READS_ROUTES = True  # whether an index entry is there to remove (memlint.linter runs it beside the graph)


def check(store, options):
    today = store.today.isoformat()
    retired = retire_as(store.settings)
    for rel, verified, source, window in store.lifecycle.stale():
        doc = store.docs[rel]
        days = (store.today - verified).days
        window_name = "core window" if is_core(doc, store.settings) else "window"
        if source == "last_verified":
            what = f"last verified {verified.isoformat()}, {plural(days, 'day')} ago, over the store's {window}-day {window_name}"
            fix = f"set `last_verified: {today}`"
        elif doc.field("last_verified") not in (None, ""):  # there, but not a date (MEM004 says so)
            what = (f"`last_verified` is not a date, and the file is unchanged in git since {verified.isoformat()}, "
                    f"{plural(days, 'day')} ago, over the store's {window}-day {window_name}")
            fix = f"correct it to `last_verified: {today}`"
        elif empty := empty_key_line(doc, "last_verified"):  # there, with no value: filled in, not added again
            what = (f"`last_verified` is empty, and the file is unchanged in git since {verified.isoformat()}, "
                    f"{plural(days, 'day')} ago, over the store's {window}-day {window_name}")
            fix = f"fill it in on line {empty}: `last_verified: {today}`"
        elif doc.frontmatter is None and doc.parsed.frontmatter_error is not None and (
                written := doc.parsed.key_lines.get("last_verified") or doc.parsed.key_lines.get("metadata.last_verified")):
            # written in a block that does not parse: set there, not added again (a duplicate key)
            what = (f"its frontmatter does not parse (MEM002), so its `last_verified` is not read, and the file is "
                    f"unchanged in git since {verified.isoformat()}, {plural(days, 'day')} ago, "
                    f"over the store's {window}-day {window_name}")
            fix = f"fix its frontmatter and set `last_verified: {today}` on its line {written}"
        else:
            what = (f"no `last_verified`, and unchanged in git since {verified.isoformat()}, {plural(days, 'day')} ago, "
                    f"over the store's {window}-day {window_name}")
            fix = (f"add `last_verified: {today}`" if doc.frontmatter is not None
                   else f"fix its frontmatter (MEM002) and add `last_verified: {today}` to it"
                   if doc.parsed.frontmatter_error is not None
                   else f"give it a frontmatter block (`---` lines) with `last_verified: {today}`")
        retire = (f"set `status: {retired}`" if doc.frontmatter is not None or doc.parsed.frontmatter_error is not None
                  else f"put `status: {retired}` there")
        routed = " and remove its index entry" if store.lifecycle.routes.get(rel) else ""  # an orphan has none
        yield Problem(
            doc.path,
            doc.key_line("last_verified"),
            1,
            f"{what}: check that it still holds, then {fix}; if it no longer does, {retire}{routed}",
        )

"""A memory lacks a date field the preset wants (``created``, ``last_verified``).

Why: without ``last_verified`` nothing can say a memory has gone stale, and
without ``created`` nothing can order two memories that disagree. Git knows
both dates; ``memlint backfill`` writes them.

Options: none. The fields are the store setting ``wants-dates``: moc
``[created, last_verified]``, three-layer ``[last_verified]``; none for
claude-code (Claude Code's memory files carry no dates; git's dates stand in
for them), openclaw and generic. Applies to memory files that have
frontmatter; a memory without any is MEM001's business where the preset
requires frontmatter, and left alone where it is optional. An empty value
counts as missing.

Fires: under moc, a memory whose frontmatter has ``name`` and
``description`` but no ``created`` or ``last_verified``.

Fix: run ``memlint backfill`` (or the ``memlint-backfill`` pre-commit hook):
``created`` from the commit that first added the file, ``last_verified``
from its last change. Check what a backfilled ``last_verified`` claims.
"""
from memlint.finding import Problem
from memlint.rules._common import empty_key_line

CODE = "MEM402"
NAME = "dates-missing"
SEVERITY = "warning"
SCOPE = "file"
LOCAL = True
TAGS = ("dates", "frontmatter")
OPTIONS: dict = {}

BACKFILLED = ("created", "last_verified")  # fields `memlint backfill` can write


def check(doc, store, options):
    wanted = store.settings.get("wants-dates") or ()
    if not doc.is_memory or not wanted or doc.frontmatter is None:
        return
    missing = [name for name in wanted if doc.field(name) in (None, "")]
    if not missing:
        return
    # a key written with no value is filled in where it is: added again, it is a duplicate key (MEM002)
    empty = {name: line for name in missing if (line := empty_key_line(doc, name))}
    absent = [name for name in missing if name not in empty]
    said = []
    if absent:
        said.append("no " + " or ".join(f"`{name}`" for name in absent))
    if empty:
        said.append(" and ".join(f"`{name}`" for name in empty) + (" are" if len(empty) > 1 else " is") + " empty")
    it = "them" if len(missing) > 1 else "it"
    backfill = all(name in BACKFILLED for name in missing) and store.git_dates.usable
    if backfill:
        fix = f"run `memlint backfill` to take {it} from git"
    else:
        fill = "fill in " + " and ".join(f"`{name}` on line {line}" for name, line in empty.items()) if empty else ""
        add = ("add " + " and ".join(f"`{name}`" for name in absent) if empty else f"add {it}") if absent else ""
        fix = " and ".join(part for part in (fill, add) if part)
    # who wants them: the preset, or the store's own config
    who = (f"the {store.preset} preset wants" if "wants-dates" not in store.config.data
           else "this store's `wants-dates` wants")
    # an empty key on its own line, else the opening fence
    line = next(iter(empty.values())) if empty else doc.key_line(missing[0])
    yield Problem(doc.path, line, 1, f"{', and '.join(said)}: {who} {it} on every memory; {fix}")

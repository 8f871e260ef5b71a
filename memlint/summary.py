"""``memlint check --summary``: the lifecycle state of each store on one screen.

Counts come from the store itself (``Store.lifecycle``), not from the
findings, so they are the same whichever rules are selected or suppressed.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from memlint.reporters import printable
from memlint.rules._common import plural

NO_STATUS = "(no status)"


@dataclass
class StoreSummary:
    name: str  # the store folder as the user would type it
    preset: str
    memories: int = 0
    live: int = 0
    retired: int = 0
    by_status: Counter = field(default_factory=Counter)
    stale: int = 0
    stale_days: int | None = None
    core_stale_days: int | None = None  # core memories' own window
    expired_live: int = 0
    superseded_live: int = 0
    conflict_members: int = 0
    conflict_keys: int = 0
    retired_routes: int = 0  # index entries that route to a retired, superseded or expired memory, or a retired topic


def _display(folder: Path) -> str:
    try:
        rel = os.path.relpath(folder)
    except ValueError:  # another drive on Windows
        return str(folder)
    return str(folder) if rel.startswith("..") else rel


def summarize(store) -> StoreSummary:
    from memlint.lifecycle import is_live, status_of

    lc = store.lifecycle
    out = StoreSummary(_display(store.dir), store.preset, stale_days=store.settings.get("stale-days"),
                       core_stale_days=store.settings.get("core-stale-days"))
    for rel, doc in lc.memories.items():
        out.memories += 1
        out.by_status[status_of(doc) or NO_STATUS] += 1
        if is_live(doc, store.settings):
            out.live += 1
        else:
            out.retired += 1
    out.stale = len(lc.stale())
    out.expired_live = sum(1 for rel, _ in lc.expired() if lc.live(rel))
    out.superseded_live = len(lc.superseded_but_live())
    conflicts = lc.conflicts()
    out.conflict_keys = len(conflicts)
    out.conflict_members = len({rel for _, members in conflicts for rel in members})
    # (lc.routes: from an index retired itself, or one the agent does not read, none, as MEM205 has it)
    out.retired_routes = sum(len(routes) for target, routes in lc.routes.items() if lc.retired_because(target))
    return out


def render(summaries: list[StoreSummary], exempted: int = 0) -> str:
    lines = []
    for s in summaries:
        statuses = ", ".join(f"{name} {n}" for name, n in sorted(s.by_status.items(), key=lambda p: (-p[1], p[0])))
        windows = [f"not verified for over {s.stale_days} days" if s.stale_days is not None else "no stale-days window set"]
        if s.core_stale_days is not None:
            windows.append(f"core memories {s.core_stale_days} days")
        window = "; ".join(windows)
        lines += [
            f"summary: {printable(s.name)} ({s.preset})",
            f"  memories       {s.memories}: {s.live} live, {s.retired} retired",
            f"  by status      {statuses or '-'}",
            f"  stale          {s.stale} ({window})",
            f"  expired        {s.expired_live} still live",
            f"  superseded     {s.superseded_live} still live",
            f"  in conflict    {plural(s.conflict_members, 'memory')} in {plural(s.conflict_keys, 'group')} sharing a `key`",
            f"  index entries  {s.retired_routes} route to retired, superseded or expired memories, or retired topics",
        ]
    if exempted:
        lines.append(f"not reported: {plural(exempted, 'finding')} on retired memories (store setting retired-exempt-rules)")
    return "\n".join(lines) + ("\n" if lines else "")

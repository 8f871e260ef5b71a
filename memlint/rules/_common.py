"""Small helpers shared by rules."""
from __future__ import annotations

import re

_ENTRY = re.compile(r"^\s{0,8}(?:[-*+]|\d+[.)])\s|^\s*\|")


def entry_lines(doc) -> list[int]:
    """1-based lines of ``doc`` that are index entries: list items or table
    rows carrying at least one link (markdown, wikilink or backtick path)."""
    if doc.parsed is None:
        return []
    lines = doc.parsed.text.split("\n")
    seen: list[int] = []
    for link in doc.parsed.links:
        if seen and seen[-1] == link.line:
            continue
        if 0 < link.line <= len(lines) and _ENTRY.match(lines[link.line - 1]):
            seen.append(link.line)
    return seen


def plural(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    return f"{n:,} {word[:-1] + 'ies' if word.endswith('y') else word + 's'}"


def line_targets(graph, rel: str, *, entries_only: bool = False, kinds=None) -> list[tuple[int, object]]:
    """(line, edge) of the first store file each line of ``rel`` links to.

    An index line's first link is where it routes the agent (``- [Title](x.md)
    — replaces [old](old.md)`` routes to x.md). ``entries_only`` keeps list
    items and table rows only, leaving prose mentions out; ``kinds`` keeps
    only those link kinds.
    """
    from memlint.graph import OK

    doc = graph.store.docs[rel]
    wanted = set(entry_lines(doc)) if entries_only else None
    out: list[tuple[int, object]] = []
    last_line = 0
    for edge in sorted(graph.out.get(rel, ()), key=lambda e: (e.link.line, e.link.column)):
        line = edge.link.line
        if edge.status != OK or line == last_line or (wanted is not None and line not in wanted):
            continue
        if kinds is not None and edge.link.kind not in kinds:
            continue
        last_line = line
        out.append((line, edge))
    return out

"""Small helpers shared by rules."""
from __future__ import annotations

import re

# A list item or a table row, at any depth, in blockquotes too (a line in a
# code block never gets here: the parse finds no links in code).
_ENTRY = re.compile(r"^[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d+[.)])\s|\|)")


def entry_lines(doc, store) -> list[int]:
    """1-based lines of ``doc`` that are index entries: list items or table
    rows carrying at least one link (markdown, wikilink, or a backtick path
    that names a file: a code span naming none is no link)."""
    if doc.parsed is None:
        return []
    lines = doc.parsed.text.split("\n")
    seen: list[int] = []
    named = None  # lines of the backtick paths that name a file (graph edges), once one is met
    for link in doc.parsed.links:
        if seen and seen[-1] == link.line:
            continue
        if link.kind == "code":
            if named is None:
                named = {edge.link.line for edge in store.graph.out.get(doc.rel, ()) if edge.link.kind == "code"}
            if link.line not in named:
                continue
        if 0 < link.line <= len(lines) and _ENTRY.match(lines[link.line - 1]):
            seen.append(link.line)
    return seen


def empty_key_line(doc, name: str) -> int | None:
    """The line of a frontmatter key written with no value (``last_verified:``,
    flat or under ``metadata:``), else None: such a key is to be filled in
    where it is; adding it again makes a duplicate key (MEM002)."""
    if doc.frontmatter is None or doc.parsed is None or doc.field(name) not in (None, ""):
        return None
    lines = doc.parsed.key_lines
    return lines.get(name) or lines.get(f"metadata.{name}")


def lines_but_blank_tail(doc) -> int:
    """The file's lines up to its last one that is not blank: blank lines at
    the end add nothing a size cap is about (as past the root's cap)."""
    content = doc.parsed.text.rstrip()
    return min(doc.parsed.line_count, content.count("\n") + 1) if content else 0


def plural(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    ies = word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u")  # memory, memories; day, days
    es = word.endswith(("x", "s", "ch", "sh"))  # index, indexes
    return f"{n:,} {word[:-1] + 'ies' if ies else word + 'es' if es else word + 's'}"


def name_some(names, shown: int, more: int = 0) -> str:
    """``names`` joined with commas, the first ``shown`` of them, then how
    many are left unnamed (``more`` beyond ``names`` included): a message
    about a group of 2,000 copies stays one line."""
    names = list(names)
    left = max(len(names) - shown, 0) + more
    listed = ", ".join(names[:shown])
    return f"{listed} and {left:,} more" if left else listed


def line_targets(graph, rel: str, *, entries_only: bool = False, kinds=None) -> list[tuple[int, object]]:
    """``Graph.first_links`` of ``rel``; ``entries_only`` keeps list items and
    table rows only, leaving prose mentions out."""
    lines = set(entry_lines(graph.store.docs[rel], graph.store)) if entries_only else None
    return graph.first_links(rel, lines=lines, kinds=kinds)

"""The same memory is listed twice in one index, or in two topic indexes.

Why: a map of content works when each memory has one home. A second entry
spends the index's line budget twice, the two hooks drift apart, and an
agent that reads both topics loads the file twice. Only entries count (list
items and table rows, the first store file each links to); a prose mention
("see also") is not a listing. A path in backticks is an entry when it is
the item's subject (- `memory/x.md` — what it holds; - Plan:
`memory/x.md`; a table cell of its own, after cells of one word or mark
each such as | 🔴 |, | P1 |, | ✅ Done | or | Redis缓存 |), not when a sentence mentions it (- Never
edit `x.md` by hand) or a row cites it as a source after its own text. The root listing a memory that a topic
also lists is not reported: roots often keep a few hot entries.

Options: none.

Fires: ``tools/rg.md`` listed on line 4 and line 9 of ``MOC-tools.md``, or
in both ``MOC-tools.md`` and ``MOC-projects.md``.

Fix: keep the entry in the one topic where the agent would look for it;
cross-link topics instead of copying entries.
"""
import re

from memlint.cjk import HIRAGANA, KATAKANA, UNSPACED
from memlint.finding import Problem
from memlint.graph import INDEX_ROLES, THROUGH
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
        first_here: dict[str, tuple[int, object]] = {}  # memory -> (line, edge) of its first entry here
        text_lines = None
        for line, edge in line_targets(graph, rel, entries_only=True, kinds=("link", "wiki", "code")):
            target = edge.target
            if target == rel or docs[target].role in INDEX_ROLES:
                continue
            if edge.link.kind == "code":
                text_lines = text_lines or doc.parsed.text.split("\n")
                if not _code_entry(text_lines[line - 1], edge.link.column - 1):
                    continue
            if target in first_here:
                first_line, first_edge = first_here[target]
                yield Problem(doc.path, line, edge.link.column, f"{target} is listed twice in this index (first on line "
                              f"{first_line}{_through(first_edge, '')}){_through(edge, ' here')}")
                continue
            first_here[target] = line, edge
            if doc.role != "index":
                continue  # the root is not a topic
            if target in homes:
                other, other_line = homes[target]
                yield Problem(
                    doc.path,
                    line,
                    edge.link.column,
                    f"{target} is filed in two topics: also in {other} (line {other_line}){_through(edge, ' here')}",
                )
            else:
                homes[target] = (rel, line)


def _through(edge, where: str) -> str:
    """", {where} through X, a symbolic link to it" when the entry names a
    symbolic link of the store that stands for the memory (``Store.link_twins``)."""
    if not edge.note.startswith(THROUGH):
        return ""
    return f",{where} {edge.note}, a symbolic link to it"


# Before a backtick path that is an item's subject: the list marker or the
# pipe of its table cell, and at most a label ending in a colon ("- Plan:
# `x.md`").
_SUBJECT_BEFORE = re.compile(r"\s*(?:>\s*)*(?:[-*+]|\d+[.)])?\s*(?:\|\s*)?(?:[^`|]{0,60}[:：]\**\s*)?\Z")
# After it: nothing, or a separator before its description.
_SUBJECT_AFTER = re.compile(r"\s*(?:\Z|[—–:：|(]|-\s|\*\*)")
# Words of scripts written without spaces: a cell of them is a sentence.
_UNSPACED_SCRIPT = re.compile(f"[{UNSPACED}]")


def _code_entry(line: str, column: int) -> bool:
    """Whether the backtick path at ``column`` (0-based, inside the backticks) is its item's subject."""
    start = column - 1
    end = line.find("`", column)
    if start < 0 or line[start] != "`" or end < 0:
        return False
    before = line[:start]
    if before.count("|") > 1:  # a table cell past the row's first: the cells before it say what the row is
        first, *cells, own = before.split("|")
        if first.strip(" \t>") or not all(map(_marks_cell, cells)):
            return False
        before = "|" + own
    return bool(_SUBJECT_BEFORE.match(before)) and bool(_SUBJECT_AFTER.match(line, end + 1))


def _marks_cell(cell: str) -> bool:
    """A table cell before a path that leaves the path the row's subject: a
    mark or a key of one word, "| 🔴 |", "| ✓ ✓ |", "| 3 |", "| P1 |",
    "| 2026-03-01 |", "| Authentication |", "| ✅ Done |", "| 核心 |",
    "| 3月1日 |", "| データベース |", "| Redis缓存 |". Words, "| Use Postgres |",
    or a phrase of a script written without spaces, "| 禁止推送 |",
    "| 使用Postgres数据库 |", make the row a statement the path is the source of."""
    # marks beside the key (| ✅ Done |, | 🔴 P1 |) leave it one word
    words = [word for word in _BREAK.sub(" ", cell).split() if any(ch.isalnum() for ch in word)]
    if not words:
        return True
    if len(words) > 1:
        return False
    cell = words[0]
    unspaced = _UNSPACED_SCRIPT.findall(cell)
    if not unspaced:
        return True
    # no spaces to tell a word by: a katakana word, or up to three other such characters (高, 核心, 已完成)
    # with digits (3月1日), is a key; four already make a phrase (禁止推送)
    if _KATAKANA_WORD.fullmatch(cell):
        return True
    if not any(ch.isascii() and ch.isalpha() for ch in cell):
        return len(unspaced) <= 3
    # a Latin name with such a key after it names a thing (Redis缓存, Git運用, Redisキャッシュ); one
    # after the characters is a verb's object (使用Redis, 放弃Redis缓存), a particle makes a phrase (Redisを使う)
    name = _LATIN_NAME.match(cell)
    key = cell[name.end():] if name else ""
    if not _UNSPACED_KEY.fullmatch(key) or _PARTICLE.search(key):
        return False
    return len(key) <= 3 or _KATAKANA_WORD.fullmatch(key) is not None


_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_KATAKANA_WORD = re.compile(f"[{KATAKANA}]+")
_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9._+#-]*")
_UNSPACED_KEY = re.compile(f"[{UNSPACED}]+")
_PARTICLE = re.compile(f"[{HIRAGANA}]")

"""Inline suppression: ``<!-- memlint-disable ... -->`` comments in a file.

- ``<!-- memlint-disable-file [RULES] -->``: the whole file
- ``<!-- memlint-disable [RULES] -->`` ... ``<!-- memlint-enable [RULES] -->``: a range
- ``<!-- memlint-disable-next-line [RULES] -->``, ``<!-- memlint-disable-line [RULES] -->``

RULES are codes or names separated by spaces or commas; none means all. A
word that names no rule (``orphn``, ``MEM999``) suppresses nothing; it is
kept in ``Suppressions.unknown`` so the user can be told.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

# The rule list never holds '<' or '>', so an unclosed directive is scanned
# only up to the next tag, not to the end of the file for each one.
_DIRECTIVE = re.compile(  # the kind ends at a space or the comment's end: `disable-next-lines` is no `disable`
    r"<!--\s*memlint-(disable-file|disable-next-line|disable-line|disable|enable)(?=\s|-->)([^<>]*?)-->"
)
# What a directive with a kind memlint does not know looks like (`memlint-disable-nextline`,
# `memlint-disable-file:`): it hides nothing, and the user is told (``Suppressions.misspelt``).
_ANY_DIRECTIVE = re.compile(r"<!--\s*memlint-([^\s<>]*)")
KINDS = ("disable", "enable", "disable-line", "disable-next-line", "disable-file")
_OTHER_KINDS = ("allow-secret",)  # memlint's, read elsewhere (memlint.secrets.ALLOW_COMMENT)
ALL = "*"


@dataclass
class Suppressions:
    file: set[str] = field(default_factory=set)
    lines: dict[int, set[str]] = field(default_factory=dict)
    # (start line, end line or None, rules) ranges
    ranges: list[tuple[int, int | None, set[str]]] = field(default_factory=list)
    # (start line, end line or None, rules turned back on) ranges of a `disable` of every rule
    # in which an `enable X` turned some back on
    all_but: list[tuple[int, int | None, frozenset[str]]] = field(default_factory=list)
    unknown: list[tuple[int, str, str]] = field(default_factory=list)  # (line, directive, word naming no rule)
    misspelt: list[tuple[int, str]] = field(default_factory=list)  # (line, `memlint-...` kind no directive has)

    # rule (or ALL) -> (starts, ends) of the merged ranges that name it, for bisect
    _by_rule: dict[str, tuple[list[int], list[float]]] | None = field(default=None, repr=False, compare=False)

    def hides(self, line: int, keys: set[str]) -> bool:
        if _hit(self.file, keys):
            return True
        if not line:
            return False
        if _hit(self.lines.get(line, set()), keys):
            return True
        for start, end, back_on in self.all_but:
            if start <= line and (end is None or line < end) and not keys & back_on:
                return True
        if not self.ranges:
            return False
        if self._by_rule is None:
            self._by_rule = _merged_by_rule(self.ranges)
        for key in (ALL, *keys):
            spans = self._by_rule.get(key)
            if spans is not None:
                i = bisect_right(spans[0], line) - 1
                if i >= 0 and line < spans[1][i]:
                    return True
        return False


def _merged_by_rule(ranges) -> dict[str, tuple[list[int], list[float]]]:
    """Each rule's ranges merged into sorted, disjoint [start, end) spans: a
    lookup costs a bisect per key, however many directives a file holds."""
    spans: dict[str, list[tuple[int, float]]] = {}
    for start, end, rules in ranges:
        for rule in rules:
            spans.setdefault(rule, []).append((start, float("inf") if end is None else end))
    merged = {}
    for rule, found in spans.items():
        found.sort()
        starts: list[int] = []
        ends: list[float] = []
        for start, end in found:
            if starts and start <= ends[-1]:
                ends[-1] = max(ends[-1], end)
            else:
                starts.append(start)
                ends.append(end)
        merged[rule] = (starts, ends)
    return merged


def _hit(rules: set[str], keys: set[str]) -> bool:
    return ALL in rules or bool(rules & keys)


def _rules(arg: str, unknown: list[str] | None = None) -> set[str]:
    """The rules a directive names, as codes where a code, name or tag names
    rules (so that `enable MEM202` closes `disable broken-link`); other words
    as written, folded, and added to ``unknown``."""
    from memlint.rules import codes_named

    names = {r.strip() for r in re.split(r"[\s,]+", arg) if r.strip()}
    out: set[str] = set()
    for name in sorted(names):
        codes = codes_named(name)
        if not codes and unknown is not None:
            unknown.append(name)
        out |= codes or {name.lower()}
    return out or {ALL}


def parse(text: str) -> Suppressions:
    out = Suppressions()
    if "memlint-" not in text:
        return out
    # rule (or ALL) -> the lines of the ranges open for it. Kept per rule, so
    # that `enable X` in a `disable X, Y` range closes X alone, in time linear
    # in the names written.
    open_starts: dict[str, list[int]] = {}
    # A `disable` of every rule, while open: since when, and the rules an `enable X` turned back on
    every_since: int | None = None
    back_on: set[str] = set()

    def close_every(at: int | None) -> None:
        if every_since is not None:
            if back_on:
                out.all_but.append((every_since, at, frozenset(back_on)))
            else:
                out.ranges.append((every_since, at, {ALL}))
    line, counted = 1, 0
    quoted = None  # code, where a directive is quoted, not given: made on the first directive
    known = set()  # where the directives start
    for m in _DIRECTIVE.finditer(text):
        if quoted is None:
            quoted = _Code(text)
        known.add(m.start())
        if quoted.holds(m.start()):
            continue
        line += text.count("\n", counted, m.start())
        counted = m.start()
        unknown: list[str] = []
        kind, rules = m.group(1), _rules(m.group(2), unknown)
        out.unknown.extend((line, kind, name) for name in unknown)
        if kind == "disable-file":
            out.file |= rules
        elif kind == "disable-line":
            out.lines.setdefault(line, set()).update(rules)
        elif kind == "disable-next-line":
            out.lines.setdefault(line + 1, set()).update(rules)
        elif kind == "disable":
            if ALL in rules:  # every rule off again, those an `enable X` turned back on too
                if every_since is None or back_on:
                    close_every(line)
                    every_since, back_on = line, set()
            else:
                for rule in rules:
                    open_starts.setdefault(rule, []).append(line)
        elif ALL in rules:  # enable naming none: every range closes
            close_every(line)
            every_since, back_on = None, set()
            for rule in list(open_starts):
                out.ranges.extend((start, line, {rule}) for start in open_starts.pop(rule))
        else:  # enable X: closes X's ranges, and turns X back on in a range of every rule
            for rule in rules:
                out.ranges.extend((start, line, {rule}) for start in open_starts.pop(rule, ()))
            if every_since is not None and not rules <= back_on:
                close_every(line)
                every_since, back_on = line, back_on | rules
    for rule, starts in open_starts.items():
        out.ranges.extend((start, None, {rule}) for start in starts)
    close_every(None)
    line, counted = 1, 0
    for m in _ANY_DIRECTIVE.finditer(text):
        if m.start() in known:
            continue
        if quoted is None:
            quoted = _Code(text)
        if quoted.holds(m.start()):
            continue
        if m.group(1) in _OTHER_KINDS:
            continue
        line += text.count("\n", counted, m.start())
        counted = m.start()
        out.misspelt.append((line, m.group(1)))
    return out


class _Code:
    """Fenced code blocks and code spans of a text: a directive written there
    is quoted (a memory about memlint), not meant."""

    def __init__(self, text: str):
        from memlint import markdown

        self.unfenced = markdown.blank_fenced_code(text)
        self.text = text
        # Spans on one line only: a span over a line break may really end at a
        # block boundary (a list item, an HTML comment line, the frontmatter's
        # end), and a directive there is meant.
        self.spans = [(start, end) for start, _, _, end in markdown.code_spans(self.unfenced)
                      if "\n" not in self.unfenced[start:end]] if "`" in text else []
        self.starts = [start for start, _ in self.spans]

    def holds(self, offset: int) -> bool:
        if self.unfenced[offset] != self.text[offset]:
            return True  # blanked: inside a fenced block
        i = bisect_right(self.starts, offset) - 1
        return i >= 0 and offset < self.spans[i][1]

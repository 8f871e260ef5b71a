"""Inline suppression: ``<!-- memlint-disable ... -->`` comments in a file.

- ``<!-- memlint-disable-file [RULES] -->``: the whole file
- ``<!-- memlint-disable [RULES] -->`` ... ``<!-- memlint-enable [RULES] -->``: a range
- ``<!-- memlint-disable-next-line [RULES] -->``, ``<!-- memlint-disable-line [RULES] -->``

RULES are codes or names separated by spaces or commas; none means all.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# The rule list never holds '<' or '>', so an unclosed directive is scanned
# only up to the next tag, not to the end of the file for each one.
_DIRECTIVE = re.compile(
    r"<!--\s*memlint-(disable-file|disable-next-line|disable-line|disable|enable)\b([^<>]*?)-->"
)
ALL = "*"


@dataclass
class Suppressions:
    file: set[str] = field(default_factory=set)
    lines: dict[int, set[str]] = field(default_factory=dict)
    # (start line, end line or None, rules) ranges
    ranges: list[tuple[int, int | None, set[str]]] = field(default_factory=list)

    def hides(self, line: int, keys: set[str]) -> bool:
        if _hit(self.file, keys):
            return True
        if line and _hit(self.lines.get(line, set()), keys):
            return True
        return any(
            start <= line and (end is None or line < end) and _hit(rules, keys) for start, end, rules in self.ranges
        ) if line else False


def _hit(rules: set[str], keys: set[str]) -> bool:
    return ALL in rules or bool(rules & keys)


def _rules(arg: str) -> set[str]:
    names = {r.strip() for r in re.split(r"[\s,]+", arg) if r.strip()}
    return {n.upper() if n.upper().startswith("MEM") else n for n in names} or {ALL}


def parse(text: str) -> Suppressions:
    out = Suppressions()
    if "memlint-" not in text:
        return out
    open_ranges: list[tuple[int, set[str]]] = []
    line, counted = 1, 0
    for m in _DIRECTIVE.finditer(text):
        line += text.count("\n", counted, m.start())
        counted = m.start()
        kind, rules = m.group(1), _rules(m.group(2))
        if kind == "disable-file":
            out.file |= rules
        elif kind == "disable-line":
            out.lines.setdefault(line, set()).update(rules)
        elif kind == "disable-next-line":
            out.lines.setdefault(line + 1, set()).update(rules)
        elif kind == "disable":
            open_ranges.append((line, rules))
        else:  # enable closes the ranges it names (or all)
            still_open = []
            for start, opened in open_ranges:
                if ALL in rules or opened <= rules or ALL not in opened and opened & rules:
                    out.ranges.append((start, line, opened))
                else:
                    still_open.append((start, opened))
            open_ranges = still_open
    out.ranges.extend((start, None, rules) for start, rules in open_ranges)
    return out

"""The one result type every rule yields and every reporter prints."""
from __future__ import annotations

from dataclasses import dataclass, field, fields

SEVERITIES = ("error", "warning")


@dataclass(frozen=True, order=True)
class Finding:
    path: str  # repo-relative POSIX path
    line: int  # 1-based; 0 = the whole file
    column: int  # 1-based; 0 = the whole line
    code: str  # stable rule code, e.g. "MEM101"
    name: str = field(compare=False)  # readable rule name, e.g. "root-budget"
    severity: str = field(compare=False)
    message: str = field(compare=False)

    def to_dict(self) -> dict:
        # By hand: dataclasses.asdict deep-copies every value, which the JSON report paid per finding.
        return {name: getattr(self, name) for name in _FIELDS}

    def __str__(self) -> str:
        column = f"{self.column}:" if self.column else ""  # none on a whole file or line, as the text output writes it
        return f"{self.path}:{self.line}:{column} {self.code} {self.message}"


_FIELDS = tuple(f.name for f in fields(Finding))


def unique_sorted(findings) -> list[Finding]:
    """The findings sorted, each said once: two stores named together that
    overlap (a folder and one inside it), or two links to one file shown at
    the file, give the same finding twice."""
    seen: dict[tuple, Finding] = {}
    for f in findings:
        seen.setdefault((f.path, f.line, f.column, f.code, f.message), f)
    return sorted(seen.values())


@dataclass(frozen=True)
class Problem:
    """What a rule yields: a finding before the linter stamps code, name and severity.

    ``path`` is the repo-relative path the finding belongs to.
    """

    path: str
    line: int
    column: int
    message: str

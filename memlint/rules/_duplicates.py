"""What the duplicate rules (MEM301-303) share: which files they compare,
which of two files is the newer, and which pairs are expected.

A pair is reported once, on the newer file, pointing at the older. Newer
means created later by git (the commit that first added the file); a file
git does not know yet (not committed) is the newest. Two commits made in
the same second are taken in git's order. Without git, or when one commit
added both, the later path is the newer.
"""
from __future__ import annotations

from datetime import datetime
from itertools import islice

from memlint import rules as rule_registry
from memlint.config import glob_matcher
from memlint.lifecycle import declares_memory, retired_statuses, status_of
from memlint.store import MISSING, fingerprint_of

# Generated reports: snapshots a job writes again and again, where near-identical
# copies are the point. `report` must be followed by a number, or end the name,
# so `feedback_always-report-visual-qa.md` stays a memory.
REPORTS = ["**/reports/**", "**/*report[-_][0-9]*.md", "**/*[-_]report.md"]

# Options every duplicate rule takes.
OPTIONS = {
    "include-logs": ((bool,), False),
    "reports": ((list,), REPORTS),
}
GLOB_OPTIONS = ("reports",)  # validated as globs (memlint.config)


def content_memo(store, options):
    """The content task of the rules that compare fingerprints: the
    fingerprint of each body they may compare, computed while the files are
    read (``Store.fingerprints`` then finds it). Not of the root, an index
    by its path or an exempt file, nor of a daily log or a generated report
    unless ``include-logs`` (a rule that does ask for one, its options being
    another rule's, gets it made then). An OpenClaw store is mostly daily
    logs: their fingerprints took 0.12 s of a 0.5 s first run."""
    include_logs = options["include-logs"]
    is_report = glob_matcher(options["reports"])

    def compared_fingerprint(doc):
        role = store.role_by_path(doc.rel)
        if role == "log" and declares_memory(doc):
            role = "memory"  # a dated name, and a memory's frontmatter (as ``Store._assign_roles`` says)
        return fingerprint_of(doc) if is_compared(role, doc.rel, include_logs, is_report) else MISSING

    return "fingerprint", compared_fingerprint


def is_compared(role: str, rel: str, include_logs: bool, is_report) -> bool:
    """Whether the duplicate rules compare a file of this role and path:
    a memory, unless a generated report; daily logs and reports too with
    ``include-logs``."""
    return role == "memory" and (include_logs or not is_report(rel)) or role == "log" and include_logs


def compared(store, options, code: str) -> list:
    """The docs a duplicate rule compares, in path order: memory files, plus
    daily logs and generated reports when ``include-logs`` is set. Retired
    memories are left out when the store's ``retired-exempt-rules`` name the
    rule (by default, tag ``content``): no agent loads them."""
    include_logs = options["include-logs"]
    exempt = store.settings.get("retired-exempt-rules") or ()
    skip_retired = bool(exempt) and rule_registry.matches(rule_registry.get(code), exempt)
    # The three duplicate rules usually compare the same docs (two of them
    # leaving the retired out): made once per store, the retired left out of that.
    made = store.__dict__.setdefault("_compared", {})
    key = (include_logs, tuple(options["reports"]))
    if key not in made:
        made[key] = _compared(store, include_logs, glob_matcher(options["reports"]))
    if (*key, skip_retired) not in made:
        retired = retired_statuses(store.settings)
        made[(*key, skip_retired)] = [doc for doc in made[key] if status_of(doc) not in retired] if skip_retired \
            else made[key]
    return list(made[(*key, skip_retired)])


def _compared(store, include_logs: bool, is_report) -> list:
    out = []
    for rel in sorted(store.docs):
        doc = store.docs[rel]
        if doc.parsed is not None and is_compared(doc.role, rel, include_logs, is_report):
            out.append(doc)
    return out


class Ages:
    """Orders docs oldest first by git creation date, then path."""

    def __init__(self, store):
        self.store = store
        self._created: dict[str, object] = {}  # rel -> its FileDates, or None
        self._ranks: dict[str, int] | None = None

    def _dates(self, doc):
        if doc.rel not in self._created:
            git_dates = self.store.git_dates  # the one judge of which git dates to trust
            self._created[doc.rel] = git_dates.history.dates(git_dates.repo_path(doc)) if git_dates.usable else None
        return self._created[doc.rel]

    def created(self, doc) -> datetime | None:
        """When git first added the file; None without git or before its first commit."""
        found = self._dates(doc)
        return found.created if found else None

    def key(self, doc):
        if not self.store.git_dates.usable:
            return (False, 0.0, 0, doc.path)
        found = self._dates(doc)
        if found is None:  # not in git yet: written after everything committed
            return (True, 0.0, 0, doc.path)
        return (False, found.created.timestamp(), self._rank(found.created_commit), doc.path)

    def _rank(self, commit: str) -> int:
        """A commit's place among the commits made in the same second as
        another that added a file of the store (scripted agents commit each
        memory as they write it), parents first; 0 for the rest."""
        if self._ranks is None:  # kept on the store: the three rules' Ages share one git call
            made = self.store.__dict__
            if "_same_second_order" not in made:
                made["_same_second_order"] = _same_second_order(self.store)
            self._ranks = made["_same_second_order"]
        return self._ranks.get(commit, 0)

    def oldest_first(self, docs) -> list:
        return sorted(docs, key=self.key)

    def why_newer(self, newer, older) -> str:
        """How we know ``newer`` is the newer, for the message."""
        if not self.store.git_dates.usable:
            return "later in path order; no usable git dates"
        new, old = self.created(newer), self.created(older)
        if new is None:
            return "not committed yet" if old is not None else "neither is committed: later in path order"
        if new == old:
            older_commit, newer_commit = self._dates(older).created_commit, self._dates(newer).created_commit
            if older_commit != newer_commit and self._rank(older_commit) != self._rank(newer_commit):
                return f"both added {_when(new, True)}, this one in a later commit"
            return f"both added {_when(new)}: later in path order"
        if new.date() == old.date():
            return f"git added it {_when(new, True)}, the other {_when(old, True)}"
        return f"git added it {_when(new)}, the other {_when(old)}"


def _same_second_order(store) -> dict[str, int]:
    """{commit: its place in git's topological order (parents first)} for
    the commits that added files of the store in a second another such
    commit shares; {} when there are none, or git cannot say."""
    from memlint import gitrun

    by_second: dict[datetime, set[str]] = {}
    for dates in store.history.files.values():
        by_second.setdefault(dates.created, set()).add(dates.created_commit)
    seconds = [second for second, commits in by_second.items() if len(commits) > 1]
    if not seconds:
        return {}
    tied = set().union(*(by_second[second] for second in seconds))
    # Walked back only to just before the first of them (git dates a commit when it is made: not before
    # its author date), not through the whole history.
    since = int(min(seconds).timestamp()) - 1
    try:
        status, out, _ = gitrun.run(store.repo_root, ["rev-list", "--topo-order", "--reverse", f"--since={since}",
                                                      *sorted(tied)])
    except OSError:
        return {}
    if status != 0:
        return {}
    order = [sha for sha in out.decode("ascii", "replace").split() if sha in tied]
    return {sha: place for place, sha in enumerate(order, 1)}


def _when(moment: datetime, with_time: bool = False) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if with_time else moment.date().isoformat()


def supersedes(store, newer: str, older: str) -> bool:
    """Whether ``newer`` supersedes ``older``, directly or through a chain
    (``supersedes`` on one side or ``superseded_by`` on the other)."""
    successors = store.lifecycle.newer  # old -> {newer memory: how we know}
    seen, stack = {older}, [older]
    while stack:
        for nxt in successors.get(stack.pop(), ()):
            if nxt == newer:
                return True
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def related(store, a: str, b: str) -> bool:
    """One of the two supersedes the other: a near-copy is expected there."""
    newer = store.lifecycle.newer
    if not newer:
        return False
    return supersedes(store, a, b) or supersedes(store, b, a)


def relatives(store):
    """A function: a memory's path -> the paths of the memories ``related``
    to it (that it supersedes, or that supersede it, through a chain): what
    ``related`` says of each, found by one walk each way rather than a walk
    for every other member of its group."""
    successors = store.lifecycle.newer  # old -> {newer memory: how we know}
    predecessors: dict[str, set[str]] = {}
    for old, new in successors.items():
        for rel in new:
            predecessors.setdefault(rel, set()).add(old)

    def of(rel: str) -> set[str]:
        found: set[str] = set()
        for edges in (successors, predecessors):
            seen, stack = {rel}, [rel]
            while stack:
                for nxt in edges.get(stack.pop(), ()):
                    found.add(nxt)  # (rel itself too, on a cycle: as ``supersedes`` finds it)
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.append(nxt)
        return found

    return of


SHOWN = 5  # other copies a message names; the rest of a group are counted


def group_findings(ages: Ages, members: list, *, exempt=None):
    """For a group of two or more docs that are copies of one another: each
    member but the oldest, with the oldest older member it is not exempt from
    (``exempt(newer.rel)``: the paths it is exempt from), the first SHOWN of the
    rest of the group (oldest first) and how many more there are. Yields
    (newer, older, others, more). Linear in the group's size, plus the
    exemptions: a group of thousands of copies is a store's template."""
    ordered = ages.oldest_first(members)
    rels = {d.rel for d in ordered} if exempt is not None else set()
    for i in range(1, len(ordered)):
        newer = ordered[i]
        away = (exempt(newer.rel) & rels) - {newer.rel} if exempt is not None else ()
        older = next((o for o in islice(ordered, i) if o.rel not in away), None)
        if older is None:
            continue
        others = []
        for d in ordered:
            if d is not newer and d is not older and d.rel not in away:
                others.append(d)
                if len(others) == SHOWN:
                    break
        yield newer, older, others, len(ordered) - 2 - len(away) - len(others)

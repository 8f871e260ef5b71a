"""Git dates as the rules and ``memlint backfill`` see them.

``memlint.history`` replays the log once; this module decides which of its
dates can be trusted for a given store and run (``Store.git_dates``):

- no git (not a repository, git missing, git failing): every date is
  unknown, and the git rules register one notice on the store saying they
  were skipped; the other rules run;
- a shallow clone: every date is unknown (the oldest fetched commit "adds"
  every file, so created and changed dates would be wrong); MEM403 says so,
  once per store, with the fix;
- a file not committed yet: unknown, except in a staged run (``check
  --staged``, pre-commit): a file being added in this commit is created and
  changed today, and a file whose content this commit changes is changed today.

Dates are the commit's own calendar day (author date by default, store setting
``date-source: committer`` for the committer date), in the time zone the
commit recorded: the day its author saw.
"""
from __future__ import annotations

import os
import re
from contextlib import closing
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from memlint.history import History
    from memlint.store import Doc, Store

STAGED = "staged"  # the commit being made, in place of a sha
_MAX_PATH_ARGS = 200  # beyond this, one pathspec for the store folder, filtered here
_MAX_MOVES = 8  # earlier names followed per file; past that, history's last change stands
# How every patch memlint reads is written: plain, whole lines, no context.
_PATCH_OPTIONS = ["--no-color", "--no-ext-diff", "--no-textconv", "--text", "-U0", "--src-prefix=a/", "--dst-prefix=b/"]
_VERIFIED_MEMO = "verified-changes"  # the last run's content_changes_after in the committed history (store.kept)
_BORN = object()  # a path added among the commits read (``_changes_since``)
_MAX_ENDS = 200  # commits a walk of MEM404's may be cut at (`^sha` arguments); past that, none


@dataclass(frozen=True)
class DocDates:
    created: date | None  # None: unknown
    changed: date | None
    created_commit: str | None = None  # a sha, STAGED, or None
    changed_commit: str | None = None


UNKNOWN = DocDates(None, None)


def git_rule_codes() -> str:
    """"MEM401, MEM403, ..." : the rules tagged ``git``, for notices."""
    from memlint.rules import all_rules

    return ", ".join(r.CODE for r in all_rules() if "git" in getattr(r, "TAGS", ()))


def shown_folder(folder) -> str:
    """A folder as the user would type it: relative to here when below here."""
    try:
        rel = os.path.relpath(folder)
    except ValueError:  # on another drive (Windows): no relative path
        return folder.as_posix()
    return folder.as_posix() if rel.startswith("..") else rel


class GitDates:
    """Trusted git dates for the files of one store."""

    def __init__(self, store: "Store", *, staged: bool | None = None):
        self.store = store
        self.staged = store.staged if staged is None else staged
        self.date_kind = store.settings.get("date-source", "author")

    # -- availability
    @property
    def history(self) -> "History | None":
        return self.store.history

    @property
    def shallow(self) -> bool:
        return self.history is not None and self.history.shallow

    @property
    def usable(self) -> bool:
        """True when git dates can be trusted: a repository with full history."""
        return self.history is not None and not self.history.shallow

    def require(self) -> "History | None":
        """The history for a git rule, or None; with no git at all, registers
        the store's one notice that the git rules were skipped."""
        history = self.history
        if history is None:
            self.store.notice(
                f"{shown_folder(self.store.dir)}: {self.store.history_problem or 'no git history'}: "
                f"the git rules ({git_rule_codes()}) were skipped; the other rules ran"
            )
        return history

    # -- paths
    @cached_property
    def _prefix(self) -> str | None:
        """The store folder relative to the top of the work tree, "" or "dir/"."""
        history = self.history
        if history is None:
            return None
        try:
            rel = self.store.dir.relative_to(history.repo_root).as_posix()
        except ValueError:
            return None
        return "" if rel == "." else rel + "/"

    def repo_path(self, doc: "Doc") -> str:
        """The doc's path relative to the top of the work tree (history's paths)."""
        prefix = self._prefix
        return doc.path if prefix is None else prefix + doc.rel

    # -- dates
    def of(self, doc: "Doc") -> DocDates:
        """Created and last-changed dates of one file, or UNKNOWN parts."""
        if not self.usable:
            return UNKNOWN
        history = self.history
        path = self.repo_path(doc)
        found = history.dates(path)
        today = self.staged_day
        if self.staged and path in history.staged_new and path not in history.staged_renames:
            return DocDates(today, today, STAGED, STAGED)
        if found is None:
            return UNKNOWN
        created, changed = found.created.date(), found.changed.date()
        if self.staged and path in self.staged_changed:
            return DocDates(created, today, found.created_commit, STAGED)
        return DocDates(created, changed, found.created_commit, found.changed_commit)

    @cached_property
    def staged_day(self) -> date:
        """The day the commit being made will carry: the author date git
        exports to its hooks (``GIT_AUTHOR_DATE``: an amend, or a cherry-pick
        finished after a conflict, keeps the original commit's), in its own time zone; else
        today. With ``date-source: committer``, today."""
        if self.date_kind == "author":
            found = author_day(os.environ.get("GIT_AUTHOR_DATE", ""))
            if found is not None:
                return found
        return self.store.today

    def content_changed(self, docs) -> dict[str, date]:
        """{repo path: the day each of ``docs`` last changed in more than its
        date lines}, for those git dates: a commit that only writes dates (as
        ``memlint backfill``'s) is no change, as for MEM404, nor is a move;
        in a staged run, nor is the commit being made where it writes dates
        only (one ``git diff --cached`` of the files it edits). A file never
        changed since it was added needs no patch: its last commit's day.
        One ``git log -p`` of the commits that last changed the others (a file
        renamed since keeps that day: its name there was another), and one of
        the history of those whose last change was only dates; a file a move
        made before that is followed to its older names as MEM404 follows it.
        Kept in the cache for HEAD: a commit's diffs do not change."""
        if not self.usable:
            return {}
        from memlint import history as history_mod

        history = self.history
        key = (history.head, self.date_kind, tuple(self.store.settings.get("date-fields") or ()), self.store.git_replaced)
        kept = self.store.kept("content-changed")
        known = kept[1] if isinstance(kept, tuple) and len(kept) == 2 and kept[0] == key else {}
        last: dict[str, str] = {}  # path -> the commit that last changed it, when not known
        added: dict[str, str] = {}  # and the one that added it
        out: dict[str, date] = {}
        dated = [(self.repo_path(doc), self.of(doc)) for doc in docs]
        dates_only = self._staged_dates_only([path for path, found in dated
                                              if found.changed_commit == STAGED and found.created_commit != STAGED])
        for path, found in dated:
            if path in dates_only:  # the commit being made writes dates only: what HEAD holds says when it changed
                committed = history.dates(path)
                found = DocDates(committed.created.date(), committed.changed.date(), committed.created_commit,
                                 committed.changed_commit)
            if found.changed_commit in (None, STAGED) or found.changed_commit == found.created_commit:
                if found.changed is not None:
                    out[path] = found.changed  # staged: a change being made today; or its birth: no patch to read
                continue
            # Kept with the commits the day was read from: at one HEAD, a rename in the index
            # or a merge being made give a path another history.
            held = known.get(path)
            if isinstance(held, tuple) and held[:2] == (found.changed_commit, found.created_commit):
                out[path] = held[2]
            else:
                last[path], added[path] = found.changed_commit, found.created_commit
        if not last:
            return out
        says_more = _says_more(self.store.settings.get("date-fields") or ())
        fmt = "%H %cd" if self.date_kind == "committer" else "%H %ad"
        log = ["log", "--no-renames", f"--format=%x00{fmt}", "--date=raw", "-p", "--no-color", "--no-ext-diff",
               "--no-textconv", "--text", "-U0", "--src-prefix=a/", "--dst-prefix=b/"]

        moved: set[str] = set()  # born under their name by a move: their history goes on under an older one

        def changes(pending: dict[str, str | None], args: list[str], stdin: bytes | None = None,
                    seen: set[str] | None = None) -> None:
            """Take, for each path of ``pending`` (its commit, or None: any),
            the newest of ``args``'s commits that changed more than dates;
            add to ``seen`` the paths those commits touched."""
            spec = sorted(pending) if len(pending) <= _MAX_PATH_ARGS else self._store_spec()
            for sha, when, patches in _log_commits(history.repo_root, [*log, *args, "--", *spec], stdin=stdin):
                for patch in patches:
                    if patch.path not in pending or pending[patch.path] not in (None, sha):
                        continue
                    if seen is not None:
                        seen.add(patch.path)
                    if patch.born and history.dates(patch.path).created_commit != sha:
                        moved.add(patch.path)  # a move (git mv): no change by itself
                        del pending[patch.path]
                    elif patch.born or says_more(patch):
                        out[patch.path] = when
                        del pending[patch.path]

        pending: dict[str, str | None] = dict(last)
        seen: set[str] = set()
        changes(pending, ["--no-walk=unsorted", "--stdin"], "".join(sha + "\n" for sha in set(last.values())).encode(),
                seen)
        for path in set(pending) - seen:  # renamed since that change (a pure move is no change): its day stands
            out[path] = history.dates(path).changed.date()
            del pending[path]
        if pending:  # their last change wrote dates only: the one before it (on every line of history, as MEM404's)
            changes(dict.fromkeys(pending), ["--no-merges", "--full-history", "HEAD"])
        if moved:  # followed to their older names, as MEM404 follows them
            followed = self.content_changes_after(dict.fromkeys(moved, date.min))
            out.update((path, when) for path, (when, _) in followed.items())
            pending.update((path, None) for path in moved - followed.keys())
        for path in pending:
            out.setdefault(path, history.dates(path).created.date())
        self.store.keep("content-changed", (key, {**known, **{path: (last[path], added[path], out[path])
                                                              for path in last}}))
        return out

    def _staged_dates_only(self, paths: list[str]) -> set[str]:
        """Of ``paths`` (files the index edits, none new there), those whose
        staged change writes date lines only (backfill's, staged): no change
        of what they say, as MEM404 judges the index. One ``git diff --cached``."""
        if not paths:
            return set()
        from memlint import history as history_mod

        wanted = set(paths)
        spec = sorted(wanted) if len(wanted) <= _MAX_PATH_ARGS else self._store_spec()
        _, out, _ = history_mod._run(self.history.repo_root, ["diff", "--cached", "--no-renames", *_PATCH_OPTIONS,
                                                              "--", *spec])
        says_more = _says_more(self.store.settings.get("date-fields") or ())
        patches = [patch for patch in _patches(history_mod._decode(out)) if patch.path in wanted]
        return {patch.path for patch in patches if not patch.born and not says_more(patch)}

    @cached_property
    def first_commits(self) -> frozenset[str]:
        """The commits that first added the store's oldest files (all those
        of the earliest first add, should several share its moment): where
        the store came into git, with whatever dates its memories had."""
        history = self.history
        if history is None:
            return frozenset()
        found = [dates for dates in map(history.dates, map(self.repo_path, self.store.docs.values())) if dates]
        if not found:  # none committed yet: the commit being made, if any, brings the store into git
            return frozenset({STAGED}) if self.staged and history.staged_new else frozenset()
        first = min(dates.created for dates in found)
        return frozenset(dates.created_commit for dates in found if dates.created == first)

    @property
    def staged_changed(self) -> frozenset[str]:
        """Repo paths whose content the index changes against HEAD (edits, renames with edits)."""
        history = self.history
        return history.staged_changed if self.staged and history is not None else frozenset()

    def _store_spec(self) -> list[str]:
        try:
            rel = self.store.dir.relative_to(self.history.repo_root).as_posix()
        except ValueError:
            return []
        return [] if rel in ("", ".") else [rel]

    def _folders_holding(self, paths) -> list[str]:
        """A pathspec for many repo paths: the store's folder, or, for names
        outside it (the old names of a store that was moved), their folders
        (the whole repository when they are many too)."""
        spec = self._store_spec()
        if spec and all(path.startswith(spec[0] + "/") for path in paths):
            return spec
        folders = sorted({path.rpartition("/")[0] for path in paths})
        if "" in folders or len(folders) > _MAX_PATH_ARGS:
            return []
        return [folder for i, folder in enumerate(folders)  # those inside another listed are left out
                if not any(folder.startswith(outer + "/") for outer in folders[:i])]

    # -- what changed after a date
    def content_changes_after(self, wanted: dict[str, date]) -> dict[str, tuple[date, str]]:
        """For each repo path, the newest change made after ``wanted[path]`` that
        touched more than date fields, as (day, commit or STAGED); paths with
        none are left out.

        A commit that only adds or edits date lines (``created:``,
        ``last_verified:``..., a frontmatter fence, blank lines) is how dates
        get written, by hand or by ``memlint backfill``: it is not a change of
        what the memory says. The walk stops at the file's birth (a memory
        added after the date has not changed since). A file moved to its name
        after the date is followed to its earlier names (a pure move is not a
        change; the lines a move edits are judged like any others), on every
        line of history a later merge brought in. Dates are judged here, not
        cut by git (commit dates need not grow along history): one ``git log
        -p`` of every path's whole history (the store's folder, for many
        paths: then cut below the commits that, with all their ancestors, are
        older than the oldest date), and one more per commit that moved such
        files; in a staged run the index counts as a commit made today,
        except in a merge being made (a merge is no change: its branches'
        commits are read instead).
        """
        history = self.history
        if not wanted or not self.usable:
            return {}
        from memlint import history as history_mod

        root = history.repo_root
        says_more = _says_more(self.store.settings.get("date-fields") or ())
        found: dict[str, tuple[date, str]] = {}
        judge = _judge(history, wanted, found, {}, says_more)  # (the index moves nothing: STAGED has no history)
        base = _PATCH_OPTIONS
        paths = sorted(wanted)
        # In a merge being made, the commit being made is a merge: skipped, as
        # merges are once made (a file keeps its branch commits' dates), so the
        # history is read from HEAD and the merged commits, and the index not.
        merging = self.staged and bool(history.merge_heads)
        tips = ["HEAD", *history.merge_heads] if merging else ["HEAD"]
        # A file renamed in the index has its committed history under its old name.
        old_names = {history.staged_renames[p]: p for p in wanted
                     if self.staged and not merging and p in history.staged_renames}
        done: set[str] = set()
        if self.staged and not merging:
            spec = [*paths, *old_names] if len(paths) <= _MAX_PATH_ARGS else self._store_spec()
            if spec and len(paths) > _MAX_PATH_ARGS and len(old_names) <= _MAX_PATH_ARGS:
                spec += old_names  # a move into the store: git pairs it only when it sees the old name
            _, out, _ = history_mod._run(root, ["diff", "--cached", "-M", *base, "--", *spec])
            for patch in _patches(history_mod._decode(out)):
                judge(patch.path, self.staged_day, STAGED, patch, done)
        if history.head is None or done >= wanted.keys():
            return found  # nothing committed yet, or the index settled every path
        if not merging and not old_names:
            found.update(self._committed_changes({path: when for path, when in wanted.items() if path not in done}))
            return found
        # A file the merge takes as one side has it keeps that side's history alone (History.merge_sides)
        groups: dict[tuple[str, ...], dict[str, date]] = {}
        for path, when in wanted.items():
            groups.setdefault(history.merge_sides.get(path, tuple(tips)) if merging else tuple(tips), {})[path] = when
        for group_tips, group in groups.items():
            self._walk_committed(group, found, done, list(group_tips), old_names)
        return found

    def _committed_changes(self, wanted: dict[str, date]) -> dict[str, tuple[date, str]]:
        """``content_changes_after`` in the committed history at HEAD alone,
        built on the last run's answers (``store.kept``) where it can be.

        The newest change after a date is a commit's of the history at HEAD.
        When HEAD only adds commits, none a merge, to the HEAD of the last
        run, those commits are the newest of all (git lists no parent before
        its children), so a path's answer is the first change after its date
        among them, and where none is, the last run's answer for the same
        date. A path added (or moved to its name) in those commits, or whose
        date is not the one the last run was asked about, is walked as
        usual, as is every path after a rewritten history or a merge."""
        history = self.history
        context = (self.date_kind, tuple(self.store.settings.get("date-fields") or ()), self.store.git_replaced)
        kept = self.store.kept(_VERIFIED_MEMO)
        answers: dict[str, tuple[date, str]] = {}
        todo = dict(wanted)
        usable = isinstance(kept, tuple) and len(kept) == 3 and kept[0] == context and isinstance(kept[2], dict)
        if usable:
            newer = self._changes_since(kept[1], todo) if kept[1] != history.head else {}
            if newer is not None:
                earlier = kept[2]
                for path, when in list(todo.items()):
                    hit = newer.get(path)
                    if hit is _BORN:
                        continue  # its history begins (or moves) among the new commits: walked
                    if hit is not None:
                        answers[path] = hit
                    else:
                        held = earlier.get(path)
                        if held is None or held[0] != when.toordinal():
                            continue  # not asked last time, or about another date
                        if held[1] is not None:
                            answers[path] = (date.fromordinal(held[1][0]), held[1][1])
                    del todo[path]
        guessed = self._walk_committed(todo, answers, set(), ["HEAD"], {}) if todo else set()
        memo = {path: (when.toordinal(), (answers[path][0].toordinal(), answers[path][1]) if path in answers else None)
                for path, when in wanted.items() if path not in guessed}
        if usable and kept[1] == history.head:  # what another run (health's own dates) asked at this HEAD holds too
            memo = {**kept[2], **memo}
        if not (usable and kept == (context, history.head, memo)):
            self.store.keep(_VERIFIED_MEMO, (context, history.head, memo))
        return answers

    def _changes_since(self, earlier_head: str, wanted: dict[str, date]) -> dict | None:
        """For the commits from ``earlier_head`` (excluded) to HEAD, when they
        extend it in a line, merges none (else None): {path: the newest of
        them that changed it after its date (day, commit), or _BORN where one
        of them added it} for the paths of ``wanted`` they touched so."""
        from memlint import history as history_mod

        root = self.history.repo_root
        status, out, _ = history_mod._run(root, ["rev-list", "--parents", "--topo-order", "--end-of-options",
                                                 "HEAD", f"^{earlier_head}", "--"], check=False)
        if status:
            return None  # the earlier HEAD is gone (a gc after a rewrite)
        parent_of = {}
        for line in history_mod._decode(out).splitlines():
            sha, *parents = line.split()
            if len(parents) != 1:
                return None  # a merge, or a root: not a line on top of the earlier HEAD
            parent_of[sha] = parents[0]
        commit, line = self.history.head, 0
        while commit in parent_of:
            commit, line = parent_of[commit], line + 1
        if commit != earlier_head or line != len(parent_of):
            return None  # the earlier HEAD is not an ancestor, or not on the line
        if not parent_of:
            return {}
        says_more = _says_more(self.store.settings.get("date-fields") or ())
        fmt = "%H %cd" if self.date_kind == "committer" else "%H %ad"
        spec = sorted(wanted) if len(wanted) <= _MAX_PATH_ARGS else self._folders_holding(wanted)
        status, out, _ = history_mod._run(root, ["log", "--no-renames", "--topo-order", f"--format=%x00{fmt}",
                                                 "--date=raw", "-p", *_PATCH_OPTIONS, "--end-of-options", "HEAD",
                                                 f"^{earlier_head}", "--", *spec], check=False)
        if status:
            return None
        newer: dict = {}
        for sha, when, patches in _commits(history_mod._decode(out)):  # children first
            for patch in patches:
                path = patch.path
                if path not in wanted or path in newer:
                    continue
                if patch.born:
                    newer[path] = _BORN
                elif when > wanted[path] and says_more(patch):
                    newer[path] = (when, sha)
        return newer

    def _walk_committed(self, wanted: dict[str, date], found: dict, done: set[str], tips: list[str],
                        old_names: dict[str, str]) -> set[str]:
        """``content_changes_after``'s walk of the committed history from
        ``tips``, adding to ``found`` for the paths of ``wanted`` not ``done``
        (``old_names``: {a path's name at HEAD: its name in the index}).
        Returns the paths answered with the last change of any kind (moved
        more often, or from further away, than the walk follows): an answer
        that a commit changing only dates moves, unlike the walk's."""
        history = self.history
        guessed: set[str] = set()
        from memlint import history as history_mod

        root = history.repo_root
        says_more = _says_more(self.store.settings.get("date-fields") or ())
        # path -> (the commit that moved it, after its date, to the name being walked; that name)
        moved: dict[str, tuple[str, str]] = {}
        judge = _judge(history, wanted, found, moved, says_more)
        base = _PATCH_OPTIONS
        paths = sorted(wanted)

        # Only commits dated after the oldest date can change anything, but
        # `git log --since` cannot pick them: it reads the committer date and
        # stops at the first commits older than it, hiding newer ones below
        # them (a rebase with --committer-date-is-author-date, `git am`, a
        # wrong clock). The dates are judged here; a walk is cut only below
        # the `ends` of the commit graph, which nothing newer is below.
        oldest = min(wanted.values())
        fmt = "%H %cd" if self.date_kind == "committer" else "%H %ad"
        # children before parents (--date-order): a file's edits before its birth
        log = ["log", "--no-merges", "--full-history", "--date-order", "--no-renames", f"--format=%x00{fmt}",
               "--date=raw", "-p", *base]
        children: dict[str, list[str]] = {}  # commit -> its children (`graph`)
        merges: set[str] = set()
        # The commits where a walk can end, as ``^sha``: those that, with all
        # their ancestors, are dated no later than the oldest date, and have a
        # child (or are a start) that is not. None: not read yet, or too many.
        ends: list[str] | None = None
        read: list[bool] = []

        def graph() -> None:
            """Read the commit graph from ``tips`` once (one ``git log``,
            no diffs): children, merges and ``ends``."""
            nonlocal ends
            if read:
                return
            read.append(True)
            _, out, _ = history_mod._run(root, ["log", "--date-order", f"--format={fmt} %P", "--date=raw",
                                                "--end-of-options", *tips, "--"])
            lines = [line.split() for line in history_mod._decode(out).splitlines()]  # sha, stamp, zone, parents
            _, stamps = history_mod.commit_dates([" ".join(line[:3]) for line in lines])
            newer: dict[str, bool] = {}  # commit -> it or an ancestor is dated after the oldest date
            for (sha, _, _, *parents), when in zip(reversed(lines), reversed(stamps)):  # parents first
                if len(parents) > 1:
                    merges.add(sha)
                newer[sha] = when.date() > oldest or any(newer.get(parent, True) for parent in parents)
                for parent in parents:
                    children.setdefault(parent, []).append(sha)
            found_ends = {parent for sha, _, _, *parents in lines if newer[sha]
                          for parent in parents if newer.get(parent) is False}
            found_ends.update(sha for sha in newer if not newer[sha] and sha not in children)  # a start, all old
            if len(found_ends) <= _MAX_ENDS:  # (else the walks go on to the root)
                ends = [f"^{sha}" for sha in sorted(found_ends)]

        def walk(revisions: list[str], names: dict[str, str], done: set[str], skip: set[str] = frozenset()) -> None:
            """Judge the commits from ``revisions`` back that touched ``names``
            ({name in those commits: path at HEAD}), but those in ``skip``, on
            every line of history (``--full-history``): a merge that kept one
            side's version of a file does not hide the other side's edits,
            and, git simplifying a merge by all the paths named at once, what
            is found for one file must not depend on which others are asked
            about (a run built on the last one's answers asks about fewer).

            One ``git log -p``, cut at the graph's ``ends``; for a few names
            before the graph is read (the first walk), their whole history
            instead (reading the graph costs more than walking on to the
            root, and the patches of a few files are small). For many, the
            store's folder, whose old patches would cost: without ``ends``
            (too many), a first log without patches picks the commits dated
            after the oldest date, and the second reads only those."""
            many = len(names) > _MAX_PATH_ARGS
            spec = self._folders_holding(names) if many else list(names)
            if many:
                graph()
            if ends is not None or not many:
                commits = _log_commits(root, [*log, "--end-of-options", *revisions, *(ends or ()), "--", *spec])
            else:
                _, out, _ = history_mod._run(root, ["log", "--no-merges", "--full-history", "--date-order",
                                                    f"--format={fmt}", "--date=raw", "--end-of-options", *revisions,
                                                    "--", *spec])
                shas, stamps = history_mod.commit_dates(history_mod._decode(out).splitlines())
                picked = [sha for sha, when in zip(shas, stamps) if sha not in skip and when.date() > oldest]
                if not picked:
                    return
                commits = _log_commits(root, [*log, "--no-walk=unsorted", "--stdin", "--", *spec],
                                       stdin="".join(sha + "\n" for sha in picked).encode("ascii"))
            with closing(commits):  # git stopped at once should judge() raise
                for sha, when, patches in commits:
                    if sha in skip:
                        continue
                    for patch in patches:
                        if patch.path in names:
                            judge(names[patch.path], when, sha, patch, done)

        def as_history_has_it(path: str) -> None:
            known = history.dates(path)
            found[path] = (known.changed.date(), known.changed_commit)
            guessed.add(path)

        def descendants(commit: str) -> set[str]:
            """The commits that descend from ``commit`` (no cut by date: a
            child may carry an older date than its parent)."""
            graph()
            later, stack = set(), [commit]
            while stack:
                for child in children.get(stack.pop(), ()):
                    if child not in later:
                        later.add(child)
                        stack.append(child)
            return later

        walk(tips, {**{p: p for p in paths}, **old_names}, done)
        for _ in range(_MAX_MOVES):
            if not moved:
                break
            moves = dict(moved)
            moved.clear()  # (the same dict: judge adds to it)
            sources = self._move_sources(set(moves.values()), base, fmt)
            by_commit: dict[str, dict[str, str]] = {}
            for path, (commit, name) in moves.items():
                source = sources.get((commit, name))
                if source is None:  # not a move git can see (say, from outside the store)
                    as_history_has_it(path)
                    continue
                old, when, patch = source
                if when > wanted[path] and says_more(patch):
                    found[path] = (when, commit)  # moved and edited in one commit
                else:
                    by_commit.setdefault(commit, {})[old] = path
            for commit, names in by_commit.items():
                later = descendants(commit)
                if later & merges:
                    # A line of history merged after the move may have edited the old
                    # name (git carries such an edit into the new one): walk every
                    # line from HEAD but the move and what came after it (where the
                    # old name, if used again, is another file).
                    walk(tips, names, set(), later | {commit})
                else:
                    walk([f"{commit}^"], names, set())
        for path in moved:  # moved more often than followed
            as_history_has_it(path)
        return guessed

    def _move_sources(self, moves: set[tuple[str, str]], base: list[str], fmt: str) -> dict[tuple[str, str], tuple]:
        """{(commit, new path): (old path, day, patch)} for the renames that
        made ``moves`` ((commit, new path) pairs): one ``git log --no-walk``
        of those commits within the store, and, for moves into it from
        another folder (the store itself moved, ``git mv memory
        .claude/memory``), one of the commits that made them, over the whole
        repository."""
        from memlint import history as history_mod

        sources: dict[tuple[str, str], tuple] = {}

        def read(commits: set[str], spec: list[str]) -> None:
            _, out, _ = history_mod._run(self.history.repo_root, [
                "log", "--no-walk=unsorted", "-M", "--diff-filter=R", f"--format=%x00{fmt}", "--date=raw", "-p",
                *base, *sorted(commits), "--", *spec])
            for sha, when, patches in _commits(history_mod._decode(out)):
                for patch in patches:
                    if patch.source is not None and (sha, patch.path) in moves:
                        sources[(sha, patch.path)] = (patch.source, when, patch)

        spec = self._store_spec()
        read({commit for commit, _ in moves}, spec)
        unseen = {commit for commit, path in moves if (commit, path) not in sources}
        if unseen and spec:  # from outside the store: git pairs a rename only when its pathspec holds both names
            read(unseen, [])
        return sources


def _judge(history, wanted: dict[str, date], found: dict, moved: dict, says_more):
    """``judge(path, day, commit, patch, done)`` for the walks of
    ``content_changes_after``: the first change after ``wanted[path]`` that
    says more than dates goes to ``found``; a birth ends the path's walk (to
    ``moved`` when a move after the date made it: its history goes on under
    the old name)."""
    def judge(path: str, when: date, commit: str, patch: "_Patch", done: set[str]) -> None:
        if path in done or path not in wanted or path in found:
            return
        if when <= wanted[path]:
            if patch.born:  # (no cut by date: commit dates need not grow along history)
                done.add(path)  # its birth: what is older at this name was another file
            return  # older than the date: a later commit of this path may still be newer
        if patch.born:
            done.add(path)
            known = history.dates(path) if commit != STAGED else None
            if known is not None and known.created_commit != commit and known.changed.date() > wanted[path]:
                moved[path] = (commit, patch.path)
        elif says_more(patch):
            found[path] = (when, commit)
            done.add(path)
    return judge


def author_day(value: str) -> date | None:
    """The day of a date as git takes it in ``GIT_AUTHOR_DATE`` (``@1700000000
    +0100`` as git exports it to hooks, ISO 8601, RFC 2822), in its own
    time zone; None when it is none of those."""
    from datetime import datetime, timedelta, timezone

    value = value.strip()
    if not value:
        return None  # not set (no hook): email.utils, 5 ms of imports, is not needed
    raw = re.fullmatch(r"@?(\d{9,})\s+([+-])(\d\d)(\d\d)", value)
    if raw:
        offset = timedelta(hours=int(raw.group(3)), minutes=int(raw.group(4))) * (1 if raw.group(2) == "+" else -1)
        try:
            return datetime.fromtimestamp(int(raw.group(1)), timezone(offset)).date()
        except (OverflowError, OSError, ValueError):
            return None
    from email.utils import parsedate_to_datetime

    for parse in (datetime.fromisoformat, parsedate_to_datetime):
        try:
            return parse(value).date()
        except (TypeError, ValueError, IndexError, OverflowError):  # a year or a zone past what a date holds
            continue
    return None


# What follows the NUL that starts a commit of ``_commits``'s logs: its id.
_COMMIT_START = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64}) ")
_COMMIT_START_BYTES = re.compile(rb"\0(?:[0-9a-f]{40}|[0-9a-f]{64}) ")


def _log_commits(root, args: list[str], *, stdin: bytes | None = None):
    """``_commits`` of the ``git log -p`` that ``args`` asks for, taken as git
    writes it, the whole commits of each piece read: a history's patches are
    never held whole (as one string, the store's at 10,000 files and its
    copies peaked 170 MB above the parses). Raises HistoryError, as
    ``history._run`` does, when git fails."""
    from memlint import gitrun
    from memlint import history as history_mod

    try:
        log = gitrun.popen(root, args, stdin=stdin is not None, stderr=True)
    except gitrun.GitMissing:
        raise history_mod.HistoryError("git is not installed or not on PATH") from None
    try:
        errors = gitrun.background(log.stderr.read)  # drained meanwhile: a full pipe would stall git
        if stdin is not None:
            gitrun.background(_write_and_close, log.stdin, stdin)
        pieces: list[bytes] = []
        while chunk := log.stdout.read1(1 << 20):
            cut = _last_commit_start(chunk)  # what is before it is whole commits
            if cut < 0:
                pieces.append(chunk)
                continue
            pieces.append(chunk[:cut])
            yield from _commits(history_mod._decode(b"".join(pieces)))
            pieces = [chunk[cut:]]
        yield from _commits(history_mod._decode(b"".join(pieces)))
        if log.wait():
            raise history_mod.git_failed(root, args, log.returncode, errors().decode("utf-8", "replace"))
    finally:
        history_mod._stop(log)  # read to its end, or left part-way (an error, a caller that stopped)


def _last_commit_start(chunk: bytes) -> int:
    """Where the last commit that starts in ``chunk`` starts (its NUL, then
    its whole id: one cut short is left for the next chunk), or -1."""
    end = len(chunk)
    while (at := chunk.rfind(b"\0", 0, end)) >= 0:
        if _COMMIT_START_BYTES.match(chunk, at):
            return at
        end = at
    return -1


def _write_and_close(stream, data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except OSError:  # git stopped reading: its exit status says why
        pass


def _commits(log: str):
    """(sha, day, patches) of each commit of a ``git log -p`` written with
    ``--format=%x00%H %ad --date=raw``. A NUL not followed by a commit id is
    patch text (a binary file's, written with ``--text``): its commit goes on."""
    from memlint.history import commit_dates

    commits: list[list[str]] = []  # each commit's text, in the pieces the NULs cut it into
    for piece in log.split("\0")[1:]:
        if commits and not _COMMIT_START.match(piece):
            commits[-1].append(piece)
        else:
            commits.append([piece])
    parts = [(cut[0] if len(cut) == 1 else "\0".join(cut)).partition("\n") for cut in commits]
    shas, stamps = commit_dates([header for header, _, _ in parts])
    for sha, when, (_, _, rest) in zip(shas, stamps, parts):
        yield sha, when.date(), _patches(rest)


# A date field's value as dates are written (2026-03-01, with a time and a
# zone, quoted; YAML 1.1's spellings of a timestamp too, as memlint.dates
# reads them: `2026-03-01 10:00:00 -5`), or none: "date: 2026-05-15
# (slipped)" says something more. (Required where it is used: after
# `[ \t]*`, an optional value and another `[ \t]*` would backtrack
# quadratically on a line of spaces.)
_DATE_VALUE = (r"""(?:(["']?)\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]|[ \t]+)\d{1,2}:\d\d(?::\d\d(?:\.\d*)?)?"""
               r"""(?:[ \t]*(?:Z|[+-]\d\d?(?::?\d\d)?))?)?\1|~|null|Null|NULL|''|""|!!null)""")


def _says_more(date_fields) -> "callable":
    """A predicate: does this patch change more than dates? Lines that are
    only a date field, a fence or blank say nothing (``_neutral_line``);
    nor does a line rewritten with only dates added to or dropped from it
    (``{name: x}`` -> ``{name: x, created: 2026-01-10}``, as backfill
    rewrites a flow mapping) or only its spacing changed (a frontmatter
    indented as a whole, made flush)."""
    neutral = _neutral_line(date_fields)
    names = "|".join(re.escape(f) for f in date_fields) or "(?!)"
    pair = re.compile(rf"""(?:, ?)?["']?(?:{names})["']? ?: ?(?:{_DATE_VALUE} ?)?(?=[,}}]|$)""")
    key_line = re.compile(r"""["']?[\w.-]+["']?[ \t]*:(?:[ \t]|$)""")

    def plain(line: str) -> str:
        """The line less its date pairs; a `key:` line also less its indent
        (spacing collapsed first: the pattern meets no run of spaces to
        backtrack over). A list item's indent stays: it nests the item."""
        stripped = line.lstrip()
        if not (stripped.startswith("{") or key_line.match(stripped)):
            return line.rstrip("\r")
        return pair.sub("", " ".join(line.split())).replace("{,", "{").replace("{ ", "{")

    def says_more(patch: "_Patch") -> bool:
        hunks: dict[int, tuple[list[str], list[str]]] = {}
        for added, line, hunk in zip(patch.added, patch.lines, patch.hunks or [0] * len(patch.lines)):
            if not neutral(line):
                hunks.setdefault(hunk, ([], []))[added].append(line)
        # each hunk's removed lines against its added ones, in order: a line moved elsewhere is a change
        return any(list(map(plain, removed)) != list(map(plain, added)) for removed, added in hunks.values())

    return says_more


def _neutral_line(date_fields) -> "callable":
    """A predicate: is this changed line only a date field (with a date or
    no value, and maybe a comment), a fence or blank? A line of the body
    that starts with a field's name and says more ("expires: the promo
    ends with Q1") is a change."""
    names = "|".join(re.escape(f) for f in date_fields) or "(?!)"
    pattern = re.compile(rf"""^\s*(?:["']?(?:{names})["']?\s*:[ \t]*(?:{_DATE_VALUE}[ \t]*)?(?:#.*)?|---\s*|\.\.\.\s*|)\r?$""")
    return lambda line: bool(pattern.match(line))


@dataclass
class _Patch:
    path: str
    born: bool
    lines: list[str]  # added and removed lines, without their +/- sign
    source: str | None = None  # a rename's old path
    added: list[bool] = field(default_factory=list)  # for each of ``lines``: added (True) or removed
    hunks: list[int] = field(default_factory=list)  # for each of ``lines``: the number of its hunk


def _patches(diff: str):
    """The file sections of a unified diff (-U0, a/ b/ prefixes)."""
    from memlint.history import _unquote

    patch: _Patch | None = None
    in_hunk = False
    hunk = 0
    for line in diff.split("\n"):
        if line.startswith("diff --git "):
            if patch is not None:
                yield patch
            patch = _Patch(_path_of_header(line[len("diff --git "):], _unquote), False, [])
            in_hunk = False
        elif patch is None:
            continue
        elif in_hunk:
            if line[:1] in ("+", "-"):
                patch.lines.append(line[1:])
                patch.added.append(line[0] == "+")
                patch.hunks.append(hunk)
            elif line.startswith("@@"):
                hunk += 1
        elif line.startswith("@@"):
            in_hunk = True
            hunk += 1
        elif line.startswith(("new file mode", "deleted file mode")) or line == "--- /dev/null":
            patch.born = True  # a deletion also ends this incarnation of the path
        elif line.startswith("+++ b/") or line.startswith('+++ "b/'):
            # git ends the line with a tab when the name has a space, quoted or not
            patch.path = _path_text(line[4:].rstrip("\t"), _unquote)[2:]
        elif line.startswith("rename to "):
            patch.path = _path_text(line[len("rename to "):], _unquote)
        elif line.startswith("rename from "):
            patch.source = _path_text(line[len("rename from "):], _unquote)
    if patch is not None:
        yield patch


def _path_text(name: str, unquote) -> str:
    """A path as git prints it in a diff header: C-quoted when it has odd characters."""
    return unquote(name) if name.startswith('"') else name


def _path_of_header(rest: str, unquote) -> str:
    """The b/ path of ``a/P b/P`` (the same path twice when renames are off;
    with renames, ``+++`` or ``rename to`` lines correct it)."""
    if rest.startswith('"'):
        end = 1
        while end < len(rest) and rest[end] != '"':
            end += 2 if rest[end] == "\\" else 1
        return unquote(rest[: end + 1])[2:]
    n = (len(rest) - 5) // 2
    return rest[2 : 2 + n]


__all__ = ["DocDates", "GitDates", "STAGED", "UNKNOWN", "git_rule_codes"]

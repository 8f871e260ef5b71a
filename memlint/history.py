"""Git-native file dates from ONE pass over history.

`git log --name-status -M -z` is replayed once, newest to oldest: A births
a path, M/T changes it, R carries its birth date to the new path (and
counts as a change when the content differs), C births the copy, and a path
deleted then re-added is born again.

Merge commits are skipped (`--no-merges`) but every commit reachable from
HEAD is walked, so a file added on a branch keeps that branch commit's date
instead of the merge's; edits made only while resolving a merge conflict are
not counted. Nothing calls git per file and nothing uses --follow (slow, and
it follows copies to the original's birth).
"""
from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterable

from memlint import gitrun

__all__ = [
    "FileDates",
    "History",
    "HistoryError",
    "append_only_violations",
    "NotAWorkTree",
    "load_history",
]

_MAX_PATH_ARGS = 200  # beyond this, use the store's pathspec rather than one argument per path


class HistoryError(Exception):
    """Git is missing, the repository is unreadable, or a git command failed."""


class NotAWorkTree(HistoryError):
    """The folder is in no git work tree git will read (git itself runs)."""


@dataclass(frozen=True, slots=True)
class FileDates:
    created: datetime  # commit that first added the file, following renames back
    changed: datetime  # last commit that changed its content (a pure rename is not a change)
    created_commit: str
    changed_commit: str


@dataclass
class History:
    repo_root: Path  # top of the work tree, resolved
    head: str | None  # None before the first commit
    shallow: bool  # a shallow clone: the oldest visible commit "adds" everything
    files: dict[str, FileDates] = field(default_factory=dict)  # every file at HEAD
    staged_new: frozenset[str] = frozenset()  # added in the index, absent at HEAD: "created today"
    # Staged renames, new path -> path at HEAD; `dates()` follows them.
    staged_renames: dict[str, str] = field(default_factory=dict)
    # Files a staged rename brings into the store's folder from outside it: their dates there.
    staged_moved_in: dict[str, FileDates] = field(default_factory=dict)
    # Paths whose content the index changes against HEAD (edits, renames with edits).
    staged_changed: frozenset[str] = frozenset()
    # A merge being made (MERGE_HEAD): the commits it merges, and the dates
    # the files the index changes against HEAD will have once it is made
    # (merge commits are skipped: a file keeps its branch commits' dates).
    # Those files are then neither new nor changed by the commit being made.
    merge_heads: tuple[str, ...] = ()
    staged_merged: dict[str, FileDates] = field(default_factory=dict)
    # Of those, the files whose staged content is one merged commit's version: the merge, once
    # made, keeps that side's history of them alone (git's log follows only a parent it kept as is).
    merge_sides: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def dates(self, path: str) -> FileDates | None:
        found = self.files.get(path)
        if self.staged_merged:
            found = self.staged_merged.get(path, found)
        if found is None and path in self.staged_renames:
            found = self.files.get(self.staged_renames[path]) or self.staged_moved_in.get(path)
        return found

    def __reduce__(self):
        # Kept by memlint.cache: each commit's sha and date once, and each file
        # as two indexes into them (a third the pickling time of 10,000
        # FileDates with their datetimes, half the loading time). A merge
        # being made is not kept (it is of the index, as the staged fields).
        return _history, (self.repo_root, self.head, self.shallow, *_pack(self.files), self.staged_new,
                          self.staged_renames, self.staged_moved_in, self.staged_changed)


def _pack(files: dict[str, FileDates]) -> tuple[list, list, list, list]:
    """(paths, [(sha, date)] of the commits they name, created and changed indexes into those)."""
    index: dict[str, int] = {}
    commits: list[tuple[str, datetime]] = []
    created, changed = [], []
    for dates in files.values():
        for sha, when, out in ((dates.created_commit, dates.created, created), (dates.changed_commit, dates.changed, changed)):
            i = index.get(sha)
            if i is None:
                i = index[sha] = len(commits)
                commits.append((sha, when))
            out.append(i)
    return list(files), commits, created, changed


def _history(root, head, shallow, paths, commits, created, changed, *staged) -> History:
    made = {}  # one FileDates per (created, changed) pair: files of one commit share it

    def dates(c: int, m: int) -> FileDates:
        found = made.get((c, m))
        if found is None:
            found = made[(c, m)] = FileDates(commits[c][1], commits[m][1], commits[c][0], commits[m][0])
        return found

    return History(root, head, shallow, dict(zip(paths, map(dates, created, changed))), *staged)


# --------------------------------------------------------------------------- git


def _run(root: Path, args: list[str], *, check: bool = True, stdin: bytes | None = None,
         pathspec_magic: bool = False) -> tuple[int, bytes, str]:
    try:
        status, out, err = gitrun.run(root, args, stdin=stdin, pathspec_magic=pathspec_magic)
    except gitrun.GitMissing:
        raise HistoryError("git is not installed or not on PATH") from None
    if check and status:
        raise git_failed(root, args, status, err)
    return status, out, err


def git_failed(root, args: list[str], status: int, stderr: str) -> HistoryError:
    """The error for ``git ARGS`` that exited with ``status``: its own words, where it gave any."""
    why = gitrun.first_error_line(stderr).removeprefix("fatal: ") or f"exit status {status}"
    return HistoryError(f"git {args[0]} failed in {root}: {why}")


def _decode(raw: bytes) -> str:
    # Git paths are bytes; surrogateescape round-trips names that are not UTF-8.
    return raw.decode("utf-8", "surrogateescape")


def _pathspec(root: Path, under: str | Path | None) -> list[str]:
    if under is None:
        return []
    folder = Path(under)
    if folder.is_absolute():
        try:
            folder = folder.resolve().relative_to(root)
        except ValueError:
            raise HistoryError(f"{under}: outside the repository {root}") from None
    rel = folder.as_posix().strip("/")
    return [] if rel in ("", ".") else [rel]


# --------------------------------------------------------------------------- replay


class _Replay:
    """Replays name-status records newest to oldest, in git log's own order.

    (`--reverse` measured 15-20% more git CPU on the synthetic stores.)
    Walking back from HEAD, each file at HEAD is followed
    under the name it had at each point: M sets `changed` if nothing newer
    did, R carries the file to its old name, and A or C is its birth, after
    which older events at that path belong to some other file. D needs
    nothing: a path deleted before a re-add is closed by the re-add.
    An older A at a path an A closed, with no D (nor rename) of it between,
    was on a parallel line of history: the same file added there first
    (both lines added it, a merge joined them), born at that older A.

    Parallel branches: a D seen while the file is still open was on another
    branch and the merge kept the file; an edit to a path that another branch
    renamed (seen before the rename, so under a name no HEAD file has yet) is
    held in `orphans` and carried over when the rename reaches that name.
    """

    def __init__(self, tracked: Iterable[str], *, after: dict[str, list[str]] | None = None) -> None:
        self.commits: list[str] = []  # raw "sha timestamp +zone" headers, newest first
        # [created, changed] commit indexes, and the name the file was born under
        self.files: dict[str, list] = {p: [None, None, None] for p in tracked}
        self.orphans: dict[str, int] = {}  # newest edit of a path no HEAD file has (yet)
        # path -> the record an A closed there, while no D or R of it has been seen
        self.closed: dict[str, list] = {}
        self.gone: set[str] = set()  # paths a D or R has been seen to remove
        # (record, its add, an older add of its path taken for a parallel line's): `_serial_adds_undone`
        self.parallel: list[tuple[list, int, int]] = []
        # id of a record -> the commit (index) of the oldest rename it was followed back through
        self.left: dict[int, int] = {}
        # names a commit deleted while a file at HEAD had them and no newer commit added it there:
        # a merge made it anew (or kept it from a branch that had it): ``_merge_births`` tells which
        self.deleted_open: set[str] = set()
        # {commit: names}: names followed only from the commit before that one
        # on (files that left those names there: `_follow_moves_in`)
        self.after = after or {}
        waiting = {name for names in self.after.values() for name in names}
        # name at the point reached -> the HEAD file's record
        self.names: dict[str, list] = {p: rec for p, rec in self.files.items() if p not in waiting}

    def feed(self, tokens: Iterable[str]) -> None:
        commits, names, orphans, closed, gone = self.commits, self.names, self.orphans, self.closed, self.gone
        c = len(commits) - 1
        it = iter(tokens)
        after = self.after
        for tok in it:
            if tok[:1] == "\n":  # the first status after a header
                tok = tok[1:]
            if len(tok) > 8:  # a header: statuses are at most "R100"
                if after and c >= 0:  # the commit just replayed: names followed from before it on
                    for name in after.get(commits[c].partition(" ")[0], ()):
                        names[name] = self.files[name]
                        orphans.pop(name, None)
                commits.append(tok)
                c += 1
                continue
            if not tok:  # the empty string after the final NUL
                continue
            kind = tok[0]
            if kind == "M" or kind == "T":
                path = next(it)
                rec = names.get(path)
                if rec is None:
                    orphans.setdefault(path, c)
                elif rec[1] is None:
                    rec[1] = c
            elif kind == "A" or kind == "C":
                if kind == "C":
                    next(it)  # the source: a copy does not inherit its birth date
                path = next(it)
                rec = names.pop(path, None)
                orphans.pop(path, None)
                if rec is not None:
                    rec[0], rec[2] = c, path
                    if rec[1] is None:
                        rec[1] = c
                    if kind == "A" and path not in gone:
                        closed[path] = rec
                elif kind == "A":
                    rec = closed.get(path)
                    if rec is not None:  # added on a parallel line too, before: born there
                        self.parallel.append((rec, rec[0], c))
                        rec[0] = c
            elif kind == "R":
                old, new = next(it), next(it)
                rec = names.pop(new, None)
                orphans.pop(new, None)
                closed.pop(old, None)
                if rec is None:  # another file left `old` (a HEAD file renamed from it is still born there)
                    gone.add(old)
                    if closed.pop(new, None) is not None:
                        gone.add(new)
                    continue
                if rec[1] is None and tok != "R100":
                    rec[1] = c  # renamed with edits
                if old not in names:
                    names[old] = rec
                    self.left[id(rec)] = c
                    edited = orphans.pop(old, None)
                    if edited is not None and (rec[1] is None or edited < rec[1]):
                        rec[1] = edited
            elif kind == "D":
                path = next(it)
                if path in names:
                    self.deleted_open.add(path)
                orphans.pop(path, None)
                gone.add(path)
                closed.pop(path, None)
            else:  # U/X/B never appear in log output; skip the path to stay aligned
                next(it)


def commit_dates(headers: list[str]) -> tuple[list[str], list[datetime]]:
    """Split raw "sha timestamp +zone" headers into shas and tz-aware datetimes."""
    zones: dict[str, timezone] = {}
    shas, stamps = [], []
    for header in headers:
        try:
            sha, ts, zone = header.split(" ")
            tz = zones.get(zone)
            if tz is None:
                sign = -1 if zone[0] == "-" else 1
                tz = zones[zone] = timezone(sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5])))
            stamp = datetime.fromtimestamp(int(ts), tz)
        except (ValueError, OverflowError, OSError):
            sha, stamp = header.split(" ", 1)[0], _odd_date(header)
        shas.append(sha)
        stamps.append(stamp)
    return shas, stamps


def _odd_date(header: str) -> datetime:
    """The date of a commit whose raw date Python cannot hold, as git shows
    it where it can: a zone of 24 hours or more is dropped (UTC), a year past
    9999 is the last day of 9999, and a date git could not read is git's own
    stand-in, the start of 1970."""
    parts = header.split(" ")
    try:
        stamp = int(parts[1])
    except (IndexError, ValueError):
        return datetime.fromtimestamp(0, timezone.utc)
    try:
        return datetime.fromtimestamp(stamp, timezone.utc)
    except (ValueError, OverflowError, OSError):
        return datetime.max.replace(tzinfo=timezone.utc) if stamp > 0 else datetime.fromtimestamp(0, timezone.utc)


def _log_args(date_kind: str) -> list[str]:
    fmt = {"author": "%H %ad", "committer": "%H %cd"}.get(date_kind)
    if fmt is None:
        raise ValueError(f"date_kind must be 'author' or 'committer', not {date_kind!r}")
    # --date-order: children always before parents, even with skewed clocks.
    # --root: a user's log.showRoot=false would hide the first commit's files.
    return ["log", "--date-order", "--root", "--name-status", "-M", "-z",
            "--no-color", f"--format={fmt}", "--date=raw"]


def _full_log_args(log_args: list[str], head: str, spec: list[str]) -> list[str]:
    """The log of a full replay at commit `head`, of the folders `spec`."""
    return [*log_args, "--no-merges", head, "--", *spec]


def _run_log(root, args: list[str]) -> str:
    # Through a pipe, not a temp file: `check` writes nothing, anywhere (a
    # read-only machine, a full /tmp). git flushes per commit, so the reader
    # wakes often; on 10k files / 5k commits that costs ~50 ms of CPU.
    return _decode(_run(root, args)[1])


def _feed_log(root, args: list[str], make_replay, spec: list[str],
              started: subprocess.Popen | None = None) -> tuple["_Replay", set[str] | None]:
    """(the replay `make_replay()` gives, fed the log `args` as git writes
    it: the replay keeps pace with git instead of starting when git is done;
    the commits of the log that deleted a file outside the folders `spec`).

    The second, for a log of folders, says where a move in may come from
    (`_follow_moves_in`): each commit goes to `git diff-tree` as the replay
    meets it, so that git works while the log does. None when that could
    not be asked. `started`: that log, already running (`start_log`)."""
    try:
        log = started or gitrun.popen(root, args, stderr=True)
    except gitrun.GitMissing:
        raise HistoryError("git is not installed or not on PATH") from None
    errors = gitrun.background(log.stderr.read)  # drained meanwhile: a full pipe would stall git
    differ = listed = None
    if spec:
        excluded = [f":(exclude){folder}" for folder in spec]
        try:
            differ = gitrun.popen(root, ["diff-tree", "--stdin", "-r", "-z", "--name-only", "--diff-filter=D", "--",
                                         ".", *excluded], stdin=True, pathspec_magic=True)
        except OSError:
            differ = None
        else:
            listed = gitrun.background(differ.stdout.read)
    sent = 0

    def send() -> None:
        """The commits replayed since the last call, to diff-tree."""
        nonlocal differ, sent
        if differ is not None and len(commits) > sent:
            try:
                differ.stdin.write("".join(h.partition(" ")[0] + "\n" for h in commits[sent:]).encode("ascii"))
                differ.stdin.flush()
            except OSError:  # it stopped: the commits that matter are asked about later
                _stop(differ)
                differ = None
            sent = len(commits)

    def tokens():
        read, rest = log.stdout.read1, b""
        while chunk := read(1 << 20):
            head, sep, rest = (rest + chunk).rpartition(b"\0")
            if sep:
                yield from _decode(head).split("\0")
            send()  # (the tokens above are replayed by now)
        if rest:
            yield rest.decode("utf-8", "surrogateescape")

    def failed() -> HistoryError | None:
        log.stdout.read()
        err = errors().decode("utf-8", "replace")
        if not log.wait():
            return None
        return git_failed(root, args, log.returncode, err)

    try:
        try:
            replay = make_replay()
        except HistoryError as exc:  # the log's own failure says more (a damaged repository: which object)
            raise failed() or exc from None
        commits = replay.commits
        try:
            replay.feed(tokens())
        except Exception:  # output cut short (git killed part-way): git's failure is the one to report
            problem = failed()
            if problem is None:
                raise
            raise problem from None
        problem = failed()
        if problem is not None:
            raise problem
        send()
        if differ is None:
            return replay, None
        try:
            differ.stdin.close()
        except OSError:
            pass
        out = listed()
        if differ.wait():
            return replay, None
        return replay, {h.partition(" ")[0] for h in commits}.intersection(_decode(out).split("\0"))
    finally:
        _stop(log)
        if differ is not None:
            _stop(differ)


def _stop(proc) -> None:
    """End a git process that may still run (an error cut its reading short)."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass


class EarlyLog:
    """The `git log` of a full replay, started before memlint knows it needs
    one (`start_log`): git works on the idle core while memlint is still
    loading its rules, and its output waits in a widened pipe. No thread
    reads it, so a fork is still allowed. `load_history` takes it or ends it."""

    def __init__(self, root: Path, args: list[str], proc: subprocess.Popen):
        self.root, self.args, self.proc = root, args, proc
        gitrun.ALONGSIDE.add(proc.pid)

    def take(self, root: Path, args: list[str]) -> subprocess.Popen | None:
        """The running log, when it is the one asked for (else it is ended)."""
        if self.proc is None or (root, args) != (self.root, self.args):
            self.end()
            return None
        proc, self.proc = self.proc, None
        gitrun.ALONGSIDE.discard(proc.pid)
        return proc

    def end(self) -> None:
        """Stop the log, unless taken (a rule that reads dates may be off,
        or the check's findings kept)."""
        proc, self.proc = self.proc, None
        if proc is not None:
            gitrun.ALONGSIDE.discard(proc.pid)
            _stop(proc)


def start_log(repo_root: Path, head: str, *, date_kind: str = "author",
              under: str | Path | None = None) -> EarlyLog | None:
    """Start the log a full replay of `under` at commit `head` reads
    (`EarlyLog`); None when it cannot start (`load_history` then says why).
    A commit made meanwhile moves HEAD: the replay then runs its own log."""
    try:
        root = Path(repo_root).resolve()
        args = _full_log_args(_log_args(date_kind), head, _pathspec(root, under))
        proc = gitrun.popen(root, args, stderr=True)
    except (HistoryError, ValueError, OSError):
        return None
    try:
        import fcntl

        fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, _EARLY_PIPE)
    except (ImportError, AttributeError, OSError):
        pass  # the default size: git waits sooner for the reader
    return EarlyLog(root, args, proc)


_EARLY_PIPE = 1 << 20  # the log of 1,000 files and commits (300 KB) fits whole; Linux's limit for a user


# --------------------------------------------------------------------------- load


def load_history(repo_root: Path, *, date_kind: str = "author", under: str | Path | None = None,
                 previous: History | None = None, earlier: dict | None = None,
                 early: "EarlyLog | None" = None) -> History:
    """Creation and last-change dates of every file tracked at HEAD, in one pass.

    `repo_root` may be any folder of the work tree; paths are relative to its
    top. `under` limits the log to one repo-relative folder (the store); a
    file moved into it from outside is followed back (`_follow_moves_in`).

    `previous` is a History this function returned earlier for the same
    repository, `date_kind` and `under` (memlint.cache keeps one): at the same
    HEAD its dates are reused; when every commit since its HEAD descends from
    it, only those commits are replayed (see `_extend`). Otherwise, and for a
    shallow clone, everything is.

    `earlier` (instead of `previous`) is {commit: function returning the
    History at that commit}, newest first: the one at HEAD, else the newest
    that is an ancestor of HEAD, is loaded and used as `previous` (a commit
    reset away or a branch switched from leaves the others usable).

    `early`: the log of a full replay, started ahead (`start_log`); used if
    a full replay it is, else ended.
    """
    try:
        return _load(repo_root, date_kind, under, previous, earlier, early)
    finally:
        if early is not None:
            early.end()


def _load(repo_root, date_kind, under, previous, earlier, early) -> History:
    root = Path(repo_root).resolve()
    log_args = _log_args(date_kind)
    if not root.is_dir():
        raise HistoryError(f"{root}: not a directory")
    status, out, err = _run(root, ["rev-parse", "--is-shallow-repository", "--show-toplevel", "--verify", "-q", "HEAD"],
                            check=False)
    # "true|false\n<top>\n<HEAD's id>\n" (no id without a commit). The top
    # folder's path may hold newlines itself: it is what lies between the
    # first line and the id, not the second line.
    shallow_word, _, rest = _decode(out).partition("\n")
    rest = rest.removesuffix("\n")
    if status == 0:
        top_text, _, head = rest.rpartition("\n")
    else:
        top_text, head = rest, None
    if shallow_word not in ("true", "false") or not top_text or (status == 0 and not head):
        raise NotAWorkTree(gitrun.first_error_line(err) or f"{root}: not a git work tree")
    shallow = shallow_word == "true"
    top = Path(top_text).resolve()
    if top != root:
        root = top
    spec = _pathspec(root, under)

    staged = gitrun.background(_staged, root, spec, log_args)
    if head is None:
        return History(root, None, shallow, {}, *staged())
    # HEAD's commit, not HEAD, from here on: a commit made meanwhile must not mix in.
    listing = ["ls-tree", "-r", "-z", "--name-only", "--full-tree", head, "--", *spec]
    listed = None
    since = None  # the commits since the kept replay picked: rev-list, started while it loads
    if previous is None and earlier and not shallow:
        if head not in earlier:  # a replay must be extended or made: the listing is needed either way
            listed = gitrun.background(_run, root, listing)
        previous, since = _pick_earlier(root, head, earlier)
    resumable = (previous is not None and previous.head is not None and not shallow and not previous.shallow
                 and previous.repo_root == root)
    if resumable and previous.head == head:  # (then no listing was started)
        return History(root, head, shallow, previous.files, *staged())
    if listed is None:
        listed = gitrun.background(_run, root, listing)
    if resumable:
        files = _extend(root, previous, head, spec, log_args, listed, since)
        if files is not None:
            return History(root, head, shallow, files, *staged())
    elif since is not None:
        since()
    args = _full_log_args(log_args, head, spec)
    replay, deleted = _feed_log(root, args, lambda: _Replay(_decode(listed()[1]).split("\0")[:-1]), spec,
                                started=early.take(root, args) if early is not None else None)

    files = _replayed_dates(root, replay, [head], spec, log_args, deleted=deleted)
    return History(root, head, shallow, files, *staged())


def _replayed_dates(root, replay: "_Replay", revisions: list[str], spec: list[str], log_args: list[str], *,
                    deleted: set[str] | None = None, moves_from: list[str] | None = None) -> dict[str, FileDates]:
    """The dates of the files of ``replay`` (a ``--no-merges`` log of
    ``revisions``), with those only a merge made, those a merge renamed and
    those moved into the folders ``spec`` followed (``moves_from``: where
    the history of a move's old name is read; default HEAD)."""
    made = _merge_births(root, replay, revisions, spec, log_args)
    files, born_as = _dates_of(replay, root)
    _follow_moves_in(root, spec, files, born_as, log_args, deleted=deleted, revisions=moves_from)
    _follow_renames_by_merges(root, spec, files, made, log_args)
    return files


def _merge_births(root, replay: "_Replay", revisions: list[str], spec: list[str],
                  log_args: list[str]) -> dict[str, tuple[str, str]]:
    """Date the files `replay` (of a ``--no-merges`` log of `revisions`) saw
    no commit add: only a merge brought these (say, added while resolving a
    conflict, or by `git subtree`). One more log, over those paths, with
    merges as combined diffs (`-c`): a merge adds a path only when none of
    its parents has it, so a later merge of a branch that never had the file
    does not add it again (a diff against each parent would; and
    ``--diff-merges=first-parent``, git 2.31, would still take a merge into
    a branch that lacked the file for its birth). (Too many paths for a
    command line: the folders `spec`, same answer.) A file renamed since is
    looked for under the name the replay followed it back to, from the
    commit before the rename on (a merge made that name). A file deleted
    after its birth with no commit adding it again is looked for too: a
    merge made it anew (added while resolving it) when the log of merges
    finds it born later than the replay did; else the merge kept it from a
    branch that never deleted it, and it keeps the replay's dates. Returns
    {path: (the commit that made it, the name it made)} for those."""
    missing = {id(record): p for p, record in replay.files.items() if record[0] is None}
    # (the deleted under their name at HEAD only: one renamed since keeps the replay's dates)
    reborn = {p for p in replay.deleted_open if p in replay.files and replay.files[p][0] is not None}
    missing.update((id(replay.files[p]), p) for p in reborn)
    if not missing:
        return {}
    # name looked for -> the file's path: the name each record reached walking back (its own, unless renamed)
    wanted = {name: missing[id(rec)] for name, rec in replay.names.items() if id(rec) in missing}
    if not replay.after:  # (a replay of old names: one never followed has nothing to look for)
        wanted.update((p, p) for p in set(missing.values()) - set(wanted.values()))
    # A renamed file's old name from the commit before its oldest rename on; an old name's own
    # from where the replay began it; a name at HEAD from the top.
    began = {name: commit for commit, names in replay.after.items() for name in names}
    after: dict[str, list[str]] = {}
    for name, p in wanted.items():
        record = replay.files[p]
        held = replay.names.get(name) is record and id(record) in replay.left  # followed back through renames
        commit = replay.commits[replay.left[id(record)]].partition(" ")[0] if held else began.get(name)
        if commit is not None:
            after.setdefault(commit, []).append(name)
    replayed = {header.partition(" ")[0] for header in replay.commits} if reborn else set()  # (no merges)
    made = {}
    while wanted:
        extra = _births(root, sorted(wanted), after, revisions, spec, log_args)
        offset = len(replay.commits)
        replay.commits += extra.commits
        for name, (created, changed, born_as) in extra.files.items():
            if created is not None:
                p = wanted[name]
                record = replay.files[p]
                if p in reborn and extra.commits[created].partition(" ")[0] in replayed:
                    continue  # born where the replay found it: kept by the merge, not made anew
                # The replay's last change, where it saw one of this file: the log of these names alone
                # follows one side of a merge that took the file as one side had it.
                ours = record[1] is not None and p not in replay.deleted_open  # (a deleted one: perhaps another file's)
                changed = record[1] if ours else changed + offset
                replay.files[p] = [created + offset, changed, born_as]
                made[p] = (extra.commits[created].partition(" ")[0], born_as)
        # An old name the log never reached from its rename (git's history simplification can leave
        # that commit out when the merge after it took the file from the other side): at its path
        # at HEAD, from the top, as before the rename was followed.
        shown = {header.partition(" ")[0] for header in extra.commits}
        unreached = {name for commit, names in after.items() if commit not in shown for name in names}
        wanted = {p: p for name, p in wanted.items() if name != p and name in unreached and replay.files[p][0] is None}
        after = {}
    return made


def _births(root, names: list[str], after: dict[str, list[str]], revisions: list[str], spec: list[str],
            log_args: list[str]) -> "_Replay":
    """The replay of ``names`` (each from its ``after`` commit on) in the log with merges as combined
    diffs (``_merge_births``); a change a merge made to a file it did not make is none (a merge's
    edits are not counted, as the log without merges leaves them out)."""
    paths = names if len(names) <= _MAX_PATH_ARGS else spec
    extra = _Replay(names, after=after)
    extra.feed(_combined(_run_log(root, [*log_args, "-c", "--no-renames", *revisions, "--", *paths]).split("\0")))
    return extra


def _follow_renames_by_merges(root, spec: list[str], files: dict[str, FileDates], made: dict[str, tuple[str, str]],
                              log_args: list[str]) -> None:
    """A file a merge made (``_merge_births``) may be one the merge renamed
    (a `git mv` while resolving it, which ``check --staged`` followed as
    any staged rename): the merge's diff against its first parent pairs it
    with its old name, whose dates it keeps, as a move keeps them
    (``_follow_moves_in``). One diff a merge, and only for those."""
    by_merge: dict[str, dict[str, str]] = {}  # merge -> {name it made: the file's path at HEAD}
    for path, (commit, name) in made.items():
        by_merge.setdefault(commit, {})[name] = path
    for commit, paths in sorted(by_merge.items()):
        status, out, _ = _run(root, ["diff-tree", "-r", "-z", "-M", "--name-status", "--no-color",
                                     f"{commit}^1", commit, "--", *spec], check=False)
        if status:
            continue  # no first parent (a root commit): nothing renamed
        renamed: dict[str, tuple[str, bool]] = {}  # path -> (its old name, content unchanged)
        tokens = iter(_decode(out).split("\0"))
        for tok in tokens:
            if tok[:1] in ("R", "C"):
                old, new = next(tokens), next(tokens)
                if tok[0] == "R" and new in paths:
                    renamed[paths[new]] = (old, tok == "R100")
            elif tok:
                next(tokens, None)  # the path of an A, D, M or T
        if not renamed:
            continue
        before = _old_names_dates(root, sorted({old for old, _ in renamed.values()}), log_args, 1,
                                  revisions=[f"{commit}^1"])
        for path, (old, unchanged) in renamed.items():
            earlier, now = before.get(old), files.get(path)
            if earlier is None or now is None:
                continue
            if unchanged and now.changed_commit == commit:  # a pure rename is no change
                files[path] = earlier
            else:
                files[path] = FileDates(earlier.created, now.changed, earlier.created_commit, now.changed_commit)


def _combined(tokens: Iterable[str]):
    """The tokens of a ``-c --no-renames --name-status -z`` log as the replay
    reads them: a merge's combined status, one letter per parent, as one
    letter: A when the path is new to every parent (the merge made it), D
    when it is gone from every one. Every status is followed by one path.
    Any other (it came from a parent and the merge changed it) is left out
    with its path: a merge's edits are not changes, as in the log without
    merges, which an extended replay (``_extend``) reads."""
    it = iter(tokens)
    for tok in it:
        status = tok[1:] if tok[:1] == "\n" else tok
        if not status or " " in status:  # the empty string after a merge's header or at the end; a header
            yield tok  # (a status is a letter a parent: an octopus merge's may be longer than any header test)
            continue
        if len(status) > 1:
            if status.strip("A") and status.strip("D"):
                next(it, "")
                continue
            tok = "A" if not status.strip("A") else "D"
        yield tok
        yield next(it, "")


def _dates_of(replay: "_Replay", root) -> tuple[dict[str, FileDates], dict[str, str]]:
    """(the dates of every file the replay saw born, {its path: the name it was born under})."""
    if replay.parallel:
        _serial_adds_undone(root, replay)
    shas, stamps = commit_dates(replay.commits)
    files, born_as = {}, {}
    for path, (c, m, name) in replay.files.items():
        if c is not None:
            files[path] = FileDates(stamps[c], stamps[m], shas[c], shas[m])
            born_as[path] = name
    return files, born_as


def _serial_adds_undone(root, replay: "_Replay") -> None:
    """An older add of a path the replay took for a parallel line's is no
    such thing when it is an ancestor of the newer add: the path was added,
    then removed by a merge (which a ``--no-merges`` log does not show, so no
    D closed it), and added anew; the file is born at the newer add. (A
    newer add's parent lacks the path, and an ancestor added it: it went in
    between.) One ``merge-base --is-ancestor`` each: rare, and asked only
    then, so a replay of only the newer commits dates the file the same."""
    shas = [header.partition(" ")[0] for header in replay.commits]
    settled: set[int] = set()  # records born at a newer add: the older adds of the path are others'
    for record, newer, older in replay.parallel:  # newest first, a record's adds one after the other
        if id(record) in settled:
            continue
        status, _, _ = _run(root, ["merge-base", "--is-ancestor", shas[older], shas[newer]], check=False)
        if status == 0:
            record[0] = newer
            settled.add(id(record))


def _pick_earlier(root, head: str, earlier: dict) -> tuple[History | None, object]:
    """(the History of `earlier` at `head`, else at its newest ancestor, else
    None; with an ancestor's, a function giving `_since` from it to `head`,
    started while it loads). The ancestry of the other kept commits is asked
    of git at once, and only when the one at `head` is not kept, or unreadable."""
    if head in earlier:
        found = earlier[head]()
        if isinstance(found, History) and found.head == head:
            return found, None
    others = [commit for commit in earlier if commit != head]
    procs = []
    try:
        try:
            for commit in others:
                procs.append(gitrun.popen(root, ["merge-base", "--is-ancestor", commit, head]))
        except OSError as exc:
            raise HistoryError(f"git merge-base failed in {root}: {exc}") from None
        for commit, proc in zip(others, procs):
            proc.communicate()
            if proc.returncode == 0:
                since = gitrun.background(_since, root, commit, head)
                found = earlier[commit]()
                if isinstance(found, History) and found.head == commit:
                    return found, since
                since()
        return None, None
    finally:
        for proc in procs:
            if proc.returncode is None:  # not needed: an answer came from a newer commit
                proc.kill()
                proc.communicate()


def _since(root, base: str, head: str) -> tuple[int, bytes, str]:
    """``git rev-list --parents base..head``: the commits `_extend` replays."""
    return _run(root, ["rev-list", "--parents", f"{base}..{head}", "--"], check=False)


def _extend(root, previous: History, head: str, spec: list[str], log_args: list[str], listed,
            since=None) -> dict[str, FileDates] | None:
    """The dates at `head` from those at `previous.head` and the commits since,
    or None when they cannot be had that way.

    Only when every new commit descends from `previous.head` (each parent is
    a new commit or that one): git then lists the new commits before every
    older one, so the full replay would feed exactly these first, and then go
    on from the files as they were at `previous.head`, whose dates `previous`
    holds. A branch forked earlier and merged since, a rewritten history, or
    a file only a merge brought in: None (replay everything).
    """
    status, out, _ = since() if since is not None else _since(root, previous.head, head)
    if status:
        return None
    new = dict((line.split(" ", 1) + [""])[:2] for line in _decode(out).splitlines())
    if not new or any(not parents or any(p not in new and p != previous.head for p in parents.split())
                      for parents in new.values()):
        return None  # not all descend from it (another root, or a branch forked before it)
    # Which new commits deleted a file outside the folders (where a move in
    # comes from): asked alongside the log, for `_follow_moves_in`.
    deleted = gitrun.background(_deleted_outside, root, spec, list(new)) if spec else set
    replay = _Replay(_decode(listed()[1]).split("\0")[:-1])
    replay.feed(_run_log(root, [*log_args, "--no-merges", f"{previous.head}..{head}", "--", *spec]).split("\0"))
    if replay.deleted_open:
        return None  # a file deleted while at HEAD: a merge made it anew, or kept it (`_merge_births`)
    shas, stamps = commit_dates(replay.commits)
    boundary = {id(record): name for name, record in replay.names.items()}  # open records: their name then
    files, born_as = _dates_of(replay, root)  # the files born in the new commits
    for path, record in replay.files.items():
        if path in files:
            continue
        m = record[1]
        before = previous.files.get(boundary.get(id(record)))
        if before is None:
            deleted()  # its thread ends here
            return None
        files[path] = before if m is None else FileDates(before.created, stamps[m], before.created_commit, shas[m])
    _follow_moves_in(root, spec, files, born_as, log_args, deleted=deleted())
    return files


_MOVE_DEPTH = 8  # moves from folder to folder followed back, at most (each costs a git call)


def _deleted_outside(root, spec: list[str], commits: list[str]) -> set[str]:
    """Those of `commits` that deleted a file outside the folders `spec`."""
    # Only the commits asked about are diffed, and only outside the folders.
    excluded = [f":(exclude){folder}" for folder in spec]
    feed = "".join(commit + "\n" for commit in commits).encode("ascii")
    _, out, _ = _run(root, ["diff-tree", "--stdin", "-r", "-z", "--name-only", "--diff-filter=D", "--", ".", *excluded],
                     stdin=feed, pathspec_magic=True)
    return set(commits).intersection(_decode(out).split("\0"))


def _follow_moves_in(root, spec: list[str], files: dict[str, FileDates], born_as: dict[str, str],
                     log_args: list[str], depth: int = 0, deleted: set[str] | None = None,
                     revisions: list[str] | None = None) -> None:
    """Follow back the files that came into the store's folder by a move.

    The log is limited to the store's folder, so git's rename detection
    never sees a file's old name outside it: a file moved in (the whole store
    renamed, `memory/` to `.claude/memory/`) looks born at the move.
    `born_as` names the files of `files` whose birth the caller saw, by the
    name each was born under. Their birth commits that also deleted
    something outside the folders are diffed whole, with rename detection;
    a file renamed into the folders there takes its old name's creation
    date, and its last change too when the move changed nothing else
    (R100). The old name's history is read, from the commit before the move,
    in the old name's folder (renames there followed), and in turn followed
    the same way, `_MOVE_DEPTH` folders back at most.

    `deleted`: the commits known to have deleted a file outside the folders
    (`_feed_log`); None: the birth commits are asked about. `revisions`:
    where the history read starts (default HEAD)."""
    if not spec or not born_as or depth >= _MOVE_DEPTH:
        return
    birth = {(files[path].created_commit, name): path for path, name in born_as.items()}
    born = {commit for commit, _ in birth}
    if deleted is None:
        deleted = _deleted_outside(root, spec, sorted(born)) if born else set()
    deleted_outside = born.intersection(deleted)
    if not deleted_outside:
        return
    inside = tuple(folder.rstrip("/") + "/" for folder in spec)
    feed = "".join(commit + "\n" for commit in sorted(deleted_outside)).encode("ascii")
    _, out, _ = _run(root, ["diff-tree", "--stdin", "-r", "-z", "-M", "--name-status", "--no-color"], stdin=feed)
    moved: dict[str, dict[str, tuple[str, bool]]] = {}  # commit -> {path now: (old path, content unchanged)}
    commit = None
    tokens = iter(_decode(out).split("\0"))
    for tok in tokens:
        if tok in deleted_outside:
            commit = tok
        elif tok[:1] in ("R", "C"):
            old, new = next(tokens), next(tokens)
            path = birth.get((commit, new))
            if tok[0] == "R" and path is not None and not old.startswith(inside):
                moved.setdefault(commit, {})[path] = (old, tok == "R100")
        elif tok:
            next(tokens, None)  # the path of an A, D, M or T
    if not moved:
        return
    # Each old name followed from the commit before its move; a name two moves
    # left (two drafts of one name, each moved in) in a round of its own for each.
    rounds: list[dict[str, list[str]]] = []  # {commit: the old names it moved in}, no name twice in one
    for commit, renames in moved.items():
        names = sorted({old for old, _ in renames.values()})
        free = next((r for r in rounds if all(set(names).isdisjoint(left) for left in r.values())), None)
        if free is None:
            rounds.append(free := {})
        free[commit] = names
    before_move: dict[str, dict[str, FileDates]] = {}  # commit -> {old name: its dates before that move}
    for after in rounds:
        olds = sorted({old for names in after.values() for old in names})
        found = _old_names_dates(root, olds, log_args, depth + 1, after, revisions)
        before_move.update((commit, found) for commit in after)
    for commit, renames in moved.items():
        for path, (old, unchanged) in renames.items():
            earlier, now = before_move[commit].get(old), files[path]
            if earlier is None:
                continue
            if unchanged and now.changed_commit == commit:  # a pure move is not a change
                files[path] = earlier
            else:
                files[path] = FileDates(earlier.created, now.changed, earlier.created_commit, now.changed_commit)


def _staged(root, spec: list[str], log_args: list[str]) -> tuple:
    """The index against HEAD, in the folders `spec`, as History holds it:
    (paths added, renames new -> old, the dates of the files a staged rename
    brings into the folders from outside them, paths whose content changes).

    The diff is of the folders; only when it adds files there, and the index
    deletes some elsewhere, is it made again with those deleted paths in it,
    so that git can pair a move in (rename detection, costly, stays on what
    could pair), whose old name's dates are read as for a committed move.
    Works before the first commit too: git then diffs against the empty tree.

    In a merge being made (MERGE_HEAD), what the index changes came from the
    branches merged, or was made while merging: the files are dated as the
    merge commit will leave them (`_merged_dates`), and only those no commit
    of either side made are new; the last two of the tuple then say so
    (History.merge_heads, History.staged_merged)."""
    new, renames, changed = _staged_diff(root, spec)
    if new or renames or changed:  # (an index as HEAD has nothing to date: no merge looked for)
        heads = gitrun.merge_heads(root)
        if heads:
            merged, sides, present = _merged_dates(root, spec, sorted(new | changed | renames.keys()), log_args,
                                                   heads)
            # Absent at HEAD and from every branch merged: written while merging (anew, if a path
            # deleted before), so the merge will make it, as for a file no commit ever had.
            anew = {path for path in new if path not in present}
            merged = {path: found for path, found in merged.items() if path not in anew}
            return new - merged.keys(), renames, {}, changed - merged.keys(), heads, merged, sides
    if not (new and spec):
        return new, renames, {}, changed
    excluded = [f":(exclude){folder}" for folder in spec]
    _, out, _ = _run(root, ["diff", "--cached", "--no-renames", "--name-only", "--diff-filter=D", "-z", "--", ".",
                            *excluded], pathspec_magic=True)
    gone = sorted(path for path in _decode(out).split("\0") if path)
    if not gone:
        return new, renames, {}, changed
    if len(gone) > _MAX_PATH_ARGS:
        gone = sorted({path.rpartition("/")[0] for path in gone})
        if len(gone) > _MAX_PATH_ARGS or "" in gone:
            return new, renames, {}, changed  # too much to pair with: the files keep being new
    inside = tuple(folder.rstrip("/") + "/" for folder in spec)
    # Only files the first diff saw added can turn into moves in: what it
    # paired inside the folders stands (the second, bigger diff may reach
    # git's rename limit and pair less).
    _, paired, edited = _staged_diff(root, [*spec, *gone], inside)
    moved_in = {path: old for path, old in paired.items() if path in new and not old.startswith(inside)}
    if not moved_in:
        return new, renames, {}, changed
    return (new - moved_in.keys(), {**renames, **moved_in}, _dates_at_head(root, moved_in, log_args),
            changed | (edited & moved_in.keys()))


def _merged_dates(root, spec: list[str], paths: list[str], log_args: list[str],
                  heads: tuple[str, ...]) -> tuple[dict[str, FileDates], dict[str, tuple[str, ...]], set[str]]:
    """The dates ``paths`` (as the index has them) will have once the merge
    of ``heads`` into HEAD is made: the replay of the folders ``spec`` from
    HEAD and ``heads`` together, merges skipped as they will be then; files
    only merges made, and moves into the folders, followed as for HEAD's.
    A file the merge takes as one merged commit has it (``_merge_sides``) is
    replayed from that commit alone. And those sides, and the paths some
    merged commit has."""
    sides, present = _merge_sides(root, paths if len(paths) <= _MAX_PATH_ARGS else spec, heads)
    groups: dict[tuple[str, ...], list[str]] = {}
    for path in paths:
        groups.setdefault(sides.get(path, ("HEAD", *heads)), []).append(path)
    files: dict[str, FileDates] = {}
    for revisions, group in groups.items():
        replay = _Replay(group)
        replay.feed(_run_log(root, [*log_args, "--no-merges", *revisions, "--", *spec]).split("\0"))
        files.update(_replayed_dates(root, replay, list(revisions), spec, log_args, moves_from=list(revisions)))
    return files, {path: side for path, side in sides.items() if path in files}, present


def _merge_sides(root, paths: list[str], heads: tuple[str, ...]) -> tuple[dict[str, tuple[str, ...]], set[str]]:
    """({path: (the merged commit)} for the staged files whose content is a
    merged commit's version of them: a conflict resolved by taking their
    side, say, and the paths some merged commit has). git's log of the
    merge, once made, follows only a parent it kept a file from as it was
    (TREESAME): the other side's edits to it are none of its history."""
    def entries(out: bytes):
        for entry in _decode(out).split("\0"):
            meta, _, path = entry.partition("\t")
            if path:
                yield meta.split(), path

    _, out, _ = _run(root, ["ls-files", "-s", "-z", "--", *paths])
    staged = {path: meta[1] for meta, path in entries(out) if len(meta) == 3 and meta[2] == "0"}  # mode id stage
    sides: dict[str, tuple[str, ...]] = {}
    present: set[str] = set()
    for head in heads:
        _, out, _ = _run(root, ["ls-tree", "-r", "-z", "--full-tree", head, "--", *paths])
        for meta, path in entries(out):  # mode type id
            present.add(path)
            if len(meta) == 3 and staged.get(path) == meta[2]:
                sides.setdefault(path, (head,))
    return sides, present


def _staged_diff(root, paths: list[str], inside: tuple[str, ...] = ()) -> tuple[frozenset[str], dict[str, str], frozenset[str]]:
    """(added, renamed new -> old, content changed: edits and renames with
    edits) in the index against HEAD, under ``paths``; with ``inside``, only
    what ends up in those folders."""
    _, out, _ = _run(root, ["diff", "--cached", "--name-status", "-M", "-z", "--no-color", "--", *paths])
    new: set[str] = set()
    changed: set[str] = set()
    renames: dict[str, str] = {}
    it = iter(_decode(out).split("\0"))
    for tok in it:
        if not tok:
            continue
        if tok[0] in "RC":
            old, path = next(it), next(it)
            if inside and not path.startswith(inside):
                continue
            if tok[0] == "R":
                renames[path] = old
                if tok != "R100":
                    changed.add(path)
            else:
                new.add(path)
        else:
            path = next(it)
            if inside and not path.startswith(inside):
                continue
            if tok[0] == "A":
                new.add(path)
            elif tok[0] in "MT":
                changed.add(path)
    return frozenset(new), renames, frozenset(changed)


def _dates_at_head(root, moved: dict[str, str], log_args: list[str]) -> dict[str, FileDates]:
    """{new path: the dates of its old path at HEAD} for files about to move."""
    try:
        before = _old_names_dates(root, sorted(set(moved.values())), log_args, 0)
    except HistoryError:  # no commit yet, say: the moved files' dates are unknown, nothing worse
        return {}
    return {path: before[old] for path, old in moved.items() if old in before}


def _old_names_dates(root, olds: list[str], log_args: list[str], depth: int,
                     after: dict[str, list[str]] | None = None,
                     revisions: list[str] | None = None) -> dict[str, FileDates]:
    """The dates of the files once at ``olds`` (``after``: each from the
    commit before it left), in one log of their folders, so that renames
    there are followed, and moves into those folders in turn; of the names
    themselves from the top of the repository (all of its history otherwise)."""
    folders = sorted({old.rpartition("/")[0] for old in olds})
    paths = olds if "" in folders or len(folders) > _MAX_PATH_ARGS else folders
    if len(paths) > _MAX_PATH_ARGS:
        return {}
    replay = _Replay(olds, after=after)
    replay.feed(_run_log(root, [*log_args, "--no-merges", *(revisions or ["HEAD"]), "--", *paths]).split("\0"))
    _merge_births(root, replay, revisions or ["HEAD"], paths, log_args)
    before, born_as = _dates_of(replay, root)
    if paths is folders:
        _follow_moves_in(root, folders, before, born_as, log_args, depth, revisions=revisions)
    return before


# --------------------------------------------------------------------------- append-only


def append_only_violations(repo_root: Path, paths: Iterable[str | Path], since: str | None = None,
                           *, staged: bool = False, follow=None, under: list[str] | None = None
                           ) -> dict[str, list[int]]:
    """Lines of append-only files (daily logs) that were changed or deleted.

    since=None compares the staged content with HEAD; otherwise `since` with
    HEAD, or with ``staged`` the staged content with `since` (the commits
    since and the one being made, as one change). `paths` are relative to
    the top of the work tree (or absolute).
    Returns {path: [1-based line numbers in the old version]} for the paths
    with violations only; appends at the end, and inserted lines, are fine.
    A path git finds renamed from another (looked for among the pathspecs
    ``under``, with their magic: the store's markdown files) is judged
    against that one's lines when ``follow(old, new)`` says so; with
    ``since``, also through the renames of each commit since (and of the
    index, with ``staged``): a log renamed in one commit and rewritten in the
    next is too unlike its old self for one diff of the range to pair them.
    """
    root = Path(repo_root).resolve()
    rel = []
    for p in map(Path, paths):
        if p.is_absolute():
            try:
                p = p.resolve().relative_to(root)
            except ValueError:
                raise HistoryError(f"{p}: outside the repository {root}") from None
        rel.append(p.as_posix())
    # Said even when there is nothing to judge; and a tree or a blob (`HEAD:memory`), which git would
    # diff as it is, silently or with its usage text, is no commit either.
    if since is not None and _run(root, ["rev-parse", "--verify", "-q", "--end-of-options", f"{since}^{{commit}}"],
                                  check=False)[0]:
        shallow = _decode(_run(root, ["rev-parse", "--is-shallow-repository"], check=False)[1]).strip() == "true"
        raise HistoryError(f"not a commit in {root}" + (
            " (a shallow clone: the commit may be past its cut; fetch the history, e.g. `fetch-depth: 0` "
            "in actions/checkout)" if shallow else ""))
    if not rel:
        return {}
    compared = _compared(since, staged)
    wanted = set(rel)
    renamed_from, added = [], []
    spec = under or ["."]
    if follow is not None:
        # A log renamed and rewritten in one change is followed to its old
        # name, among the store's markdown files (a big change to other
        # files must not use up git's limit on rename pairs).
        _, names, _ = _run(root, ["diff", "--name-status", "-z", "-M", "--no-ext-diff", *compared,
                                  "--", *spec], pathspec_magic=bool(under))
        for kind, old, new in _name_status(names):
            if kind == "R" and new in wanted and follow(old, new):
                renamed_from.append(old)
            elif kind == "A" and new in wanted:
                added.append(new)  # (not paired: renamed in one commit, rewritten in another?)
    # A line whose ending alone changed (an editor saving CRLF) says what it said: not rewritten.
    args = ["diff", "-U0", "--ignore-cr-at-eol", "--no-color", "--no-ext-diff", "--no-textconv",
            "-M" if renamed_from else "--no-renames",
            "--src-prefix=a/", "--dst-prefix=b/", *compared]
    _, out, _ = _run(root, [*args, "--", *rel, *renamed_from])
    found = {path: lines for path, lines in _changed_old_lines(_decode(out)).items() if path in wanted}
    if since is not None and added:
        found.update(_violations_through_renames(root, since, added, staged, follow, spec, bool(under)))
    return found


def deleted_paths(repo_root: Path, since: str | None = None, *, staged: bool = False,
                  under: list[str] | None = None) -> list[str]:
    """The paths (among the pathspecs ``under``, with their magic) that the
    change append_only_violations judges deletes: the staged one against
    HEAD, REV to HEAD, or with ``staged`` REV to the index. A file moved is
    not deleted: one git pairs as a rename (anywhere in the repository), or
    that another path of the change, added under the same name (a move and
    an append git cannot pair), or a commit since REV renamed."""
    root = Path(repo_root).resolve()
    compared = _compared(since, staged)
    spec = under or ["."]
    _, out, _ = _run(root, ["diff", "--name-status", "-z", "-M", "--no-ext-diff", *compared, "--", *spec],
                     pathspec_magic=bool(under))
    gone = [path for kind, _, path in _name_status(out) if kind == "D"]
    if not gone:
        return gone
    # the whole repository's change: a log moved out of the store's folder, or moved and appended to
    _, out, _ = _run(root, ["diff", "--name-status", "-z", "-M", "--no-ext-diff", *compared])
    moved, added = set(), []
    for kind, old, path in _name_status(out):
        if kind == "R":
            moved.add(old)
        elif kind == "A":
            added.append(path.rsplit("/", 1)[-1])
    gone = [path for path in gone if path not in moved and not any(
        name.startswith(path.rsplit("/", 1)[-1].rsplit(".", 1)[0]) for name in added)]
    if gone and since is not None:
        # moved in one commit and rewritten in a later one, the range's one
        # diff cannot pair them: what a commit since moved was not deleted
        renamed = set().union(*(step.values() for step in _renames_by_commit(root, since, [], False)))
        gone = [path for path in gone if path not in renamed]
    return gone


def _compared(since: str | None, staged: bool) -> list[str]:
    """What a ``git diff`` of the change judged compares: the staged change
    against HEAD (or the empty tree before the first commit), REV to HEAD,
    or with ``staged`` REV to the index."""
    if since is None:
        return ["--cached"]
    if staged:
        return ["--cached", "--end-of-options", since]
    return ["--end-of-options", since, "HEAD"]


def _renames_by_commit(root: Path, since: str, spec: list[str], magic: bool) -> list[dict[str, str]]:
    """{new path: old path} of the renames of each commit from ``since`` to
    HEAD among ``spec`` (all the repository when empty), newest first: one
    ``git log`` (children before parents; --format=%H puts a header token
    between commits)."""
    _, out, _ = _run(root, ["log", "--no-merges", "--topo-order", "-M", "--diff-filter=R", "--name-status", "-z",
                            "--no-color", "--format=%H", "--end-of-options", f"{since}..HEAD", "--", *spec],
                     pathspec_magic=magic)
    steps: list[dict[str, str]] = []
    step: dict[str, str] | None = None
    it = iter(out.split(b"\0"))
    for token in it:  # only R statuses: any other token is a commit's header
        token = token.lstrip(b"\n")
        if token[:1] == b"R" and token[1:].isdigit():
            old, new = _decode(next(it, b"")), _decode(next(it, b""))
            if step is not None:
                step[new] = old
        elif token:
            step = {}
            steps.append(step)
    return steps


def _name_status(out: bytes):
    """(status letter, old path or None, path) of each file of a ``git diff --name-status -z``."""
    fields = iter(out.split(b"\0"))
    for status in fields:  # "M\0path" or "R073\0old\0new"
        if not status:
            continue
        first = _decode(next(fields, b""))
        if status[:1] in (b"R", b"C"):
            yield chr(status[0]), first, _decode(next(fields, b""))
        else:
            yield chr(status[0]), None, first


def _violations_through_renames(root: Path, since: str, paths: list[str], staged: bool, follow, spec: list[str],
                                magic: bool) -> dict[str, list[int]]:
    """Violations of the logs ``paths``, new since ``since`` under their
    name, judged against the name each had there: the renames of every
    commit from ``since`` to HEAD (and of the index, with ``staged``) are
    followed back, newest first, each one that ``follow`` allows."""
    steps = _renames_by_commit(root, since, spec, magic)
    if staged:
        _, out, _ = _run(root, ["diff", "--cached", "--name-status", "-z", "-M", "--no-ext-diff", "--", *spec],
                         pathspec_magic=magic)
        steps.insert(0, {new: old for kind, old, new in _name_status(out) if kind == "R"})
    earlier: dict[str, str] = {}  # path now -> its name at `since`
    for path in paths:
        name = path
        for step in steps:
            old = step.get(name)
            if old is not None and follow(old, name):
                name = old
        if name != path:
            earlier[path] = name
    if not earlier:
        return {}
    there = existing_at(root, since, sorted(set(earlier.values())))
    if not there:
        return {}  # all born since `since`: nothing of them to rewrite
    _, out, _ = _run(root, ["rev-parse", "--verify", "-q", "--end-of-options", f"{since}^{{commit}}"])
    base = _decode(out).strip()  # (a sha: `REV:path` must not read a colon of REV's own)
    found: dict[str, list[int]] = {}
    now = ":" if staged else "HEAD:"
    for path, old in sorted(earlier.items()):
        if old not in there:
            continue
        _, out, _ = _run(root, ["diff", "-U0", "--ignore-cr-at-eol", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/",
                                "--dst-prefix=b/", "--end-of-options", f"{base}:{old}", f"{now}{path}"])
        changed = next(iter(_changed_old_lines(_decode(out)).values()), None)
        if changed:
            found[path] = changed
    return found


def first_commits(repo_root: Path, since: str, paths: list[str]) -> dict[str, str]:
    """{path: the first commit after ``since`` (up to HEAD) that added a file
    at that path} for those of ``paths`` (relative to the top of the work
    tree) that one added; by name, renames not followed."""
    if not paths:
        return {}
    root = Path(repo_root).resolve()
    _, out, _ = _run(root, ["log", "--reverse", "--no-renames", "--diff-filter=A", "--format=%x00%H", "--name-only",
                            "-z", "--end-of-options", f"{since}..HEAD", "--", *paths])
    wanted, first, commit = set(paths), {}, None
    for token in _decode(out).split("\0"):
        # "\0HASH\0\nNAME\0NAME\0\0HASH\0...": each commit's names follow its hash, the first after a newline
        if commit is None or not token:
            commit = token or None
            continue
        name = token[1:] if token.startswith("\n") else token
        if name in wanted:
            first.setdefault(name, commit)
    return first


def merge_base(repo_root: Path, rev: str) -> tuple[str, bool]:
    """(where ``rev``'s history meets HEAD's, what ``git diff REV...HEAD``
    compares from; whether that is another commit than ``rev``): ``rev``
    itself when it is an ancestor of HEAD, and when git finds none (or
    ``rev`` names no commit: the caller says so)."""
    root = Path(repo_root).resolve()
    status, out, _ = _run(root, ["merge-base", "--end-of-options", rev, "HEAD"], check=False)
    found = _decode(out).strip()
    if status or not found:
        return rev, False
    _, named, _ = _run(root, ["rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}"], check=False)
    return found, _decode(named).strip() != found


def text_at(repo_root: Path, commit: str, path: str) -> str | None:
    """The text of ``path`` (relative to the top of the work tree) at
    ``commit``, or None when it has no such file (or it is not UTF-8)."""
    status, out, _ = _run(Path(repo_root).resolve(), ["cat-file", "blob", f"{commit}:{path}"], check=False)
    if status:
        return None
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None


def existing_at(repo_root: Path, commit: str, paths: list[str]) -> set[str]:
    """Which of ``paths`` (relative to the top of the work tree) ``commit`` has."""
    if not paths:
        return set()
    _, out, _ = _run(Path(repo_root).resolve(),
                     ["ls-tree", "-r", "-z", "--name-only", "--full-tree", "--end-of-options", commit, "--", *paths])
    return {_decode(name) for name in out.split(b"\0") if name} & set(paths)


class ChangedLines(list):
    """Old-version numbers of lines changed or deleted; ``at``: where the
    first change is in the new version (its first line, or the line after
    a deletion), for a finding to sit on."""

    at: int = 1


_TASK = re.compile(r"(\s*(?:[-*+]|\d+[.)])\s+\[) \]")  # a list item's open checkbox, `- [ ]`


def _ticked(old: str, new: str) -> bool:
    """Whether ``new`` is ``old`` with its task's checkbox ticked (`- [ ]` to
    `- [x]`): a log records the task done, it does not rewrite what it said."""
    task = _TASK.match(old)
    return task is not None and new in (f"{task.group(1)}x]{old[task.end():]}", f"{task.group(1)}X]{old[task.end():]}")


def _changed_old_lines(diff: str) -> dict[str, list[int]]:
    result: dict[str, ChangedLines] = {}
    lines: list[int] = ChangedLines()
    in_hunk = False
    old_no = 0
    new_at = 1
    removed: tuple[int, str] | None = None  # the last removed line, for the no-newline case
    replaced: list[tuple[int, str]] = []  # the hunk's removed lines no added line has been found to tick
    run: list[int] = []  # the hunk's removed lines, in order
    first_hunk = False  # the hunk holds the file's first change (``ChangedLines.at``)
    previous = ""
    old_name: str | None = None
    for line in diff.split("\n"):
        if line.startswith("diff --git "):
            in_hunk, lines, old_name = False, [], None
        elif line.startswith("@@ "):
            in_hunk, removed, replaced, run, first_hunk = True, None, [], [], not lines
            parts = line.split(" ")
            old_no = int(parts[1][1:].partition(",")[0])  # "-start,count"
            start, _, count = parts[2][1:].partition(",")  # "+start,count": after line start when count is 0
            new_at = max(1, int(start) + (1 if count == "0" else 0))
        elif not in_hunk:
            if line.startswith(("--- ", "+++ ")):
                name = line[4:].rstrip("\t")  # git ends the line with a tab when the name has a space, quoted or not
                name = None if name == "/dev/null" else (_unquote(name) if name.startswith('"') else name)[2:]
                if line.startswith("--- "):
                    old_name = name  # drop "a/"
                elif old_name is not None:  # a file renamed is judged under its new name
                    lines = result.setdefault(name or old_name, ChangedLines())
        elif line.startswith("-"):
            if not lines:
                lines.at = new_at
            lines.append(old_no)
            removed = (old_no, line[1:])
            replaced.append(removed)
            run.append(old_no)
            old_no += 1
        elif line.startswith("+"):
            added = line[1:]
            if removed and previous.startswith("\\") and added == removed[1] and lines and lines[-1] == removed[0]:
                # "-x / \\ No newline at end of file / +x": the last line only gained
                # its newline so more could be appended; it is not a change.
                lines.pop()
            else:
                # A task ticked done (`- [ ]` to `- [x]`) is no rewrite, whatever lines were added around it
                ticked = next((pair for pair in replaced if _ticked(pair[1], added)), None)
                if ticked is not None:
                    replaced.remove(ticked)
                    if ticked[0] in lines:
                        lines.remove(ticked[0])
                        left = [n for n in run if n in lines]
                        if first_hunk and left:  # the finding sits on the first line still rewritten
                            lines.at = new_at + run.index(left[0])
            if previous.startswith("\\"):
                removed = None
        previous = line
    return {path: found for path, found in result.items() if found}


def _unquote(name: str) -> str:
    """Undo git's C-style quoting of a path ("a\\tb", octal UTF-8 bytes)."""
    if not name.startswith('"'):
        return name
    body = name[1:-1]
    out = bytearray()
    i = 0
    escapes = {"n": 10, "t": 9, '"': 34, "\\": 92, "a": 7, "b": 8, "f": 12, "r": 13, "v": 11}
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            nxt = body[i + 1]
            if nxt in escapes:
                out.append(escapes[nxt])
                i += 2
            else:
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
        else:
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
    return _decode(bytes(out))

"""`memlint backfill`: write git's dates into memories' frontmatter.

``created`` is the commit that first added the file (following renames),
``last_verified`` its last change; each only where the frontmatter lacks it.
The fields are the store setting ``wants-dates`` (moc: both; three-layer:
``last_verified``), or both when the store wants none, or ``--fields``.

Exit codes follow pre-commit's fixers: 1 when it changed a file (so the
commit stops and the change can be looked at and staged), 0 when nothing
needed changing (``--dry-run`` changes nothing: 0), 2 on a usage error (no
git, a shallow clone, bad config).
"""
from __future__ import annotations

import difflib
import os
import re
import stat
import sys
from pathlib import Path

import click

from memlint.cli import (EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, NamedPath, UsageError, build_stores, common_store_options, emit,
                         _shown_folder, parse_today, resolve_staged, say)
from memlint.gitrun import advice
from memlint.reporters import printable

SOURCES = ("created", "last_verified")  # the fields git can date: first add, last change


def _fields_for(store, requested: tuple[str, ...] | None) -> tuple[str, ...]:
    if requested:
        return requested
    wanted = store.settings.get("wants-dates") or ()
    if not wanted:
        return SOURCES
    return tuple(name for name in SOURCES if name in wanted)


def _parse_fields(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    names = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    if not names:  # `--fields ""`: not the default, which it would quietly be
        raise click.BadParameter(f"names no field: write {' or '.join(SOURCES)}, or both", param_hint="--fields")
    bad = [n for n in names if n not in SOURCES]
    if bad:
        raise click.BadParameter(f"{bad[0]!r}: backfill writes {' and '.join(SOURCES)} only", param_hint="--fields")
    return names


@click.command()
@click.argument("paths", nargs=-1, type=NamedPath(path_type=Path))
@common_store_options
@click.option("--dry-run", is_flag=True, help="Print what would change as a unified diff; write nothing.")
@click.option("--fields", help="Comma-separated fields to write: created, last_verified (default: the store's wants-dates, else both).")
@click.option("--staged/--no-staged", default=None, help="Date the commit being made: a file added in the index is created today, one it edits changed today. Default: on under pre-commit (PRE_COMMIT=1).")
@click.option("--today", help="The date 'today' means for files being committed (YYYY-MM-DD; default today).")
def backfill(paths, preset, config_file, dry_run, fields, staged, today):
    """Write git's created and last-change dates into memories that lack them.

    PATHS are stores or memory files (default: the current folder; under
    pre-commit, none: the hook dates the files it is given); files given
    alone are the only ones changed. Only the missing keys are added,
    as new lines before the closing ---; every other byte of the file stays.
    """
    from memlint.backfill import add_dates
    from memlint.gitdates import GitDates

    requested = _parse_fields(fields)
    if not paths and os.environ.get("PRE_COMMIT") == "1":
        # pre-commit passes the hook the files it is run on; none (`always_run: true` and a commit,
        # or a `pre-commit run`, of other files) is no file to date, not the whole store: what
        # is dated goes into your commit.
        say("backfill: pre-commit named no file: nothing to date")
        return
    staged = resolve_staged(staged, paths)
    # Under a hook the store is the commit's, as the other hooks read it: an untracked
    # daily log does not make it openclaw, nor an untracked .memlint.yaml configure it.
    stores = build_stores(paths, preset, config_file, parse_today(today), staged=staged, cache=True)
    by_hand = os.environ.get("PRE_COMMIT") != "1"  # a hook names every staged file, a README too
    if not stores and by_hand and paths and not any(Path(p).is_dir() for p in paths):
        more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""  # as check says it
        say(f"{paths[0]}{more}: in no memory store, so nothing was dated")
    changed = failed = 0
    out = _Stdout()
    dated = []
    for store in stores:  # every store's git first: nothing is written when one cannot be dated
        git = GitDates(store, staged=staged)
        where = store.shown(store._repo_path(store.dir))  # as findings name it; the top of a repository by its folder
        where = _shown_folder(store.dir) if where in ("", ".") else where
        if not any(os.path.lexists(doc.abspath) for doc in store.docs.values()):
            # found in git's index alone: a sparse checkout leaves it out of the work tree
            raise UsageError(f"{where}: not in the work tree (the sparse checkout leaves it out): no file to date")
        if git.history is None:
            raise UsageError(f"{where}: {store.history_problem or 'no git history'}: backfill takes its dates from git")
        if git.shallow:
            raise UsageError(f"{where}: shallow clone: git's dates would be wrong; fetch the full history first "
                             f"(`{advice(store.repo_root, ['fetch', '--unshallow'], [])}`; in GitHub Actions "
                             "`fetch-depth: 0`)")
        dated.append((store, git, _content_changed(store, git, _fields_for(store, requested), where)))
    for store, git, content_changed in dated:
        names = _fields_for(store, requested)
        # A block goes only where check wants one (MEM001), as the config and suppressions leave it:
        # not on a file `ignore`d or with the rule off, where a block would bring MEM003's errors.
        required = store.settings.get("frontmatter") == "required"
        wants_block = _missing_frontmatter(store) if required else set()
        edited = _edited(store, staged)
        for doc in sorted(store.memories, key=lambda d: d.path):
            create_block = doc.path in wants_block
            if store.only_paths is not None and doc.path not in store.only_paths:
                continue
            if not names:
                break
            shown_path = store.shown(doc.path)  # as check names it (several repositories, a submodule)
            if doc.abspath.is_symlink():
                _skip(shown_path, "symbolic link: not rewritten")
                continue
            if doc.problem:
                _skip(shown_path, doc.problem)
                continue
            try:
                data = doc.abspath.read_bytes()
            except OSError as exc:
                missing = staged and isinstance(exc, FileNotFoundError)  # the commit's file, not in the work tree
                _skip(shown_path, "not in the work tree (deleted there, or left out by a sparse checkout): not dated"
                      if missing else f"cannot read: {exc.strerror or exc}")
                continue
            dates = git.of(doc)
            # the day it last changed in more than its dates: a commit that wrote dates only (backfill's) is no
            # change, as for MEM404, so a second run dates a file as one run of both fields would
            changed_day = content_changed.get(git.repo_path(doc), dates.changed)
            known = {"created": dates.created, "last_verified": changed_day}
            if doc.path in edited:  # its last commit's day is not the day of what it says now
                known["last_verified"] = None
            chosen = {name: known[name] for name in names}
            outcome = add_dates(data, chosen, create_block=create_block, parsed=doc.parsed)
            # a clock was ahead: the date would be an error (MEM004: in the future, more than a day
            # ahead; a day is a time zone east of this machine's)
            ahead = [name for name in outcome.added if (known[name] - store.today).days > 1]
            if ahead:
                outcome = add_dates(data, {k: v for k, v in chosen.items() if k not in ahead},
                                    create_block=create_block, parsed=doc.parsed)
                shown = ", ".join(f"{name} {known[name].isoformat()}" for name in ahead)
                _skip(shown_path, f"git dates it after today ({store.today.isoformat()}): {shown}; "
                                "a clock was ahead; not written")
            if outcome.skipped and outcome.skipped.startswith("no frontmatter") and required:
                _skip(shown_path, "no frontmatter, and check does not ask for one here (MEM001 is off, or its "
                                  "`ignore` or a memlint-disable names this file): left alone")
            elif outcome.skipped:
                _skip(shown_path, outcome.skipped)
            if outcome.unknown and doc.path in edited and staged:
                _skip(shown_path, f"has changes not staged, so the commit being made has no date for "
                                  f"{', '.join(outcome.unknown)}; stage them first (`git add`)")
            elif outcome.unknown and doc.path in edited and dates.created is not None:  # (not a new file)
                _skip(shown_path, f"has changes not committed yet, so git has no date for {', '.join(outcome.unknown)}; "
                                  "commit them first (under pre-commit, a file being changed is dated today)")
            elif outcome.unknown:
                _skip(shown_path, f"not committed yet, so git has no date for {', '.join(outcome.unknown)}; "
                                "commit it first (under pre-commit, a file being added is dated today)")
            if not outcome.changed:
                continue
            if _read_only(doc.abspath):  # the rename would replace it all the same: its mode says leave it
                _skip(shown_path, "read-only: left as it was")
                continue
            changed += 1
            if dry_run:
                out.print(_diff(shown_path, data, outcome.data), nl=False)
                continue
            from memlint.atomic import ChangedMeanwhile, write_bytes_atomic

            try:
                write_bytes_atomic(doc.abspath, outcome.data, expected=data)
            except ChangedMeanwhile:  # an editor's save since it was read: the next run dates what it says now
                changed -= 1
                _skip(shown_path, "changed while backfill ran; left as it was")
                continue
            except OSError as exc:  # this file stays as it was; the others are still dated
                changed -= 1
                failed += 1
                _skip(shown_path, f"cannot write: {exc.strerror or exc}; left as it was")
                continue
            shown = ", ".join(f"{name}: {known[name].isoformat()}" for name in outcome.added)
            out.print(f"{printable(shown_path)}: added {shown}")  # a closed pipe, a full disk: the writes go on
        if store.only_paths is not None:
            _say_why_not_dated(store, by_hand=by_hand)
    if out.error is not None:  # said last, where it is seen; not a memory that failed to write
        lost = "the diff is cut short; no file was written" if dry_run else \
            "the list of what was added is lost; the files were still dated"
        say(f"cannot write to stdout ({out.error}): {lost}")
    if failed or (out.error is not None and dry_run):  # a diff cut short is not "nothing to change"
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FINDINGS if changed and not dry_run else EXIT_CLEAN)


class _Stdout:
    """stdout for what backfill prints (diffs, "added" lines). A reader
    that has gone (``| head``) or a stdout that cannot be written (a full
    disk, /dev/full) stops the printing, not the writes; the second is said
    at the end (``error``)."""

    def __init__(self):
        self.error: str | None = None

    def print(self, text: str, *, nl: bool = True) -> None:
        if self.error is not None:
            return
        try:
            emit(text, nl=nl)  # (a closed pipe: handled there, silently)
        except OSError as exc:
            self.error = exc.strerror or str(exc)
            try:  # what is left in the buffer goes nowhere, not to a flush at exit that fails again
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):  # a stdout with no descriptor (a test's capture)
                pass


def _content_changed(store, git, names: tuple[str, ...], where: str) -> dict:
    """``GitDates.content_changed`` of the memories to date whose
    ``last_verified`` is missing (the others need no day; the patches of a
    big store's history are not read for them). Where git cannot show the
    patches (a partial clone offline, an object missing), none: each file
    gets its last commit's day, as before memlint read them, and is told so."""
    from memlint.history import HistoryError

    if "last_verified" not in names:
        return {}
    docs = [doc for doc in store.memories if (store.only_paths is None or doc.path in store.only_paths)
            and doc.field("last_verified") in (None, "")]
    try:
        return git.content_changed(docs)
    except HistoryError as exc:
        say(f"{where}: {exc}: backfill cannot tell which commits changed more than dates, so last_verified is the "
            "day of each file's last commit, which may have written dates only")
        return {}


def _edited(store, staged: bool) -> set[str]:
    """Repo paths of the store's files whose content on disk, which backfill
    writes, differs from what git dates them by: HEAD's (edited, staged or
    not), or in a staged run the index's (edits not staged: the commit being
    made does not hold them). Their changes have no date yet. (Under
    pre-commit, which stashes what is not staged, the disk is the index.)"""
    from memlint import gitrun

    against = [] if staged else ["HEAD"]  # no commit named: the work tree against the index
    try:
        # a mode changed on disk alone is no edit (git would list it without hashing the file)
        status, out, _ = gitrun.run(store.repo_root, ["-c", "core.fileMode=false", "diff", "--raw", "--no-abbrev", "-z",
                                                      "--no-renames", *against, "--", str(store.dir)])
    except OSError:
        return set()
    if status != 0:
        return set()
    edited = set()
    records = out.split(b"\0")
    for meta, path in zip(records[0::2], records[1::2]):
        _, _, old, new, _ = meta.decode("ascii", "replace").split(" ")
        if old == new and new.strip("0"):
            continue  # its mode alone changed, staged (chmod +x): not what it says
        edited.add(path.decode("utf-8", "surrogateescape"))
    return edited | _unseen_edits(store)


def _unseen_edits(store) -> set[str]:
    """Repo paths of the store's files marked assume-unchanged or
    skip-worktree (``git update-index``) whose content on disk is not their
    index blob: git takes such a file as unchanged without reading it, so
    ``git diff`` shows no edit made since. (Its index blob is HEAD's unless
    a staged change, which ``git diff HEAD`` still shows.)"""
    from memlint import gitrun

    try:
        status, out, _ = gitrun.run(store.repo_root, ["ls-files", "-s", "-v", "-z", "--full-name", "--",
                                                      str(store.dir)])
        if status != 0:
            return set()
        index = {}
        for record in out.split(b"\0"):
            meta, _, path = record.partition(b"\t")
            fields = meta.decode("ascii", "replace").split(" ")
            name = os.fsdecode(path)
            # lower case: assume-unchanged; S: skip-worktree (absent where a sparse checkout leaves it out)
            if len(fields) == 4 and (fields[0].islower() or fields[0] == "S") and fields[1] != "120000" \
                    and os.path.isfile(store.repo_root / name):
                index[name] = fields[2]
        if not index:
            return set()
        # the paths on stdin, not the command line: thousands of them would pass the system's limit on
        # its length (E2BIG), and no file would be told edited; one naming a line break or starting
        # with a quote is written as git reads it there, C-quoted
        paths = b"".join(os.fsencode(_c_quoted(name) if "\n" in name or "\r" in name or name.startswith('"')
                                     else name) + b"\n" for name in index)
        status, out, _ = gitrun.run(store.repo_root, ["hash-object", "--stdin-paths"], stdin=paths)
    except OSError:
        return set()
    disk = out.decode("ascii", "replace").split()
    if status != 0 or len(disk) != len(index):
        return set(index)  # not hashed: its content cannot be told unchanged
    return {name for name, blob in zip(index, disk)
            if blob != index[name] and not _as_indexed(store, name, index[name])}


def _as_indexed(store, name: str, blob: str) -> bool:
    """Whether the bytes on disk of a file that hash-object, converting
    them as ``git add`` would, hashed otherwise are its index blob as they
    are: a file committed with CRLF line ends under core.autocrlf, which git
    leaves unconverted (it looks at the index, which hash-object does not),
    has no change."""
    from memlint.cache import blob_id

    try:
        with open(store.repo_root / name, "rb") as fh:
            return blob_id(fh.read()) == blob
    except OSError:
        return False


def _c_quoted(name: str) -> str:
    """``name`` quoted as git reads a path it is given a line at a time."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


def _missing_frontmatter(store) -> set[str]:
    """The files MEM001 (frontmatter-missing) reports in the store."""
    from memlint.linter import Selection, lint_store

    return {f.path for f in lint_store(store, Selection(select=("MEM001",))).findings}


def _read_only(path: Path) -> bool:
    """No write bit set. (Not os.access: to root every file is writable.)"""
    try:
        return stat.S_IMODE(os.stat(path).st_mode) & 0o222 == 0
    except OSError:
        return False  # the write will say what is wrong


_ROLE_NAMES = {"root": "the root index", "index": "a topic index", "log": "a daily log", "exempt": "exempt (`exempt`)"}


def _say_why_not_dated(store, *, by_hand: bool) -> None:
    """Say why a file named alone (not a folder of the store) was not
    dated, rather than nothing: not a memory (the root, a topic index, a
    daily log), not one of the store's files (``include``/``exclude``), or
    a symbolic link to a file of the store (read once, under the target's
    name: ``Store._drop_link_twins``). A hook names every markdown file
    staged: only the links are said there."""
    by_path = {doc.path: doc for doc in store.docs.values()}
    for rel in sorted(store.named_alone):
        doc = by_path.get(rel)
        if by_hand and doc is not None and not doc.is_memory and doc.role in _ROLE_NAMES:
            _skip(store.shown(rel), f"{_ROLE_NAMES[doc.role]}, not a memory: backfill dates memories only")
    for rel in sorted(store.named_alone - by_path.keys()):
        link = store.repo_root / rel
        if not link.is_symlink():
            if by_hand and link.is_file():
                _skip(store.shown(rel), _why_not_read(store, link))
            continue
        target = link.resolve()
        twin = next((doc for doc in store.docs.values() if doc.abspath.resolve() == target), None)
        if twin is None:
            continue
        shown = store.shown(twin.path)
        why = f"symbolic link to {printable(shown)}: not written through the link"
        _skip(store.shown(rel), f"{why}; name {printable(shown)} to date it" if twin.is_memory else why)


def _why_not_read(store, path: Path) -> str:
    """Why a file below a store's folder is not one of its files."""
    from memlint.store import _is_walked

    if path.suffix != ".md":
        return "not a markdown file (.md): not dated"
    try:
        rel = path.resolve().relative_to(store.dir).as_posix()
    except ValueError:
        return "outside the store's folder: not dated"
    if not _is_walked(rel):
        return "in a folder the store does not read (hidden, or one such as node_modules): not dated"
    return "not one of the store's files (its `include`/`exclude`): not dated"


def _skip(path: str, why: str) -> None:
    click.echo(f"memlint: {printable(str(path))}: {why}", err=True)


def _lines(text: str) -> list[str]:
    """Lines as diff and patch count them: split after each \\n only (not
    at \\f, \\v, \\x1c-\\x1e, \\x85, U+2028 or U+2029, as str.splitlines does)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def _diff(path: str, old: bytes, new: bytes) -> str:
    lines = difflib.unified_diff(
        # utf-8, not utf-8-sig: a BOM stays on the first line, where patch looks for it
        _lines(old.decode("utf-8")), _lines(new.decode("utf-8")),
        fromfile=f"a/{printable(path)}", tofile=f"b/{printable(path)}",
    )
    out = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return out

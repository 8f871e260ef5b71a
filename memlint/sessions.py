"""Collect agent sessions and index them for full-text lookup.

A *session* is one unit of agent work that may have referenced a memory
topic: a daily log (``memory/YYYY-MM-DD*.md``), a Claude Code transcript
(``*.jsonl``), a plain ``*.md``/``*.txt`` session log, or - as a fallback
when nothing else exists - one git commit touching the memory store.

:class:`SessionIndex` keeps the sessions in an SQLite FTS5 index (stdlib
``sqlite3``) so that ``memlint health`` / ``memlint triage`` can ask "which
sessions mention this keyword, and when" in microseconds. The index is
incremental: a session is (re)indexed only when its id is new or its content
hash changed.

Stdlib only.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import sqlite3
import stat
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Iterable, Iterator

from memlint.cjk import HANGUL, UNSPACED

__all__ = [
    "Session",
    "SessionIndex",
    "sessions_from_logs",
    "sessions_from_dir",
    "sessions_from_git",
]


@dataclass(frozen=True)
class Session:
    """One session.

    ``id`` is stable across runs so that the index can be updated
    incrementally: ``log:<relpath>`` for daily logs, ``file:<relpath>`` for
    files of a sessions directory, ``git:<sha>`` for commits.
    """

    id: str
    when: date
    text: str


# --------------------------------------------------------------------------
# Collectors
# --------------------------------------------------------------------------

_DATE_RE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")


def _date_in_name(name: str) -> date | None:
    """The first valid ``YYYY-MM-DD`` in ``name``, else None."""
    for m in _DATE_RE.finditer(name):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            continue
    return None


def mtime_date(path: Path) -> date:
    """The local calendar day of the file's modification time (as ``date.today()``)."""
    return datetime.fromtimestamp(path.stat().st_mtime).date()


def open_regular(path: Path, flags: int = os.O_RDONLY) -> int:
    """A descriptor for reading ``path`` (or as ``flags`` say), which must be
    a regular file: a FIFO named like a log or a transcript would block the
    run for good (it is opened without waiting for the other end, then refused)."""
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


_MAX_SESSION_BYTES = 8 * 1024 * 1024  # as for memory files: only this much of a session log is read


def _read_text(path: Path) -> str:
    with open(open_regular(path), "rb") as fh:
        return fh.read(_MAX_SESSION_BYTES).decode("utf-8", errors="replace")


def _text_and_date(path: Path) -> tuple[str, date]:
    """A log's text, and its date: from its name, else its modification time."""
    return _read_text(path), _date_in_name(path.name) or mtime_date(path)


def sessions_from_logs(store_dir: Path, log_paths: Iterable[str]) -> Iterator[Session]:
    """Daily logs as sessions.

    ``log_paths`` are relative to ``store_dir`` (e.g. ``memory/2026-03-01.md``
    or ``memory/2026-03-01-deploy.md``). The date comes from the file name;
    a log without a valid date in its name falls back to its mtime.
    Unreadable or missing files are skipped. Ids are ``log:<relpath>`` with
    forward slashes.
    """
    store_dir = Path(store_dir)
    for rel in log_paths:
        rel_posix = str(rel).replace(os.sep, "/")
        path = store_dir / rel
        try:
            text, when = _text_and_date(path)
        except OSError:
            continue
        yield Session(id=_session_id("log", rel_posix), when=when, text=text)


def _parse_timestamp(value: object) -> date | None:
    """Local date of an ISO-8601 timestamp (``2026-03-01T10:00:00.123Z``)."""
    if not isinstance(value, str) or not value:
        return None
    s = value.strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        # Python 3.10's fromisoformat is strict about fractional seconds;
        # the date part alone is still informative.
        return _date_in_name(s[:10])
    if dt.tzinfo is not None:
        try:
            dt = dt.astimezone()  # the user's local calendar day, like date.today()
        except (OverflowError, ValueError, OSError):  # year 1 or 9999 moved across midnight: its own day
            pass
    return dt.date()


def _strings(value: object, out: list[str]) -> None:
    """Collect every string found (recursively) in a JSON value."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)


def _message_text(content: object, out: list[str]) -> None:
    """Text of a Claude Code message ``content``.

    Kept: plain string content, ``text`` blocks, and ``tool_use`` blocks
    (tool name plus every string in its ``input``: file paths, commands,
    patterns - this is how a session that *read* ``memory/foo.md`` counts as
    mentioning "foo"). Dropped: ``tool_result`` blocks (tool output, often
    huge and not the conversation), ``thinking`` and images.
    """
    if isinstance(content, str):
        out.append(content)
        return
    if not isinstance(content, list):
        return
    for block in content:
        if isinstance(block, str):
            out.append(block)
            continue
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            out.append(block["text"])
        elif kind == "tool_use":
            name = block.get("name")
            if isinstance(name, str):
                out.append(name)
            _strings(block.get("input"), out)


# A transcript's lines and text are bounded: a record of a pasted 100 MB log
# would take ten times that while parsed. Longer lines are skipped; past the
# text cap, the rest of the session is not read (its date is already known).
_MAX_LINE = 8 << 20
_MAX_TEXT = 32 << 20


def _jsonl_session(path: Path) -> tuple[date | None, str, bool]:
    """(date of first timestamped record, text, has any message)."""
    when: date | None = None
    parts: list[str] = []
    has_message = False
    size = 0
    with open(open_regular(path), "r", encoding="utf-8", errors="replace") as fh:
        while (line := fh.readline(_MAX_LINE + 1)):
            if len(line) > _MAX_LINE and not line.endswith("\n"):  # the start of an over-long line: skip it all
                while (rest := fh.readline(_MAX_LINE)) and not rest.endswith("\n"):
                    pass
                continue
            if size > _MAX_TEXT and when is not None and has_message:
                break
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except (ValueError, RecursionError):  # broken, truncated or absurdly nested line
                continue
            if not isinstance(rec, dict):
                continue
            if when is None:
                when = _parse_timestamp(rec.get("timestamp"))
            if rec.get("type") not in ("user", "assistant"):
                continue
            msg = rec.get("message")
            if not isinstance(msg, dict):
                continue
            has_message = True
            before = len(parts)
            _message_text(msg.get("content"), parts)
            size += sum(map(len, parts[before:]))
    return when, "\n".join(parts), has_message


def _holds_store_root(filenames: list[str], dirnames: list[str]) -> bool:
    """A folder a store's root is in, from the names os.walk has listed."""
    from memlint.presets import root_among

    return root_among(filenames, dirnames) is not None


def _walk_session_files(sessions_dir: Path, skip: frozenset[str] = frozenset(),
                        suffixes: tuple[str, ...] = (".jsonl", ".md", ".txt")) -> list[Path]:
    from memlint.store import SKIP_DIRS  # node_modules, virtualenvs: nobody's sessions

    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(sessions_dir):
        if os.path.realpath(dirpath) in skip or (dirpath != str(sessions_dir) and _holds_store_root(filenames, dirnames)):
            # A memory store (a Claude Code project folder holds its memory/):
            # memories are not transcripts, and each would match itself.
            dirnames[:] = []
            continue
        # Hidden folders, and Claude Code's per-session ``subagents/``
        # transcripts (part of their parent session, not sessions of their own).
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "subagents" and d not in SKIP_DIRS)
        for fn in filenames:
            if fn.startswith("."):
                continue
            if fn.endswith(suffixes):
                found.append(Path(dirpath) / fn)
    found.sort()
    return found


def sessions_from_dir(sessions_dir: Path, skip: Iterable[Path] = (), *, markdown: bool = True) -> Iterator[Session]:
    """Sessions from a folder (searched recursively; hidden folders, the
    folders ``skip`` names and every folder below the top that holds a
    store's root skipped: a store's memories are not sessions; with
    ``markdown=False``, ``*.md`` files are not read either).

    * ``*.jsonl`` - Claude Code transcripts, one session per file. Date: the
      first record that has a ``timestamp`` (converted to the local day);
      mtime if none. Text: user and assistant message content (see
      :func:`_message_text`). Lines that are not valid JSON are skipped; a
      file without any user/assistant message (e.g. only summaries) is not a
      session. Files under a ``subagents/`` folder are skipped.
    * ``*.md`` / ``*.txt`` - one session per file; date from a
      ``YYYY-MM-DD`` in the file name, else mtime.

    Ids are ``file:<path relative to sessions_dir>``.
    """
    sessions_dir = Path(sessions_dir)
    if not sessions_dir.is_dir():
        return
    suffixes = (".jsonl", ".md", ".txt") if markdown else (".jsonl", ".txt")
    for path in _walk_session_files(sessions_dir, frozenset(os.path.realpath(folder) for folder in skip), suffixes):
        rel = path.relative_to(sessions_dir).as_posix()
        try:
            if path.suffix == ".jsonl":
                when, text, has_message = _jsonl_session(path)
                if not has_message:
                    continue
                when = when or mtime_date(path)
            else:
                text, when = _text_and_date(path)
        except OSError:
            continue
        yield Session(id=_session_id("file", rel), when=when, text=text)


# A commit that adds this many files or more imports them: it is no session of theirs.
IMPORT_FILES = 10


def sessions_from_git(repo_root: Path, under: str | None, *, exact_since: date | None = None,
                      date_fields: Iterable[str] = (), memo=None) -> Iterator[Session]:
    """Fallback: every non-merge commit touching ``under`` is a session.

    ``under`` is a path relative to ``repo_root`` (e.g. ``memory``); None
    means every commit.

    Text is the full message (subject and body) plus the changed paths;
    the date is the author date (the author's local calendar day). A file a
    commit only moved (``git mv``, content unchanged) is not among its
    paths, and, in the commits dated ``exact_since`` or later, neither is
    one whose change wrote only date fields (``date_fields``: ``memlint
    backfill``'s commit), or its fences and blank lines: nobody used the
    memory there, nor the files a commit adding ``IMPORT_FILES`` or more
    adds (an import: a store copied in whole); a commit left with no path is
    no session. A store moved
    here whole keeps the commits made in its old folder. One ``git log``
    call, one with the diffs of those recent commits, and, for a move, one
    diff of the commits that only added files and one log of the old folder. Yields nothing if git is missing, ``repo_root`` is not
    a repository or it has no commits.

    ``memo`` (a ``Store``: ``kept``/``keep``), if given, keeps the commits
    read at HEAD for the next run at the same HEAD (``health``, ``triage``
    and ``report`` one after the other read them once), and which paths
    each commit changed only the dates of, for any later run: a commit's
    diffs do not change.
    """
    replaced = ""
    if memo is not None:
        from memlint.cache import replacements

        replaced = replacements(repo_root)  # replace refs make git log other commits: what is kept holds only with them
    date_fields = tuple(date_fields)
    commits = _store_commits(repo_root, under, memo, replaced)
    if commits is None:
        return
    recent = [sha for sha, when, _, names, *_ in commits if names and exact_since is not None and when >= exact_since]
    dates_only = _dates_only_kept(repo_root, recent, under, date_fields, memo, replaced) if recent else {}
    for sha, when, body, names, _, added in commits:
        if len(added) >= IMPORT_FILES:  # an import (a store copied in): the files it adds were written, not used
            imported = frozenset(added)
            names = [n for n in names if n not in imported]
        names = [n for n in names if n not in dates_only.get(sha, ())]
        if not names:  # it only moved files, or wrote their dates: upkeep, not a session
            continue
        text = body.strip() + ("\n" + "\n".join(names) if names else "")
        yield Session(id=f"git:{sha}", when=when, text=text)


def _store_commits(repo_root: Path, under: str | None, memo, replaced: str) -> list | None:
    """``_commit_log`` of the commits that touched ``under``, with those of
    the folder a store moved here came from; kept in ``memo`` for HEAD (with
    the replace refs and the shallow cut, which change what git logs)."""
    from memlint import gitrun

    key = None
    if memo is not None:
        try:
            status, head, _ = gitrun.run(repo_root, ["rev-parse", "-q", "--verify", "HEAD"])
        except OSError:
            return None
        if status == 0:
            key = (head.strip().decode("ascii", "replace"), under, sorted(_shallow_commits(repo_root)), replaced)
            kept = memo.kept("git-sessions")
            if isinstance(kept, tuple) and len(kept) == 2 and kept[0] == key:
                return list(kept[1])
    commits = _commit_log(repo_root, [under] if under else [], ["HEAD"])
    if commits is None:
        return None
    if under:
        # A store moved here (`git mv memory .claude/memory`): its commits
        # before the move touched the old folder, which the log above does
        # not ask about; they are its sessions too.
        seen = {commit[0] for commit in commits}
        for move, old in _moves_into(repo_root, under, commits):
            for commit in _commit_log(repo_root, [old], [f"{move}^"]) or ():
                if commit[0] not in seen:
                    seen.add(commit[0])
                    commits.append(commit)
    if key is not None:
        memo.keep("git-sessions", (key, tuple(commits)))
    return commits


def _dates_only_kept(repo_root: Path, shas: list[str], under: str | None, date_fields: tuple, memo,
                     replaced: str) -> dict:
    """``_dates_only_changes`` of ``shas``, those a run before asked about
    (under the same folder, date fields and replace refs) taken from ``memo``."""
    if memo is None:
        return _dates_only_changes(repo_root, shas, under, date_fields)
    context = (under, date_fields, replaced)
    kept = memo.kept("dates-only-commits")
    known = kept[1] if isinstance(kept, tuple) and len(kept) == 2 and kept[0] == context else {}
    missing = [sha for sha in shas if sha not in known]
    found = _dates_only_changes(repo_root, missing, under, date_fields) if missing else {}
    now = {sha: known[sha] if sha in known else frozenset(found.get(sha, ())) for sha in shas}
    if now != known:
        memo.keep("dates-only-commits", (context, now))  # the commits of this run's window only
    return {sha: paths for sha, paths in now.items() if paths}


def _commit_log(repo_root: Path, spec: list[str], revisions: list[str]) -> list | None:
    """[(sha, day, message, paths touched, whether it only added files, the paths it added)] of the non-merge commits from
    ``revisions`` that touched ``spec`` (one ``git log``), newest first;
    None when git cannot say. A shallow clone's oldest fetched commits
    "add" every file: they are left out."""
    from memlint import gitrun

    args = ["log", "-z", "--name-status", "-M", "--no-merges", "--no-color", "--no-show-signature",
            "--format=%x1e%H%x1f%aI%x1f%B%x1f", "--end-of-options", *revisions, "--", *spec]
    try:
        status, raw, _ = gitrun.run(repo_root, args)
    except OSError:
        return None
    if status != 0:
        return None
    cut = _shallow_commits(repo_root)
    commits = []
    for chunk in raw.decode("utf-8", errors="replace").split("\x1e"):
        if not chunk.strip("\0\n"):
            continue
        try:
            sha, stamp, rest = chunk.split("\x1f", 2)
            body, names_blob = rest.rsplit("\x1f", 1)
        except ValueError:
            continue
        when = _date_in_name(stamp[:10])
        sha = sha.strip()
        if when is None or sha in cut:
            continue
        entries = _entries(names_blob)
        commits.append((sha, when, body, _touched(entries), _only_added(entries), _added(entries)))
    return commits


def _moves_into(repo_root: Path, under: str, commits: list) -> list[tuple[str, str]]:
    """(commit, old folder) of the commits that moved the store's folder
    whole into ``under`` from another: those whose every path under it was
    added, by renames git pairs over the whole repository."""
    from memlint import gitrun

    prefix = under.rstrip("/") + "/"
    added_only = [sha for sha, _, _, names, only_added, _ in commits if only_added and len(names) >= 2]
    if not added_only:
        return []
    try:
        status, raw, _ = gitrun.run(repo_root, ["diff-tree", "--stdin", "-r", "-z", "-M", "--name-status", "--no-color"],
                                    stdin="".join(sha + "\n" for sha in added_only).encode("ascii"))
    except OSError:
        return []
    if status != 0:
        return []
    olds: dict[str, set[str]] = {}  # commit -> the folders its files under `under` came from
    moved: dict[str, int] = {}  # commit -> how many of them came so
    tokens = iter(raw.decode("utf-8", "surrogateescape").split("\0"))
    commit = None
    for token in tokens:
        token = token.strip("\n")
        if token in added_only:
            commit = token
        elif token[:1] == "R" and commit is not None:
            old, new = next(tokens, ""), next(tokens, "")
            if new.startswith(prefix) and not old.startswith(prefix) and old.endswith("/" + new[len(prefix):]):
                olds.setdefault(commit, set()).add(old[: len(old) - len(new) + len(prefix) - 1])
                moved[commit] = moved.get(commit, 0) + 1
    names = {sha: len(paths) for sha, _, _, paths, *_ in commits}
    found = []
    for commit, folders in sorted(olds.items()):
        # the store itself, moved whole: every file it added came from one folder, which it left empty
        if len(folders) == 1 and moved[commit] == names.get(commit):
            old = next(iter(folders))
            status, left, _ = gitrun.run(repo_root, ["ls-tree", "-r", "--name-only", commit, "--", old])
            if status == 0 and not left.strip():
                found.append((commit, old))
    return found


def _entries(names_blob: str) -> list[tuple[str, list[str]]]:
    """(status, its paths: the old and the new for a rename or copy) of each
    of one commit's ``--name-status -z`` entries."""
    tokens = [t for t in (t.strip("\n") for t in names_blob.split("\0")) if t]
    entries, i = [], 0
    while i < len(tokens):
        width = 2 if tokens[i][:1] in ("R", "C") and i + 2 < len(tokens) else 1
        entries.append((tokens[i], tokens[i + 1:i + 1 + width]))
        i += 1 + width
    return entries


def _only_added(entries: list[tuple[str, list[str]]]) -> bool:
    """Whether every entry of a commit (``_entries``) is an add."""
    return bool(entries) and all(status == "A" for status, _ in entries)


def _added(entries: list[tuple[str, list[str]]]) -> tuple[str, ...]:
    """The paths one commit (its ``_entries``) added."""
    return tuple(path for status, paths in entries if status == "A" for path in paths)


def _touched(entries: list[tuple[str, list[str]]]) -> list[str]:
    """The paths of one commit's entries (``_entries``), less the files it
    only moved (a rename at 100 % similarity)."""
    return [path for status, paths in entries if status != "R100" for path in paths]


def _dates_only_changes(repo_root: Path, shas: list[str], under: str | None, date_fields) -> dict[str, set[str]]:
    """{commit: the paths whose change there wrote nothing but date fields,
    fences and blank lines, or moved them in from outside ``under``} for
    ``shas``: one ``git log -p`` of them, and one more, over the whole
    repository, of those that added files (git pairs a rename only when its
    pathspec holds both names)."""
    from memlint.gitdates import _commits, _says_more

    says_more = _says_more(tuple(date_fields))
    base = ["--no-walk=unsorted", "--stdin", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--text",
            "--format=%x00%H %ad", "--date=raw"]
    found: dict[str, set[str]] = {}
    added: set[str] = set()
    for sha, _, patches in _commits(_git_text(repo_root, ["log", *base, "-p", "-U0", "--src-prefix=a/",
                                                          "--dst-prefix=b/", "--", *([under] if under else [])], shas)):
        for patch in patches:
            if patch.born:
                added.add(sha)
            elif patch.lines and not says_more(patch):
                found.setdefault(sha, set()).update(filter(None, (patch.path, patch.source)))
    if under and added:
        for sha, _, patches in _commits(_git_text(repo_root, ["log", *base, "-p", "-U0", "--diff-filter=R",
                                                              "--src-prefix=a/", "--dst-prefix=b/"], sorted(added))):
            for patch in patches:
                if patch.source is not None and not patch.lines:  # moved unchanged
                    found.setdefault(sha, set()).add(patch.path)
    return found


def _git_text(repo_root: Path, args: list[str], shas: list[str]) -> str:
    """The output of ``git ARGS`` given ``shas`` on its input; "" when git fails."""
    from memlint import gitrun

    try:
        status, raw, _ = gitrun.run(repo_root, args, stdin="".join(sha + "\n" for sha in shas).encode("ascii"))
    except OSError:
        return ""
    return raw.decode("utf-8", errors="surrogateescape") if status == 0 else ""


def _shallow_commits(repo_root: Path) -> frozenset[str]:
    """The commits a shallow clone was cut at (git's ``shallow`` file)."""
    from memlint.statedir import common_dir

    folder = common_dir(repo_root)
    try:
        return frozenset((folder / "shallow").read_text(encoding="ascii").split()) if folder else frozenset()
    except (OSError, UnicodeDecodeError):
        return frozenset()


# --------------------------------------------------------------------------
# Index
# --------------------------------------------------------------------------

_APPLICATION_ID = 0x4D4C5353  # "MLSS": marks the file as ours
# Bump when the schema or the tokenizer changes: older files are discarded
# and rebuilt from the sessions.
_SCHEMA_VERSION = 3  # 2: Chinese and Korean by character; 3: Korean by word again
# Porter stemming on top of unicode61: "mistake" matches "mistakes",
# "refactor" matches "refactoring". Diacritics folded. "-", "_", "/", "."
# separate tokens, so "memory/java-refactoring.md" yields java, refactoring.
_TOKENIZER = "porter unicode61 remove_diacritics 2"
# Scripts written without spaces (Chinese, Japanese) are one unicode61 token
# per run of characters, so "部署" would never match "今天部署失败": each such
# character is a token of its own, in the text indexed and in a term (a
# phrase of adjacent characters). Korean is written
# with spaces, its particles glued on ("버전을"): a word of it stays a token,
# and a term ending in it is matched as the start of one (_phrase), so "서버"
# is not found across "가서 버스" as characters would be.
_CJK_CHAR = re.compile(f"([{UNSPACED}])")
_HANGUL_END = re.compile(f"[{HANGUL}]\\Z")


def _cjk_spaced(text: str) -> str:
    return _CJK_CHAR.sub(r" \1 ", text)


_SCHEMA = f"""
CREATE TABLE sessions (
    rid  INTEGER PRIMARY KEY,
    id   TEXT NOT NULL UNIQUE,
    day  TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX sessions_day ON sessions(day);
CREATE VIRTUAL TABLE fts USING fts5(text, tokenize = '{_TOKENIZER}');
"""
_TABLES = {"sessions", "fts"}


class _Foreign(Exception):
    """The file is an SQLite database, but not (this version of) ours."""


def _session_id(kind: str, rel) -> str:
    """``kind:<path>``. A file name's bytes that are not UTF-8 (lone
    surrogates, which SQLite refuses) are kept as \\xNN escapes: the same
    file gets the same id every run."""
    return f"{kind}:{str(rel).encode('utf-8', 'surrogateescape').decode('utf-8', 'backslashreplace')}"


def _content_hash(s: Session) -> str:
    h = hashlib.sha1()
    h.update(s.when.isoformat().encode())
    h.update(b"\0")
    h.update(s.text.encode("utf-8", errors="replace"))
    return h.hexdigest()


def _phrase(term: str) -> str | None:
    """``term`` as an FTS5 phrase query (multi-word terms match adjacent
    tokens in order); None if it contains nothing searchable."""
    term = term.strip()
    if not term or not any(ch.isalnum() for ch in term):
        return None
    try:
        term.encode("utf-8")
    except UnicodeEncodeError:  # a file name's bytes that are not UTF-8: no session text holds them
        return None
    return '"' + _cjk_spaced(term).replace('"', '""') + '"' + ("*" if _HANGUL_END.search(term) else "")


def _days(since: date | None, until: date | None) -> tuple[str, str]:
    """The bounds of ``day`` (ISO text) for a query from ``since`` to ``until``, either open."""
    return (since.isoformat() if since is not None else "", until.isoformat() if until is not None else "9999-12-31")


class SessionIndex:
    """Incremental SQLite FTS5 index of sessions.

    The database (e.g. ``<repo>/.git/memlint/sessions.db``) runs in WAL mode;
    the schema is created inside an ``IMMEDIATE`` transaction, so concurrent
    first runs cannot see a half-built schema. A file that is not an SQLite
    database, fails ``PRAGMA quick_check``, or has another application id /
    schema version is deleted and rebuilt (it is only a cache of the
    sessions; ``rebuilt`` tells the caller). A locked database is never
    discarded: ``sqlite3.OperationalError`` propagates after
    ``busy_timeout`` seconds.

    Per-term query results are cached in the instance and dropped whenever
    the database changes (our own :meth:`update`, or another connection's
    commit, detected through ``PRAGMA data_version``).
    """

    def __init__(self, db_path: Path, busy_timeout: float = 10.0):
        self.db_path = Path(db_path)
        self._busy_timeout = busy_timeout
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        self.rebuilt = False  # True if an unusable file was discarded
        self._conn = self._open()
        self._data_version: int | None = None
        self._pinned = False  # inside ``pinned``: the caches were checked once, on entry
        self._hits_cache: dict[str, list[tuple[str, date]]] = {}
        self._count: int | None = None
        self._by_rowid: dict[int, tuple[int, str, date]] | None = None

    # -- lifecycle ---------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        for attempt in range(2):
            conn = sqlite3.connect(
                str(self.db_path), timeout=self._busy_timeout, isolation_level=None
            )
            try:
                self._check_or_create(conn)
                return conn
            except sqlite3.OperationalError:
                # locked / busy / cannot open: not a reason to throw data away
                conn.close()
                raise
            except (sqlite3.DatabaseError, _Foreign):
                # SQLITE_NOTADB, SQLITE_CORRUPT, or not our schema
                conn.close()
                if attempt:
                    raise
                self._discard()
                self.rebuilt = True
        raise AssertionError("unreachable")

    def _discard(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(str(self.db_path) + suffix)
            except FileNotFoundError:
                pass

    @staticmethod
    def _tables(conn: sqlite3.Connection) -> set[str]:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")
        return {r[0] for r in rows}

    def _check_or_create(self, conn: sqlite3.Connection) -> None:
        # Reading the schema fails with DatabaseError on a non-database file.
        tables = self._tables(conn)
        if tables:
            self._check_ours(conn, tables)
            conn.execute("PRAGMA journal_mode=WAL")
            return
        conn.execute("PRAGMA journal_mode=WAL")
        with _transaction(conn):
            tables = self._tables(conn)
            if tables:  # another process created it meanwhile
                self._check_ours(conn, tables)
            else:
                for stmt in _SCHEMA.split(";"):
                    if stmt.strip():
                        conn.execute(stmt)
                conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")

    @staticmethod
    def _check_ours(conn: sqlite3.Connection, tables: set[str]) -> None:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if app_id != _APPLICATION_ID or version != _SCHEMA_VERSION or not _TABLES <= tables:
            raise _Foreign(f"{app_id=} {version=}")
        # Damaged pages behind a valid header: ~15 ms for 3,000 sessions.
        result = conn.execute("PRAGMA quick_check(1)").fetchone()
        if result is None or result[0] != "ok":
            raise _Foreign(f"quick_check: {result}")
        # The full-text index's own structure (quick_check does not read it):
        # a damaged one fails here, on its first use, with DatabaseError.
        conn.execute("SELECT rowid FROM fts WHERE fts MATCH '\"memlint\"' LIMIT 1").fetchall()

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "SessionIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- caching -----------------------------------------------------------

    def _clear_caches(self) -> None:
        self._hits_cache.clear()
        self._count = None
        self._by_rowid = None

    def _fresh_caches(self) -> None:
        if self._pinned:
            return
        dv = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if dv != self._data_version:
            self._data_version = dv
            self._clear_caches()

    @contextmanager
    def pinned(self) -> Iterator["SessionIndex"]:
        """Lookups inside trust the caches as they are on entry: another
        connection's commit is looked for once, not on each of the tens of
        thousands of lookups scoring every file of a store makes (each a
        query of its own). Our own ``update`` and ``prune`` still clear them."""
        self._fresh_caches()
        was, self._pinned = self._pinned, True
        try:
            yield self
        finally:
            self._pinned = was

    def _sessions_by_rowid(self) -> dict[int, tuple[int, str, date]]:
        """rowid -> (rank, id, date), rank 0 being the newest session
        (date, then id, descending). Loaded once per database version, so a
        term lookup is one FTS5 query returning rowids, no join, no
        per-row date parsing."""
        if self._by_rowid is None:
            rows = self._conn.execute("SELECT rid, id, day FROM sessions").fetchall()
            rows.sort(key=lambda r: (r[2], r[1]), reverse=True)
            days: dict[str, date] = {}
            by_rowid = {}
            for rank, (rid, sid, day) in enumerate(rows):
                d = days.get(day)
                if d is None:
                    d = days[day] = date.fromisoformat(day)
                by_rowid[rid] = (rank, sid, d)
            self._by_rowid = by_rowid
        return self._by_rowid

    # -- writing -----------------------------------------------------------

    def update(self, sessions: Iterable[Session]) -> int:
        """Index sessions whose id is new or whose content (date + text)
        changed; returns how many were (re)indexed. One transaction."""
        conn = self._conn
        n = 0
        with _transaction(conn):
            known = {
                sid: (rid, h)
                for rid, sid, h in conn.execute("SELECT rid, id, hash FROM sessions")
            }
            for s in sessions:
                h = _content_hash(s)
                old = known.get(s.id)
                if old is not None and old[1] == h:
                    continue
                day = s.when.isoformat()
                if old is None:
                    cur = conn.execute(
                        "INSERT INTO sessions(id, day, hash) VALUES (?, ?, ?)", (s.id, day, h)
                    )
                    rid = cur.lastrowid
                else:
                    rid = old[0]
                    conn.execute(
                        "UPDATE sessions SET day = ?, hash = ? WHERE rid = ?", (day, h, rid)
                    )
                    conn.execute("DELETE FROM fts WHERE rowid = ?", (rid,))
                # (a lone surrogate, a transcript cut inside an emoji, is refused by SQLite: a "?" instead)
                text = _cjk_spaced(s.text.encode("utf-8", "replace").decode("utf-8"))
                conn.execute("INSERT INTO fts(rowid, text) VALUES (?, ?)", (rid, text))
                known[s.id] = (rid, h)
                n += 1
        self._clear_caches()
        return n

    def prune(self, keep_ids: Iterable[str]) -> int:
        """Remove sessions whose id is not in ``keep_ids`` (e.g. a deleted
        log); returns how many were removed."""
        keep = set(keep_ids)
        conn = self._conn
        with _transaction(conn):
            gone = [
                (rid,) for rid, sid in conn.execute("SELECT rid, id FROM sessions")
                if sid not in keep
            ]
            conn.executemany("DELETE FROM fts WHERE rowid = ?", gone)
            conn.executemany("DELETE FROM sessions WHERE rid = ?", gone)
        self._clear_caches()
        return len(gone)

    # -- reading -----------------------------------------------------------

    def count(self, since: date | None = None, until: date | None = None) -> int:
        """Number of sessions (dated on or after ``since``, on or before ``until``, if given)."""
        if since is None and until is None:  # asked once per file scored: the plain count, kept
            self._fresh_caches()
            if self._count is None:
                self._count = int(self._conn.execute("SELECT count(*) FROM sessions").fetchone()[0])
            return self._count
        else:
            row = self._conn.execute("SELECT count(*) FROM sessions WHERE day >= ? AND day <= ?",
                                     _days(since, until)).fetchone()
        return int(row[0])

    def of_git(self) -> bool:
        """Whether the sessions are commits (``sessions_from_git``: the
        fallback, so then every one is)."""
        return self._conn.execute("SELECT 1 FROM sessions WHERE id >= 'git:' AND id < 'git;' LIMIT 1").fetchone() is not None

    def ids(self, since: date | None = None, until: date | None = None) -> set[str]:
        """The ids of the sessions dated on or after ``since``, on or before ``until``, if given."""
        return {row[0] for row in self._conn.execute("SELECT id FROM sessions WHERE day >= ? AND day <= ?",
                                                     _days(since, until))}

    def document_frequency(self, term: str) -> int:
        """Number of sessions containing ``term`` (an FTS5 phrase: the words
        of a multi-word term must be adjacent and in order; case, diacritics
        and word endings are normalised by the tokenizer)."""
        return len(self._rows(term))

    def hits(self, term: str, since: date | None = None) -> list[tuple[str, date]]:
        """(session id, date) of every session containing ``term`` (dated on
        or after ``since`` if given), newest first."""
        rows = self._rows(term)
        if since is None:
            return list(rows)
        return [r for r in rows if r[1] >= since]

    def _rows(self, term: str) -> list[tuple[str, date]]:
        """``hits(term)``, kept. A term's frequency and its sessions come
        from this one query: an FTS5 query costs about 0.1 ms whether it
        counts the rows or lists them, and most terms asked for one are
        asked for the other."""
        self._fresh_caches()
        key = term.strip().lower()
        rows = self._hits_cache.get(key)
        if rows is None:
            ranked: list[tuple[int, str, date]] = []
            q = _phrase(key)
            if q is not None:
                by_rowid = self._sessions_by_rowid()
                try:
                    cur = self._conn.execute("SELECT rowid FROM fts WHERE fts MATCH ?", (q,))
                    ranked = [by_rowid[rid] for (rid,) in cur if rid in by_rowid]
                except sqlite3.OperationalError:
                    ranked = []
            ranked.sort()
            rows = self._hits_cache[key] = [(sid, d) for _rank, sid, d in ranked]
        return rows


@contextmanager
def _transaction(conn: sqlite3.Connection):
    """One write transaction, taken at once (no lock upgrade to deadlock on),
    rolled back on any failure, interrupts included."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise

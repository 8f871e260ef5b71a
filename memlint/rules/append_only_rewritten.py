"""A file the preset marks append-only (daily logs) had existing lines changed or deleted.

Why: a daily log is the record of what happened and what was believed on
that day; later memories, audits and the agent itself cite it. Rewriting it
in place silently changes the past. Corrections belong at the end (or in a
new day's log), where they are visible as corrections.

When it looks: in a staged run (pre-commit, ``check --staged``) at the
staged changes against HEAD; with ``check --since REV`` at everything
between REV and HEAD (from where they meet, when HEAD has not merged REV;
one ``git diff`` for all logs; a log renamed keeping its date is followed
to its old name, rewritten at once or in a later commit); with both, at REV
against what is being committed (the commits since and the staged change as
one: a commit that restores a rewritten log passes), and a log born since
REV at its staged change against HEAD; with ``--since`` alone, a log born
since REV (a pull request's own log) against the version the first commit
that added it under its name gave it. A plain ``check``
has no change to judge and stays quiet. Adding lines anywhere is fine; so is
giving the last line its missing newline, changing only how lines end (LF
to CRLF), or ticking a task done (``- [ ] deploy`` to ``- [x] deploy``; its
words changed, or a tick taken back, is a rewrite). Deleting a log whole is a
rewrite of every line of it (moving it, to an archive folder say, is not). Files are the store setting
``append-only`` (default: the daily-log names ``YYYY-MM-DD.md`` and
``YYYY-MM-DD-slug.md``), less those whose frontmatter makes them memories
(a lifecycle field such as ``status``, ``expires``, ``last_verified`` or
``supersedes``, or a Claude Code memory ``type``) both before and after the
change: a decision record named by its date is edited, or deleted, as a
memory is; a log that only now says ``status:`` is still a log.

Options: none.

Fires: a commit that edits line 3 of ``memory/2026-03-01.md``.

Fix: restore the old lines (``git checkout HEAD -- FILE`` drops the staged
edit) and append the correction at the end: ``- 15:40 correction: the
deploy was at 14:00, not 13:00``.
"""
import re

from memlint.config import ConfigError, glob_matcher
from memlint.finding import Problem
from memlint.gitrun import advice
from memlint.lifecycle import declares_memory, frontmatter_declares_memory

CODE = "MEM405"
NAME = "append-only-rewritten"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("logs", "git")
OPTIONS: dict = {}
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _ranges(lines: list[int]) -> str:
    out, start, prev = [], None, None
    for n in sorted(set(lines)) + [None]:
        if start is not None and n == prev + 1:
            prev = n
            continue
        if start is not None:
            out.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = n
    return ", ".join(out)


def _memory_at(root, commit: str, path: str) -> bool | None:
    """Whether ``path``'s version at ``commit`` says in its frontmatter that it
    is a memory (``lifecycle.declares_memory``); None when there is none."""
    from memlint import markdown
    from memlint.history import text_at

    text = text_at(root, commit, path)
    return None if text is None else frontmatter_declares_memory(markdown.parse(text).frontmatter)


def check(store, options):
    if store.since is None and not store.staged:
        return
    patterns = store.settings.get("append-only") or ()
    if not patterns:
        return
    is_log = glob_matcher(patterns)
    logs = [doc for rel, doc in sorted(store.docs.items()) if is_log(rel)]
    git = store.git_dates
    history = git.require()
    if history is None:
        return
    from memlint.history import (HistoryError, append_only_violations, deleted_paths, existing_at, first_commits,
                                 merge_base)

    by_path = {git.repo_path(doc): doc for doc in logs}
    prefix = store._repo_path(store.dir)
    prefix = "" if prefix in ("", ".") else prefix + "/"

    def follow(old: str, new: str) -> bool:
        """A rename to follow: of a log of this store, keeping its date (a
        slug added), not yesterday's log deleted and a like one added."""
        if not old.startswith(prefix) or not is_log(old[len(prefix):]):
            return False
        old_day, new_day = _DAY.search(old.rsplit("/", 1)[-1]), _DAY.search(new.rsplit("/", 1)[-1])
        return old_day is None or (new_day is not None and old_day.group() == new_day.group())

    root = history.repo_root
    under = [":(glob)" + re.sub(r"([*?\[\]\\])", r"\\\1", prefix) + "**/*.md"]  # the store's markdown files
    if store.since is not None and history.head is None:  # an orphan branch with no commit yet
        raise ConfigError(f"--since {store.since}: HEAD has no commit yet, so there is no change since it to judge")
    try:
        # --since a branch HEAD has not merged: judged from where the two meet
        since, moved = merge_base(root, store.since) if store.since is not None else (None, False)
        found = append_only_violations(root, list(by_path), since, staged=store.staged, follow=follow, under=under)
        named = ("HEAD" if since is None else f"`{store.since}`" if not moved
                 else f"`{store.since}` and HEAD's merge base ({since[:7]})")
        against = dict.fromkeys(found, named)
        born_in: dict[str, str] = {}  # a log born since REV -> the commit that added it
        if store.staged or since is not None:  # a log deleted whole: every line of it is gone
            exempt = glob_matcher(store.settings.get("exempt") or ())
            def judged(paths):
                return [path for path in paths
                        if path.startswith(prefix) and is_log(rel := path[len(prefix):])
                        and store.chooses(rel) and not exempt(rel)]  # as the store's files are chosen

            gone = dict.fromkeys(judged(deleted_paths(root, since, staged=store.staged, under=under)), since)
            if store.staged and since is not None:
                # A log born since REV and deleted by the commit being made: gone from HEAD
                for path in judged(deleted_paths(root, None, staged=True, under=under)):
                    gone.setdefault(path, None)
        else:
            gone = {}
        # Judged against REV, a log born since then is all new.
        born = set(by_path) - existing_at(root, since, list(by_path)) - set(found) if since is not None else set()
        if store.staged and born:
            # Its staged rewrite is judged against HEAD, as without --since.
            for path, lines in append_only_violations(root, sorted(born), follow=follow, under=under).items():
                found[path], against[path] = lines, "HEAD"
        elif born:
            # Its rewrites since (a branch's logs, written, then rewritten
            # before the pull request's check) are judged against the
            # version the first commit that added it under this name gave it.
            born_in = first_commits(root, since, sorted(born))
            by_birth: dict[str, list[str]] = {}
            for path, commit in born_in.items():
                by_birth.setdefault(commit, []).append(path)
            for commit, paths in by_birth.items():
                for path, lines in append_only_violations(root, paths, commit, follow=follow, under=under).items():
                    found[path], against[path] = lines, f"first ({commit[:7]})"
        # A dated name whose frontmatter makes it a memory (a decision record)
        # before and after the change is edited as memories are, not rewritten
        # as a log is; a log that only now says `status:` is still a log.
        for path in [path for path in found if declares_memory(by_path[path])]:
            then = "HEAD" if against[path] == "HEAD" else born_in.get(path) or since or "HEAD"
            if _memory_at(root, then, path) is not False:
                del found[path]
        for path in [path for path, source in gone.items() if _memory_at(root, source or "HEAD", path)]:
            del gone[path]
    except HistoryError as exc:
        if store.since is not None:
            raise ConfigError(f"--since {store.since}: {exc}") from None
        raise
    for path, source in gone.items():
        restore = advice(root, ["restore", f"--source={source or 'HEAD'}", "--staged", "--worktree", "--"], [path])
        yield Problem(
            path, 1, 0,
            f"append-only file deleted: every line of its {named if source else 'HEAD'} version is gone; restore it "
            f"(`{restore}`), or move it to an archive folder (a move keeps it)",
        )
    for path, lines in sorted(found.items()):
        doc = by_path.get(path)
        if doc is None:
            continue
        count = doc.parsed.line_count if doc.parsed else 1
        line = max(1, min(getattr(lines, "at", lines[0]), count))  # where the change is now
        what = "line" if len(lines) == 1 else "lines"
        amend = ""
        dates = history.dates(path) if store.staged and against[path] == "HEAD" else None
        if dates is not None and dates.created_commit == history.head:
            # git tells a hook nothing of --amend: the commit that added the log may be the one being redone
            amend = ("; if you are amending the commit that added it (HEAD), the log is still new: "
                     "commit with --no-verify")
        yield Problem(
            doc.path, line, 1,
            f"append-only file rewritten: {what} {_ranges(lines)} of its {against[path]} version changed or deleted; "
            f"restore {'it' if len(lines) == 1 else 'them'} and add the correction at the end{amend}",
        )

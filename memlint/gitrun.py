"""The one way memlint runs git: a plain subprocess, read-only settings.

memlint needs the output of a handful of plumbing commands (``log``,
``ls-files``, ``ls-tree``, ``diff``, ``cat-file``, ``rev-parse``), not an
object model, so it calls git directly: importing GitPython cost 56-95 ms on
every hook call that read history, and its ``log`` pass took twice as long as
the direct one on the benchmark machine.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import threading
from pathlib import Path

# Literal pathspecs: a store folder named `[x]` or `*` must not act as a glob.
# No optional locks: a read-only linter must not fight a concurrent `git commit`.
# C locale: git's messages are quoted to the user and matched by tests.
_ENV = {"GIT_LITERAL_PATHSPECS": "1", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "LANGUAGE": "C"}
# Settings that would change what memlint parses: quoting mangles paths,
# log.follow turns a one-folder pathspec into --follow, signatures add lines,
# context between hunks breaks the count of changed lines. And settings that
# would change what git finds, pinned to git's defaults so that a result
# kept in the cache does not depend on them: how far renames are looked for,
# how a diff pairs lines, and the encoding of commit messages (read as UTF-8).
CONFIG = ("-c", "core.quotepath=false", "-c", "log.follow=false", "-c", "log.showSignature=false",
          "-c", "diff.interHunkContext=0", "-c", "diff.renameLimit=1000", "-c", "diff.algorithm=myers",
          "-c", "i18n.logOutputEncoding=UTF-8")


# Pids of git processes memlint started to work alongside it (history.EarlyLog):
# a core they keep busy is still this run's, when it asks whether to fork.
ALONGSIDE: set[int] = set()


class GitMissing(OSError):
    """git could not be started (not installed, not on PATH)."""


def env(*, pathspec_magic: bool = False, cwd: str | Path | None = None) -> dict[str, str]:
    # GIT_INDEX_FILE passes through as it is: hooks get the temporary index of
    # `git commit -a` / `git commit PATH`, and a plain commit's `.git/index`,
    # which git reads relative to the top of the work tree, wherever it runs.
    # (Made absolute against memlint's own folder, a hook that changes into
    # the store first would read an empty index and lint nothing.) It is the
    # index of the repository being committed: git run in another one (a
    # store in a submodule) must not read it.
    out = dict(os.environ, **_ENV)
    out.update(_absolute_locations())
    if pathspec_magic:  # ":(exclude)PATH" understood, still no globbing
        out.update(GIT_LITERAL_PATHSPECS="0", GIT_NOGLOB_PATHSPECS="1")
    if cwd is not None and "GIT_INDEX_FILE" in out and not _in_committed_repository(cwd):
        del out["GIT_INDEX_FILE"]
    return out


# Where the repository is, when the environment says so. git reads a relative
# one from the folder it runs in, and memlint runs git in the store's folder
# or the repository's top, not only in its own: made absolute against its own.
_LOCATIONS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY")


def _absolute_locations() -> dict[str, str]:
    out = {}
    for name in _LOCATIONS:
        value = os.environ.get(name)
        if value and not os.path.isabs(value):
            try:
                out[name] = os.path.abspath(value)
            except OSError:  # memlint's folder was removed: left as it is
                pass
    return out


def _work_tree_top(folder: str | Path) -> Path | None:
    """The nearest folder at or above ``folder`` holding a ``.git`` (a
    repository, or a submodule's or worktree's ``.git`` file)."""
    start = Path(os.path.abspath(folder))
    for candidate in (start, *start.parents):
        if os.path.lexists(os.path.join(candidate, ".git")):
            return candidate
    return None


def _in_committed_repository(cwd: str | Path) -> bool:
    """Whether git run in ``cwd`` works on the repository of memlint's own
    folder (where a hook runs, and git set GIT_INDEX_FILE for it)."""
    if "GIT_DIR" in os.environ:
        return True  # every git call is on that repository, wherever it runs
    try:
        here = os.getcwd()
    except OSError:  # memlint's folder was removed: keep the index as git gave it
        return True
    key = (str(cwd), here)
    known = _SAME_REPOSITORY.get(key)
    if known is None:
        known = _SAME_REPOSITORY[key] = _work_tree_top(cwd) == _work_tree_top(here)
    return known


_SAME_REPOSITORY: dict[tuple[str, str], bool] = {}


def advice(repo_root: str | Path, args: list[str], paths: list[str], *, at_top: bool = False) -> str:
    """``git ARGS PATHS`` as a message tells a user to run it: pasted where
    memlint runs. ``paths`` are repository-relative; from a folder of the
    repository they are given from that folder (as git reads them), quoted
    for a shell. From outside it (or from a repository nested in it), and
    for a command that reads its paths from the top (``at_top``:
    `sparse-checkout add` in non-cone mode), git is sent to the top with
    ``-C`` and the paths are left as they are. A glob character in a path
    would match other files too: git is told to read them literally."""
    top = Path(repo_root).resolve()
    try:
        here = Path.cwd().resolve()
    except OSError:  # memlint's folder was removed
        here = None
    words = ["git"]
    if here != top:
        if here is not None and not at_top and _work_tree_top(here) == top:
            paths = [_relative(top / path, here) for path in paths]
        else:
            words += ["-C", _relative(top, here) if here is not None else str(top)]
    if not at_top and any(char in path for path in paths for char in "*?[\\"):
        words.append("--literal-pathspecs")
    words += args
    if any(path.startswith("-") for path in paths) and "--" not in args:
        words.append("--")
    return " ".join(map(shlex.quote, [*words, *paths]))


def _relative(path: Path, start: Path) -> str:
    try:
        return os.path.relpath(path, start)
    except ValueError:  # another drive
        return str(path)


def argv(args) -> list[str]:
    return ["git", *CONFIG, *args]


def run(cwd: str | Path, args, *, stdin: bytes | None = None, pathspec_magic: bool = False) -> tuple[int, bytes, str]:
    """(exit status, stdout bytes, stderr text) of ``git ARGS`` in ``cwd``."""
    try:
        done = subprocess.run(argv(args), cwd=cwd, env=env(pathspec_magic=pathspec_magic, cwd=cwd), capture_output=True, check=False,
                              input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)
    except OSError as exc:
        raise _why(exc, cwd) from None
    return done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")


def popen(cwd: str | Path, args, *, stdin: bool = False, stderr: bool = False,
          pathspec_magic: bool = False) -> subprocess.Popen:
    """``git ARGS`` started in ``cwd``, stdout piped (for several calls at once);
    stdin and stderr piped too when asked."""
    try:
        return subprocess.Popen(argv(args), cwd=cwd, env=env(pathspec_magic=pathspec_magic, cwd=cwd),
                                stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE if stderr else subprocess.DEVNULL)
    except OSError as exc:
        raise _why(exc, cwd) from None


def _why(exc: OSError, cwd) -> OSError:
    """GitMissing when git itself could not start; the error as it is when the
    folder to run in is the problem."""
    if not os.path.isdir(cwd):
        return exc
    return GitMissing(exc.errno, exc.strerror or str(exc))


def first_error_line(stderr: str) -> str:
    """The line that says what went wrong (warnings may come before it)."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
    return (errors or lines or [""])[0]


def background(fn, *args):
    """Run fn(*args) in a thread; returns a function that waits for its result
    (re-raising what it raised). Small git calls run while others work: the
    machine has a second core."""
    box: list = []

    def target() -> None:
        try:
            box.append((True, fn(*args)))
        except BaseException as e:  # re-raised in the caller's thread
            box.append((False, e))

    thread = threading.Thread(target=target, daemon=True)
    thread.start()

    def wait():
        thread.join()
        ok, value = box[0]
        if not ok:
            raise value
        return value

    return wait


def merge_heads(root: Path) -> tuple[str, ...]:
    """The commits a merge being made merges (MERGE_HEAD: a conflicted
    merge, ``--no-commit``; a pre-merge-commit hook: ``_merging_heads``), or ().
    (Here, not in memlint.history: the cache's key asks for them on every run.)"""
    if (root / ".git").is_dir() and not os.environ.get("GIT_DIR"):
        where = root / ".git" / "MERGE_HEAD"  # the common case, without a git call
    else:  # a worktree's or submodule's .git file, or GIT_DIR: git says where
        try:
            status, out, _ = run(root, ["rev-parse", "--git-path", "MERGE_HEAD"])
        except OSError:
            return ()
        if status:
            return ()
        where = root / out.decode("utf-8", "surrogateescape").strip()  # (an absolute path stays one)
    try:
        text = where.read_text("ascii")
    except (OSError, UnicodeDecodeError):
        return _merging_heads()  # no merge stopped half way; maybe one running
    heads = tuple(text.split())
    return heads if heads and all(map(_is_sha, heads)) else ()


def _merging_heads() -> tuple[str, ...]:
    """The commits a running ``git merge`` merges, seen from its
    pre-merge-commit hook: git writes MERGE_HEAD only once that hook has
    failed, but names each merged commit in a ``GITHEAD_<sha>`` variable
    (its label in conflict markers) for the whole merge, hooks included."""
    return tuple(sorted(name[len("GITHEAD_"):] for name in os.environ
                        if name.startswith("GITHEAD_") and _is_sha(name[len("GITHEAD_"):])))


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and not text.strip("0123456789abcdef")

"""Where memlint keeps its own state: under .git/memlint, else the user cache.

Inside .git the state travels with nothing (never committed, never pushed)
and disappears with the clone.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path


def git_dir(repo_root: Path) -> Path | None:
    """The repository's .git folder, following a worktree's `.git` file; None
    for one that is no git folder (no HEAD): memlint keeps pickles there, and
    a `.git` file naming any folder that came with the files must not make
    memlint load what was planted in it."""
    dot_git = repo_root / ".git"
    found = None
    if dot_git.is_dir():
        found = dot_git
    elif dot_git.is_file():
        try:
            # As git reads it: the whole file less its line end (the path may hold a newline, or U+2028)
            text = os.fsdecode(dot_git.read_bytes()).rstrip("\r\n")
        except OSError:
            return None
        if text.startswith("gitdir:"):
            target = Path(text[len("gitdir:"):].lstrip(" "))
            found = target if target.is_absolute() else (repo_root / target).resolve()
    if found is None or not (found / "HEAD").is_file() or found.resolve() == repo_root.resolve():
        return None
    return found


def common_dir(repo_root: Path) -> Path | None:
    """The folder a worktree shares with its main repository (refs, info,
    shallow): GIT_COMMON_DIR, else what the ``commondir`` file of the git
    folder (GIT_DIR, or the repository's .git) names, else that folder."""
    if os.environ.get("GIT_COMMON_DIR"):
        return Path(os.environ["GIT_COMMON_DIR"]).absolute()
    # GIT_DIR, as git hands it to a hook in a linked worktree, may be a
    # worktree's own folder: its `commondir` file still leads to the shared one
    folder = Path(os.environ["GIT_DIR"]).absolute() if os.environ.get("GIT_DIR") else git_dir(repo_root)
    if folder is None:
        return None
    try:
        shared = os.fsdecode((folder / "commondir").read_bytes()).rstrip("\r\n")  # (as git: a path may end in a space)
    except OSError:
        return folder
    return (folder / shared).resolve() if shared else folder


def _home() -> Path:
    """The user's home folder, for the cache under it. One that does not
    exist is not made (HOME=/nonexistent is how a service account says it has
    none), and one not written as an absolute path (HOME="") would put the
    cache in the current folder: either way, no cache (OSError)."""
    if os.environ.get("HOME") == "":  # (which Python reads as the top of the file system)
        raise OSError("HOME is empty: memlint keeps no cache for this store")
    try:
        home = Path.home()
    except RuntimeError as exc:  # no HOME, and no user entry to find one in
        raise OSError(str(exc)) from None
    if not home.is_absolute() or not home.is_dir():
        raise OSError(f"home folder {str(home)!r} does not exist: memlint keeps no cache for this store")
    return home


def state_dir(repo_root: Path, store_dir: Path) -> Path:
    """A writable folder for this store's state, created if needed."""
    base = git_dir(repo_root)
    if base is not None and os.access(base, os.W_OK):
        folder = base / "memlint"
    else:
        # A relative XDG_CACHE_HOME is to be ignored (the XDG spec): it would put the cache in the store
        xdg = os.environ.get("XDG_CACHE_HOME") or ""
        cache = Path(xdg) if os.path.isabs(xdg) else _home() / ".cache"
        key = hashlib.blake2b(os.fsencode(store_dir.resolve()), digest_size=8).hexdigest()
        folder = cache / "memlint" / key
    folder.mkdir(parents=True, exist_ok=True)
    if base is None or folder.parent != base:
        return folder
    # one folder per store inside a repository that holds several
    sub = folder / hashlib.blake2b(os.fsencode(store_dir.resolve()), digest_size=6).hexdigest()  # (any bytes)
    sub.mkdir(exist_ok=True)
    return sub

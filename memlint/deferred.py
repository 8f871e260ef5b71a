"""Writing the cache after the report is out, in a process nobody waits for.

The ``memlint`` program (``memlint.cli.run``) calls ``defer`` before its
run and ``write_left`` once its output is flushed: what a run's caches have
to write (40 MB of pickles after a first check of 10,000 files) is written
by a forked, detached process, as ``git gc --auto`` does its work, and the
hook or the user goes on at once. That process holds each cache folder's
``lock`` file (flock) while it writes; a run waits for it (``wait_for_writer``,
at most ``WRITER_WAIT`` seconds) before it reads that folder, so it finds
the cache whole. Without ``defer`` (memlint used as a library, the tests'
in-process runs) a cache writes at once.

Kept apart from ``memlint.cache`` so the program can ask for this without
importing it (``memlint --help`` needs no cache).
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

LOCK = "lock"
WRITER_WAIT = 10.0  # seconds: the biggest write seen (10,000 files, first run) takes well under one

# {owner: (its folder, the function writing what it has to)} left by ``leave``;
# None: nothing is left, each writes at once.
_left: dict | None = None


def defer() -> None:
    """From now on ``leave`` takes the writes, for ``write_left``."""
    global _left
    _left = {}


def leave(owner, folder: Path, write) -> bool:
    """Take ``write()`` (the whole of what ``owner`` has to write into
    ``folder``; a later call of the same owner replaces it) for
    ``write_left``; False, and nothing taken, when not deferring."""
    if _left is None:
        return False
    _left[id(owner)] = (owner, folder, write)  # (the owner kept alive: its id stays its own)
    return True


def write_left() -> None:
    """Do the writes ``leave`` took: in a forked process in a session of its
    own, its standard streams on /dev/null (so neither a Ctrl-C meant for
    what runs next nor a reader of this process's output waits on it), not
    waited for. It holds each folder's lock while it writes: taken here
    before the fork where it is free, so a run starting the moment this
    process ends waits for the writes; otherwise the writer takes it as
    soon as an earlier writer lets it go. Done here instead where a fork
    is not safe (another thread runs) or cannot be made."""
    global _left
    pending, _left = list((_left or {}).values()), None
    if not pending:
        return
    if not hasattr(os, "fork") or threading.active_count() > 1:
        _write_all(pending)
        return
    held: dict[Path, int | None] = {}  # one lock per folder: a second open of it would wait on the first
    for _, folder, _ in pending:
        if folder not in held:
            held[folder] = _lock(folder, wait=0.0)
    try:
        pid = os.fork()
    except OSError:
        pid = None
    if pid == 0:
        try:
            os.setsid()
            _detach_descriptors({fd for fd in held.values() if fd is not None})
            for folder, fd in held.items():
                if fd is None:
                    _lock(folder, wait=WRITER_WAIT)  # held until this process ends
            _write_all(pending)
        finally:
            os._exit(0)
    for fd in held.values():  # the child's copies keep the locks held
        if fd is not None:
            os.close(fd)
    if pid is None:
        _write_all(pending)


def _detach_descriptors(keep: set[int]) -> None:
    """The standard streams on /dev/null, and every other descriptor
    inherited closed but ``keep``: a reader of any pipe this process was
    given (a wrapper's, a job server's) sees it end when the program does."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    try:
        limit = os.sysconf("SC_OPEN_MAX")
    except (AttributeError, OSError, ValueError):
        limit = 1024
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, max(low, limit))


def _write_all(pending: list) -> None:
    for _, _, write in pending:
        write()


def wait_for_writer(folder: Path) -> None:
    """Return once no process writes ``folder`` after its run (``write_left``),
    or after ``WRITER_WAIT`` seconds."""
    fd = _lock(folder, wait=WRITER_WAIT, shared=True)
    if fd is not None:
        os.close(fd)


def _lock(folder: Path, *, wait: float, shared: bool = False) -> int | None:
    """A descriptor of ``folder``'s lock file, holding its lock (exclusive,
    or ``shared``) taken within ``wait`` seconds; None when it was not
    (another holds it still) or cannot be (no flock, a folder not writable)."""
    try:
        import fcntl
    except ImportError:
        return None
    try:
        # (a FIFO or a link planted under the name neither hangs the run nor leads elsewhere)
        fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError:
        return None
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                break
            time.sleep(0.005)
        except OSError:
            break
    os.close(fd)
    return None

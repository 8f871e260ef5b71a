"""Atomic writes: a temp file in the same folder, fsync, then rename.

An interrupted write leaves either the old file or the new one, never a
truncated mix; the file's mode is kept, its extended attributes (an ACL,
an SELinux label) and its owner where the writer may set them. A hard link to the old file keeps the old content: the new
file is a new inode, as with most editors' saves.
"""
from __future__ import annotations

import os
import re
import select
import stat
import sys
import tempfile
from pathlib import Path


class ChangedMeanwhile(Exception):
    """The file no longer holds what the write was made from: left as it is."""


def write_bytes_atomic(path: Path, data: bytes, *, durable: bool = True, own_file: bool = False,
                       expected: bytes | None = None) -> None:
    """``durable=False`` skips the fsync: still all-or-nothing for readers, but a
    power cut may lose the write (fine for a cache that checks what it reads).
    ``own_file``: a file only memlint writes (its cache): a symbolic link or
    device found there is replaced, never written through.
    ``expected``: what the file held when ``data`` was made from it; if it
    holds anything else just before the rename (an editor saved it
    meanwhile), ChangedMeanwhile is raised and the file is left as it is.
    A failure is an OSError naming ``path`` as given (not the temp file, nor
    nothing, as a full device says)."""
    try:
        _write_bytes_atomic(Path(path), data, durable, own_file, expected)
    except OSError as exc:
        if exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from None  # the subclass the errno makes


def _write_bytes_atomic(path: Path, data: bytes, durable: bool, own_file: bool = False,
                        expected: bytes | None = None) -> None:
    fd = None if own_file else _descriptor_named(path)
    if fd is not None:
        # /dev/stdout, /dev/fd/N: a stream this process holds, not a file to
        # replace, even when the shell sent it to one (`>> ci.log`): a rename
        # would throw away what the file held, and reopening it would truncate
        # it (a socket cannot be reopened at all). Written where the stream
        # stands, as a print would be, after what this process printed to it.
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None and not stream.closed:
                    stream.flush()
            except (OSError, ValueError):  # its own failure is its writer's to report
                pass
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:  # a pipe an earlier CI step left non-blocking: wait for its reader
                waiting = select.poll()
                waiting.register(fd, select.POLLOUT)
                waiting.poll()
            except BrokenPipeError:  # a reader that stopped reading (`| head -1`): the run's exit status stands
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, fd)
                os.close(devnull)
                return
        return
    try:
        # A user's file: a symlink's target is what changes. memlint's own: the link itself.
        info = os.lstat(path) if own_file else os.stat(path)
    except FileNotFoundError:
        info = None
    if own_file and info is not None and not stat.S_ISREG(info.st_mode):
        info = None  # replaced by a regular file, whatever was there
    if info is not None and not stat.S_ISREG(info.st_mode):
        # /dev/null, a FIFO: there is nothing to replace, and a
        # rename over a device would destroy it. Write straight through.
        with open(path, "wb") as fh:
            fh.write(data)
        return
    if not own_file and path.is_symlink():
        path = path.resolve()
    owner = None
    try:
        if own_file and info is None:
            raise FileNotFoundError  # nothing of memlint's own there yet
        st = info if own_file else os.stat(path)
        mode, owner = stat.S_IMODE(st.st_mode), (st.st_uid, st.st_gid)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    # The temp file's name must fit the 255-byte limit too: a long name is cut short in it.
    name = path.name if len(os.fsencode(path.name)) <= 100 else path.name[:24]
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".memlint-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if owner is not None and owner != (os.getuid(), os.getgid()) and hasattr(os, "chown"):
            try:
                os.chown(tmp, *owner)  # root rewriting a user's file leaves it theirs
            except OSError:
                pass  # not allowed: the file becomes the writer's, as any editor's save makes it
        os.chmod(tmp, mode)
        if owner is not None:
            _copy_xattrs(path, tmp)
        # Checked last, when all else is ready: the rename would drop an edit made since the read.
        if expected is not None and _held(path) != expected:
            raise ChangedMeanwhile(str(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


_DESCRIPTOR = re.compile(r"/(?:dev|proc/(?:self|thread-self|(\d+)))/fd/(\d+)")


def _descriptor_named(path: Path) -> int | None:
    """The open descriptor of this process that ``path`` names, following
    symbolic links (/dev/stdout is one to /proc/self/fd/1), else None."""
    name = os.path.abspath(path)
    for _ in range(40):  # as the kernel follows at most 40 links
        match = _DESCRIPTOR.fullmatch(name)
        if match:
            return int(match[2]) if match[1] is None or int(match[1]) == os.getpid() else None
        try:
            name = os.path.normpath(os.path.join(os.path.dirname(name), os.readlink(name)))
        except OSError:  # not a link (or not there): an ordinary path
            return None
    return None


def _held(path: Path) -> bytes | None:
    """What ``path`` holds now; None when it cannot be read (removed meanwhile)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def _copy_xattrs(source: Path, target: str) -> None:
    """The old file's extended attributes on the new one: its ACL
    (system.posix_acl_access), its SELinux label, a user's own tags. Each
    is copied where the writer may set it; one it may not stays behind, as
    with an editor's save."""
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(source)
    except OSError:
        return
    for name in names:
        try:
            os.setxattr(target, name, os.getxattr(source, name))
        except OSError:
            pass


def write_text_atomic(path: Path, text: str) -> None:
    # A file name that is not UTF-8 reaches a report as lone surrogates:
    # written as \udcXX escapes (valid in JSON too), not a failed write.
    write_bytes_atomic(path, text.encode("utf-8", "backslashreplace"))

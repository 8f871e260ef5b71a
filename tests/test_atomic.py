"""Atomic writes never replace what is not a regular file."""
from __future__ import annotations

import os
import stat

from memlint.atomic import write_bytes_atomic, write_text_atomic


def test_replaces_a_file_and_keeps_its_mode(tmp_path):
    target = tmp_path / "a.md"
    target.write_text("old")
    os.chmod(target, 0o640)
    write_text_atomic(target, "new")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["a.md"]  # no temp file left


def test_writes_through_a_device_instead_of_replacing_it():
    write_text_atomic(os.devnull, "discarded")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_writes_through_a_fifo(tmp_path):
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    write_text_atomic(fifo, "through")
    reader.join(5)
    assert got == ["through"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_writes_the_file_a_symlink_names(tmp_path):
    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    write_text_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_name_near_the_length_limit_is_written(tmp_path):
    """The temp file beside it adds to the name: it must still fit in 255 bytes."""
    path = tmp_path / ("記憶" * 40 + ".md")  # 243 bytes of UTF-8
    path.write_text("old\n")
    write_bytes_atomic(path, b"new\n")
    assert path.read_bytes() == b"new\n"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp file left


def test_extended_attributes_are_kept(tmp_path):
    """An ACL or an SELinux label lives in extended attributes: a rewrite
    must not drop them (a user's own attribute stands in for them here)."""
    import pytest

    path = tmp_path / "a.md"
    path.write_text("old\n")
    try:
        os.setxattr(path, "user.memlint-test", b"kept")
    except (AttributeError, OSError):
        pytest.skip("no user extended attributes on this file system")
    write_text_atomic(path, "new\n")
    assert path.read_text() == "new\n" and os.getxattr(path, "user.memlint-test") == b"kept"


def test_memlints_own_file_replaces_a_symlink_planted_there(tmp_path):
    """The cache is memlint's own: a link left in its place is replaced, and
    the file it points to is not written through it."""
    from memlint.atomic import write_bytes_atomic

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    planted = tmp_path / "cache" / "shard.pickle"
    planted.parent.mkdir()
    planted.symlink_to(victim)
    write_bytes_atomic(planted, b"cache\n", durable=False, own_file=True)
    assert victim.read_text() == "keep me\n"
    assert not planted.is_symlink() and planted.read_bytes() == b"cache\n"


def test_a_file_changed_since_it_was_read_is_left_as_it_is(tmp_path, monkeypatch):
    """An editor's save while the new content was being written is not replaced."""
    import pytest

    from memlint import atomic

    path = tmp_path / "a.md"
    path.write_bytes(b"as read\n")
    real = atomic._copy_xattrs

    def saved_meanwhile(source, target):  # the last step before the rename
        path.write_bytes(b"saved by an editor\n")
        real(source, target)

    monkeypatch.setattr(atomic, "_copy_xattrs", saved_meanwhile)
    with pytest.raises(atomic.ChangedMeanwhile):
        write_bytes_atomic(path, b"new\n", expected=b"as read\n")
    assert path.read_bytes() == b"saved by an editor\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.md"]  # no temp file left
    monkeypatch.setattr(atomic, "_copy_xattrs", real)
    write_bytes_atomic(path, b"new\n", expected=b"saved by an editor\n")
    assert path.read_bytes() == b"new\n"

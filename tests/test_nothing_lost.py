"""Nothing lost: ``check`` writes nothing, and writes that memlint does make
are atomic (old or new, never truncated, mode kept) even when killed.

Why an audit hook and not ``chmod -R a-w``: tests run as root in CI, and
root writes through file permissions. Python's audit hooks (PEP 578) see
every ``open()`` with its flags, every rename, unlink, mkdir, chmod and
subprocess, from Python code and from C extensions alike, so a write is
caught even when it would have succeeded and even outside the store (a
cache in $HOME). Subprocesses (git) are outside the hook: they are limited
to read-only git commands, and a byte-for-byte snapshot of the whole tree,
``.git`` included, catches anything else that changes a file in it.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import CORPORA, REPO, TESTDATA

AUDITED = r"""
import json, os, sys
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
MUTATING = {
    "os.rename", "os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.chflags",
    "os.truncate", "os.utime", "os.symlink", "os.link", "os.system", "os.exec", "os.posix_spawn",
    "os.spawn", "os.fork", "shutil.copyfile", "shutil.copymode", "shutil.copystat", "shutil.copytree",
    "shutil.move", "shutil.rmtree", "shutil.chown", "tempfile.mkstemp", "tempfile.mkdtemp",
    "sqlite3.connect", "dbm.open", "shelve.open",
}
events = []
def hook(event, args):
    if event == "open":
        path, mode, flags = args
        # A descriptor (an int) is a pipe subprocess wraps to feed git's stdin, not a file opened.
        if isinstance(path, int):
            return
        if (isinstance(mode, str) and set(mode) & set("wax+")) or (flags or 0) & WRITE_FLAGS:
            events.append(["open", str(path), str(mode)])
    elif event in MUTATING:
        events.append([event] + [str(a) for a in args[:2]])
    elif event == "subprocess.Popen":
        events.append(["subprocess", [str(a) for a in (args[1] or [args[0]])]])
sys.addaudithook(hook)
sys.argv = ["memlint"] + sys.argv[1:]
try:
    from memlint.cli import main
    main()  # what the program runs, less its os._exit at the end
finally:
    os.write(2, ("\nAUDIT " + json.dumps(events) + "\n").encode())
"""

# git subcommands that never write to the repository (no index refresh, no gc)
READ_ONLY_GIT = {"diff", "log", "rev-parse", "ls-files", "cat-file", "rev-list", "show", "ls-tree", "version",
                 "for-each-ref", "merge-base", "config", "diff-tree", "name-rev", "blame"}


def audited_check(*args, cwd: Path) -> tuple[subprocess.CompletedProcess, list]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    env.update(PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1", HOME=str(cwd), XDG_CACHE_HOME=str(cwd / ".cache"))
    proc = subprocess.run([sys.executable, "-c", AUDITED, "check", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    stderr, _, audit = proc.stderr.rpartition("\nAUDIT ")
    assert "Traceback" not in stderr, stderr
    return proc, json.loads(audit)


def snapshot(top: Path) -> dict:
    """Every file and folder under ``top`` (.git included): bytes, mode, mtime."""
    state = {}
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = Path(folder, name)
            st = path.lstat()
            entry = (stat.S_IMODE(st.st_mode), st.st_mtime_ns, st.st_size)
            if stat.S_ISREG(st.st_mode):
                entry += (hashlib.sha256(path.read_bytes()).hexdigest(),)
            elif stat.S_ISLNK(st.st_mode):
                entry += (os.readlink(path),)
            state[str(path.relative_to(top))] = entry
    return state


def _set_writable(top: Path, writable: bool) -> None:
    for folder, dirs, files in os.walk(top):
        for path in [Path(folder)] + [Path(folder, n) for n in files]:
            if path.is_symlink():
                continue
            mode = stat.S_IMODE(path.stat().st_mode)
            path.chmod(mode | stat.S_IWUSR if writable else mode & ~0o222)


@pytest.fixture
def read_only_stores(tmp_path, corpora):
    """A read-only copy of the sample stores and of a real store with its git history."""
    top = tmp_path / "ro"
    for store in ("clean", "claude-code", "openclaw", "moc", "three-layer", "bad"):
        shutil.copytree(TESTDATA / store, top / "samples" / store)
    shutil.copytree(corpora["ssam"], top / "ssam", symlinks=True)
    _set_writable(top, False)  # what a user would do; root writes through it, hence the audit
    yield top
    _set_writable(top, True)  # so that pytest can clean up


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_check_writes_nothing(read_only_stores, fmt):
    before = snapshot(read_only_stores)
    paths = [read_only_stores / "samples" / s for s in ("clean", "claude-code", "openclaw", "moc", "three-layer", "bad")]
    paths.append(read_only_stores / "ssam" / CORPORA["ssam"][1])
    proc, events = audited_check("--format", fmt, "--today", "2026-11-30", *paths, cwd=read_only_stores)
    assert proc.returncode == 1 and proc.stdout  # it did lint: there are planted errors
    # /dev/null is where memlint points git's stdin: a device, not a file
    writes = [e for e in events if e[0] != "subprocess" and e[1:2] != [os.devnull]]
    assert writes == []
    for _, command in (e for e in events if e[0] == "subprocess"):
        assert Path(command[0]).name == "git", command
        sub = next(a for a in command[1:] if not a.startswith("-") and "=" not in a)
        assert sub in READ_ONLY_GIT, command
    assert snapshot(read_only_stores) == before


def test_audit_hook_sees_a_write(tmp_path):
    """The hook is not blind: --output is a write, and it is reported."""
    store = tmp_path / "s"
    shutil.copytree(TESTDATA / "clean", store)
    proc, events = audited_check("--output", tmp_path / "report.txt", store, cwd=tmp_path)
    assert proc.returncode == 0
    assert any(e[0] == "os.rename" and e[2] == str(tmp_path / "report.txt") for e in events), events
    assert any(e[0] == "tempfile.mkstemp" for e in events), events


def test_check_output_replaces_the_report_and_keeps_its_mode(tmp_path, cli):
    store = tmp_path / "s"
    shutil.copytree(TESTDATA / "claude-code", store)
    report = tmp_path / "report.txt"
    report.write_text("old report\n")
    report.chmod(0o640)
    result = cli("check", "--output", report, store)
    assert result.exit_code == 1 and result.output == ""
    assert report.read_text().startswith("MEMORY.md:5:")
    assert stat.S_IMODE(report.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt", "s"]  # no temp file left


# ---------------------------------------------------------------- killed mid-write

WRITER = r"""
import sys
from pathlib import Path
from memlint.atomic import write_bytes_atomic
folder, count = Path(sys.argv[1]), int(sys.argv[2])
generation = 0
while True:
    generation += 1
    for i in range(count):
        write_bytes_atomic(folder / f"f{i}.md", f"generation {generation} of file {i}\n".encode() * 20000)
    if generation == 1:
        print("one round written", flush=True)
"""
FILES = 12
MODES = [0o644, 0o600, 0o640, 0o755]


def _old(i: int) -> bytes:
    return f"old content of file {i}\n".encode() * 5000


def _whole(i: int, data: bytes) -> bool:
    """Old bytes, or one complete generation of new bytes: never a torn mix."""
    if data == _old(i):
        return True
    m = re.match(rb"generation (\d+) of file (\d+)\n", data)
    return bool(m) and int(m.group(2)) == i and data == m.group(0) * 20000


@pytest.mark.parametrize("delay", [0.05, 0.12, 0.25, "after-one-round"])
def test_killed_writer_leaves_every_file_old_or_new(tmp_path, delay):
    folder = tmp_path / "store"
    folder.mkdir()
    for i in range(FILES):
        path = folder / f"f{i}.md"
        path.write_bytes(_old(i))
        path.chmod(MODES[i % len(MODES)])
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(folder), str(FILES)], env=env,
                              stdout=subprocess.PIPE, text=True)
    try:
        if delay == "after-one-round":
            assert writer.stdout.readline() == "one round written\n"
            time.sleep(random.uniform(0.0, 0.05))
        else:
            time.sleep(delay)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
    assert writer.returncode == -signal.SIGKILL
    for i in range(FILES):
        path = folder / f"f{i}.md"
        assert _whole(i, path.read_bytes()), f"{path.name} is torn"
        assert stat.S_IMODE(path.stat().st_mode) == MODES[i % len(MODES)], path.name
    leftovers = {p.name for p in folder.iterdir()} - {f"f{i}.md" for i in range(FILES)}
    # SIGKILL leaves no chance to clean up: at most the one temp file in flight,
    # hidden and not named *.md, so memlint never lints it.
    assert len(leftovers) <= 1 and all(re.fullmatch(r"\.f\d+\.md\..+\.memlint-tmp", n) for n in leftovers), leftovers

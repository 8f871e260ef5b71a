"""Benchmark: memlint.history.load_history vs `git log --name-status -M -z` alone.

Not a test (no timed assertions). Run:  python3 -m tests.perf.bench_history
Builds deterministic synthetic stores with `git fast-import` (cached under
--cache, default $TMPDIR/memlint-bench) and prints the median of 5 runs.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

START = 1672531200  # 2023-01-01T00:00:00Z
TWO_YEARS = 2 * 365 * 86400
TOPICS = ["people", "projects", "decisions", "journal", "facts", "howto", "incidents", "ideas"]


def _quote(path: str) -> bytes:
    # fast-import accepts C-style quoted paths everywhere; quoting always avoids
    # the space-in-source-path ambiguity of R/C.
    return b'"' + path.encode().replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'


class _Store:
    """Deterministic memory-store content; lines are kept so edits stay small
    (renames with edits remain detectable by -M)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 9))) for _ in range(3000)]
        self.content: dict[str, list[str]] = {}
        self.alive: list[str] = []
        self.index: dict[str, int] = {}
        self.serial = 0

    def sentence(self) -> str:
        return " ".join(self.rng.choices(self.words, k=self.rng.randint(6, 16))) + "."

    def new_path(self, ts: int) -> str:
        self.serial += 1
        topic = self.rng.choice(TOPICS)
        name = f"note-{self.serial:06d}"
        if self.serial % 97 == 0:
            name += " café"  # some spaces + unicode, like real stores
        return f"store/{topic}/{time.strftime('%Y-%m', time.gmtime(ts))}/{name}.md"

    def new_file(self, path: str, ts: int) -> None:
        lines = ["---", f"title: {self.sentence()}", f"created: {time.strftime('%Y-%m-%d', time.gmtime(ts))}", "---", ""]
        lines += [self.sentence() for _ in range(self.rng.randint(10, 30))]
        self.content[path] = lines
        self.index[path] = len(self.alive)
        self.alive.append(path)

    def forget(self, path: str) -> None:
        i = self.index.pop(path)
        last = self.alive.pop()
        if last != path:  # swap-remove keeps random picks O(1)
            self.alive[i] = last
            self.index[last] = i
        del self.content[path]

    def edit(self, path: str) -> None:
        lines = self.content[path]
        if self.rng.random() < 0.6:
            lines.append(self.sentence())
        else:
            lines[self.rng.randrange(5, len(lines))] = self.sentence()

    def blob(self, path: str) -> bytes:
        return ("\n".join(self.content[path]) + "\n").encode()


def fast_import_stream(n_files: int, n_commits: int, seed: int = 0):
    """Yield a fast-import stream: ~n_files alive at the end, n_commits commits over
    two years, with adds, edits, pure renames, renames with edits, copies, deletes."""
    rng = random.Random(seed)
    store = _Store(rng)
    n_deletes, n_renames, n_copies = n_files // 20, n_files * 17 // 200, n_files // 100
    n_adds = n_files + n_deletes - n_copies
    for c in range(n_commits):
        ts = START + c * TWO_YEARS // n_commits + rng.randrange(0, 3600)
        ops: list[bytes] = []
        touched: set[str] = set()

        def pick() -> str | None:
            for _ in range(5):
                p = rng.choice(store.alive)
                if p not in touched:
                    touched.add(p)
                    return p
            return None

        def put(p: str) -> None:
            data = store.blob(p)
            ops.append(b"M 100644 inline " + _quote(p) + b"\ndata %d\n" % len(data) + data)

        for _ in range((c + 1) * n_adds // n_commits - c * n_adds // n_commits):
            p = store.new_path(ts)
            store.new_file(p, ts)
            touched.add(p)
            put(p)
        if len(store.alive) > 20:
            for _ in range(rng.choice((0, 1, 2, 3, 3, 4, 6))):
                p = pick()
                if p:
                    store.edit(p)
                    put(p)
            if rng.random() < n_renames / n_commits:
                old = pick()
                if old:
                    new = store.new_path(ts)
                    store.content[new] = store.content[old]
                    store.content[old] = []
                    store.forget(old)
                    store.index[new] = len(store.alive)
                    store.alive.append(new)
                    touched.add(new)
                    ops.append(b"R " + _quote(old) + b" " + _quote(new) + b"\n")
                    if rng.random() < 0.4:  # rename with edits
                        store.edit(new)
                        put(new)
            if rng.random() < n_deletes / n_commits:
                p = pick()
                if p:
                    store.forget(p)
                    ops.append(b"D " + _quote(p) + b"\n")
            if rng.random() < n_copies / n_commits:
                src = pick()
                if src:
                    dst = store.new_path(ts)
                    store.content[dst] = list(store.content[src])
                    store.index[dst] = len(store.alive)
                    store.alive.append(dst)
                    touched.add(dst)
                    ops.append(b"C " + _quote(src) + b" " + _quote(dst) + b"\n")
                    store.edit(src)  # source modified in the same commit: -C can see it
                    put(src)
        msg = b"commit %d\n" % c
        yield (b"commit refs/heads/main\nmark :%d\n" % (c + 1)
               + b"author Bench <bench@example.com> %d +0000\n" % ts
               + b"committer Bench <bench@example.com> %d +0000\n" % (ts + 60)
               + b"data %d\n" % len(msg) + msg
               + (b"from :%d\n" % c if c else b"")
               + b"".join(ops) + b"\n")


def build_repo(path: Path, n_files: int, n_commits: int, seed: int = 0) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=path, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    for chunk in fast_import_stream(n_files, n_commits, seed):
        proc.stdin.write(chunk)
    proc.stdin.close()
    if proc.wait():
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "read-tree", "HEAD"], cwd=path, check=True)  # index = HEAD, nothing staged
    return path


def cached_repo(cache: Path, n_files: int, n_commits: int) -> Path:
    path = cache / f"store-{n_files}-{n_commits}"
    if not (path / ".git" / "memlint-bench-done").exists():
        build_repo(path, n_files, n_commits)
        (path / ".git" / "memlint-bench-done").touch()
    return path


def timings(fn, repeats: int) -> tuple[float, float]:
    """(median, min) wall time; the min shows the cost on a quiet machine."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "memlint-bench")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", default="1000x1000,10000x5000", help="FILESxCOMMITS,...")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from memlint.history import load_history

    for size in args.sizes.split(","):
        n_files, n_commits = map(int, size.split("x"))
        t = time.perf_counter()
        repo = cached_repo(args.cache, n_files, n_commits)
        built = time.perf_counter() - t
        floor_cmd = ["git", "log", "--name-status", "-M", "-z"]

        def floor() -> None:
            subprocess.run(floor_cmd, cwd=repo, stdout=subprocess.PIPE, check=True)

        floor()  # warm the page cache
        h = load_history(repo)
        statuses = subprocess.run(["git", "log", "-M", "--name-status", "--format=", "-z"],
                                  cwd=repo, stdout=subprocess.PIPE, check=True).stdout.split(b"\0")
        n_renames = sum(1 for s in statuses if s[:1] == b"R" and s[1:].isdigit())
        for _ in range(2):  # interleaved rounds: a busy machine slows both sides alike
            f_med, f_min = timings(floor, args.repeats)
            l_med, l_min = timings(lambda: load_history(repo), args.repeats)
        print(f"{n_files} files / {n_commits} commits ({len(h.files)} at HEAD, {n_renames} renames; "
              f"repo ready in {built:.1f}s)")
        print(f"  git log --name-status -M -z alone : median {f_med:.3f} s  (min {f_min:.3f})")
        print(f"  load_history                      : median {l_med:.3f} s  (min {l_min:.3f})"
              f"  -> {l_med / f_med:.2f}x median, {l_min / f_min:.2f}x min")

if __name__ == "__main__":
    main()

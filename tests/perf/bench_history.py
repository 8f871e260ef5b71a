"""Benchmark: memlint.history.load_history vs `git log --name-status -M -z` alone.

Also times the dates as the rules get them (``Store.git_dates.of`` for every
file, history load included, file parsing not), and MEM404's worst case:
every file a candidate (verified a year before HEAD, then changed), one
``git log -p`` over the year.

Not a test (no timed assertions). Run from the repository root:

    python3 -m tests.perf.bench_history [--sizes 1000x1000,10000x5000] [--repeats 5]

Builds deterministic synthetic stores with `git fast-import` (cached under
--cache), checks every date load_history finds against the truth the
generator recorded, then prints median (and min) timings.
"""
from __future__ import annotations

import argparse
import random
import resource
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
    # fast-import takes C-style quoted paths anywhere; always quoting avoids
    # the space-in-source-path ambiguity of R and C.
    return b'"' + path.encode().replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'


class SyntheticStore:
    """A deterministic memory store evolving commit by commit.

    Content is kept as lines so that edits stay small (renames with edits stay
    detectable by -M). `truth` maps each live path to the (created, changed)
    author timestamps it must get: what load_history should find.
    """

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self.words = ["".join(self.rng.choices("abcdefghijklmnopqrstuvwxyz", k=self.rng.randint(2, 9)))
                      for _ in range(3000)]
        self.lines: dict[str, list[str]] = {}
        self.truth: dict[str, tuple[int, int]] = {}
        self.paths: list[str] = []  # live paths, for O(1) random picks
        self.slot: dict[str, int] = {}
        self.deleted: list[str] = []
        self.serial = 0
        self.now = START  # the commit being built
        # Paths a subclass changed as a side effect of an operation (an index
        # that lists a renamed file...): written at the end of the commit.
        self.dirty: dict[str, None] = {}

    def movable(self, path: str) -> bool:
        """Whether random edits, renames, deletes and copies may pick ``path``."""
        return True

    def sentence(self) -> str:
        return " ".join(self.rng.choices(self.words, k=self.rng.randint(6, 16))) + "."

    def new_path(self, ts: int) -> str:
        if self.deleted and self.rng.random() < 0.02:
            return self.deleted.pop()  # re-added at a deleted path: born again
        self.serial += 1
        name = f"note-{self.serial:06d}" + (" café" if self.serial % 97 == 0 else "")  # spaces, unicode
        return f"store/{self.rng.choice(TOPICS)}/{time.strftime('%Y-%m', time.gmtime(ts))}/{name}.md"

    def _live(self, path: str, lines: list[str], dates: tuple[int, int]) -> None:
        self.lines[path], self.truth[path] = lines, dates
        self.slot[path] = len(self.paths)
        self.paths.append(path)

    def _gone(self, path: str) -> list[str]:
        i, last = self.slot.pop(path), self.paths.pop()
        if last != path:  # swap-remove
            self.paths[i], self.slot[last] = last, i
        del self.truth[path]
        return self.lines.pop(path)

    def add(self, path: str, ts: int) -> None:
        head = ["---", f"title: {self.sentence()}", f"created: {time.strftime('%Y-%m-%d', time.gmtime(ts))}", "---"]
        self._live(path, head + [self.sentence() for _ in range(self.rng.randint(10, 30))], (ts, ts))

    def edit(self, path: str, ts: int) -> None:
        lines = self.lines[path]
        if self.rng.random() < 0.6:
            lines.append(self.sentence())
        else:
            lines[self.rng.randrange(4, len(lines))] = self.sentence()
        self.truth[path] = (self.truth[path][0], ts)

    def rename(self, old: str, new: str) -> str | None:
        """Move ``old``; returns the path it got (a subclass may choose another), or None."""
        dates = self.truth[old]
        self._live(new, self._gone(old), dates)
        return new

    def copy(self, src: str, dst: str, ts: int) -> None:
        self._live(dst, list(self.lines[src]), (ts, ts))  # a copy is born, not inherited

    def delete(self, path: str) -> None:
        self._gone(path)
        self.deleted.append(path)

    def blob(self, path: str) -> bytes:
        return ("\n".join(self.lines[path]) + "\n").encode()

    def commits(self, n_files: int, n_commits: int):
        """Yield fast-import commits: about n_files live at the end, n_commits over
        two years, with adds, edits, pure renames, renames with edits, copies
        and deletes (rates like a real store's: 8.5% renamed, 5% deleted)."""
        rng = self.rng
        n_deletes, n_renames, n_copies = n_files // 20, n_files * 17 // 200, n_files // 100
        n_adds = n_files + n_deletes - n_copies
        for c in range(n_commits):
            ts = START + c * TWO_YEARS // n_commits + rng.randrange(0, 3600)
            self.now = ts
            ops: list[bytes] = []
            touched: set[str] = set()

            def pick() -> str | None:
                p = rng.choice(self.paths)
                if p in touched or not self.movable(p):
                    return None
                touched.add(p)
                return p

            def put(p: str) -> None:
                data = self.blob(p)
                ops.append(b"M 100644 inline %s\ndata %d\n%s" % (_quote(p), len(data), data))

            for _ in range((c + 1) * n_adds // n_commits - c * n_adds // n_commits):
                p = self.new_path(ts)
                if p in touched or p in self.truth:
                    continue
                self.add(p, ts)
                touched.add(p)
                put(p)
            if len(self.paths) > 20:
                for _ in range(rng.choice((0, 1, 2, 3, 3, 4, 6))):
                    if p := pick():
                        self.edit(p, ts)
                        put(p)
                if rng.random() < n_renames / n_commits and (old := pick()):
                    new = self.new_path(ts)
                    if new not in touched and new not in self.truth and (new := self.rename(old, new)):
                        touched.add(new)
                        ops.append(b"R %s %s\n" % (_quote(old), _quote(new)))
                        if rng.random() < 0.4:  # a rename with edits
                            self.edit(new, ts)
                            put(new)
                if rng.random() < n_deletes / n_commits and (p := pick()):
                    self.delete(p)
                    ops.append(b"D %s\n" % _quote(p))
                if rng.random() < n_copies / n_commits and (src := pick()):
                    dst = self.new_path(ts)
                    if dst not in touched and dst not in self.truth:
                        touched.add(dst)
                        self.copy(src, dst, ts)
                        ops.append(b"C %s %s\n" % (_quote(src), _quote(dst)))
                        self.edit(src, ts)  # the source changes too, so `log -C` can see the copy
                        put(src)
            for p in self.dirty:
                if p in self.lines:
                    put(p)
            self.dirty.clear()
            yield commit_record(c, ts, b"commit %d\n" % c, ops)


def commit_record(c: int, ts: int, msg: bytes, ops: list[bytes]) -> bytes:
    """The fast-import record of the (c+1)-th commit on main (mark c+1)."""
    return (b"commit refs/heads/main\nmark :%d\n" % (c + 1)
            + b"author Bench <bench@example.com> %d +0000\n" % ts
            + b"committer Bench <bench@example.com> %d +0000\n" % (ts + 60)
            + b"data %d\n%s" % (len(msg), msg)
            + (b"from :%d\n" % c if c else b"")
            + b"".join(ops) + b"\n")


def build_repo(path: Path, n_files: int, n_commits: int, seed: int = 0) -> dict[str, tuple[int, int]]:
    """Create the repository at `path`; return the true (created, changed) per file."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    store = SyntheticStore(seed)
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=path, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    for chunk in store.commits(n_files, n_commits):
        proc.stdin.write(chunk)
    proc.stdin.close()
    if proc.wait():
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "read-tree", "HEAD"], cwd=path, check=True)  # index = HEAD: nothing staged
    return store.truth


def cached_repo(cache: Path, n_files: int, n_commits: int) -> tuple[Path, dict[str, tuple[int, int]]]:
    path = cache / f"store-{n_files}-{n_commits}"
    truth_file = path / ".git" / "memlint-truth.tsv"
    if truth_file.exists():
        rows = (line.split("\t") for line in truth_file.read_text("utf-8").splitlines())
        return path, {p: (int(c), int(m)) for p, c, m in rows}
    truth = build_repo(path, n_files, n_commits)
    truth_file.write_text("".join(f"{p}\t{c}\t{m}\n" for p, (c, m) in truth.items()), "utf-8")
    return path, truth


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timings(fn, repeats: int) -> tuple[float, float, float]:
    """Median wall, min wall, and median CPU (this process + git). On a busy
    machine wall times swing; CPU time shows the work done."""
    walls, cpus = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), _cpu()
        fn()
        walls.append(time.perf_counter() - t)
        cpus.append(_cpu() - c)
    return statistics.median(walls), min(walls), statistics.median(cpus)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "memlint-bench")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", default="1000x1000,10000x5000", help="FILESxCOMMITS,...")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's memlint
    from memlint.history import load_history

    for size in args.sizes.split(","):
        n_files, n_commits = map(int, size.split("x"))
        t = time.perf_counter()
        repo, truth = cached_repo(args.cache, n_files, n_commits)
        built = time.perf_counter() - t
        floor_cmd = ["git", "log", "--name-status", "-M", "-z"]

        def floor() -> None:
            subprocess.run(floor_cmd, cwd=repo, stdout=subprocess.PIPE, check=True)

        h = load_history(repo)
        found = {p: (int(d.created.timestamp()), int(d.changed.timestamp())) for p, d in h.files.items()}
        wrong = sum(1 for p in truth.keys() | found.keys() if truth.get(p) != found.get(p))
        statuses = subprocess.run([*floor_cmd, "--format="], cwd=repo, stdout=subprocess.PIPE,
                                  check=True).stdout.split(b"\0")
        n_renames = sum(1 for s in statuses if s[:1] == b"R" and s[1:].isdigit())
        print(f"{n_files} files / {n_commits} commits: {len(h.files)} at HEAD, {n_renames} renames "
              f"(repo ready in {built:.1f} s); dates differing from the truth: {wrong}")
        for _ in range(2):  # the first round warms caches; interleaving spreads machine noise
            floor_t = timings(floor, args.repeats)
            load_t = timings(lambda: load_history(repo), args.repeats)
        store, docs = _store(repo)
        def all_dates():
            git = _fresh(store)  # history loaded again, once for all files
            return [git.of(d) for d in docs]

        dated = sum(1 for d in all_dates() if d.created is not None)
        dates_t = timings(all_dates, args.repeats)
        since = _year_before_head(repo)
        git = _fresh(store)
        wanted = {git.repo_path(d): since for d in docs}
        changes_t = timings(lambda: _fresh(store).content_changes_after(wanted), max(1, args.repeats // 2))
        print(f"  store: {len(docs)} files parsed, {dated} dated; MEM404 worst case: {len(wanted)} candidates "
              f"since {since}, {len(git.content_changes_after(wanted))} changed")
        rows = (("git log --name-status -M -z alone", floor_t), ("load_history", load_t),
                ("dates as the rules get them", dates_t), ("MEM404 worst case (log -p)", changes_t))
        for label, (med, low, cpu) in rows:
            print(f"  {label:34s}: median {med:.3f} s  min {low:.3f} s  cpu {cpu:.3f} s")
        print(f"  ratio: median {load_t[0] / floor_t[0]:.2f}x  min {load_t[1] / floor_t[1]:.2f}x  "
              f"cpu {load_t[2] / floor_t[2]:.2f}x")
        print(f"  ratio, dates as the rules get them: median {dates_t[0] / floor_t[0]:.2f}x  "
              f"min {dates_t[1] / floor_t[1]:.2f}x  cpu {dates_t[2] / floor_t[2]:.2f}x")


def _store(repo: Path):
    """A Store over the synthetic `store/` folder (parsed once, outside the timings)."""
    from memlint.config import Config
    from memlint.store import Store

    # The cached repository has no working tree: read the files from the index
    # (= HEAD), then date them as a plain `check` would.
    store = Store(repo / "store", "MEMORY.md", Config(None, None, {}), preset="generic", staged=True)
    store.staged = False
    return store, list(store.docs.values())


def _fresh(store):
    """store.git_dates with nothing cached: history is loaded again."""
    for name in ("_history", "git_dates"):
        store.__dict__.pop(name, None)
    return store.git_dates


def _year_before_head(repo: Path):
    from datetime import date, timedelta

    ts = int(subprocess.run(["git", "log", "-1", "--format=%at"], cwd=repo, stdout=subprocess.PIPE,
                            check=True).stdout)
    return date.fromtimestamp(ts) - timedelta(days=365)

if __name__ == "__main__":
    main()

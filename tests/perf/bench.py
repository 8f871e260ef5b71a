"""Benchmark: memlint on synthetic stores with history, checked against their ground truth.

Not a test (nothing here asserts a time). Run from the repository root:

    python3 -m tests.perf.bench [--sizes 1000x1000,10000x5000] [--repeats 5] [--profile]

For each FILESxCOMMITS size it builds (once, cached under --cache) a store
with tests/perf/gen_store.py, then runs `python3 -m memlint` from this
checkout in a subprocess and prints medians of --repeats runs: wall time,
CPU time (the process and its git children: on a shared machine CPU time
shows the work when wall time swings), peak memory (ru_maxrss), and how
long the cache went on being written after the run ended (by a detached
process, memlint.deferred: the next run starts once it is done) for

- cold `check` (no memlint state in .git), warm `check` (nothing changed),
  `check` after one new commit plus two unstaged edits (warmed first),
  the pre-commit hook's `check --staged` with an edit and a new file staged,
  the hook's run of the commit before having warmed it (a commit each),
- `check --no-cache`, `backfill --dry-run` (when the command exists), `health`,
- git dates for every file (memlint.history.load_history) against
  `git log --name-status -M -z` alone.

Then it verifies: every finding of the cold run against the generator's
defects.tsv (for the rules this build has), warm output identical to cold,
and every git date against dates.tsv, printing each mismatch.
--profile prints the top of a cProfile of one cold check, in process.
--against REV times this checkout and commit REV's memlint in turn instead
(the cold check and the check after a commit), each build's runs
interleaved with the other's, and says if their findings differ.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(CHECKOUT))

from memlint.deferred import LOCK  # noqa: E402
from tests.perf import gen_store  # noqa: E402
from tests.perf.bench_history import timings  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=str(CHECKOUT))
# As installed: bytecode compiled once (an install does it), no cache switched off.
for _name in ("PYTHONDONTWRITEBYTECODE", "MEMLINT_NO_CACHE", "PRE_COMMIT", "GITHUB_ACTIONS", "MEMLINT_DEBUG",
              "GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
    ENV.pop(_name, None)


def wait_for_cache_writers(repo: Path) -> float:
    """Seconds until every process writing memlint's cache in ``repo`` after
    its run (memlint.deferred) is done: the next run is timed on its own."""
    import fcntl

    start = time.perf_counter()
    for lock in (repo / ".git" / "memlint").glob(f"**/{LOCK}"):
        with open(lock, "rb") as fh:
            fcntl.flock(fh, fcntl.LOCK_SH)
    return time.perf_counter() - start


class Run:
    """One subprocess: wall seconds, CPU seconds (with its children), peak RSS in MB, exit code, stdout;
    and ``saving``, the seconds its cache went on being written after it ended (memlint.deferred)."""

    def __init__(self, args: list[str], cwd: Path, env: dict | None = None):
        out = tempfile.TemporaryFile()
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "memlint", *args], cwd=cwd, env=env or ENV,
                                stdout=out, stderr=subprocess.PIPE)
        stderr = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        self.wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        self.code = proc.returncode
        # ru_maxrss of wait4 is this child alone (KB on Linux); CPU includes the git it waited for.
        self.cpu = usage.ru_utime + usage.ru_stime
        self.peak_mb = usage.ru_maxrss / 1024
        out.seek(0)
        self.stdout = out.read().decode("utf-8", "replace")
        self.stderr = stderr.decode("utf-8", "replace")
        self.saving = wait_for_cache_writers(cwd)
        if self.code not in (0, 1):
            raise RuntimeError(f"memlint {' '.join(args)} exited {self.code}: {self.stderr.strip()[-2000:]}")


def median_of(runs: list[Run]) -> str:
    wall = statistics.median(r.wall for r in runs)
    cpu = statistics.median(r.cpu for r in runs)
    peak = max(r.peak_mb for r in runs)
    saving = statistics.median(r.saving for r in runs)
    return (f"median {wall:6.3f} s  min {min(r.wall for r in runs):6.3f} s  cpu {cpu:6.3f} s  peak {peak:5.0f} MB"
            + (f"  then {saving:5.3f} s writing the cache" if saving >= 0.001 else ""))


def forget_state(repo: Path) -> None:
    shutil.rmtree(repo / ".git" / "memlint", ignore_errors=True)


def git(repo: Path, *args: str, when: int | None = None) -> str:
    env = dict(ENV)
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{when} +0000"
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def change_store(repo: Path, memories: list[str], serial: int) -> None:
    """One new commit (one memory edited, one added) and two unstaged edits."""
    first, *unstaged = memories
    with open(repo / first, "a", encoding="utf-8") as fh:
        fh.write(f"A fact learned in run {serial}.\n")
    new = repo / gen_store.STORE / "notes" / "inbox" / f"bench-{serial}.md"
    new.parent.mkdir(parents=True, exist_ok=True)
    new.write_text(f"---\nname: bench-{serial}\ndescription: added by the benchmark\n---\nNew note.\n", "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", f"bench {serial}", when=gen_store.START + gen_store.TWO_YEARS + 9000 + serial)
    for path in unstaged:
        with open(repo / path, "a", encoding="utf-8") as fh:
            fh.write(f"An unstaged thought {serial}.\n")


def stage_change(repo: Path, memories: list[str], serial: int) -> None:
    """What a commit the hook judges holds: one memory edited, one added, staged."""
    with open(repo / memories[serial % len(memories)], "a", encoding="utf-8") as fh:
        fh.write(f"A fact staged in run {serial}.\n")
    new = repo / gen_store.STORE / "notes" / "inbox" / f"hook-{serial}.md"
    new.parent.mkdir(parents=True, exist_ok=True)
    new.write_text(f"---\nname: hook-{serial}\ndescription: committed through the hook\n---\nNew note.\n", "utf-8")
    git(repo, "add", "-A")


def restore(repo: Path, head: str) -> None:
    git(repo, "reset", "-q", "--hard", head)
    git(repo, "clean", "-qfd", "--", gen_store.STORE)


def verify(repo: Path, cold: Run, warm: Run, defects, dates, rule_codes: set[str]) -> None:
    found = {(f["path"], f["line"], f["code"]) for f in json.loads(cold.stdout)}
    truth = {(p, line, code): what for p, line, code, what in defects}
    checked = {k: v for k, v in truth.items() if k[2] in rule_codes}
    missed = sorted(set(checked) - found)
    unexpected = sorted(found - set(truth))
    absent = sorted({code for _, _, code in truth if code not in rule_codes})
    print(f"  findings: {len(found)}; planted and checked {len(checked)}, missed {len(missed)}, "
          f"unexpected {len(unexpected)}; not in this build: {', '.join(absent) or 'none'}")
    for key in missed:
        print(f"    MISSED     {key[0]}:{key[1]} {key[2]} ({truth[key]})")
    for key in unexpected[:20]:
        print(f"    UNEXPECTED {key[0]}:{key[1]} {key[2]}")
    if warm.stdout != cold.stdout:
        print("    WARM OUTPUT DIFFERS FROM COLD")
    from memlint.history import load_history

    history = load_history(repo, under=gen_store.STORE)
    got = {p: (int(d.created.timestamp()), int(d.changed.timestamp())) for p, d in history.files.items()}
    wrong = sorted(p for p in dates.keys() | got.keys() if dates.get(p) != got.get(p))
    print(f"  git dates: {len(got)} files, {len(wrong)} differ from the truth")
    for p in wrong[:20]:
        print(f"    DATES {p}: truth {dates.get(p)}, memlint {got.get(p)}")


def profile(store: Path, today: str) -> None:
    import cProfile
    import pstats

    from memlint.cli import main as cli_main

    forget_state(store.parent)
    prof = cProfile.Profile()
    sys.argv = ["memlint", "check", str(store), "--today", today, "--format", "json", "--output", os.devnull]
    prof.enable()
    try:
        cli_main(standalone_mode=False)
    except SystemExit:
        pass
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


def bench_size(cache: Path, n_files: int, n_commits: int, repeats: int, want_profile: bool) -> None:
    t = time.perf_counter()
    repo = cache / f"store-{n_files}-{n_commits}"
    meta = gen_store.ensure(repo, n_files, n_commits)
    _, defects, dates = gen_store.load_truth(repo)
    store = repo / meta["store"]
    today = meta["today"]
    head = git(repo, "rev-parse", "HEAD").strip()
    restore(repo, head)
    print(f"\n{n_files} files / {n_commits} commits: {meta['markdown_files']} markdown files, "
          f"{sum(1 for _ in defects)} truth rows (ready in {time.perf_counter() - t:.1f} s)")
    check = ["check", str(store), "--today", today, "--format", "json"]
    commands = Run(["--help"], repo).stdout
    rule_codes = {r["code"] for r in json.loads(Run(["rules", "--format", "json"], repo).stdout)}
    check_help = Run(["check", "--help"], repo).stdout
    has_cache = "--no-cache" in check_help

    cold, warm, no_cache, changed = [], [], [], []
    for _ in range(repeats):
        forget_state(repo)
        cold.append(Run(check, repo))
        warm.append(Run(check, repo))
        if has_cache:
            no_cache.append(Run([*check, "--no-cache"], repo))
    memories = sorted(p for p, _, code, _ in defects if code == "MEM501")[:3]  # plain memories, stale ones
    for i in range(repeats):
        Run(check, repo)  # warm the state for this HEAD
        change_store(repo, memories, i)
        changed.append(Run(check, repo))
        restore(repo, head)
    hook = []
    if "--staged" in check_help:
        Run([*check, "--staged"], repo)  # the hook's run of the commit before
        for i in range(repeats):
            stage_change(repo, memories, i)
            hook.append(Run([*check, "--staged"], repo))
            git(repo, "commit", "-q", "--no-verify", "-m", f"hook {i}",
                when=gen_store.START + gen_store.TWO_YEARS + 9500 + i)
        restore(repo, head)
    Run(check, repo)
    print(f"  cold check               : {median_of(cold)}")
    print(f"  warm check               : {median_of(warm)}")
    print(f"  commit + 2 unstaged edits: {median_of(changed)}")
    if hook:
        print(f"  hook: check --staged     : {median_of(hook)}")
    if no_cache:
        print(f"  check --no-cache         : {median_of(no_cache)}")
    if " backfill" in commands:
        runs = [Run(["backfill", "--dry-run", str(store), "--today", today], repo) for _ in range(repeats)]
        print(f"  backfill --dry-run       : {median_of(runs)}")
    else:
        print("  backfill --dry-run       : (no backfill command in this build)")
    runs = [Run(["health", str(store), "--today", today], repo) for _ in range(repeats)]
    print(f"  health                   : {median_of(runs)}")

    from memlint.history import load_history

    floor_cmd = ["git", "log", "--name-status", "-M", "-z"]
    floor_t = load_t = (0.0, 0.0, 0.0)
    for _ in range(2):  # the first round warms the page cache; interleaving spreads machine noise
        floor_t = timings(lambda: subprocess.run(floor_cmd, cwd=repo, stdout=subprocess.PIPE, check=True), repeats)
        load_t = timings(lambda: load_history(repo, under=meta["store"]), repeats)
    print(f"  git log --name-status -M : median {floor_t[0]:6.3f} s  min {floor_t[1]:6.3f} s  cpu {floor_t[2]:6.3f} s")
    print(f"  dates (load_history)     : median {load_t[0]:6.3f} s  min {load_t[1]:6.3f} s  cpu {load_t[2]:6.3f} s"
          f"  = {load_t[0] / floor_t[0]:.2f}x git log (min {load_t[1] / floor_t[1]:.2f}x)")
    verify(repo, cold[0], warm[0], defects, dates, rule_codes)
    if want_profile:
        profile(store, today)


def compare_size(cache: Path, n_files: int, n_commits: int, repeats: int, other: Path, name: str) -> None:
    """This checkout's cold check, check after a commit and hook run
    (``check --staged`` of a commit being made) against another build's
    (``other``, a folder holding its ``memlint``), the two run in turn, so
    that the machine's drift (10 % and more over an hour) falls on both alike."""
    repo = cache / f"store-{n_files}-{n_commits}"
    meta = gen_store.ensure(repo, n_files, n_commits)
    _, defects, _ = gen_store.load_truth(repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    restore(repo, head)
    check = ["check", str(repo / meta["store"]), "--today", meta["today"], "--format", "json"]
    builds = {"this checkout": ENV, name: dict(ENV, PYTHONPATH=str(other))}
    memories = sorted(p for p, _, code, _ in defects if code == "MEM501")[:3]
    staged = {build: "--staged" in Run(["check", "--help"], repo, env).stdout for build, env in builds.items()}
    cold: dict[str, list[Run]] = {build: [] for build in builds}
    changed: dict[str, list[Run]] = {build: [] for build in builds}
    hook: dict[str, list[Run]] = {build: [] for build in builds}
    for i in range(repeats):
        for build, env in sorted(builds.items(), reverse=bool(i % 2)):  # each build first in every other round
            forget_state(repo)
            cold[build].append(Run(check, repo, env))
            Run(check, repo, env)  # the state of this build, for this HEAD
            change_store(repo, memories, i)
            changed[build].append(Run(check, repo, env))
            restore(repo, head)
            if staged[build]:
                Run([*check, "--staged"], repo, env)  # the hook's run of the commit before
                stage_change(repo, memories, i)
                hook[build].append(Run([*check, "--staged"], repo, env))
                restore(repo, head)
    print(f"\n{n_files} files / {n_commits} commits, {repeats} runs of each build in turn:")
    for label, runs in (("cold check", cold), ("commit + 2 unstaged edits", changed), ("hook: check --staged", hook)):
        for build in builds:
            print(f"  {label:25} {build:>14}: " + (median_of(runs[build]) if runs[build] else "(no --staged in this build)"))
        outputs = {build: {run.stdout for run in runs[build]} for build in builds}
        if all(outputs.values()) and len({frozenset(found) for found in outputs.values()}) > 1:
            print(f"    THE TWO BUILDS' FINDINGS DIFFER ({label})")


def other_build(rev: str, folder: Path) -> Path:
    """The ``memlint`` package of commit ``rev`` of this checkout, exported
    to ``folder`` (``git archive``) and compiled as an install would."""
    archive = subprocess.run(["git", "archive", "--format=tar", rev, "memlint"], cwd=CHECKOUT,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder / "memlint")], env=ENV, check=True)
    return folder


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "memlint-bench-stores")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", default="1000x1000,10000x5000", help="FILESxCOMMITS,...")
    ap.add_argument("--profile", action="store_true", help="cProfile one cold check per size")
    ap.add_argument("--against", metavar="REV",
                    help="time the cold check and the check after a commit of this checkout and of commit REV in turn")
    args = ap.parse_args(argv)
    print(f"memlint from {CHECKOUT}; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(CHECKOUT / "memlint")], env=ENV, check=True)
    if args.against:
        with tempfile.TemporaryDirectory(prefix="memlint-bench-against-") as folder:
            other = other_build(args.against, Path(folder))
            for size in args.sizes.split(","):
                n_files, n_commits = map(int, size.split("x"))
                compare_size(args.cache, n_files, n_commits, args.repeats, other, args.against)
        return
    for size in args.sizes.split(","):
        n_files, n_commits = map(int, size.split("x"))
        bench_size(args.cache, n_files, n_commits, args.repeats, args.profile)


if __name__ == "__main__":
    main()

"""The benchmark script runs (tests/perf/bench.py): not a measure of speed,
which no test asserts, but the command the README gives for comparing two
builds works from a checkout."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.perf import bench


def test_against_times_both_builds_in_turn_on_the_same_store(tmp_path, capsys):
    if subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=bench.CHECKOUT,
                      capture_output=True).returncode:
        pytest.skip("not a git checkout with a commit: no build to compare against")
    bench.main(["--sizes", "200x100", "--repeats", "1", "--cache", str(tmp_path), "--against", "HEAD"])
    out = capsys.readouterr().out
    for label in ("cold check", "commit + 2 unstaged edits", "hook: check --staged"):
        rows = [line for line in out.splitlines() if line.strip().startswith(label)]
        assert len(rows) == 2 and "this checkout:" in rows[0] and "HEAD:" in rows[1], out
        assert all("median" in row and "cpu" in row for row in rows)
    assert "DIFFER" not in out  # the same code, HEAD's and the checkout's: the same findings


@pytest.mark.parametrize("script, args, label", [
    ("bench_duplicates", ["--n", "200", "--planted", "20", "--repeat", "1"], "duplicate step"),
    ("bench_fingerprint", ["--n", "200", "--planted", "20", "--repeat", "1", "--subset", "50"], "planted recall"),
    ("bench_graph", ["--sizes", "200"], "did-you-mean"),
    ("bench_engagement", ["--files", "100", "--sessions", "200"], "warm triage"),
    ("bench_history", ["--sizes", "100x50", "--repeats", "1"], "ratio"),
], ids=["duplicates", "fingerprint", "graph", "engagement", "history"])
def test_each_side_benchmark_runs_on_a_small_store(tmp_path, script, args, label):
    """The benchmarks of one part (README's development section) still run:
    one broke unseen when ``Store.fingerprints`` stopped being a dict."""
    if script == "bench_history":
        args = [*args, "--cache", str(tmp_path)]
    done = subprocess.run([sys.executable, "-m", f"tests.perf.{script}", *args], cwd=bench.CHECKOUT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert label in done.stdout, done.stdout

"""Benchmark: the link graph of a synthetic store, 1,000 and 5,000 files.

Not a test. Run from the repository root:

    python3 tests/perf/bench_graph.py [--sizes 1000 5000]

Each memory has one wikilink, one broken link and one link out of the
repository; 50 topics list 90% of the memories. Prints the time to load and
parse the store, to build the graph, to suggest a file for every broken link
and to run every rule. Target: linear in the number of files.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from memlint.config import load  # noqa: E402
from memlint.graph import BROKEN, Graph  # noqa: E402
from memlint.linter import lint_store  # noqa: E402
from memlint.store import Store  # noqa: E402
from tests.test_graph import _synthetic_store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    args = parser.parse_args()
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = _synthetic_store(Path(tmp) / "store", n)
            t0 = time.perf_counter()
            store = Store(folder, "MEMORY.md", load(None))
            t1 = time.perf_counter()
            graph = Graph(store)
            t2 = time.perf_counter()
            broken = [e for e in graph.edges if e.status == BROKEN]
            for edge in broken:
                graph.suggest(store.docs[edge.source], edge.link.target)
            t3 = time.perf_counter()
            store.__dict__["graph"] = graph
            findings = lint_store(store).findings
            t4 = time.perf_counter()
            print(
                f"{n:>6} files  {len(graph.edges):>6} links  load+parse {t1 - t0:.2f}s  graph {t2 - t1:.2f}s  "
                f"did-you-mean x{len(broken)} {t3 - t2:.2f}s  all rules {t4 - t3:.2f}s  ({len(findings)} findings)"
            )


if __name__ == "__main__":
    main()

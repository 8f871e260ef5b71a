"""Benchmark the duplicate rules (MEM301-303) on a synthetic store. This is not a test.

    python3 -m tests.perf.bench_duplicates [--n 10000] [--planted 1000] [--cluster 0] [--repeat 3]

Writes N memory files (the bodies of bench_fingerprint, with frontmatter and
a root) to a temporary folder outside git, loads the store, computes
``Store.fingerprints`` once, then times each rule's ``check`` over the
precomputed fingerprints: the duplicate step proper. "first" is the first
run, which also builds what the store computes once for every rule (the
supersession map of ``Store.lifecycle``); "best" is the best of ``--repeat``.
``--cluster M`` makes M of the N bodies near-copies of one (eight words of
each changed): MEM302's worst case, a cluster with M²/2 pairs to report.
"""
from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from memlint import config
from memlint.rules import duplicate_content, duplicate_name, near_duplicate
from memlint.store import load_stores
from tests.perf.bench_fingerprint import store as bodies_for


def timed(fn, repeat: int):
    """(first cpu, best cpu, best wall, result)"""
    cpus, walls, result = [], [], None
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        result = fn()
        cpus.append(time.process_time() - c)
        walls.append(time.perf_counter() - w)
    return cpus[0], min(cpus), min(walls), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--planted", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cluster", type=int, default=0)
    args = ap.parse_args()

    bodies, _ = bodies_for(args.n, args.planted, args.seed)
    rng = random.Random(args.seed)
    for k in range(args.cluster):  # near-copies of the first body, in place of the last M
        words = bodies[0].split(" ")
        for _ in range(8):  # (each copy its own band keys: the cluster's buckets overlap, none holds another)
            words[rng.randrange(3, len(words))] = f"edit{rng.randrange(10**6)}"
        bodies[len(bodies) - 1 - k] = " ".join(words)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "store"
        folder.mkdir()
        (folder / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
        for i, body in enumerate(bodies):
            # Every 50th file reuses its neighbour's name: 200 duplicate names in 10,000.
            name = f"memory-{i - 1 if i % 50 == 1 else i:05d}"
            text = f"---\nname: {name}\ndescription: synthetic memory {i}\ntype: project\n---\n{body}"
            (folder / f"m{i:05d}.md").write_text(text, encoding="utf-8")
        cfg = config.load(start=folder)
        c, w = time.process_time(), time.perf_counter()
        [store] = load_stores(folder, cfg)
        print(f"load + parse     cpu {time.process_time() - c:6.3f} s  wall {time.perf_counter() - w:6.3f} s  ({len(store.docs)} files)")
        c, w = time.process_time(), time.perf_counter()
        fingerprints = dict(store.fingerprints)  # each made when first asked for: all of them, here
        print(f"fingerprints     cpu {time.process_time() - c:6.3f} s  wall {time.perf_counter() - w:6.3f} s  ({len(fingerprints)} bodies, once per store)")
        total_first = total_cpu = total_wall = 0.0
        for rule in (duplicate_content, near_duplicate, duplicate_name):
            options = cfg.rule_config(rule, store.preset).options
            first, cpu, wall, found = timed(lambda: list(rule.check(store, options)), args.repeat)
            total_first += first
            total_cpu += cpu
            total_wall += wall
            print(f"{rule.CODE} {rule.NAME:<18} cpu first {first:6.3f} s  best {cpu:6.3f} s  wall best {wall:6.3f} s  ({len(found)} findings)")
        print(f"duplicate step            cpu first {total_first:6.3f} s  best {total_cpu:6.3f} s  wall best {total_wall:6.3f} s")


if __name__ == "__main__":
    main()

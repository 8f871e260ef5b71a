"""Benchmark memlint.fingerprint on a synthetic store. This is not a test.

    python3 -m tests.perf.bench_fingerprint [--n 10000] [--planted 1000] [--threshold 0.4]

It generates N deterministic memory bodies (title, prose, **Why:**, **How to
apply:** bullets; 40-450 words) with planted near-duplicates (edited
copies) and exact duplicates (reformatted copies). It then prints:

* the time to fingerprint every body, to find exact groups and to find near
  pairs over the precomputed fingerprints (CPU and wall time, best of
  ``--repeat`` runs);
* the recall of the planted near-duplicates that score above the threshold;
* the recall against brute force over a random subset.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time

from memlint.fingerprint import DEFAULT_THRESHOLD, exact_groups, fingerprint, jaccard, near_pairs

SYLLABLES = "ka ro mi tes lan der po qui ven sol ar ith mu bre cal dor fen gri hal jot ne ost pra ru sen tor ul vex wyn zo".split()
COMMON = "the a to of and in is for on with that this it be as use when not do by".split()


def vocabulary(rng: random.Random, size: int = 8000) -> list[str]:
    out: set[str] = set()
    while len(out) < size:
        out.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(out)


def sentence(rng: random.Random, vocab: list[str]) -> str:
    words = [rng.choice(COMMON) if rng.random() < 0.3 else rng.choice(vocab) for _ in range(rng.randint(6, 16))]
    return " ".join(words).capitalize() + "."


def memory(rng: random.Random, vocab: list[str]) -> str:
    lines = ["# " + " ".join(rng.sample(vocab, 3)), "", " ".join(sentence(rng, vocab) for _ in range(rng.randint(1, 4))), ""]
    lines += ["**Why:** " + sentence(rng, vocab), "", "**How to apply:**"]
    lines += ["- " + sentence(rng, vocab) for _ in range(rng.randint(2, 36))]
    return "\n".join(lines) + "\n"


def edit(rng: random.Random, vocab: list[str], body: str) -> str:
    """An edited copy: 1-3 of replace/insert/delete a line, change a word, shuffle lines."""
    lines = body.splitlines()
    for _ in range(rng.randint(1, 3)):
        bullets = [i for i, line in enumerate(lines) if line.startswith("- ")]
        i = rng.choice(bullets)
        kind = rng.randrange(5)
        if kind == 0:
            lines[i] = "- " + sentence(rng, vocab)
        elif kind == 1:
            lines.insert(i, "- " + sentence(rng, vocab))
        elif kind == 2 and len(bullets) > 2:
            del lines[i]
        elif kind == 3:
            words = lines[i].split()
            words[rng.randrange(1, len(words))] = rng.choice(vocab)
            lines[i] = " ".join(words)
        else:
            rng.shuffle(lines)
    return "\n".join(lines)


def reformat(body: str) -> str:
    """An exact duplicate: different whitespace, case and emphasis."""
    return body.replace("**Why:**", "__WHY:__").replace("\n- ", "\n*   ").replace("\n", "\n\n")


def store(n: int, planted: int, seed: int) -> tuple[list[str], list[tuple[int, int]]]:
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    originals = n - planted
    bodies = [memory(rng, vocab) for _ in range(originals)]
    pairs = []
    for k in range(planted):
        src = rng.randrange(originals)
        bodies.append(reformat(bodies[src]) if k % 10 == 0 else edit(rng, vocab, bodies[src]))
        pairs.append((src, len(bodies) - 1))
    return bodies, pairs


def timed(fn, repeat: int):
    cpu, wall, result = [], [], None
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        result = fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), min(wall), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--planted", type=int, default=1_000)
    ap.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--subset", type=int, default=600, help="bodies in the brute-force recall check")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    calib, _, _ = timed(lambda: sum(i * i for i in range(1_000_000)), 3)
    print(f"machine check: sum(i * i for i in range(10**6)) takes {calib:.3f} s cpu (to compare runs)")
    bodies, planted = store(args.n, args.planted, args.seed)
    print(f"{len(bodies)} bodies, {len(planted)} planted copies, threshold {args.threshold}")

    cpu, wall, items = timed(lambda: [(f"m{i:05d}", fingerprint(b)) for i, b in enumerate(bodies)], 1)
    shingles = [len(fp.shingles) for _, fp in items]
    print(
        f"fingerprint all  cpu {cpu:6.3f} s  wall {wall:6.3f} s  ({1e6 * cpu / len(items):.0f} us/body;"
        f" words median {statistics.median(fp.words for _, fp in items):.0f},"
        f" shingles median {statistics.median(shingles):.0f} max {max(shingles)})"
    )

    cpu_e, wall_e, groups = timed(lambda: exact_groups(items), args.repeat)
    print(f"exact_groups     cpu {cpu_e:6.3f} s  wall {wall_e:6.3f} s  ({len(groups)} groups)")

    stats: dict = {}
    cpu_n, wall_n, pairs = timed(lambda: near_pairs(items, args.threshold, stats=stats), args.repeat)
    print(f"near_pairs       cpu {cpu_n:6.3f} s  wall {wall_n:6.3f} s  ({len(pairs)} pairs)")
    print(f"exact + near     cpu {cpu_e + cpu_n:6.3f} s  wall {wall_e + wall_n:6.3f} s")
    print("near_pairs stats", stats)

    found = {(a, b) for a, b, _ in pairs}
    fps = [fp for _, fp in items]

    def above(i: int, j: int) -> bool:
        a, b = fps[i], fps[j]
        return a.exact != b.exact and min(a.words, b.words) >= 20 and jaccard(a.shingles, b.shingles) >= args.threshold

    want = {(f"m{i:05d}", f"m{j:05d}") for i, j in planted if above(i, j)}
    exact_planted = sum(fps[i].exact == fps[j].exact for i, j in planted)
    print(f"planted recall   {len(want & found)}/{len(want)} above threshold"
          f" ({len(planted) - len(want) - exact_planted} edits fell below it, {exact_planted} exact copies)")

    rng = random.Random(args.seed + 1)
    subset = sorted(rng.sample(range(len(items)), min(args.subset, len(items))))
    brute = {(f"m{i:05d}", f"m{j:05d}") for i, j in itertools.combinations(subset, 2) if above(i, j)}
    print(f"brute recall     {len(brute & found)}/{len(brute)} pairs above threshold among {len(subset)} random bodies")


if __name__ == "__main__":
    main()

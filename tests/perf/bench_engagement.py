"""Benchmark: engagement of 1,000 memory files over 3,000 sessions.

Not a test. Run from the repository root:

    python3 tests/perf/bench_engagement.py [--files 1000] [--sessions 3000]

Prints the time to build the index from scratch, a no-op incremental update,
and the "warm" query time (index already built; a fresh SessionIndex, so no
in-process caches) to score every file for `health` (30-day window) and
`triage` (60-day window). Target: warm health pass under 0.5 s.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from memlint.engagement import (  # noqa: E402
    HEALTH_WINDOW_DAYS,
    TRIAGE_WINDOW_DAYS,
    engagement,
    hot_class,
    hotness,
    keywords,
    triage,
)
from memlint.sessions import Session, SessionIndex  # noqa: E402

TODAY = date(2026, 3, 31)
SYLLABLES = "ka lo mi nu pe ra si to vu ze bar cor dan fel gor hil jun kem lor mav".split()
COMMON = ["java", "mistakes", "avoid", "notes", "build", "test", "error", "deploy", "config", "review"]


def make_word(rnd: random.Random) -> str:
    return "".join(rnd.choice(SYLLABLES) for _ in range(rnd.randint(2, 4)))


def make_corpus(n_files: int, n_sessions: int, seed: int = 7):
    rnd = random.Random(seed)
    words = sorted({make_word(rnd) for _ in range(10000)})
    rnd.shuffle(words)
    topic_pool, vocab = words[:3000], words[3000:]  # topic words only occur as topics
    # Zipf-ish weights for background words
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    topics = []
    for i in range(n_files):
        words = [rnd.choice(topic_pool) for _ in range(rnd.randint(1, 3))]
        if rnd.random() < 0.2:
            words.insert(0, rnd.choice(COMMON))
        prefix = rnd.choice(["", "feedback_", "project_", "reference_", "user_"])
        topics.append(f"memory/{prefix}{'-'.join(words)}-{i}.md")
    topic_words = [keywords(p, None, []) for p in topics]
    topic_weights = [1.0 / (i + 1) for i in range(n_files)]  # a few busy topics, a long tail
    sessions = []
    for s in range(n_sessions):
        when = TODAY - timedelta(days=int(rnd.triangular(0, 365, 0)))
        body = rnd.choices(vocab, weights=weights, k=rnd.randint(300, 800))
        body += rnd.sample(COMMON, 6)
        for t in set(rnd.choices(range(n_files), weights=topic_weights, k=5)):
            body += topic_words[t]
        rnd.shuffle(body)
        sessions.append(Session(id=f"file:s{s}.jsonl", when=when, text=" ".join(body)))
    return topics, sessions


def changed_days(path: str) -> int:
    """Deterministic pseudo 'days since the file last changed', 0-199."""
    return sum(map(ord, path)) * 7 % 200


def score_all(idx: SessionIndex, topics):
    kws = {p: keywords(p, None, []) for p in topics}
    engs = {p: engagement(idx, kws[p], TODAY, HEALTH_WINDOW_DAYS) for p in topics}
    max_hits = max(e.hits for e in engs.values())
    classes = {p: hot_class(hotness(e.hits, max_hits, changed_days(p))) for p, e in engs.items()}
    return classes


def triage_all(idx: SessionIndex, topics):
    out = {}
    for i, p in enumerate(topics):
        e = engagement(idx, keywords(p, None, []), TODAY, TRIAGE_WINDOW_DAYS)
        last = None if e.last_session is None else (TODAY - e.last_session).days
        lines = 400 if i % 10 == 0 else 50
        out[p] = triage(last, e.sessions, "", changed_days(p), lines).recommendation
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--sessions", type=int, default=3000)
    args = ap.parse_args()

    t = time.perf_counter()
    topics, sessions = make_corpus(args.files, args.sessions)
    gen = time.perf_counter() - t
    n_words = sum(len(s.text.split()) for s in sessions)
    n_kws = sum(len(keywords(p, None, [])) for p in topics)
    print(f"corpus: {len(topics)} files ({n_kws} keywords), {len(sessions)} sessions, "
          f"{n_words:,} words (generated in {gen:.2f} s)")

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sessions.db"
        t = time.perf_counter()
        with SessionIndex(db) as idx:
            n = idx.update(sessions)
        first = time.perf_counter() - t
        print(f"first index:          {first:7.3f} s  ({n} sessions, db {db.stat().st_size / 1e6:.1f} MB)")

        t = time.perf_counter()
        with SessionIndex(db) as idx:
            n = idx.update(sessions)
        print(f"no-op update:         {time.perf_counter() - t:7.3f} s  ({n} indexed)")

        with SessionIndex(db) as idx:
            t = time.perf_counter()
            classes = score_all(idx, topics)
            warm = time.perf_counter() - t
            t = time.perf_counter()
            score_all(idx, topics)
            cached = time.perf_counter() - t
        counts = {c: list(classes.values()).count(c) for c in ("HOT", "WARM", "COLD")}
        verdict = "OK" if warm < 0.5 else "OVER TARGET"
        print(f"warm health, all:     {warm:7.3f} s  (target < 0.5 s: {verdict}) {counts}")
        print(f"  same instance again:{cached:7.3f} s  (per-term cache)")

        with SessionIndex(db) as idx:
            t = time.perf_counter()
            recs = triage_all(idx, topics)
            tri = time.perf_counter() - t
        counts = {r: list(recs.values()).count(r) for r in ("ARCHIVE", "PRUNE", "UPDATE", "KEEP")}
        print(f"warm triage, all:     {tri:7.3f} s  {counts}")


if __name__ == "__main__":
    main()

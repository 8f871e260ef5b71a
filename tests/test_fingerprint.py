"""Behaviour of memlint.fingerprint: exact keys, near-duplicate pairs, LSH recall and cost."""

from __future__ import annotations

import itertools
import os
import pickle
import random
import subprocess
import sys

import pytest

import memlint.fingerprint as fingerprint_module
from memlint.fingerprint import (
    DEFAULT_THRESHOLD,
    MAX_SHINGLES,
    Fingerprint,
    exact_groups,
    exact_key,
    fingerprint,
    jaccard,
    near_pairs,
    near_pairs_since,
    normalise,
)
from tests.perf.bench_fingerprint import edit, sentence, vocabulary

BASE = """\
# Deploys go through the staging pipeline

Never push a release straight to production from a laptop.
The staging pipeline runs the migration dry run and the smoke tests first.
Last March a direct push skipped the schema check and took the billing API down for two hours.

**Why:** the user was paged at night after that outage and asked for a hard rule.

**How to apply:**
- Open a pull request against the release branch and wait for the staging job to pass.
- Check the migration report in the job summary before approving.
- If the smoke tests are flaky, rerun them once and then ask the user before overriding.
- Tag the release only after the canary has been healthy for fifteen minutes.
- Write the deploy time and version into the changelog memory afterwards.
"""

# The same template (title, Why, How to apply, five bullets), different facts.
SAME_TEMPLATE = """\
# Screenshots belong in the assets folder

Keep every screenshot for the docs site under one folder with a date prefix.
The docs build fails on images larger than two megabytes, so compress them first.
Old screenshots of the settings page confused readers after the redesign in May.

**Why:** the user spent an afternoon hunting stale images that nobody had cleaned up.

**How to apply:**
- Save new images as PNG in docs/assets with the capture date in the file name.
- Run the image optimiser script before committing anything larger than a megabyte.
- Delete the previous version of a screenshot when the page it shows changes.
- Reference images with relative links so the preview server can resolve them.
- Mention replaced screenshots in the pull request description for the reviewer.
"""


def fps(**bodies: str) -> list[tuple[str, Fingerprint]]:
    return [(name, fingerprint(body)) for name, body in bodies.items()]


def pair_ids(pairs: list[tuple[str, str, float]]) -> set[tuple[str, str]]:
    return {(a, b) for a, b, _ in pairs}


# --- normalise / exact -------------------------------------------------------


def test_normalise_drops_markdown_punctuation_and_keeps_link_text_and_target():
    body = "# Title\n\n**Bold**  _it_ `code`\n> quoted\n- item | cell ~~old~~\n[the docs](https://ex.com/a-b)\n![alt](img.png)"
    assert normalise(body) == "title bold it code quoted item cell old the docs https ex com a b alt img png"


def test_exact_key_ignores_whitespace_case_and_markdown_punctuation():
    plain = "Deploys go through staging.\nNever push from a laptop, see the runbook docs/deploy.md"
    variants = [
        plain,
        "  deploys GO through   staging.\r\n\n\tnever push from a LAPTOP, see the runbook docs/deploy.md  \n",
        "## Deploys go through **staging**.\n- Never push from a _laptop_, see the [runbook](docs/deploy.md)",
        "> Deploys go through `staging`.\n* Never push from a ~~laptop~~, see the runbook docs/deploy.md",
    ]
    keys = {exact_key(v) for v in variants}
    assert len(keys) == 1 and b"" not in keys
    assert len(exact_key(plain)) == 16
    assert exact_key(plain.replace("laptop", "desktop")) != exact_key(plain)
    assert fingerprint(variants[2]).exact == exact_key(plain)


def test_exact_key_ignores_typographic_punctuation_as_the_tokens_do():
    """Curly quotes, dashes and CJK punctuation are punctuation too: a copy
    re-typed with them is the same text, not a near copy of similarity 1.00."""
    plain = "Don't deploy on \"Friday\" -- the on-call rota can't cover it... ever, (really)."
    curly = "Don’t deploy on “Friday” — the on-call rota can’t cover it… ever， （really）。"
    assert exact_key(curly) == exact_key(plain) and normalise(curly) == normalise(plain)
    assert set(fingerprint_module._WIDE_PUNCTUATION) <= set(fingerprint_module._TOKEN_SEPARATORS
                                                            + fingerprint_module._LINE_BREAKS)


def test_blank_bodies_have_empty_key_and_are_never_duplicates():
    assert exact_key("") == exact_key("  \n\t") == exact_key("---\n***\n") == b""
    items = fps(a="", b="   \n", c="# \n- ", d="real text", e="Real   TEXT")
    assert exact_groups(items) == [["d", "e"]]
    assert fingerprint("").words == 0 and fingerprint("").shingles == frozenset()


def test_exact_groups_are_sorted_groups_of_two_or_more():
    items = fps(z=BASE, b="other body", a=BASE.upper(), m=BASE + "\n\n", c="Other  body", solo=SAME_TEMPLATE)
    assert exact_groups(items) == [["a", "m", "z"], ["b", "c"]]


def test_fingerprint_is_picklable_and_stable_across_processes():
    fp = fingerprint(BASE)
    assert pickle.loads(pickle.dumps(fp)) == fp
    assert 0 <= fp.simhash < 2**64 and fp.words > 100
    # Cached by git blob id, so it must not depend on the interpreter's hash seed.
    code = "import pickle,sys;from memlint.fingerprint import fingerprint;sys.stdout.buffer.write(pickle.dumps(fingerprint(sys.stdin.read())))"
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run(
        [sys.executable, "-c", code], input=BASE.encode(), capture_output=True, check=True, env=env,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    ).stdout
    assert pickle.loads(out) == fp


# --- near pairs ---------------------------------------------------------------

ONE_SENTENCE_CHANGED = BASE.replace(
    "- Check the migration report in the job summary before approving.",
    "- Read the database diff yourself, line by line, before you press approve.",
)


def test_one_changed_sentence_is_a_near_duplicate_with_a_sensible_similarity():
    pairs = near_pairs(fps(original=BASE, edited=ONE_SENTENCE_CHANGED))
    assert [(a, b) for a, b, _ in pairs] == [("edited", "original")]
    assert 0.7 <= pairs[0][2] < 1.0


def test_reordered_lines_are_a_near_duplicate():
    lines = BASE.splitlines()
    bullets = [line for line in lines if line.startswith("- ")]
    reordered = "\n".join([line for line in lines if not line.startswith("- ")] + bullets[::-1])
    prose = "\n".join(lines[2:5])
    moved_prose = BASE.replace(prose, "") + "\n" + "\n".join(reversed(lines[2:5]))
    items = fps(a=BASE, b=reordered, c=moved_prose)
    assert exact_key(reordered) != exact_key(BASE)
    pairs = near_pairs(items)
    assert pair_ids(pairs) == {("a", "b"), ("a", "c"), ("b", "c")}
    assert all(sim >= 0.9 for _, _, sim in pairs)


def test_reflowed_sentences_are_exact_and_reordered_ones_near():
    first, second = (
        "Never push a release straight to production from a laptop.",
        "The staging pipeline runs the migration dry run and the smoke tests first.",
    )
    reflowed = BASE.replace(f"{first}\n{second}", f"{first} {second}")
    swapped = BASE.replace(f"{first}\n{second}", f"{second} {first}")
    assert reflowed != BASE and exact_key(reflowed) == exact_key(BASE)
    pairs = near_pairs(fps(a=BASE, b=reflowed, c=swapped))
    assert pair_ids(pairs) == {("a", "c"), ("b", "c")}
    assert pairs[0][2] == 1.0  # a set of sentence shingles does not see the order


def test_same_template_with_different_facts_is_not_a_near_duplicate():
    items = fps(a=BASE, b=SAME_TEMPLATE)
    assert near_pairs(items) == []
    assert jaccard(items[0][1].shingles, items[1][1].shingles) < DEFAULT_THRESHOLD / 2


def test_short_bodies_are_skipped():
    short = "Use pnpm, not npm, in the web repository."
    items = fps(a=short, b=short + " Always.")
    assert items[0][1].words < 20
    assert near_pairs(items) == []
    assert pair_ids(near_pairs(items, min_words=5)) == {("a", "b")}


def test_exact_duplicates_are_not_repeated_as_near_pairs():
    items = fps(a=BASE, a_copy=BASE.replace("\n", "\n\n").lower(), edited=ONE_SENTENCE_CHANGED)
    assert exact_groups(items) == [["a", "a_copy"]]
    stats: dict = {}
    pairs = near_pairs(items, stats=stats)
    assert pair_ids(pairs) == {("a", "edited"), ("a_copy", "edited")}
    assert pairs[0][2] == pairs[1][2]
    assert stats["eligible"] == 3 and stats["indexed"] == 2


def test_pairs_are_ordered_and_sorted():
    items = fps(z=BASE, m=ONE_SENTENCE_CHANGED, a=BASE + "\nOne more line about the release notes.")
    pairs = near_pairs(items)
    assert pairs == sorted(pairs)
    assert all(a < b for a, b, _ in pairs)
    assert pair_ids(pairs) == {("a", "m"), ("a", "z"), ("m", "z")}


def test_threshold_is_respected_and_validated():
    items = fps(a=BASE, b=ONE_SENTENCE_CHANGED)
    sim = near_pairs(items)[0][2]
    assert near_pairs(items, threshold=sim) != []
    assert near_pairs(items, threshold=min(1.0, sim + 0.01)) == []
    with pytest.raises(ValueError):
        near_pairs(items, threshold=0)
    assert near_pairs([]) == []


def test_cjk_text_is_tokenised_per_character():
    body = "气象套利信号分析：置信度不低于百分之九十六，优势不低于百分之二，下注使用四分之一凯利公式。数据来自历史气象记录。"
    edited = body.replace("四分之一", "八分之一")
    items = fps(a=body, b=edited)
    assert items[0][1].words >= 40
    assert pair_ids(near_pairs(items)) == {("a", "b")}


def test_half_width_katakana_is_tokenised_per_character_as_full_width():
    body = "ﾃﾞｰﾀﾍﾞｰｽﾊﾞｯｸｱｯﾌﾟﾊﾏｲﾆﾁｼﾞｯｺｳｽﾙ\nﾘｽﾄｱﾃｽﾄﾊﾏｲｼｭｳｹﾞﾂﾖｳﾋﾞﾆｼﾞｯｺｳｽﾙ\nﾛｸﾞﾊｻﾝｼﾞｭｳﾆﾁｶﾝﾎｿﾞﾝｽﾙ"
    edited = body.replace("ｹﾞﾂ", "ｶ").replace("ｻﾝ", "ﾛｸ")
    items = fps(a=body, b=edited)
    assert items[0][1].words == len(body.replace("\n", ""))  # one word per character, ﾞ and ﾟ too
    assert pair_ids(near_pairs(items)) == {("a", "b")}


def test_huge_bodies_are_bounded_and_still_compared():
    rng = random.Random(3)
    words = [f"w{rng.randrange(10**6)}" for _ in range(6000)]
    big = "\n".join(" ".join(words[i : i + 12]) + "." for i in range(0, len(words), 12))
    fp = fingerprint(big)
    assert len(fp.shingles) == MAX_SHINGLES
    edited = big.replace(words[100], "changed", 1)
    pairs = near_pairs(fps(a=big, b=edited))
    assert pair_ids(pairs) == {("a", "b")} and pairs[0][2] > 0.9


def test_simhash_of_near_duplicates_is_close():
    def distance(x: str, y: str) -> int:
        return bin(fingerprint(x).simhash ^ fingerprint(y).simhash).count("1")

    assert distance(BASE, ONE_SENTENCE_CHANGED) < distance(BASE, SAME_TEMPLATE)
    assert distance(BASE, ONE_SENTENCE_CHANGED) <= 12


# --- LSH recall and cost ----------------------------------------------------------


# The generators of tests/perf/bench_fingerprint.py (same words, same edits), smaller.
def _vocabulary(rng: random.Random) -> list[str]:
    return vocabulary(rng, 5000)


def _memory(rng: random.Random, vocab: list[str]) -> str:
    lines = ["# " + " ".join(rng.sample(vocab, 3)), "", " ".join(sentence(rng, vocab) for _ in range(2)), ""]
    lines += ["**Why:** " + sentence(rng, vocab), "", "**How to apply:**"]
    lines += ["- " + sentence(rng, vocab) for _ in range(rng.randint(3, 12))]
    return "\n".join(lines) + "\n"


def test_lsh_finds_every_pair_above_the_threshold():
    rng = random.Random(20240601)
    vocab = _vocabulary(rng)
    bodies = [_memory(rng, vocab) for _ in range(2700)]
    planted = []
    for _ in range(300):
        src = rng.randrange(2700)
        bodies.append(edit(rng, vocab, bodies[src]))
        planted.append((src, len(bodies) - 1))
    items = [(f"m{i:04d}", fingerprint(b)) for i, b in enumerate(bodies)]
    stats: dict = {}
    found = pair_ids(near_pairs(items, stats=stats))

    def similar(i: int, j: int) -> bool:
        a, b = items[i][1], items[j][1]
        return a.exact != b.exact and a.words >= 20 and b.words >= 20 and jaccard(a.shingles, b.shingles) >= DEFAULT_THRESHOLD

    expected_planted = {(items[i][0], items[j][0]) for i, j in planted if similar(i, j)}
    assert len(expected_planted) >= 250  # most edits stay above the threshold
    assert expected_planted <= found
    # Brute force over a subset: every pair above the threshold there was found.
    subset = sorted(set(rng.sample(range(len(items)), 300)) | {k for p in planted[:100] for k in p})
    brute = {
        (items[i][0], items[j][0]) for i, j in itertools.combinations(subset, 2) if similar(i, j)
    }
    assert brute and brute <= found
    # ...and the candidates were a sliver of the 4.5 million pairs.
    assert stats["candidates"] < 5 * len(items)


def test_same_template_bodies_do_not_explode_into_candidates(monkeypatch):
    rng = random.Random(7)
    vocab = _vocabulary(rng)
    stock = [  # about a third of each body
        "## Checklist",
        "- Verify the change in staging before the rollout starts.",
        "- Record the outcome in the weekly operations log.",
        "## Notes",
        "Do not copy secrets or tokens into memory files.",
    ]
    bodies = []
    for _ in range(2000):
        lines = ["## Context", sentence(rng, vocab) + " " + sentence(rng, vocab), "**Why:** " + sentence(rng, vocab)]
        lines += ["**How to apply:** " + sentence(rng, vocab), "- " + sentence(rng, vocab)] + stock
        bodies.append("\n".join(lines))
    items = [(f"t{i:04d}", fingerprint(b)) for i, b in enumerate(bodies)]
    sims = [jaccard(a.shingles, b.shingles) for (_, a), (_, b) in itertools.combinations(items[:60], 2)]
    assert 0.1 < sorted(sims)[len(sims) // 2] < DEFAULT_THRESHOLD  # they do share a lot of text
    calls = 0

    def counting_jaccard(a, b):
        nonlocal calls
        calls += 1
        return jaccard(a, b)

    monkeypatch.setattr(fingerprint_module, "jaccard", counting_jaccard)
    stats: dict = {}
    assert near_pairs(items, stats=stats) == []
    all_pairs = len(items) * (len(items) - 1) // 2
    assert stats["candidates"] < all_pairs // 100, stats
    assert calls < all_pairs // 100  # the samples of the crowded buckets judged boilerplate
    assert stats["skipped_buckets"] > 0


def test_a_large_real_cluster_is_not_mistaken_for_boilerplate():
    rng = random.Random(11)
    vocab = _vocabulary(rng)
    base = _memory(rng, vocab)
    while base.count("\n- ") < 8:
        base = _memory(rng, vocab)
    copies = []
    for k in range(120):  # 120 copies, each with one word changed
        words = base.split(" ")
        words[5 + k % (len(words) - 5)] = f"edit{k}"
        copies.append(" ".join(words))
    items = [(f"c{k:03d}", fingerprint(b)) for k, b in enumerate(copies)]
    items += [(f"x{k:03d}", fingerprint(_memory(rng, vocab))) for k in range(200)]
    stats: dict = {}
    pairs = near_pairs(items, stats=stats)
    assert stats["max_bucket"] > 64
    assert pair_ids(pairs) == {(f"c{i:03d}", f"c{j:03d}") for i, j in itertools.combinations(range(120), 2)}


def test_clusters_sharing_some_bodies_give_every_pair_of_each():
    """Two clusters of copies (each over the crowded-bucket size) and copies
    of both: each crowded bucket whose bodies another one already expanded
    holds is skipped, no other, and the pairs are those a comparison of
    every pair finds."""
    rng = random.Random(12)
    vocab = _vocabulary(rng)
    bases = [_memory(rng, vocab) for _ in range(2)]
    bodies = []
    for k in range(150):  # 70 copies of each base, then 10 of both, each with one word changed
        words = (bases[k % 2] if k < 140 else bases[0] + "\n" + bases[1]).split(" ")
        words[5 + k % (len(words) - 5)] = f"edit{k}"
        bodies.append(" ".join(words))
    bodies += [_memory(rng, vocab) for _ in range(60)]
    items = [(f"b{k:03d}", fingerprint(b)) for k, b in enumerate(bodies)]
    stats: dict = {}
    found = pair_ids(near_pairs(items, stats=stats))
    assert stats["max_bucket"] > 64

    def similar(a, b) -> bool:
        return (a.exact != b.exact and a.words >= 20 and b.words >= 20
                and jaccard(a.shingles, b.shingles) >= DEFAULT_THRESHOLD)

    brute = {(x, y) for (x, a), (y, b) in itertools.combinations(items, 2) if similar(a, b)}
    assert len(brute) > 2 * 70 * 69 // 2 and found == brute


@pytest.mark.parametrize("huge, copies, widest", [(False, False, None), (True, False, None), (False, True, None),
                                                  (True, True, None), (False, False, 10), (False, False, 0)])
def test_similarities_counted_on_bits_are_those_of_intersecting_the_sets(monkeypatch, huge, copies, widest):
    """Many candidate pairs (a cluster of near-copies has m²/2 of them) are
    judged on bits, one per shingle two bodies share: the pairs found and
    their similarities are exactly those of intersecting the shingle sets,
    with exact copies, bodies cut to MAX_SHINGLES, short bodies, unrelated
    ones and names not given in order among them."""
    rng = random.Random(14)
    vocab = _vocabulary(rng)
    base = _memory(rng, vocab)
    bodies: dict[str, str] = {}
    for k in range(50):  # named in reverse order: the pairs' names must still come out ordered
        words = base.split(" ")
        words[3 + (7 * k) % (len(words) - 3)] = f"edit{k}"
        bodies[f"c{99 - k:03d}"] = " ".join(words)
    for k in range(30):
        bodies[f"u{k:03d}"] = _memory(rng, vocab)
    bodies["short"] = "too short to judge"
    if copies:
        bodies["a-copy"] = bodies["c060"]
        bodies["b-copy"] = bodies["u003"]
    if huge:
        words = [f"w{rng.randrange(10**6)}" for _ in range(6000)]
        big = "\n".join(" ".join(words[i : i + 12]) + "." for i in range(0, len(words), 12))
        bodies["big-1"] = big
        bodies["big-2"] = big.replace(words[100], "changed", 1)
        bodies["big-3"] = big.replace(words[2000], "other", 1)
    items = [(name, fingerprint(body)) for name, body in bodies.items()]
    assert (max(len(fp.shingles) for _, fp in items) == MAX_SHINGLES) == huge
    monkeypatch.setattr(fingerprint_module, "_BITS_FROM", 10**9)
    on_sets = near_pairs(items)
    monkeypatch.setattr(fingerprint_module, "_BITS_FROM", 0)
    if widest is not None:  # too many shared shingles (10), or too many shingles in all (0): judged on the sets
        monkeypatch.setattr(fingerprint_module, "_BITS_WIDEST", widest)
    on_bits = near_pairs(items)
    assert on_bits == on_sets
    found = pair_ids(on_bits)
    assert {(f"c{i:03d}", f"c{j:03d}") for i, j in itertools.combinations(range(50, 100), 2)} <= found
    assert (("big-1", "big-2") in found) == huge and (("a-copy", "c051") in found) == copies
    assert all(a < b for a, b, _ in on_bits) and on_bits == sorted(on_bits)


def test_a_threshold_of_one_written_as_an_integer_reports_only_identical_shingle_sets(monkeypatch):
    """``threshold: 1`` in a config is an int: on bits as on sets, only the
    reordered copies (similarity 1.0) are pairs, not the edited ones."""
    rng = random.Random(5)
    vocab = _vocabulary(rng)
    lines = _memory(rng, vocab).splitlines()
    bodies = {}
    for k in range(30):
        shuffled = lines[:]
        rng.shuffle(shuffled)
        bodies[f"r{k:02d}"] = "\n".join(shuffled)
    bodies["edited"] = "\n".join(lines).replace(" ", " changed ", 1)
    items = [(name, fingerprint(body)) for name, body in bodies.items()]
    monkeypatch.setattr(fingerprint_module, "_BITS_FROM", 0)
    on_bits = near_pairs(items, 1)
    assert {sim for _, _, sim in on_bits} == {1.0} and len(on_bits) >= 30 * 29 // 2 - 30
    assert all("edited" not in pair for pair in on_bits)
    monkeypatch.setattr(fingerprint_module, "_BITS_FROM", 10**9)
    assert near_pairs(items, 1) == on_bits


def test_pairs_sharing_crowded_buckets_are_each_listed_once():
    """The pairs of bodies sharing one of many overlapping buckets (a
    cluster's band keys), as the bits of their OR give them: every pair of
    each bucket, none other, whatever the overlaps."""
    rng = random.Random(15)
    n = 500
    shapes = []
    for _ in range(20):  # overlapping buckets
        shapes.append([sorted(rng.sample(range(n), rng.randint(2, 120))) for _ in range(rng.randint(1, 12))])
    for _ in range(5):  # one cluster's buckets: the same bodies, or some of them
        whole = sorted(rng.sample(range(n), 90))
        shapes.append([whole] * 3 + [sorted(rng.sample(whole, 70)) for _ in range(4)])
    for _ in range(5):  # clusters of other bodies, their members interleaved (every k-th body)
        k = rng.randint(2, 6)
        shapes.append([list(range(c, n, k)) for c in range(k) for _ in range(2)] + [sorted(rng.sample(range(n), 40))])
    for buckets in shapes:
        found: set[int] = set()
        fingerprint_module._add_pairs_sharing(buckets, n, found)
        assert found == {i * n + j for bucket in buckets for i, j in itertools.combinations(bucket, 2)}
    empty: set[int] = set()
    fingerprint_module._add_pairs_sharing([], n, empty)
    assert empty == set()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_near_pairs_since_an_earlier_memo_equal_a_full_run(seed):
    """A store that changes a little at a time (bodies added, edited,
    removed, copied exactly, renamed; template boilerplate and a real cluster
    in crowded buckets): built on the previous call's memo, near_pairs gives
    exactly the full run's pairs, and judges fewer pairs for it."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    made: dict[str, Fingerprint] = {}

    def fp(body: str) -> Fingerprint:
        if body not in made:
            made[body] = fingerprint(body)
        return made[body]

    stock = "\n".join(["## Checklist", "- Verify the change in staging before the rollout starts.",
                       "- Record the outcome in the weekly operations log.", "## Notes",
                       "Do not copy secrets or tokens into memory files."])
    base = _memory(rng, vocab)
    store: dict[str, str] = {}
    for k in range(120):
        store[f"m{k:03d}"] = _memory(rng, vocab)
    for k in range(70):  # a real cluster, more than a bucket's cap
        words = base.split(" ")
        words[5 + k % (len(words) - 5)] = f"edit{k}"
        store[f"c{k:03d}"] = " ".join(words)
    for k in range(80):  # boilerplate: crowded buckets that are not clusters
        store[f"t{k:03d}"] = "## Context\n" + sentence(rng, vocab) + " " + sentence(rng, vocab) + "\n" + stock
    serial = itertools.count(1000)
    memo, saved = None, 0
    for step in range(30):
        for _ in range(rng.randint(1, 4)):
            names = sorted(store)
            pick = rng.choice(names)
            move = rng.random()
            if move < 0.25:
                store[f"n{next(serial)}"] = _memory(rng, vocab)
            elif move < 0.45:
                store[f"n{next(serial)}"] = edit(rng, vocab, store[pick])
            elif move < 0.6:
                store[pick] = edit(rng, vocab, store[pick])
            elif move < 0.75 and len(store) > 50:
                del store[pick]
            elif move < 0.85:
                store[f"n{next(serial)}"] = store[pick]  # an exact copy
            else:
                store[f"a{next(serial)}"] = store.pop(pick)  # renamed: another place in the order
        items = [(name, fp(body)) for name, body in sorted(store.items())]
        full_stats: dict = {}
        full = near_pairs(items, stats=full_stats)
        stats: dict = {}
        since, memo = near_pairs_since(items, memo, stats=stats)
        assert since == full, f"step {step}"
        assert memo.pairs == [(a, b, sim) for a, b, sim in memo.pairs if memo.names.index(a) < memo.names.index(b)]
        saved += stats["candidates"] < full_stats["candidates"] // 2
    assert saved >= 10  # most steps judged only the pairs of new bodies
    assert near_pairs_since(items, memo, 0.5)[0] == near_pairs(items, 0.5)  # another threshold: all judged


def test_near_pairs_since_judges_all_again_when_a_crowded_bucket_changes():
    """A pair whose one shared band key is in a crowded bucket (more than
    the cap, judged boilerplate by its sample) is found only while the
    bucket is small: bodies leaving it or joining it change the answer, and
    the memo is not built on then; while it stays crowded, a new body gets
    no candidates from it."""
    import zlib
    from array import array

    crowded_key = 1 << 59

    def body(name: str, shingles: list[int]) -> tuple[str, Fingerprint]:
        bands = array("Q", [crowded_key, zlib.crc32(name.encode())]).tobytes()
        return name, Fingerprint(name.encode(), array("I", sorted(shingles)).tobytes(), 100, bands)

    rng = random.Random(5)
    others = [body(f"o{k:02d}", rng.sample(range(10_000, 1 << 30), 100)) for k in range(64)]
    twins = [body("p", list(range(1, 101))), body("q", [*range(1, 91), *range(1000, 1010)])]
    # the twins at positions 3 and 4 of the bucket, which its sample of pairs does not test
    crowded = others[:3] + twins + others[3:]  # 66 bodies: over the cap
    small = crowded[:-2]  # 64: expanded whole
    assert pair_ids(near_pairs(crowded)) == set() and pair_ids(near_pairs(small)) == {("p", "q")}
    for before, after in ((crowded, small), (small, crowded)):
        memo = near_pairs_since(before, None)[1]
        assert near_pairs_since(after, memo)[0] == near_pairs(after)
    # A new body in a bucket skipped then and now: the memo is built on, and
    # the skipped bucket gives the new body no candidates, as in a full run.
    extra = body("r", rng.sample(range(10_000, 1 << 30), 100))
    before = others[:3] + twins[:1] + others[3:] + [extra]
    memo = near_pairs_since(before, None)[1]
    stats: dict = {}
    assert near_pairs_since(crowded + [extra], memo, stats=stats)[0] == near_pairs(crowded + [extra]) == []
    assert stats["candidates"] == 0  # built on the memo: nothing to judge
    # A new body outside the crowded bucket: only its key and the crowded one
    # are looked up (that bucket is counted again: it may have shrunk below the cap).
    loner = ("s", Fingerprint(b"s", array("I", rng.sample(range(10_000, 1 << 30), 100)).tobytes(), 100,
                              array("Q", [7]).tobytes()))
    memo = near_pairs_since(crowded, None)[1]
    stats = {}
    assert near_pairs_since(crowded + [loner], memo, stats=stats)[0] == near_pairs(crowded + [loner]) == []
    assert stats["keys"] == 2 and stats["max_bucket"] == len(crowded)
    # A new body while the bucket shrinks to the cap: it is expanded now.
    shrunk = small[:-1] + [extra]
    assert pair_ids(near_pairs_since(shrunk, memo)[0]) == pair_ids(near_pairs(shrunk)) == {("p", "q")}


def test_stored_band_keys_meet_keys_computed_on_the_spot():
    # A Fingerprint without bands (made by hand, or read from an older cache)
    # is indexed with keys computed on the spot; they must meet stored ones.
    import dataclasses

    bodies = [BASE, ONE_SENTENCE_CHANGED, SAME_TEMPLATE, SAME_TEMPLATE.replace("two megabytes", "one megabyte")]
    stored = [(f"b{i}", fingerprint(body)) for i, body in enumerate(bodies)]
    assert all(fp.bands for _, fp in stored)
    bare = [(ident, dataclasses.replace(fp, packed_bands=b"")) for ident, fp in stored]
    mixed = [stored[0], bare[1], bare[2], stored[3]]
    expected = near_pairs(stored)
    assert pair_ids(expected) == {("b0", "b1"), ("b2", "b3")}
    assert near_pairs(bare) == expected and near_pairs(mixed) == expected
    assert near_pairs(mixed, 0.7) == near_pairs(stored, 0.7)  # rows 3: stored keys unused


# --- the fast implementation against a plain one --------------------------------
#
# fingerprint() works on UTF-8 bytes with C-level maps; the threshold was
# calibrated on, and the cache stores, the values of the plain algorithm
# below (str.translate, one segment at a time). They must agree exactly.

import hashlib
import re
import string
import zlib

from memlint.cjk import UNSPACED

_REF_SEPARATORS = (
    "\"#$%&'()*+,-/:;<=>@[\\]^_`{|}~"
    "\u00a0\u2000\u2001\u2002\u2003\u2009\u200b\u3000"
    "\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u00b7\u2022\u2192\u2190"
    "\u3001\u3008\u3009\u300a\u300b\u300c\u300d\u300e\u300f\u3010\u3011"
    "\uff08\uff09\uff0c\uff1a\uff1b"
)
_REF_BREAKS = "\u3002\uff01\uff1f\u2028\u2029\r"
_REF_NORM = str.maketrans({c: " " for c in string.punctuation + "".join(
    c for c in _REF_SEPARATORS + _REF_BREAKS if not c.isascii() and not c.isspace() and c != "\u200b")})
_REF_TOKENS = str.maketrans({**{c: " " for c in _REF_SEPARATORS}, **{c: "\n" for c in _REF_BREAKS}})
_REF_CJK = re.compile(f"([{UNSPACED}])")  # the shared definition: the bytes pattern must spell it
_REF_ORDERS = (0x2545F491, 0x1B873593, 0x0CC9E2D5, 0x27D4EB2F, 0x165667B1, 0x3C6EF35F, 0x08EBCA6B)


def _ref_band_keys(s: list[int], rows: int) -> list[int]:
    """Band keys of a sorted shingle list, written plainly (64 bands, 30-bit hashes)."""
    def key(values):
        out = 0
        for r, value in enumerate(values):
            out |= value << (30 * r)
        return out

    def windows(values, starts):
        ring = values + values[: rows - 1]
        return [key(ring[i : i + rows]) for i in starts]

    n = len(s)
    if n <= rows:
        return [key(s)]
    if n > 64:  # one window per non-empty bin (top 6 of 30 bits), from its smallest hash
        return windows(s, [i for i in range(n) if i == 0 or s[i] >> 24 != s[i - 1] >> 24])
    keys = windows(s, range(n))
    for a in _REF_ORDERS[: round(64 / n) - 1]:
        keys += windows(sorted((x * a) & (2**30 - 1) for x in s), range(n))
    return keys


def _ref_fingerprint(body: str) -> tuple[bytes, frozenset[int], int, tuple[int, ...]]:
    """(exact, shingles, words, bands), computed the plain way."""
    lowered = body.lower()
    normalised = " ".join(lowered.translate(_REF_NORM).split())
    if not normalised:
        return b"", frozenset(), 0, ()
    exact = hashlib.blake2b(normalised.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    text = lowered.translate(_REF_TOKENS) + "\n"
    for end in (". ", ".\n", ".\t", "! ", "!\n", "? ", "?\n"):  # one after another, in this order
        text = text.replace(end, "\n")
    text = _REF_CJK.sub(r" \1 ", text)
    segments = []
    for line in text.encode("utf-8", "surrogatepass").split(b"\n"):
        words = line.split()
        if words and not (len(words) == 1 and words[0].isdigit()):
            segments.append(words)
    strings = set()
    for words in segments:
        if len(words) >= 3:
            strings.update(b" ".join(words[i : i + 3]) for i in range(len(words) - 2))
        else:
            strings.add(b" ".join(words))
    ordered = sorted({zlib.crc32(s) >> 2 for s in strings})[:MAX_SHINGLES]
    return exact, frozenset(ordered), sum(map(len, segments)), tuple(_ref_band_keys(ordered, 2))


def _fields(fp: Fingerprint) -> tuple[bytes, frozenset[int], int, tuple[int, ...]]:
    return fp.exact, fp.shingles, fp.words, tuple(fp.bands)


_SEPARATORS = _REF_SEPARATORS + _REF_BREAKS
_UNICODE_WHITESPACE = "".join(c for c in map(chr, range(128, 0x3001)) if c.isspace())
_CJK_EDGES = "\u303f\u3040\u30ff\u3100\u33ff\u3400\u4dbf\u4dc0\u4dff\u4e00\u9fff\ua000\uf8ff\uf900\ufaff\ufb00\uff65\uff66\uff9f\uffa0"
_PIECES = {
    "ascii": ["deploy", "Staging", "API", "x", "a", "the", "i", "v2", "rollout", "QA", "e.g", "ok"],
    "numbers": ["1", "2.", "10", "3)", "007", "1.5", "٣", "²"],
    "punctuation": list(string.punctuation) + ["**", "`", "```", "[x](y)", "![a](b.png)", "| a | b |", "---", "..", "...", "?!", "!!"],
    "space": [" ", "  ", "\t", "\n", "\n\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", ". ", ".\t", "! ", "?\n", ".\n"],
    "unicode": list(_SEPARATORS) + list(_UNICODE_WHITESPACE) + ["é", "É", "İ", "ß", "ÿ", "\x85", "\x00", "—", "→", "✅", "한국어", "Ω", "🙂"],
    "cjk": list(_CJK_EDGES) + ["气象套利", "置信度", "ひらがな", "カタカナ", "漢字", "。", "，", "：", "（注）", "豈"],
    "surrogate": ["\ud800", "\udfff", "\udc80"],
}


def _random_body(rng: random.Random) -> str:
    kinds = rng.sample(sorted(_PIECES), rng.randint(1, len(_PIECES)))
    pool = [piece for kind in kinds for piece in _PIECES[kind]]
    out = []
    for _ in range(rng.randrange(0, 120)):
        out.append(rng.choice(pool))
        out.append(rng.choice(("", " ", " ", " ", "\n", ". ", ", ")))
    return "".join(out)


def test_fingerprint_equals_the_plain_algorithm_on_generated_bodies():
    rng = random.Random(20240601)
    bodies = [_random_body(rng) for _ in range(3000)]
    bodies += [
        "", " ", "\n\t \r\n", "\u3000\u2028", ".", "...", "- [ ] ", "1.", "1.\n2.\n3.", "12 34", "1\n2 x\n3",
        "\u2026", "\u3002\u3002", "a", "a b", "a b c", "a.b. c! d? e", "a.\tb.\tc", "x..  y", "x!? y", "x!\ty",
        BASE, SAME_TEMPLATE, BASE.upper(), BASE.replace("\n", "\r\n"),
        "气象套利信号分析：置信度不低于百分之九十六，优势不低于百分之二。数据来自历史气象记录。",
        "\ud800 lone \udfff surrogates \udc80.",
    ]
    for body in bodies:
        assert _fields(fingerprint(body)) == _ref_fingerprint(body), repr(body)
        assert exact_key(body) == _ref_fingerprint(body)[0]


def test_fingerprint_equals_the_plain_algorithm_on_huge_bodies():
    rng = random.Random(5)
    words = [f"w{rng.randrange(10**6)}" for _ in range(9000)]
    for body in (
        " ".join(words),  # one segment, far more than MAX_SHINGLES shingles
        "\n".join(" ".join(words[i : i + 300]) for i in range(0, 9000, 300)),  # long segments
        ". ".join(words[:6000]),  # thousands of one-word segments
        "\u3002".join("".join(chr(0x4E00 + rng.randrange(20000)) for _ in range(8)) for _ in range(700)),
    ):
        fp = fingerprint(body)
        assert len(fp.shingles) <= MAX_SHINGLES
        assert _fields(fp) == _ref_fingerprint(body)


def test_band_keys_equal_the_plain_algorithm_for_every_row_count():
    rng = random.Random(9)
    for n in [0, 1, 2, 3, 5, 9, 20, 31, 32, 33, 63, 64, 65, 66, 100, 200, 1000, 5000]:
        shingles = frozenset(rng.randrange(2**30) for _ in range(n))
        clustered = frozenset(rng.randrange(2**24) for _ in range(n))  # all in bin 0
        for s in (shingles, clustered):
            for rows in range(2, 9):
                assert fingerprint_module._band_keys(s, rows) == _ref_band_keys(sorted(s), rows), (n, rows)


def test_unicode_spaces_are_exactly_what_str_split_splits_on():
    spaces = {c for c in map(chr, range(128, 0x110000)) if c.isspace()}
    assert spaces == set(fingerprint_module._UNICODE_SPACES)


def test_cjk_bytes_pattern_matches_exactly_the_cjk_characters():
    one_char = re.compile(fingerprint_module._CJK_RE.pattern + b"$")
    for code in range(0x80, 0x10000):
        c = chr(code)
        assert bool(one_char.match(c.encode("utf-8", "surrogatepass"))) == bool(_REF_CJK.fullmatch(c)), hex(code)


def test_fingerprint_equals_the_plain_algorithm_on_the_real_stores(corpora):
    bodies = []
    for repo in corpora.values():
        for path in sorted(repo.rglob("*.md")):
            if ".git" not in path.parts:
                bodies.append(path.read_bytes().decode("utf-8", "replace"))
    assert len(bodies) > 250
    for body in bodies:
        assert _fields(fingerprint(body)) == _ref_fingerprint(body)

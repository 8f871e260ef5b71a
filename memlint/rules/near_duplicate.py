"""Two memory files' bodies are near-identical: one memory filed twice, edited.

Why: the same fact re-written under a new name with a sentence changed, a
line added or the bullets reordered. Both copies are loaded, and when they
disagree the agent cannot tell which is current.

Similarity is the Jaccard index of the two bodies' sets of word 3-shingles,
taken within each line or sentence (frontmatter, case and punctuation
ignored), so reordering lines or sentences changes nothing, and two notes
from one template share only the template's stock lines, not their facts.
Candidates come from locality-sensitive hashing, not from comparing every
pair. The finding sits on line 1 of the newer file (created later by git;
not yet committed counts as newest; without git, the later path), names the
most similar older copy and the similarity, then up to five more older
copies, most similar first, and how many more there are. Exact copies are duplicate-content's (MEM301).
Memories where one supersedes the other, and retired memories, are not
reported (as for MEM301).

Options: ``threshold`` (0.4, from 0.01 to 1): the lowest similarity reported.
Measured on 443 distinct versions of the files of four real stores: 57 pairs
reach 0.4, and the 20 read by hand were all true; the false pairs found (two
templates, a plan and its overview, same-template notes) score 0.27 or less.
Notes from one template whose lines are mostly the template's own (two
hosts' runbooks that differ in an address and a date) do reach it: the
shared lines are loaded twice, and edited in one copy they go stale in the
other; keep them in one memory, each note its own facts. ``min-words`` (20):
bodies with fewer words are too short to judge. ``include-logs`` (false)
and ``reports``: as for MEM301.

Fires: ``project_pricing.md`` and a later ``project_pricing-2.md`` with one
bullet changed and two lines swapped (similarity 0.7).

Fix: merge the two into the older file, delete the copy and its index
entry. If the newer is the correction, give it ``supersedes: <old>`` and
retire the old one. If both are right and distinct, say so with
``<!-- memlint-disable-file MEM302 -->`` in the newer.
"""
from __future__ import annotations

import heapq
from operator import itemgetter

from memlint.finding import Problem
from memlint.fingerprint import DEFAULT_THRESHOLD, near_pairs_since
from memlint.rules import _duplicates
from memlint.rules._common import name_some
from memlint.rules._duplicates import SHOWN

CODE = "MEM302"
NAME = "near-duplicate"
SEVERITY = "warning"
SCOPE = "store"
TAGS = ("duplicates", "content")
OPTIONS = {
    "threshold": ((float,), DEFAULT_THRESHOLD),
    "min-words": ((int,), 20),
    **_duplicates.OPTIONS,
}
GLOB_OPTIONS = _duplicates.GLOB_OPTIONS
BOUNDS = {"threshold": (0.01, 1.0)}  # checked when the config loads

content_memo = _duplicates.content_memo  # fingerprints made with the parse


def check(store, options):
    threshold, min_words = options["threshold"], options["min-words"]
    docs = {doc.rel: doc for doc in _duplicates.compared(store, options, CODE)}
    fingerprints = store.fingerprints
    # Built on the last run's pairs: only those of new or changed bodies are judged.
    pairs, memo = near_pairs_since([(rel, fingerprints[rel]) for rel in docs], store.kept("near-pairs"), threshold,
                                   min_words=min_words)
    store.keep("near-pairs", memo)
    if not pairs:
        return
    ages = _duplicates.Ages(store)
    # Each file's key in oldest-first order and its path, made once per file,
    # not once per pair (a cluster of m near-copies has m²/2 pairs).
    involved = set(map(itemgetter(0), pairs))
    involved.update(map(itemgetter(1), pairs))
    age = {rel: ages.key(docs[rel]) for rel in involved}
    path = {rel: docs[rel].path for rel in involved}
    olders: dict[str, list[tuple[float, str, str]]] = {}  # newer -> (-similarity, older's path, older)
    check_related = bool(store.lifecycle.newer)  # no memory supersedes another: no pair is expected
    for a, b, similarity in pairs:
        if check_related and _duplicates.related(store, a, b):
            continue
        older, newer = (a, b) if age[a] <= age[b] else (b, a)
        found = olders.get(newer)
        if found is None:
            olders[newer] = [(-similarity, path[older], older)]
        else:
            found.append((-similarity, path[older], older))
    # One finding per newer file (findings on one line with one code are one
    # finding), naming the older copies most similar first: SHOWN of them
    # after the first, and how many more.
    for rel in sorted(olders):
        newer = docs[rel]
        found = olders[rel]
        ranked = heapq.nsmallest(SHOWN + 1, found)
        similarity, older = -ranked[0][0], docs[ranked[0][2]]
        others = [f"{other}:1 ({-s:.2f})" for s, other, _ in ranked[1:]]
        also = f"; also of {name_some(others, SHOWN, len(found) - len(ranked))}" if others else ""
        yield Problem(
            newer.path, 1, 0,
            f"near-duplicate of {older.path}:1 (similarity {similarity:.2f}, threshold {threshold:g}){also}; "
            f"this copy is the newer ({ages.why_newer(newer, older)})",
        )

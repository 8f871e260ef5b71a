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
older and the similarity. Exact copies are duplicate-content's (MEM301).
Memories where one supersedes the other, and retired memories, are not
reported (as for MEM301).

Options: ``threshold`` (0.4, from 0 to 1): the lowest similarity reported.
Measured on 443 distinct versions of the files of four real stores: 57 pairs
reach 0.4, and the 20 read by hand were all true; the false pairs found (two
templates, a plan and its overview, same-template notes) score 0.27 or less. ``min-words`` (20):
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

from memlint.finding import Problem
from memlint.fingerprint import DEFAULT_THRESHOLD, near_pairs_since
from memlint.rules import _duplicates

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
    olders: dict[str, list[tuple[float, object]]] = {}  # newer -> (similarity, older)
    for a, b, similarity in pairs:
        if _duplicates.related(store, a, b):
            continue
        older, newer = ages.oldest_first([docs[a], docs[b]])
        olders.setdefault(newer.rel, []).append((similarity, older))
    # One finding per newer file (findings on one line with one code are one
    # finding), naming every older copy, most similar first.
    for rel in sorted(olders):
        newer = docs[rel]
        ranked = sorted(olders[rel], key=lambda pair: (-pair[0], pair[1].path))
        similarity, older = ranked[0]
        also = "; also of " + ", ".join(f"{d.path}:1 ({s:.2f})" for s, d in ranked[1:]) if len(ranked) > 1 else ""
        yield Problem(
            newer.path, 1, 0,
            f"near-duplicate of {older.path}:1 (similarity {similarity:.2f}, threshold {threshold:g}){also}; "
            f"this copy is the newer ({ages.why_newer(newer, older)})",
        )

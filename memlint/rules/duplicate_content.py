"""Two memory files have the same body: one memory filed twice.

Why: agents re-write a fact under a new name instead of finding the old
file. Both copies are loaded, cost context twice, and drift apart the first
time only one of them is corrected.

Bodies are compared after lowercasing, removing punctuation (markdown
included: ``**x**``, ``[text](url)``, list markers, headings) and collapsing
whitespace; frontmatter is not compared. A blank body is never a duplicate,
nor is a stub of fewer than ``min-words`` words (``TODO``, ``See above.``).
The finding sits on line 1 of the newer file (created later by git; not yet
committed counts as newest; without git, the later path) and names the
oldest copy, then up to five other copies and how many more there are.
Memories where one supersedes the other (``supersedes`` /
``superseded_by``, through a chain too) are expected copies and are not
reported; nor are retired memories (``status: outdated`` ...: tag
``content``, see ``retired-exempt-rules``).

Options: ``min-words`` (3): shorter bodies are stubs whose frontmatter is the
memory, and are not compared. ``include-logs`` (false): also compare daily logs and generated
reports, where identical copies are common and often intended. ``reports``
(``**/reports/**``, ``**/*report[-_][0-9]*.md``, ``**/*[-_]report.md``): the
globs, against the store-relative path, of files that are generated reports.

Fires: ``feedback_deploys.md`` and, written a month later,
``feedback_deploy-rule.md`` with the same text re-wrapped and in bold.

Fix: keep one (usually the older, which links point to), merge anything the
other's frontmatter adds, delete the copy and its index entry. If the copy
is the correction, give it ``supersedes: <old>`` and retire the old one.
"""
from __future__ import annotations

from memlint.finding import Problem
from memlint.fingerprint import exact_groups
from memlint.rules import _duplicates
from memlint.rules._common import name_some
from memlint.rules._duplicates import SHOWN

CODE = "MEM301"
NAME = "duplicate-content"
SEVERITY = "warning"
SCOPE = "store"
TAGS = ("duplicates", "content")
OPTIONS = {"min-words": ((int,), 3), **_duplicates.OPTIONS}
GLOB_OPTIONS = _duplicates.GLOB_OPTIONS

content_memo = _duplicates.content_memo  # fingerprints made with the parse


def check(store, options):
    min_words = options["min-words"]
    docs = {doc.rel: doc for doc in _duplicates.compared(store, options, CODE)}
    fingerprints = store.fingerprints
    groups = exact_groups((rel, fingerprints[rel]) for rel in docs if fingerprints[rel].words >= min_words)
    if not groups:
        return
    ages = _duplicates.Ages(store)

    # A copy of a memory it supersedes, or that supersedes it, is expected.
    exempt = _duplicates.relatives(store) if store.lifecycle.newer else None  # else nothing to skip
    for group in groups:
        for newer, older, others, more in _duplicates.group_findings(ages, [docs[rel] for rel in group], exempt=exempt):
            also = f"; also the same: {name_some((d.path for d in others), SHOWN, more)}" if others else ""
            yield Problem(
                newer.path, 1, 0,
                f"same body as {older.path}:1 (whitespace, case and markdown aside){also}; "
                f"this copy is the newer ({ages.why_newer(newer, older)})",
            )

"""Two memory files share a ``name`` or ``title``, so a ``[[name]]`` link is ambiguous.

Why: a ``[[name]]`` link, and a ``supersedes: name``, resolve through the
``name``/``title`` with case, ``-``, ``_`` and spaces ignored (as
``memlint.graph`` resolves them). When two memories share one, the link silently picks
one of them by path order, often the old one; and two memories with one
name are usually one memory filed twice.

The finding sits on the ``name`` (or ``title``) line of the newer file
(created later by git; not yet committed counts as newest; without git, the
later path) and names the older file and its line, then up to five other
files with the name and how many more there are. Retired memories count:
the link resolves to them just the same.

Options: ``include-logs`` (false) and ``reports``: also compare daily logs
and generated reports (see duplicate-content, MEM301), which often share a
title such as "Daily briefing".

Fires: ``feedback_testing.md`` with ``name: Testing rules`` and a later
``feedback_tests.md`` with ``name: testing-rules``.

Fix: rename one (``name: testing-rules-frontend``) and update the links
that meant it, or merge the two memories if they are one.
"""
from __future__ import annotations

from itertools import count

from memlint.finding import Problem
from memlint.graph import fold
from memlint.rules import _duplicates
from memlint.rules._common import name_some
from memlint.rules._duplicates import SHOWN

CODE = "MEM303"
NAME = "duplicate-name"
SEVERITY = "warning"
SCOPE = "store"
TAGS = ("duplicates",)
OPTIONS = dict(_duplicates.OPTIONS)
GLOB_OPTIONS = _duplicates.GLOB_OPTIONS
NAME_FIELDS = ("name", "title")


def _named(doc) -> dict[str, str]:
    """folded name -> the field that carries it (``name`` first)."""
    out: dict[str, str] = {}
    for field in NAME_FIELDS:
        value = doc.field(field)
        key = fold(value.strip()) if isinstance(value, str) else ""
        if key:
            out.setdefault(key, field)
    return out


def check(store, options):
    by_slug: dict[str, list] = {}
    fields: dict[tuple[str, str], str] = {}
    for doc in _duplicates.compared(store, options, CODE):
        for key, field in _named(doc).items():
            by_slug.setdefault(key, []).append(doc)
            fields[key, doc.rel] = field
    groups = {key: docs for key, docs in by_slug.items() if len(docs) > 1}
    if not groups:
        return
    ages = _duplicates.Ages(store)
    reported: set[tuple[str, str]] = set()
    for key in sorted(groups):
        # once per group, not per finding: a group of thousands made it quadratic
        members = {doc.rel for doc in groups[key]}
        written = {doc.field(fields[key, doc.rel]).strip() for doc in groups[key]}
        for newer, older, others, more in _duplicates.group_findings(ages, groups[key]):
            if (newer.rel, older.rel) in reported:
                continue  # name and title both clash: one finding
            reported.add((newer.rel, older.rel))
            field, older_field = fields[key, newer.rel], fields[key, older.rel]
            also = f" and {name_some((d.path for d in others), SHOWN, more)}" if others else ""
            # A link spelled exactly as one name finds that one (graph: exact names first):
            # spelled the same, the name's own spelling is ambiguous; else only another is.
            # (stripped, as links match them: a block scalar, `name: >`, ends in a newline)
            spelled, older_spelled = newer.field(field).strip(), older.field(older_field).strip()
            link = _ambiguous_link(store, newer, key, spelled, older_spelled, members, written)
            yield Problem(
                newer.path, newer.key_line(field), 1,
                f"`{field}: {spelled}` is the same name as {older.path}:"
                f"{older.key_line(older_field)} (`{older_field}: {older_spelled}`){also} once case, "
                f"'-', '_' and spaces are ignored, so {link} cannot tell them apart; "
                f"this one is the newer ({ages.why_newer(newer, older)})",
            )


def _ambiguous_link(store, newer, key: str, spelled: str, older_spelled: str, members: set, written: set) -> str:
    """The link the message offers as one that cannot tell ``members``
    (the paths of the memories named ``key``; ``written``: their names as written) apart:
    the name as both write it, else a spelling neither is written in. A
    file elsewhere whose path or file name the spelling matches takes the
    link first (graph: paths, then exact names, then file names, then folded
    names): said, rather than offering a link that finds that file."""
    candidates = [spelled] if spelled == older_spelled else _spelled_as_none(key, spelled, written)
    for candidate in candidates:
        if store.wiki_names.lookup(newer, candidate) in members:
            return f"`[[{candidate}]]`" if candidate == spelled else f"a `[[{candidate}]]` link"
    link = f"`[[{candidates[0]}]]`" if candidates[0] == spelled else f"a `[[{candidates[0]}]]` link"
    found = store.wiki_names.lookup(newer, candidates[0])
    return f"{link} finds {store.docs[found].path} instead and" if found else link  # (`name: ../x`: a path out, finds nothing)


def _spelled_as_none(key: str, spelled: str, written: set) -> list[str]:
    """Spellings of the folded name ``key`` that none of the names ``written``
    is (a link spelled exactly as one finds that one), best first."""
    candidates = (key, key.upper(), spelled.upper(), spelled.lower(), spelled.title(), spelled.swapcase())
    # (an underscore is ignored as the case is: one more spelling when every other is written)
    return [c for c in dict.fromkeys(candidates) if c not in written] + \
        [next("_" * n + key for n in count(1) if "_" * n + key not in written)]

"""Two or more live memories assert the same ``key`` and none supersedes another.

Why: the worst case of unmaintained memory: eight memories state the old
price, one the new, nothing marks the old ones superseded, and the agent
loads all nine; the majority wins. ``key`` names the fact a memory asserts
(``competitor-x/pro-plan/price``; one string or a list, compared without
case); two live memories with one key are two answers to one question.

The finding sits on the ``key`` line of the newest member and lists every
member, newest first, each with its date: the newest of ``last_verified``,
``updated``, ``date`` and ``created``, else git's last change. Retired
memories (``status: outdated``, ``superseded``, ``conflicted``...) and
memories some other memory supersedes are not members: a superseded memory
that is still live is reported by supersession-broken (MEM503).

Options: none.

Fires: ``price-2025-01.md`` ... ``price-2025-08.md`` and ``price-2026.md``
all say ``key: competitor-x/pro-plan/price`` with ``status: active``.

Fix: if the newest is right, give it ``supersedes: [the others]`` and set
``status: outdated`` on the others (keep the files) and remove their index
entries; if it is not, retire it instead. Undecided: mark the disputed ones
``status: conflicted`` and take them out of the indexes until someone checks
(a retired memory an index routes to is MEM205's error).
"""
from __future__ import annotations

import unicodedata

from memlint.finding import Problem
from memlint.lifecycle import retire_as, retired_statuses

CODE = "MEM504"
NAME = "conflict"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("lifecycle",)
OPTIONS: dict = {}


def _key_as_written(doc, folded: str) -> str:
    value = doc.field("key")
    for item in value if isinstance(value, list) else [value]:
        if unicodedata.normalize("NFC", str(item).strip()).casefold() == folded:
            return str(item).strip()
    return folded


def check(store, options):
    lc = store.lifecycle
    docs = store.docs
    retire = retire_as(store.settings)
    undecided = "conflicted" if "conflicted" in retired_statuses(store.settings) else retire  # one this store retires
    for key, members in lc.conflicts():
        newest = docs[members[0]]

        def dated(rel: str) -> str:
            when = lc.asserted_on(docs[rel])
            return f"{docs[rel].path} ({when.isoformat() if when else 'no date'})"

        others = members[1:]
        listing = ", ".join(dated(rel) for rel in members)
        refs = ", ".join(lc.reference_to(newest, rel) for rel in others)  # as read from this file
        two = len(members) == 2
        message = (
            f"{len(members)} live memories assert `key: {_key_as_written(newest, key)}` and "
            f"{'neither supersedes the other' if two else 'none supersedes another'}; newest first: {listing}. "
            f"If this one is current, add `supersedes: [{refs}]` here, set `status: {retire}` on "
            f"{'the other and remove its index entry' if two else 'the others and remove their index entries'}; "
            f"if it is not, retire it instead (undecided: mark the disputed ones `status: {undecided}` "
            "and take them out of the indexes)"
        )
        yield Problem(newest.path, newest.key_line("key"), 1, message)

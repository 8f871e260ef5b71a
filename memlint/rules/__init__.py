"""The rule catalogue: one module per rule, found in this package.

Each rule module defines ``CODE`` (stable, never reused), ``NAME``,
``SEVERITY`` ("error" | "warning"), ``SCOPE`` ("file" | "store"),
``TAGS``, ``OPTIONS`` (name -> (types, default)) and ``check``:
``check(doc, store, options)`` for file scope, ``check(store, options)`` for
store scope. ``check`` yields :class:`memlint.finding.Problem` and never
prints. The module docstring is the rule's documentation (``memlint rule``).

A file rule may set ``LOCAL = True`` when what it finds in a file depends on
nothing but that file (content, path, role), the file's own git dates
(``store.git_dates.of(doc)``) and the store's settings and options, not
today's date: the linter then reuses its findings on a file whose blob id,
path, role and git dates are as in the last run, from day to day
(``memlint.linter._local_outcomes``).

A rule that reads ``store.lifecycle.routes`` (the index entries that route
to a memory, made from the link graph), or the graph itself without the
``links`` or ``graph`` tag, sets ``READS_ROUTES = True``: on a big store the
linter runs it in the process that builds the graph.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache
from types import ModuleType


@lru_cache(maxsize=1)
def all_rules() -> tuple[ModuleType, ...]:
    modules = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "CODE"):
            modules.append(module)
    return tuple(sorted(modules, key=lambda m: m.CODE))


def documentation(rule: ModuleType) -> str:
    """A rule's docstring as a person reads it: code in single backticks, as
    markdown writes it (the docstrings' ``double`` ones are reStructuredText's)."""
    return (rule.__doc__ or "").strip().replace("``", "`")


@lru_cache(maxsize=1)
def _by_key() -> dict[str, ModuleType]:
    table: dict[str, ModuleType] = {}
    for rule in all_rules():
        for key in (rule.CODE, rule.NAME, *getattr(rule, "ALIASES", ())):
            table[key.upper() if key.upper().startswith("MEM") else key] = rule
    return table


def get(key: str) -> ModuleType:
    """Look a rule up by code (any case) or name; ValueError if unknown."""
    table = _by_key()
    rule = table.get(key) or table.get(key.upper()) or table.get(key.lower())
    if rule is None:
        raise ValueError(f"no such rule: {key!r} (see `memlint rules`)")
    return rule


_CODE_LIKE = re.compile(r"mem(?:\d|$)", re.IGNORECASE)  # a code or a code prefix (MEM: every code); `memory-oversized` is a name


def _folded(key: str) -> str:
    return key.upper() if _CODE_LIKE.match(key) else key.lower()


def codes_named(key: str) -> frozenset[str]:
    """The codes of the rules a code, name, alias, tag or code prefix names
    (any case); asked for each word of each directive: a look-up."""
    folded = _folded(key)
    if _CODE_LIKE.match(folded):
        return frozenset(rule.CODE for rule in all_rules() if rule.CODE.startswith(folded))
    return _codes_by_name().get(folded, frozenset())


@lru_cache(maxsize=1)
def _codes_by_name() -> dict[str, frozenset[str]]:
    by_name: dict[str, set[str]] = {}
    for rule in all_rules():
        for name in (rule.NAME, *getattr(rule, "ALIASES", ()), *getattr(rule, "TAGS", ())):
            by_name.setdefault(name.lower(), set()).add(rule.CODE)
    return {name: frozenset(codes) for name, codes in by_name.items()}


def keys_of(rule: ModuleType) -> set[str]:
    """What names ``rule`` in a selection or a directive: its code, name, aliases and tags."""
    return {rule.CODE, rule.NAME, *getattr(rule, "ALIASES", ()), *getattr(rule, "TAGS", ())}


def matches(rule: ModuleType, keys) -> bool:
    """True if ``rule`` is named by any code, name or tag in ``keys``."""
    wanted = {_folded(k) for k in keys}  # names and tags: any case
    return bool(
        wanted & keys_of(rule)
        or any(rule.CODE.startswith(w) for w in wanted if w.startswith("MEM"))
    )

"""A supersession chain is broken: a target is missing, the two sides disagree, a superseded memory is still live, or a cycle.

Why: when a fact changes, the new memory points back with ``supersedes:
<old>`` and the old one is retired (``status: superseded`` or
``outdated``), never deleted, so its history stays. If the old memory keeps
a live status, the agent loads the old fact beside the new one; if a
reference names nothing, or the two memories tell different stories, nobody
can tell which fact is current.

A reference is a memory's ``id``, its path (relative to the file or to the
store, ``.md`` optional), its ``name``/``title``, or its filename stem,
written plain, as a ``[[wikilink]]`` or as a markdown link (``'[Old
price](old.md)'``, quoted: bare, YAML cannot read it); a field holds one reference or a list. ``supersedes`` alone is enough; where
the old memory also names ``superseded_by``, the two must agree. A
``supersedes`` that names a file memlint does not read (moved to a hidden
folder such as ``.archive/``, or excluded) is fine: the old memory was
archived. A ``superseded_by`` that does is reported: what replaces the
memory is out of the agent's sight. A ``cancelled`` (or ``canceled``)
memory never took effect: it supersedes nothing, and what it names stays
current; a ``superseded_by`` that names one is reported.

Options: none. The retired statuses are the store setting
``retired-statuses``.

Fires:

- ``supersedes: old-price`` and no memory is called that;
- ``new.md`` says ``supersedes: old`` but ``old.md`` says
  ``superseded_by: other``;
- ``new.md`` says ``supersedes: old`` and ``old.md`` still has
  ``status: active``;
- ``a.md`` supersedes ``b.md`` and ``b.md`` supersedes ``a.md``.

Fix: mark the superseded memory ``status: superseded`` (keep the file) and
remove its index entry; point each reference at a memory that exists; make
both sides name each other; in a cycle, keep only the ``supersedes`` that
points from the newer memory to the older one.
"""
from __future__ import annotations

import posixpath

from memlint.finding import Problem
from memlint.lifecycle import (SUPERSEDED_BY_FIELDS, SUPERSEDES_FIELDS, is_cancelled, ref_field, retire_as,
                               retired_statuses, status_of)

CODE = "MEM503"
NAME = "supersession-broken"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("lifecycle",)
OPTIONS: dict = {}
READS_ROUTES = True  # the index entries that route to a memory (memlint.linter runs it beside the graph)


def check(store, options):
    lc = store.lifecycle
    docs = store.docs
    # (store-relative path, line) -> messages; one finding per line.
    found: dict[tuple[str, int], list[str]] = {}

    def add(rel: str, line: int, message: str) -> None:
        found.setdefault((rel, line), []).append(message)

    # 1. references that name nothing, or something that is not a memory
    for table in (lc.supersedes, lc.superseded_by):
        for rel, refs in table.items():
            doc = docs[rel]
            for ref in refs:
                unread = lc.unread_file(doc, ref.raw) if ref.target is None else None
                if unread is not None and ref.field in SUPERSEDES_FIELDS:
                    continue  # the old memory was archived out of the agent's sight: as it should be
                if unread is not None:
                    add(rel, doc.key_line(ref.field),
                        f"`{ref.field}: {ref.raw}` names {docs[rel].path[:len(docs[rel].path) - len(rel)]}{unread}, "
                        "which the agent never reads (a hidden folder such as .archive/, or excluded): point it "
                        "at the live memory that replaces this one")
                elif ref.target is None and _maybe_unlisted(store, rel, ref.raw):
                    continue  # in a folder memlint may not list (a notice says so): whether it is there is not known
                elif ref.target is None:
                    add(rel, doc.key_line(ref.field),
                        f"`{ref.field}: {ref.raw}` names no memory of this store (no file, `id`, `name` or "
                        "filename stem matches): point it at the memory meant, or drop it if that memory was deleted")
                elif ref.field in SUPERSEDED_BY_FIELDS and ref.target in lc.memories and ref.target != rel \
                        and is_cancelled(docs[ref.target], store.settings):
                    add(rel, doc.key_line(ref.field),
                        f"`{ref.field}: {ref.raw}` names {docs[ref.target].path}, which is "
                        f"`status: {status_of(docs[ref.target])}`: it never took effect and replaces nothing, so "
                        "this memory is not superseded by it: point it at the memory that does replace this one, "
                        "or drop it")
                elif ref.target not in lc.memories and docs[ref.target].is_memory:
                    continue  # a memory memlint cannot read (MEM006 says so): named right, its status unknown
                elif ref.target not in lc.memories:
                    add(rel, doc.key_line(ref.field),
                        f"`{ref.field}: {ref.raw}` names {docs[ref.target].path}, which is {_a(docs[ref.target].role)} "
                        "file, not a memory: point it at the memory meant")

    # 2. the two sides disagree
    claims: dict[str, set[str]] = {}  # old -> memories whose supersedes lists it
    for rel, refs in lc.supersedes.items():
        if is_cancelled(docs[rel], store.settings):
            continue  # never took effect: it claims nothing (memlint.lifecycle.CANCELLED_STATUSES)
        for ref in refs:
            if ref.target in lc.memories:
                claims.setdefault(ref.target, set()).add(rel)
    for old, refs in lc.superseded_by.items():
        named = {r.target for r in refs if r.target in lc.memories
                 and not is_cancelled(docs[r.target], store.settings)}  # one cancelled is reported above
        if not named:
            continue
        doc = docs[old]
        line = doc.key_line(ref_field(doc, SUPERSEDED_BY_FIELDS) or "superseded_by")
        field = refs[0].field
        for claimant in sorted(claims.get(old, set()) - named - {old}):
            add(old, line,
                f"{docs[claimant].path} says it supersedes this memory, but `{field}` names "
                f"{', '.join(docs[t].path for t in sorted(named))}: make both sides name the same memory")
        for newer in sorted(named - {old}):
            listed = lc.supersedes.get(newer)
            if listed and all(r.target != old for r in listed):
                add(old, line,
                    f"`{field}` names {docs[newer].path}, but its `supersedes` does not list this memory: "
                    f"add this memory there, or correct `{field}`")

    # 3. superseded, yet still live
    retire = retire_as(store.settings)
    for old in lc.superseded_but_live():
        doc = docs[old]
        by = "; ".join(f"{docs[n].path} ({how})" for n, how in sorted(lc.newer[old].items()) if n != old)
        if not by:
            continue  # only itself: a cycle, reported below
        status = status_of(doc)
        unparsed = doc.frontmatter is None and doc.parsed.frontmatter_error is not None  # its status may be written there
        state = (f"`status: {status}` is still live" if status
                 else "its frontmatter does not parse (MEM002), so no `status` is read; it is still live" if unparsed
                 else "it has no `status`, so it is still live")
        status_line, written = _status_written(doc, store.settings) if unparsed else (None, None)
        fix = (f"fix its frontmatter (MEM002) so that its `status: {written}` is read" if written
               else f"fix its frontmatter (MEM002) and set `status: {retire}` on its line {status_line}" if status_line
               else f"fix its frontmatter (MEM002) and set `status: {retire}` in it" if unparsed
               else f"set `status: {retire}` here")
        routes = lc.routes.get(old, [])
        # Unrouted, the agent does not load it from an index, but a search of the memories still finds it.
        serves = "the agent loads both" if routes else "a search of the memories can still serve it"
        message = f"superseded by {by}, but {state} and {serves}: {fix} (keep the file for provenance)"
        if routes:
            message += " and remove its index entry (" + ", ".join(f"{docs[r.index].path}:{r.line}" for r in routes) + ")"
        # on its status line; with none, on its own `superseded_by` if it has one
        add(old, doc.key_line("status" if status else ref_field(doc, SUPERSEDED_BY_FIELDS) or "status"), message)

    # 4. cycles: edges point from the newer memory to the older one
    edges: dict[str, set[str]] = {}
    for old, newer in lc.newer.items():
        for new in newer:
            edges.setdefault(new, set()).add(old)
    for refs in (*lc.supersedes.values(), *lc.superseded_by.values()):
        for ref in refs:
            if ref.target == ref.source:  # not in lc.newer: a self-reference retires nothing
                edges.setdefault(ref.source, set()).add(ref.source)
    for group in _cycles(edges):
        first = group[0]
        doc = docs[first]
        line = doc.key_line(ref_field(doc, SUPERSEDES_FIELDS) or ref_field(doc, SUPERSEDED_BY_FIELDS) or "supersedes")
        if len(group) == 1:
            add(first, line, "this memory supersedes itself: point the reference at the memory it replaces, "
                             "or remove it")
            continue
        names = [docs[r].path for r in group]
        text = f"{', '.join(names[:-1])} and {names[-1]} supersede one another in a cycle, so none is current"
        add(first, line, f"{text}: keep only the `supersedes` that points from the newer memory to the older one")

    for (rel, line), messages in sorted(found.items()):
        yield Problem(docs[rel].path, line, 1, "; ".join(messages))


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups that form a cycle (two or more members, or a
    self-loop), each sorted, by Tarjan's algorithm without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in edges.get(node, ()):
                    out.append(sorted(group))
    return sorted(out)


def _maybe_unlisted(store, rel: str, raw: str) -> bool:
    """Whether a reference written as a path may name a file in a folder the
    store could not be listed in (``Store.in_unlisted``)."""
    if not store.unlisted or not isinstance(raw, str) or "/" not in raw:
        return False
    return any(store.in_unlisted(posixpath.normpath(path))
               for path in (raw, posixpath.join(posixpath.dirname(rel), raw)))


def _a(role: str) -> str:
    """A role with its article: "a root", "an index", "an exempt"."""
    return f"{'an' if role[:1] in 'aeiou' else 'a'} {role}"


def _status_written(doc, settings) -> tuple[int | None, str | None]:
    """Of a frontmatter that does not parse: the line of its ``status`` key
    (flat or under ``metadata:``) and the retired status written there, if
    it is one (read from the line as written: nothing else can be)."""
    line = doc.parsed.key_lines.get("status") or doc.parsed.key_lines.get("metadata.status")
    if not line:
        return None, None
    text = doc.parsed.text.split("\n", line)[line - 1] if line <= doc.parsed.line_count else ""
    value = text.partition(":")[2].split(" #", 1)[0].strip().strip("'\"").strip()
    return line, value if value.casefold() in retired_statuses(settings) else None

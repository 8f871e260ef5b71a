"""An index routes the agent to a memory that is retired: the index lies.

Why: when a fact changes, the old memory is marked (``status: superseded``,
``outdated``, ``archived``...) or given an ``expires`` date, and kept for
provenance. If an index still lists it, the agent loads the old fact next
to (or instead of) the new one, which is how eight stale memories outvote
one correction. ``stale`` is not retired: it means "verify me", and the
entry is still the right route.

A memory is retired when its ``status`` (flat or under ``metadata:``) is
one of the store setting ``retired-statuses`` (default: superseded,
outdated, archived, conflicted, conflict, cancelled, canceled, deleted,
deprecated, obsolete, retired), when another memory supersedes it (either
side naming the other; a cancelled one never took effect and supersedes
nothing), or when its ``expires`` date is before today
(``--today`` sets the date); ``memlint.lifecycle`` decides, for every rule.
A topic index is retired by its ``status`` too: an entry routing to an
archived topic is reported, and the topic itself routes nobody. Only the first store file each index line links to counts: ``- [New](new.md)
— replaces [old](old.md)`` routes to new.md.

Options: none (see the store settings ``retired-statuses`` and
``core-priorities``: core memories never expire).

An index entry (a list item or table row) whose first link leads into a
hidden folder of the store (``.archive/``: memlint, as memory indexers do,
reads no hidden folder, and takes one for an archive) routes to what was put
away there, and is reported too.

An entry on a line of the root its load cap drops (MEM101's options), or
in an index reached only through such lines, does not load now; an entry
above the cut whose reference definition is below it (``- [Old][o]`` ...
``[o]: old.md``) loads without its target, and an index it alone reaches
does not load either. It is still reported, and the finding says so: the
same entry routes the agent once the root is cut back (MEM101's fix moves
entries into topics), so drop it rather than move it. MEM101 reports the
cut itself.

Fires: ``- [Pricing](pricing.md)`` in MEMORY.md where pricing.md has
``status: superseded``; ``- [Promo](.archive/promo.md)`` in a topic.

Fix: point the entry at the memory that replaced it, or drop the entry.
"""
from memlint.finding import Problem
from memlint.graph import IN_REPO, INDEX_ROLES, root_lines_not_loaded, root_links_cut_off
from memlint.rules._common import entry_lines, line_targets

CODE = "MEM205"
NAME = "routes-to-retired"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("links", "graph", "lifecycle")
OPTIONS: dict = {}


def check(store, options):
    graph = store.graph
    docs = store.docs
    lifecycle = store.lifecycle
    verdicts: dict[str, str | None] = {}
    # The root's lines its harness cuts (MEM101's), its links above the cut whose reference definition
    # is below it, and the indexes reached only through them: an entry there does not load now (or
    # loads without its target), but would once the root is cut back, so it is reported, saying so.
    unloaded = root_lines_not_loaded(store)
    cut_off = root_links_cut_off(store, unloaded)
    behind = set(graph.reached_only_through(unloaded, cut_off))
    root = store.root.rel if store.root is not None else None
    for rel in sorted(r for r, d in docs.items() if d.role in INDEX_ROLES):
        if not graph.routes(rel) or lifecycle.retired_because(rel):
            continue  # an index the agent does not read (MEM201 says so), or one retired itself, routes nobody

        def not_loaded(edge) -> str:
            if rel == root and edge.link.line in unloaded:
                return (f"; {root}'s load cap drops the line, so it does not load now, but would once the root is "
                        "cut back: drop the entry rather than move it into a topic")
            if rel == root and (edge.link.line, edge.link.target) in cut_off:
                return (f"; {root}'s load cap drops the link's reference definition, so the entry loads without "
                        "its target now, but would route there once the root is cut back: drop the entry and its "
                        "definition")
            if rel in behind:
                through = "what" if cut_off else "lines"  # as MEM101 says it: a line above the cut may lose its target
                return (f"; {rel} is reached only through {through} {root}'s load cap drops, so the entry does not "
                        f"load now, but would once {'that loads' if cut_off else 'they load'}: drop the entry")
            return ""

        routed = dict(line_targets(graph, rel))  # {line: the edge it routes by}
        for line, edge in routed.items():
            target = edge.target
            if target not in verdicts:
                verdicts[target] = lifecycle.retired_because(target)
            why = verdicts[target]
            if why:
                yield Problem(docs[rel].path, line, edge.link.column,
                              f"routes to {target}, which is retired: {why}{not_loaded(edge)}")
        yield from _into_hidden_folders(graph, docs[rel], routed, not_loaded)


def _into_hidden_folders(graph, doc, routed: dict, not_loaded):
    """An entry whose first link leads into a hidden folder of the store
    (``.archive/``), where memlint reads nothing: what was put away there, the
    agent still follows the entry to."""
    entries = set(entry_lines(doc, graph.store))
    taken = set(routed)  # lines that route to a file of the store
    for edge in sorted(graph.out.get(doc.rel, ()), key=lambda e: (e.link.line, e.link.column)):
        line = edge.link.line
        if edge.status != IN_REPO or line not in entries or line in taken:
            continue
        taken.add(line)  # (the line's first link: a later one on it routes nowhere)
        store_rel = graph.repo_to_store(edge.target)
        hidden = next((part for part in (store_rel or "").split("/")[:-1] if part.startswith(".")), None)
        if hidden is not None and edge.target.endswith(".md"):
            unloaded = not_loaded(edge)  # then the agent does not follow it now: it would once it loads
            yield Problem(doc.path, line, edge.link.column,
                          f"routes to {store_rel}, in the hidden folder {hidden}/, which memlint takes for an archive "
                          "and does not read: "
                          + ("the entry leads to what was put away there" + unloaded if unloaded
                             else "the agent still follows the entry to what was put away there"))

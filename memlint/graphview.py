"""Pictures of a store: root -> topics -> memories, as Mermaid, Graphviz DOT
or JSON (``memlint graph``, and the map in ``memlint report``).

Mermaid (renders on GitHub) and Graphviz DOT draw the routing graph: the
root, the indexes it reaches, and the memories each index lists, with
orphans in their own box and broken or out-of-repository targets drawn as
red dashed nodes. An index that lists more than ``max_per_topic``
memories shows them as counts per folder or filename prefix
(``project* (212)``), so a 500-file store stays readable. JSON gives every
node and every link, uncollapsed, for other tools.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from memlint.graph import BROKEN, INDEX_ROLES, OK, OUTSIDE, entry_key
from memlint.markdown import shown_destination, written_destinations
from memlint.reporters import printable

DEFAULT_MAX_PER_TOPIC = 12


@dataclass
class View:
    """What one store's picture shows: labelled nodes and styled edges."""

    title: str
    nodes: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (label, class)
    edges: list[tuple[str, str, str, str]] = field(default_factory=list)  # (from, to, label, style)
    orphans: list[str] = field(default_factory=list)  # node ids inside the orphans box


def orphan_rels(store) -> list[str]:
    """The files `check` reports as orphans (MEM201), config, suppressions and
    retired-memory exemptions included: one definition for every command."""
    from memlint.linter import Selection, lint_store

    by_path = {doc.path: rel for rel, doc in store.docs.items()}
    found = lint_store(store, Selection(select=("MEM201",))).findings
    return sorted({by_path[f.path] for f in found if f.path in by_path})


def build_view(store, max_per_topic: int = DEFAULT_MAX_PER_TOPIC, *, expand_orphan_topics: bool = True) -> View:
    """``expand_orphan_topics=False`` draws an index no one reaches as one
    node in the orphans box, without what it lists (``memlint report``'s
    root -> topics picture)."""
    graph = store.graph
    docs = store.docs
    root = store.root
    view = View(f"{store.shown(store._repo_path(store.dir))} ({store.preset})")
    ids: dict[str, str] = {}  # store file -> node id
    holder: dict[str, str] = {}  # collapsed file -> its count node

    def node(key: str, label: str, cls: str) -> str:
        if key not in ids:
            ids[key] = f"n{len(ids)}"
            view.nodes[ids[key]] = (label, cls)
        return ids[key]

    def file_node(rel: str) -> str:
        doc = docs[rel]
        cls = doc.role if doc.role in INDEX_ROLES else "memory"
        return node(rel, rel, cls)

    expanded: set[str] = set()

    def expand(index_rel: str, queue: list[str]) -> None:
        """Draw one index's entries: sub-indexes always, memories up to the cap."""
        if index_rel in expanded:
            return
        expanded.add(index_rel)
        me = file_node(index_rel)
        children: list[str] = []
        for edge in graph.out.get(index_rel, ()):
            if edge.status == OK and edge.target != index_rel and edge.target not in children:
                children.append(edge.target)
        leaves = []
        for child in children:
            if docs[child].role in INDEX_ROLES:
                view.edges.append((me, file_node(child), "", "solid"))
                queue.append(child)
            else:
                leaves.append(child)
        for leaf_node in collapse(f"index:{index_rel}", leaves):
            view.edges.append((me, leaf_node, "", "solid"))

    def collapse(key: str, files: list[str]) -> list[str]:
        """Node ids standing for ``files``: each file while they fit under the
        cap, else counts per folder or filename prefix (files alone in their
        group stay themselves), else one count."""
        if len(files) <= max_per_topic:
            return [file_node(f) for f in files]
        groups: dict[tuple[str, str], list[str]] = defaultdict(list)
        for f in files:
            groups[entry_key(f)].append(f)
        if len(groups) > max_per_topic:  # too many prefixes: folders alone, else one count
            groups = defaultdict(list)
            for f in files:
                groups[(entry_key(f)[0], "")].append(f)
            if len(groups) > max_per_topic:
                groups = {("", ""): files}
        out = []
        for (folder, prefix), members in sorted(groups.items()):
            if len(members) == 1 and len(groups) > 1:
                out.append(file_node(members[0]))
                continue
            name = (folder + "/" if folder else "") + (prefix + "*" if prefix else ("*" if folder else ""))
            label = f"{name} ({len(members)})" if name else f"{len(members)} files"
            group = node(f"group:{key}:{folder}:{prefix}", label, "group")
            out.append(group)
            for f in members:
                holder.setdefault(f, group)
        return out

    def walk(start: str) -> None:
        queue = [start]
        while queue:
            expand(queue.pop(0), queue)

    if root is not None:
        walk(root.rel)
    orphans = orphan_rels(store)
    lost_topics = [rel for rel in orphans if docs[rel].role in INDEX_ROLES]
    view.orphans = [file_node(rel) for rel in lost_topics]
    view.orphans += collapse("orphans", [rel for rel in orphans if docs[rel].role not in INDEX_ROLES])
    for rel in lost_topics if expand_orphan_topics else ():
        walk(rel)
    # Broken and out-of-repository targets, from every node drawn (a file, or
    # the count standing for it). When there are many, each node gets one
    # count instead of a node per target.
    from memlint.redaction import link_redactor

    redact = link_redactor(store)
    bad: dict[str, list] = defaultdict(list)
    for edge in graph.edges:
        if edge.status in (BROKEN, OUTSIDE) and (edge.source in ids or edge.source in holder):
            bad[ids.get(edge.source) or holder[edge.source]].append(edge)
    many = sum(len(edges) for edges in bad.values()) > 2 * max_per_topic
    for source, edges in bad.items():
        if many:
            kinds = "broken" if all(e.status == BROKEN for e in edges) else "broken or outside"
            target = node(f"bad:{source}", f"{len(edges)} {kinds} link{'s' if len(edges) > 1 else ''}", BROKEN)
            view.edges.append((source, target, "", "dashed"))
            continue
        for edge in edges:
            what = "missing" if edge.status == BROKEN else "outside the repository"
            written = redact(shown_destination(edge.link), edge.source)  # a pasted token must not reach the picture
            target = node(f"{edge.status}:{written}", f"{what}: {written}", edge.status)
            drawn = ids.get(edge.source) == source
            label = f"line {edge.link.line}" if drawn else f"{edge.source}:{edge.link.line}"
            view.edges.append((source, target, label, "dashed"))
    return view


# ---------------------------------------------------------------- renderers

MERMAID_CLASSES = {
    "root": "fill:#dbeafe,stroke:#1d4ed8,stroke-width:2px",
    "index": "fill:#e0f2fe,stroke:#0369a1",
    "memory": "fill:#ffffff,stroke:#6b7280",
    "group": "fill:#f3f4f6,stroke:#6b7280,stroke-dasharray:3 3",
    "orphan": "fill:#fef3c7,stroke:#b45309",
    BROKEN: "fill:#fee2e2,stroke:#b91c1c,stroke-dasharray:4 4",
    OUTSIDE: "fill:#fee2e2,stroke:#7f1d1d,stroke-dasharray:4 4",
}


def _mermaid_text(text: str) -> str:
    """Text inside a node's ``["..."]`` or an edge's ``|...|``: Mermaid's
    entity codes for what would end it or be read as markup (``#`` first,
    so that a name holding ``#quot;`` stays that text; ``&`` too, as the
    label is HTML: ``p&amp;.md`` must not show as ``p&.md``)."""
    return (printable(text).replace("#", "#35;").replace("&", "#38;").replace('"', "#quot;").replace("<", "#lt;")
            .replace(">", "#gt;").replace("|", "#124;"))


def render_mermaid(views: list[View]) -> str:
    lines = ["flowchart LR"]
    several = len(views) > 1
    for k, view in enumerate(views):
        prefix = f"s{k}" if several else ""
        indent = "    " if several else "  "
        if several:
            lines.append(f'  subgraph {prefix}store["{_mermaid_text(view.title)}"]')
        else:
            lines.append(f"  %% {printable(view.title)}")  # a newline in a folder name would end the comment
        orphan_ids = set(view.orphans)
        for nid, (label, cls) in view.nodes.items():
            if nid in orphan_ids:
                continue
            lines.append(f'{indent}{prefix}{nid}["{_mermaid_text(label)}"]:::{cls.replace("-", "_")}')
        if view.orphans:
            lines.append(f'{indent}subgraph {prefix}orphans["orphans: no index reaches these"]')
            # Mermaid lays a subgraph out top to bottom by default, which in a
            # left-to-right chart puts unlinked orphans side by side in one
            # row as wide as the page; LR stacks them.
            lines.append(f"{indent}  direction LR")
            for nid in view.orphans:
                label, cls = view.nodes[nid]
                lines.append(f'{indent}  {prefix}{nid}["{_mermaid_text(label)}"]:::{"group" if cls == "group" else "orphan"}')
            lines.append(f"{indent}end")
        for src, dst, label, style in view.edges:
            arrow = "-.->" if style == "dashed" else "-->"
            text = f"|{_mermaid_text(label)}|" if label else ""
            lines.append(f"{indent}{prefix}{src} {arrow}{text} {prefix}{dst}")
        if several:
            lines.append("  end")
    for cls, style in MERMAID_CLASSES.items():
        lines.append(f"  classDef {cls.replace('-', '_')} {style}")
    return "\n".join(lines) + "\n"


DOT_STYLES = {
    "root": 'style="filled,bold", fillcolor="#dbeafe"',
    "index": 'style=filled, fillcolor="#e0f2fe"',
    "memory": "",
    "group": 'style="filled,dashed", fillcolor="#f3f4f6"',
    "orphan": 'style=filled, fillcolor="#fef3c7"',
    BROKEN: 'style="filled,dashed", fillcolor="#fee2e2", color="#b91c1c"',
    OUTSIDE: 'style="filled,dashed", fillcolor="#fee2e2", color="#7f1d1d"',
}


def _dot_text(text: str) -> str:
    # Graphviz reads HTML entities in a label: `&amp;` written as it is would show as "&"
    return printable(text).replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")


def render_dot(views: list[View]) -> str:
    lines = ["digraph memlint {", "  rankdir=LR;", "  node [shape=box, fontname=Helvetica];"]
    for k, view in enumerate(views):
        prefix = f"s{k}"
        lines.append(f"  subgraph cluster_{prefix} {{")
        lines.append(f'    label="{_dot_text(view.title)}";')
        orphan_ids = set(view.orphans)
        for nid, (label, cls) in view.nodes.items():
            style = DOT_STYLES["orphan" if nid in orphan_ids and cls != "group" else cls]
            attrs = f'label="{_dot_text(label)}"' + (f", {style}" if style else "")
            lines.append(f"    {prefix}{nid} [{attrs}];")
        if view.orphans:
            lines.append(f"    subgraph cluster_{prefix}_orphans {{")
            lines.append('      label="orphans: no index reaches these"; style=dashed;')
            lines.append("      " + " ".join(f"{prefix}{nid};" for nid in view.orphans))
            lines.append("    }")
        for src, dst, label, style in view.edges:
            attrs = []
            if label:
                attrs.append(f'label="{_dot_text(label)}"')
            if style == "dashed":
                attrs.append('style=dashed, color="#b91c1c"')
            suffix = f" [{', '.join(attrs)}]" if attrs else ""
            lines.append(f"    {prefix}{src} -> {prefix}{dst}{suffix};")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def graph_json(store) -> dict:
    """Every file and every link of one store, uncollapsed."""
    graph = store.graph
    orphans = set(orphan_rels(store))
    nodes = [
        {
            "path": store.shown(doc.path),  # as check names it (several repositories, a submodule)
            "rel": rel,
            "role": doc.role,
            "depth": graph.depth.get(rel),
            "reachable": rel in graph.depth,
            "orphan": rel in orphans,
        }
        for rel, doc in sorted(store.docs.items())
    ]
    from memlint.redaction import link_redactor

    redact = link_redactor(store)  # a pasted token must not reach the output
    written_in: dict[str, dict] = {}  # {source: {link: its destination as written}}, a file's links at once

    def written(edge) -> str:
        found = written_in.get(edge.source)
        if found is None:
            links = [e.link for e in graph.out.get(edge.source, ())]
            parsed = store.docs[edge.source].parsed
            found = written_in[edge.source] = dict(zip(links, written_destinations(parsed.text, links))) if parsed else {}
        return found.get(edge.link, edge.link.target)

    edges = [
        {
            "source": e.source,
            "target": redact(e.target, e.source) if e.status != OK and e.target is not None else e.target,
            "written": redact(written(e), e.source),
            "line": e.link.line,
            "column": e.link.column,
            "kind": e.link.kind,
            "status": e.status,
        }
        for e in graph.edges
    ]
    return {
        "store": store.shown(store._repo_path(store.dir)),
        "preset": store.preset,
        "root": store.root.rel if store.root else None,
        "index_depth": store.settings["index-depth"],
        "nodes": nodes,
        "edges": edges,
    }

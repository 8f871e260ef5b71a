"""The store's link graph: every link resolved once, and what the root reaches.

Resolution of ``[[X]]``: exact relative path, then ``name``/``title``/
``aliases`` from frontmatter, then filename stem, then the stem with case,
``-``, ``_`` and spaces folded. Markdown links resolve relative to the
linking file, percent-decoded, with ``#anchor`` and ``?query`` stripped.
Reachability walks index files only (the root and topic indexes), down to
``index-depth``, the way an agent reads the store.
"""
from __future__ import annotations

import posixpath
import re
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memlint.markdown import Link, is_external

if TYPE_CHECKING:  # pragma: no cover
    from memlint.store import Doc, Store

# Edge status values
OK = "ok"  # a file of the store
IN_REPO = "in-repo"  # exists in the repository, outside the store: not followed
BROKEN = "broken"
OUTSIDE = "outside"  # climbs out of the repository / absolute / file://
EXTERNAL = "external"  # a URL
DANGLING_WIKI = "dangling-wiki"  # [[x]] to nothing, allowed by the preset

# One \s after the marker, not \s+: ".*" takes the rest, and "\s+.*" is
# quadratic on a list line padded with spaces.
_LIST_LINK_LINE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s.*(?:\]\(|\[\[)")
_WINDOWS_PATH = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def fold(name: str) -> str:
    """Case, '-', '_' and spaces folded: how a person misremembers a name."""
    return re.sub(r"[\s_\-]+", "", name.lower())


def slug(name: str) -> str:
    return re.sub(r"[^\w]+", "-", name.strip().lower(), flags=re.U).strip("-")


def looks_like_index(doc: "Doc") -> bool:
    """A body that is mostly a list of links is an index (a topic file)."""
    if doc.parsed is None:
        return False
    links = [l for l in doc.parsed.links if l.kind in ("link", "wiki")]
    if len(links) < 5:
        return False
    lines = [l for l in doc.parsed.body.split("\n") if l.strip() and not l.lstrip().startswith("#")]
    if not lines:
        return False
    listed = sum(1 for l in lines if _LIST_LINK_LINE.match(l))
    return listed / len(lines) >= 0.6


@dataclass(frozen=True)
class Edge:
    source: str  # store-relative path of the linking file
    link: Link
    target: str | None  # store-relative path (OK) or repo-relative path (IN_REPO)
    status: str


class Graph:
    def __init__(self, store: "Store"):
        self.store = store
        self._names: dict[str, set[str]] = defaultdict(set)
        self._stems: dict[str, set[str]] = defaultdict(set)
        self._folded: dict[str, set[str]] = defaultdict(set)
        for rel, doc in store.docs.items():
            stem = doc.stem
            self._stems[stem].add(rel)
            self._folded[fold(stem)].add(rel)
            fm = doc.frontmatter or {}
            for key in ("name", "title"):
                value = doc.field(key)
                if isinstance(value, str) and value.strip():
                    self._names[slug(value)].add(rel)
            aliases = fm.get("aliases")
            if isinstance(aliases, str):
                aliases = [aliases]
            if isinstance(aliases, list):
                for alias in aliases:
                    if isinstance(alias, str) and alias.strip():
                        self._names[slug(alias)].add(rel)
        self.edges: list[Edge] = []
        self.out: dict[str, list[Edge]] = defaultdict(list)
        self.inbound: dict[str, list[Edge]] = defaultdict(list)
        for rel, doc in store.docs.items():
            for link in doc.links:
                edge = self._resolve(doc, link)
                if edge is None:
                    continue
                self.edges.append(edge)
                self.out[rel].append(edge)
                if edge.status == OK:
                    self.inbound[edge.target].append(edge)
        self.depth = self._walk()

    # -- resolution
    def _resolve(self, doc: "Doc", link: Link) -> Edge | None:
        settings = self.store.settings
        if link.kind in ("wiki", "embed"):
            if settings["wikilinks"] == "off":
                return None
            return self._resolve_wiki(doc, link)
        if link.kind == "code":
            # Backtick path references count only where the preset says so,
            # and only as extra edges: never reported as broken.
            if not settings["backtick-refs"] or doc.role not in ("root", "index"):
                return None
            target = self._resolve_path(doc, link.target, from_store_root=True)
            if target is None or target[1] != OK:
                target2 = self._resolve_path(doc, link.target, from_store_root=False)
                if target2 is not None and target2[1] == OK:
                    target = target2
            if target is None or target[1] != OK:
                return None
            return Edge(doc.rel, link, target[0], OK)
        if is_external(link.target) or link.target.startswith(("mailto:", "#")) or not link.target:
            return Edge(doc.rel, link, None, EXTERNAL) if link.target and not link.target.startswith("#") else None
        resolved = self._resolve_path(doc, link.target)
        if resolved is None:
            return None
        return Edge(doc.rel, link, resolved[0], resolved[1])

    def _resolve_path(self, doc: "Doc", raw: str, *, from_store_root: bool = False):
        target = raw.split("#", 1)[0].split("?", 1)[0].strip()
        if not target:
            return None
        if target.lower().startswith("file:") or target.startswith(("/", "~")) or _WINDOWS_PATH.match(target):
            return target, OUTSIDE
        target = target.replace("\\", "/")
        base = "" if from_store_root else posixpath.dirname(doc.rel)
        joined = posixpath.normpath(posixpath.join(base, target))
        if joined in self.store.docs:
            return joined, OK
        # Outside the store folder: inside the repository or outside it.
        store_abs = self.store.dir
        absolute = (store_abs / joined).resolve(strict=False) if not joined.startswith("/") else None
        repo = self.store.repo_root
        if absolute is None:
            return target, OUTSIDE
        try:
            repo_rel = absolute.relative_to(repo).as_posix()
        except ValueError:
            return target, OUTSIDE
        try:
            inside_store = absolute.relative_to(store_abs).as_posix()
        except ValueError:
            inside_store = None
        if inside_store is not None:
            if inside_store in self.store.docs:
                return inside_store, OK
            # Never open anything: a stat of a path inside the repo is safe.
            return (repo_rel, IN_REPO) if absolute.exists() else (inside_store, BROKEN)
        return (repo_rel, IN_REPO) if absolute.exists() else (repo_rel, BROKEN)

    def _resolve_wiki(self, doc: "Doc", link: Link) -> Edge | None:
        name = link.target.strip()
        if not name:
            return None  # [[#heading]]: a link inside the same file
        found = self.lookup_wiki(doc, name)
        if found:
            return Edge(doc.rel, link, found, OK)
        if name.startswith(("../", "/")) or _WINDOWS_PATH.match(name):
            resolved = self._resolve_path(doc, name if name.endswith(".md") else name + ".md")
            if resolved is not None and resolved[1] in (OUTSIDE, IN_REPO):
                return Edge(doc.rel, link, resolved[0], resolved[1])
        status = DANGLING_WIKI if self.store.settings["wikilinks"] == "dangling-ok" else BROKEN
        return Edge(doc.rel, link, None, status)

    def lookup_wiki(self, doc: "Doc", name: str) -> str | None:
        """The store file a ``[[name]]`` means, or None. Ambiguity: first by path order."""
        docs = self.store.docs
        candidates = [name] if name.endswith(".md") else [name + ".md", name]
        base = posixpath.dirname(doc.rel)
        for cand in candidates:
            for joined in (posixpath.normpath(posixpath.join(base, cand)), posixpath.normpath(cand)):
                if joined in docs:
                    return joined
        stem = name[:-3] if name.endswith(".md") else name
        for table, key in ((self._names, slug(stem)), (self._stems, stem.rsplit("/", 1)[-1]), (self._folded, fold(stem.rsplit("/", 1)[-1]))):
            hits = table.get(key)
            if hits:
                return sorted(hits)[0]
        return None

    # -- reachability
    def _walk(self) -> dict[str, int]:
        """Depth at which the agent reaches each file from the root."""
        store = self.store
        root = store.root
        if root is None:
            return {}
        max_depth = store.settings["index-depth"]
        body_links = store.settings["body-links-reach"]
        depth = {root.rel: 0}
        queue = deque([root.rel])
        while queue:
            rel = queue.popleft()
            doc = store.docs[rel]
            if depth[rel] >= max_depth:
                continue
            if doc.role not in ("root", "index") and not body_links:
                continue
            for edge in self.out.get(rel, ()):
                if edge.status == OK and edge.target not in depth:
                    depth[edge.target] = depth[rel] + 1
                    queue.append(edge.target)
        return depth

    def reachable(self, rel: str) -> bool:
        return rel in self.depth

    def index_edges(self):
        """Edges out of the root and index files: the lines an agent routes by."""
        for rel, edges in self.out.items():
            if self.store.docs[rel].role in ("root", "index"):
                yield from edges

"""The store's link graph: every link resolved once, and what the root reaches.

Resolution of ``[[X]]``, first match wins: the exact relative path (from the
linking file, the store folder, then the repository root), then a
``name``/``title``/``aliases`` value from frontmatter, then the filename
stem, then the stem (and last, the names) with case, ``-``, ``_`` and spaces
folded. Markdown links
resolve relative to the linking file (memlint stores targets percent-decoded,
but for ``%``, ``#`` and ``?``: ``markdown.decode_destination``),
with ``#anchor`` and ``?query`` stripped. URLs are not edges.

Anything that leaves the repository (``../..`` past its root, absolute paths,
``~``, ``file:``, Windows paths, a symlink inside the repository that points
out) is judged lexically and never opened or stat'ed. Paths inside the
repository are looked up with ``lstat`` only, one call per distinct folder
or file, so a store of N files costs O(N + links).

Reachability walks index files only (the root and topic indexes), down to
``index-depth``, the way an agent reads the store.
"""
from __future__ import annotations

import bisect
import difflib
import os
import posixpath
import re
import stat
import unicodedata
from collections import defaultdict, deque
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from memlint.markdown import Link, decode_kept, is_external, parse

if TYPE_CHECKING:  # pragma: no cover
    from memlint.store import Doc, Store

# Edge status values
OK = "ok"  # a file of the store
IN_REPO = "in-repo"  # exists in the repository, outside the store (or not markdown): not followed
BROKEN = "broken"
OUTSIDE = "outside"  # climbs out of the repository / absolute / file: / Windows path
EXTERNAL = "external"  # a URL
DANGLING_WIKI = "dangling-wiki"  # [[x]] to nothing, allowed by the preset

INDEX_ROLES = ("root", "index")

_WINDOWS_PATH = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s|^\s*\|")  # a list item, or a table row
# OpenClaw reply directives look like wikilinks but are tags.
_OPENCLAW_TAG = re.compile(r"^(?:reply_to_current|reply_to:.*|audio_as_voice)$")


_DASHES = str.maketrans("", "", "-_")


def same_name_key(name: str) -> str:
    """A name as a case- and normalization-insensitive file system (macOS,
    Windows) compares it: ``Foo.md`` is ``foo.md``, and ``café`` typed as one
    code point is ``café`` written as e + combining accent (NFD, as macOS
    has written file names)."""
    return unicodedata.normalize("NFC", name).casefold()


def fold(name: str) -> str:
    """Case, '-', '_' and spaces folded: how a person misremembers a name.
    (``split()`` drops exactly the characters regex ``\\s`` matches.)"""
    return "".join(name.casefold().translate(_DASHES).split())


def is_internal(link: Link) -> bool:
    """A link that points at a file (not a URL, not an anchor in the same file)."""
    return bool(link.target) and not link.target.startswith("#") and not is_external(link.target)


def looks_like_index(doc: "Doc") -> bool:
    """A body that is mostly a list of links to files is an index (a topic file).

    At least 5 links to files (several may share a line: ``- [a](a.md),
    [b](b.md)``), and 60% of the body's non-heading lines are list items or
    table rows carrying one. URLs do not count: a list of web references is
    a memory, not a map of the store.
    """
    if doc.parsed is None or len(doc.parsed.links) < 5:
        return False
    internal = [l.line for l in doc.parsed.links if l.kind in ("link", "wiki") and is_internal(l)]
    if len(internal) < 5:
        return False
    link_lines = set(internal)
    first = doc.parsed.body_line
    lines = doc.parsed.body.split("\n")
    content = listed = 0
    for offset, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        content += 1
        if first + offset in link_lines and _LIST_ITEM.match(line):
            listed += 1
    return content > 0 and listed / content >= 0.6


def outside_reason(raw: str) -> str | None:
    """Why a link target is outside every repository, judged from its text alone."""
    if raw.lower().startswith("file:"):
        return "a file: URL"
    if _WINDOWS_PATH.match(raw):
        return "a Windows path"
    if raw.startswith("~"):
        return "a path in a home folder"
    if raw.startswith("/"):
        return "an absolute path"
    if raw.startswith("\\"):  # \dir\x.md: the root of the current drive on Windows
        return "an absolute Windows path"
    return None


def _strip_anchor(target: str) -> str:
    """The path of a link target: before its fragment or query, with the
    ``#``, ``?`` and ``%`` it keeps encoded (``markdown.decode_destination``)
    decoded, in one pass: ``%2523`` is ``%23``, not ``#``."""
    path = target.split("#", 1)[0].split("?", 1)[0].strip()
    return decode_kept(path) if "%" in path else path


# The folders harnesses keep a store in: an index names its files from there
# (Claude Code's MEMORY.md says `memory/x.md`), whatever the copy is called.
_HARNESS_FOLDERS = (("memory",), (".claude", "memory"))


class Edge(NamedTuple):  # a tuple: one per link, made on every run
    source: str  # store-relative path of the linking file
    link: Link
    target: str | None  # OK: store-relative; IN_REPO/BROKEN: repo-relative (None for a wiki name); OUTSIDE: as written
    status: str
    note: str = ""  # OUTSIDE: why (an absolute path, climbs out of the repository...); OK: THROUGH a symbolic link


THROUGH = "through "  # an OK edge's note: it names a symbolic link of the store that stands for its target


class RepoFiles:
    """Which repository paths exist, looked up lexically, never outside the repository.

    Every prefix is ``lstat``-ed at most once. A symbolic link inside the
    repository is followed only while its target (read with ``readlink``,
    which touches nothing beyond the link) stays inside the repository.
    """

    MAX_LINK_HOPS = 8

    def __init__(self, root: Path):
        self.root = root
        self._kinds: dict[str, str | None] = {"": "dir"}

    def _lstat(self, rel: str) -> str | None:
        if rel not in self._kinds:
            try:
                mode = os.lstat(self.root / rel).st_mode
            except (OSError, ValueError):
                self._kinds[rel] = None
            else:
                self._kinds[rel] = "link" if stat.S_ISLNK(mode) else ("dir" if stat.S_ISDIR(mode) else "file")
        return self._kinds[rel]

    def kind(self, rel: str) -> str | None:
        """'file', 'dir', 'outside' (a symlink leads out) or None (missing)."""
        return _walk_path(rel, self.root, self._lstat, self._readlink, self.MAX_LINK_HOPS)[0]

    def real(self, rel: str) -> str | None:
        """The path ``rel`` is, its symbolic links followed, when it is a file inside the repository."""
        kind, path = _walk_path(rel, self.root, self._lstat, self._readlink, self.MAX_LINK_HOPS)
        return path if kind == "file" else None

    def _readlink(self, rel: str) -> str | None:
        try:
            return os.readlink(self.root / rel)
        except OSError:
            return None


def _walk_path(rel: str, root: Path | None, kind_of, target_of, max_hops: int) -> tuple[str | None, str]:
    """('file', 'dir', 'outside' or None (missing), the path reached) for a
    repository path, one component at a time: ``kind_of(path)`` says 'file',
    'dir', 'link' or None; a link is followed to ``target_of(path)`` while it
    stays inside the repository (``root`` makes an absolute target relative)."""
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    done = ""
    hops = 0
    while parts:
        current = f"{done}/{parts[0]}" if done else parts[0]
        parts.pop(0)
        kind = kind_of(current)
        if kind is None:
            return None, current
        if kind == "link":
            hops += 1
            target = target_of(current)
            if hops > max_hops or not target:
                return None, current
            if os.path.isabs(target) or _WINDOWS_PATH.match(target):
                try:
                    joined = posixpath.normpath(Path(target).relative_to(root).as_posix())
                except (ValueError, TypeError):
                    return "outside", current
            else:
                joined = posixpath.normpath(posixpath.join(done, target))
            if joined == ".." or joined.startswith("../"):
                return "outside", current
            parts = [p for p in joined.split("/") if p not in ("", ".")] + parts
            done = ""
            continue
        if kind == "file" and parts:
            return None, current  # a file used as a folder
        done = current
    return (kind_of(done) if done else "dir"), done


class IndexedFiles:
    """``RepoFiles`` for a staged run: what exists is what the git index
    holds. A symbolic link the index holds ({path: target} ``links``) is
    followed as ``RepoFiles`` follows one on disk, through the index: to
    what it names there, or out of the repository."""

    MAX_LINK_HOPS = RepoFiles.MAX_LINK_HOPS

    def __init__(self, paths, links: dict[str, str] | None = None, root: Path | None = None):
        self._files = set(paths)
        self._dirs = {"/".join(p.split("/")[:i]) for p in self._files for i in range(1, p.count("/") + 1)}
        self._links = links or {}
        self._root = root

    def kind(self, rel: str) -> str | None:
        rel = posixpath.normpath(rel) if rel else ""
        if rel in ("", "."):
            return "dir"
        if not self._links:
            if rel in self._files:
                return "file"
            return "dir" if rel in self._dirs else None
        return _walk_path(rel, self._root, self._kind_of, self._links.get, self.MAX_LINK_HOPS)[0]

    def real(self, rel: str) -> str | None:
        """``RepoFiles.real``, through the index."""
        rel = posixpath.normpath(rel) if rel else ""
        if not self._links:
            return rel if rel in self._files else None
        kind, path = _walk_path(rel, self._root, self._kind_of, self._links.get, self.MAX_LINK_HOPS)
        return path if kind == "file" else None

    def _kind_of(self, path: str) -> str | None:
        if path in self._links:
            return "link"
        if path in self._files:
            return "file"
        return "dir" if path in self._dirs else None


def _normjoin(base: str, target: str) -> str:
    """``posixpath.normpath(posixpath.join(base, target))``, for the graph's
    tens of thousands of links: the join as a plain concatenation."""
    if base and not target.startswith("/"):
        target = f"{base}{target}" if base.endswith("/") else f"{base}/{target}"
    return posixpath.normpath(target)


class WikiNames:
    """Where a ``[[name]]`` (or a lifecycle reference) leads: the store's
    paths, frontmatter names and filename stems, plain and folded. Apart from
    the Graph, which needs every link resolved: a reference needs only this.

    Given ``earlier``, an earlier run's ``LinksMemo``, its tables are patched
    where files changed instead of filing every file again; ``touched`` then
    holds every key (``name_keys``'s form) under which a lookup may now find
    something else than it did then. None: built afresh (anything may have)."""

    def __init__(self, docs: dict[str, "Doc"], earlier: "LinksMemo | None" = None, folder: tuple[str, ...] = ()):
        self.docs = docs
        # The store's folder (its last parts): [[memory/x]] in a store kept in memory/ is its x.md
        self._folder = tuple(part for part in folder if part not in ("/", ""))[-4:]
        self._by_ending: dict[str, list] | None = None  # made on the first [[dir/x]] not found as written
        # {store path: blob id, or None without one}: what the tables were made of
        self.files = {rel: doc.blob for rel, doc in docs.items()}
        self.baseline = earlier if isinstance(earlier, LinksMemo) else None
        self.touched: set[str] | None = None
        if self.baseline is not None and self._patch(self.baseline):
            return
        self.baseline = None
        # {tag of name_keys: {key: store paths, fewest folders first, then in path order}}
        tables: dict[str, dict[str, list[str]]] = {tag: defaultdict(list) for tag in _TABLE_TAGS}
        for rel, doc in docs.items():
            for key in name_keys(doc):
                table = tables.get(key[:2])
                if table is not None:
                    table[key[2:]].append(rel)
        for table in tables.values():
            for rels in table.values():
                rels.sort(key=_fewest_folders)
        self.tables = {tag: dict(table) for tag, table in tables.items()}

    def _patch(self, earlier: "LinksMemo") -> bool:
        """``earlier``'s tables, less the files changed since, plus them as
        they are now (False, and nothing done, when most files changed:
        filing them all is as quick)."""
        docs, before = self.docs, earlier.files

        def same(rel: str, blob: str | None) -> bool:
            doc = docs.get(rel)
            return doc is not None and doc.blob is not None and doc.blob == blob

        new = [rel for rel, doc in docs.items() if not same(rel, before.get(rel))]
        if 2 * len(new) > len(docs):
            return False
        gone = {rel for rel, blob in before.items() if not same(rel, blob)}
        touched = {"p:" + rel for rel in gone}
        tables = {}
        for tag, old in earlier.tables.items():
            table = tables[tag] = dict(old)
            for key, rels in old.items() if gone else ():
                if not gone.isdisjoint(rels):
                    touched.add(tag + key)
                    kept = [rel for rel in rels if rel not in gone]
                    if kept:
                        table[key] = kept
                    else:
                        del table[key]
        for rel in new:
            keys = name_keys(docs[rel])
            touched.update(keys)
            for key in keys:
                table = tables.get(key[:2])
                if table is not None:
                    table[key[2:]] = sorted({*table.get(key[2:], ()), rel}, key=_fewest_folders)
        self.tables, self.touched = tables, touched
        return True

    def lookup(self, doc: "Doc", name: str, consulted: list[str] | None = None) -> str | None:
        """The store file ``[[name]]`` in ``doc`` means, or None. Ties: fewest folders, then path order.
        ``consulted``, if given, gets the keys looked up (``name_keys``'s form), up to the one found."""
        docs = self.docs
        base = posixpath.dirname(doc.rel)
        for cand in wiki_candidates(name):
            for joined in (_normjoin(base, cand), posixpath.normpath(cand)):
                if consulted is not None:
                    consulted.append("p:" + joined)
                if joined in docs:
                    return joined
        if _climbs(name):
            return None  # ../x means that path and nothing else
        stem = _strip_md(name.rstrip("/").rsplit("/", 1)[-1])  # [[e.MD]]: e.md, as [[E]] is
        # [[dir/x]] names a path: a file by that name elsewhere is no match, one
        # whose path ends so is (Obsidian's rule: [[archive/x]] finds old/archive/x.md).
        ends = _path_ending(name) if "/" in name.rstrip("/") else None
        if not fold(stem) or ends == "/":  # [[.md]], `supersedes: /`: no name at all, not -.md's
            stem = ends = None
        tables = self.tables
        for tag, key in (("n:", name.strip()), ("s:", stem), ("f:", fold(stem or "")), ("F:", fold(name))):
            if stem is None and tag in ("s:", "f:") or not key:
                continue
            if consulted is not None:
                consulted.append(tag + key)  # (for a path too: a file of this name, added, may end so)
            if ends is not None and tag in ("s:", "f:"):
                hits = self._ending_in(name, ends, exact=tag == "s:") if tables[tag].get(key) else None
            else:
                hits = tables[tag].get(key)
            if hits:
                return hits[0]
        return None

    def _ending_in(self, name: str, ends: str, *, exact: bool) -> list[str]:
        """The store files whose path ends as ``name`` (``ends``, its
        ``_path_ending``), counting the store's folder and the folder a
        harness keeps a store in as their own; a path that ends so itself
        first, then fewest folders. With ``exact``, only those that end so
        letter for letter."""
        if self._by_ending is None:  # each file under every ending of its paths, folded: one lookup
            table: dict[str, list[tuple[str, tuple[str, ...]]]] = defaultdict(list)
            for rel in self.docs:
                parts = rel.split("/")
                ways = {(*self._folder, *parts), *((*harness, *parts) for harness in _HARNESS_FOLDERS)}
                as_written = tuple(sorted({_strip_md("/" + "/".join(way)) for way in ways}))
                endings = set()
                for way in ways:
                    folded = _path_ending("/".join(way)).split("/")[1:]
                    endings.update("/" + "/".join(folded[i:]) for i in range(len(folded)))
                for ending in endings:
                    table[ending].append((rel, as_written))
            for entries in table.values():
                entries.sort(key=lambda entry: _fewest_folders(entry[0]))
            self._by_ending = dict(table)
        written = "/" + _strip_md(posixpath.normpath(name.strip()).lstrip("/"))
        own, prefixed = [], []  # a path that ends so itself first (old/notes/x.md for [[notes/x]] in notes/)
        for rel, as_written in self._by_ending.get(ends, ()):
            if exact and not any(path.endswith(written) for path in as_written):
                continue
            mine = (_strip_md("/" + rel) if exact else _path_ending(rel)).endswith(written if exact else ends)
            (own if mine else prefixed).append(rel)
        return own + prefixed


def _strip_md(path: str) -> str:
    return path[:-3] if path[-3:].lower() == ".md" else path


def _path_ending(path: str) -> str:
    """``path`` folded (``fold``), without ``.md``, after a ``/``: one
    ``endswith`` of two of these is a match at a folder boundary."""
    path = _strip_md(path.strip().rstrip("/"))
    return "/" + "/".join(fold(part) for part in path.split("/") if part not in ("", "."))


_TABLE_TAGS = ("n:", "s:", "f:", "F:")  # the name_keys WikiNames files docs under ("p:", paths, are the docs)


def _fewest_folders(rel: str) -> tuple[int, str]:
    return rel.count("/"), rel


def _names_of(doc: "Doc") -> list[str]:
    """The frontmatter names a ``[[name]]`` may use for ``doc``: name, title, aliases."""
    values = [doc.field("name"), doc.field("title")]
    aliases = (doc.frontmatter or {}).get("aliases")
    values += [aliases] if isinstance(aliases, str) else (aliases if isinstance(aliases, list) else [])
    return [value for value in values if isinstance(value, str) and value.strip()]


def name_keys(doc: "Doc") -> frozenset[str]:
    """Every key under which ``WikiNames`` files ``doc`` (its path, stem and
    names, plain and folded), tagged by table as ``lookup`` records them."""
    stem = doc.stem
    keys = {"p:" + doc.rel, "s:" + stem, "f:" + fold(stem)}
    for value in _names_of(doc):
        keys.add("n:" + value.strip())
        keys.add("F:" + fold(value))
    return frozenset(keys)


class LinksMemo(NamedTuple):
    """What one run's WikiNames and Graph found, for the next run to start
    from (``Store.save_cache`` keeps it).

    ``files`` and ``tables`` are the WikiNames's. ``graph`` is None when the
    graph was not built, else (context, {store path: (role, one entry per
    link)}) for the files with a blob id, where ``context`` is the settings
    that resolution depends on. An entry says how its link resolved and what
    that depended on:

    * None: no edge (an anchor, a tag, wikilinks off);
    * ("=", target, status, note): decided by the link's text alone;
    * ("@", repo path): located in the repository (looked up again each run:
      the files outside the store are not in the memo);
    * ("w", target, keys): a ``[[name]]`` found through ``WikiNames``, by
      the lookups in ``keys`` ("\\0"-separated);
    * ("!",): resolved again each run."""

    files: dict
    tables: dict
    graph: tuple | None


class Graph:
    def __init__(self, store: "Store"):
        self.store = store
        self.files = (IndexedFiles(store.indexed_paths(), store.indexed_links(), store.repo_root) if store.staged
                      else RepoFiles(store.repo_root))
        prefix = store._repo_path(store.dir)
        self._store_prefix = "" if prefix in (".", "") else prefix
        self._doc_dirs: dict[str, str] = {}
        self._casefolded: set[str] | None = None  # made on the first link to no file
        self.edges: list[Edge] = []
        self.out: dict[str, list[Edge]] = defaultdict(list)
        self.inbound: dict[str, list[Edge]] = defaultdict(list)
        # A run after a small change resolves again only the links the change
        # may have moved: those of changed files, and those whose lookups
        # touch a name or path that a changed file had or has.
        self.context = (store.settings["wikilinks"], store.settings["backtick-refs"], self._store_prefix, store.staged)
        memo = store.kept("links")
        earlier, touched = {}, frozenset()
        if isinstance(memo, LinksMemo) and memo.graph is not None and memo.graph[0] == self.context:
            names = store.wiki_names
            if names.baseline is memo:  # its changes are those since the graph was memoised
                earlier, touched = memo.graph[1], names.touched
        self.memo: dict[str, tuple] = {}  # LinksMemo.graph[1] of this graph
        changed = len(earlier) != sum(1 for doc in store.docs.values() if doc.blob is not None)
        edges, out, inbound, again, resolve = self.edges, self.out, self.inbound, self._again, self._resolve
        for rel, doc in store.docs.items():
            links = doc.links
            held = earlier.get(rel)
            if held is not None and (doc.blob is None or memo.files.get(rel) != doc.blob or held[0] != doc.role
                                     or len(held[1]) != len(links)):
                held = None
            if not links:
                if doc.blob is not None:
                    self.memo[rel] = (doc.role, ())
                    changed = changed or held is None
                continue
            entries = []
            own = []  # this file's edges
            if held is None:
                for link in links:
                    edge, entry = resolve(doc, link)
                    entries.append(entry)
                    if edge is not None:
                        own.append(edge)
            else:
                for link, was in zip(links, held[1]):
                    if was is not None and was[0] == "=":  # resolved for good: its edge as it was
                        own.append(Edge(doc.rel, link, was[1], was[2], was[3]))
                        entries.append(was)
                        continue
                    edge, entry = again(doc, link, was, touched)
                    changed = changed or (entry is not was and entry != was)
                    entries.append(entry)
                    if edge is not None:
                        own.append(edge)
            if own:
                edges.extend(own)
                out[rel].extend(own)
                for edge in own:
                    if edge.status == OK:
                        inbound[edge.target].append(edge)
            if doc.blob is not None:
                self.memo[rel] = (doc.role, tuple(entries))
                changed = changed or held is None
        self.memo_changed = changed
        self.depth = self._walk()
        self._suggester: _Suggester | None = None

    def _again(self, doc: "Doc", link: Link, entry, touched) -> tuple[Edge | None, tuple | None]:
        """``_resolve`` of a link of an unchanged file, from its memo entry where that still holds."""
        if entry is None:
            return None, None
        how = entry[0]
        if how == "=":
            return Edge(doc.rel, link, entry[1], entry[2], entry[3]), entry
        if how == "@":
            # Most often a file of the store that is still there: its edge without the general lookup.
            store_rel = self.repo_to_store(entry[1])
            if store_rel in self.store.docs and store_rel not in self.store.link_twins:
                return Edge(doc.rel, link, store_rel, OK), entry
            return self._located(doc, link, entry[1], link.target.strip()), entry
        if how == "w" and touched.isdisjoint(entry[2].split("\0")):
            return Edge(doc.rel, link, entry[1], OK), entry
        return self._resolve(doc, link)

    # -- paths
    def repo_to_store(self, repo_rel: str) -> str | None:
        """The store-relative path of a repo-relative one, or None if outside the store."""
        if not self._store_prefix:
            return repo_rel
        if repo_rel.startswith(self._store_prefix + "/"):
            return repo_rel[len(self._store_prefix) + 1 :]
        return None

    def _join(self, base_repo_dir: str, target: str) -> str | None:
        """Lexical repo-relative path of ``target`` from a repo-relative folder; None if it climbs out."""
        joined = _normjoin(base_repo_dir, target)
        if joined == ".." or joined.startswith("../"):
            return None
        return "" if joined == "." else joined

    def _doc_dir(self, doc: "Doc") -> str:
        """The repo-relative folder of a doc (asked once per link: kept per folder)."""
        folder = doc.rel.rpartition("/")[0]
        found = self._doc_dirs.get(folder)
        if found is None:
            found = self._doc_dirs[folder] = posixpath.join(self._store_prefix, folder) if self._store_prefix else folder
        return found

    def _locate(self, repo_rel: str):
        """(status, target) for a lexical repo-relative path inside the repository."""
        store_rel = self.repo_to_store(repo_rel)
        if store_rel is not None:
            if store_rel in self.store.docs:
                return OK, store_rel
            if store_rel in self.store.link_twins:  # a symbolic link to a file of the store: that file
                return OK, self.store.link_twins[store_rel]
            if self._casefolded is None:
                self._casefolded = {same_name_key(rel) for rel in self.store.docs}
            if same_name_key(store_rel) in self._casefolded:
                # Foo.md for foo.md, or café.md typed in NFC for a file named in
                # NFD: found on macOS and Windows, missing on Linux and on
                # GitHub. Broken everywhere, so the verdict does not depend on
                # the machine.
                return BROKEN, repo_rel
            # through a symbolic link to a folder of the store (projects -> projects-2026): that file
            real = self.files.real(repo_rel)
            real_rel = self.repo_to_store(real) if real is not None and real != repo_rel else None
            if real_rel in self.store.docs:
                return OK, real_rel
        kind = self.files.kind(repo_rel)
        if kind == "outside":
            return OUTSIDE, repo_rel
        if kind is not None:
            return IN_REPO, repo_rel
        return BROKEN, repo_rel

    # -- resolution
    def _resolve(self, doc: "Doc", link: Link) -> tuple[Edge | None, tuple | None]:
        """The edge of a link (None for none) and its ``LinksMemo`` entry."""
        settings = self.store.settings
        if link.kind in ("wiki", "embed"):
            if settings["wikilinks"] == "off" or _OPENCLAW_TAG.match(link.target.strip()):
                return None, None
            return self._resolve_wiki(doc, link)
        if link.kind == "code":
            return self._resolve_code_ref(doc, link), _AGAIN
        if not link.target or link.target.startswith("#"):
            return None, None  # an anchor in the same file
        if is_external(link.target):
            return _fixed(doc, link, None, EXTERNAL)
        raw = link.target.strip()
        reason = outside_reason(raw)
        if reason:
            return _fixed(doc, link, raw, OUTSIDE, reason)
        written = _strip_anchor(raw)
        target = written.replace("\\", "/")  # a Windows-style path
        if not target:
            return None, None
        repo_rel = self._join(self._doc_dir(doc), target)
        if "\\" in written:  # unless a file of that very name exists (Linux allows `a\b.md`)
            literal = self._join(self._doc_dir(doc), written)
            if literal is not None and self._locate(literal)[0] in (OK, IN_REPO):
                repo_rel = literal
        if repo_rel is None:
            return _fixed(doc, link, raw, OUTSIDE, "climbs out of the repository")
        # which of the two a backslash means can change from run to run: resolved again each time
        return self._located(doc, link, repo_rel, raw), (_AGAIN if "\\" in written else ("@", repo_rel))

    def _located(self, doc: "Doc", link: Link, repo_rel: str, raw: str) -> Edge:
        """The edge of a link to ``repo_rel``, a lexical path inside the repository."""
        status, where = self._locate(repo_rel)
        note = "a symbolic link out of the repository" if status == OUTSIDE else self._through(status, repo_rel)
        return Edge(doc.rel, link, raw if status == OUTSIDE else where, status, note)

    def _through(self, status: str, repo_rel: str) -> str:
        """An OK edge's note when the path it names is a symbolic link of the
        store that stands for its target (``Store.link_twins``), else ""."""
        if status != OK or not self.store.link_twins:
            return ""
        twin = self.repo_to_store(repo_rel)
        return f"{THROUGH}{twin}" if twin in self.store.link_twins else ""

    def _resolve_code_ref(self, doc: "Doc", link: Link) -> Edge | None:
        """`path/x.md` in an index counts as a link where the preset says so.

        Resolved from the linking file, then from the workspace: the store
        folder, dropping leading folders that are the store's own folder
        and those above it, or the folder the harness keeps a store in
        (``memory/x.md`` written in a store that *is* ``memory/``, or a copy
        of one in a repository of its own; not ``vendor/acme/x.md``, a file
        of another folder).
        Only extra edges: never reported as broken or outside.
        """
        if not self.store.settings["backtick-refs"] or doc.role not in INDEX_ROLES:
            return None
        target = link.target.split("#", 1)[0]  # a code span is no URL: nothing in it is percent-encoded
        if not target or outside_reason(target):
            return None
        docs = self.store.docs
        for base in (posixpath.dirname(doc.rel), ""):
            joined = _normjoin(base, target)
            if joined in docs:
                return Edge(doc.rel, link, joined, OK)
        parts = posixpath.normpath(target).split("/")  # `./memory/x.md` is `memory/x.md`
        folders = self.store.dir.parts
        for i in range(1, len(parts)):
            leading = tuple(parts[:i])
            if leading != folders[len(folders) - i:] and leading not in _HARNESS_FOLDERS:
                continue
            tail = posixpath.normpath("/".join(parts[i:]))
            if tail in docs:
                return Edge(doc.rel, link, tail, OK)
        return None

    def _resolve_wiki(self, doc: "Doc", link: Link) -> tuple[Edge | None, tuple | None]:
        written = link.target.strip()
        name = written.replace("\\", "/")  # a Windows-style path
        if not name:
            return None, None  # [[#heading]]: a link inside the same file
        reason = outside_reason(name)
        if reason:
            return _fixed(doc, link, name, OUTSIDE, reason)
        consulted: list[str] = []
        found = self.store.wiki_names.lookup(doc, name, consulted)
        if "\\" in written:  # a file of that very name first (Linux allows `a\b.md`); resolved again each run
            found = self.store.wiki_names.lookup(doc, written) or found
            return (Edge(doc.rel, link, found, OK), _AGAIN) if found else (self._unfound_wiki(doc, link, name), _AGAIN)
        if found:
            # The keys are kept "\0"-separated: a name holding a NUL is resolved again each run.
            entry = ("w", found, "\0".join(consulted)) if "\0" not in name else _AGAIN
            return Edge(doc.rel, link, found, OK), entry
        return self._unfound_wiki(doc, link, name), _AGAIN

    def _unfound_wiki(self, doc: "Doc", link: Link, name: str) -> Edge:
        """The edge of a ``[[name]]`` that names no store file."""
        if "/" in name or name.endswith(".md"):
            # A path: it may be a file of the repository outside the store, or
            # climb out of the repository altogether.
            relative_only = _climbs(name)
            bases = (self._doc_dir(doc),) if relative_only else (self._doc_dir(doc), self._store_prefix, "")
            for base in bases:
                for cand in wiki_candidates(name):
                    repo_rel = self._join(base, cand)
                    if repo_rel is None:
                        return Edge(doc.rel, link, name, OUTSIDE, "climbs out of the repository")
                    status, where = self._locate(repo_rel)
                    if status != BROKEN:
                        note = "a symbolic link out of the repository" if status == OUTSIDE else self._through(status, repo_rel)
                        return Edge(doc.rel, link, name if status == OUTSIDE else where, status, note)
        twins = self.store.link_twins
        if twins:  # [[lk]] for lk.md, a symbolic link to another file of the store: that file
            for base in (doc.rel.rpartition("/")[0], ""):
                for cand in wiki_candidates(name):
                    named = posixpath.normpath(posixpath.join(base, cand))
                    if named in twins:
                        return Edge(doc.rel, link, twins[named], OK, f"{THROUGH}{named}")
            if "/" not in name:  # by its file name anywhere in the store, as [[name]] finds a file: as written, then folded
                stem = name.removesuffix(".md")
                stems = {named: named.rsplit("/", 1)[-1].removesuffix(".md") for named in sorted(twins)}
                for same in (lambda base: base == stem, lambda base: fold(base) == fold(stem)):
                    for named, base in stems.items():
                        if same(base):
                            return Edge(doc.rel, link, twins[named], OK, f"{THROUGH}{named}")
        # "dangling-ok": a [[name]] to nothing in a memory body is a note to
        # write later. A path that leads nowhere, or an index entry, is broken.
        lenient = (
            self.store.settings["wikilinks"] == "dangling-ok"
            and doc.role not in INDEX_ROLES
            and "/" not in name
            and not name.endswith(".md")
        )
        return Edge(doc.rel, link, None, DANGLING_WIKI if lenient else BROKEN)

    def named_whole(self, doc: "Doc", target: str) -> str | None:
        """The file a markdown link's ``target`` would name were its bare
        ``#`` and ``?`` part of the name (``c#.md``, which a link reads as
        ``c``), if the repository has it: the path ``_locate`` gives."""
        path = decode_kept(target.strip()).replace("\\", "/")
        repo_rel = self._join(self._doc_dir(doc), path) if path and not outside_reason(path) else None
        if repo_rel is None:
            return None
        status, where = self._locate(repo_rel)
        return where if status in (OK, IN_REPO) else None

    def wiki_in_store(self, doc: "Doc", name: str) -> bool:
        """False for a ``[[../../x]]`` path that leads out of the store folder."""
        if not _climbs(name):
            return True
        repo_rel = self._join(self._doc_dir(doc), name)
        return repo_rel is not None and self.repo_to_store(repo_rel) is not None

    # -- reachability
    def _walk(self, skip_root=None) -> dict[str, int]:
        """Depth at which the agent reaches each file from the root (breadth
        first, in the order of the links); ``skip_root(edge)``: the root's
        links it says yes to are left out."""
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
            if depth[rel] >= max_depth:
                continue
            if store.docs[rel].role not in INDEX_ROLES and not body_links:
                continue
            skipped = skip_root if rel == root.rel else None
            for edge in self.out.get(rel, ()):
                if edge.status == OK and edge.target not in depth and (skipped is None or not skipped(edge)):
                    depth[edge.target] = depth[rel] + 1
                    queue.append(edge.target)
        return depth

    def reached_only_through(self, root_lines: set[int], root_links: set[tuple[int, str]] = frozenset()) -> list[str]:
        """The files the agent reaches from the root only by its links on
        these lines, or these (line, target as written) links (say, those past
        its load cap, and those whose reference definition is), in the order
        the agent would have reached them."""
        if not root_lines and not root_links:
            return []
        reached = self._walk(lambda edge: edge.link.line in root_lines or (edge.link.line, edge.link.target) in root_links)
        return [rel for rel in self.depth if rel not in reached]

    def first_links(self, rel: str, *, lines=None, kinds=None, skip_self: bool = False) -> list[tuple[int, "Edge"]]:
        """(line, edge) of the first store file each line of ``rel`` links to:
        where an index line routes the agent (``- [New](new.md) — replaces
        [old](old.md)`` routes to new.md). ``lines`` keeps only those lines,
        ``kinds`` only those link kinds; ``skip_self`` passes over links to
        ``rel`` itself (the line's next link is its target)."""
        out: list[tuple[int, Edge]] = []
        last_line = 0
        for edge in sorted(self.out.get(rel, ()), key=lambda e: (e.link.line, e.link.column)):
            line = edge.link.line
            if edge.status != OK or line == last_line or (lines is not None and line not in lines):
                continue
            if (kinds is not None and edge.link.kind not in kinds) or (skip_self and edge.target == rel):
                continue
            last_line = line
            out.append((line, edge))
        return out

    def reachable(self, rel: str) -> bool:
        return rel in self.depth

    def routes(self, rel: str) -> bool:
        """True if the agent reads ``rel`` as an index: reached, an index, and above the depth limit."""
        doc = self.store.docs.get(rel)
        return (
            doc is not None
            and doc.role in INDEX_ROLES
            and rel in self.depth
            and self.depth[rel] < self.store.settings["index-depth"]
        )

    def index_edges(self):
        """Edges out of the root and index files: the lines an agent routes by."""
        for rel, edges in self.out.items():
            if self.store.docs[rel].role in INDEX_ROLES:
                yield from edges

    # -- suggestions
    def suggest(self, source: "Doc", wanted: str, *, wiki: bool = False, fuzzy: bool = True) -> str | None:
        """The closest existing store file to a broken target, written the way the link would be.

        ``fuzzy=False`` allows only the same file name (any case) elsewhere:
        for targets outside the store, where a near-miss name would mislead.
        """
        if self._suggester is None:
            names = self.store.__dict__.get("wiki_names")  # its folded-stem table is the suggester's, if made
            self._suggester = _Suggester(self.store.docs, names.tables["f:"] if names is not None else None)
        found = self._suggester.closest(wanted, fuzzy=fuzzy)
        if found is None:
            return None
        if wiki:
            return found[:-3] if found.endswith(".md") else found
        return posixpath.relpath(found, posixpath.dirname(source.rel) or ".")


_AGAIN = ("!",)  # a LinksMemo entry: resolve again


def _fixed(doc: "Doc", link: Link, target: str | None, status: str, note: str = "") -> tuple[Edge, tuple]:
    """An edge that the link's text alone decides, and its memo entry."""
    return Edge(doc.rel, link, target, status, note), ("=", target, status, note)


def _climbs(name: str) -> bool:
    return name.startswith(("../", "./")) or "/../" in name or name == ".."


def wiki_candidates(name: str) -> list[str]:
    if name.endswith("/") or name.endswith(".md") or "." in name.rsplit("/", 1)[-1]:
        return [name, name + ".md"] if not name.endswith(("/", ".md")) else [name]
    return [name + ".md", name]


class _Suggester:
    """"Did you mean": the closest store file to a name, without comparing against every file.

    Exact file name elsewhere, then the folded stem, then difflib over the
    few files that share the folded stem's first or last four characters,
    then the one file whose stem is the name after a type prefix
    (``[[beta]]`` for ``feedback_beta.md``). Of several files, the one with
    fewest folders, then in path order. ``by_fold`` ({folded stem: paths in
    that order}, ``WikiNames``'s ``f:`` table) saves making it again; the
    fuzzy steps look up only the names they are asked for (``_near``).
    """

    MAX_CANDIDATES = 200
    # Near spellings guessed in a run, at most (about a millisecond each, against
    # up to 2 * MAX_CANDIDATES names): an index with thousands of broken links to
    # names no file has must not take seconds. Past it, the other steps only.
    MAX_GUESSES = 1000
    # Names ``_near`` looks for a file by scanning every folded stem (about
    # half a millisecond each); past it, the files are filed by all their names at once.
    MAX_SCANS = 32

    def __init__(self, docs, by_fold: dict[str, list[str]] | None = None):
        self.docs = docs
        self.by_name: dict[str, list[str]] = defaultdict(list)  # in no order: `closest` takes the fewest folders
        for rel in docs:
            self.by_name[same_name_key(rel.rsplit("/", 1)[-1])].append(rel)
        if by_fold is None:
            by_fold = defaultdict(list)
            for rel in sorted(docs, key=_fewest_folders):
                by_fold[fold(_stem(rel))].append(rel)
        self.by_fold = by_fold
        self._ends: tuple[dict, dict] | None = None  # (first, last) four characters -> folded stems, for ``_near``
        self._unfiled: dict[str, list[str]] = {}  # folded stem -> the files ``by_fold`` lacks with it
        self._near_found: dict[tuple[str, str], list[str]] = {}  # ``_near``'s answers
        self._scans = 0  # names ``_near`` scanned every folded stem for
        self._by_unprefixed: dict[str, set[str]] | None = None  # every file by ``_unprefixed``, once ``_near`` is asked often
        self._found: dict[tuple[str, bool], str | None] = {}  # (file name asked for, fuzzy) -> ``closest``'s answer
        self.guesses = 0  # near spellings guessed so far (MAX_GUESSES)

    def _near(self, table: str, key: str) -> list[str]:
        """The store paths, fewest folders first, then in path order, whose
        folded stem begins (``table`` "head") or ends ("tail") with ``key``,
        or whose folded stem after a type prefix is ``key`` ("unprefixed").

        Made for the keys asked for, not for every file: a run asks for a
        few (one per broken name), and filing all 10,000 files of a store
        took 0.1 s of every run with a broken link."""
        found = self._near_found.get((table, key))
        if found is not None:
            return found
        if self._ends is None:
            heads: dict[str, list[str]] = defaultdict(list)  # first four characters -> folded stems
            tails: dict[str, list[str]] = defaultdict(list)  # last four -> folded stems
            filed = set()
            for folded, rels in self.by_fold.items():
                heads[folded[:4]].append(folded)
                tails[folded[-4:]].append(folded)
                filed.update(rels)
            for rel in self.docs:  # (files the table given lacks, if any: by their own folded stem)
                if rel not in filed:
                    folded = fold(_stem(rel))
                    self._unfiled.setdefault(folded, []).append(rel)
                    heads[folded[:4]].append(folded)
                    tails[folded[-4:]].append(folded)
            self._ends = heads, tails
        heads, tails = self._ends
        if table == "unprefixed" and self._scans >= self.MAX_SCANS:
            if self._by_unprefixed is None:  # asked for many: every file filed once
                self._by_unprefixed = defaultdict(set)
                for rel in self.docs:
                    rest = _unprefixed(_stem(rel))
                    if rest is not None:
                        self._by_unprefixed[rest].add(rel)
            rels = self._by_unprefixed.get(key, ())
        else:
            if table == "unprefixed":
                # fold works a character at a time, so a stem's folded rest
                # after its prefix ends its folded whole: only those are parsed.
                self._scans += 1
                stems = [folded for folded in chain(self.by_fold, self._unfiled) if folded.endswith(key)]
            else:
                stems = (heads if table == "head" else tails).get(key, ())
            rels = {rel for folded in stems for rel in (*self.by_fold.get(folded, ()), *self._unfiled.get(folded, ()))
                    if rel in self.docs}
            if table == "unprefixed":
                rels = {rel for rel in rels if _unprefixed(_stem(rel)) == key}
        found = self._near_found[(table, key)] = sorted(rels, key=_fewest_folders)
        return found

    def closest(self, wanted: str, *, fuzzy: bool = True) -> str | None:
        base = _strip_anchor(wanted).rstrip("/").rsplit("/", 1)[-1]
        if not base:
            return None
        # Asked once per file name: an index may hold the same broken link thousands of times.
        key = (base, fuzzy)
        if key not in self._found:
            self._found[key] = self._closest(base, fuzzy)
        return self._found[key]

    def _closest(self, base: str, fuzzy: bool) -> str | None:
        stem = base[:-3] if base.endswith(".md") else base
        key = fold(stem)
        for table, k in ((self.by_name, same_name_key(base)), (self.by_name, same_name_key(stem + ".md")), (self.by_fold, key)):
            if table.get(k) and (fuzzy or table is self.by_name):
                return min(table[k], key=_fewest_folders)
        if not fuzzy or len(key) < 3:
            return None
        if self.guesses < self.MAX_GUESSES:
            pool: dict[str, str] = {}
            for table, k in (("head", key[:4]), ("tail", key[-4:])):
                for rel in self._near(table, k)[: self.MAX_CANDIDATES]:
                    pool.setdefault(fold(_stem(rel)), rel)
            match = None
            if pool:  # (a name no file shares an end with costs no guess)
                self.guesses += 1
                match = _closest_match(key, pool, cutoff=0.75)
            if match is not None:  # a near spelling of the whole name (agnets: agents) before a name after a prefix
                return pool[match]
        unprefixed = self._near("unprefixed", key)
        return unprefixed[0] if len(unprefixed) == 1 else None  # two files (feedback_x, project_x): no guess


def _closest_match(word: str, possibilities, cutoff: float) -> str | None:
    """``difflib.get_close_matches(word, possibilities, n=1, cutoff)``'s
    answer, or None, at a fraction of its cost on many near names: the
    candidates are tried best upper bound (``quick_ratio``) first, and the
    exact ratio, the costly part, is left out for any whose bound is below
    the best ratio found (it cannot beat it, nor tie it and win on the name,
    as the highest (ratio, name) does there)."""
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    bounded = []
    for name in possibilities:
        matcher.set_seq1(name)
        if matcher.real_quick_ratio() >= cutoff:
            bound = matcher.quick_ratio()
            if bound >= cutoff:
                bounded.append((bound, name))
    bounded.sort(reverse=True)
    best: tuple[float, str] | None = None
    for bound, name in bounded:
        if best is not None and bound < best[0]:
            break
        matcher.set_seq1(name)
        found = (matcher.ratio(), name)
        if found[0] >= cutoff and (best is None or found > best):
            best = found
    return best[1] if best is not None else None


def _stem(rel: str) -> str:
    base = rel.rsplit("/", 1)[-1]
    return base[:-3] if base.endswith(".md") else base


def common_prefix_len(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


# A filename's type prefix: up to its first ``_`` or ``-`` (``project_``, ``feedback-``), if before any ``.``
_TYPE_PREFIX = re.compile(r"^([^_\-.]+)[_\-]")


def _unprefixed(stem: str) -> str | None:
    """The folded stem after its type prefix (``project_``, ``feedback-``); None without one, or nothing after it."""
    prefixed = _TYPE_PREFIX.match(stem)
    return (fold(stem[prefixed.end():]) or None) if prefixed else None


def entry_key(rel: str) -> tuple[str, str]:
    """(folder, filename prefix) of a store file: how stores group memories.

    The prefix is the filename up to its first ``_``, ``-`` or ``.``
    (``project_``, ``feedback-``), empty when the name has none.
    """
    folder, _, base = rel.rpartition("/")
    m = _TYPE_PREFIX.match(base)
    return folder, (m.group(1).casefold() if m else "")


def root_lines_not_loaded(store) -> set[int]:
    """The root's lines its harness does not load (MEM101's, by its options)."""
    root = store.root
    if root is None or root.parsed is None:
        return set()
    from memlint.rules import root_budget

    options = store.config.rule_config(root_budget, store.preset).options
    ranges = root_budget.hidden_ranges(root_budget.loaded_text(store, root), options["max-lines"],
                                       options["max-bytes"], options["max-chars"])
    return set().union(*(range(a, b + 1) for a, b in ranges))


def root_links_cut_off(store, hidden: set[int]) -> set[tuple[int, str]]:
    """(line, target as written) of the root's loaded links whose reference
    definition is on a line it does not load, of ``hidden`` (`[Alpha][a]` ...
    `[a]: a.md`): what the harness loads of them is text without a target (MEM101's)."""
    root = store.root
    if root is None or root.parsed is None or not hidden or "]:" not in root.parsed.text:
        return set()  # nothing cut off, or no reference definition anywhere
    # the loaded lines, with the dropped ones blank: each line keeps its number
    visible = "\n".join("" if n in hidden else line for n, line in enumerate(root.parsed.text.split("\n"), 1))
    kept = {(link.line, link.target) for link in parse(visible, wikilinks=store.settings["wikilinks"] != "off").links}
    return {(link.line, link.target) for link in root.parsed.links
            if link.line not in hidden and (link.line, link.target) not in kept}


class IndexFinder:
    """Which index an unfiled memory most likely belongs in (MEM201's hint).

    A memory that names its topic in frontmatter (``topics: [tools]``) goes
    there. Otherwise each index's entries are grouped by folder and by filename prefix;
    an orphan goes where most of its siblings are filed, beside its nearest
    neighbour in path order. Built once, O(entries log entries); each
    question is a dictionary look-up and a bisection.
    """

    def __init__(self, graph: Graph):
        self.graph = graph
        self.by_folder: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.by_prefix: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.entries: dict[str, list[tuple[str, int]]] = defaultdict(list)
        store = graph.store
        docs = store.docs
        max_depth = store.settings["index-depth"]
        # The root's lines its load cap drops, and its links above the cut whose reference definition is
        # below it (MEM101's): an entry there is no fix, nor one in a topic reached only through them.
        unloaded = root_lines_not_loaded(store)
        cut_off = root_links_cut_off(store, unloaded)

        def dropped(edge) -> bool:
            return edge.link.line in unloaded or (edge.link.line, edge.link.target) in cut_off

        depth = graph._walk(dropped) if unloaded else graph.depth  # as the agent loads the store
        self.loaded_depth = depth
        # the topics the agent reads as an index only through what the cut drops (unreached without it, or
        # reached past index-depth), and how (as MEM101 says it)
        self.behind_cut = {rel for rel, d in graph.depth.items()
                           if d < max_depth and depth.get(rel, max_depth) >= max_depth}
        self.cut_what = "what" if cut_off else "lines"
        retired = store.lifecycle.retired_because  # a retired topic routes nobody (MEM205): no fix either
        root = store.root
        for rel, edges in graph.out.items():
            # only an index whose entries the agent reaches: one past index-depth, unreached, or reached
            # only through what the root's load cap drops, is no fix
            if docs[rel].role not in INDEX_ROLES or depth.get(rel, max_depth) >= max_depth or retired(rel):
                continue
            seen = set()
            for edge in edges:
                if edge.status != OK or edge.target in seen or docs[edge.target].role in INDEX_ROLES:
                    continue
                if unloaded and root is not None and rel == root.rel and dropped(edge):
                    continue
                seen.add(edge.target)
                folder, prefix = entry_key(edge.target)
                self.by_folder[folder][rel] += 1
                if prefix:
                    self.by_prefix[prefix][rel] += 1
                self.entries[rel].append((edge.target, edge.link.line))
        for rows in self.entries.values():
            rows.sort()
        # Indexes by name, for memories that say where they belong (topics:
        # [tools]): those whose entries the agent reaches, and the others.
        self.by_topic: dict[str, str] = {}
        self.unread_by_topic: dict[str, str] = {}
        for rel in sorted((r for r, d in docs.items() if d.role in INDEX_ROLES), key=lambda r: (r.count("/"), r)):
            if retired(rel):
                continue
            names = self.by_topic if depth.get(rel, max_depth) < max_depth else self.unread_by_topic
            stem = fold(docs[rel].stem)
            for key in (stem, stem[3:] if stem.startswith("moc") else stem):
                names.setdefault(key, rel)

    @staticmethod
    def _clear_winner(counts: dict[str, int]) -> str | None:
        if not counts:
            return None
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        total = sum(counts.values())
        best, n = ranked[0]
        return best if n * 2 > total else None

    def _declared_topic(self, rel: str, names: dict[str, str] | None = None) -> str | None:
        doc = self.graph.store.docs[rel]
        names = self.by_topic if names is None else names
        declared = doc.field("topics") or doc.field("topic") or doc.field("moc")
        for value in declared if isinstance(declared, list) else [declared]:
            if isinstance(value, str) and value.strip():
                key = fold(value.strip().strip("[]"))
                if key in names:
                    return names[key]
        return None

    def unread_topic(self, rel: str) -> str | None:
        """The index ``rel`` names as its topic when the agent does not read
        that index (the root does not reach it within index-depth)."""
        return self._declared_topic(rel, self.unread_by_topic)

    def best(self, rel: str) -> tuple[str, tuple[str, int] | None] | None:
        """(index, (neighbour, its line) or None) for an unfiled file, or None if nothing is obvious."""
        folder, prefix = entry_key(rel)
        index = self._declared_topic(rel)
        if index is None and folder:
            index = self._clear_winner(self.by_folder.get(folder, {}))
        if index is None and prefix:
            index = self._clear_winner(self.by_prefix.get(prefix, {}))
        if index is None and len(self.entries) == 1:
            index = next(iter(self.entries))  # one live index: nowhere else to file it
        if index is None:
            return None
        rows = self.entries.get(index, ())  # sorted: its own entry, if any, is passed over, not copied out per orphan
        i = bisect.bisect_left(rows, (rel, 0))
        after = i
        while after < len(rows) and rows[after][0] == rel:
            after += 1
        neighbours = [rows[j] for j in (i - 1, after) if 0 <= j < len(rows)]
        if not neighbours:
            return index, None
        near = max(neighbours, key=lambda row: common_prefix_len(row[0], rel))
        near_folder, near_prefix = entry_key(near[0])
        same_group = near_folder == folder and (folder or (prefix and near_prefix == prefix))
        return index, (near if same_group else None)

"""A memory's lifecycle: live or retired, stale, expired, superseded, in conflict.

This module is the one place that knows the lifecycle vocabulary; rules,
the linter and ``check --summary`` ask it instead of reading ``status``
themselves.

Fields (all optional, flat or under ``metadata:``): ``status``,
``last_verified``, ``expires``, ``priority``, ``supersedes`` (one id or path,
or a list), ``superseded_by`` (also ``superseded-by``, ``supersededBy``) and
``key`` (the fact the memory asserts, e.g. ``competitor-x/pro-plan/price``;
one string or a list).

Statuses (store setting ``retired-statuses``):

- retired: ``superseded, outdated, archived, conflict, conflicted,
  cancelled, canceled, deleted, deprecated, obsolete, retired``. The memory
  is kept for provenance but must not be loaded: default recall excludes
  it, no index should route to it, and the content rules named by the store
  setting ``retired-exempt-rules`` skip it. ``conflict``/``conflicted``
  are retired too: marking a memory so takes it out of what the agent loads
  until someone decides.
- live but flagged: ``stale`` ("verify me") and ``pending`` (not yet
  confirmed). Still loaded, still checked; ``check --summary`` counts them.
- live: ``active``, ``confirmed``, no status, or any value not listed.

Core memories (``priority`` starting with a value of the store setting
``core-priorities``, default 🔴 or ``core``) never expire, and go stale after
``core-stale-days`` (default: never) instead of ``stale-days``.
"""
from __future__ import annotations

import errno
import unicodedata
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from memlint.dates import parse_date
from memlint.markdown import _INLINE

if TYPE_CHECKING:  # pragma: no cover
    from memlint.store import Doc, Store

RETIRED_STATUSES = [
    "superseded", "outdated", "archived", "conflict", "conflicted",
    "cancelled", "canceled", "deleted", "deprecated", "obsolete", "retired",
]
FLAGGED_STATUSES = ("stale", "pending")  # live, but a person should look
# Retired statuses that say a memory never took effect (a plan dropped, a
# correction withdrawn): it replaces nothing, so what it `supersedes` is not
# retired by it. (An outdated or superseded memory did replace its
# predecessor, which is older still: A -> B -> C keeps A retired.)
CANCELLED_STATUSES = ("cancelled", "canceled")
CORE_PRIORITIES = ["🔴", "core"]
SUPERSEDES_FIELDS = ("supersedes",)
SUPERSEDED_BY_FIELDS = ("superseded_by", "superseded-by", "supersededBy")
# Frontmatter dates that say when a memory last asserted its fact, newest wins.
ASSERTED_FIELDS = ("last_verified", "updated", "date", "created")
# Rules that judge what a memory says: pointless on a retired memory. "content"
# is a tag; "orphan" (MEM201) because an unrouted retired memory is correct;
# "changed-since-verified" (MEM404) because the edit that retires a memory is
# a change after its `last_verified`, and nobody need verify a memory no longer loaded.
RETIRED_EXEMPT_RULES = ["content", "orphan", "changed-since-verified"]


# ---------------------------------------------------------------- one memory


def status_of(doc: "Doc") -> str | None:
    """``status`` folded to lower case, or None when there is none."""
    held = doc.__dict__.get("_status_of")  # asked several times per memory per run: kept per parse
    if held is not None and held[0] is doc.parsed:
        return held[1]
    value = doc.field("status")
    status = None
    if isinstance(value, list) and len(value) == 1:
        value = value[0]  # `status: [superseded]`: one status, written as a list
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
        status = str(value).strip().casefold()
    doc.__dict__["_status_of"] = (doc.parsed, status)
    return status


def retired_statuses(settings: dict) -> frozenset[str]:
    return _folded(tuple(settings.get("retired-statuses", RETIRED_STATUSES)))


@lru_cache(maxsize=16)
def _folded(statuses: tuple[str, ...]) -> frozenset[str]:
    return frozenset(s.casefold() for s in statuses)


def is_live(doc: "Doc", settings: dict) -> bool:
    """True unless the memory's ``status`` is a retired one."""
    return status_of(doc) not in retired_statuses(settings)


def is_cancelled(doc: "Doc", settings: dict) -> bool:
    """A memory whose retired ``status`` says it never took effect (``CANCELLED_STATUSES``)."""
    return status_of(doc) in CANCELLED_STATUSES and not is_live(doc, settings)


def has_lifecycle(doc: "Doc") -> bool:
    """A memory, or a topic index: what a ``status`` retires (a topic index
    by that alone: no memory supersedes one, and MEM502's expiry is a memory's)."""
    return doc.is_memory or doc.role == "index"


def is_retired(doc: "Doc", settings: dict) -> bool:
    """A memory, or a topic index, whose ``status`` is a retired one: kept
    for provenance, not to be routed to (a retired topic routes nobody)."""
    return has_lifecycle(doc) and not is_live(doc, settings)


def retire_as(settings: dict) -> str:
    """The status to tell a person to set on a memory that is no longer true."""
    statuses = settings.get("retired-statuses", RETIRED_STATUSES)
    return statuses[0] if statuses else "superseded"


# A file named as a daily log (2026-02-20-billing-cutover.md) whose frontmatter
# holds one of these is a memory that carries its date in its name (a decision
# record, say): judged as a memory, not as an append-only log.
MEMORY_FIELDS = ("status", "expires", "last_verified", *SUPERSEDES_FIELDS, *SUPERSEDED_BY_FIELDS)
MEMORY_TYPES = frozenset({"user", "feedback", "project", "reference"})  # Claude Code's `type` of a memory


def declares_memory(doc: "Doc") -> bool:
    """Whether ``doc``'s frontmatter says it is a memory: a lifecycle field
    (``MEMORY_FIELDS``, flat or under ``metadata:``), or a ``type`` Claude
    Code gives memories."""
    return frontmatter_declares_memory(doc.frontmatter)


def frontmatter_declares_memory(frontmatter) -> bool:
    """``declares_memory`` of a frontmatter mapping (another version of a file, say)."""
    if not isinstance(frontmatter, dict) or not frontmatter:
        return False
    meta = frontmatter.get("metadata")
    fields = {**meta, **frontmatter} if isinstance(meta, dict) else frontmatter
    if any(fields.get(name) is not None for name in MEMORY_FIELDS):
        return True
    kind = fields.get("type")
    return isinstance(kind, str) and kind.strip().casefold() in MEMORY_TYPES


def is_core(doc: "Doc", settings: dict) -> bool:
    value = doc.field("priority")
    if not isinstance(value, str):
        return False
    value = value.strip().casefold()
    return any(value.startswith(tok.casefold()) for tok in settings.get("core-priorities", CORE_PRIORITIES) if tok)


def date_field(doc: "Doc", name: str) -> date | None:
    """A frontmatter date, or None when absent or unparseable (MEM004 reports those)."""
    value = doc.field(name)
    if value in (None, ""):
        return None
    try:
        return parse_date(value)
    except ValueError:
        return None


def expired_on(doc: "Doc", today: date, settings: dict) -> date | None:
    """The ``expires`` date if it has passed; core memories never expire."""
    when = date_field(doc, "expires")
    if when is None or when >= today or is_core(doc, settings):
        return None
    return when


def stale_window(doc: "Doc", settings: dict) -> int | None:
    """Days after which the memory is stale, or None for never."""
    if is_core(doc, settings):
        return settings.get("core-stale-days")
    return settings.get("stale-days")


def keys_of(doc: "Doc") -> list[str]:
    """The facts a memory asserts (``key``), folded for comparison."""
    value = doc.field("key")
    values = value if isinstance(value, list) else [value]
    # `key: 8080` is read by YAML as a number: the same fact as "8080"; `café`
    # typed on macOS (NFD) is the same key as on Linux (NFC)
    return [unicodedata.normalize("NFC", str(v).strip()).casefold()
            for v in values if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v).strip()]


def _refs(doc: "Doc", fields) -> list[tuple[str, str, str | None]]:
    """(field, raw reference, whole) triples: ``supersedes: x`` or
    ``supersedes: [x, y]``; whole is a wikilink's target before its heading
    or block was cut off (``issue#42`` of ``[[issue#42]]``), or a markdown
    link as written before its destination was taken (a name such as
    ``[WIP](auth "v2")``), else None."""
    out = []
    if doc._fields().keys().isdisjoint(fields):
        return out  # the common case, asked of every memory: no field looked up one by one
    for name in fields:
        value = doc.field(name)
        wiki = _unquoted_wikilink(value)
        values = [wiki] if wiki else value if isinstance(value, list) else [value]
        for item in values:
            item = _unquoted_wikilink(item) or item
            if isinstance(item, bool) or not isinstance(item, (str, int)):
                continue
            text = str(item).strip()
            whole = None
            if text.startswith("[[") and text.endswith("]]"):
                text = inner = text[2:-2].split("|", 1)[0]
                for sep in ("#", "^"):  # [[old#Price]] names old, as in a body (markdown._wikilink)
                    if sep in text:
                        text = text.split(sep, 1)[0]
                        whole = inner.strip()
                        break
                text = text.strip() or inner.strip()  # [[#Price]]: no memory named, said as written
            link = _INLINE.fullmatch(text)  # as in a body: <old price.md>, a title after it
            dest = link.group(2).removeprefix("<").removesuffix(">").split("#", 1)[0].strip() if link else ""
            if dest:  # [Old price](old.md#price): its destination, as in a body
                whole = text if whole is None else whole
                text = unquote(dest)
            if text:
                out.append((name, text, whole if whole != text else None))
    return out


def _unquoted_wikilink(node) -> str | None:
    """``[[old]]`` written unquoted, which YAML reads as a list holding a list
    holding ``old``: the wikilink it was meant as, else None."""
    if isinstance(node, list) and len(node) == 1 and isinstance(node[0], list) and len(node[0]) == 1:
        inner = node[0][0]
        if isinstance(inner, (str, int)) and not isinstance(inner, bool):
            return f"[[{inner}]]"
    return None


def ref_field(doc: "Doc", fields) -> str | None:
    """The first of ``fields`` the memory carries (for its line and its name)."""
    for name in fields:
        if doc.field(name) not in (None, "", []):
            return name
    return None


# ---------------------------------------------------------------- the store


def folders_unchanged(folders: dict) -> bool:
    """Whether each folder still has the time and inode ``markdown_below``
    noted (a folder noted without a time, changed just before, never has)."""
    import os

    for folder, was in folders.items():
        try:
            info = os.stat(folder)
        except OSError:
            return False
        if was[0] is None or (info.st_mtime_ns, info.st_ino) != tuple(was):
            return False
    return True


def unread_markdown(store: "Store", every: list[str]) -> dict[str, str]:
    """Folded filename stem -> the store-relative path of each markdown file
    of ``every`` (``markdown_below``) that the store does not read (the one
    with the fewest folders, then the first in path order)."""
    from memlint.graph import fold

    found: dict[str, str] = {}
    for rel in sorted(set(every).difference(f.rel for f in store._files)):  # listed files, not parsed ones
        key = fold(rel.rsplit("/", 1)[-1][:-3])
        if key not in found or (rel.count("/"), rel) < (found[key].count("/"), found[key]):
            found[key] = rel
    return found


def markdown_below(store: "Store", folders: dict, earlier: dict | None = None) -> list[str]:
    """The store-relative path of every markdown file below the store,
    hidden folders included (not SKIP_DIRS, nor nested repositories).
    ``folders`` gets each folder walked -> (mtime, inode, its markdown
    files, its folders, or None for a nested repository): a file added,
    removed or renamed changes its folder's time. A folder ``earlier``
    holds with the same time and inode is not read again."""
    import os
    import time

    from memlint.store import SKIP_DIRS

    every: list[str] = []
    stack = [(str(store.dir), "")]
    now = time.time_ns()
    while stack:
        folder, prefix = stack.pop()
        try:
            info = os.stat(folder)
        except OSError:
            continue
        # changed in the last two seconds: a change in the same tick of a
        # coarse clock would go unseen, so the folder never counts as unchanged
        stamp = (None if now - info.st_mtime_ns < 2_000_000_000 else info.st_mtime_ns, info.st_ino)
        held = (earlier or {}).get(folder)
        if held is not None and held[0] is not None and tuple(held[:2]) == stamp:
            names, subfolders = held[2], held[3]
        else:
            names, subfolders = [], []
            if os.path.lexists(os.path.join(folder, ".git")) and folder != str(store.dir):
                subfolders = None  # a nested repository: not entered (its .git removed changes this folder's time)
            else:
                try:
                    entries = list(os.scandir(folder))
                except OSError as exc:  # said, and never kept as unchanged: a chmod changes no folder's time
                    entries, stamp = [], (None, stamp[1])
                    if not store.in_unlisted(Path(os.path.relpath(folder, store.dir)).as_posix()):  # said already
                        store.notice(f"{store.shown(store._repo_path(Path(folder)))}: cannot be read ({exc.strerror}): "
                                     "a memory archived there is not seen")
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in SKIP_DIRS:
                            subfolders.append(entry.name)
                    elif entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                        names.append(entry.name)
        folders[folder] = (*stamp, names, subfolders)
        every.extend(prefix + name for name in names)
        for name in subfolders or ():
            stack.append((os.path.join(folder, name), f"{prefix}{name}/"))
    return every


@dataclass(frozen=True)
class Ref:
    source: str  # store-relative path of the memory carrying the field
    field: str
    raw: str  # as written
    target: str | None  # store-relative path it resolves to, None if nothing


@dataclass(frozen=True)
class Route:
    index: str  # store-relative path of the root or topic index
    line: int
    column: int
    target: str


class Lifecycle:
    """Lifecycle facts of every memory of a store, computed once (``Store.lifecycle``)."""

    def __init__(self, store: "Store"):
        self.store = store
        self.settings = store.settings
        self.today = store.today
        self.memories = {rel: d for rel, d in store.docs.items() if d.is_memory and d.parsed is not None}
        # Looked up on disk beyond the store's files (``unread_file``): store path -> a file there?
        self.probed: dict[str, bool] = {}
        self.walked: dict | None = None  # folder -> (time, inode) walked to list the unread markdown (``markdown_below``)

    # -- status
    def live(self, rel: str) -> bool:
        return is_live(self.store.docs[rel], self.settings)

    @cached_property
    def live_memories(self) -> list[str]:
        return sorted(rel for rel, d in self.memories.items() if is_live(d, self.settings))

    # -- supersession
    @cached_property
    def _scanned(self) -> tuple[dict[str, str], list[str]]:
        """({``id``: the first memory in path order that has it}, the memories
        whose frontmatter holds a supersession field, in path order): what
        resolving references needs, from one pass over every memory. The
        second list is short, and the only memories either direction's
        ``_refs`` reads."""
        ids: dict[str, str] = {}
        referring: list[str] = []
        ref_fields = frozenset((*SUPERSEDES_FIELDS, *SUPERSEDED_BY_FIELDS))
        for rel, doc in sorted(self.memories.items()):
            fields = doc._fields()
            if "id" in fields:
                value = fields["id"]
                if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
                    ids.setdefault(str(value).strip(), rel)
            if not fields.keys().isdisjoint(ref_fields):
                referring.append(rel)
        return ids, referring

    @property
    def _ids(self) -> dict[str, str]:
        return self._scanned[0]

    def resolve(self, doc: "Doc", raw: str) -> str | None:
        """The memory a reference means: an ``id``, a path (relative to the
        file or to the store, ``.md`` optional), a ``name``/``title`` slug or
        a filename stem."""
        if raw in self._ids:
            return self._ids[raw]
        return self.store.wiki_names.lookup(doc, raw)

    def reference_to(self, doc: "Doc", target: str) -> str:
        """How ``doc`` can name the memory ``target`` (store-relative) in a
        reference that ``resolve`` reads back as it: its store path, else
        its path from ``doc``'s folder (``a/price.md`` naming ``price.md``)."""
        import posixpath

        relative = posixpath.relpath(target, posixpath.dirname(doc.rel) or ".")
        for raw in (target, relative):
            if self.resolve(doc, raw) == target:
                return raw
        return relative

    def unread_file(self, doc: "Doc", raw: str) -> str | None:
        """The store-relative path of a markdown file a reference that
        ``resolve`` found nothing for names, when the store does not read it:
        one moved to a hidden folder (``.archive/``, as retired memories
        often are) or excluded. By path (relative to the file or the store,
        ``.md`` optional), else by filename stem; None when there is none."""
        import posixpath

        name = raw.strip().rstrip("/")
        if not name:
            return None
        file_name = name if name.endswith(".md") else name + ".md"
        for joined in (posixpath.normpath(posixpath.join(posixpath.dirname(doc.rel), file_name)),
                       posixpath.normpath(file_name)):
            if joined == ".." or joined.startswith(("../", "/")) or joined in self.store.docs:
                continue  # out of the store, or a file it reads (which resolve would have found)
            path = self.store.dir / joined
            try:  # a file of its own, inside the repository (not reached through a link out of it)
                found = (path.is_file() and not path.is_symlink()
                         and path.resolve().is_relative_to(self.store.repo_root))
            except OSError as exc:  # a name too long to exist; a folder that cannot be entered
                found = False
                if exc.errno not in (errno.ENAMETOOLONG, errno.ENOENT, errno.ENOTDIR) and not self.store.in_unlisted(joined):
                    self.store.notice(f"{self.store.shown(self.store._repo_path(path.parent))}: cannot be read "
                                      f"({exc.strerror}): a memory archived there is not seen")
            self.probed[joined] = found  # what the cache's findings key must check again (cache.graph_probes)
            if found:
                return joined
        from memlint.graph import fold

        return self._unread_stems.get(fold(file_name.rsplit("/", 1)[-1][:-3]))

    @cached_property
    def _unread_stems(self) -> dict[str, str]:
        """Folded filename stem -> the markdown file below the store, hidden
        folders included, that the store does not read (fewest folders first).
        Walked only when a reference names nothing the store reads."""
        store = self.store
        kept = store.kept("unread-markdown")  # the last run's walk: only folders changed since are read again
        walked: dict = {}
        every = markdown_below(store, walked, kept if isinstance(kept, dict) else None)
        if walked != kept:
            store.keep("unread-markdown", walked)
        self.walked = {folder: held[:2] for folder, held in walked.items()}  # for the cache to check again
        return unread_markdown(store, every)

    @cached_property
    def supersedes(self) -> dict[str, list[Ref]]:
        return self._refs(SUPERSEDES_FIELDS)

    @cached_property
    def superseded_by(self) -> dict[str, list[Ref]]:
        return self._refs(SUPERSEDED_BY_FIELDS)

    def _refs(self, fields) -> dict[str, list[Ref]]:
        out: dict[str, list[Ref]] = {}
        for rel in self._scanned[1]:
            doc = self.memories[rel]
            refs = []
            for name, raw, whole in _refs(doc, fields):
                target = self.resolve(doc, raw)
                if target is None and whole is not None and self.resolve(doc, whole) is not None:
                    raw, target = whole, self.resolve(doc, whole)  # [[C# tips]]: a name holding the '#' itself
                refs.append(Ref(rel, name, raw, target))
            if refs:
                out[rel] = refs
        return out

    @cached_property
    def newer(self) -> dict[str, dict[str, str]]:
        """old -> {newer memory: how we know}, from both sides of the relation."""
        out: dict[str, dict[str, str]] = {}
        # A memory naming itself replaces nothing: MEM503 reports the reference.
        # Nor does a cancelled one, from either side: what it would have
        # replaced stays current (MEM503 reports a `superseded_by` naming one).
        for rel, refs in self.supersedes.items():
            if is_cancelled(self.memories[rel], self.settings):
                continue
            for ref in refs:
                if ref.target in self.memories and ref.target != rel:
                    out.setdefault(ref.target, {}).setdefault(rel, f"{rel} says `{ref.field}: {ref.raw}`")
        for rel, refs in self.superseded_by.items():
            for ref in refs:
                if (ref.target in self.memories and ref.target != rel
                        and not is_cancelled(self.memories[ref.target], self.settings)):
                    out.setdefault(rel, {}).setdefault(ref.target, f"its `{ref.field}: {ref.raw}`")
        return out

    def superseded_but_live(self) -> list[str]:
        """Memories another memory of the store supersedes (either side saying
        so) whose status is live. A reference that names no memory makes none:
        MEM503 reports the reference, not a memory replaced by nothing."""
        return sorted(rel for rel in self.newer if rel in self.memories and self.live(rel))

    # -- routing
    @cached_property
    def routes(self) -> dict[str, list[Route]]:
        """target -> the index entries that route an agent to it. An index
        line routes to the first store file it links to: ``- [New](new.md) —
        replaces [old](old.md)`` routes to new.md. A topic index retired
        itself, or one the agent does not read (linked from no index, or past
        the index depth), routes nobody, as MEM205 has it."""
        out: dict[str, list[Route]] = {}
        graph = self.store.graph
        for rel, doc in sorted(self.store.docs.items()):
            if doc.role not in ("root", "index") or not graph.routes(rel) or self.retired_because(rel):
                continue
            for line, edge in graph.first_links(rel, skip_self=True):
                out.setdefault(edge.target, []).append(Route(rel, line, edge.link.column, edge.target))
        return out

    def retired_because(self, rel: str) -> str | None:
        """Why no index should route to this memory, or None: its status is
        retired, it is superseded, or it has expired. A topic index, by its
        status alone (``has_lifecycle``)."""
        doc = self.store.docs.get(rel)
        if doc is None or doc.parsed is None or not has_lifecycle(doc):
            return None
        fields = doc._fields()
        if "status" not in fields and "expires" not in fields and rel not in self.newer:
            return None  # most memories, asked of for each index entry: nothing below can say otherwise
        status = status_of(doc)
        if status in retired_statuses(self.settings):
            return f"status: {status} (line {doc.key_line('status')})"
        if not doc.is_memory:
            return None
        newer = self.newer.get(rel)
        if newer:
            first = sorted(newer)[0]
            return f"superseded by {first} ({newer[first]})"
        when = expired_on(doc, self.today, self.settings)
        if when is not None:
            return f"expired on {when.isoformat()} (line {doc.key_line('expires')})"
        return None

    # -- dates
    def git_changed(self, doc: "Doc") -> date | None:
        """Date of the last commit that changed the file, or None (no git, a
        shallow clone, not committed; ``memlint.gitdates`` decides)."""
        return self.store.git_dates.of(doc).changed

    def verified_on(self, doc: "Doc") -> tuple[date, str] | None:
        """When the memory was last checked, and where that date came from:
        ``last_verified``, else git's last change."""
        when = date_field(doc, "last_verified")
        if when is not None:
            return when, "last_verified"
        changed = self.git_changed(doc)
        if changed is not None:
            return changed, "git"
        return None

    def asserted_on(self, doc: "Doc") -> date | None:
        """When the memory last stated its fact: its newest frontmatter date
        (future dates ignored), else git's last change. A date one day ahead
        is not in the future (MEM004): written east of UTC, read on a runner west of it."""
        latest = self.today.toordinal() + 1
        dates = [d for d in (date_field(doc, name) for name in ASSERTED_FIELDS) if d and d.toordinal() <= latest]
        if dates:
            return max(dates)
        return self.git_changed(doc)

    def stale(self) -> list[tuple[str, date, str, int]]:
        """(memory, verified on, source, window) for live memories past their window."""
        out = []
        for rel in self.live_memories:
            doc = self.memories[rel]
            window = stale_window(doc, self.settings)
            if window is None:
                continue
            verified = self.verified_on(doc)
            if verified is not None and (self.today - verified[0]).days > window:
                out.append((rel, verified[0], verified[1], window))
        return out

    def expired(self) -> list[tuple[str, date]]:
        """(memory, expiry date) for every memory whose ``expires`` has passed."""
        out = []
        for rel, doc in sorted(self.memories.items()):
            when = expired_on(doc, self.today, self.settings)
            if when is not None:
                out.append((rel, when))
        return out

    # -- conflicts
    def conflicts(self) -> list[tuple[str, list[str]]]:
        """(key, members newest first) for each key asserted by two or more
        live memories of which none is superseded."""
        groups: dict[str, list[str]] = {}
        for rel in self.live_memories:
            if rel in self.newer:
                continue  # retracted by a newer memory: supersession-broken's business
            for key in dict.fromkeys(keys_of(self.memories[rel])):
                groups.setdefault(key, []).append(rel)
        out = []
        for key, members in sorted(groups.items()):
            if len(members) > 1:
                out.append((key, self.newest_first(members)))
        return out

    def newest_first(self, members: list[str]) -> list[str]:
        dated = [(self.asserted_on(self.memories[rel]), rel) for rel in members]
        # Newest first; undated last; path order breaks ties.
        return [rel for when, rel in sorted(dated, key=lambda p: (p[0] is None, -(p[0].toordinal() if p[0] else 0), p[1]))]


__all__ = [
    "CORE_PRIORITIES",
    "FLAGGED_STATUSES",
    "RETIRED_EXEMPT_RULES",
    "declares_memory",
    "frontmatter_declares_memory",
    "RETIRED_STATUSES",
    "Lifecycle",
    "expired_on",
    "is_core",
    "is_cancelled",
    "is_live",
    "has_lifecycle",
    "is_retired",
    "keys_of",
    "retire_as",
    "stale_window",
    "status_of",
]

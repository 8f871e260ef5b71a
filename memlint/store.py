"""Discover memory stores and read every file of a store once.

discover -> read + parse each file (pure, cacheable) -> Store (docs, roles,
graph and git history computed lazily on first use).
"""
from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field as dataclass_field, replace
from datetime import date
from functools import cached_property
from pathlib import Path

from typing import TYPE_CHECKING
from memlint.config import Config, ConfigError, glob_matcher, where_is
from memlint.presets import ROOT_NAMES, _OnDisk, detect_preset, is_moc_root, is_store_root, root_among

if TYPE_CHECKING:  # pragma: no cover
    from memlint import markdown

MAX_FILE_BYTES = 8 * 1024 * 1024  # larger files are reported, not parsed
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv"}


@dataclass
class Doc:
    """One markdown file of a store."""

    path: str  # repo-relative POSIX path (what findings print)
    rel: str  # store-relative POSIX path (what links resolve against)
    location: str | Path  # absolute path (``abspath`` makes it a Path when asked: few docs need one)
    size: int
    role: str = "memory"  # root | index | memory | log | exempt
    parsed: markdown.Parsed | None = None
    problem: str | None = None  # why it could not be read
    problem_line: int = 1
    blob: str | None = None  # git blob id of the content read (when the cache is on)
    # A memory (it has frontmatter) whose body is mostly a list of links: it
    # routes as an index, and its frontmatter and lifecycle are a memory's.
    listing: bool = False
    # What ``field`` and ``lifecycle.status_of`` keep per parse, declared so
    # that every Doc's attributes share one key table: set later, each gave
    # its Doc a table of its own (680 bytes more each, 7 MB on 10,000 files).
    _fields_of: tuple | None = dataclass_field(default=None, repr=False, compare=False)
    _status_of: tuple | None = dataclass_field(default=None, repr=False, compare=False)

    @property
    def is_memory(self) -> bool:
        """A memory, or a memory that also lists others (``listing``)."""
        return self.role == "memory" or self.listing

    @property
    def abspath(self) -> Path:
        if not isinstance(self.location, Path):
            self.location = Path(self.location)
        return self.location

    @property
    def frontmatter(self) -> dict | None:
        return self.parsed.frontmatter if self.parsed else None

    @property
    def links(self) -> tuple[markdown.Link, ...]:
        return self.parsed.links if self.parsed else ()

    @property
    def text(self) -> str:
        return self.parsed.text if self.parsed else ""

    def field(self, name: str):
        """A frontmatter field, flat or nested under ``metadata:``."""
        held = self.__dict__.get("_fields_of")  # asked hundreds of thousands of times: the common case inline
        if held is not None and held[0] is self.parsed:
            return held[1].get(name)
        return self._fields().get(name)

    def _fields(self) -> dict:
        """Frontmatter fields, the ``metadata:`` ones under the flat ones, made
        once per parse (the rules ask for fields hundreds of thousands of times)."""
        parsed = self.parsed
        held = self.__dict__.get("_fields_of")
        if held is not None and held[0] is parsed:
            return held[1]
        fm = parsed.frontmatter if parsed is not None and parsed.frontmatter else {}
        meta = fm.get("metadata")
        fields = {**meta, **fm} if isinstance(meta, dict) and meta else fm
        self.__dict__["_fields_of"] = (parsed, fields)
        return fields

    def key_line(self, name: str) -> int:
        """Line of a frontmatter key, else the opening fence, else 1."""
        if self.parsed is None:
            return 1
        lines = self.parsed.key_lines
        line = lines.get(name) or lines.get(f"metadata.{name}")
        if line:
            return line
        if self.parsed.frontmatter_lines:
            return self.parsed.frontmatter_lines[0]
        return 1

    @property
    def stem(self) -> str:
        return self.rel.rsplit("/", 1)[-1][:-3] if self.rel.endswith(".md") else self.rel.rsplit("/", 1)[-1]


def decode(data: bytes) -> tuple[str | None, str | None, int]:
    """A file's bytes as UTF-8 text: (text, problem, problem line)."""
    if len(data) > MAX_FILE_BYTES:
        return None, f"file is over {MAX_FILE_BYTES // (1024 * 1024)} MB; memlint does not parse it", 1
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, "file is UTF-16 encoded; memory files should be UTF-8", 1
    if b"\0" in data[:8192]:
        return None, "binary file with a markdown name", 1
    try:
        return data.decode("utf-8"), None, 1
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at line {line}); memory files should be UTF-8", line


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


class Store:
    """A memory store: a folder with a root index, and everything under it."""

    def __init__(
        self,
        directory: Path,
        root_name: str,
        config: Config,
        *,
        preset: str | None = None,
        repo_root: Path | None = None,
        today: date | None = None,
        staged: bool = False,
        cache: bool = False,
    ):
        self.dir = directory.resolve()
        self.staged = staged  # read the files git will commit (the index), not the working tree
        self._indexed: frozenset[str] | None = None
        self._indexed_links: dict[str, str] | None = None
        self.root_name = root_name
        self.config = config
        self.repo_root = (repo_root or _find_git_root(self.dir) or self.dir).resolve()
        # A staged run reads the index: an untracked file on disk must not decide the layout either
        self._staged_links: set[str] = set()  # the folder-relative paths the index holds as symbolic links
        self._staged_link_ends: dict[str, str] = {}  # those followed to a staged file: {path: its index name}
        # A staged run's whole git index, read once where the repository has a .git (a bare "dotfiles"
        # one names its files from the store's folder): the store's files, the paths links may name
        # (``indexed_paths``) and the findings key (``index_entries``) all come from it.
        self._index: list | None = _whole_index(self.repo_root) if staged and (self.repo_root / ".git").exists() \
            else None
        self._staged_blobs = _index_blobs(self.dir, self.repo_root, self._staged_links, self._index) if staged \
            else None
        self.preset = preset or config.preset or detect_preset(self.dir, root_name, self._staged_blobs)
        self.settings = config.settings(self.preset)
        self.today = today or date.today()
        self.since: str | None = None  # `check --since REV`: judge history from REV to HEAD (MEM405)
        self.notices: list[str] = []  # one-line messages for the user (the linter prints them once)
        self.history_problem: str | None = None  # why `history` is None
        self.read_failed = False  # a file could not be read (this time): nothing of this run is kept as its content's
        self.blob_ids_corrected = False  # a file was not the blob the index said (``_File.unchecked``)
        # Folders of the store that could not be listed: (store-relative folder, why); their files go unchecked
        self.unlisted: list[tuple[str, str]] = []
        # A symbolic link to another file of the store, dropped as that file's twin: {its path: the file kept}
        self.link_twins: dict[str, str] = {}
        # memlint.cache: what earlier runs computed, by git blob id (None: off)
        self.cache = _open_cache(self.repo_root, self.dir) if cache else None
        self.git_digest: str | None = None  # HEAD and the git index, when the cache asked git
        self.git_head: str | None = None  # HEAD's commit, when the cache asked git
        self.shown_prefix: str | None = None  # set by linter.name_stores: see shown()
        # The files to report on when only files of the store were named
        # (set by cli.build_stores); None: all of them.
        self.only_paths: frozenset[str] | None = None
        self.named_alone: frozenset[str] = frozenset()  # of only_paths, those named as files, not in a folder named
        self._docs: dict[str, Doc] | None = None
        # Set by the linter when a rule will read git dates: reading the files
        # then starts `git log` alongside (``prefetch_history``).
        self.history_wanted = False
        self.disk_probes: dict[str, tuple] = {}  # repo path -> what ``file_on_disk`` found there
        # (cache kind, function of a Doc) of values that depend only on a
        # file's content, which the rules will ask ``memo`` for: set by the
        # linter, computed while the files are read.
        self.content_tasks: list[tuple[str, object]] = []
        self._files = self._list_files()

    @property
    def staged_files(self) -> frozenset[str]:
        """In a staged run, the store's files the index holds (folder-relative); else none."""
        return frozenset(self._staged_blobs or ())

    # -- loading
    @cached_property
    def config_prefix(self) -> str | None:
        """The store folder as written from the config file's folder
        ("memory/", "../memory/"), when the file is elsewhere than the store
        folder; else None. See ``config_globs``."""
        base = self.config.base_dir if self.config.path is not None else None
        if base is None:
            return None
        try:
            prefix = Path(os.path.relpath(self.dir, base.resolve())).as_posix()
        except (ValueError, OSError):  # another drive
            return None
        return None if prefix == "." else prefix + "/"

    def config_globs(self, globs) -> list[str]:
        """Globs from the config file, as the store matches them: each as
        written (store-relative), plus those written from the config file's
        folder ("memory/drafts/**", with the store in memory/) with that
        prefix taken off. Only a glob that starts with the store's folder
        is read so: "*/*" stays store-relative, and cannot match the whole store."""
        prefix = self.config_prefix
        globs = list(globs)
        if prefix is None:
            return globs
        return globs + [glob[len(prefix):] for glob in globs if glob.startswith(prefix) and len(glob) > len(prefix)]

    @cached_property
    def git_replaced(self) -> str:
        """A digest of the repository's `git replace` refs and grafts ("" for
        none, or with the cache off): part of what a kept history is kept by."""
        if self.cache is None:
            return ""
        from memlint.cache import replacements

        return replacements(self.repo_root)

    def shown(self, path: str) -> str:
        """A repo-relative path as output names it: prefixed with the folder
        of its repository when several are linted at once (see
        ``linter.name_stores``)."""
        if self.shown_prefix is None:
            return path
        return self.shown_prefix if path in ("", ".") else f"{self.shown_prefix}/{path}"

    def _repo_path(self, path: Path) -> str:
        try:
            return path.relative_to(self.repo_root).as_posix()
        except ValueError:
            return path.as_posix()

    @property
    def docs(self) -> dict[str, Doc]:
        """Every file of the store, read and parsed on first use (a check whose
        findings the cache holds never needs them)."""
        if self._docs is None:
            self._docs = {}
            self._read_files()
        return self._docs

    def _list_files(self) -> list[_File]:
        """The files of the store, without parsing them; with the cache on,
        each with its blob id (from the git index when git says the file is
        unchanged, else hashed from the bytes read)."""
        prefix = self._repo_path(self.dir)
        prefix = "" if prefix in ("", ".") else prefix + "/"
        unchecked: frozenset[str] = frozenset()  # repo paths whose index blob id is to be checked when read
        if self.staged:
            blob_of = self._staged_blobs
            top = str(self.dir)
            files = ((os.path.join(top, rel), rel, None) for rel in blob_of)  # kind unknown: asked below
        else:
            blob_of, files, attributes = {}, [], []

            def walk() -> None:
                files.extend(_walk_markdown(self.dir, attributes, self.unlisted))

            state = None
            if self.cache is None:
                walk()
            else:  # the folder is walked while git lists what it knows
                state = _git_state(self.repo_root, prefix.rstrip("/"), walk, attributes, self.cache)
            if state is not None:
                tracked, self.git_digest, self.git_head, unchecked = state
                blob_of = {path[len(prefix):]: blob for path, blob in tracked.items()}
        listed = []
        for path, rel, kind in files:
            if not self.chooses(rel):
                continue
            entry = _File(rel, path, blob_of.get(rel))
            if unchecked and entry.blob is not None:
                entry.unchecked = prefix + rel in unchecked
            if rel in self._staged_links:  # the link the commit holds, followed through the index
                entry.link = True
                entry.blob, entry.problem = self._staged_link_target(rel)
            if kind == "other":  # opening a FIFO would block forever
                entry.problem = "not a regular file (a FIFO, socket or device): not read"
            elif entry.blob is None and entry.problem is None and (os.path.islink(path) if kind is None else kind == "link"):
                entry.link = True
                try:
                    target = Path(path).resolve(strict=True)
                except (OSError, RuntimeError):
                    entry.problem = "symbolic link that points nowhere (dangling or a loop)"
                else:
                    if not _inside(target, self.repo_root):
                        entry.problem = "symbolic link to a file outside the repository: not followed"
                    elif not target.is_file():  # opening a FIFO would block forever
                        entry.problem = "symbolic link to something that is not a file: not followed"
            if entry.blob is None and entry.problem is None and self.cache is not None:
                entry.data = _read_bytes(path)
                if entry.data is not None and len(entry.data) <= MAX_FILE_BYTES:
                    entry.blob = _blob_id(entry.data)
            listed.append(entry)
        if listed and self._root_left_out is not None:
            self._refuse_root_left_out()
        return listed

    @cached_property
    def _globs(self) -> tuple:
        """Matchers of the ``include`` and ``exclude`` globs (the built-in excludes too)."""
        return (glob_matcher(self.config_globs(self.settings["include"])),
                glob_matcher(self.config_globs(self.settings["exclude"])))

    def chooses(self, rel: str) -> bool:
        """Whether the ``include`` and ``exclude`` globs make a store-relative
        path one of the store's files. The root always is, whatever its name
        (a root named README.md is no project doc the built-in excludes mean),
        unless the configuration's own globs leave it out."""
        if rel == self.root_name and self._root_left_out is None:
            return True
        included, excluded = self._globs
        return included(rel) and not excluded(rel)

    @cached_property
    def _root_left_out(self) -> str | None:
        """"include" or "exclude" when the configuration's own globs of that
        name leave out the root; else None."""
        include, exclude = self.config.data.get("include"), self.config.data.get("exclude")
        if include is not None and not glob_matcher(self.config_globs(include))(self.root_name):
            return "include"
        if exclude is not None and glob_matcher(self.config_globs(exclude))(self.root_name):
            return "exclude"
        return None

    def _refuse_root_left_out(self) -> None:
        """A ConfigError for globs that leave out the root but not the rest of
        the store: every rule that starts from the root (the load budget,
        orphans, links) would go quiet. Globs that leave out all of it leave a
        store out, which is theirs to do."""
        key = self._root_left_out
        written = (self.config_prefix or "") + self.root_name  # as the config file names it
        if key == "include":
            hint = f"add {written!r} to it"
        elif any(glob.endswith(self.root_name) for glob in self.config.data["exclude"]):
            hint = f"`{(self.config_prefix or '')}*/{self.root_name}` leaves out the {self.root_name} of the folders below it"
        else:
            hint = "narrow it"
        raise ConfigError(f"{where_is(self.config, (key,))}: {key} leaves out the store's root, "
                          f"{self._repo_path(self.dir / self.root_name)}, but not the rest of the store: every rule that "
                          f"starts from the root would go quiet; {hint}, or leave out the whole store "
                          f"(`{(self.config_prefix or '')}**`)")

    def _read_files(self) -> None:
        from memlint import markdown  # imports YAML: not needed when the cache holds the findings

        cache, docs = self.cache, self._docs
        wikilinks = self.settings["wikilinks"] != "off"
        kind = f"parse:{int(wikilinks)}"
        prefix = self._repo_path(self.dir)
        prefix = "" if prefix in ("", ".") else prefix + "/"
        if self.history_wanted and cache is not None and cache.holds_blobs():
            # A store checked before: most parses are cached and there will be
            # no fork, so the history loads while they are read.
            self.prefetch_history()
        # blob -> (problem, line, size, parse): one lookup a shard, not one a file
        held = cache.table(kind, [f.blob for f in self._files if f.blob]) if cache is not None else {}
        todo = [f for f in self._files
                if f.problem is None and (not f.blob or f.unchecked or held.get(f.blob, MISSING) is MISSING)]
        contents: dict[str, bytes] = {}
        if self.staged:  # the staged content to parse, in one `git cat-file --batch`
            contents = _read_blobs(self.repo_root, {f.blob for f in todo if f.blob and f.data is None})

        # What depends only on a file's content and the rules will ask for
        # (content_tasks: fingerprints, schema errors, secrets) is computed
        # here, with the parse, so that a big store's work splits over two processes.
        tasks = list(self.content_tasks) if cache is not None else []

        def read(f: _File):
            """(problem, problem line, size, parsed) of one file, the values
            of the tasks (None: a read that failed, which is not the content's
            doing and must not be kept under its blob id), the file's blob
            id, checked against the bytes read when it was unchecked (None:
            the bytes' id could not be had), and the bytes' length."""
            blob = f.blob
            data = f.data if f.data is not None else contents.get(blob) if blob else None
            if data is None:
                try:
                    data = read_bounded(f.path)
                except OSError as exc:
                    return (f"cannot read: {exc.strerror or exc}", 1, 0, None), None, None, 0
            if f.unchecked:  # a line-ending conversion git does not see makes the bytes another blob
                blob = _blob_id(data) if len(data) <= MAX_FILE_BYTES else None
            text, problem, line = decode(data)
            if text is None:
                return (problem, line, 0, None), (), blob, len(data)
            parsed = markdown.parse(text, backtick_refs=True, wikilinks=wikilinks)
            size = len(text.encode("utf-8")) if not text.isascii() else len(text)
            if not blob or not tasks:
                return (problem, line, size, parsed), (), blob, len(data)
            doc = Doc(prefix + f.rel, f.rel, f.path, size, parsed=parsed, blob=blob)
            return (problem, line, size, parsed), [_run_task(fn, doc) for _, fn in tasks], blob, len(data)

        meanwhile = self.prefetch_history if self.history_wanted else None
        if cache is not None and worth_splitting(todo):
            if "_history_thread" in self.__dict__:
                self.history_loaded()  # started early (above): its thread must end before the fork
            results = map_split(read, todo, meanwhile)
        else:
            if meanwhile is not None:
                meanwhile()
            results = map(read, todo)
        lengths: dict[str, int] = {}  # blob -> its length, of the unchecked blob ids the bytes confirmed
        for f, (outcome, values, blob, length) in zip(todo, results):
            if f.unchecked:
                if blob == f.blob:
                    lengths[blob] = length
                else:  # the file is not the index's blob: its own id, and the findings are not kept (_lint_cached)
                    f.blob, self.blob_ids_corrected = blob, True
            held[f.blob or id(f)] = outcome
            self.read_failed = self.read_failed or values is None
            if cache is not None and f.blob and values is not None:
                cache.put(kind, f.blob, outcome)
                for (task_kind, _), value in zip(tasks, values):
                    if value is not MISSING:
                        cache.put(task_kind, f.blob, value)
        if lengths and cache is not None:  # the next run checks the files' lengths against these
            cache.set_single("blob-sizes", lengths)
        for f in self._files:
            if f.problem is not None:
                doc = Doc(prefix + f.rel, f.rel, f.path, 0, problem=f.problem, blob=f.blob)
            else:
                problem, line, size, parsed = held[f.blob or id(f)]
                doc = Doc(prefix + f.rel, f.rel, f.path, size, parsed=parsed, problem=problem, problem_line=line,
                          blob=f.blob)
            docs[f.rel] = doc
            f.data = None  # parsed: the bytes are not needed again
        self._drop_link_twins()
        self._assign_roles()

    def file_on_disk(self, repo_rel: str) -> bool:
        """Whether a repository path is a regular file on disk (a staged run
        judges the index, where it is not: a message may say it is there all
        the same). Kept as a probe of the findings' key (``cache.graph_probes``)."""
        from memlint.cache import disk_probe

        found = self.disk_probes[repo_rel] = disk_probe(self.repo_root, repo_rel)
        return found[0] == "file"

    def staged_bytes(self, doc: Doc) -> bytes | None:
        """In a staged run, the content of ``doc`` being committed (the files
        are parsed from it, not from the working copy); None otherwise, for a
        file judged on disk (a symlink, a conflict), or when git fails."""
        if not self.staged or doc.blob is None:
            return None
        try:
            return _read_blobs(self.repo_root, {doc.blob}).get(doc.blob)
        except ConfigError:
            return None

    def memo(self, doc: Doc, kind: str, compute):
        """``compute()``, a value that depends only on ``doc``'s content, kept in
        the cache under its blob id and ``kind`` (which must name everything
        else the value depends on)."""
        if self.cache is None or doc.blob is None:
            return compute()
        return self.cache.memo(kind, doc.blob, compute)

    def kept(self, name: str):
        """The whole-store value ``keep`` left under ``name`` in an earlier run, or None."""
        return self.cache.single(name) if self.cache is not None else None

    def keep(self, name: str, value) -> None:
        """Leave ``value`` for the next run (``kept``), when the cache is on."""
        if self.cache is not None:
            self.cache.set_single(name, value)

    def save_cache(self) -> None:
        if self.cache is not None:
            if "_history_thread" in self.__dict__:
                self.history_loaded()  # a history still loading adds to the cache: wait for it
            self._keep_links()
            # A big store's shards (40 MB of pickles at 10,000 files) are written by two processes.
            self.cache.save(share=share_out if len(self._docs or ()) >= SPLIT_MIN else None)

    def _keep_links(self) -> None:
        """Leave this run's names and graph (``memlint.graph.LinksMemo``) for
        the next run to patch, when they differ from the ones kept."""
        from memlint.graph import LinksMemo

        if self.read_failed:
            return  # a file read as nothing now, while its blob id says it is unchanged
        graph = self.__dict__.get("graph")
        # The graph's memo is of no use without the names it was resolved with.
        names = self.wiki_names if graph is not None else self.__dict__.get("wiki_names")
        if names is None:
            return
        kept = self.kept("links")
        unchanged = names.baseline is kept and not names.touched
        if graph is None:
            if not unchanged:  # the graph kept, if any, was made from other names
                self.keep("links", LinksMemo(names.files, names.tables, None))
        elif not unchanged or graph.memo_changed or not (isinstance(kept, LinksMemo) and kept.graph):
            self.keep("links", LinksMemo(names.files, names.tables, (graph.context, graph.memo)))

    def link_targets(self) -> dict[str, str]:
        """{repo path of a symbolic link the store holds: the repo path of the
        file it names}, for links to files inside the repository (GitHub's
        code scanning shows results only at resolved paths)."""
        prefix = self._repo_path(self.dir)
        prefix = "" if prefix in ("", ".") else prefix + "/"
        out = {}
        for f in self._files:
            if not f.link or f.problem is not None:
                continue
            try:
                target = Path(f.path).resolve(strict=True)
            except (OSError, RuntimeError):
                continue
            if _inside(target, self.repo_root):
                out[prefix + f.rel] = self._repo_path(target)
        return out

    def _drop_link_twins(self) -> None:
        """A symlink to another file of the store is that file, read once: the
        root keeps its name (MEMORY.md -> notes/index.md), otherwise the real
        file stays and the link goes. Of two links to one file outside the
        store, the first in path order stays."""
        linked = {f.rel for f in self._files if f.link}
        links = [rel for rel in linked if self.docs[rel].problem is None]
        if not links:
            return

        def identity(rel: str):
            """The file a doc reads: where a staged run reads it from the index,
            as the index names it (a staged link: the file it was followed
            to); else on disk."""
            if rel in self._staged_link_ends:
                return "index", self._staged_link_ends[rel]
            if rel not in linked and (self._staged_blobs or {}).get(rel) is not None:
                return "index", self._index_name(rel)
            return "disk", self.docs[rel].abspath.resolve()

        real = {identity(rel): rel for rel in self.docs if rel not in linked}
        if self.staged:  # a staged link judged on disk (through a linked folder) meets the file there too
            for rel in self.docs:
                if rel not in linked:
                    real.setdefault(("disk", self.docs[rel].abspath.resolve()), rel)
        for rel in sorted(links):
            target = identity(rel)
            twin = real.get(target)
            if twin is None:  # the first of the links to a file outside the store stands for it
                real[target] = rel
                if self.staged and target[0] == "index":  # and meets a link to it judged on disk
                    real.setdefault(("disk", self.docs[rel].abspath.resolve()), rel)
                continue
            dropped, kept = (twin, rel) if rel == self.root_name else (rel, twin)
            del self.docs[dropped]
            self.link_twins[dropped] = kept  # a link to the one dropped leads to the one kept (memlint.graph)
            real[target] = kept

    @cached_property
    def _role_globs(self) -> tuple:
        """The globs that give a path its role (exempt, daily logs, topics), and a matcher of each."""
        globs = tuple(tuple(self.settings[key]) for key in ("exempt", "daily-logs", "topics"))
        return globs, tuple(glob_matcher(patterns) for patterns in globs)

    def role_by_path(self, rel: str) -> str:
        """The role a store-relative path gives a file: "root", "exempt",
        "log", "index" or "memory" (``_assign_roles`` may then make a log
        whose frontmatter declares a memory a memory, and a memory that is
        mostly a list of links an index)."""
        if rel == self.root_name:
            return "root"
        exempt, log, topic = self._role_globs[1]
        if exempt(rel):
            return "exempt"
        if log(rel):
            return "log"
        if topic(rel) or rel.rsplit("/", 1)[-1] == "MEMORY.md":
            return "index"  # a MEMORY.md in a folder of the store: that folder's index
        return "memory"

    def _assign_roles(self) -> None:
        globs = self._role_globs[0]
        # A path's role by the globs is the same from run to run: the last
        # run's are kept, and only new paths matched (10,000 paths: 40 ms).
        kept = self.kept("roles")
        earlier = kept[1] if isinstance(kept, tuple) and len(kept) == 2 and kept[0] == globs else {}
        roles: dict[str, str] = {}
        for rel, doc in self.docs.items():
            if rel == self.root_name:
                doc.role = "root"
                continue
            doc.role = roles[rel] = earlier.get(rel) or self.role_by_path(rel)
        if roles != earlier:
            self.keep("roles", (globs, roles))
        # Files the root links to whose body is mostly a list of links are
        # second-level indexes, as real Claude Code stores use them.
        from memlint.graph import looks_like_index
        from memlint.lifecycle import declares_memory

        for doc in self.docs.values():
            if doc.role == "log" and declares_memory(doc):
                doc.role = "memory"  # a dated name, and a memory's frontmatter (a decision record)
            if doc.role == "memory" and looks_like_index(doc):
                doc.role = "index"
                doc.listing = bool(doc.frontmatter)

    # -- views
    @property
    def root(self) -> Doc | None:
        return self.docs.get(self.root_name)

    def by_role(self, *roles: str):
        return [d for d in self.docs.values() if d.role in roles]

    @property
    def memories(self) -> list[Doc]:
        """The memories, those that also list others (``Doc.listing``) included."""
        return [d for d in self.docs.values() if d.is_memory]

    @cached_property
    def wiki_names(self):
        """Where a ``[[name]]`` or a lifecycle reference leads (``memlint.graph.WikiNames``)."""
        from memlint.graph import WikiNames

        return WikiNames(self.docs, self.kept("links"), self.dir.parts)

    @cached_property
    def graph(self):
        from memlint.graph import Graph

        return Graph(self)

    @property
    def history(self):
        """Git dates for the store, or None when there is no usable git.
        Computed once; ``prefetch_history`` may have started it already."""
        if "_history" not in self.__dict__:
            waiting = self.__dict__.pop("_history_thread", None)
            if waiting is not None:
                waiting()
            else:
                self._history = self._load_history()
        return self._history

    def history_loaded(self) -> None:
        """Load the history now (ending its thread, before a fork). Should
        that fail other than as git failing, the rules that read the history
        meet the error again, each reporting it as its own failure."""
        try:
            self.history  # noqa: B018
        except Exception:  # noqa: BLE001
            pass

    def prefetch_history(self) -> None:
        """Start loading the history in a thread, so that `git log` (its own
        process) runs on another core while this one parses the files; the
        `history` property waits for it. Not before a fork (``map_split``)."""
        if "_history" in self.__dict__ or "_history_thread" in self.__dict__:
            return
        from memlint.gitrun import background

        def load() -> None:
            self._history = self._load_history()

        self._history_thread = background(load)

    def start_history_early(self) -> None:
        """On a first run (nothing cached yet), start the `git log` of the
        history's full replay now, while this process still loads the rules
        (``history.EarlyLog``); `end_history_early` stops it if no rule reads
        dates after all. A later run reuses or extends a kept replay. The log
        is of the commit the cache found at HEAD, which the replay checks."""
        if "_history" in self.__dict__ or "_history_thread" in self.__dict__ or "_early_log" in self.__dict__:
            return
        if self.cache is None or self.git_head is None or self.cache.holds_blobs():
            return
        from memlint import history

        date_kind, under = self.settings.get("date-source", "author"), self._repo_path(self.dir)
        self._early_log = history.start_log(self.repo_root, self.git_head, date_kind=date_kind, under=under)

    def end_history_early(self) -> None:
        early = self.__dict__.pop("_early_log", None)
        if early is not None:
            early.end()

    def _load_history(self):
        from memlint import history

        # load_history works from the top git finds, not from the store
        # folder: a hook in a linked worktree gets GIT_DIR, and git then takes
        # the folder it runs in as the top.
        root = self.repo_root
        date_kind, under = self.settings.get("date-source", "author"), self._repo_path(self.dir)
        early = self.__dict__.pop("_early_log", None)
        try:
            if self.cache is None:
                return history.load_history(root, date_kind=date_kind, under=under, early=early)
            # The cache holds the replay at a few recent commits: the one at HEAD
            # reused, or one at an ancestor extended by the commits since.
            key = f"{date_kind}:{under}:{self.git_replaced}" if self.git_replaced else f"{date_kind}:{under}"
            loaded: set[str] = set()  # commits whose kept replay was read and valid

            def tracked(commit, load):
                def read():
                    value = load()
                    if isinstance(value, history.History):
                        loaded.add(commit)
                    return value
                return read

            earlier = {commit: tracked(commit, load) for commit, load in self.cache.histories(key).items()}
            found = history.load_history(root, date_kind=date_kind, under=under, earlier=earlier, early=early)
            if found.head is not None and not found.shallow and found.head not in loaded:
                self.cache.put_history(key, found.head, replace(found, staged_new=frozenset(), staged_renames={},
                                                                        staged_moved_in={}, staged_changed=frozenset()))
            return found
        except history.HistoryError as exc:
            import shutil

            if shutil.which("git") is None:
                self.history_problem = "git is not installed"
            elif isinstance(exc, history.NotAWorkTree) and "dubious ownership" not in str(exc):
                self.history_problem = "not in a git repository"
            elif isinstance(exc, history.NotAWorkTree):  # git refuses a repository another user owns: say why
                self.history_problem = (str(exc).removeprefix("fatal: ") + " (git's safe.directory setting)")
            else:
                self.history_problem = str(exc)
            return None

    @cached_property
    def fingerprints(self) -> "Fingerprints":
        """Body fingerprint of each memory and daily log, by store-relative
        path, found in the cache or made when a rule first asks for it (the
        duplicate rules compare daily logs only when told to)."""
        return Fingerprints(self)

    @cached_property
    def git_dates(self):
        """Created and last-changed dates of each file, from git (``memlint.gitdates``)."""
        from memlint.gitdates import GitDates

        return GitDates(self)

    def indexed_paths(self) -> frozenset[str]:
        """Every repo-relative path the git index holds (staged runs: what exists)."""
        if self._indexed is None:
            from memlint.cache import INTENT_TO_ADD, index_records

            # (in a bare "dotfiles" repository, named from the store's folder, as everything there is)
            index = self._index if self._index is not None else \
                list(index_records(_git(self.repo_root, "ls-files", "--stage", "-z", "--debug")))
            records = [(path, meta) for path, meta, _, flags, _ in index
                       if flags == -1 or not flags & INTENT_TO_ADD]  # `git add -N`: not committed
            self._indexed = frozenset(path for path, _ in records)
            self._indexed_link_blobs = {path: meta.split()[1] for path, meta in records if meta.startswith("120000 ")}
            self._indexed_file_blobs = {path: meta.split()[1] for path, meta in records
                                        if meta.startswith(("100644 ", "100755 ")) and meta.endswith(" 0")}
        return self._indexed

    def index_entries(self) -> bytes | None:
        """In a staged run, every entry of the git index (mode, blob id, stage
        and path, and whether it is only intended to be added: an empty file
        so, not in the commit, has the id of one added; not the times git saw
        the files at, which change with no change of content), for the
        findings key; None where it was not read."""
        if self._index is None:
            return None
        from memlint.cache import INTENT_TO_ADD

        return b"\0".join(head + b"\tintent-to-add" if flags != -1 and flags & INTENT_TO_ADD else head
                           for *_, flags, head in self._index)

    @cached_property
    def _has_git_folder(self) -> bool:
        """A repository with a .git here; else none, or a bare "dotfiles" one (GIT_DIR)."""
        return (self.repo_root / ".git").exists()

    def _index_name(self, rel: str) -> str:
        """How the git index names a file of the store: by its repository
        path, or, in a bare "dotfiles" repository, from the store's folder."""
        return self._repo_path(self.dir / rel) if self._has_git_folder else rel

    def _staged_link_target(self, rel: str) -> tuple[str | None, str | None]:
        """(blob id, problem) of a staged symbolic link of the store, followed
        as the index holds the links and files it leads through: the blob of
        the file it ends at (kept in ``_staged_link_ends``), or why it is not
        read (out of the repository, to nothing the commit holds, to a
        folder). (None, None) where the index alone cannot tell (a linked
        folder on the way, an unmerged file): judged on disk."""
        from memlint.graph import RepoFiles

        paths = self.indexed_paths()
        links = self.indexed_links()
        path, hops = self._index_name(rel), 0
        while path in links:
            hops += 1
            target = links[path]
            if hops > RepoFiles.MAX_LINK_HOPS:
                return None, "symbolic link that points nowhere (dangling or a loop)"
            if os.path.isabs(target):
                if not self._has_git_folder:
                    return None, None  # named from the store's folder: the disk decides
                # inside the repository by its path, maybe through a linked folder (/home -> /usr/home)
                inside = Path(posixpath.normpath(target))
                if not _inside(inside, self.repo_root):
                    inside = Path(os.path.realpath(target))
                if not _inside(inside, self.repo_root):
                    return None, "symbolic link to a file outside the repository: not followed"
                path = posixpath.normpath(inside.relative_to(self.repo_root).as_posix())
            else:
                path = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
            if path == ".." or path.startswith("../"):
                return None, "symbolic link to a file outside the repository: not followed"
        blob = self._indexed_file_blobs.get(path)
        if blob is not None:
            self._staged_link_ends[rel] = path
            return blob, None
        if path in paths:
            return None, None  # unmerged (the conflict is in the working tree) or a submodule: the disk decides
        if any(p.startswith(path + "/") for p in paths):
            return None, "symbolic link to something that is not a file: not followed"
        if any(path.startswith(link + "/") for link in links):
            return None, None  # through a linked folder: as the disk has it
        return None, "symbolic link that points nowhere (dangling or a loop)"

    def indexed_links(self) -> dict[str, str]:
        """{path: the target it names} of the symbolic links among
        ``indexed_paths``, as the index holds them (read once)."""
        if self._indexed_links is None:
            self.indexed_paths()
            blobs = self._indexed_link_blobs
            contents = _read_blobs(self.repo_root, set(blobs.values())) if blobs else {}
            self._indexed_links = {path: os.fsdecode(contents.get(blob, b"")) for path, blob in blobs.items()}
        return self._indexed_links

    def in_unlisted(self, store_rel: str) -> bool:
        """Whether a store-relative path lies in a folder the store could not
        be listed in (``unlisted``): whether a file is there is not known."""
        return any(folder == "." or store_rel == folder or store_rel.startswith(folder + "/")
                   for folder, _ in self.unlisted)

    def notice(self, message: str) -> None:
        """Tell the user something once (not a finding): printed by the CLI on stderr."""
        if message not in self.notices:
            self.notices.append(message)

    @cached_property
    def lifecycle(self):
        """Live, retired, stale, expired, superseded and conflicting memories."""
        from memlint.lifecycle import Lifecycle

        return Lifecycle(self)


_DIRECTIVE_COMMENT = re.compile(r"<!--\s*memlint-[^<>]*?-->")


def compared_body(doc: Doc) -> str:
    """The body the duplicate rules compare: without memlint's own
    directives, so that suppressing MEM301 on one of two copies does not
    make them near-duplicates instead."""
    body = doc.parsed.body
    return _DIRECTIVE_COMMENT.sub("", body) if "memlint-" in body else body


@dataclass
class _File:
    """A file of the store as listed, before it is parsed."""

    rel: str
    path: str  # absolute (a Path only when needed: a store lists thousands of files)
    blob: str | None = None
    data: bytes | None = None  # read while listing (to hash it), not yet parsed
    problem: str | None = None
    link: bool = False
    # The blob id is the git index's, its length unchecked (a first run,
    # ``cache.git_state``): checked against the bytes when they are read.
    unchecked: bool = False

    @property
    def abspath(self) -> Path:
        return Path(self.path)


class MISSING:
    """No value: a content task's that failed, or that it does not compute.
    A class: pickle stores it by name, so the one a forked child sends back
    is this one, never a new object taken for a value and cached."""


def _read_bytes(path: str | Path) -> bytes | None:
    try:
        return read_bounded(path)
    except OSError:
        return None


def read_bounded(path: str | Path) -> bytes:
    """The file's bytes, at most MAX_FILE_BYTES + 1 of them (one more than a
    parse takes says it is too big). Read to its size, not to the bound:
    ``read(8 MB)`` allocates the 8 MB first, which tripled the cost of
    reading a small file. ``os.read`` on a descriptor: a buffered file object
    costs twice as much as the read itself."""
    fd = os.open(path, _READ_FLAGS)
    try:
        size = min(os.fstat(fd).st_size, MAX_FILE_BYTES)
        parts, total = [], 0
        while total <= MAX_FILE_BYTES:
            # Up to one byte past its size; past that (it grew since, or has a
            # size of 0 for text, as in /proc) on to the bound, a piece at a
            # time. A short read (a network file system) just reads again.
            more = os.read(fd, size + 1 - total if total <= size else min(_READ_PIECE, MAX_FILE_BYTES + 1 - total))
            if not more:
                break
            parts.append(more)
            total += len(more)
        return parts[0] if len(parts) == 1 else b"".join(parts)
    finally:
        os.close(fd)


_READ_PIECE = 1 << 16
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


SPLIT_MIN = 400  # files to parse from which a second process pays for itself
# ... or bytes, whatever their number: the work is mostly in proportion to
# the text (the parse, the fingerprint, the secret scan), and real memories
# are longer than the benchmark's (one real store: 253 files of 6 KB each).
SPLIT_MIN_BYTES = 256 * 1024


def worth_splitting(todo: list[_File]) -> bool:
    """Whether the files to parse are enough work for a second process: as
    many as SPLIT_MIN, or as long as SPLIT_MIN_BYTES (their sizes on disk)."""
    if len(todo) >= SPLIT_MIN:
        return True
    total = 0
    for f in todo:
        if f.data is not None:
            total += len(f.data)
        else:
            try:
                total += os.stat(f.path).st_size
            except OSError:  # read (and reported) later
                continue
        if total >= SPLIT_MIN_BYTES:
            return True
    return False


def cores_busy(cpus: int) -> bool:
    """Whether other processes keep every core busy now: those runnable at
    this moment besides this one (Linux's /proc/loadavg), else the one-minute
    load average. (That average lags a minute behind: after a few runs of
    memlint in a row it counts their own second process, and would stop
    the split on an idle machine.) A git this run started to work alongside
    it (``gitrun.ALONGSIDE``) is not counted."""
    try:
        with open("/proc/loadavg", "rb") as fh:
            runnable = int(fh.read().split()[3].split(b"/")[0]) - 1  # this process is one
    except (OSError, ValueError, IndexError):
        return os.getloadavg()[0] >= cpus
    from memlint import gitrun

    return runnable - sum(map(_running, gitrun.ALONGSIDE)) >= cpus


def _running(pid: int) -> bool:
    """Whether process ``pid`` is runnable now (Linux's /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rpartition(b")")[2].split()[0] == b"R"
    except (OSError, IndexError):
        return False


class Forked:
    """A forked child (``fork_work``) and what it sends back: values, each
    pickled in a frame of its own as soon as it is made, so that this
    process loads them while the child still works (``take``), not all
    after it ends (``rest``)."""

    def __init__(self, pid: int, fd: int):
        self._pid, self._fd = pid, fd
        self._buffer = bytearray()
        os.set_blocking(fd, False)

    def take(self) -> list:
        """The values the child has sent so far (none waited for)."""
        while self._fd is not None:
            try:
                chunk = os.read(self._fd, _FRAME_READ)
            except BlockingIOError:
                break
            except OSError:
                self.close()
                break
            if not chunk:
                break
            self._buffer += chunk
        return self._values()

    def rest(self) -> list:
        """Wait for the child to end: the values it sent that ``take`` did not
        give. A child that died mid-way sent only some."""
        if self._fd is not None:
            try:
                os.set_blocking(self._fd, True)
                while chunk := os.read(self._fd, _FRAME_READ):
                    self._buffer += chunk
            except OSError:
                pass
            finally:
                self.close()
        return self._values()

    def _values(self) -> list:
        from memlint.cache import unpickle

        values, buffer, start = [], self._buffer, 0
        while len(buffer) - start >= 8:
            size = int.from_bytes(buffer[start:start + 8], "big")
            if len(buffer) - start - 8 < size:
                break  # the rest of this frame is still to come
            try:
                values.append(unpickle(bytes(buffer[start + 8:start + 8 + size])))
            except Exception:  # noqa: BLE001 - a child that died mid-write: what it sent after is lost too
                start = len(buffer)
                break
            start += 8 + size
        del buffer[:start]
        return values

    def close(self, *, stop: bool = False) -> None:
        """Stop listening (a child still writing gets a broken pipe and leaves)
        and reap it; ``stop`` ends it first (its work is no longer wanted:
        this process is failing, or was interrupted)."""
        if self._fd is not None:
            import gc
            import signal

            os.close(self._fd)
            self._fd = None
            if stop:
                try:
                    os.kill(self._pid, signal.SIGKILL)
                except OSError:  # already gone
                    pass
            try:
                os.waitpid(self._pid, 0)
            except ChildProcessError:  # SIGCHLD ignored (inherited through exec): the kernel reaped it
                pass
            finally:
                gc.unfreeze()


_FRAME_READ = 1 << 20
_PIPE_SIZE = 1 << 20  # room for what the child sends while this process is busy elsewhere (Linux)


def fork_work(work) -> Forked | None:
    """Start ``work(send)`` in a forked child process: the machine has another
    core, which the GIL keeps threads from using. ``send(value)`` sends a
    value back (``Forked.take``, ``Forked.rest``). None when there is no
    second core to use (one core, all busy, no ``fork``) or threads are
    running (a fork copies only the calling thread)."""
    import threading

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    # Not on a saturated machine, where the two processes would just take
    # turns and sending results back costs more than it saves.
    if not hasattr(os, "fork") or cpus < 2 or threading.active_count() > 1 or cores_busy(cpus):
        return None
    import gc
    import pickle

    read_end, write_end = os.pipe()
    try:
        import fcntl

        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
    except (ImportError, AttributeError, OSError):
        pass  # the default size: the child may wait for this process to read
    # Frozen objects are left alone by the collector, whose passes would
    # otherwise write to every shared page (copy-on-write) in both processes.
    gc.freeze()
    try:
        pid = os.fork()
    except OSError:
        gc.unfreeze()
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: compute, send, and leave without running any cleanup of the parent's
        try:
            os.close(read_end)

            def send(value) -> None:
                data = pickle.dumps(value, protocol=5)
                _write_all(write_end, len(data).to_bytes(8, "big"))
                _write_all(write_end, data)

            work(send)
        finally:
            os._exit(0)
    os.close(write_end)
    return Forked(pid, read_end)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


_MAX_UNITS = 1000  # claims written to a pipe before anyone reads it: 2 KB, below every system's pipe buffer


def share_out(count: int, run, *, first=None, after=None, stop_child: bool = True) -> tuple[dict, object]:
    """({i: run(i)} for i in range(count), the child's ``after()``).

    Each i is claimed (two bytes read from a shared pipe) by this process or
    by a forked child (``fork_work``), whichever is free, so the two finish
    together whatever each run costs, and however busy one of them is
    kept by other work. The child sends each result as it has it; this
    process loads them between its own runs. ``first()``, if given, runs
    here after the fork and before this process claims any (it may start
    threads: a fork must come first). ``after()``, if given, runs in the
    child after its last claim; its value is returned (None without a
    child, or from one that failed). Whatever a child claimed and did not
    send back (it died) is run here. With no second core to use,
    everything runs here. Should this process fail (or be interrupted), the
    child is stopped at once, or with ``stop_child=False`` left to finish
    what it claimed (files it writes then end whole, not as stray temp
    files). ``first`` is given a function to call now and then, which loads
    what the child has sent: a child whose results fill the pipe waits
    until they are read."""
    if count > _MAX_UNITS:
        raise ValueError(f"{count} units: at most {_MAX_UNITS}")
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"".join(i.to_bytes(2, "big") for i in range(count)))
    finally:
        os.close(write_end)  # a read then finds the end once every claim is taken

    def claimed(done: dict, each=None) -> None:
        while raw := os.read(read_end, 2):  # a pipe read of 2 bytes is atomic
            i = int.from_bytes(raw, "big")
            done[i] = run(i)
            if each is not None:
                each(i, done[i])

    def in_child(send) -> None:
        claimed({}, lambda i, value: send(("unit", i, value)))
        send(("after", after() if after is not None else None))

    results: dict = {}
    extra = None

    def taken(values: list) -> None:
        nonlocal extra
        for value in values:
            if isinstance(value, tuple) and len(value) == 3 and value[0] == "unit":
                results[value[1]] = value[2]
            elif isinstance(value, tuple) and len(value) == 2 and value[0] == "after":
                extra = value[1]

    try:
        child = fork_work(in_child)
        try:
            if first is not None:
                first(lambda: taken(child.take()) if child is not None else None)
            claimed(results, (lambda i, value: taken(child.take())) if child is not None else None)
        except BaseException:
            if child is not None:
                child.close(stop=stop_child)
            raise
        if child is not None:
            taken(child.rest())
    finally:
        os.close(read_end)
    for i in range(count):
        if i not in results:  # claimed by a child that died
            results[i] = run(i)
    return results, extra


def map_split(fn, items: list, meanwhile=None) -> list:
    """``[fn(x) for x in items]``, computed by this process and a forked
    child (``share_out``), in runs of a few items. ``meanwhile()``, if
    given, is called once here after the fork (it may start threads)."""
    size = -(-len(items) // 100) or 1  # about 100 runs: the two processes finish within one of each other
    runs = [items[k:k + size] for k in range(0, len(items), size)]
    results, _ = share_out(len(runs), lambda i: [fn(x) for x in runs[i]],
                           first=(lambda poll: meanwhile()) if meanwhile is not None else None)
    return [value for i in range(len(runs)) for value in results[i]]


class Fingerprints(Mapping):
    """``Store.fingerprints``: {store-relative path: fingerprint} of the
    memories and daily logs that parsed, each made when first asked for
    (``in``, ``len`` and iterating make none)."""

    def __init__(self, store: "Store"):
        self._store = store
        self._made: dict = {}
        self._held: dict | None = None  # the cache's, of every memory and log (one lookup a shard)

    def _has(self, doc: Doc | None) -> bool:
        return doc is not None and doc.parsed is not None and doc.role in ("memory", "log")

    def __contains__(self, rel) -> bool:
        return self._has(self._store.docs.get(rel))

    def __iter__(self):
        return (rel for rel, doc in self._store.docs.items() if self._has(doc))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __getitem__(self, rel: str):
        found = self._made.get(rel)
        if found is None:
            found = self._made[rel] = self._make(rel)
        return found

    def _make(self, rel: str):
        store = self._store
        doc = store.docs.get(rel)
        if not self._has(doc):
            raise KeyError(rel)
        if store.cache is not None and self._held is None:
            self._held = store.cache.table("fingerprint", [d.blob for d in store.by_role("memory", "log")
                                                           if d.blob and d.parsed is not None])
        found = self._held.get(doc.blob, MISSING) if self._held is not None and doc.blob else MISSING
        return found if found is not MISSING else store.memo(doc, "fingerprint", lambda: fingerprint_of(doc))


def fingerprint_of(doc: Doc):
    """The fingerprint of the body the duplicate rules compare (``compared_body``)."""
    from memlint.fingerprint import fingerprint

    return fingerprint(compared_body(doc))


def _run_task(fn, doc: Doc):
    """``fn(doc)``, or MISSING when it fails: the rule that asked for it
    then computes it again, where a failure is reported as the rule's."""
    try:
        return fn(doc)
    except Exception:  # noqa: BLE001
        return MISSING


def _open_cache(repo_root: Path, store_dir: Path):
    from memlint.cache import StoreCache

    return StoreCache.open(repo_root, store_dir)


def _git_state(repo_root: Path, prefix: str, meanwhile, attributes: list[str], cache=None):
    """memlint.cache.git_state (with the cache on and a repository here), else
    just ``meanwhile()``; either way, ``meanwhile`` is called once."""
    if (repo_root / ".git").exists():
        from memlint.cache import git_state

        return git_state(repo_root, prefix, meanwhile, attributes, cache)
    meanwhile()
    return None


def _blob_id(data: bytes) -> str:
    from memlint.cache import blob_id

    return blob_id(data)


def _find_git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _walk_markdown(top: Path, attributes: list[str] | None = None, unlisted: list[tuple[str, str]] | None = None):
    """(absolute path as a string, top-relative POSIX path, kind) of every
    *.md below ``top``; kind is "file", "link" (a symbolic link) or "other"
    (a FIFO, socket or device: reported, never opened). ``attributes``, if
    given, gets the path of each ``.gitattributes`` in the folders walked;
    ``unlisted``, (top-relative folder, why) for each folder that could not
    be listed (no permission): the files in it are not known.

    Hidden folders (.git, .archive, ...) are skipped, as memory indexers do.
    Symlinked folders and nested git repositories (submodules) are not entered.
    """
    stack = [(top, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            if unlisted is not None:
                unlisted.append((prefix.rstrip("/") or ".", exc.strerror or str(exc)))
            continue
        for entry in entries:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                if name.startswith(".") or name in SKIP_DIRS:
                    continue
                if os.path.lexists(os.path.join(entry.path, ".git")):
                    continue  # a nested repository (a submodule): another store, as git sees it
                stack.append((entry.path, f"{prefix}{name}/"))
            elif name == ".gitattributes" and attributes is not None:
                attributes.append(entry.path)
            elif name.endswith(".md"):
                # is_symlink first: is_file() follows the link and raises on a loop
                kind = "link" if entry.is_symlink() else "file" if entry.is_file(follow_symlinks=False) else "other"
                yield entry.path, f"{prefix}{name}", kind


def _is_walked(rel: str) -> bool:
    """Whether ``_walk_markdown`` would list this store-relative path."""
    *folders, name = rel.split("/")
    return name.endswith(".md") and not any(f.startswith(".") or f in SKIP_DIRS for f in folders)


def _git(repo_root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    from memlint import gitrun

    try:
        status, out, err = gitrun.run(repo_root, args, stdin=stdin)
    except gitrun.GitMissing as exc:
        raise ConfigError(f"--staged needs git: {exc.strerror}") from None
    if status:
        # (only now: a message) a partial clone: a remote that promises the objects it left out
        partial = gitrun.run(repo_root, ["config", "--get-regexp", r"^(remote\..*\.promisor|extensions\.partialclone)$"])[1]
        raise ConfigError(f"reading the commit's files from git (--staged): git {args[0]} failed in {repo_root}: "
                          f"{gitrun.first_error_line(err) or status}" + (
                              "; a partial clone fetches the files it lacks from its remote, which git could not reach"
                              if partial else ""))
    return out


def _whole_index(repo_root: Path) -> list:
    """``index_records`` of the whole git index, named from the top of the repository."""
    from memlint.cache import index_records

    return list(index_records(_git(repo_root, "ls-files", "--stage", "-z", "--debug", "--full-name")))


def _index_blobs(top: Path, repo_root: Path, links: set[str] | None = None,
                 index: list | None = None) -> dict[str, str | None]:
    """Blob id of the staged content of every *.md below ``top``: {top-relative path: blob id}.

    The file set is the index (what the next commit holds): untracked files
    are left out even when they sit on disk. The same folders are skipped as
    ``_walk_markdown`` skips. Symbolic links and unmerged files map to None:
    an unmerged file is judged on disk; a symbolic link, added to ``links``
    when given, is followed through the index by the store. ``index``: the
    whole index (``_whole_index``), read where the repository has a .git.
    """
    if not (repo_root / ".git").exists() and not os.environ.get("GIT_DIR"):
        raise ConfigError(f"--staged needs a git repository; {top} is not in one")
    try:
        prefix = top.relative_to(repo_root).as_posix()
    except ValueError:
        raise ConfigError(f"--staged: {top} is outside its repository {repo_root}") from None
    prefix = "" if prefix == "." else prefix + "/"
    from memlint.cache import INTENT_TO_ADD, index_records

    if index is not None:
        records = index
    else:  # a bare "dotfiles" repository (GIT_DIR, GIT_WORK_TREE): asked from the store's folder, named from there
        records, prefix = index_records(_git(top, "ls-files", "--stage", "-z", "--debug", "--", ".")), ""
    blob_of: dict[str, str | None] = {}
    for path, meta, _, flags, _ in records:
        if not path.startswith(prefix):
            continue  # (the whole index: a file outside the store)
        mode, blob, stage = meta.split()
        rel = path[len(prefix):]
        if not _is_walked(rel) or mode not in ("100644", "100755", "120000"):
            continue  # gitlinks (submodules) and skipped folders
        if flags != -1 and flags & INTENT_TO_ADD:
            continue  # `git add -N`: listed, empty, and not in the commit
        # symbolic links and unmerged files (the conflict is in the working tree)
        blob_of[rel] = blob if mode != "120000" and stage == "0" and rel not in blob_of else None
        if links is not None and mode == "120000" and stage == "0":
            links.add(rel)  # followed through the index (Store._staged_link_target)
    return blob_of


def _read_blobs(repo_root: Path, blobs: set[str]) -> dict[str, bytes]:
    """Blob contents by id, all in one ``git cat-file --batch``."""
    if not blobs:
        return {}
    order = sorted(blobs)
    out = _git(repo_root, "cat-file", "--batch", stdin="".join(f"{b}\n" for b in order).encode("ascii"))
    contents: dict[str, bytes] = {}
    pos = 0
    for blob in order:
        header_end = out.index(b"\n", pos)
        header = out[pos:header_end].split()
        if len(header) != 3:  # "<id> missing": a corrupt index; judge it as empty
            contents[blob] = b""
            pos = header_end + 1
            continue
        size = int(header[2])
        start = header_end + 1
        contents[blob] = out[start:start + size]
        pos = start + size + 1  # the blob is followed by a newline
    return contents


# Where stores hide from discovery, which walks no hidden folder (FORMATS:
# a Claude Code store is often committed as `.claude/memory/`).
HIDDEN_STORE_FOLDERS = (".claude/memory",)


def discover(path: Path, config: Config, *, maps: bool = True, index: "_IndexTree | None" = None
             ) -> list[tuple[Path, str]]:
    """Find the stores at or under ``path``: (folder, root file name) pairs.

    A configured ``root`` names the one store, found from a folder inside
    it or above it (from any other folder, none). Otherwise every folder holding
    a root index the presets know is a store; folders inside a store are part
    of it. When there is none, an ``INDEX.md`` beside a map of content
    (``mocs/``, ``topics/``, ``MOC-*.md``; unless ``maps`` is false), else an
    ``INDEX.md`` in ``path`` itself, is the store; and so, then, is a store
    in one of ``path``'s HIDDEN_STORE_FOLDERS (not walked: hidden).

    ``index``: in a run judging the commit in a sparse checkout
    (``sparse_index``), the files of git's index, where the stores the
    sparse patterns leave out of the work tree are found too.
    """
    if config.root is not None:
        root, named, at = config.root, config.data["root"], where_is(config, ("root",))
        if root.is_dir():
            raise ConfigError(f"{at}: root {named!r} is a folder: name the root index in it (root: path/to/MEMORY.md)")
        if not root.is_file() and not (index is not None and not os.path.lexists(root) and index.is_file(root)):
            sparse = sparse_index(root.parent) if not os.path.lexists(root) else None  # (only now: a message)
            left_out = sparse.left_out(root) if sparse is not None else None
            raise ConfigError(f"{at}: root {named!r} " + (
                f"is not in the work tree: the sparse checkout leaves it out ({left_out} brings it in; "
                "`memlint check --staged` judges it as committed)" if left_out
                else "does not exist"))
        if root.suffix.lower() != ".md":
            raise ConfigError(f"{at}: root {named!r} is not a markdown file: name the root index (root: path/to/MEMORY.md)")
        path, folder = path.resolve(), root.parent.resolve()
        if path != folder and not _inside(path, folder) and not _inside(folder, path):
            return []  # a folder beside the configured store: no store of this config's
        return [(root.parent, root.name)]
    path = path.resolve()
    return _find_roots(path, _OnDiskTree() if index is None else _WorkTreeAndIndex(index), maps)


def _find_roots(path: Path, tree, maps: bool) -> list[tuple[Path, str]]:
    """``discover``'s search of ``path``, in ``tree`` (the work tree, or it and git's index together)."""
    found = _walk_for_roots(path, tree, maps=False)
    if found:
        return sorted(found)
    if maps:
        found = _walk_for_roots(path, tree, maps=True)
        if not found and tree.is_file(path / "INDEX.md"):
            found.append((path, "INDEX.md"))
    for hidden in HIDDEN_STORE_FOLDERS:  # hidden folders are not walked, but a store is often kept in one
        name = tree.root_of(path / hidden, maps=False)
        # beside a map of content, or an INDEX.md here, too: no store walks a hidden folder, so none holds it
        if name and (path / hidden).resolve() not in {folder for folder, _ in found}:
            found.append(((path / hidden).resolve(), name))
    return sorted(found)


def _walk_for_roots(path: Path, tree, *, maps: bool) -> list[tuple[Path, str]]:
    """(folder, its root index) of the folders at or under ``path`` that
    have one in ``tree`` (with ``maps``, only an INDEX.md beside a map of
    content), not looking inside them, nor in hidden or skipped folders."""
    found: list[tuple[Path, str]] = []
    stack = [path]
    while stack:
        folder = stack.pop()
        name = tree.root_of(folder, maps=maps)
        if name:
            found.append((folder, name))
            continue
        subdirs = sorted(tree.subfolders(folder), reverse=True)
        stack.extend(d for d in subdirs if not d.name.startswith(".") and d.name not in SKIP_DIRS)
    return found


class _OnDiskTree:
    """The work tree, for ``_find_roots``."""

    @staticmethod
    def root_of(folder: Path, *, maps: bool) -> str | None:
        return is_moc_root(folder) if maps else is_store_root(folder)

    @staticmethod
    def subfolders(folder: Path) -> list[Path]:
        try:
            return [Path(e.path) for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)]
        except OSError:
            return []

    @staticmethod
    def is_file(path: Path) -> bool:
        return path.is_file()


class _IndexTree:
    """The files of git's index (what the next commit holds) as folders, for
    ``_WorkTreeAndIndex``, and which of them a sparse checkout leaves out of the
    work tree (git's skip-worktree bit): empty outside git, in a bare
    "dotfiles" repository (no .git folder above), or where git cannot list them."""

    def __init__(self, start: Path):
        start = start.absolute()
        top = _find_git_root(next((p for p in (start, *start.parents) if p.exists()), start))
        self.top = top.resolve() if top is not None else None
        self.files: dict[str, set[str]] = {}
        self.folders: dict[str, set[str]] = {}
        self.skipped: set[str] = set()  # repo paths
        if self.top is None:
            return
        from memlint import gitrun

        try:
            status, out, _ = gitrun.run(self.top, ["ls-files", "-t", "-z", "--full-name"])
        except OSError:
            return
        if status != 0:
            return
        for entry in os.fsdecode(out).split("\0"):
            tag, _, path = entry.partition(" ")  # "H path", "S path" (skip-worktree)...
            if not path:
                continue
            if tag == "S":
                self.skipped.add(path)
            folder, _, name = path.rpartition("/")
            self.files.setdefault(folder, set()).add(name)
            while folder:
                folder, _, name = folder.rpartition("/")
                self.folders.setdefault(folder, set()).add(name)

    def _rel(self, path: Path) -> str | None:
        if self.top is None:
            return None
        try:  # (real: a path through a link to the repository names the same entries)
            rel = Path(os.path.realpath(path)).relative_to(self.top).as_posix()
        except ValueError:
            return None
        return "" if rel == "." else rel

    def names(self, folder: Path) -> tuple[set[str], set[str]]:
        """The names of the files and of the folders in ``folder``."""
        rel = self._rel(folder)
        return self.files.get(rel, set()), self.folders.get(rel, set())

    def is_folder(self, path: Path) -> bool:
        rel = self._rel(path)
        return rel in self.files or rel in self.folders

    def is_file(self, path: Path) -> bool:
        rel = self._rel(path)
        if rel is None:
            return False
        folder, _, name = rel.rpartition("/")
        return name in self.files.get(folder, ())

    def left_out(self, path: Path) -> str | None:
        """How to bring ``path``'s folder into the work tree, when the sparse
        checkout leaves the file out: a command to run as it is, here."""
        rel = self._rel(path)
        if rel is None or rel not in self.skipped:
            return None
        import shlex

        from memlint import gitrun

        here = os.path.relpath(self.top)
        git = "git " + ("" if here == "." else f"-C {shlex.quote(here)} ")  # from the top: non-cone patterns are its
        folder = rel.rpartition("/")[0]
        if not folder:
            return f"`{git}sparse-checkout disable`"  # a store at the top: the whole work tree
        try:
            cone = gitrun.run(self.top, ["config", "--bool", "core.sparseCheckoutCone"])[1].strip() == b"true"
        except OSError:
            cone = True
        if cone:  # a folder; one named like a pattern (`[x]`) is refused unless told it is none
            checks = "--skip-checks " if any(c in folder for c in "*?[\\") else ""
            return f"`{git}sparse-checkout add {checks}{shlex.quote(folder)}`"
        # a gitignore pattern: anchored at the top (`memory` alone would match `pkg/memory` too), its globs escaped
        pattern = "/" + re.sub(r"([*?\[\\])", r"\\\1", folder) + "/"
        return f"`{git}sparse-checkout add {shlex.quote(pattern)}`"


class _WorkTreeAndIndex:
    """The work tree and a sparse checkout's index as one tree, for
    ``_find_roots``: a folder holds what either holds (the sparse patterns
    may keep a store's subfolder on disk and leave out its root)."""

    def __init__(self, index: _IndexTree):
        self.index = index

    def root_of(self, folder: Path, *, maps: bool) -> str | None:
        files, folders = self.index.names(folder)
        files, folders = _Either(_OnDisk(folder), files), _Either(_OnDisk(folder, folders=True), folders)
        if maps and root_among(files, folders, maps=False):
            return None  # (is_moc_root: a store's folder is no map of content's)
        return root_among(files, folders, maps=maps)

    def subfolders(self, folder: Path) -> list[Path]:
        return sorted({*_OnDiskTree.subfolders(folder), *(folder / name for name in self.index.names(folder)[1])})

    def is_file(self, path: Path) -> bool:
        return path.is_file() or self.index.is_file(path)


class _Either:
    """Names in either of two collections (``root_among`` asks ``in`` and iterates)."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def __contains__(self, name: str) -> bool:
        return name in self.first or name in self.second

    def __iter__(self):
        return iter({*self.first, *self.second})


def sparse_index(folder: Path) -> _IndexTree | None:
    """The index of ``folder``'s repository when it is a sparse checkout
    (``core.sparseCheckout``), for ``discover``; else None, at the cost of
    one ``git config``."""
    top = _find_git_root(folder.absolute())
    if top is None:
        return None
    from memlint import gitrun

    try:
        status, out, _ = gitrun.run(top, ["config", "--bool", "core.sparseCheckout"])
    except OSError:
        return None
    return _IndexTree(top) if status == 0 and out.strip() == b"true" else None


def walks_into(outer: Path, folder: Path) -> bool:
    """Whether the store in ``outer`` lists the files of ``folder``, below it:
    no hidden or skipped folder on the way, nor a repository of its own."""
    try:
        parts = folder.relative_to(outer).parts
    except ValueError:
        return False
    return not any(part.startswith(".") or part in SKIP_DIRS or os.path.lexists(outer.joinpath(*parts[:i + 1], ".git"))
                   for i, part in enumerate(parts))


def load_stores(path: Path, config: Config, *, preset: str | None = None, today: date | None = None) -> list[Store]:
    return [Store(folder, name, config, preset=preset, today=today) for folder, name in discover(path, config)]


__all__ = ["Doc", "Store", "discover", "load_stores", "ROOT_NAMES"]

"""Discover memory stores and read every file of a store once.

discover -> read + parse each file (pure, cacheable) -> Store (docs, roles,
graph and git history computed lazily on first use).
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path

from memlint import markdown
from memlint.config import Config, ConfigError, glob_match
from memlint.presets import ROOT_NAMES, detect_preset, is_store_root

MAX_FILE_BYTES = 8 * 1024 * 1024  # larger files are reported, not parsed
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv"}


@dataclass
class Doc:
    """One markdown file of a store."""

    path: str  # repo-relative POSIX path (what findings print)
    rel: str  # store-relative POSIX path (what links resolve against)
    abspath: Path
    size: int
    role: str = "memory"  # root | index | memory | log | exempt
    parsed: markdown.Parsed | None = None
    problem: str | None = None  # why it could not be read
    problem_line: int = 1

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
        fm = self.frontmatter or {}
        if name in fm:
            return fm[name]
        meta = fm.get("metadata")
        if isinstance(meta, dict):
            return meta.get(name)
        return None

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


def read_text(path: Path) -> tuple[str | None, str | None, int]:
    """Decode a file as UTF-8. Returns (text, problem, problem_line)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, f"cannot read: {exc.strerror or exc}", 1
    return decode(data)


def decode(data: bytes) -> tuple[str | None, str | None, int]:
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
    ):
        self.dir = directory.resolve()
        self.staged = staged  # read the files git will commit (the index), not the working tree
        self._indexed: frozenset[str] | None = None
        self.root_name = root_name
        self.config = config
        self.preset = preset or config.preset or detect_preset(self.dir, root_name)
        self.settings = config.settings(self.preset)
        self.repo_root = (repo_root or _find_git_root(self.dir) or self.dir).resolve()
        self.today = today or date.today()
        self.since: str | None = None  # `check --since REV`: judge history from REV to HEAD (MEM405)
        self.notices: list[str] = []  # one-line messages for the user (the linter prints them once)
        self.history_problem: str | None = None  # why `history` is None
        self.docs: dict[str, Doc] = {}
        self._load()

    # -- loading
    def _repo_path(self, path: Path) -> str:
        try:
            return path.relative_to(self.repo_root).as_posix()
        except ValueError:
            return path.as_posix()

    def _load(self) -> None:
        include, exclude = self.settings["include"], self.settings["exclude"]
        if self.staged:
            blobs = _index_markdown(self.dir, self.repo_root)
            files = ((self.dir / rel, rel) for rel in blobs)
        else:
            blobs, files = {}, _walk_markdown(self.dir)
        for abspath, rel in files:
            if not glob_match(rel, include) or glob_match(rel, exclude):
                continue
            doc = Doc(self._repo_path(abspath), rel, abspath, 0)
            data = blobs.get(rel)  # staged content; None: read the working tree
            if data is None and abspath.is_symlink():
                try:
                    target = abspath.resolve(strict=True)
                except (OSError, RuntimeError):
                    doc.problem = "symbolic link that points nowhere (dangling or a loop)"
                    self.docs[rel] = doc
                    continue
                if not _inside(target, self.repo_root):
                    doc.problem = "symbolic link to a file outside the repository: not followed"
                    self.docs[rel] = doc
                    continue
                if not target.is_file():  # opening a FIFO would block forever
                    doc.problem = "symbolic link to something that is not a file: not followed"
                    self.docs[rel] = doc
                    continue
            text, problem, line = read_text(abspath) if data is None else decode(data)
            doc.problem, doc.problem_line = problem, line
            if text is not None:
                doc.size = len(text.encode("utf-8")) if not text.isascii() else len(text)
                doc.parsed = markdown.parse(text, backtick_refs=True, wikilinks=self.settings["wikilinks"] != "off")
            self.docs[rel] = doc
        self._drop_link_twins()
        self._assign_roles()

    def _drop_link_twins(self) -> None:
        """A symlink to another file of the store is that file, read once: the
        root keeps its name (MEMORY.md -> notes/index.md), otherwise the real
        file stays and the link goes."""
        links = [rel for rel, doc in self.docs.items() if doc.problem is None and doc.abspath.is_symlink()]
        if not links:
            return
        real = {doc.abspath.resolve(): rel for rel, doc in self.docs.items() if not doc.abspath.is_symlink()}
        for rel in links:
            twin = real.get(self.docs[rel].abspath.resolve())
            if twin is None:
                continue
            del self.docs[twin if rel == self.root_name else rel]

    def _assign_roles(self) -> None:
        s = self.settings
        for rel, doc in self.docs.items():
            if rel == self.root_name:
                doc.role = "root"
            elif glob_match(rel, s["exempt"]):
                doc.role = "exempt"
            elif glob_match(rel, s["daily-logs"]):
                doc.role = "log"
            elif glob_match(rel, s["topics"]):
                doc.role = "index"
        # Files the root links to whose body is mostly a list of links are
        # second-level indexes, as real Claude Code stores use them.
        from memlint.graph import looks_like_index

        for doc in self.docs.values():
            if doc.role == "memory" and looks_like_index(doc):
                doc.role = "index"

    # -- views
    @property
    def root(self) -> Doc | None:
        return self.docs.get(self.root_name)

    def by_role(self, *roles: str):
        return [d for d in self.docs.values() if d.role in roles]

    @property
    def memories(self) -> list[Doc]:
        return self.by_role("memory")

    @cached_property
    def graph(self):
        from memlint.graph import Graph

        return Graph(self)

    @cached_property
    def history(self):
        """Git dates for the store, or None when there is no usable git."""
        from memlint import history

        root = history.find_repo_root(self.dir)
        if root is None:
            import shutil

            self.history_problem = "git is not installed" if shutil.which("git") is None else "not in a git repository"
            return None
        try:
            return history.load_history(
                root, date_kind=self.settings.get("date-source", "author"), under=self._repo_path(self.dir)
            )
        except history.HistoryError as exc:
            self.history_problem = str(exc)
            return None

    @cached_property
    def fingerprints(self) -> dict:
        """Body fingerprint of every memory and daily log, by store-relative path."""
        return fingerprint_docs(self.by_role("memory", "log"))

    @cached_property
    def git_dates(self):
        """Created and last-changed dates of each file, from git (``memlint.gitdates``)."""
        from memlint.gitdates import GitDates

        return GitDates(self)

    def indexed_paths(self) -> frozenset[str]:
        """Every repo-relative path the git index holds (staged runs: what exists)."""
        if self._indexed is None:
            listing = _git(self.repo_root, "ls-files", "-z", "--full-name")
            self._indexed = frozenset(os.fsdecode(p) for p in listing.split(b"\0") if p)
        return self._indexed

    def notice(self, message: str) -> None:
        """Tell the user something once (not a finding): printed by the CLI on stderr."""
        if message not in self.notices:
            self.notices.append(message)

    @cached_property
    def lifecycle(self):
        """Live, retired, stale, expired, superseded and conflicting memories."""
        from memlint.lifecycle import Lifecycle

        return Lifecycle(self)


def fingerprint_docs(docs) -> dict:
    """{store-relative path: fingerprint of its body (frontmatter removed)} for
    the docs that parsed. Each fingerprint depends only on the body, so this is
    the one place a cache keyed by git blob id can wrap."""
    from memlint.fingerprint import fingerprint

    return {doc.rel: fingerprint(doc.parsed.body) for doc in docs if doc.parsed is not None}


def _find_git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _walk_markdown(top: Path):
    """(absolute path, top-relative POSIX path) of every *.md below ``top``.

    Hidden folders (.git, .archive, ...) are skipped, as memory indexers do.
    Symlinked folders are not entered.
    """
    stack = [(top, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                if name.startswith(".") or name in SKIP_DIRS:
                    continue
                stack.append((Path(entry.path), f"{prefix}{name}/"))
            # is_symlink first: is_file() follows the link and raises on a loop
            elif name.endswith(".md") and (entry.is_symlink() or entry.is_file(follow_symlinks=False)):
                yield Path(entry.path), f"{prefix}{name}"


def _is_walked(rel: str) -> bool:
    """Whether ``_walk_markdown`` would list this store-relative path."""
    *folders, name = rel.split("/")
    return name.endswith(".md") and not any(f.startswith(".") or f in SKIP_DIRS for f in folders)


def _git(repo_root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    env = dict(os.environ, GIT_LITERAL_PATHSPECS="1", GIT_OPTIONAL_LOCKS="0")
    # `git commit -a` / `git commit PATH` hand hooks a temporary index, maybe by
    # a relative name: pin it before git runs from the repository root.
    if env.get("GIT_INDEX_FILE"):
        env["GIT_INDEX_FILE"] = os.path.abspath(env["GIT_INDEX_FILE"])
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=false", *args],
            cwd=repo_root, input=stdin, capture_output=True, env=env, check=False,
        )
    except OSError as exc:
        raise ConfigError(f"--staged needs git: {exc.strerror or exc}") from None
    if done.returncode:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ConfigError(f"--staged: git {args[0]} failed in {repo_root}: {message[0] if message else done.returncode}")
    return done.stdout


def _index_markdown(top: Path, repo_root: Path) -> dict[str, bytes | None]:
    """Staged content of every *.md below ``top``: {top-relative path: bytes}.

    The file set is the index (what the next commit holds): untracked files
    are left out even when they sit on disk. The same folders are skipped as
    ``_walk_markdown`` skips. Symbolic links and unmerged files map to None:
    they are judged on disk. One ``git cat-file --batch`` reads every blob.
    """
    if not (repo_root / ".git").exists():
        raise ConfigError(f"--staged needs a git repository; {top} is not in one")
    try:
        prefix = top.relative_to(repo_root).as_posix()
    except ValueError:
        raise ConfigError(f"--staged: {top} is outside its repository {repo_root}") from None
    prefix = "" if prefix == "." else prefix + "/"
    listing = _git(repo_root, "ls-files", "--stage", "-z", "--full-name", "--", prefix or ".")
    blob_of: dict[str, str | None] = {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, blob, stage = meta.decode("ascii").split()
        rel = os.fsdecode(raw_path)[len(prefix):]
        if not _is_walked(rel) or mode not in ("100644", "100755", "120000"):
            continue  # gitlinks (submodules) and skipped folders
        # symbolic links and unmerged files (the conflict is in the working tree)
        blob_of[rel] = blob if mode != "120000" and stage == "0" and rel not in blob_of else None
    contents = _read_blobs(repo_root, {b for b in blob_of.values() if b})
    return {rel: (contents[blob] if blob else None) for rel, blob in blob_of.items()}


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


def discover(path: Path, config: Config) -> list[tuple[Path, str]]:
    """Find the stores at or under ``path``: (folder, root file name) pairs.

    A configured ``root`` names the one store. Otherwise every folder holding
    a root index the presets know is a store; folders inside a store are part
    of it. A path with an ``INDEX.md`` but no other root is a store too.
    """
    if config.root is not None:
        root = config.root
        if not root.is_file():
            raise ConfigError(f"{config.path}: root {config.data['root']!r} does not exist")
        return [(root.parent, root.name)]
    path = path.resolve()
    found: list[tuple[Path, str]] = []
    stack = [path]
    while stack:
        folder = stack.pop()
        name = is_store_root(folder)
        if name:
            found.append((folder, name))
            continue
        try:
            subdirs = sorted(
                (Path(e.path) for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)),
                reverse=True,
            )
        except OSError:
            continue
        stack.extend(d for d in subdirs if not d.name.startswith(".") and d.name not in SKIP_DIRS)
    if not found and (path / "INDEX.md").is_file():
        found.append((path, "INDEX.md"))
    return sorted(found)


def load_stores(path: Path, config: Config, *, preset: str | None = None, today: date | None = None) -> list[Store]:
    return [Store(folder, name, config, preset=preset, today=today) for folder, name in discover(path, config)]


__all__ = ["Doc", "Store", "discover", "fingerprint_docs", "load_stores", "ROOT_NAMES"]

"""Discover memory stores and read every file of a store once.

discover -> read + parse each file (pure, cacheable) -> Store (docs, roles,
graph and git history computed lazily on first use).
"""
from __future__ import annotations

import os
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
    ):
        self.dir = directory.resolve()
        self.root_name = root_name
        self.config = config
        self.preset = preset or config.preset or detect_preset(self.dir, root_name)
        self.settings = config.settings(self.preset)
        self.repo_root = (repo_root or _find_git_root(self.dir) or self.dir).resolve()
        self.today = today or date.today()
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
        for abspath, rel in _walk_markdown(self.dir):
            if not glob_match(rel, include) or glob_match(rel, exclude):
                continue
            doc = Doc(self._repo_path(abspath), rel, abspath, 0)
            if abspath.is_symlink():
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
            text, problem, line = read_text(abspath)
            doc.problem, doc.problem_line = problem, line
            if text is not None:
                doc.size = len(text.encode("utf-8")) if not text.isascii() else len(text)
                doc.parsed = markdown.parse(text, backtick_refs=True)
            self.docs[rel] = doc
        self._assign_roles()

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
            return None
        try:
            return history.load_history(
                root, date_kind=self.settings.get("date-source", "author"), under=self._repo_path(self.dir)
            )
        except history.HistoryError:
            return None


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


__all__ = ["Doc", "Store", "discover", "load_stores", "ROOT_NAMES"]

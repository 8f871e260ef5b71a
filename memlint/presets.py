"""Store layouts memlint knows, and how to tell them apart.

A preset is the store-level settings (where the root is, which files are
topic indexes or daily logs, what frontmatter is wanted) plus per-rule option
defaults. Config overrides any of it.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from memlint import lifecycle

DAILY_LOGS = ["**/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md", "**/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]-*.md"]
# A daily log by another name (daily-2026-03-27.md): a log, not a memory; not
# append-only by default, as the dated names above are.
NAMED_DAILY_LOGS = ["**/daily-[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*.md"]
# Blank forms memories are made from: no memory rule judges them, and backfill
# dates them not (a copy would inherit the form's dates).
TEMPLATES = [
    "**/TEMPLATE.md", "**/[Tt]emplate.md", "**/_TEMPLATE.md", "**/_[Tt]emplate.md",  # the form itself
    "**/*[-_.][Tt]emplate.md", "**/*[-_.]TEMPLATE.md",  # person-template.md, adr_TEMPLATE.md
    "**/[Tt]emplate[-_.]*.md", "**/TEMPLATE[-_.]*.md",  # template-person.md
]
# Never memories: project docs that sit beside a store.
DEFAULT_EXCLUDE = [
    "**/README.md",
    "**/CHANGELOG.md",
    "**/CONTRIBUTING.md",
    "**/LICENSE.md",
    "**/CLAUDE.md",
    "**/AGENTS.md",
    "**/node_modules/**",
]

# Store settings and their defaults; every preset starts from these.
BASE_SETTINGS: dict = {
    "root": "MEMORY.md",
    "frontmatter": "optional",  # "required" on memory files, or "optional"
    "schema": None,  # JSON Schema file for memory frontmatter (shipped name or a path)
    "topics": [],  # globs of topic / map-of-content index files
    "daily-logs": DAILY_LOGS + NAMED_DAILY_LOGS,  # exempt from orphan and memory checks
    "append-only": DAILY_LOGS,
    "exempt": ["NOW.md", *TEMPLATES],  # never orphans, nor memories (short-term files read directly, templates)
    "wikilinks": "strict",  # "strict": dangling [[x]] is broken; "dangling-ok"; "off": [[x]] is not a link
    "backtick-refs": False,  # `memory/x.md` in the root or a topic index counts as a link
    "index-depth": 3,  # root -> topic -> sub-topic -> memory
    "body-links-reach": False,  # memory-to-memory links make a file reachable
    "date-fields": ["created", "date", "last_verified", "expires", "updated"],
    "wants-dates": [],  # fields every memory should carry (MEM402)
    "stale-days": None,  # MEM501 window
    "core-stale-days": None,  # MEM501 window for core-priority memories (None: never stale)
    "core-priorities": lifecycle.CORE_PRIORITIES,  # `priority` values (prefixes) that mark a core memory
    "retired-statuses": lifecycle.RETIRED_STATUSES,  # statuses that take a memory out of what is loaded
    "retired-exempt-rules": lifecycle.RETIRED_EXEMPT_RULES,  # rules/tags that skip retired memories
    "date-source": "author",  # git date: "author" or "committer"
}

PRESETS: dict[str, dict] = {
    "claude-code": {
        "settings": {
            "frontmatter": "required",
            "schema": "claude-code.json",
            "wikilinks": "dangling-ok",
            "topics": ["**/INDEX.md", "topics/*.md"],
            "backtick-refs": True,  # "Context: `project_x.md`" in MEMORY.md routes the agent too
        },
        "rules": {
            "root-budget": {"max-lines": 200, "max-bytes": 25000, "max-chars": None},
            "index-line-length": {"max-length": 150},
            "topic-oversized": {"max-entries": 50, "max-lines": 200},
            "memory-oversized": {"max-lines": 300, "max-bytes": 25000},
        },
    },
    "openclaw": {
        "settings": {
            "frontmatter": "optional",
            "wikilinks": "off",  # [[reply_to_current]] in logs is a tag
            "backtick-refs": True,
            "topics": ["**/INDEX.md"],
        },
        "rules": {
            "root-budget": {"max-lines": None, "max-bytes": None, "max-chars": 12000},
            "index-line-length": {"max-length": None},
            "topic-oversized": {"max-entries": 50, "max-lines": 300},
            "memory-oversized": {"max-lines": 500, "max-bytes": 50000},
            "orphan": {"severity": "warning"},  # agents also find memory/*.md by search
        },
    },
    "moc": {
        "settings": {
            "frontmatter": "optional",
            "schema": "moc.json",
            "topics": ["**/MOC-*.md", "topics/*.md", "mocs/*.md", "**/INDEX.md"],
            "wikilinks": "dangling-ok",  # [[to-write]] in a memory body; topic entries stay strict
            "backtick-refs": True,
            "wants-dates": ["created", "last_verified"],
            "stale-days": 60,
        },
        "rules": {
            # Claude Code's cut, and the thin root's budget below it (FORMATS: "a root over its line budget")
            "root-budget": {"max-lines": 200, "max-bytes": 25000, "max-chars": None, "budget-lines": 40},
            "index-line-length": {"max-length": 150},
            "topic-oversized": {"max-entries": 25, "max-lines": 100},
            "memory-oversized": {"max-lines": 300, "max-bytes": 25000},
        },
    },
    "three-layer": {
        "settings": {
            "root": "INDEX.md",
            "frontmatter": "required",
            "schema": "three-layer.json",
            "topics": ["**/INDEX.md"],
            "exempt": ["NOW.md", *TEMPLATES],
            "wants-dates": ["last_verified"],
            "stale-days": 30,
        },
        "rules": {
            "root-budget": {"max-lines": 200, "max-bytes": 25000, "max-chars": None},
            "index-line-length": {"max-length": None},
            "topic-oversized": {"max-entries": 50, "max-lines": 200},
            "memory-oversized": {"max-lines": 300, "max-bytes": 25000},
        },
    },
    "generic": {
        "settings": {"frontmatter": "optional"},
        "rules": {
            "root-budget": {"max-lines": None, "max-bytes": None, "max-chars": None},
            "index-line-length": {"max-length": None},
        },
    },
}

PRESET_NAMES = tuple(PRESETS)
ROOT_NAMES = ("MEMORY.md", "INDEX.md")


def root_among(files, folders, *, maps: bool = True) -> str | None:
    """The root index name of a store in a folder holding ``files`` and
    ``folders`` (names, as ``os.walk`` lists them; or ``_OnDisk``), else
    None: MEMORY.md, or INDEX.md beside NOW.md or, with ``maps``, beside a
    map of content (``mocs/``, ``topics/``, ``MOC-*.md``)."""
    if "MEMORY.md" in files:
        return "MEMORY.md"
    if "INDEX.md" in files and ("NOW.md" in files or maps and (
            "mocs" in folders or "topics" in folders or any(n.startswith("MOC-") and n.endswith(".md") for n in files))):
        return "INDEX.md"
    return None


class _OnDisk:
    """A folder's file (or folder) names for ``root_among``: asked one at a
    time with a stat, listed only when iterated (a MOC-*.md looked for)."""

    def __init__(self, folder: Path, folders: bool = False):
        self.folder, self.folders = folder, folders

    def __contains__(self, name: str) -> bool:
        path = self.folder / name
        try:
            return path.is_dir() if self.folders else path.is_file()
        except OSError:  # a folder that cannot be searched (permission denied): no store found in it, as in a walk
            return False

    def __iter__(self):
        try:
            return iter(os.listdir(self.folder))
        except OSError:
            return iter(())


def is_store_root(folder: Path) -> str | None:
    """The root index file name if ``folder`` holds a store, else None."""
    return root_among(_OnDisk(folder), _OnDisk(folder, folders=True), maps=False)


def is_moc_root(folder: Path) -> str | None:
    """"INDEX.md" if ``folder`` holds one beside a map of content (and is no
    other store's): the moc preset's root. Discovery takes such a folder
    only when it finds no other store (a docs folder is laid out so too)."""
    files, folders = _OnDisk(folder), _OnDisk(folder, folders=True)
    if root_among(files, folders, maps=False):
        return None
    return root_among(files, folders)


def detect_preset(folder: Path, root_name: str, files: Iterable[str] | None = None) -> str:
    """Guess the layout of the store whose root is ``folder/root_name``, from
    what is on disk there or, given ``files`` (the folder's files, as paths
    relative to it: those a commit will hold), from them."""
    if files is not None:
        files = set(files)
        names = {f.split("/", 1)[0] for f in files}
        if root_name == "INDEX.md" and "NOW.md" in files:
            return "three-layer"
    elif root_name == "INDEX.md" and (folder / "NOW.md").is_file():
        return "three-layer"
    else:
        try:  # a linked folder is not entered (store._walk_markdown): its files are no store's, nor its name a layout
            names = {p.name for p in folder.iterdir() if not (p.is_symlink() and p.is_dir())}
        except OSError:
            return "generic"
    if any(n.startswith("MOC-") for n in names) or "mocs" in names or "topics" in names:
        return "moc"
    if root_name == "INDEX.md":
        return "moc"
    logs = folder / "memory"
    # Daily logs: in memory/, or several beside the root (one date-named memory is not a log habit)
    has_logs = sum(map(_is_daily_name, names)) >= 2
    if files is not None:
        has_logs = has_logs or any(f.startswith("memory/") and _is_daily_name(f[len("memory/"):]) for f in files)
    elif not has_logs and logs.is_dir() and not logs.is_symlink():
        try:
            has_logs = any(_is_daily_name(p.name) for p in logs.iterdir())
        except OSError:
            has_logs = False
    if has_logs:
        return "openclaw"
    return "claude-code"


def _is_daily_name(name: str) -> bool:
    """Named as the DAILY_LOGS globs name a daily log: their [0-9] is ASCII
    (str.isdigit takes full-width and other scripts' digits too)."""
    return (
        len(name) >= 13
        and name.endswith(".md")
        and name[4] == "-"
        and name[7] == "-"
        and _ascii_digits(name[:4])
        and _ascii_digits(name[5:7])
        and _ascii_digits(name[8:10])
        and (name[10] in ".-")
    )


def _ascii_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()

"""Command line: a thin click layer over build_* helpers.

Exit codes: 0 clean, 1 findings at error severity (or any with --strict),
2 usage or configuration error.
"""
from __future__ import annotations

import gc
import importlib
import os
import re
import shlex
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

import click

from memlint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

# Subcommands living in their own modules, imported only when called.
LAZY_COMMANDS: dict[str, str] = {
    "health": "memlint.commands.health:health",
    "triage": "memlint.commands.health:triage",
    "init": "memlint.commands.init:init",
    "eval": "memlint.commands.eval:eval_cmd",
    "report": "memlint.commands.report:report",
    "graph": "memlint.commands.graph:graph_cmd",
    "backfill": "memlint.commands.backfill:backfill",
}


def emit(text: str, *, nl: bool = True) -> None:
    """Print to stdout. A reader that has gone (`memlint check | head -1`)
    stops the printing, not the run: what is being written still is, and the
    exit status is the run's."""
    try:
        click.echo(text, nl=nl)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def say(message: str) -> None:
    """One line for the user on stderr. A folder or file name in it may hold
    a newline or a terminal escape: escaped, as in the findings."""
    from memlint.reporters import printable

    click.echo(f"memlint: {printable(message)}", err=True)


class UsageError(Exception):
    """A problem with what the user asked for: printed on one line, exit 2;
    ``detail``, text memlint wrote to be pasted (a config snippet), printed
    after it as it is."""

    def __init__(self, message: str, detail: str | None = None):
        super().__init__(message)
        self.detail = detail


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx, name):
        if name in LAZY_COMMANDS:
            module_name, attr = LAZY_COMMANDS[name].split(":")
            return getattr(importlib.import_module(module_name), attr)
        return super().get_command(ctx, name)

    def invoke(self, ctx):
        from memlint.config import ConfigError

        try:
            return super().invoke(ctx)
        except (ConfigError, UsageError) as exc:
            say(str(exc))
            if getattr(exc, "detail", None):
                click.echo(exc.detail, err=True, nl=False)
            ctx.exit(EXIT_USAGE)
        except (click.exceptions.Exit, click.ClickException, KeyboardInterrupt, SystemExit):
            raise
        except BrokenPipeError:  # `memlint rules | grep -q MEM001`: a reader that stopped reading is no failure
            # (check, backfill and eval print through emit: they go on, and exit with their run's status)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            # but for init, which says what it wrote as it goes: stopped there, it may not have written the rest
            ctx.exit(EXIT_FINDINGS if ctx.invoked_subcommand == "init" else EXIT_CLEAN)
        except OSError as exc:  # a path the user gave that cannot be read or written
            where = f"{exc.filename}: " if exc.filename else ""
            say(f"{where}{exc.strerror or exc}")
            ctx.exit(EXIT_USAGE)
        except Exception as exc:  # never a traceback for a user; MEMLINT_DEBUG=1 shows it
            if os.environ.get("MEMLINT_DEBUG"):
                raise
            say(f"internal error: {type(exc).__name__}: {exc} (set MEMLINT_DEBUG=1 for details, and please report it)")
            ctx.exit(EXIT_USAGE)


def parse_today(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):  # not the other forms fromisoformat reads (20260302, 2026-W10-1)
            raise ValueError(value)
        day = date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date (YYYY-MM-DD)", param_hint="'--today'") from None
    # Windows and ages are counted back and forth from it: a date near the
    # ends of the calendar would overflow, and none of them is a real today.
    if not 1900 <= day.year <= 9000:
        raise click.BadParameter(f"{value!r} is out of range (years 1900 to 9000)", param_hint="'--today'")
    return day


def _split_keys(values) -> tuple[str, ...]:
    out = []
    for value in values or ():
        out.extend(v.strip() for v in value.split(",") if v.strip())
    return tuple(out)


class NamedPath(click.Path):
    """A path argument or option that refuses an empty one: Path("") is the
    current folder, and `memlint check "$DIR"` with DIR unset must not
    quietly lint it (as `--select ""` is refused, not read as every rule)."""

    def __init__(self, *args, empty: str = "name one (. for the current folder)", **kwargs):
        super().__init__(*args, **kwargs)
        self.empty = empty

    def convert(self, value, param, ctx):
        if isinstance(value, str) and value == "":
            self.fail(f"the path is empty: {self.empty}", param, ctx)
        return super().convert(value, param, ctx)


def common_store_options(func):
    """--preset and --config, taken by every command that reads a store."""
    from memlint.presets import PRESET_NAMES

    func = click.option("--config", "config_file", type=NamedPath(dir_okay=False, path_type=Path, empty="name the config file"), help="Config file (default: .memlint.yaml or pyproject.toml [tool.memlint], found upwards).")(func)
    func = click.option("--preset", type=click.Choice(PRESET_NAMES), help="Store layout (default: from config, else detected).")(func)
    return func


def require_stores(stores: list, paths, command: str) -> None:
    """A command that reads stores, named only files in none: say so (exit 2)
    rather than print an empty result."""
    if not stores:
        where = paths[0] if paths else "."
        raise UsageError(f"{where}: in no memory store; name a store's folder: memlint {command} PATH")


def output_option(help_text: str):
    """``--output/-o FILE``: a file, never a folder (``out/`` is refused, not
    written as a file named ``out``); ``-`` is standard output (None)."""
    def to_path(ctx, param, value):
        if value is None or value == "-":
            return None
        if value.endswith(("/", os.sep)) or (os.altsep and value.endswith(os.altsep)):
            raise click.BadParameter(f"{value!r} names a folder: name the file to write", ctx=ctx, param=param)
        return Path(value)

    return click.option("--output", "-o", type=NamedPath(dir_okay=False, allow_dash=True,
                                                         empty="name the file to write (- for standard output)"),
                        callback=to_path,
                        help=help_text)


def write_output(output: Path, text: str, stores) -> None:
    """Write a command's report to ``output`` atomically. A file a store reads
    is refused, not replaced (the root index, a memory: this is a report, not
    a fix); a new markdown file that lands where a store will read it is
    written, with a warning: the next check would judge it as a memory."""
    from memlint.atomic import write_text_atomic

    try:
        target = output.absolute().resolve()
    except RuntimeError:  # Path.resolve before Python 3.13: a symbolic link loop
        raise UsageError(f"{output}: a symbolic link loop: the report cannot be written there") from None
    from memlint.config import config_candidates, is_config_file

    if _in_git_folder(target):  # `-o .git/HEAD` would leave no repository behind
        raise UsageError(f"{output} is inside a git repository's own folder (.git, or a bare repository): "
                         "not written there; write the report elsewhere")
    stores = [*stores, *_store_around(target, stores)]
    for store in stores:  # what configures a store is no place for a report either
        from memlint.rules.frontmatter_schema import schema_path

        read = [store.config.path, schema_path(store)]
        if any(path is not None and Path(path).absolute().resolve() == target for path in read):
            raise UsageError(f"{output} configures the store {_folder_of(store)}: not "
                             "replaced by this report; write it elsewhere")
        if target.name != "pyproject.toml" and target in config_candidates(store.dir, on_disk=False):
            raise UsageError(f"{output} would configure the store {_folder_of(store)} "
                             "(memlint reads its settings from there): write the report elsewhere")
    # the settings of a store this run did not check
    if is_config_file(target):
        raise UsageError(f"{output} is where memlint reads its settings: not replaced by this report; "
                         "write it elsewhere")
    store, rel = _read_by_store(output, stores)
    if store is not None and os.path.lexists(output) and not _an_earlier_report(output, text):
        exclude = "" if store.docs.get(rel) is not None and store.docs[rel].role in ("root", "index") else (
            f", or keep reports there with `exclude: [{rel}]` in the config")
        raise UsageError(f"{output} is a file of the store {_folder_of(store)}: not replaced "
                         f"by this report; write it elsewhere{exclude}")
    write_text_atomic(output, text)
    if store is not None:
        say(f"{output} is inside the store {_folder_of(store)}: the next "
            f"check reads it as a memory; write it elsewhere, or add `exclude: [{rel}]` to the config")


def _in_git_folder(target: Path) -> bool:
    """Whether a path lies in a repository's own folder: a ``.git``, or one
    laid out as git lays it out (a bare "dotfiles" repository, ``repo.git``)."""
    if ".git" in target.parts:
        return True
    return any((folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir()
               for folder in target.parents)


def _folder_of(store) -> str:
    """The store's folder as the user can find it: its path in the
    repository, or from the current folder when that says nothing (".")."""
    shown = store.shown(store._repo_path(store.dir))
    return shown if shown != "." else os.path.relpath(store.dir)


def _store_around(target: Path, stores) -> list:
    """The store whose folder holds ``target`` (its root index, a memory, its
    schema) when no store of this run does: a report must not replace
    another store's files either."""
    if any(target.is_relative_to(store.dir) for store in stores):
        return []
    from memlint import config as config_mod
    from memlint.store import Store

    try:
        conf = config_mod.load(config_mod.find_config_file(target.parent))
        key = _store_of_file(target, conf)
    except (config_mod.ConfigError, OSError):
        return []  # a store memlint cannot read is judged when it is checked
    if key is None:
        return []
    return [Store(key[0], key[1], conf)]


def _an_earlier_report(output: Path, text: str) -> bool:
    """Whether ``output`` starts as ``text`` does (its first line): the
    report a run of the same command wrote there before, which a rerun may
    replace (a scheduled job writes it again), unlike any other file."""
    first = text.split("\n", 1)[0].encode("utf-8", "surrogateescape")
    try:
        with open(output, "rb") as fh:
            return bool(first) and fh.readline().rstrip(b"\r\n") == first
    except OSError:
        return False


def _read_by_store(output: Path, stores) -> tuple:
    """(the store that reads ``output`` as one of its files, its path there), or (None, None)."""
    from memlint.store import walks_into

    target = output.absolute().resolve()  # a link named link.txt to MEMORY.md is MEMORY.md
    if target.suffix.lower() != ".md":
        return None, None
    for store in stores:
        if not target.is_relative_to(store.dir):
            continue
        rel = target.relative_to(store.dir).as_posix()
        # (as the store lists its files: a markdown name, in a folder it walks into, that its globs keep)
        if target.name.endswith(".md") and walks_into(store.dir, target.parent) and store.chooses(rel):
            return store, rel
    return None, None


def _staged_config(folder: Path, loaded: dict):
    """The config a commit of ``folder``'s store is judged by: the one found
    upwards, as the index holds it. A config file git does not track does
    not count (as an untracked memory does not), and an edit not staged is
    not read; a config outside any repository is read from disk."""
    from memlint import config as config_mod
    from memlint.store import _find_git_root

    # Every file a hook names asks: one answer per folder, and per set of candidates.
    by_folder = loaded.setdefault("staged config by folder", {})
    if folder in by_folder:
        return by_folder[folder]
    # the index's, deleted on disk or not: a commit of a config removed from disk only still holds it
    root = _find_git_root(folder.resolve())
    candidates = config_mod.config_candidates(folder, on_disk=root is None)
    found_for = loaded.setdefault("staged config of", {})
    if tuple(candidates) not in found_for:
        found_for[tuple(candidates)] = _staged_config_of(candidates, folder, loaded)
    by_folder[folder] = found_for[tuple(candidates)]
    return by_folder[folder]


def _staged_config_of(candidates: list, folder: Path, loaded: dict):
    from memlint import config as config_mod
    from memlint.config import ConfigError
    from memlint.store import _find_git_root, _git, _read_blobs

    root = _find_git_root(folder.resolve())
    if root is None or not candidates:
        found = config_mod.find_config_file(folder)
        if found not in loaded:
            loaded[found] = config_mod.load(found)
        return loaded[found]
    rel = {path: path.relative_to(root).as_posix() for path in candidates if path.is_relative_to(root)}
    listing = _git(root, "ls-files", "--stage", "-z", "--full-name", "--", *rel.values()) if rel else b""
    staged_blob = {}
    for record in listing.split(b"\0"):
        meta, _, name = record.partition(b"\t")
        if name:
            mode, blob = meta.split()[:2]
            # a symbolic link's blob is its target's name: the file it names is read, from disk
            staged_blob[name.decode("utf-8", "surrogateescape")] = "link" if mode == b"120000" else blob.decode()
    for path in candidates:
        blob = staged_blob.get(rel.get(path, ""))
        if blob is None:
            continue  # untracked: not in the commit
        key = (path, blob)
        if blob == "link" and key not in loaded:
            loaded[key] = config_mod.load(path) if path.name != "pyproject.toml" or config_mod._pyproject_section(path) \
                is not None else None
        if key not in loaded:
            try:
                text = _read_blobs(root, {blob})[blob].decode("utf-8")
            except UnicodeDecodeError as exc:
                raise config_mod.not_utf8(path, exc) from None
            if path.name == "pyproject.toml" and config_mod._pyproject_section(path, text) is None:
                loaded[key] = None
            else:
                loaded[key] = config_mod.load(path, text=text)
        if loaded[key] is not None:
            return loaded[key]
    return config_mod.load(None)


def build_stores(paths, preset, config_file, today=None, staged=False, cache=False):
    """Load config and every store the paths name.

    Returns the stores; each one's ``only_paths`` is the set of repo-relative
    files to report on when only files of it were named, else None (its
    folder, or a folder above it, was named: the whole store).
    ``staged`` reads each store from the git index (what the next commit
    holds) instead of the working tree. ``cache`` uses memlint.cache.
    """
    from memlint import config as config_mod
    from memlint.store import Store, _find_git_root, discover, sparse_index, walks_into

    paths = [Path(p) for p in (paths or (".",))]
    configs: dict = {}

    def config_for(folder: Path):
        """--config for everything, else the config each folder finds upwards (loaded once)."""
        if staged and not config_file:
            return _staged_config(folder, configs)
        found = Path(config_file) if config_file else config_mod.find_config_file(folder)
        if found not in configs:
            configs[found] = config_mod.load(found)
        return configs[found]

    indexes: dict = {}  # repository top -> its index when a staged run finds stores there too, else None

    def index_for(folder: Path):
        """Where a run judging the commit finds stores besides the work
        tree: the index of a sparse checkout, which leaves some out of it."""
        if not staged:
            return None
        top = _find_git_root(folder.absolute())
        if top not in indexes:
            indexes[top] = sparse_index(top) if top is not None else None
        return indexes[top]

    for p in paths:
        if not p.exists() and not p.is_symlink():
            index = index_for(next((up for up in p.absolute().parents if up.exists()), Path("/")))
            if index is None or not index.is_folder(p):  # (a folder a sparse checkout leaves out: the commit's)
                raise UsageError(f"{p}: no such file or folder")

    stores: dict[tuple[Path, str], Store] = {}

    def store_at(key):
        if key not in stores:
            stores[key] = Store(key[0], key[1], config_for(key[0]), preset=preset, today=today, staged=staged,
                                cache=cache)
        return stores[key]

    owners: dict = {}  # folder of a file named -> the store its files belong to, or None
    named_whole: set = set()  # stores a folder was named for: reported whole
    files_named: dict = {}  # store key -> the repo-relative files named in it
    named_alone: dict = {}  # store key -> those of them named as files, not through a folder
    for p in paths:
        if p.is_dir() or not os.path.lexists(p):  # (not on disk: a folder of the index, as checked above)
            conf = config_for(p)
            found = discover(p, conf, index=index_for(p))
            if not found and conf.root is not None:
                raise UsageError(f"{p}: not the memory store {config_mod.where_is(conf, ('root',))} names (root: {conf.data['root']}), nor a "
                                 f"folder above it; a store of its own needs a .memlint.yaml of its own there")
            key = _enclosing_store(p, conf, found, index_for(p))
            if key is not None:  # a folder inside a store: judged as a file in it is, in that store
                store = store_at(key)
                inside = store._repo_path(p.resolve()) + "/"
                files_named.setdefault(key, set()).update(
                    path for path in (store._repo_path(store.dir / f.rel) for f in store._files) if path.startswith(inside))
                for own in found:  # a store below it the outer one does not walk into (a hidden folder, a submodule)
                    if own != key and not walks_into(key[0], own[0]):
                        store_at(own)
                        named_whole.add(own)
                continue
            if not found:
                index = sparse_index(p)  # (only now: a message)
                held = [(folder, name) for folder, name in (discover(p, conf, index=index) if index else ())
                        if index.left_out(folder / name)]
                if held:
                    folder, name = held[0]
                    again = "" if str(p) == "." else " " + shlex.quote(str(p))
                    raise UsageError(f"{p}: no memory store in the work tree: the sparse checkout leaves out "
                                     f"{_shown_folder(folder)} ({index.left_out(folder / name)} brings it in; "
                                     f"`memlint check --staged{again}` judges it as committed)")
                raise UsageError(
                    f"{p}: no memory store found (looked for MEMORY.md, or INDEX.md beside NOW.md or a map of content, "
                    "also in .claude/memory); "
                    "name the root in .memlint.yaml (root: path/to/MEMORY.md)"
                )
            for key in found:
                store_at(key)
                named_whole.add(key)
        else:
            folder = p.absolute().parent
            if folder not in owners:  # the hook names many files of few folders: each folder looked up once
                owners[folder] = _store_of_file(p, config_for(folder), index=index_for(folder))
            key = owners[folder]
            if key is None:
                continue  # a markdown file outside any store: nothing to judge
            store = store_at(key)
            # a link is named as itself, in its folder's real place (`../mem/link.md`, a linked folder)
            named = p.resolve() if not p.is_symlink() else p.absolute().parent.resolve() / p.name
            files_named.setdefault(key, set()).add(store._repo_path(named))
            named_alone.setdefault(key, set()).add(store._repo_path(named))
    # A store named only through files reports on those; one whose folder
    # was named too (or another store's folder) is unaffected by it.
    for key, store in stores.items():
        store.only_paths = None if key in named_whole else frozenset(files_named.get(key, ()))
        store.named_alone = frozenset(named_alone.get(key, ())) if store.only_paths is not None else frozenset()
    if staged and _at_commit():
        # At a commit (pre-commit runs at the top of the repository making it), a store in
        # another repository below (a submodule, which the commit holds as one commit id, or a
        # nested repository) is not in the commit, and its findings could not be mended in it.
        committing = _find_git_root(Path.cwd().resolve())
        for key, store in list(stores.items()):
            if committing is not None and store.repo_root.resolve() != committing:
                del stores[key]
                say(f"{_shown_folder(store.dir)}: a store in another repository (a submodule, or one nested in "
                    "this one): not in this commit, so not judged")
    if staged:
        for key, store in list(stores.items()):
            if store.root_name in store.staged_files:
                continue
            root = store.shown(store._repo_path(store.dir / store.root_name))
            if not store._files or _ignored(store.repo_root, store.dir / store.root_name):
                # a store on disk git holds none of the files of (its own: not a README), or whose
                # root git is told to ignore: not part of the commit
                del stores[key]
                continue
            from memlint.gitrun import advice

            add = advice(store.repo_root, ["add"], [store._repo_path(store.dir / store.root_name)])
            raise UsageError(f"{root}: the store's root is not in the commit (untracked, or removed from the index), "
                             f"though other files of the store are: the committed store would have no root; "
                             f"`{add}`")
    from memlint.linter import name_stores

    found = list(stores.values())
    name_stores(found)
    if found and not any(store._files for store in found):
        # Leaving out a second store is the configuration's to do; leaving out every file of every
        # store named (a glob mistyped, a folder renamed) would make each run pass, checking nothing.
        store = found[0]
        key = "include" if store.config.data.get("include") is not None else "exclude"
        raise UsageError(f"{config_mod.where_is(store.config, (key,))}: include/exclude leave out every file of the "
                         f"store whose root is {store.shown(store._repo_path(store.dir / store.root_name))}, the root "
                         "too: nothing would be checked; correct the globs")
    for store in found:  # every command: what it judges or writes leaves these files out
        for folder, why in store.unlisted:
            say(f"{store.shown(store._repo_path(store.dir / folder))}: cannot list this folder ({why}): "
                "the markdown files in it are not checked")
    return found


def _ignored(repo_root: Path, path: Path) -> bool:
    """Whether git ignores ``path`` (.gitignore, info/exclude)."""
    from memlint import gitrun

    try:
        status, _, _ = gitrun.run(repo_root, ["check-ignore", "-q", "--no-index", "--", str(path)])
    except OSError:
        return False
    return status == 0


def _at_commit() -> bool:
    """Whether pre-commit runs this for a commit (or a merge's): it exports
    PRE_COMMIT=1 to every hook, and git names its index in GIT_INDEX_FILE
    for those hooks only (not for a `pre-commit run` by hand)."""
    return os.environ.get("PRE_COMMIT") == "1" and bool(os.environ.get("GIT_INDEX_FILE"))


def resolve_staged(flag: bool | None, paths) -> bool:
    """--staged as given; unset, on under pre-commit (it exports PRE_COMMIT=1
    to every hook) while git makes a commit or a merge (git names its index
    in GIT_INDEX_FILE for those hooks; a `pre-commit run` by hand judges the
    work tree, as every other hook does), when the first path is inside a
    git work tree."""
    if flag is not None:
        return flag
    if not _at_commit():
        return False
    from memlint.store import _find_git_root

    first = Path((paths or (".",))[0]).absolute()
    return _find_git_root(first if first.is_dir() else first.parent) is not None


def _shown_folder(folder: Path) -> str:
    """A folder as a message names it: from the current folder."""
    try:
        return os.path.relpath(folder)
    except ValueError:  # another drive
        return str(folder)


def _enclosing_store(folder: Path, conf, found: list, index=None) -> tuple | None:
    """The store a folder named on the command line (or the folder memlint
    runs in) lies inside, strictly, as a check of the whole repository finds
    it: its files are judged there, even when the folder has a root index of
    its own (that store's topic index, then). None for a store's own folder,
    a folder above the stores ``found`` in it, and outside git, where each
    file's store is its nearest (``_store_of_file``): those in it are their own."""
    if not found:  # no store in it: the one it is in, if any
        return _store_of_file(folder / "_", conf, index=index)
    here = folder.resolve()  # `team/sub/..` and a link to a folder of the store name the folder itself
    if conf.root is not None:  # the one store the configuration names
        top = found[0][0].resolve()
        return found[0] if here != top and here.is_relative_to(top) else None
    from memlint.store import _find_git_root

    if _find_git_root(here) is None:
        return None
    # (not a map of content above it: a check of the repository finds the store roots below it instead)
    key = _store_of_file(here / "_", conf, maps=False, index=index)
    return key if key is not None and key[0] != here else None


def _store_of_file(path: Path, conf, maps: bool = True, index=None):
    """The store a file named on the command line belongs to, as a check of
    the whole repository finds it (the pre-commit hook names files, CI the
    repository): the outermost folder above it with a root index whose walk
    reaches it (not past a hidden folder); outside git, the nearest. An
    INDEX.md beside a map of content only when there is no other (as
    discovery takes them; never with ``maps`` false)."""
    from memlint.presets import is_moc_root, is_store_root
    from memlint.store import SKIP_DIRS, _find_git_root, _WorkTreeAndIndex, discover

    if conf.root is not None:
        found = discover(path.parent, conf, index=index)
        return found[0] if found else None
    folder = path.absolute().parent
    top = _find_git_root(folder)
    store = moc = None
    either = _WorkTreeAndIndex(index) if index is not None else None  # a sparse checkout's, in a staged run
    for candidate in (folder, *folder.parents):
        name = either.root_of(candidate, maps=False) if either is not None else is_store_root(candidate)
        if name:
            store = (candidate.resolve(), name)
            if top is None:
                break
        if moc is None and (either.root_of(candidate, maps=True) if either is not None else is_moc_root(candidate)):
            moc = (candidate.resolve(), "INDEX.md")
        if candidate == top:
            break
        if store is not None and (candidate.name.startswith(".") or candidate.name in SKIP_DIRS):
            break  # a store further up does not walk into this folder
    return store or (moc if maps else None)


# Set by ``run``: memlint runs as the program, which ends when the command does
# (not in-process, as the tests and a library user run it).
_PROGRAM = False


def run() -> None:
    """The ``memlint`` program: ``main``, then leave without tearing down what
    the run built. A check keeps every file's parse alive to the end, and
    freeing those objects one by one at interpreter exit took 0.3 s on
    10,000 files, after the report was already written. Everything memlint
    writes is written (and its files renamed into place) before this point,
    but the cache: a process this one does not wait for writes it then
    (``memlint.deferred``).

    ``check`` run by the program turns the cycle collector off (``_PROGRAM``)."""
    global _PROGRAM
    from memlint import deferred

    _PROGRAM = True
    deferred.defer()  # the cache is written after the report, by a process not waited for
    try:
        main()
        code = 0
    except SystemExit as exc:  # what click's standalone mode (and sys.exit) end with
        code = exc.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # started with that descriptor closed (`>&-`): nothing to flush
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: as Python reports a failed flush at exit
            code = code or 120
    deferred.write_left()
    os._exit(code)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memlint")
def main():
    """Lint AI-agent memory stores: budgets, links, duplicates, dates, freshness."""
    # A run builds objects that all stay alive to the end (a parse per file);
    # at the default gen-0 threshold (700) the cycle collector ran thousands of
    # times over them: 0.5 s of a cold check on 10,000 files. Reference
    # counting still frees everything else at once. (The program, ``run``,
    # turns the collector off; this is for memlint run in-process.)
    gc.set_threshold(10_000, 10, 10)


@main.command()
@click.argument("paths", nargs=-1, type=NamedPath(path_type=Path))
@common_store_options
@click.option("--format", "fmt", type=click.Choice(["auto", "text", "json", "github", "sarif"]), default="auto", show_default=True, help="Output format; auto is github under GitHub Actions, else text.")
@click.option("--select", multiple=True, help="Only these rules (codes, names, tags or code prefixes, any case; comma-separated).")
@click.option("--ignore", multiple=True, help="Skip these rules (codes, names, tags or code prefixes).")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("--today", help="Date to judge ages and future dates from (YYYY-MM-DD; default today).")
@output_option("Write the report to a file instead of stdout (- for stdout).")
@click.option("--scope", type=click.Choice(["all", "file", "store"]), default="all", show_default=True, help="Only rules that judge one file at a time (file), or the whole store (store).")
@click.option("--staged/--no-staged", default=None, help="Lint what the next commit holds: the files and content of the git index; untracked files are left out. Default: on when pre-commit runs it for a commit (PRE_COMMIT=1 and git's GIT_INDEX_FILE).")
@click.option("--summary", is_flag=True, help="After the findings, count memories by status, stale, expired, superseded, in conflict (stderr unless --format text).")
@click.option("--since", metavar="REV", help="Judge the history from REV to HEAD too: append-only files rewritten since (MEM405).")
@click.option("--no-cache", is_flag=True, help="Do not read or write memlint's cache (.git/memlint, or the user cache folder); also MEMLINT_NO_CACHE=1.")
def check(paths, preset, config_file, fmt, select, ignore, strict, today, output, scope, staged, summary, since, no_cache):
    """Lint the memory stores at PATHS (default: the current folder).

    Files given as PATHS lint their whole store but report only on those files.
    """
    from memlint import reporters
    from memlint.finding import unique_sorted
    from memlint.linter import Selection, lint_stores
    from memlint.rules import all_rules
    from memlint.store import _find_git_root

    if _PROGRAM:
        # What a check builds lives to its end and holds no reference cycle
        # worth collecting: the collector's passes over the parses freed
        # nothing and cost a sixth of a check after a commit on 10,000 files
        # (0.25 s of 1.54), with the same peak memory. Only here, the hooks'
        # and CI's command, where it was measured.
        gc.disable()
    today_date = parse_today(today)
    staged = resolve_staged(staged, paths)
    stores = build_stores(paths, preset, config_file, today_date, staged=staged, cache=not no_cache)
    if not stores and not staged and paths and not any(Path(p).is_dir() for p in paths):
        # A mistyped path would pass as clean; the hooks name such files (a README) in passing: told, not failed
        more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""
        say(f"{paths[0]}{more}: in no memory store, so nothing was checked")
    for store in stores:
        # Asked for by name: an error, not the notice that the git rules were skipped (a CI job would pass)
        if since is not None and _find_git_root(store.dir) is None and not os.environ.get("GIT_DIR"):
            raise UsageError(f"--since needs a git repository; {store.dir} is not in one")
        store.since = since
    scopes = ("file", "store") if scope == "all" else (scope,)
    if select and not _split_keys(select):  # `--select "$RULES"` with RULES empty: not every rule
        raise UsageError("--select names no rule (it is empty); leave it out to run every rule")
    selection = Selection(select=_split_keys(select), ignore=_split_keys(ignore), scopes=scopes)
    for key in (*selection.select, *selection.ignore):
        _validate_rule_key(key)
    if (select or ignore or scope != "all") and not any(map(selection.wants, all_rules())):
        raise UsageError("no rule is left to run: --select, --ignore and --scope together exclude every rule")
    result = lint_stores(stores, selection)
    if fmt == "auto":
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    findings = result.findings
    if fmt in ("sarif", "github"):  # GitHub shows a result in a linked file only at the file the link names
        targets = {store.shown(link): store.shown(target) for store in stores
                   for link, target in store.link_targets().items()}
        if targets:
            findings = unique_sorted(replace(f, path=targets.get(f.path, f.path)) for f in findings)
    # Only SARIF lists the rules (importing them all costs time on a cached run).
    report = reporters.REPORTER_BY_NAME[fmt](findings, all_rules() if fmt == "sarif" else ())
    if summary:
        from memlint import summary as summary_mod

        text = summary_mod.render([summary_mod.summarize(s) for s in stores], result.exempted)
        if fmt == "text":
            report += ("\n" if report else "") + text
        else:  # machine-readable output must stay valid
            click.echo(text, err=True, nl=False)
    for notice in result.notices:
        say(notice)
    if output is not None:
        write_output(output, report, stores)
    else:
        emit(report, nl=False)
    failing = [f for f in result.findings if f.severity == "error" or strict]
    sys.exit(EXIT_FINDINGS if failing else EXIT_CLEAN)


def _validate_rule_key(key: str) -> None:
    from memlint import rules

    if any(rules.matches(r, (key,)) for r in rules.all_rules()):
        return
    raise UsageError(f"no rule, tag or code prefix matches {key!r} (see `memlint rules`)")


@main.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules_cmd(fmt):
    """List every rule: code, name, default severity, scope, summary."""
    from memlint.rules import all_rules, documentation

    rows = []
    for rule in all_rules():
        doc = documentation(rule)
        rows.append(
            {
                "code": rule.CODE,
                "name": rule.NAME,
                "severity": rule.SEVERITY,
                "scope": rule.SCOPE,
                "tags": list(getattr(rule, "TAGS", ())),
                "summary": doc.splitlines()[0] if doc else "",
            }
        )
    if fmt == "json":
        import json

        click.echo(json.dumps(rows, indent=2))
        return
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        click.echo(f"{r['code']}  {r['name']:<{width}}  {r['severity']:<7}  {r['scope']:<5}  {r['summary']}")


@main.command("rule")
@click.argument("code")
def rule_cmd(code):
    """Show one rule's documentation: what, why, options, an example, the fix."""
    from memlint import rules
    from memlint.config import yaml_flow
    from memlint.presets import PRESETS

    try:
        rule = rules.get(code)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    click.echo(f"{rule.CODE} {rule.NAME}  (default severity: {rule.SEVERITY}; scope: {rule.SCOPE}; tags: {', '.join(getattr(rule, 'TAGS', ())) or '-'})")
    click.echo("")
    click.echo(rules.documentation(rule))
    if rule.OPTIONS:
        click.echo("")
        click.echo("Options and their defaults:")
        for name, spec in rule.OPTIONS.items():
            per = {p: PRESETS[p].get("rules", {}).get(rule.NAME, {}).get(name, spec[1]) for p in PRESETS}
            if len({repr(v) for v in per.values()}) == 1:
                click.echo(f"  {name}: {yaml_flow(spec[1])}")
            else:
                click.echo(f"  {name}: " + ", ".join(f"{p} {yaml_flow(v)}" for p, v in per.items()))
    click.echo("")
    other = "error" if rule.SEVERITY == "warning" else "warning"  # an example that changes something
    click.echo(f"Configure in .memlint.yaml:  rules: {{{rule.NAME}: {{severity: {other}}}}}  or  {rule.CODE}: off")
    if rule.CODE in UNREADABLE_RULES:  # a directive in a file memlint cannot read as text is never read
        click.echo(f"Suppress for a file:         rules: {{{rule.CODE}: {{ignore: [\"path/to/file.md\"]}}}}  "
                   "(no directive inside it can be read)")
    elif rule.CODE in LINE_ONE_RULES or rule.CODE in PAST_A_CAP_RULES:
        click.echo(f"Suppress in a file:          <!-- memlint-disable-file {rule.CODE} --> (at the end of the file)")
    elif rule.CODE in ON_THE_LINE_RULES:
        click.echo(f"Suppress in a file:          <!-- memlint-disable-line {rule.CODE} --> (on the line itself)")
    elif rule.CODE in FRONTMATTER_LINE_RULES:
        click.echo(f"Suppress in a file:          # <!-- memlint-disable-next-line {rule.CODE} -->")
        click.echo("                             (above the frontmatter key's line: a YAML comment keeps the frontmatter valid;")
        click.echo(f"                             on line 1, a missing key: <!-- memlint-disable-file {rule.CODE} --> at the end of the file)")
    else:
        click.echo(f"Suppress in a file:          <!-- memlint-disable-next-line {rule.CODE} -->")


# Rules whose findings sit on line 1 (or a whole file): a comment above line 1
# would push frontmatter down, so `memlint rule` suggests disable-file.
LINE_ONE_RULES = {"MEM001", "MEM201", "MEM301", "MEM302", "MEM402", "MEM403",
                  "MEM002"}  # (a frontmatter that does not parse: its finding may sit on line 1 or 2)
# Rules whose finding sits on the first line past a cap, counted by number: a
# comment added above it becomes that line, and the finding moves onto the next.
PAST_A_CAP_RULES = {"MEM101", "MEM103", "MEM104"}
# Rules about files memlint cannot read as text: the config's ignore is the only way.
UNREADABLE_RULES = {"MEM006"}
# Rules whose findings sit on a frontmatter key's line: an HTML comment there
# would break the YAML, so `memlint rule` suggests one inside a YAML comment.
# Rules whose finding is on a changed line: a comment added above it is a change too, and takes the finding.
ON_THE_LINE_RULES = {"MEM405"}
FRONTMATTER_LINE_RULES = {"MEM003", "MEM004", "MEM303", "MEM401", "MEM404", "MEM501", "MEM502", "MEM503", "MEM504"}


if __name__ == "__main__":  # pragma: no cover
    main()

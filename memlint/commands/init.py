"""`memlint init`: a starting .memlint.yaml for the stores found here, and the pre-commit entry.

The preset is detected from the layout the same way `memlint check` detects
it; the file names it (and the root, when there is one store) so later runs
do not depend on detection, and lists the preset's defaults as comments to
edit. Existing files are never overwritten without --force.
"""
from __future__ import annotations

import io
import os
import posixpath
import shlex
import re
from pathlib import Path

import click

from memlint import __version__
from memlint.cli import NamedPath, UsageError
from memlint.config import yaml_flow
from memlint.rules._common import plural
from memlint.presets import PRESET_NAMES
from memlint.reporters import printable

HOOK_REPO = "https://github.com/memlint/memlint"
CONFIG_NAME = ".memlint.yaml"
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
SETTING_NOTES = {
    "frontmatter": "required | optional",
    "schema": "shipped schema name, or a path to your own JSON Schema",
    "wikilinks": "strict | dangling-ok | off",
    "backtick-refs": "`memory/x.md` in an index counts as a link",
    "index-depth": "root -> topic -> sub-topic -> memory",
    "exempt": "never orphans, nor judged as memories (read directly; templates)",
    "date-source": "git date: author | committer",
}


def hook_snippet(indent: str = "", args: list[str] | None = None) -> str:
    lines = [
        f"-   repo: {HOOK_REPO}",
        f"    rev: v{__version__}",
        "    hooks:",
        "    -   id: memlint",
    ]
    if args:  # the store's folder, for a hook that runs at the top of the repository
        lines.append(f"        args: {yaml_flow(args)}")
    return "".join(f"{indent}{line}\n" for line in lines)


def find_stores(folder: Path):
    """(store folder, root name) pairs under ``folder``, hidden well-known places included."""
    from memlint.config import Config
    from memlint.store import discover

    # A store in .claude/memory is taken over a map of content's guess (a docs folder laid out so)
    return discover(folder, Config(None, None, {}), maps=False) or discover(folder, Config(None, None, {}))


def render_config(folder: Path, stores, preset_override: str | None) -> str:
    """The text of .memlint.yaml for these stores."""
    from memlint.config import Config
    from memlint.presets import BASE_SETTINGS, PRESETS
    from memlint.rules import all_rules
    from memlint.store import Store

    loaded = [Store(d, name, Config(None, None, {}), preset=preset_override) for d, name in stores]
    presets = sorted({s.preset for s in loaded})
    out = [
        f"# memlint configuration ({HOOK_REPO}#configuration), written by `memlint init`.",
        "# Unknown keys and options are errors, so a typo fails loudly instead of being ignored.",
        "# `memlint rules` lists every rule; `memlint rule CODE` shows one, with its options.",
        "#",
    ]
    for store in loaded:
        root = (store.dir / store.root_name).relative_to(folder.resolve()).as_posix()
        counts = {role: len(store.by_role(role)) for role in ("memory", "index", "log")}
        out.append(
            f"# Detected: {printable(root)}, {'an' if store.preset[0] in 'aeiou' else 'a'} {store.preset} store "
            f"({plural(counts['memory'], 'memory')}, {plural(counts['index'], 'topic index')}, "
            f"{plural(counts['log'], 'daily log')})."
        )
        if store.settings["frontmatter"] == "required":
            bare = sum(1 for d in store.memories if d.parsed is not None and not d.parsed.frontmatter_lines)
            if bare:
                out.append(
                    f"#   {bare} of {counts['memory']} memories have no frontmatter; MEM001 reports them "
                    "(`frontmatter: optional` accepts that)."
                )
    out.append("")
    if len(presets) == 1:
        preset = presets[0]
        out.append(f"preset: {preset}")
    else:
        preset = None
        out.append(f"# preset: left out, so each store's layout is detected ({', '.join(presets)})")
    if len(loaded) == 1:
        store = loaded[0]
        root = (store.dir / store.root_name).relative_to(folder.resolve()).as_posix()
        try:
            root.encode("utf-8")
            out.append(f"root: {yaml_flow(root)}")
        except UnicodeEncodeError:  # a folder named in another encoding: YAML (UTF-8) cannot name it
            out.append(f"# root: left out: the path {printable(root)} is not UTF-8, so a configuration file "
                       "cannot name it; the root is found without it")
    out += [
        "",
        "# Files to read, relative to the store folder; README, CHANGELOG, CLAUDE.md and",
        "# AGENTS.md are always left out.",
        'include: ["**/*.md"]',
        "exclude: []",
        "",
    ]
    shown = preset or "claude-code"
    settings = {**BASE_SETTINGS, **PRESETS[shown]["settings"]}
    if preset is not None:
        out.append(f"# Store settings: the {shown} defaults, uncomment to change.")
    else:  # each store takes its own preset's defaults; a value set here applies to all of them
        out.append("# Store settings: each store takes its own preset's defaults. A value set here applies to")
        out.append(f"# every store: to change one store's, put a .memlint.yaml in its folder. The {shown} defaults:")
    for key, value in settings.items():
        if key == "root":
            continue
        note = SETTING_NOTES.get(key)
        line = f"# {key}: {yaml_flow(value)}"
        out.append(f"{line:<40}  # {note}" if note else line)
    out += ["", "# Rules: code or name -> off | warning | error, or a mapping with severity, ignore and options."
            + ("" if preset is not None else f" ({shown}'s shown; here too, a value applies to every store)"), "# rules:"]
    for rule in all_rules():
        options = {"severity": rule.SEVERITY, **{name: default for name, (_, default) in rule.OPTIONS.items()}}
        options.update(PRESETS[shown].get("rules", {}).get(rule.NAME, {}))  # the preset's severity, once
        body = "{" + ", ".join(f"{k}: {yaml_flow(v)}" for k, v in options.items()) + "}"
        out.append(f"#   {rule.NAME}: {body}   # {rule.CODE}")
    return "\n".join(out) + "\n"


def _no_link_out(path: Path) -> None:
    """Refuse to write through a symbolic link to a file outside the folder's
    repository (or the folder, outside one), or into what is no regular file
    (a FIFO would block forever): init writes only its own files."""
    from memlint.store import _find_git_root, _inside

    if path.exists() and not path.is_file():
        raise UsageError(f"{path}: not a regular file; not written")
    if not path.is_symlink():
        return
    top = (_find_git_root(path.parent.resolve()) or path.parent).resolve()
    target = path.resolve()
    if not _inside(target, top):
        raise UsageError(f"{path}: a symbolic link to {target}, outside the repository; not written through")


def plan_pre_commit_hook(path: Path, args: list[str] | None = None):
    """A function that adds the memlint hook to a pre-commit config and says
    what it did; a config memlint cannot edit safely is a UsageError raised
    here, before anything is written. A byte-order mark and each line's
    ending are kept; lines added end as most of the file's lines do.
    ``args``: the hook's arguments (the store's folder)."""
    from memlint.atomic import write_text_atomic

    _no_link_out(path)

    def done(text: str | None, message: str):
        def write() -> str:
            if text is not None:
                write_text_atomic(path, text)
            return message
        return write

    if not path.exists():
        return done("repos:\n" + hook_snippet(args=args), f"created {path.name} with the memlint hook")
    import yaml

    by_hand, snippet = "add the hook by hand:", hook_snippet(args=args)  # the snippet printed as it is, to paste
    raw = None
    try:
        raw = path.read_bytes().decode("utf-8")  # bytes: read_text would turn CRLF into LF unseen
        data = yaml.safe_load(raw)
    except Exception as exc:  # noqa: BLE001 - PyYAML raises more than YAMLError (`!!bool maybe`: KeyError)
        from memlint.frontmatter_yaml import load_yaml

        # the place and one line of why, as a config or frontmatter error says it
        error = load_yaml(raw.removeprefix("\ufeff"), 1, what="config")[1] if raw is not None else None
        if error is None:  # not UTF-8, or unreadable
            why = (str(exc).splitlines() or [type(exc).__name__])[0]
            raise UsageError(f"{path}: cannot read it as YAML ({why}); {by_hand}", snippet) from None
        # a place only where YAML gave one (`!!bool maybe` fails past the parse, with none)
        where = f"{path}:{error.line}:{error.column}" if isinstance(exc, yaml.MarkedYAMLError) else str(path)
        raise UsageError(f"{where}: cannot read it as YAML ({error.message.removeprefix('invalid YAML: ')}); "
                         f"{by_hand}", snippet) from None
    bom, text = raw.startswith("\ufeff"), raw.removeprefix("\ufeff")
    crlf = text.count("\r\n")
    eol = "\r\n" if crlf > text.count("\n") - crlf else "\n"  # a mixed file: the ending most lines have

    def as_written(new: str) -> str:
        return ("\ufeff" if bom else "") + new

    entry = {"repo": HOOK_REPO, "rev": f"v{__version__}",
             "hooks": [{"id": "memlint", **({"args": list(args)} if args else {})}]}
    if data is None:
        new = (text + (eol if text and not text.endswith("\n") else "")
               + ("repos:\n" + hook_snippet(args=args)).replace("\n", eol))
        if _reads_as(new, {"repos": [entry]}):
            return done(as_written(new), f"added the memlint hook to {path.name}")
        raise UsageError(f"{path}: cannot edit it safely (it holds no mapping); {by_hand}", snippet)
    repos = data.get("repos") if isinstance(data, dict) else None
    if not isinstance(repos, list):
        raise UsageError(f"{path}: has no `repos:` list; {by_hand}", snippet)
    for repo in repos:
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        # a linting hook (the backfill fixer alone lints nothing) that checks this folder
        if isinstance(hooks, list) and any(isinstance(h, dict) and str(h.get("id", "")).startswith("memlint")
                                           and h.get("id") != "memlint-backfill" and _covers(h.get("args"), args, path.parent)
                                           for h in hooks):
            return done(None, f"{path.name} already runs memlint: left unchanged")
    expected = {**data, "repos": [*repos, entry]}
    inserted = _inserted(text, eol, args, expected)
    if inserted is not None:  # the entry written after the others, in their style: not a byte of theirs changes
        return done(as_written(inserted), f"added the memlint hook to {path.name}")
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    try:  # ruamel is stricter than PyYAML (a duplicate key, say): its refusal is the user's to fix
        plain = text.replace("\r\n", "\n")  # rewritten whole: every line ends as most did
        _, indent, offset = load_yaml_guess_indent(plain)
        round_trip = YAML()
        round_trip.indent(mapping=indent - offset if offset else indent, sequence=indent, offset=offset)
        doc = round_trip.load(plain)
        doc["repos"].append(entry)
        buffer = io.StringIO()
        round_trip.dump(doc, buffer)
        if not _reads_as(buffer.getvalue(), expected):  # an alias: the entry would land in another key too
            raise ValueError("the rewritten file would change more than `repos:`")
    except Exception as exc:  # noqa: BLE001
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"{path}: cannot edit it safely ({first}); {by_hand}", snippet) from None
    return done(as_written(buffer.getvalue().replace("\n", eol)), f"added the memlint hook to {path.name}")


def _reads_as(text: str, expected) -> bool:
    import yaml

    try:
        return yaml.safe_load(text) == expected
    except (yaml.YAMLError, RecursionError):
        return False


def _inserted(text: str, eol: str, args: list[str] | None, expected) -> str | None:
    """``text`` with the memlint entry added as the last of the block list
    under its top-level ``repos:``, indented as the entries there are (``[]``,
    an empty flow list, is replaced by the entry alone), when that reads back
    as ``expected``; None otherwise (a flow list with entries, an alias...).
    The list ends at the next top-level key, a ``...`` or ``---`` marker, or
    the end; comments and blank lines after its last entry stay where they
    are. The lines added end with ``eol``; no other line changes."""
    lines = re.findall(r"[^\n]*\n|[^\n]+", text)  # each with its own ending
    content = [line.rstrip("\r\n") for line in lines]
    key = r"""(?:repos|"repos"|'repos')[ \t]*:"""
    starts = [i for i, line in enumerate(content) if re.match(rf"{key}(\s|$)", line)]
    if len(starts) != 1:
        return None
    start = starts[0]
    end = next((i for i in range(start + 1, len(lines)) if content[i].strip() and content[i][0] not in " \t#"
                and not re.match(r"-(\s|$)", content[i])), len(lines))
    item, gap, hook_item, hook_gap = "", "   ", "    ", "   "  # hook_snippet's, for a list with no entry yet
    empty = re.match(rf"({key})[ \t]*\[[ \t]*\]([ \t]*)(#.*)?$", content[start])
    if empty:
        if any(content[i].strip() and not content[i].lstrip().startswith("#") for i in range(start + 1, end)):
            return None
        lines[start] = empty.group(1) + ((empty.group(2) or " ") + empty.group(3) if empty.group(3) else "") \
            + lines[start][len(content[start]):]
        places = [start + 1]
    elif re.match(rf"{key}([ \t]+[&!][^\s#]*)*[ \t]*(#.*)?$", content[start]):  # an anchor or a tag, kept
        block = range(start + 1, end)
        first = next((m for m in (re.match(r"( *)-( +)[^\s#]", content[i]) for i in block) if m), None)
        if first is None:
            return None
        item, gap = first.group(1), first.group(2)
        hook = next((m for m in (re.match(r"( *)-( +)id:", content[i]) for i in block) if m), None)  # the hooks' style
        inner = " " * (len(item) + 1 + len(gap))
        hook_item, hook_gap = (hook.group(1), hook.group(2)) if hook else (inner, gap)
        last = max(i for i in block if content[i].strip() and not content[i].startswith("#"))
        places = [last + 1] + ([end] if end != last + 1 else [])  # before the comments after it, else after them
    else:
        return None
    inner = " " * (len(item) + 1 + len(gap))
    entry = [f"{item}-{gap}repo: {HOOK_REPO}", f"{inner}rev: v{__version__}", f"{inner}hooks:",
             f"{hook_item}-{hook_gap}id: memlint"]
    if args:
        entry.append(f"{hook_item} {hook_gap}args: {yaml_flow(args)}")
    for at in places:
        before = lines[:at]
        if before and not before[-1].endswith("\n"):  # the last line had no ending: it gets one
            before[-1] += eol
        new = "".join(before) + "".join(line + eol for line in entry) + "".join(lines[at:])
        if _reads_as(new, expected):
            return new
    return None


def _config_above(folder: Path) -> Path | None:
    """The config file in a folder above ``folder`` that configures the
    stores in it now (a ``root`` it names elsewhere configures none of
    them), or None."""
    from memlint.config import ConfigError, find_config_file, load
    from memlint.store import discover

    try:
        above = find_config_file(folder)
        if above is None or above.parent == folder or not folder.is_relative_to(above.parent):
            return None
        conf = load(above)
        if conf.root is not None and not discover(folder, conf):
            return None  # it names one store, not these: a config here hides nothing
    except ConfigError:
        return None  # one that does not load is check's to report
    return above


def _covers(hook_args, folders, top: Path) -> bool:
    """Whether a hook run with ``hook_args`` (from ``top``, the repository's
    top) checks the store folder ``folders`` names (none: ``top``): it names
    no folder (the whole repository), or that one or a folder above it.
    Arguments that are no folder (an option's value: `--format github`) are
    not taken for one. (`init --pre-commit team/memory` beside a hook for
    `memory` alone once said the hook was there, and team/memory was never
    checked.)"""
    named = [posixpath.normpath(str(a)) for a in hook_args or ()
             if not str(a).startswith("-") and (top / str(a)).is_dir()]
    if not named or "." in named:
        return True
    wanted = (folders or ["."])[0]
    return any(wanted == n or wanted.startswith(n + "/") for n in named)


@click.command("init")
@click.argument("path", default=".", type=NamedPath(exists=True, file_okay=False, path_type=Path))
@click.option("--preset", type=click.Choice(PRESET_NAMES), help="Use this preset instead of the detected one.")
@click.option("--force", is_flag=True, help="Replace an existing memlint config file.")
@click.option("--pre-commit", "pre_commit", is_flag=True,
              help=f"Add the memlint hook to {PRE_COMMIT_CONFIG} (at the git root; created if missing) instead of printing it.")
def init(path, preset, force, pre_commit):
    """Write .memlint.yaml for the memory stores under PATH (default: here).

    Detects each store's preset from its layout, writes the detected settings
    and the preset's defaults as comments, and prints the pre-commit entry
    (or, with --pre-commit, adds it to .pre-commit-config.yaml).
    """
    from memlint.atomic import write_text_atomic
    from memlint.config import CONFIG_NAMES, _pyproject_section
    from memlint.store import _find_git_root

    folder = path.resolve()
    target = folder / CONFIG_NAME
    existing = [folder / name for name in CONFIG_NAMES if (folder / name).is_file()]
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file() and _pyproject_section(pyproject) is not None:
        existing.append(pyproject)
    keep = bool(existing) and not force
    if keep and (not pre_commit or preset):
        raise UsageError(f"{existing[0]} already holds memlint configuration; not overwritten (--force replaces it)")
    if existing and existing[0].name in CONFIG_NAMES:
        target = existing[0]  # --force: replace the file memlint reads, not a shadowing twin
    stores = [] if keep else find_stores(folder)  # a config kept is not read again: its root may name any file
    if not stores and not keep:
        from memlint.store import HIDDEN_STORE_FOLDERS

        raise UsageError(
            f"{path}: no memory store found (looked for MEMORY.md, or INDEX.md beside NOW.md or a map of content, "
            f"also in {' and '.join(HIDDEN_STORE_FOLDERS)}); run `memlint init` where the store is"
        )
    from memlint.config import ConfigError, find_config_file

    for store_dir, _ in stores:  # a config nearer a store wins: this one would say nothing to it
        try:
            nearer = find_config_file(store_dir)
        except ConfigError:  # a pyproject.toml that does not parse: check says so, not init
            continue
        if nearer is not None and nearer.parent != folder and nearer.parent.is_relative_to(folder):
            raise UsageError(f"{nearer} configures the store in {store_dir.relative_to(folder).as_posix() or '.'}, and "
                             f"would still (the nearest config wins): {target.name} here would be ignored for it; "
                             "edit that file, or run `memlint init --force` in its folder")
    above = None if keep or existing else _config_above(folder)
    if above is not None:
        if pre_commit and preset and not force:
            raise UsageError(f"{above} configures the stores here: --preset would need a config here, which would "
                             "hide it (the nearest config wins); set the preset there, or write one here with --force")
        if pre_commit and not force:  # the hook is what was asked for: the config above stays the one read
            keep, existing = True, [above]
        elif not force:
            raise UsageError(f"{above} configures the stores here now, and {target.name} here would hide it for them "
                             "(the nearest config wins): edit that file, or write one here anyway with --force")
        else:
            click.echo(f"memlint: {target.name} here hides {above} for these stores (the nearest config wins)", err=True)
    # pre-commit runs the hook at the top of the repository: a store in a
    # folder below it is named (its config file is found from there).
    top = _find_git_root(folder) or folder
    hook_args = [folder.relative_to(top.resolve()).as_posix()] if folder != top.resolve() else None
    # The hook's file is checked first: a refusal there leaves nothing half done.
    add_hook = plan_pre_commit_hook(top / PRE_COMMIT_CONFIG, hook_args) if pre_commit else None

    def shown(file: Path) -> str:  # as the user named the folder: `init memory/` wrote memory/.memlint.yaml
        return os.path.normpath(os.path.join(str(path), file.name))

    if keep and existing[0].parent != folder:  # --pre-commit below a config: it stays the one read
        click.echo(f"kept {os.path.relpath(existing[0])}: it configures the stores here (--force writes a "
                   f"{CONFIG_NAME} here, which hides it)")
    elif keep:  # --pre-commit with a configuration there already: it stays as it is
        click.echo(f"kept {shown(existing[0])}: it already holds memlint configuration (--force replaces it)")
    else:
        _no_link_out(target)
        write_text_atomic(target, render_config(folder, stores, preset))
        named = "" if folder == Path.cwd().resolve() else f" {shlex.quote(os.path.normpath(str(path)))}"
        click.echo(f"wrote {shown(target)} for {len(stores)} store{'s' if len(stores) != 1 else ''}; "
                   f"`memlint check{named}` lints with it")
        if pyproject in existing:  # read second: the new file hides it
            click.echo(f"memlint: {shown(target)} is read before {shown(pyproject)}, whose [tool.memlint] "
                       "no longer applies: remove it", err=True)
    if add_hook is not None:
        click.echo(add_hook())
    else:
        click.echo(f"\nTo lint every commit, add this to {PRE_COMMIT_CONFIG} (or run `memlint init --pre-commit`):\n")
        click.echo("repos:\n" + hook_snippet(args=hook_args), nl=False)

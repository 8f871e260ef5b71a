"""Run the rules over a store: stamp code, name and severity; apply suppressions."""
from __future__ import annotations

import difflib
import hashlib
import os
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable

from memlint import rules as rule_registry
from memlint import suppress
from memlint.config import ConfigError, glob_match, where_is
from memlint.finding import Finding, unique_sorted
from memlint.reporters import printable
from memlint.store import SPLIT_MIN, Store, _find_git_root, share_out

INTERNAL_CODE = "MEM000"
# Rules with these tags read git dates (directly, or through lifecycle and duplicates).
_HISTORY_TAGS = frozenset({"git", "dates", "lifecycle", "duplicates"})


@dataclass
class Selection:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    only_paths: frozenset[str] | None = None  # report only findings on these repo-relative paths
    scopes: tuple[str, ...] = ("file", "store")

    def wants(self, rule) -> bool:
        if rule.SCOPE not in self.scopes:
            return False
        if self.select and not rule_registry.matches(rule, self.select):
            return False
        return not (self.ignore and rule_registry.matches(rule, self.ignore))


@dataclass
class Result:
    findings: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # one-line messages for the user, not findings
    exempted: int = 0  # findings not reported because they sit on retired memories


def _problems(rule, store: Store, options: dict, only_paths: frozenset[str] | None = None, docs=None):
    """A rule's problems; a file rule's on ``docs`` if given (``_judged``), else on every file."""
    if rule.SCOPE == "file":
        for doc in _judged(store, only_paths) if docs is None else docs:
            yield from rule.check(doc, store, options)
    else:
        yield from rule.check(store, options)


def _judged(store: Store, only_paths: frozenset[str] | None, part: tuple[int, int] | None = None) -> list:
    """The files a file rule judges: with paths named, only those (a file rule
    reports on the file it is given); of ``part``, only that part's."""
    return [doc for doc in store.docs.values()
            if (only_paths is None or doc.path in only_paths) and (part is None or _in_part(doc, part))]


def _in_part(doc, part: tuple[int, int]) -> bool:
    """Whether ``doc`` is in part k of n of the files (``part``, (k, n)): by
    its blob id, so that the files of one content (whose local rules' cache
    entry is one, ``_local_outcomes``) are judged in one part; by its path
    when it has none (the cache off)."""
    k, n = part
    return (int(doc.blob[:8], 16) if doc.blob else zlib.crc32(doc.rel.encode("utf-8", "surrogateescape"))) % n == k


def lint_store(store: Store, selection: Selection | None = None) -> Result:
    selection = selection or Selection()
    store.start_history_early()  # most checks read git dates: git starts while the rules load
    try:
        return _lint_cached(store, selection)
    finally:
        store.end_history_early()  # when nothing took it


def _lint_cached(store: Store, selection: Selection) -> Result:
    if store.cache is None:
        return _lint_store(store, selection)
    # The cache holds the findings of a run with exactly these inputs, if any.
    from memlint import cache

    key = cache.findings_key(store, selection)
    held = store.cache.findings(key) if key is not None else None
    if held is not None and cache.probes_hold(store, held[1]):
        result = held[0]
        if store.cache.has_changes():
            store.cache.save()  # what listing the files learnt (the blobs' lengths)
        return Result(list(result.findings), list(result.notices), result.exempted)
    result = _lint_store(store, selection)
    history = store.__dict__.get("_history")
    moved = history is not None and store.git_head is not None and history.head != store.git_head
    # Not kept when a file was unreadable (it may be readable next time, unchanged), a commit landed
    # during the run (the findings are of a history the key, HEAD as the run began, does not name),
    # or a file was not the blob the key names (a first run's unchecked blob ids, ``_File.unchecked``).
    if key is not None and not store.read_failed and not moved and not store.blob_ids_corrected:
        store.cache.put_findings(key, (Result(list(result.findings), list(result.notices), result.exempted),
                                       cache.graph_probes(store)))
    store.save_cache()
    return result


def _content_tasks(store: Store, rules) -> list:
    """The per-file values the rules will ``memo`` (``content_memo`` in a rule
    module), to be computed while the files are read."""
    tasks = []
    for rule in rules:
        make = getattr(rule, "content_memo", None)
        if make is None:
            continue
        try:
            task = make(store, store.config.rule_config(rule, store.preset).options)
        except Exception:  # noqa: BLE001 - the rule itself reports it when it runs
            continue
        if task is not None and task[0] not in {kind for kind, _ in tasks}:
            tasks.append(task)
    return tasks


# Rules that read the link graph (``links``, ``graph``; a rule that reads
# the index routes of ``memlint.lifecycle`` says so: ``READS_ROUTES``) run in
# this process, which builds the graph once; every other rule may run in
# either (a rule that reads the graph unannounced is right there, only slower).
_GRAPH_TAGS = frozenset({"links", "graph"})


def _reads_graph(rule) -> bool:
    return bool(_GRAPH_TAGS.intersection(rule.TAGS)) or getattr(rule, "READS_ROUTES", False)


def _run_rules(store: Store, rules: list, only_paths: frozenset[str] | None) -> dict:
    """{rule code: its problems (a list), or why it failed (a string)}.

    On a big store, with another core free, a forked child takes rules too.
    This process runs the graph rules first, while the child starts on the
    others, heaviest first (``_heavy``); each then claims the next rule left
    (``share_out``; the duplicate rules as one, the local rules as two units,
    a half of the files each) until none is, so the two finish together
    whatever the rules cost on this store. The history is
    loaded before the fork (its thread must end first); what else both need
    (the names references resolve to, say) each makes, at once rather than
    one after the other. Neither sees what the other computed, so each
    rule's notices and the cache changes the child made come back with its
    problems and are taken in rule order: the result is the serial run's."""
    def alone() -> dict:
        return {code: problems for code, problems, _ in _run_group(store, rules, only_paths)[0]}

    if len(store.docs) < SPLIT_MIN or len(rules) < 2:
        return alone()
    if store.history_wanted:
        store.history_loaded()  # its thread must end before the fork
    here = [rule for rule in rules if _reads_graph(rule)]
    # The duplicate rules share their costliest work (the fingerprints, the
    # docs compared): they are claimed together, so it is done once.
    units: dict[str, list] = {}
    for rule in rules:  # the local rules too: they share one walk over the files (_local_outcomes)
        if rule not in here:
            unit = "duplicates" if "duplicates" in rule.TAGS else "local" if _is_local(rule) else rule.CODE
            units.setdefault(unit, []).append(rule)
    # Heaviest first, then the local rules, in two halves of the files (on a
    # store not checked before, as heavy as any unit: whichever process is
    # free takes the next half, and the two finish together), then the rest.
    pool = [(unit, None) for key, unit in units.items() if key != "local"]
    pool += [(units["local"], (k, 2)) for k in range(2)] if "local" in units else []
    pool.sort(key=lambda entry: 1 if entry[1] is not None else 0 if any(map(_heavy, entry[0])) else 2)
    if not pool:
        return alone()
    known = list(store.notices)
    ran_here: list = []
    ran, built_graph = share_out(
        len(pool), lambda i: _run_group(store, pool[i][0], only_paths, keep_config_errors=True, part=pool[i][1]),
        first=lambda poll: ran_here.extend(_run_group(store, here, only_paths, keep_config_errors=True,
                                                      between=poll)[0]),
        after=lambda: "graph" in store.__dict__,
    )
    outcomes = {code: (problems, notices) for code, problems, notices in ran_here}
    halves_agree = True  # no failure in either half of the files, and the same notices from both
    for i in range(len(pool)):
        unit_ran, changes = ran[i]
        for code, problems, notices in unit_ran:
            held = outcomes.get(code)
            if held is None:
                outcomes[code] = (problems, notices)
            else:  # the other half of the files
                halves_agree = (halves_agree and isinstance(held[0], list) and isinstance(problems, list)
                                and held[1] == notices)
                outcomes[code] = (held[0] + problems if halves_agree else problems, notices)
        if store.cache is not None:  # the child's made here too (this process's again: the same values)
            for method, args in changes:
                getattr(store.cache, method)(*args)
    if not halves_agree:
        # A failure, or a notice about a file: which file the serial run
        # would have met first, the halves cannot say. The local rules run
        # again here, over every file. (What the halves kept in the cache is
        # right all the same: each value is of its file's content, key and rules.)
        store.notices[:] = known  # (each rule's notices are in its outcome: given again below, in rule order)
        outcomes.update((code, (problems, notices)) for code, problems, notices
                        in _run_group(store, units["local"], only_paths, keep_config_errors=True)[0])
    if built_graph:
        store.graph  # noqa: B018 - the cache's findings key probes what the graph looked up
    for rule in rules:  # the configuration error the serial run stops on: the first in rule order
        if isinstance(outcomes[rule.CODE][0], ConfigError):
            raise outcomes[rule.CODE][0]
    store.notices[:] = known
    for rule in rules:  # each rule's notices where the serial run would have given them
        for notice in outcomes[rule.CODE][1]:
            store.notice(notice)
    return {code: problems for code, (problems, _) in outcomes.items()}


def _heavy(rule) -> bool:
    """The rules that usually cost most, claimed first: the body comparisons
    (near and exact duplicates) and the store rules that read git's diffs."""
    return {"duplicates", "content"} <= set(rule.TAGS) or (rule.SCOPE == "store" and "git" in rule.TAGS)


def _run_group(store: Store, rules, only_paths, *, keep_config_errors: bool = False,
               between=None, part=None) -> tuple[list, list]:
    """([(code, problems or failure, notices it gave)], the changes made to
    the cache), for ``_run_rules``. A ConfigError is raised, or with
    ``keep_config_errors`` kept as the rule's outcome (the two processes of
    a split run each meet the rules out of rule order). ``between()``, if
    given, is called after each rule (``share_out``'s poll)."""
    changes: list = []
    if store.cache is not None:
        store.cache.journal = changes
    ran = []
    docs = _judged(store, only_paths, part) if any(rule.SCOPE == "file" for rule in rules) else []
    try:
        reused = _local_outcomes(store, [rule for rule in rules if _is_local(rule)], docs)
        for rule in rules:
            before = len(store.notices)
            options = store.config.rule_config(rule, store.preset).options
            if rule.CODE in reused:
                ran.append((rule.CODE, reused[rule.CODE], []))
                continue
            try:
                problems = list(_problems(rule, store, options, only_paths, docs))
            except ConfigError as exc:
                if not keep_config_errors:
                    raise
                problems = exc
            except Exception as exc:  # noqa: BLE001 - reported as an internal-error finding
                problems = f"{type(exc).__name__}: {exc}"
            ran.append((rule.CODE, problems, store.notices[before:]))
            if between is not None:
                between()
    finally:
        if store.cache is not None:
            store.cache.journal = None
    return ran, changes


def _is_local(rule) -> bool:
    return rule.SCOPE == "file" and getattr(rule, "LOCAL", False)


def _local_outcomes(store: Store, rules: list, docs: list) -> dict[str, list]:
    """{rule code: its problems} for the ``LOCAL`` file rules (memlint.rules),
    each file's taken from the cache where its blob id, path, role and git
    dates are those of the run that kept them, under the same store-wide
    inputs (``cache.local_kind``). Empty, for the rules to run as usual,
    without the cache, without git dates to key on (the git rules' notice is
    given by running them), or when a rule fails: its failure is reported as
    usual."""
    cache = store.cache
    if not rules or cache is None or store.read_failed or not store.history_wanted:
        return {}
    from memlint import cache as cache_mod

    try:
        if not store.git_dates.usable:
            return {}
        kind = cache_mod.local_kind(store)
        options = [(rule, store.config.rule_config(rule, store.preset).options) for rule in rules]
    except Exception:  # noqa: BLE001 - a configuration error: the rules report it as usual
        return {}
    codes = [rule.CODE for rule in rules]
    checks = [(rule.CODE, rule.check, opts) for rule, opts in options]
    wanted = frozenset(codes)
    out: dict[str, list] = {code: [] for code in codes}
    kept = cache.table(kind, [doc.blob for doc in docs if doc.blob])  # blob -> {doc key: found}
    now: dict[str, dict] = {}  # the same, for the docs of this run
    judged: set[str] = set()  # blobs a rule ran on
    dates_key = _dates_key(store)
    covers: dict[frozenset, bool] = {}  # codes an entry judged -> whether they are all of these rules' (a few sets recur)
    notices = len(store.notices)
    blake2b = hashlib.blake2b
    try:
        for doc in docs:
            found = key = None
            blob = doc.blob
            if blob is not None:
                # (a file not decoded is scanned for secrets as it is on disk, unless it is a symbolic link)
                link = doc.parsed is None and os.path.islink(doc.location)
                key = blake2b(f"{doc.path}\0{doc.role}\0{doc.listing}\0{doc.size}\0{doc.problem}\0"
                              f"{doc.problem_line}\0{dates_key(doc)}\0{link}".encode("utf-8", "surrogateescape"),
                              digest_size=12).digest()
                held = kept.get(blob)
                found = held.get(key) if held else None
            if found is not None:
                judged_codes = found[0]
                full = covers.get(judged_codes)
                if full is None:
                    full = covers[judged_codes] = judged_codes >= wanted
            # found: (the codes judged, ((code, problems) for each that found any))
            if found is None:  # (content with no id, over the size cap: every time)
                found = (wanted, tuple(item for item in [(code, list(check(doc, store, opts)))
                                                         for code, check, opts in checks] if item[1]))
                if key is not None:
                    judged.add(blob)
            elif not full:  # judged by fewer rules than these (another selection)
                by_code = dict(found[1])
                for code, check, opts in checks:
                    if code not in found[0]:
                        by_code[code] = list(check(doc, store, opts))
                found = (wanted | found[0], tuple((code, listed) for code, listed in by_code.items() if listed))
                judged.add(blob)
            if key is not None:
                entries = now.get(blob)
                if entries is None:
                    now[blob] = {key: found}
                else:
                    entries[key] = found
            if found[1]:
                for code, listed in found[1]:
                    if code in out:
                        out[code].extend(listed)
    except Exception:  # noqa: BLE001 - run as usual, where a failure is reported as the rule's
        return {}
    if len(store.notices) != notices:
        del store.notices[notices:]
        return {}  # notices are given in rule order by the usual run (again: each is the rule's)
    cache.use_local_kind(kind)
    for blob, entries in now.items():  # only this run's docs: a renamed or re-dated file's old entry goes
        if blob in judged or entries.keys() != kept.get(blob, {}).keys():
            cache.put(kind, blob, entries)
    return out


def _dates_key(store: Store):
    """A function of a doc giving what its git dates are made of, for the
    local rules' cache key: the commits that added and last changed it (the
    dates are theirs), or, in a staged run, the dates themselves."""
    git = store.git_dates
    if store.staged:
        def key(doc):
            dates = git.of(doc)
            return (dates.created, dates.changed, dates.created_commit, dates.changed_commit)
        return key
    dates_of, repo_path = git.history.dates, git.repo_path

    def key(doc):
        found = dates_of(repo_path(doc))
        return None if found is None else f"{found.created_commit} {found.changed_commit}"
    return key


def _lint_store(store: Store, selection: Selection) -> Result:
    from memlint.lifecycle import is_retired
    from memlint.redaction import redact_findings

    result = Result()
    enabled = [rule for rule in rule_registry.all_rules()
               if store.config.rule_config(rule, store.preset).severity != "off" and selection.wants(rule)]
    _tell_named_but_off(store, selection)
    store.history_wanted = any(_HISTORY_TAGS.intersection(getattr(rule, "TAGS", ())) for rule in enabled)
    if not store.history_wanted:
        store.end_history_early()
    store.content_tasks = _content_tasks(store, enabled)
    by_path = {doc.path: doc for doc in store.docs.values()}
    suppressions: dict[str, suppress.Suppressions] = {}
    # Retired memories are kept for provenance, not loaded: content rules skip them.
    retired_exempt = tuple(store.settings.get("retired-exempt-rules") or ())
    outcomes = _run_rules(store, enabled, selection.only_paths)
    for rule in enabled:
        conf = store.config.rule_config(rule, store.preset)
        keys = rule_registry.keys_of(rule)
        skips_retired = bool(retired_exempt) and rule_registry.matches(rule, retired_exempt)
        problems = outcomes[rule.CODE]
        ignored = store.config_globs(conf.ignore) if conf.ignore else []  # store-relative, or from the config's folder
        if isinstance(problems, str):  # a bug in a rule must not hide every other finding
            result.findings.append(
                Finding(store.root.path if store.root else ".", 0, 0, INTERNAL_CODE, "internal-error", "error",
                        f"rule {rule.CODE} {rule.NAME} failed: {problems} (please report this)")
            )
            continue
        for problem in problems:
            if selection.only_paths is not None and problem.path not in selection.only_paths:
                continue
            doc = by_path.get(problem.path)
            if ignored and (glob_match(problem.path, conf.ignore) or (doc and glob_match(doc.rel, ignored))):
                continue
            if doc is not None and doc.parsed is not None:
                sup = suppressions.get(problem.path)
                if sup is None:
                    sup = suppressions[problem.path] = (suppress.parse(doc.parsed.text) if doc.parsed.may_hold_directives()
                                                        else suppress.Suppressions())
                if sup.hides(problem.line, keys):
                    continue
            if skips_retired and doc is not None and is_retired(doc, store.settings):
                result.exempted += 1
                continue
            result.findings.append(
                Finding(problem.path, problem.line, problem.column, rule.CODE, rule.NAME, conf.severity, problem.message)
            )
    _tell_unknown_directives(store, selection, suppressions)
    result.notices = list(dict.fromkeys([*result.notices, *store.notices]))
    result.findings.sort()
    # Rules quote file content; a pasted credential must not reach the output.
    result.findings = redact_findings(result.findings, lambda path: _secrets_in(by_path.get(path), store))
    return result


def _tell_named_but_off(store: Store, selection: Selection) -> None:
    """A rule ``--select`` names by its code or name that this store turns
    off (its config, or its preset) does not run: said, as nothing else
    would tell the user why it found nothing. (Named by a tag or a code
    prefix, a rule that is off is simply not among those run.)"""
    if not selection.select:
        return
    from memlint.gitdates import shown_folder

    named = {rule_registry._folded(key) for key in selection.select}
    for rule in rule_registry.all_rules():
        if ({rule.CODE, rule.NAME, *getattr(rule, "ALIASES", ())} & named and selection.wants(rule)
                and store.config.rule_config(rule, store.preset).severity == "off"):
            written = [key for key in (store.config.data.get("rules") or {}) if _names(str(key), rule)]
            source = (where_is(store.config, ("rules", written[0])) if written and store.config.path is not None
                      else "its config" if written else f"the {store.preset} preset")  # (none turns one off today)
            store.notice(f"{shown_folder(store.dir)}: {rule.CODE} {rule.NAME} is off for this store ({source}): "
                         "--select does not turn it on; give it a severity there to run it")


def _names(key: str, rule) -> bool:
    try:
        return rule_registry.get(key) is rule
    except Exception:  # noqa: BLE001 - no rule's key (validation has told already)
        return False


def _tell_unknown_directives(store: Store, selection: Selection, suppressions: dict) -> None:
    """A notice for each word of a ``memlint-disable`` directive that names no
    rule: a typo (``orphn``) that silently hides nothing."""
    for doc in store.docs.values():
        if doc.parsed is None or not doc.parsed.may_hold_directives():
            continue
        if selection.only_paths is not None and doc.path not in selection.only_paths:
            continue
        sup = suppressions.get(doc.path)
        if sup is None:
            sup = suppressions[doc.path] = suppress.parse(doc.parsed.text)
        seen: dict[str, tuple[int, str, int]] = {}  # word -> (first line, its directive, how many more)
        for line, kind, name in sup.unknown:
            first = seen.get(name)
            seen[name] = (line, kind, 0) if first is None else (first[0], first[1], first[2] + 1)
        for name, (line, kind, more) in seen.items():
            also = f" (and {more} more directive{'s' if more > 1 else ''} of the file)" if more else ""
            store.notice(f"{store.shown(doc.path)}:{line}: `memlint-{kind}` names {name!r}{also}, which is no rule's "
                         "code, name or tag, so it hides nothing (`memlint rules` lists them)")
        for line, kind in sup.misspelt:
            if kind in suppress.KINDS:  # the kind is right: what follows it holds a < or > (a link, say)
                store.notice(f"{store.shown(doc.path)}:{line}: `memlint-{kind}` holds a `<` or `>`, which a directive "
                             "may not (it ends at the comment's `-->`, and names rules only): it hides nothing")
                continue
            close = difflib.get_close_matches(kind, suppress.KINDS, n=1, cutoff=0.6)
            hint = (f"did you mean `memlint-{close[0]}`?" if close
                    else "the directives are " + ", ".join(f"`memlint-{known}`" for known in suppress.KINDS))
            store.notice(f"{store.shown(doc.path)}:{line}: `memlint-{printable(kind)}` is no memlint directive, so it "
                         f"hides nothing; {hint}")


def _secrets_in(doc, store: Store) -> list[str]:
    """The secrets in a file findings are on, for their redaction: none
    without a scan when MEM601's cached scan of the same content found none."""
    from memlint.redaction import secret_values
    from memlint.rules.secret_in_memory import found_nothing

    if doc is None or found_nothing(doc, store):
        return []
    return secret_values(doc.text)


def _outer_root() -> Path | None:
    """The repository the current folder is in, if any (and if it still exists)."""
    try:
        return _find_git_root(Path.cwd().resolve())
    except OSError:
        return None


def _in_git(store: Store) -> bool:
    return (store.repo_root / ".git").exists() or bool(os.environ.get("GIT_DIR"))


def name_stores(stores: list[Store]) -> None:
    """Set each store's ``shown_prefix``: when the stores live in different
    repositories (or outside any), its repository's folder relative to the
    current one, so no two files share a name; for a store in a repository
    nested in the current one (a submodule), its folder there, so the paths
    are the outer repository's; else None."""
    several_roots = len({store.repo_root for store in stores}) > 1
    outer = _outer_root()
    for store in stores:
        prefix = None
        if outer is not None and store.repo_root == outer:
            pass  # the current folder's repository: its paths, as in a run of it alone
        elif outer is not None and store.repo_root.is_relative_to(outer):
            prefix = store.repo_root.relative_to(outer).as_posix()  # a submodule: its folder in this repository
        elif several_roots:
            prefix = Path(os.path.relpath(store.repo_root)).as_posix()
            prefix = None if prefix == "." else prefix
        elif outer is None and not _in_git(store):
            # Outside any repository: named from the current folder when below it
            here = Path.cwd().resolve()
            if store.repo_root != here and store.repo_root.is_relative_to(here):
                prefix = store.repo_root.relative_to(here).as_posix()
        store.shown_prefix = prefix


def lint_stores(stores: Iterable[Store], selection: Selection | None = None) -> Result:
    """Lint every store. Paths are repo-relative; when the stores live in
    different repositories (or outside any), each path is prefixed with its
    repository's folder, relative to the current one, so none collide. A
    store in a repository nested in the current one (a submodule) is
    prefixed with its folder there: the paths are the outer repository's."""
    stores = list(stores)
    name_stores(stores)
    total = Result()
    selection = selection or Selection()
    for store in stores:
        own = store.only_paths  # files named in it (cli.build_stores), unless its folder was
        one = lint_store(store, selection if selection.only_paths is not None or own is None
                         else replace(selection, only_paths=own))
        if store.shown_prefix is not None:
            one.findings = [replace(f, path=store.shown(f.path)) for f in one.findings]
        total.findings.extend(one.findings)
        total.notices = list(dict.fromkeys([*total.notices, *one.notices]))
        total.exempted += one.exempted
    total.findings = unique_sorted(total.findings)
    return total

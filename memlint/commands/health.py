"""`memlint health` and `memlint triage`: rank memories by how sessions use them.

No model call: sessions (daily logs, transcripts, or git commits) go into an
SQLite FTS5 index under .git/memlint; each memory's keywords (filename,
name/title, tags) are weighted by inverse document frequency, so a word found
in most sessions cannot make a file look hot. Advisory: no memory file is
ever changed.
"""
from __future__ import annotations

import errno
import json
import os
import sqlite3
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timezone
from pathlib import Path

import click

from memlint.cli import NamedPath, build_stores, common_store_options, parse_today, require_stores
from memlint.gitdates import shown_folder
from memlint.gitrun import advice
from memlint.reporters import json_text, printable
from memlint.rules._common import plural
from memlint.sessions import open_regular

AUTO_MIN_HOURS = 24
AUTO_MIN_SESSIONS = 5
TOP_N = 5


@dataclass
class FileUse:
    path: str
    keywords: list[str]
    matched: list[str]
    hits: float
    sessions: int
    last_session: str | None
    days_since_changed: int
    changed_from: str  # "git" | "mtime" | "uncommitted"
    lines: int
    hotness: float = 0.0
    hot_class: str = ""


def triaged(doc) -> bool:
    """Whether triage judges this file: a memory, not one that lists others
    (archiving an index, even one with frontmatter, loses what it routes to)."""
    return doc.is_memory and not doc.listing


def _sessions_for(store, sessions_dir: Path | None, since: date | None = None):
    """Every session source the store has; git commits only as the fallback
    (from ``since`` on, a file a commit changed only the dates of is not
    one it used, as for ``days_since_changed``)."""
    from memlint import sessions as sess

    found = list(sess.sessions_from_logs(store.dir, [d.rel for d in store.by_role("log")]))
    if sessions_dir is not None:
        # A folder inside the store: its markdown is the store's (daily logs,
        # counted above; memories and files it leaves out, a README: never
        # sessions), and is not read; transcripts there are sessions.
        inside = Path(sessions_dir).resolve().is_relative_to(store.dir)
        found.extend(sess.sessions_from_dir(sessions_dir, skip=[] if inside else [store.dir], markdown=not inside))
    if not found and (store.repo_root / ".git").exists():
        under = os.path.relpath(store.dir, store.repo_root)
        found.extend(sess.sessions_from_git(store.repo_root, None if under == "." else under, exact_since=since,
                                            date_fields=store.settings.get("date-fields") or (), memo=store))
    return found


def _days_since_changed(store, doc, today: date) -> tuple[int, str]:
    git_dates = store.git_dates
    if git_dates.usable:  # no git, or a shallow clone's wrong dates: file times instead
        # a commit that only wrote dates (backfill's) is no change, as for MEM404
        content = store.__dict__.get("_content_changed")
        if content is None:
            content = store.__dict__["_content_changed"] = _content_changed(store)
        changed = content.get(git_dates.repo_path(doc))
        if changed is not None:
            return max(0, (today - changed).days), "git"
        return 0, "uncommitted"
    from memlint.sessions import mtime_date

    try:
        mtime = mtime_date(doc.abspath)  # the user's local day, as a session's (not UTC's: a day off east or west of it)
    except OSError:
        return 0, "mtime"
    return max(0, (today - mtime).days), "mtime"


def _content_changed(store) -> dict:
    """``GitDates.content_changed`` of the store's memories and indexes; where
    git cannot give the patches (a damaged repository: an object missing),
    the day of each file's last commit, and a line on stderr that says so."""
    from memlint.history import HistoryError

    git_dates, docs = store.git_dates, store.by_role("memory", "index")
    try:
        return git_dates.content_changed(docs)
    except HistoryError as exc:
        click.echo(f"memlint: {shown_folder(store.dir)}: {exc}: days since a change count from each file's last "
                   "commit, one that wrote only dates included", err=True)
        return {git_dates.repo_path(doc): git_dates.of(doc).changed for doc in docs}


def _title(doc) -> str | None:
    for key in ("name", "title"):
        value = doc.field(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _tags(doc) -> list[str]:
    tags = doc.field("tags")
    if isinstance(tags, str):
        return [t.strip() for t in tags.split(",") if t.strip()]
    if isinstance(tags, list):
        return [str(t) for t in tags if isinstance(t, (str, int))]
    return []


def index_since(today: date, window_days: int = 0) -> date:
    """The first day every command indexes the sessions from (``open_index``):
    one for health, triage and report, so they index the same sessions (which
    commits were upkeep) and weigh every keyword the same; back further only
    for a longer ``--window``."""
    from memlint import engagement as eng

    return eng.window_start(today, max(window_days, eng.HEALTH_WINDOW_DAYS, eng.TRIAGE_WINDOW_DAYS))


def open_index(store, sessions_dir: Path | None, since: date | None = None):
    """The store's session index, brought up to date: (index, number of
    sessions). ``since``: the first day of the windows it will be asked about."""
    from memlint.sessions import SessionIndex
    from memlint.statedir import state_dir

    all_sessions = _sessions_for(store, sessions_dir, since)
    path = None
    try:
        path = state_dir(store.repo_root, store.dir) / "sessions.db"
        index = SessionIndex(path)
        index.update(all_sessions)
    except (sqlite3.OperationalError, OSError) as exc:  # a state folder another user owns, a full disk
        click.echo(f"memlint: {path or 'the state folder'}: cannot be written ({exc}): the sessions are indexed in "
                   "memory, this run only", err=True)
        index = SessionIndex(Path(":memory:"))
        index.update(all_sessions)
    index.prune({s.id for s in all_sessions})
    return index, len(all_sessions)


def usage(store, index, today: date, window_days: int) -> list[FileUse]:
    """Per-file usage over one window, hotness included."""
    from memlint import engagement as eng

    uses = []
    # A store at the repository root has no folder in the paths its commits list: there, the path in the repository.
    at_root = store.dir == store.repo_root and (store.repo_root / ".git").exists()
    # The words of the store's own folders (moc/, .claude/memory/): every commit
    # of it names them, so MOC-tools.md's "moc" would match every commit as a session
    folders = {word for part in Path(os.path.relpath(store.dir, store.repo_root)).parts if part not in (".", "..")
               for word in eng._tokens(part)} if index.of_git() else set()
    with index.pinned():  # every file scored against the same sessions
        for doc in sorted(store.by_role("memory", "index"), key=lambda d: d.path):
            if doc.parsed is None:
                continue
            kws = [kw for kw in eng.keywords(doc.rel, _title(doc), _tags(doc)) if kw not in folders]
            # its path, as a session that opens or cites it writes it: `memory/project_kafka.md` (with
            # the store's folder: a phrase search finds `notes.md` inside `release-notes.md` too)
            e = eng.engagement(index, kws, today, window_days,
                               names=[doc.path if at_root else f"{store.dir.name}/{doc.rel}"])
            days, source = _days_since_changed(store, doc, today)
            uses.append(
                FileUse(doc.path, kws, list(e.matched), round(e.hits, 3), e.sessions,
                        e.last_session.isoformat() if e.last_session else None, days, source, doc.parsed.line_count)
            )
    max_hits = max((u.hits for u in uses), default=0.0)
    for u in uses:
        u.hotness = round(eng.hotness(u.hits, max_hits, u.days_since_changed), 3)
        u.hot_class = eng.hot_class(u.hotness)
    return uses


def build_usage(store, sessions_dir: Path | None, today: date, window_days: int):
    """(per-file usage, session index, number of sessions) for one store."""
    if store.git_dates.shallow:  # as check's MEM403 says it, once per store
        fetch = advice(store.repo_root, ["fetch", "--unshallow"], [])
        click.echo(f"memlint: {shown_folder(store.dir)}: shallow clone: days since a change come from file times, which a "
                   f"checkout resets; fetch the full history (`{fetch}`; in GitHub Actions "
                   "`fetch-depth: 0`)", err=True)
    index, n_sessions = open_index(store, sessions_dir, index_since(today, window_days))
    return usage(store, index, today, window_days), index, n_sessions


def triage_use(doc, use: FileUse, today: date, settings: dict):
    """The triage of one file from its usage (``build_usage`` over the
    triage window). A core memory (``priority`` 🔴, ``core``) is never
    advised ARCHIVE (the store says it never expires: MEM501, MEM502); what
    else applies to it (PRUNE, UPDATE) still does. A memory whose status
    retires it (``retired-statuses``: archived, superseded...) is archived
    already: KEEP, nothing to advise (an expired or superseded one still live
    is loaded, as `check` says: it is judged as any other)."""
    from memlint import engagement as eng
    from memlint.lifecycle import is_core, is_live

    last_days = (today - date.fromisoformat(use.last_session)).days if use.last_session else None
    head = "\n".join(doc.parsed.text.split("\n")[:50])
    return eng.triage(last_days, use.sessions, head, use.days_since_changed, use.lines,
                      archivable=not is_core(doc, settings), retired=not is_live(doc, settings))


def _health_options(func):
    func = click.option("--today", help="Date to compute ages from (YYYY-MM-DD; default today).")(func)
    func = click.option("--sessions", "sessions_dir", type=NamedPath(file_okay=False, exists=True, path_type=Path),
                        help="Folder of session transcripts (*.jsonl, *.md, *.txt).")(func)
    func = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)(func)
    func = common_store_options(func)
    func = click.argument("paths", nargs=-1, type=NamedPath(path_type=Path))(func)
    return func


@click.command()
@_health_options
@click.option("--window", "window_days", type=click.IntRange(1, 3650), default=30, show_default=True,
              help="Days of sessions that count as recent: the last N, today included.")
def health(paths, preset, config_file, fmt, sessions_dir, today, window_days):
    """Rank memory files HOT / WARM / COLD by how recent sessions use them."""
    from memlint.engagement import window_start

    today_date = parse_today(today) or date.today()
    stores = build_stores(paths, preset, config_file, today_date, cache=True)
    require_stores(stores, paths, "health")
    rows = []
    recent: set[str] = set()  # the sessions of the window: stores sharing --sessions share them
    unscored = 0  # files memlint cannot read (MEM006): no row, but counted in the heading
    for store in stores:
        uses, index, _ = build_usage(store, sessions_dir, today_date, window_days)
        unscored += _unreadable(store)
        # a shared --sessions folder's sessions are the same in every store; daily logs are each store's own
        recent |= {f"{store.dir}\0{sid}" if sid.startswith("log:") else sid
                   for sid in index.ids(since=window_start(today_date, window_days), until=today_date)}
        index.close()
        store.save_cache()
        # files named: only their rows (hotness is still relative to the whole store's)
        rows.extend(replace(u, path=store.shown(u.path)) for u in uses
                    if store.only_paths is None or u.path in store.only_paths)
    n_sessions = len(recent)
    rows.sort(key=lambda u: (-u.hotness, u.path))
    if fmt == "json":
        click.echo(json_text([vars(u) for u in rows]))  # flat: no deep copy needed
        return
    counts = {c: sum(1 for u in rows if u.hot_class == c) for c in ("HOT", "WARM", "COLD")}
    click.echo(f"{plural(len(rows), 'file')}, {plural(n_sessions, 'session')}, window {plural(window_days, 'day')}: "
               f"{counts['HOT']} HOT, {counts['WARM']} WARM, {counts['COLD']} COLD"
               + (f"; {plural(unscored, 'file')} not scored (unreadable: `memlint check` says why)" if unscored else ""))
    for u in rows:
        matched = ", ".join(u.matched) or "-"
        click.echo(f"{u.hot_class:<4}  {u.hotness:.2f}  {printable(u.path)}  hits {u.hits:.2f} in {plural(u.sessions, 'session')}; "
                   f"changed {u.days_since_changed}d ago ({u.changed_from}); matched: {matched}")


def _unreadable(store) -> int:
    """The memories and topics of ``store`` (those named, if any) memlint
    cannot read (MEM006), which health and triage score nothing for."""
    return sum(1 for doc in store.by_role("memory", "index") if doc.parsed is None
               and (store.only_paths is None or doc.path in store.only_paths))


@click.command()
@_health_options
@click.option("--all", "show_all", is_flag=True, help="Show every file, not only the top 5 needing attention (JSON always lists every file).")
@click.option("--auto", is_flag=True, help=f"Run only if >= {AUTO_MIN_HOURS} h since the last run and >= {AUTO_MIN_SESSIONS} new sessions.")
def triage(paths, preset, config_file, fmt, sessions_dir, today, show_all, auto):
    """Recommend ARCHIVE / PRUNE / UPDATE / KEEP per memory file (advisory only)."""
    from memlint import engagement as eng
    from memlint.atomic import write_bytes_atomic
    from memlint.lifecycle import is_live
    from memlint.statedir import state_dir

    today_date = parse_today(today) or date.today()
    now = datetime.combine(today_date, time(12), tzinfo=timezone.utc) if today else datetime.now(timezone.utc)
    stores = build_stores(paths, preset, config_file, today_date, cache=True)
    require_stores(stores, paths, "triage")
    results = []
    skipped = 0  # stores --auto left alone
    unscored = 0  # files memlint cannot read (MEM006), as health counts them
    for store in stores:
        try:
            folder = state_dir(store.repo_root, store.dir)
        except OSError:  # said when the sessions are indexed; the suggestions are still made
            folder = None
        state = _read_state(folder / "triage-state.json") if folder is not None else {}
        uses, index, n_sessions = build_usage(store, sessions_dir, today_date, eng.TRIAGE_WINDOW_DAYS)
        known = index.ids()
        index.close()
        store.save_cache()
        seen = state.get("seen")
        if isinstance(seen, list):  # the sessions the last run saw: new ones are those it did not
            new_sessions = len(known.difference(map(str, seen)))
        else:  # a state file from before the ids were kept: the count grew by as many
            new_sessions = max(0, n_sessions - int(state.get("sessions", 0)))
        if auto:
            last = state.get("last_run")
            hours = (now - datetime.fromisoformat(last)).total_seconds() / 3600 if last else None
            if hours is not None and hours < 0:
                hours = None  # a last run "in the future" (another --today, a clock since set back) blocks nothing
            if (hours is not None and hours < AUTO_MIN_HOURS) or new_sessions < AUTO_MIN_SESSIONS:
                why = (f"last run {hours:.0f} h ago (< {AUTO_MIN_HOURS} h)" if hours is not None and hours < AUTO_MIN_HOURS
                       else f"{plural(new_sessions, 'new session')} (< {AUTO_MIN_SESSIONS})")
                click.echo(f"memlint triage --auto: skipped for {shown_folder(store.dir)}: {why}", err=True)
                skipped += 1
                continue
        unscored += _unreadable(store)
        scored = []
        by_path = {d.path: d for d in store.docs.values()}
        for u in uses:
            if not triaged(by_path[u.path]):
                continue  # a topic index routes to memories: archiving it would lose them all
            if store.only_paths is not None and u.path not in store.only_paths:
                continue  # files named: only those
            t = triage_use(by_path[u.path], u, today_date, store.settings)
            scored.append({"path": store.shown(u.path), "recommendation": t.recommendation, "score": round(t.score, 3),
                           "retired": not is_live(by_path[u.path], store.settings),  # archived already: KEEP
                           "recency": t.recency, "recurrence": round(t.recurrence, 3),
                           "actionability": round(t.actionability, 3), "staleness": round(t.staleness, 3),
                           "sessions": u.sessions, "last_session": u.last_session,
                           "days_since_changed": u.days_since_changed, "lines": u.lines})
        scored.sort(key=_triage_rank)
        entry = {"time": now.isoformat(), "trigger": "auto" if auto else "manual", "store": str(store.dir),
                 "sessions_since_last_run": new_sessions, "files_scanned": len(scored),
                 "suggestions": [r for r in scored if r["recommendation"] != "KEEP"]}
        try:
            if folder is None:
                raise PermissionError(errno.EACCES, "no state folder could be made")
            state = json.dumps({"last_run": now.isoformat(), "sessions": n_sessions, "seen": sorted(known)}) + "\n"
            # memlint's own file: whatever else is found there (a FIFO) is replaced, not written through
            write_bytes_atomic(folder / "triage-state.json", state.encode("utf-8"), own_file=True)
            # One JSON line per run (always UTF-8); a FIFO there is refused, not waited on.
            with open(open_regular(folder / "triage-log.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab") as fh:
                fh.write((json_text(entry, indent=None) + "\n").encode("utf-8"))
        except OSError as exc:  # the suggestions are still printed
            where = exc.filename or folder if folder is not None else f"state of {shown_folder(store.dir)}"
            click.echo(f"memlint: {where}: cannot be written ({exc.strerror or exc}): this triage run is not "
                       "logged (so --auto counts every session as new)", err=True)
        results.extend(scored)
    results.sort(key=_triage_rank)  # one ranking over every store
    if fmt == "json":
        click.echo(json_text(results))
        return
    if skipped == len(stores):
        return  # nothing was scored: no "0 files scored" line, the reason is on stderr (JSON still gives [])
    attention = [r for r in results if r["recommendation"] != "KEEP"]
    retired = sum(1 for r in results if r["retired"])
    shown = results if show_all else attention[:TOP_N]
    click.echo(f"{plural(len(results), 'file')} scored: {len(attention)} need{'s' if len(attention) == 1 else ''} attention"
               + (f", {retired} already retired by {'its' if retired == 1 else 'their'} status (KEEP: nothing to advise)"
                  if retired else "")
               + (f"; {plural(unscored, 'file')} not scored (unreadable: `memlint check` says why)" if unscored else "")
               + ("" if show_all or len(attention) <= TOP_N else f" (top {TOP_N} shown; --all for every file)"))
    for r in shown:
        click.echo(f"{r['recommendation']:<7}  {r['score']:.2f}  {printable(r['path'])}{'  (retired)' if r['retired'] else ''}  "
                   f"R={r['recency']:.1f} Rc={r['recurrence']:.2f} "
                   f"A={r['actionability']:.2f} S={r['staleness']:.2f}  ({plural(r['sessions'], 'session')}, "
                   f"last {r['last_session'] or 'never'}, changed {r['days_since_changed']}d ago, {plural(r['lines'], 'line')})")


def _triage_rank(row: dict):
    """Files needing attention first, lowest score first; those retired already last."""
    return row["recommendation"] == "KEEP", row["retired"], row["score"], row["path"]


def _read_state(path: Path) -> dict:
    """The last triage's state; missing, corrupt or wrongly typed (it is only
    a cache, anyone can edit it): as on a first run."""
    try:
        with open(open_regular(path), "rb") as fh:  # a FIFO there is refused, not waited on
            data = json.loads(fh.read().decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    state = {}
    sessions = data.get("sessions")
    if isinstance(sessions, int) and not isinstance(sessions, bool) and sessions >= 0:
        state["sessions"] = sessions
    seen = data.get("seen")
    if isinstance(seen, list) and all(isinstance(item, str) for item in seen):
        state["seen"] = seen
    last = data.get("last_run")
    try:
        if isinstance(last, str) and datetime.fromisoformat(last).tzinfo is not None:
            state["last_run"] = last
    except ValueError:
        pass
    return state

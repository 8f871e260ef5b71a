"""The health dashboard: one markdown page per run, the INDEX.md pattern.

Totals on top, then one row per file an agent routes by or reads (the root,
topic indexes, memories; daily logs only counted), worst first, then a
Mermaid graph of root -> topics. Pure: the command gathers findings, usage
and triage and hands them in; nothing here reads sessions or prints.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from memlint.dates import parse_date
from memlint.evaluate import Walk
from memlint.graph import root_links_cut_off
from memlint.reporters import printable
from memlint.rules._common import plural
from memlint.summary import summarize

if TYPE_CHECKING:  # pragma: no cover
    from memlint.finding import Finding
    from memlint.store import Doc, Store

ATTENTION = ("ARCHIVE", "PRUNE", "UPDATE")  # triage recommendations that need a person
HEAT = ("HOT", "WARM", "COLD")
CREATED_FIELDS = ("created", "date")
VERIFIED_FIELDS = ("last_verified",)  # as memlint.lifecycle reads it
MAX_CELL = 60  # characters of a frontmatter value shown in a cell
# Mermaid: a topic listing more memories than this shows counts per prefix ("project* (27)").
MAX_LEAVES = 6


@dataclass(frozen=True)
class DateCell:
    value: str | None  # YYYY-MM-DD, or the frontmatter text when it is not a date
    source: str | None  # "frontmatter" | "git" | "uncommitted" | None


@dataclass
class Row:
    path: str  # repo-relative
    rel: str  # store-relative: what the table shows
    role: str  # root | index | memory
    kind: str  # type and/or priority
    status: str
    created: DateCell
    verified: DateCell
    reached: bool
    loaded: bool  # still reached when the root's lines past its load cap are dropped
    retired: bool = False  # status retired, as `check` and `--summary` count it (expired or superseded: Status says so)
    superseded: bool = False  # live, and another memory supersedes it: to be retired (MEM503), not filed (no MEM201)
    hot_class: str | None = None
    hotness: float | None = None
    triage: str | None = None
    errors: int = 0
    warnings: int = 0
    codes: tuple[tuple[str, int, bool], ...] = ()  # (code, findings, at error severity)
    listing: bool = False  # a memory that also lists others (role index): still a memory

    @property
    def findings(self) -> int:
        return self.errors + self.warnings

    @property
    def is_memory(self) -> bool:
        return self.role == "memory" or self.listing


@dataclass
class StoreReport:
    root: str  # repo-relative path of the root index (or the store folder)
    folder: str  # repo-relative store folder ("" at the repository root)
    repository: str  # name of the repository folder
    preset: str
    today: date
    rows: list[Row]
    totals: dict
    mermaid: str
    window_days: int
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- building


def build_store_report(
    store: "Store",
    findings: Sequence["Finding"],
    heat: Mapping[str, tuple[str, float]],
    triage: Mapping[str, str],
    *,
    sessions: int,
    window_days: int,
) -> StoreReport:
    """``heat``: repo-relative path -> (HOT/WARM/COLD, hotness); ``triage``:
    path -> recommendation; ``findings``: the store's findings after
    suppression."""
    by_path: dict[str, list] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    history = store.history
    graph = store.graph
    lifecycle = store.lifecycle
    stale = {rel for rel, *_ in lifecycle.stale()}
    walk = Walk(store)
    from memlint.lifecycle import is_live
    from memlint.redaction import link_redactor

    redact = link_redactor(store)  # frontmatter text a cell quotes may be a pasted token
    rows = []
    for doc in store.by_role("root", "index", "memory"):
        mine = by_path.get(doc.path, [])
        hot = heat.get(doc.path)
        created = _date_cell(doc, CREATED_FIELDS, store.git_dates, "created")
        verified = _date_cell(doc, VERIFIED_FIELDS, store.git_dates, "changed")
        rows.append(Row(
            path=doc.path,
            rel=doc.rel,
            role=doc.role,
            kind=redact(_kind(doc), doc.rel),
            status=redact(_status(doc, lifecycle, stale), doc.rel),
            created=replace(created, value=redact(created.value, doc.rel)) if created.value else created,
            verified=replace(verified, value=redact(verified.value, doc.rel)) if verified.value else verified,
            reached=graph.reachable(doc.rel),
            loaded=doc.rel in walk.parents_loaded,
            # by status, as `check` exempts it (retired-exempt-rules) and `--summary` counts it: an
            # expired memory still live may yet hold, so an unreached one is an orphan (MEM201)
            retired=doc.is_memory and not is_live(doc, store.settings),
            superseded=doc.is_memory and is_live(doc, store.settings) and doc.rel in lifecycle.newer,
            hot_class=hot[0] if hot else None,
            hotness=hot[1] if hot else None,
            triage=triage.get(doc.path),
            errors=sum(1 for f in mine if f.severity == "error"),
            warnings=sum(1 for f in mine if f.severity != "error"),
            codes=tuple((code, n, any(f.code == code and f.severity == "error" for f in mine))
                        for code, n in sorted(Counter(f.code for f in mine).items())),
            listing=doc.listing,
        ))
    rows.sort(key=worst_first)
    memories = [r for r in rows if r.is_memory]  # those that also list others too, as `check --summary` counts them
    codes = Counter(f.code for f in findings)
    totals = {
        "memories": len(memories),
        "indexes": sum(1 for r in rows if r.role == "index" and not r.listing),
        "listing": sum(1 for r in memories if r.listing),
        "logs": len(store.by_role("log")),
        "reached": sum(1 for r in memories if r.reached),
        "orphans": sum(1 for r in memories if not r.reached and not r.retired and not r.superseded),
        "past-cap": sum(1 for r in memories if r.reached and not r.loaded and not r.retired),
        "broken-links": codes.get("MEM202", 0),  # what `check` reports, in any file
        "errors": sum(1 for f in findings if f.severity == "error"),
        "warnings": sum(1 for f in findings if f.severity != "error"),
        "files-with-findings": len(by_path),
        "codes": dict(sorted(codes.items(), key=lambda kv: (-kv[1], kv[0]))),
        # Over every row scored (topic indexes are, as `memlint triage` scores them), so the counts are the rows'.
        "heat": {c: sum(1 for r in rows if r.hot_class == c) for c in HEAT},
        "unscored": sum(1 for r in rows if r.role != "root" and r.hot_class is None),  # unreadable: no heat, no triage
        "triage": {t: sum(1 for r in rows if r.triage == t) for t in (*ATTENTION, "KEEP")},
        "sessions": sessions,
        "dates": {
            "created": Counter(r.created.source or "unknown" for r in memories),
            "verified": Counter(r.verified.source or "unknown" for r in memories),
        },
        "root": root_load(store),
        "lifecycle": summarize(store),
    }
    root = store.root.path if store.root else store.dir.name
    notes = []
    if history is None:
        notes.append("no git history: dates come from frontmatter only")
    elif history.shallow:
        notes.append("shallow clone: git dates unknown, dates come from frontmatter only and heat from file times "
                     "(fetch the full history: `fetch-depth: 0`)")
    folder = store._repo_path(store.dir)
    folder = "" if folder in (".", "") or store.dir == store.repo_root else folder
    return StoreReport(root, folder, store.repo_root.name, store.preset, store.today, rows, totals,
                       mermaid_graph(store), window_days, notes)


def worst_first(row: Row):
    """Errors, then unreachable or past the root's cap (unless retired), then triage needing a person, then warnings,
    then cold, then the longest unverified."""
    triage_rank = 0 if row.triage in ATTENTION else 1
    heat_rank = {"COLD": 0, "WARM": 1, "HOT": 2}.get(row.hot_class or "", 3)
    # an unknown or unreadable date sorts as the oldest: nobody can say it was checked
    verified = row.verified.value if row.verified.source in ("frontmatter", "git") else "0000"
    return (-row.errors, row.loaded or row.retired or row.superseded, triage_rank, -row.warnings, heat_rank, verified,
            row.path)


def root_load(store: "Store") -> dict | None:
    """The root's size against the load cap its preset (and config) set."""
    from memlint.rules import root_budget

    root = store.root
    if root is None or root.parsed is None:
        return None
    options = store.config.rule_config(root_budget, store.preset).options
    caps = options["max-lines"], options["max-bytes"], options["max-chars"]
    text = root_budget.loaded_text(store, root)
    ranges = root_budget.hidden_ranges(text, *caps)
    lost = not root_budget.nothing_lost(text, ranges)
    hidden = set().union(*(range(a, b + 1) for a, b in ranges)) if lost else set()
    return {
        "lines": root.parsed.line_count,
        "bytes": len(text.encode("utf-8")),
        "chars": root_budget.loaded_chars(text),  # as OpenClaw counts them: trailing whitespace trimmed
        "max-lines": caps[0],
        "max-bytes": caps[1],
        "max-chars": caps[2],
        # as MEM101 judges it: blank lines past the cap lose nothing
        "first-hidden-line": ranges[0][0] if lost else 0,
        "hidden-lines": [list(r) for r in ranges] if lost else [],  # (first, last) of each span not loaded
        # its links above the cut whose reference definition is below it: loaded without their target (MEM101's)
        "links-cut-off": len(root_links_cut_off(store, hidden)),
        "budget-lines": options["budget-lines"],  # a thin root's budget below the cap (moc), or None
        "over-budget": not lost and root_budget.past_budget(text, options["budget-lines"]),
    }


# The three-layer priorities are bare emoji: say what each means, for readers
# (and fonts) that do not show colour.
PRIORITY_WORDS = {"🔴": "core", "🟡": "important", "🟢": "reference"}


def _kind(doc: "Doc") -> str:
    if not doc.is_memory:
        return doc.role
    parts = [_cell_value(doc.field(name), empty="") for name in ("type", "category")]
    priority = _cell_value(doc.field("priority"), empty="")
    if priority in PRIORITY_WORDS:
        priority = f"{priority} {PRIORITY_WORDS[priority]}"
    parts.append(priority)
    return " · ".join(p for p in parts if p) or "–"


def _status(doc: "Doc", lifecycle, stale: set[str]) -> str:
    """The status as written, with what the lifecycle adds: stale, expired, superseded."""
    from memlint.lifecycle import status_of

    written = status_of(doc)
    flags = [written] if written else []
    if doc.role == "memory":
        why = lifecycle.retired_because(doc.rel) or ""
        if why.startswith("superseded") and written != "superseded":
            flags.append("superseded")
        elif why.startswith("expired"):
            flags.append("expired")
        if doc.rel in stale:
            flags.append("stale" if written != "stale" else "")
    return _cell_value(" · ".join(f for f in flags if f))


def _cell_value(value, empty: str = "–") -> str:
    if value is None or value == "" or value == []:
        return empty
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value)
    text = " ".join(str(value).split())
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _date_cell(doc: "Doc", fields: Iterable[str], git, which: str) -> DateCell:
    for name in fields:
        value = doc.field(name)
        if value in (None, ""):
            continue
        try:
            return DateCell(parse_date(value).isoformat(), "frontmatter")
        except ValueError:
            return DateCell(_cell_value(value), "frontmatter-text")  # MEM004 says what is wrong
    if not git.usable:  # no git, or a shallow clone whose dates would be wrong
        return DateCell(None, None)
    when = getattr(git.of(doc), which)
    if when is None:
        return DateCell(None, "uncommitted")
    return DateCell(when.isoformat(), "git")


# ---------------------------------------------------------------- mermaid


def mermaid_graph(store: "Store") -> str:
    """Root -> topics as a Mermaid flowchart, drawn by `memlint graph`'s builder.

    A topic listing more than ``MAX_LEAVES`` memories shows them as counts per
    folder or filename prefix; a topic no one reaches sits in the orphans box
    as one node, without what it lists. Labels wrap at 480px, not Mermaid's
    200, because file names are long.
    """
    from memlint.graphview import build_view, render_mermaid

    view = build_view(store, MAX_LEAVES, expand_orphan_topics=False)
    return '%%{init: {"flowchart": {"wrappingWidth": 480}}}%%\n' + render_mermaid([view]).rstrip("\n")


# ---------------------------------------------------------------- markdown

_MD_SPECIAL = re.compile(r"([\\`*\[\]<>|&])")  # & too: "p&amp;.md" must not render as "p&.md"
_LOOSE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def cell(text: str) -> str:
    """Text safe inside a markdown table cell: one line, `|` and markup escaped."""
    text = printable(" ".join(str(text).split()))  # newlines and runs of blanks: one space; escapes shown
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _LOOSE_UNDERSCORE.sub(r"\\_", text)


def _date_text(d: DateCell) -> str:
    if d.value is None:
        return "uncommitted" if d.source == "uncommitted" else "–"
    if d.source == "git":
        return f"_{d.value}_"
    if d.source == "frontmatter-text":
        return f"“{cell(d.value)}”"
    return d.value


def _reached_text(row: Row) -> str:
    if row.loaded:
        return "yes (retired)" if row.retired else "yes"  # retired, and still routed to: MEM205
    if row.retired:
        return "yes (retired)" if row.reached else "no (retired)"
    if row.superseded and not row.reached:
        return "no (superseded)"  # where it belongs: MEM503 says to retire it
    return "**past the cap**" if row.reached else "**no**"


def _heat_text(row: Row) -> str:
    if row.hot_class is None:
        return "–"
    return f"{row.hot_class}\u00a0{row.hotness:.2f}"  # no-break space: one line


def _findings_text(row: Row) -> str:
    if not row.findings:
        return "–"
    # Codes only, errors in bold, ×n for repeats: the narrowest cell that
    # still says what and how bad (a wide cell squeezes the date columns).
    return " ".join((f"**{code}**" if error else code) + (f"×{n}" if n > 1 else "") for code, n, error in row.codes)


DATE_SOURCES = {"frontmatter": "frontmatter", "git": "git", "frontmatter-text": "frontmatter but not a date",
                "uncommitted": "nowhere yet (uncommitted)", "unknown": "nowhere (no usable git history)"}


def _sources(counts: Mapping[str, int]) -> str:
    shown = [f"{label} {counts[key]}" for key, label in DATE_SOURCES.items() if counts.get(key)]
    return ", ".join(shown) or "–"


def _cap_text(load: dict | None) -> str:
    if load is None:
        return "no root index"
    caps = []
    if load["max-lines"] is not None:
        caps.append(f"{load['lines']:,} of {load['max-lines']:,} lines")
    if load["max-bytes"] is not None:
        caps.append(f"{load['bytes']:,} of {load['max-bytes']:,} bytes")
    if load["max-chars"] is not None:
        caps.append(f"{load['chars']:,} of {load['max-chars']:,} characters")
    size = ", ".join(caps) if caps else f"{load['lines']:,} lines (no load cap)"
    spans = load["hidden-lines"]
    if spans:
        shown = " and ".join(f"line {a:,}" if a == b else f"lines {a:,}–{b:,}" for a, b in spans)
        return f"{size}: **over the cap**, {shown} never " + ("loads" if len(spans) == 1 and spans[0][0] == spans[0][1]
                                                             else "load")
    if load.get("over-budget"):
        return f"{size}: loads whole, **over its {load['budget-lines']:,}-line budget**"
    return f"{size}: loads whole"


def _dropped_text(load: dict) -> str:
    """What the root's load cap drops, as MEM101 says it: a link above the cut
    whose reference definition is below it loses its target too."""
    spans = load["hidden-lines"]
    if load["links-cut-off"]:
        return "what the cut drops"
    return "that line" if len(spans) == 1 and spans[0][0] == spans[0][1] else "those lines"


COLUMNS = (  # header, alignment, cell
    ("File", "---", lambda row: cell(row.rel)),
    ("Type / priority", "---", lambda row: cell(row.kind)),
    ("Status", "---", lambda row: cell(row.status)),
    ("Created", "---", lambda row: _date_text(row.created)),
    ("Verified", "---", lambda row: _date_text(row.verified)),
    ("Reached", ":---:", _reached_text),
    ("Heat", "---", _heat_text),
    ("Triage", "---", lambda row: row.triage or "–"),
    ("Findings", "---", _findings_text),
)
OPTIONAL = ("Type / priority", "Status")  # left out when no row has a value


def _table(rows: Sequence[Row]) -> list[str]:
    cells = [[render(row) for _, _, render in COLUMNS] for row in rows]
    keep = [i for i, (name, _, _) in enumerate(COLUMNS)
            if name not in OPTIONAL or any(c[i] not in ("–", "root", "index") for c in cells)]
    out = ["| " + " | ".join(COLUMNS[i][0] for i in keep) + " |", "|" + "|".join(COLUMNS[i][1] for i in keep) + "|"]
    out += ["| " + " | ".join(c[i] for i in keep) + " |" for c in cells]
    return out


def render_markdown(reports: Sequence[StoreReport], version: str) -> str:
    out: list[str] = []
    for report in reports:
        out += _render_store(report, version)
    return "\n".join(out).rstrip("\n") + "\n"


def _render_store(r: StoreReport, version: str) -> list[str]:
    t = r.totals
    heat, triage = t["heat"], t["triage"]
    attention = sum(triage[k] for k in ATTENTION)
    where = f"store {cell(r.folder)}/ in {cell(r.repository)}" if r.folder else f"store in {cell(r.repository)}"
    lines = [
        f"# Memory health: {cell(r.root)}",
        "",
        f"{r.preset} {where}, {r.today.isoformat()}; memlint {version}. Files worst first"
        + (f", paths relative to {cell(r.folder)}/" if r.folder else "")
        + "; dates in _italics_ come from git (the frontmatter has none); "
        "**bold** codes are errors.",
        "",
        "| Memories | Reached | Past the cap | Unreached | Broken links | Errors | Warnings | HOT / WARM / COLD | Needs attention |",
        "|---:|---:|---:|---:|---:|---:|---:|:---:|---:|",
        f"| {t['memories']} | {t['reached']} | {t['past-cap']} | {t['orphans']} | {t['broken-links']} | {t['errors']} | {t['warnings']} "
        f"| {heat['HOT']} / {heat['WARM']} / {heat['COLD']} | {attention} |",
        "",
        f"- **Root** {cell(r.root)}: {_cap_text(t['root'])}"
        + (f"; {plural(t['past-cap'], 'memory')} reached only through {_dropped_text(t['root'])}" if t["past-cap"] else ""),
        f"- **Files**: {plural(t['memories'], 'memory')}"
        + (f" ({t['listing']:,} also {'a topic index' if t['listing'] == 1 else 'topic indexes'})" if t["listing"] else "")
        + f", {t['indexes']:,} topic index{'' if t['indexes'] == 1 else 'es'}, "
        f"{plural(t['logs'], 'daily log')}",
    ]
    if t["codes"]:
        codes = list(t["codes"].items())
        shown = ", ".join(f"{code}×{n}" for code, n in codes[:8])
        if len(codes) > 8:  # the rarest last: say how many more, and how many findings they hold
            rest = codes[8:]
            shown += f" and {plural(len(rest), 'more rule')} ({plural(sum(n for _, n in rest), 'finding')})"
        lines.append(f"- **Findings** on {plural(t['files-with-findings'], 'file')}: {shown}")
    lines.append(f"- **Heat**: {plural(t['sessions'], 'session')} in the last {r.window_days} days; "
                 f"**triage**: " + ", ".join(f"{triage[k]} {k}" for k in (*ATTENTION, "KEEP"))
                 + (f"; {plural(t['unscored'], 'file')} not scored (unreadable)" if t["unscored"] else ""))
    lc = t["lifecycle"]
    if lc.retired or lc.stale or lc.expired_live or lc.superseded_live or lc.conflict_members:
        window = f" (over {lc.stale_days} days unverified)" if lc.stale_days is not None else ""
        lines.append(f"- **Lifecycle**: {lc.live} live, {lc.retired} retired; {lc.stale} stale{window}, "
                     f"{lc.expired_live} expired and {lc.superseded_live} superseded but still live, "
                     f"{plural(lc.conflict_members, 'memory')} in conflict")
    lines.append(f"- **Dates**: created from {_sources(t['dates']['created'])}; "
                 f"last verified from {_sources(t['dates']['verified'])}")
    for note in r.notes:  # memlint's own words, markdown included: not escaped as a cell is
        lines.append(f"- {note}")
    lines += [""] + _table(r.rows)
    lines += ["", "## Root → topics", "", "```mermaid", r.mermaid, "```", ""]
    return lines

"""`memlint report [PATH]`: the store's health dashboard as markdown.

Totals, one row per memory worst first (type, status, dates, heat, triage,
findings) and a Mermaid graph of root -> topics. Advisory: exit 0 unless
the command itself is misused (2).
"""
from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import click

from memlint.cli import (NamedPath, build_stores, common_store_options, output_option, parse_today, require_stores,
                         write_output)


@click.command()
@click.argument("paths", nargs=-1, type=NamedPath(path_type=Path))
@common_store_options
@click.option("--today", help="Date to compute ages from (YYYY-MM-DD; default today).")
@click.option("--sessions", "sessions_dir", type=NamedPath(file_okay=False, exists=True, path_type=Path),
              help="Folder of session transcripts (*.jsonl, *.md, *.txt) for heat and triage.")
@output_option("Write the markdown to FILE (atomically; - for stdout).")
@click.option("--github-summary", is_flag=True, help="Append the markdown to $GITHUB_STEP_SUMMARY (the job summary of a GitHub Actions run).")
def report(paths, preset, config_file, today, sessions_dir, output, github_summary):
    """Markdown health dashboard: totals, one row per memory worst first, root -> topics graph."""
    from memlint import __version__
    from memlint.dashboard import render_markdown

    today_date = parse_today(today) or date.today()
    stores = build_stores(paths, preset, config_file, today_date, cache=True)
    require_stores(stores, paths, "report")
    text = render_markdown([build_report(store, sessions_dir, today_date) for store in stores], __version__)
    summary = os.environ.get("GITHUB_STEP_SUMMARY") if github_summary else None
    if output is not None:
        write_output(output, text, stores)
    if github_summary and summary:
        with open(summary, "a", encoding="utf-8", errors="backslashreplace") as fh:  # other steps' summaries stay
            fh.write(text)
        click.echo(f"memlint: report appended to the job summary ({summary})", err=True)
    elif github_summary:
        click.echo("memlint: --github-summary: GITHUB_STEP_SUMMARY is not set (not a GitHub Actions step); "
                   + ("the report went to " + str(output) if output is not None else "printing the report instead"), err=True)
    if output is None and not (github_summary and summary):
        click.echo(text, nl=False)


def build_report(store, sessions_dir, today):
    """Findings, heat and triage of one store, gathered for the dashboard."""
    from memlint import engagement as eng
    from memlint.commands.health import index_since, open_index, triage_use, triaged, usage
    from memlint.dashboard import build_store_report
    from memlint.linter import lint_store

    findings = lint_store(store).findings
    index, _ = open_index(store, sessions_dir, index_since(today))  # as health and triage: the same heat
    with index:
        # The sessions the heat was measured on: those of its window, not all of them.
        n_sessions = index.count(since=eng.window_start(today, eng.HEALTH_WINDOW_DAYS), until=today)
        heat = {u.path: (u.hot_class, u.hotness) for u in usage(store, index, today, eng.HEALTH_WINDOW_DAYS)}
        # Triage counts recurrence over its own, longer window (see memlint.engagement).
        uses = usage(store, index, today, eng.TRIAGE_WINDOW_DAYS)
    by_path = {d.path: d for d in store.docs.values()}
    # Memories only: archiving a topic index would lose every memory it routes to.
    triage = {u.path: triage_use(by_path[u.path], u, today, store.settings).recommendation for u in uses if triaged(by_path[u.path])}
    return build_store_report(store, findings, heat, triage, sessions=n_sessions, window_days=eng.HEALTH_WINDOW_DAYS)

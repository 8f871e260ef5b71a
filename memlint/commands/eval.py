"""`memlint eval GOLDEN.yaml [PATH]`: does every known question still reach its memory?

Run it before and after a tidy-up: ``--save`` keeps a run, ``--baseline``
compares with one and exits 1 when a question that passed now fails.
``--init`` proposes a golden set for a person to edit.
"""
from __future__ import annotations

import os

import sys
from pathlib import Path

import click

from memlint.cli import (EXIT_CLEAN, EXIT_FINDINGS, NamedPath, UsageError, build_stores, common_store_options, emit,
                         output_option, require_stores, write_output)
from memlint.reporters import json_text, printable
from memlint.rules._common import plural


def _file_not_dash(ctx, param, value):
    """``--save -`` would mix the run's JSON into the report on standard output."""
    if value == "-":  # (./- is a file of that name)
        raise click.BadParameter("a run is kept in a file; for it on standard output use --format json",
                                 ctx=ctx, param=param)
    return None if value is None else Path(value)


@click.command("eval")
@click.argument("args", nargs=-1, type=NamedPath(path_type=Path), metavar="GOLDEN.yaml [PATH]")
@common_store_options
@click.option("--k", "k", type=click.IntRange(1, 100), default=3, show_default=True,
              help="How many lines of each index the router follows.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--save", type=NamedPath(dir_okay=False, allow_dash=True, empty="name the file to write"), callback=_file_not_dash,
              help="Write this run (JSON) to FILE, for a later --baseline.")
@click.option("--baseline", type=NamedPath(dir_okay=False, path_type=Path, empty="name a run saved with --save"),
              help="A run saved with --save: exit 1 if a question that passed there fails now.")
@click.option("--init", "init", is_flag=True, help="Propose a golden set for the store at PATH (one question per memory) instead.")
@output_option("With --init: write the proposal to FILE (atomically; - for stdout, as without it).")
@click.option("--force", is_flag=True, help="With --init --output: replace an existing file.")
def eval_cmd(args, preset, config_file, k, fmt, save, baseline, init, output, force):
    """Walk each golden question root -> topic -> memory: reachable, loaded, routed@k.

    GOLDEN.yaml is a list of items `{q: question, expect: path/to/memory.md}`
    (repository- or store-relative). Exit 0 when done, 1 when --baseline
    finds a question that passed there and fails now, 2 on a bad golden set.
    """
    from memlint import evaluate as ev

    if init:
        if save or baseline:
            raise UsageError("--init proposes a golden set; --save and --baseline go with a golden set")
        if len(args) > 1:
            raise UsageError("eval --init takes one PATH (the store)")
        _init(args, preset, config_file, output, force)
        return
    if output is not None or force:
        raise UsageError("--output and --force go with --init; to keep a run use --save FILE")
    if not args:
        raise UsageError("eval needs a golden set: memlint eval GOLDEN.yaml [PATH] (or memlint eval --init to propose one)")
    if len(args) > 2:
        raise UsageError("eval takes GOLDEN.yaml and at most one PATH")
    golden, paths = args[0], args[1:]
    if save is not None and _same_file(save, golden):
        raise UsageError(f"--save {save}: that is the golden set; a run is kept in a file of its own")
    try:
        questions = ev.load_golden(golden)
        base = ev.load_baseline(baseline) if baseline is not None else None
    except ev.GoldenError as exc:
        raise UsageError(str(exc)) from None
    stores = build_stores(paths, preset, config_file)
    require_stores(stores, paths, f"eval {golden}")  # a file named that no store holds
    outcomes = ev.evaluate(stores, questions, k)
    twice = ev.same_question_twice(outcomes)
    if twice is not None:  # as parse_golden refuses the same spelling twice
        raise UsageError(f"{golden}:{twice[1].line}: the same question and file as line {twice[0].line} "
                         f"({printable(twice[1].expect)} is {printable(twice[0].expect)})")
    record = ev.run_record(outcomes, k, str(golden))
    if save is not None:  # as any report: never over a file a store reads, nor its config
        write_output(save, json_text(record) + "\n", stores)
    # (through emit: a reader of stdout that goes away must not hide a regression's status)
    if fmt == "json":
        emit(json_text(record))
    else:
        emit(render_text(outcomes, record["totals"]), nl=False)
    if base is None:
        sys.exit(EXIT_CLEAN)
    if base.k != k:
        click.echo(f"memlint: the baseline routed with --k {base.k}, this run with --k {k}: routing is not compared like for like", err=True)
    worse = ev.regressions(base, outcomes)
    better = ev.fixed(base, outcomes)
    unknown = sum(1 for o in outcomes if base.before(o) is None)

    def tell(text: str) -> None:  # beside the report: on stderr when stdout is JSON
        if fmt == "json":
            click.echo(text, err=True)
        else:
            emit(text)

    if better:
        tell(f"{len(better)} now pass that failed in {baseline}: " + "; ".join(_name(o) for o in better))
    if unknown:
        tell(f"{unknown} not in {baseline} (new questions): not compared")
    if worse:
        tell(f"REGRESSION: {len(worse)} passed in {baseline} and fail now:")
        for o in worse:
            tell(f"  {golden}:{o.line}: {_name(o)}: {printable(o.why)}")
        sys.exit(EXIT_FINDINGS)
    tell(f"no regression against {baseline}")
    sys.exit(EXIT_CLEAN)


def _name(outcome) -> str:
    return f"{outcome.q!r} -> {printable(outcome.expect)}"


def _rank(hop, k) -> str:
    if hop.rank is None:
        return "not loaded"
    if hop.score <= 0:
        return "no shared word"
    return f"#{hop.rank} of {hop.of}"


def _walk(hops, k) -> str:
    if not hops:
        return "(the root itself)"
    return " -> ".join(f"{printable(h.path)}:{h.line} ({_rank(h, k)})" for h in hops) + f" -> {printable(hops[-1].target)}"


def render_text(outcomes, totals) -> str:
    lines = []
    k = totals["k"]
    for o in outcomes:
        lines.append(f"{'PASS' if o.passed else 'FAIL'}  {printable(o.q)}  -> {printable(o.found or o.expect)}")
        if o.routed and o.route != o.path:
            lines.append(f"      routed: {_walk(o.route, k)}")
            if o.reachable:
                lines.append(f"      shortest: {_walk(o.path, k)}")
        elif o.reachable:
            lines.append(f"      {_walk(o.path, k)}")
        if o.why:
            lines.append(f"      {printable(o.why)}")
    n = totals["questions"]

    def pct(key):
        share = totals[key]
        return f"{share['count']}/{n} ({share['percent']:g}%)"

    lines.append("")
    lines.append(f"{plural(n, 'question')}, {totals['passed']['count']} pass: reachable {pct('reachable')}, "
                 f"loaded {pct('loaded')}, routed@{k} {pct('routed')}")
    return "\n".join(lines) + "\n"


def _init(args, preset, config_file, output, force):
    from memlint import evaluate as ev

    stores = build_stores(args, preset, config_file)
    require_stores(stores, args, "eval --init")  # a file named that no store holds
    if len(stores) > 1:
        names = ", ".join(str(s.dir) for s in stores)
        raise UsageError(f"found {len(stores)} stores ({names}); name one: memlint eval --init PATH")
    store = stores[0]
    proposed = ev.propose_golden(store)
    if not proposed:
        raise UsageError(f"{store.shown(store._repo_path(store.dir))}: no memory to ask about, so no golden set to "
                         "propose (eval needs one question at least)")
    text = ev.golden_yaml(proposed, store.root.path if store.root else store.dir.name)
    if output is None:
        click.echo(text, nl=False)
        return
    if output.exists() and not force:
        raise UsageError(f"{output} exists; use --force to replace it")
    write_output(output, text, stores)  # --force replaces an earlier proposal, never a file the store reads
    click.echo(f"memlint: wrote {output} ({plural(len(proposed), 'question')}); edit the questions, then run "
               f"memlint eval {output}", err=True)


def _same_file(a: Path, b) -> bool:
    """Whether two paths name one file (through links and ``./``)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)

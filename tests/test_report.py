"""`memlint report`: the markdown health dashboard."""
from __future__ import annotations

import re
import shutil

import pytest
from markdown_it import MarkdownIt

from memlint.dashboard import cell
from memlint.rules import all_rules
from tests.conftest import TESTDATA
from tests.gitrepo import GitRepo

TODAY = "2026-06-10"


def planted(store: str) -> dict[str, list[str]]:
    """file -> codes planted in testdata/<store>, from its README table."""
    out: dict[str, list[str]] = {}
    for line in (TESTDATA / store / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"MEM\d{3}", cells[2]):
            out.setdefault(cells[0], []).append(cells[2])
    return out


def table(markdown: str, first_header: str) -> list[dict[str, str]]:
    """Rows of the markdown table whose first header is ``first_header``, as dicts."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    split = lambda line: [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
    header = split(lines[start])
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, split(line))))
    return rows


@pytest.fixture
def claude_repo(tmp_path):
    """testdata/claude-code committed under memory/ on 2026-05-01; pricing changed on 2026-06-01.
    Sessions: two recent ones about the smoke test, an old one about pricing."""
    repo = GitRepo(tmp_path / "repo")
    for path in sorted((TESTDATA / "claude-code").iterdir()):
        repo.write(f"memory/{path.name}", path.read_text(encoding="utf-8"))
    repo.commit("import", date="2026-05-01T10:00:00+00:00")
    repo.write("memory/project_pricing.md", repo.read("memory/project_pricing.md") + "Checked again.\n")
    repo.commit("pricing", date="2026-06-01T10:00:00+00:00")
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "2026-06-08.md").write_text("ran the smoke test before the deploy\n")
    (sessions / "2026-06-09.md").write_text("smoke test failed; fixed the deploy script\n")
    (sessions / "2026-04-01.md").write_text("talked about competitor pricing\n")
    return repo.root, sessions


def report(cli, *args):
    result = cli("report", "--today", TODAY, *args)
    assert result.exit_code == 0, result.output + result.stderr
    return result


def test_report_on_the_claude_code_testdata(cli, claude_repo):
    repo, sessions = claude_repo
    text = report(cli, "--sessions", sessions, repo).output
    assert text.startswith("# Memory health: memory/MEMORY.md\n")
    assert "- **Heat**: 2 sessions in the last 30 days; " in text  # (the pricing session is older)
    severity = {r.CODE: r.SEVERITY for r in all_rules()}
    expected = planted("claude-code")
    codes = [c for cs in expected.values() for c in cs]
    errors = sum(severity[c] == "error" for c in codes)
    warnings = len(codes) - errors

    memories = len(list((TESTDATA / "claude-code").glob("*_*.md")))
    orphans = codes.count("MEM201")
    (totals,) = table(text, "Memories")
    heat = [int(n) for n in totals.pop("HOT / WARM / COLD").split(" / ")]
    assert totals == {"Memories": str(memories), "Reached": str(memories - orphans), "Past the cap": "0",
                      "Unreached": str(orphans), "Broken links": str(codes.count("MEM202")), "Errors": str(errors),
                      "Warnings": str(warnings), "Needs attention": "1"}
    assert sum(heat) == memories
    rows = {row["File"]: row for row in table(text, "File")}
    hot = sorted(name for name, row in rows.items() if row["Heat"].startswith("HOT"))
    # the sessions ran the smoke test and fixed the deploy script
    assert heat[0] == len(hot) and hot == ["feedback_smoke-test.md", "feedback_smoke-tests.md", "feedback_staging-deploys.md"]
    root = (TESTDATA / "claude-code" / "MEMORY.md").read_bytes()
    root_lines = root.count(b"\n")
    assert (f"- **Root** memory/MEMORY.md: {root_lines} of 200 lines, "
            f"{len(root):,} of 25,000 bytes: loads whole") in text
    assert (f"- **Dates**: created from git {memories - 1}, frontmatter but not a date 1; "
            f"last verified from git {memories}") in text

    rows = {row["File"]: row for row in table(text, "File")}
    assert set(rows) == {"MEMORY.md", *(p.name for p in (TESTDATA / "claude-code").glob("*_*.md"))}
    # every planted defect shows on its row; nothing else does
    for name, row in rows.items():
        mine = sorted(set(expected.get(name, [])))
        # codes only, errors in bold, ×n for repeats
        shown = " ".join((f"**{c}**" if severity[c] == "error" else c) + (f"×{expected[name].count(c)}" if expected[name].count(c) > 1 else "")
                         for c in mine)
        assert row["Findings"] == (shown or "–"), name
    # no status field anywhere in this store: the column is left out
    assert "Status" not in table(text, "File")[0]
    assert rows["project_pricing.md"] == {
        "File": "project_pricing.md", "Type / priority": "feedbak", "Created": "_2026-05-01_",
        "Verified": "_2026-06-01_", "Reached": "yes", "Heat": "WARM\u00a00.34", "Triage": "KEEP",
        "Findings": "**MEM003**",
    }
    assert rows["project_roadmap.md"]["Created"] == "“2026-13-01”"  # not a date: shown as written, MEM004 says why
    assert rows["feedback_smoke-test.md"]["Heat"].startswith("HOT\u00a0")
    assert rows["project_long-notes.md"]["Triage"] == "PRUNE"
    assert rows["MEMORY.md"]["Type / priority"] == "root"

    # worst first: errors, then the other findings, then the rest
    order = [row["File"] for row in table(text, "File")]
    with_errors = {name for name, cs in expected.items() if any(severity[c] == "error" for c in cs)}
    assert set(order[:len(with_errors)]) == with_errors
    clean = [name for name in order if rows[name]["Findings"] == "–"]
    assert order[len(order) - len(clean):] == clean


def test_frontmatter_dates_win_over_git_and_are_not_italic(cli, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.write("MEMORY.md", "- [A](a.md) — a\n- [B](b.md) — b\n")
    repo.write("a.md", "---\nname: a\ndescription: a\ntype: project\ncreated: 2026-01-05\nlast_verified: 2026-02-01\n---\nx\n")
    repo.write("b.md", "---\nname: b\ndescription: b\ntype: project\n---\nx\n")
    repo.commit("add", date="2026-03-01T09:00:00+00:00")
    rows = {r["File"]: r for r in table(report(cli, repo.root).output, "File")}
    assert (rows["a.md"]["Created"], rows["a.md"]["Verified"]) == ("2026-01-05", "2026-02-01")
    assert (rows["b.md"]["Created"], rows["b.md"]["Verified"]) == ("_2026-03-01_", "_2026-03-01_")


def test_moc_report_graph_root_to_topics(cli, tmp_path):
    store = tmp_path / "moc"
    shutil.copytree(TESTDATA / "moc", store)
    text = report(cli, "--preset", "moc", store).output
    memories = len(list(store.glob("*/*.md")))
    orphans = sum(codes.count("MEM201") for codes in planted("moc").values())
    (totals,) = table(text, "Memories")
    assert (totals["Memories"], totals["Reached"], totals["Unreached"]) == (str(memories), str(memories - orphans), str(orphans))
    [root_line] = [line for line in text.splitlines() if line.startswith("- **Root**")]
    assert ": 44 of 200 lines, " in root_line and root_line.endswith(": loads whole, **over its 40-line budget**")
    graph = text.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert graph.startswith('%%{init: {"flowchart": {"wrappingWidth": 480}}}%%\nflowchart LR\n')
    # the big topic shows a count per prefix; the small one lists its memories
    assert '  n1["MOC-projects.md"]:::index\n' in graph and '  n2["MOC-tools.md"]:::index\n' in graph
    assert '["projects/project* (27)"]:::group' in graph
    assert '["tools/ripgrep.md"]:::memory' in graph and "project-01" not in graph
    assert "  n0 --> n1\n  n0 --> n2\n" in graph


GRAPH_STORE = {
    "MEMORY.md": "# Memory\n- [Tools](tools.md) — tools\n- [Gone](gone.md) — a deleted memory\n",
    "tools.md": "# Tools\n" + "".join(f"- [t{i}](t{i}.md) — tool {i}\n" for i in range(4)) + "- [x](missing-tool.md) — gone\n",
    **{f"t{i}.md": f"tool {i}\n" for i in range(4)},
    "lost.md": "nobody links here\n",
    "retired.md": "---\nstatus: superseded\n---\nold\n",
}


def test_graph_marks_orphans_and_broken_targets(cli, make_store):
    store = make_store(GRAPH_STORE)
    text = report(cli, "--preset", "generic", store).output
    graph = text.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert re.search(r'(n\d+)\["missing: gone.md"\]:::broken', graph)
    assert re.search(r'n0 -.->\|line 3\| n\d+', graph)
    assert '["missing: missing-tool.md"]:::broken' in graph
    # orphans stacked in their box; retired memories are meant to be unrouted: not orphans
    assert 'subgraph orphans["orphans: no index reaches these"]\n    direction LR\n    n6["lost.md"]:::orphan\n  end' in graph
    assert "retired.md" not in graph
    (totals,) = table(text, "Memories")
    assert (totals["Unreached"], totals["Broken links"]) == ("1", "2")
    rows = {r["File"]: r for r in table(text, "File")}
    assert rows["lost.md"]["Reached"] == "**no**"
    assert rows["retired.md"]["Reached"] == "no (retired)"
    assert rows["retired.md"]["Status"] == "superseded"
    routed = make_store({**GRAPH_STORE, "MEMORY.md": GRAPH_STORE["MEMORY.md"] + "- [Old](retired.md) — old\n"})
    rows = {r["File"]: r for r in table(report(cli, "--preset", "generic", routed).output, "File")}
    assert rows["retired.md"]["Reached"] == "yes (retired)"  # still routed to (MEM205)
    assert rows["t0.md"]["Reached"] == "yes"


def test_expired_or_superseded_but_live_memories_are_unreached_as_check_says(cli, make_store):
    """Retired is the status, as `check` and `--summary` decide it: an expired
    memory whose status is live may still hold, so unreached it is an orphan
    (MEM201), counted and shown so; a retired status is not, nor a live memory
    another supersedes (MEM503 says to retire it, not to file it)."""
    mem = "---\nname: {0}\ndescription: {0}\ntype: project\n{1}---\nbody\n"
    store = make_store({
        "MEMORY.md": "# Memory Index\n- [Live](live.md) — live\n- [New price](newprice.md) — price\n",
        "live.md": mem.format("live", ""),
        "freeze.md": mem.format("freeze", "expires: 2026-01-15\n"),
        "oldprice.md": mem.format("oldprice", ""),
        "newprice.md": mem.format("newprice", "supersedes: oldprice\n"),
        "archived.md": mem.format("archived", "status: archived\n"),
    })
    check = cli("check", "--format", "json", "--today", TODAY, store)
    orphans = sorted(f["path"].rsplit("/", 1)[-1] for f in check.json() if f["code"] == "MEM201")
    assert orphans == ["freeze.md"]
    assert [f["path"].rsplit("/", 1)[-1] for f in check.json() if f["code"] == "MEM503"] == ["oldprice.md"]
    text = report(cli, store).output
    (totals,) = table(text, "Memories")
    assert (totals["Memories"], totals["Reached"], totals["Unreached"]) == ("5", "2", "1")
    rows = {r["File"]: r for r in table(text, "File")}
    assert [(rows[n]["Status"], rows[n]["Reached"]) for n in ("freeze.md", "oldprice.md")] == [
        ("expired", "**no**"), ("superseded", "no (superseded)")]
    assert rows["archived.md"]["Reached"] == "no (retired)"
    assert "- **Lifecycle**: 4 live, 1 retired; 0 stale, 1 expired and 1 superseded but still live" in text


def test_a_memory_that_lists_others_counts_among_the_memories_as_check_summary_counts_it(cli, make_store):
    """A memory with frontmatter whose body is a list of links is read as a
    topic index too; it is still a memory: `check --summary` counts it, so the
    totals do (here a retired one, which no index should route to)."""
    mem = "---\nname: {0}\ndescription: {0}\ntype: project\n{1}---\n{2}\n"
    links = "".join(f"- [t{i}](t{i}.md) — tool {i}\n" for i in range(5))
    store = make_store({
        "MEMORY.md": "# Memory\n" + links,
        **{f"t{i}.md": mem.format(f"t{i}", "", "body") for i in range(5)},
        "old-tools.md": mem.format("old-tools", "status: archived\n", "# Old tools\n" + links),
    })
    summary = cli("check", "--summary", "--today", TODAY, store)
    assert "  memories       6: 5 live, 1 retired\n" in summary.output + summary.stderr
    text = report(cli, store).output
    (totals,) = table(text, "Memories")
    assert (totals["Memories"], totals["Reached"], totals["Unreached"]) == ("6", "5", "0")
    assert "- **Files**: 6 memories (1 also a topic index), 0 topic indexes, 0 daily logs" in text
    assert {r["File"]: r["Reached"] for r in table(text, "File")}["old-tools.md"] == "no (retired)"


def test_the_heat_column_is_what_health_says_on_the_same_day(cli, tmp_path):
    """Report and health index the same sessions: a commit that only wrote
    dates 41 days ago is upkeep for both, so every keyword weighs the same."""
    mem = "---\nname: {0}\ndescription: {0}\ntype: project\n---\nbody\n"
    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", "# Memory Index\n- [Kafka](project_kafka.md) — kafka\n- [Redis](project_redis.md) — redis\n")
    repo.write("memory/project_kafka.md", mem.format("kafka"))
    repo.write("memory/project_redis.md", mem.format("redis"))
    repo.commit("init", date="2025-12-20T12:00:00+00:00")
    repo.write("memory/project_kafka.md", mem.format("kafka").replace("type: project\n", "type: project\nlast_verified: 2026-01-20\n"))
    repo.commit("verify", date="2026-01-20T12:00:00+00:00")  # dates only
    for day, message in (("15", "tune redis"), ("20", "tune redis"), ("25", "redis and kafka")):
        repo.write("memory/project_redis.md", repo.read("memory/project_redis.md") + day + "\n")
        repo.commit(message, date=f"2026-02-{day}T12:00:00+00:00")
    today = ("--today", "2026-03-02")
    health = cli("health", "--format", "json", *today, repo.root / "memory").json()
    heat = {r["path"].rsplit("/", 1)[-1]: f"{r['hot_class']}\u00a0{r['hotness']:.2f}" for r in health}
    shown = {r["File"]: r["Heat"] for r in table(cli("report", *today, repo.root / "memory").output, "File") if r["File"] in heat}
    assert shown == heat and len(heat) == 2


def test_graph_keeps_an_unreached_topic_closed(cli, make_store):
    """Root -> topics: a topic no one reaches is one orphan node, not a second tree."""
    store = make_store({
        "MEMORY.md": "- [Tools](tools.md) — tools\n",
        "tools.md": "# Tools\n" + "".join(f"- [t{i}](t{i}.md) — tool {i}\n" for i in range(5)),
        "lost-topic.md": "# Lost\n" + "".join(f"- [l{i}](l{i}.md) — lost {i}\n" for i in range(5)),
        **{f"t{i}.md": "t\n" for i in range(5)},
        **{f"l{i}.md": "l\n" for i in range(5)},
    })
    graph = report(cli, "--preset", "generic", store).output.split("```mermaid\n", 1)[1]
    assert '["lost-topic.md"]:::orphan' in graph
    assert "l0.md" not in graph and "l* (5)" not in graph


def test_cells_escape_pipes_and_newlines(cli, make_store):
    store = make_store({
        "MEMORY.md": "- [odd](odd|name.md) — odd\n",
        "odd|name.md": "---\ntype: |\n  a | b\n  c\nstatus: '*bold* [x]'\n---\nbody\n",
    })
    text = report(cli, "--preset", "generic", store).output
    html = MarkdownIt("commonmark").enable("table").render(text)
    files_table = next(t for t in html.split("<table>") if "<th>File</th>" in t)
    headers = re.findall(r"<th[^>]*>(.*?)</th>", files_table)
    odd = next(r for r in re.findall(r"<tr>\n(.*?)</tr>", files_table, re.S) if "odd" in r)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", odd)
    assert headers[:3] == ["File", "Type / priority", "Status"]
    assert cells[:3] == ["odd|name.md", "a | b c", "*bold* [x]"]
    assert len(cells) == len(headers)


def test_cell_helper():
    assert cell("a|b\nc") == r"a\|b c"
    assert cell("feedback_smoke_test.md") == "feedback_smoke_test.md"  # inner underscores stay readable
    assert cell("_private.md") == r"\_private.md"
    assert cell("<b>`x`</b>") == r"\<b\>\`x\`\</b\>"
    # an entity name in a file name stays text when rendered
    assert MarkdownIt().render(f"| f |\n|---|\n| {cell('p&amp;.md')} |\n").count("p&amp;amp;.md") == 1


# ---------------------------------------------------------------- where it goes


def test_output_is_written_atomically_and_matches_stdout(cli, make_store, tmp_path, monkeypatch):
    import memlint.atomic as atomic

    store = make_store(GRAPH_STORE)
    printed = report(cli, "--preset", "generic", store).output
    writes = []
    real = atomic.write_bytes_atomic
    monkeypatch.setattr(atomic, "write_bytes_atomic", lambda path, data: (writes.append(path), real(path, data)))
    target = tmp_path / "HEALTH.md"
    target.write_text("old dashboard\n")
    result = report(cli, "--preset", "generic", "--output", target, store)
    assert result.output == ""
    assert writes == [target]
    assert target.read_text() == printed
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".memlint-tmp")]


def test_github_summary_appends(cli, make_store, tmp_path):
    store = make_store(GRAPH_STORE)
    printed = report(cli, "--preset", "generic", store).output
    summary = tmp_path / "step_summary.md"
    summary.write_text("## earlier step\n")
    result = cli("report", "--today", TODAY, "--preset", "generic", "--github-summary", store,
                 env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 0
    assert result.output == ""
    assert result.stderr == f"memlint: report appended to the job summary ({summary})\n"
    assert summary.read_text() == "## earlier step\n" + printed
    cli("report", "--today", TODAY, "--preset", "generic", "--github-summary", store, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert summary.read_text() == "## earlier step\n" + printed + printed


def test_github_summary_unset_says_so_and_prints(cli, make_store, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    store = make_store(GRAPH_STORE)
    result = cli("report", "--today", TODAY, "--preset", "generic", "--github-summary", store)
    assert result.exit_code == 0
    assert result.output.startswith("# Memory health: MEMORY.md\n")
    assert "GITHUB_STEP_SUMMARY is not set" in result.stderr


def test_bad_input_exits_2(cli, tmp_path):
    assert cli("report", tmp_path / "nowhere").exit_code == 2
    assert cli("report", "--today", "yesterday", tmp_path).exit_code == 2


def test_the_root_line_agrees_with_check_on_blank_lines_and_one_line_past_the_cap(cli, make_store):
    """Blank lines past the cap lose nothing (MEM101 is quiet): the dashboard
    says the root loads whole; one line past it is one line."""
    config = "rules:\n  root-budget:\n    max-lines: 5\n"
    entries = "".join(f"- [M{i}](m{i}.md) — m{i}\n" for i in range(4))
    files = {**{f"m{i}.md": f"---\nname: m{i}\ndescription: d\ntype: user\n---\nm{i}\n" for i in range(4)},
             ".memlint.yaml": config}
    blank = make_store({"MEMORY.md": "# Index\n" + entries + "\n\n\n", **files}, sub="blank")
    assert cli("check", "--select", "MEM101", blank).exit_code == 0
    assert "5 of 5 lines" not in (text := cli("report", blank).output) and "loads whole" in text.split("**Root**")[1]
    one = make_store({"MEMORY.md": "# Index\n" + entries + "- [M0](m0.md) — again\n", **files}, sub="one")
    assert "**over the cap**, line 6 never loads" in cli("report", one).output


def test_memories_linked_only_past_the_root_cap(cli, make_store):
    lines = ["# Memory"] + [f"- [Note {i}](n{i}.md) — note {i}" for i in range(1, 9)]
    files = {"MEMORY.md": "\n".join(lines) + "\n", ".memlint.yaml": "preset: generic\nrules:\n  root-budget: {max-lines: 5}\n"}
    files.update({f"n{i}.md": f"note {i}\n" for i in range(1, 9)})
    text = report(cli, make_store(files)).output
    assert ("- **Root** MEMORY.md: 9 of 5 lines: **over the cap**, lines 6–9 never load; "
            "4 memories reached only through those lines") in text
    (totals,) = table(text, "Memories")
    assert (totals["Reached"], totals["Past the cap"]) == ("8", "4")
    rows = {r["File"]: r["Reached"] for r in table(text, "File")}
    assert rows == {"MEMORY.md": "yes", **{f"n{i}.md": "yes" for i in range(1, 5)},
                    **{f"n{i}.md": "**past the cap**" for i in range(5, 9)}}
    # the root's MEM101 error first, then the cut-off memories before the loaded ones
    assert [r["File"] for r in table(text, "File")][:5] == ["MEMORY.md", "n5.md", "n6.md", "n7.md", "n8.md"]


def test_a_memory_whose_reference_definition_is_past_the_root_cap_is_past_the_cap_as_check_says(cli, make_store):
    """`- [Note 1][a]` loads, `[a]: n1.md` past the cap does not: MEM101 counts
    n1.md lost, and the dashboard called it loaded."""
    lines = ["# Memory", "- [Note 1][a] — note 1"] + [f"- [Note {i}](n{i}.md) — note {i}" for i in range(2, 5)]
    files = {"MEMORY.md": "\n".join(lines) + "\n\n[a]: n1.md\n",
             ".memlint.yaml": "preset: generic\nrules:\n  root-budget: {max-lines: 5}\n"}
    files.update({f"n{i}.md": f"note {i}\n" for i in range(1, 5)})
    store = make_store(files)
    [f] = cli("check", "--format", "json", "--select", "MEM101", store).json()
    assert "the agent never reads it: n1.md" in f["message"]
    text = report(cli, store).output
    (totals,) = table(text, "Memories")
    assert (totals["Reached"], totals["Past the cap"]) == ("4", "1")
    assert {r["File"]: r["Reached"] for r in table(text, "File")}["n1.md"] == "**past the cap**"


def test_the_root_line_says_what_the_cut_drops_when_a_reference_definition_is_past_the_cap(cli, make_store):
    """n1.md is lost through `[a]: n1.md`, past the cap, not through the
    dropped lines: the root line said it was reached only through those lines,
    where MEM101 says what the cut drops. One dropped line is that line."""
    lines = ["# Memory", "- [Note 1][a] — note 1"] + [f"- [Note {i}](n{i}.md) — note {i}" for i in range(2, 5)]
    config = "preset: generic\nrules:\n  root-budget: {max-lines: 5}\n"
    files = {"MEMORY.md": "\n".join(lines) + "\n\n[a]: n1.md\n", ".memlint.yaml": config}
    files.update({f"n{i}.md": f"note {i}\n" for i in range(1, 6)})
    store = make_store(files)
    [f] = cli("check", "--format", "json", "--select", "MEM101", store).json()
    assert "reached only through what the cut drops" in f["message"]
    assert ("**over the cap**, lines 6–7 never load; 1 memory reached only through what the cut drops"
            in report(cli, store).output)
    (store / "MEMORY.md").write_text("\n".join(lines[:1] + lines[2:]) + "\n- [Note 5](n5.md) — note 5\n"
                                     "- [Note 1](n1.md) — note 1\n")
    [f] = cli("check", "--format", "json", "--select", "MEM101", store).json()
    assert "reached only through that line" in f["message"]
    assert "**over the cap**, line 6 never loads; 1 memory reached only through that line" in report(cli, store).output


def test_findings_cell_bolds_errors_and_counts_repeats():
    from memlint.dashboard import DateCell, Row, _findings_text

    none = DateCell(None, None)
    row = Row("a.md", "a.md", "memory", "–", "–", none, none, True, True,
              errors=1, warnings=3, codes=(("MEM003", 1, True), ("MEM202", 3, False)))
    assert _findings_text(row) == "**MEM003** MEM202×3"


def test_the_totals_count_what_the_rows_and_triage_show(cli, tmp_path):
    """Topic indexes are scored too (as `memlint triage` scores them): the
    header's HOT / WARM / COLD and Needs attention count the rows below it."""
    repo = GitRepo(tmp_path / "repo")
    for path in sorted((TESTDATA / "moc").rglob("*.md")):
        repo.write(path.relative_to(TESTDATA / "moc").as_posix(), path.read_text(encoding="utf-8"))
    repo.commit("import", date="2025-01-01T10:00:00+00:00")
    text = report(cli, "--preset", "moc", repo.root).output
    (totals,) = table(text, "Memories")
    rows = table(text, "File")
    heat = [int(n) for n in totals["HOT / WARM / COLD"].split(" / ")]
    assert sum(heat) == sum(1 for r in rows if r["Heat"][:4].strip() in ("HOT", "WARM", "COLD"))
    flagged = sum(1 for r in rows if r["Triage"] in ("ARCHIVE", "PRUNE", "UPDATE"))
    assert int(totals["Needs attention"]) == flagged > 0
    scored = cli("triage", "--format", "json", "--today", TODAY, "--preset", "moc", repo.root).json()
    assert flagged == sum(1 for r in scored if r["recommendation"] != "KEEP")


def test_unreadable_files_are_said_to_be_unscored(cli, tmp_path):
    """A memory the report cannot read has no heat or triage: the totals say
    why they fall short of the memories counted."""
    repo = GitRepo(tmp_path / "repo")
    for path in sorted((TESTDATA / "moc").rglob("*.md")):
        repo.write(path.relative_to(TESTDATA / "moc").as_posix(), path.read_text(encoding="utf-8"))
    repo.path("tools").mkdir(exist_ok=True)
    (repo.path("tools") / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    repo.add("tools/binary.md")
    repo.commit("import", date="2025-01-01T10:00:00+00:00")
    text = report(cli, "--preset", "moc", repo.root).output
    assert "; 1 file not scored (unreadable)" in text
    (totals,) = table(text, "Memories")
    rows = table(text, "File")
    heat = [int(n) for n in totals["HOT / WARM / COLD"].split(" / ")]
    assert sum(heat) + 1 == sum(1 for r in rows if r["File"] != "MEMORY.md")


def test_the_findings_line_says_how_many_rules_it_leaves_out(cli, make_store):
    """Nine rules fire: the line names the eight most frequent and counts the rest."""
    long_line = "- [L](long.md) — " + "x" * 200 + "\n"
    store = make_store({
        "MEMORY.md": "# Memory\n" + long_line + "- [G](gone.md) — gone\n- [B](bad.md) — bad\n- [N](nofm.md) — n\n"
                     "- [T](types.md) — t\n- [D](dated.md) — d\n- [E](old.md) — e\n- [B again](bad.md) — twice\n",
        "long.md": "---\nname: long\ndescription: d\ntype: user\n---\n" + "line\n" * 400,
        "bad.md": "---\nname: [unclosed\n---\nBody\n",
        "nofm.md": "no frontmatter\n",
        "types.md": "---\nname: t\ndescription: d\ntype: bogus\n---\nBody\n",
        "dated.md": "---\nname: d\ndescription: d\ntype: user\ncreated: 2024-02-30\n---\nBody\n",
        "old.md": "---\nname: e\ndescription: d\ntype: user\nexpires: 2024-01-01\n---\nBody\n",
        "lost.md": "---\nname: lost\ndescription: d\ntype: user\n---\nBody\n",
    })
    text = report(cli, store).output
    [line] = [ln for ln in text.splitlines() if ln.startswith("- **Findings**")]
    codes = re.findall(r"MEM\d{3}", line)
    assert len(codes) == 8
    found = [row["code"] for row in cli("check", "--format", "json", "--today", TODAY, store).json()]
    fired, left_out = set(found), [code for code in found if code not in codes]
    assert len(fired) > 8 and set(codes) < fired
    rules, findings = len(fired) - 8, len(left_out)
    assert line.endswith(f" and {rules} more rule{'s' if rules > 1 else ''} ({findings} finding{'s' if findings > 1 else ''})")


def test_the_shallow_clone_note_keeps_its_code_markup(cli, tmp_path):
    import subprocess

    repo = GitRepo(tmp_path / "full")
    repo.write("MEMORY.md", "# Memory\n- [A](a.md) — a\n")
    repo.write("a.md", "---\nname: a\ndescription: d\ntype: user\n---\nA.\n")
    repo.commit("start", "2026-05-01T10:00:00+00:00")
    repo.write("a.md", "---\nname: a\ndescription: d\ntype: user\n---\nA, again.\n")
    repo.commit("again", "2026-05-02T10:00:00+00:00")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.root}", str(shallow)], check=True)
    text = report(cli, shallow).output
    [note] = [line for line in text.splitlines() if line.startswith("- shallow clone")]
    assert "`fetch-depth: 0`" in note and "\\`" not in note
    assert "no git)" not in text and "nowhere (no usable git history)" in text  # git is there; its dates are not


def test_an_openclaw_root_at_its_cap_counts_its_characters_as_openclaw_does(cli, make_store):
    """OpenClaw trims the file's trailing whitespace before it measures: a
    root of 12,000 characters and three newlines loads whole, and the report
    says 12,000 of 12,000, not 12,003."""
    body = "# Memory\n- [A](a.md) — " + "x" * 11_977  # 12,000 characters, no newline
    assert len(body) == 12_000
    store = make_store({"MEMORY.md": body + "\n\n\n", "a.md": "a\n", ".memlint.yaml": "preset: openclaw\n"})
    assert [f for f in cli("check", "--format", "json", "--select", "MEM101", store).json()] == []
    [root_line] = [line for line in report(cli, store).output.splitlines() if line.startswith("- **Root**")]
    assert root_line.endswith(": 12,000 of 12,000 characters: loads whole")


def test_an_openclaw_root_over_its_cap_loses_its_middle_in_the_report_too(cli, make_store):
    """OpenClaw keeps the first 8,400 and the last 2,400 of 12,000 characters:
    the report names the span in the middle, and the memories listed only
    there, not the ones at the end, as past the cap."""
    lines = ["# Memory"] + [f"- [Note {i:03}](n{i:03}.md) — " + "x" * 80 for i in range(150)]
    files = {"MEMORY.md": "\n".join(lines) + "\n", ".memlint.yaml": "preset: openclaw\n"}
    files.update({f"n{i:03}.md": f"note {i}\n" for i in range(150)})
    store = make_store(files)
    [f] = [f for f in cli("check", "--format", "json", "--select", "MEM101", store).json()]
    import re

    first, last = (int(n) for n in re.search(r"lines (\d+)-(\d+) are never", f["message"]).groups())
    assert last < len(lines)
    text = report(cli, store).output
    assert f"**over the cap**, lines {first}–{last} never load; {last - first + 1} memories reached only through those lines" in text
    rows = {r["File"]: r["Reached"] for r in table(text, "File")}
    assert rows[f"n{last - 2:03}.md"] == "**past the cap**" and rows[f"n{last - 1:03}.md"] == rows["n149.md"] == "yes"

"""MEM201-MEM205: orphans, broken links, links out of the repository, filed twice, routes to retired."""
from __future__ import annotations

import os
import subprocess

import pytest

def mem(name: str, **extra) -> str:
    fields = "".join(f"{k}: {v}\n" for k, v in extra.items())
    return f"---\nname: {name}\ndescription: memory {name}\ntype: project\n{fields}---\nBody of {name}.\n"


def run(cli, folder, *args, today="2026-06-01"):
    result = cli("check", "--format", "json", "--today", today, *args, folder)
    assert result.exit_code in (0, 1), result.output + result.stderr
    return result.json()


def only(found, code):
    return [(f["path"], f["line"], f["column"]) for f in found if f["code"] == code]


def message(found, code):
    [f] = [f for f in found if f["code"] == code]
    return f["message"]


# ---------------------------------------------------------------- MEM201 orphan


def test_orphan_fires_on_unlisted_memory_and_names_its_index(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": "# Index\n- [A](project_alpha.md) — a\n- [B](project_beta.md) — b\n- [U](user_me.md) — me\n",
            "project_alpha.md": mem("alpha"),
            "project_beta.md": mem("beta"),
            "project_gamma.md": mem("gamma"),
            "user_me.md": mem("me"),
        }
    )
    found = run(cli, store)
    assert only(found, "MEM201") == [("project_gamma.md", 1, 1)]
    assert message(found, "MEM201") == (
        "not reachable from MEMORY.md (no index links to it); "
        "add an entry for it to MEMORY.md, beside project_beta.md (line 3)"
    )
    assert [f["severity"] for f in found if f["code"] == "MEM201"] == ["error"]


@pytest.mark.parametrize("entries, full", [(197, False), (198, True)])
def test_orphan_hint_never_adds_a_line_to_a_root_at_its_load_cap(make_store, cli, entries, full):
    """Claude Code loads 200 lines of MEMORY.md: an entry added to a root of
    200 lines pushes its last line out (MEM101), so the hint says the root is
    full instead; a root with a line to spare takes the entry."""
    root = "# Memory index\n\n" + "".join(f"- [Fact {i}](project_fact_{i}.md) — fact {i}\n" for i in range(entries))
    store = make_store({"MEMORY.md": root, "project_new.md": mem("new"),
                        **{f"project_fact_{i}.md": mem(f"fact-{i}") for i in range(entries)}})
    found = run(cli, store)
    assert only(found, "MEM201") == [("project_new.md", 1, 1)]
    hint = message(found, "MEM201").split("; ", 1)[1]
    if full:
        assert hint == ("MEMORY.md is full: one more entry would take it over its load cap (200 lines), and a line "
                        "that loads now would not; file it in a topic index, moving some of MEMORY.md's entries into "
                        "one first if none fits")
    else:
        assert hint.startswith("add an entry for it to MEMORY.md, beside project_fact_")
    assert "MEM101" not in {f["code"] for f in found}


def test_orphan_hint_says_a_root_already_over_its_cap_or_budget_is_over_it(make_store, cli):
    """It said one more entry would take the root over its cap, of a root
    MEM101 already reports over it."""
    root = "# Memory index\n\n" + "".join(f"- [Fact {i}](project_fact_{i}.md) — fact {i}\n" for i in range(247))
    files = {"project_new.md": mem("new"), **{f"project_fact_{i}.md": mem(f"fact-{i}") for i in range(247)}}
    found = run(cli, make_store({"MEMORY.md": root, **files}))
    assert "MEM101" in {f["code"] for f in found}
    assert message(found, "MEM201").split("; ", 1)[1] == (
        "MEMORY.md is already over its load cap (200 lines): part of it does not load now; file it in a topic "
        "index, moving some of MEMORY.md's entries into one first if none fits")
    thick = "# Memory\n" + "".join(f"- [Fact {i}](project_fact_{i}.md) — fact {i}\n" for i in range(45))
    files = {"project_new.md": mem("new"), **{f"project_fact_{i}.md": mem(f"fact-{i}") for i in range(45)}}
    found = run(cli, make_store({"MEMORY.md": thick, **files}, sub="moc"), "--preset", "moc", "--select", "MEM1,MEM201")
    assert message(found, "MEM201").split("; ", 1)[1] == (
        "MEMORY.md is already past its budget of 40 lines; file it in a topic index, moving some of MEMORY.md's "
        "entries into one first if none fits")


def test_orphan_hint_counts_a_roots_trailing_blank_line_and_its_line_budget(make_store, cli):
    """An entry goes beside its neighbour, not after a blank last line: a
    200-line root ending in one has room (the blank line drops out). A moc
    root at its 40-line budget has none: an entry there would put it over."""
    root = "# Memory index\n\n" + "".join(f"- [Fact {i}](project_fact_{i}.md) — fact {i}\n" for i in range(197)) + "\n"
    files = {"project_new.md": mem("new"), **{f"project_fact_{i}.md": mem(f"fact-{i}") for i in range(197)}}
    found = run(cli, make_store({"MEMORY.md": root, **files}))
    assert message(found, "MEM201").split("; ", 1)[1].startswith("add an entry for it to MEMORY.md, beside project_fact_")
    thin = "# Memory\n" + "".join(f"- [Fact {i}](project_fact_{i}.md) — fact {i}\n" for i in range(39))
    files = {"project_new.md": mem("new"), **{f"project_fact_{i}.md": mem(f"fact-{i}") for i in range(39)}}
    found = run(cli, make_store({"MEMORY.md": thin, **files}, sub="moc"), "--preset", "moc", "--select", "MEM1,MEM201")
    assert message(found, "MEM201").split("; ", 1)[1] == (
        "MEMORY.md is full: one more entry would take it over its budget of 40 lines; file it in a topic index, moving "
        "some of MEMORY.md's entries into one first if none fits")
    assert "MEM101" not in {f["code"] for f in found}


def test_orphan_hint_keeps_a_root_full_whose_budget_finding_one_line_hides_until_an_entry_moves_it(make_store, cli):
    """`memlint-disable-line MEM101` on line 41 hides the budget finding now;
    an entry added beside line 11 moves that directive to line 42 and the
    finding, on line 41, shows: the root is still full."""
    thick = "# Memory\n" + "".join(f"- [Fact {i}](project_fact_{i}.md) — fact {i}\n" for i in range(45))
    lines = thick.split("\n")
    lines[40] += " <!-- memlint-disable-line MEM101 -->"
    files = {"project_new.md": mem("new"), **{f"project_fact_{i}.md": mem(f"fact-{i}") for i in range(45)}}
    found = run(cli, make_store({"MEMORY.md": "\n".join(lines), **files}, sub="moc"), "--preset", "moc",
                "--select", "MEM1,MEM201")
    assert "MEM101" not in {f["code"] for f in found}
    assert "MEMORY.md is full: one more entry would take it over its budget of 40 lines" in message(found, "MEM201")


@pytest.mark.parametrize("leave_out", ["off", "directive"])
def test_orphan_hint_lets_a_root_grow_past_a_line_budget_mem101_is_told_to_leave(make_store, cli, leave_out):
    """The 40-line budget is the store's style, not the harness's cut: with
    MEM101 off, or its finding hidden, the entry may go in the root."""
    thin = "# Memory\n" + "".join(f"- [Fact {i}](project_fact_{i}.md) — fact {i}\n" for i in range(39))
    files = {"project_new.md": mem("new"), **{f"project_fact_{i}.md": mem(f"fact-{i}") for i in range(39)}}
    if leave_out == "off":
        files[".memlint.yaml"] = "preset: moc\nrules:\n  root-budget: off\n"
    else:
        thin = thin.replace("# Memory\n", "# Memory\n<!-- memlint-disable-file MEM101 -->\n")
    found = run(cli, make_store({"MEMORY.md": thin, **files}, sub="moc"), "--preset", "moc", "--select", "MEM1,MEM201")
    assert message(found, "MEM201").split("; ", 1)[1].startswith("add an entry for it to MEMORY.md, beside project_fact_")


@pytest.mark.parametrize("entries, prose, full", [
    (24, 0, None), (25, 0, "it lists 25 entries, its cap is 25"), (3, 96, "it is 100 lines, its cap is 100"),
])
def test_orphan_hint_never_adds_an_entry_to_a_topic_at_its_cap(make_store, cli, entries, prose, full):
    """An entry added to a moc topic at its 25 entries (or 100 lines) is
    topic-oversized's finding (MEM103): the hint says the topic is full instead."""
    topic = "# Projects\n" + "".join(f"- [P{i}](project_{i}.md) — p{i}\n" for i in range(entries)) + "Notes.\n" * prose
    files = {f"project_{i}.md": mem(f"p-{i}", created="2026-01-01", last_verified="2026-05-01") for i in range(entries)}
    store = make_store({"MEMORY.md": "# Memory\n- [Projects](MOC-projects.md) — projects\n", "MOC-projects.md": topic,
                        "project_new.md": mem("new", created="2026-01-01", last_verified="2026-05-01"), **files})
    found = run(cli, store, "--preset", "moc")
    assert {f["code"] for f in found} == {"MEM201"}
    hint = message(found, "MEM201").split("; ", 1)[1]
    if full:
        assert hint == (f"MOC-projects.md is full: {full}; file it in another topic index, or split MOC-projects.md "
                        "into sub-topics first")
    else:
        assert hint.startswith("add an entry for it to MOC-projects.md, beside project_")
        # the fix it names makes no finding of its own
        (store / "MOC-projects.md").write_text(topic + "- [New](project_new.md) — new\n")
        assert run(cli, store, "--preset", "moc") == []


@pytest.mark.parametrize("leave_out", ["ignore", "directive", "disable from the top"])
def test_orphan_hint_names_a_full_topic_mem103_leaves_out_as_the_place_to_file(make_store, cli, leave_out):
    """A topic at its cap that MEM103 is told to leave alone (its `ignore:`,
    the disable-file its own advice suggests, or a disable above every entry)
    may grow: the entry goes there."""
    topic = "# Projects\n" + "".join(f"- [P{i}](project_{i}.md) — p{i}\n" for i in range(25))
    if leave_out == "directive":
        topic += "<!-- memlint-disable-file MEM103 -->\n"
    if leave_out == "disable from the top":
        topic = topic.replace("# Projects\n", "# Projects\n<!-- memlint-disable MEM103 -->\n")
    files = {f"project_{i}.md": mem(f"p-{i}", created="2026-01-01", last_verified="2026-05-01") for i in range(25)}
    config = {".memlint.yaml": "rules:\n  MEM103:\n    ignore: [MOC-projects.md]\n"} if leave_out == "ignore" else {}
    store = make_store({"MEMORY.md": "# Memory\n- [Projects](MOC-projects.md) — projects\n", "MOC-projects.md": topic,
                        "project_new.md": mem("new", created="2026-01-01", last_verified="2026-05-01"),
                        **files, **config})
    found = run(cli, store, "--preset", "moc")
    assert message(found, "MEM201").split("; ", 1)[1].startswith("add an entry for it to MOC-projects.md, beside ")
    (store / "MOC-projects.md").write_text(topic + "- [New](project_new.md) — new\n")
    assert run(cli, store, "--preset", "moc") == []


def test_orphan_hint_calls_a_topic_full_where_a_directive_leaves_only_some_lines_to_grow(make_store, cli):
    """`memlint-disable MEM103` at its end: an entry added beside line 11 would still be MEM103's finding."""
    topic = ("# Projects\n" + "".join(f"- [P{i}](project_{i}.md) — p{i}\n" for i in range(25))
             + "<!-- memlint-disable MEM103 -->\n")
    files = {f"project_{i}.md": mem(f"p-{i}", created="2026-01-01", last_verified="2026-05-01") for i in range(25)}
    store = make_store({"MEMORY.md": "# Memory\n- [Projects](MOC-projects.md) — projects\n", "MOC-projects.md": topic,
                        "project_new.md": mem("new", created="2026-01-01", last_verified="2026-05-01"), **files})
    assert "MOC-projects.md is full: it lists 25 entries" in message(run(cli, store, "--preset", "moc"), "MEM201")


def test_orphan_hint_judges_each_cap_by_the_lines_its_finding_could_move_to(make_store, cli):
    """The line cap's finding is on line max-lines + 1 whatever is hidden after
    it; the entry cap's moves from the cap-th entry's line to the end, so a
    disable above the last 22 of 25 entries hides it wherever one is added."""
    files = {f"project_{i}.md": mem(f"p-{i}", created="2026-01-01", last_verified="2026-05-01") for i in range(25)}
    files["project_new.md"] = mem("new", created="2026-01-01", last_verified="2026-05-01")
    root = "# Memory\n- [Projects](MOC-projects.md) — projects\n"
    entries = ["- [P%d](project_%d.md) — p%d\n" % (i, i, i) for i in range(25)]
    long_preamble = ("# Projects\n" + "Notes.\n" * 110 + "<!-- memlint-disable MEM103 -->\n" + "".join(entries[:5])
                     + "".join(f"- [[project_{i}]]\n" for i in range(5, 25)))
    hint = message(run(cli, make_store({"MEMORY.md": root, "MOC-projects.md": long_preamble, **files}), "--preset", "moc"),
                   "MEM201")
    assert "MOC-projects.md is full: it is 137 lines, its cap is 100" in hint
    pinned = ("# Projects\n## Pinned\n" + "".join(entries[:3]) + "## Archive\n<!-- memlint-disable MEM103 -->\n"
              + "".join(entries[3:]))
    store = make_store({"MEMORY.md": root, "MOC-projects.md": pinned, **files})
    assert message(run(cli, store, "--preset", "moc"), "MEM201").split("; ", 1)[1].startswith(
        "add an entry for it to MOC-projects.md")


def test_orphan_hint_picks_the_topic_holding_its_folder(make_store, cli):
    topic = "# Tools\n" + "".join(f"- [[tools/t{i}]]\n" for i in range(1, 4))
    store = make_store(
        {
            "MEMORY.md": "# M\n- [[MOC-tools]]\n- [[MOC-projects]]\n",
            "MOC-tools.md": topic,
            "MOC-projects.md": "# Projects\n- [[projects/p1]]\n",
            **{f"tools/t{i}.md": "# t\n" for i in range(1, 5)},
            "projects/p1.md": "# p\n",
        }
    )
    found = run(cli, store)
    assert only(found, "MEM201") == [("tools/t4.md", 1, 1)]
    assert message(found, "MEM201").endswith("add an entry for it to MOC-tools.md, beside tools/t3.md (line 4)")


def test_orphan_hint_never_names_an_index_the_agent_does_not_read_to_its_end(make_store, cli):
    """A memory listed only past index-depth: the index that lists it is no
    fix, and the file is not its own neighbour."""
    store = make_store({
        "MEMORY.md": "- [T1](MOC-1.md) — t1\n",
        "MOC-1.md": "- [T2](MOC-2.md) — t2\n",
        "MOC-2.md": "- [T3](MOC-3.md) — t3\n",
        "MOC-3.md": "- [C](deep/c.md) — c\n",
        "deep/c.md": mem("c"),
    })
    found = run(cli, store, "--preset", "moc")
    text = message(found, "MEM201")
    assert "index-depth is 3" in text and "MOC-3.md, beside" not in text and "beside deep/c.md" not in text
    assert text.endswith("; link MOC-3.md from an index nearer the root, or raise index-depth")


def test_orphan_hint_never_sends_a_memory_to_a_declared_topic_too_far_down(make_store, cli):
    """``topics: [deep]`` names an index the agent does not read: filing the
    memory there would change nothing, and one listed there already would be
    told to add what it has."""
    store = make_store({
        "MEMORY.md": "- [T1](MOC-1.md) — t1\n",
        "MOC-1.md": "- [T2](MOC-2.md) — t2\n",
        "MOC-2.md": "- [T3](MOC-deep.md) — t3\n",
        "MOC-deep.md": "- [C](c.md) — c\n",
        "c.md": "---\ntopics: [deep]\n---\n# c\n",
        "d.md": "---\ntopics: [deep]\n---\n# d\n",
    })
    found = {f["path"]: f["message"] for f in run(cli, store, "--preset", "moc") if f["code"] == "MEM201"}
    assert found["c.md"].endswith("; link MOC-deep.md from an index nearer the root, or raise index-depth")
    assert found["d.md"].endswith("; add an entry for it to its topic MOC-deep.md, and link MOC-deep.md from an index "
                                  "the root reaches (the agent does not read it now)")


def test_orphan_hint_follows_a_declared_topic(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": "# M\n- [[MOC-tools]]\n- [[MOC-projects]]\n",
            "MOC-tools.md": "# Tools\n- [[rg]]\n",
            "MOC-projects.md": "# Projects\n- [[p1]]\n",
            "rg.md": "# rg\n",
            "p1.md": "# p\n",
            "jq.md": "---\ntopics: [tools]\n---\n# jq\n",
        }
    )
    found = run(cli, store)
    assert only(found, "MEM201") == [("jq.md", 1, 1)]
    assert message(found, "MEM201").endswith("; add an entry for it to MOC-tools.md")


def test_orphan_quiet_on_logs_exempt_archives_templates_and_second_level_indexes(make_store, cli):
    hub = "# Hub\n" + "".join(f"- [P{i}](p{i}.md) — p\n" for i in range(1, 6))
    store = make_store(
        {
            "MEMORY.md": "# Index\n- [Hub](hub.md) — projects\n",
            "hub.md": hub,
            **{f"p{i}.md": mem(f"p{i}") for i in range(1, 6)},
            "memory/2026-03-01.md": "# log\n",
            "NOW.md": "# now\n",
            "archive/old.md": mem("old"),
            "memory-template.md": mem("template"),
            "entities/TEMPLATE.md": "# Entity\n",
            "Archive/2025.md": mem("old-2025"),
            "agents/daily-2026-03-26.md": "# day\n",
        }
    )
    assert only(run(cli, store), "MEM201") == []


def test_orphan_reports_an_unlinked_topic_once_not_every_memory_under_it(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": "# M\n- [[MOC-a]]\n",
            "MOC-a.md": "# A\n- [[a1]]\n",
            "MOC-b.md": "# B\n- [[b1]]\n- [[b2]]\n- [[MOC-c]]\n",
            "MOC-c.md": "# C\n- [[c1]]\n- [[MOC-b]]\n",  # b and c only list each other
            "a1.md": "# a1\n",
            "b1.md": "# b1\n",
            "b2.md": "# b2\n",
            "c1.md": "# c1\n",
        }
    )
    found = run(cli, store)
    assert only(found, "MEM201") == [("MOC-b.md", 1, 1)]
    assert message(found, "MEM201") == (
        "topic index not reachable from MEMORY.md (listed only in MOC-c.md, which the root does not reach either); "
        "4 files reached only through it are lost with it; link it from MEMORY.md"
    )


def test_an_unlinked_topic_whose_chain_runs_past_index_depth_names_the_indexes_to_link_too(make_store, cli):
    """MOC-a lists MOC-b, which lists MOC-c, which lists c1: MOC-a linked
    from the root alone would leave c1 four links down (index-depth 3), so
    the advice names MOC-c too; followed, every file is reached."""
    store = make_store(
        {
            "MEMORY.md": "# M\n- [[a0]]\n",
            "MOC-a.md": "# A\n- [[a1]]\n- [[MOC-b]]\n",
            "MOC-b.md": "# B\n- [[b1]]\n- [[MOC-c]]\n",
            "MOC-c.md": "# C\n- [[c1]]\n",
            **{f"{name}.md": f"# {name}\n" for name in ("a0", "a1", "b1", "c1")},
        }
    )
    found = run(cli, store)
    assert only(found, "MEM201") == [("MOC-a.md", 1, 1)]
    assert message(found, "MEM201").endswith(
        "5 files reached only through it are lost with it; link it from MEMORY.md, and MOC-c.md too "
        "(through it, what that lists would sit past index-depth 3)")
    (store / "MEMORY.md").write_text("# M\n- [[a0]]\n- [[MOC-a]]\n- [[MOC-c]]\n")
    assert only(run(cli, store), "MEM201") == []
    (store / "MEMORY.md").write_text("# M\n- [[a0]]\n- [[MOC-a]]\n")  # the old advice, alone
    assert only(run(cli, store), "MEM201") == [("c1.md", 1, 1)]


def test_a_retired_topic_or_an_exempt_archive_index_does_not_hide_the_live_memories_it_lists(make_store, cli):
    """Archiving an old topic is tidying up: its finding is not shown (it is
    retired, or exempt), so the live memories only it lists are reported
    each, not lost with it in silence."""
    listing = "".join(f"- [p{i}](p{i}.md)\n" for i in range(1, 6))
    store = make_store({
        "MEMORY.md": "# M\n- [A](a.md)\n", "a.md": mem("a"),
        "projects.md": "---\nname: old\ndescription: d\ntype: reference\nstatus: archived\n---\n" + listing,
        **{f"p{i}.md": mem(f"p{i}") for i in range(1, 6)},
        "archive/INDEX.md": "# Archive\n- [L](../live.md)\n- [Old](old.md)\n", "archive/old.md": mem("old2"),
        "live.md": mem("live"),
    })
    assert sorted(p for p, _, _ in only(run(cli, store), "MEM201")) == ["live.md", *[f"p{i}.md" for i in range(1, 6)]]


def test_a_retired_topic_the_topics_globs_name_is_retired_too(make_store, cli):
    """A topic index by its name (MOC-*.md under moc) with a retired status:
    unreached, it is not itself reported (advice to route to it again) while
    the live memories only it lists are lost in silence; reached, the entry
    routing to it is MEM205's, and it routes nobody itself."""
    listing = "".join(f"- [p{i}](p{i}.md) — p\n" for i in range(1, 4))
    old = "---\nstatus: archived\n---\n# Old\n" + listing + "- [Gone](gone.md) — retired too\n"
    files = {"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": mem("a"), "MOC-old.md": old,
             "gone.md": mem("gone", status="archived"), **{f"p{i}.md": mem(f"p{i}") for i in range(1, 4)}}
    store = make_store(files)
    found = run(cli, store, "--preset", "moc")
    assert sorted(p for p, _, _ in only(found, "MEM201")) == ["p1.md", "p2.md", "p3.md"]
    (store / "MEMORY.md").write_text("# M\n- [A](a.md) — a\n- [Old](MOC-old.md) — old topic\n")
    found = run(cli, store, "--preset", "moc")
    assert only(found, "MEM205") == [("MEMORY.md", 3, 3)]
    assert only(found, "MEM201") == []
    summary = cli("check", store, "--preset", "moc", "--summary", "--format", "text").output
    assert "index entries  1 route to retired" in summary  # the root's entry; none from the retired topic
    (store / "MOC-old.md").write_text(old.replace("status: archived", "status: active"))  # live again: it routes
    assert only(run(cli, store, "--preset", "moc"), "MEM205") == [("MOC-old.md", 8, 3)]
    # An `expires` past does not retire a topic (MEM502's expiry is a memory's): routed to, it is no
    # MEM205, or MEM201's advice to route to it would be answered by MEM205's to stop.
    (store / "MOC-old.md").write_text(old.replace("status: archived", "expires: 2020-01-01"))
    found = run(cli, store, "--preset", "moc")
    assert only(found, "MEM205") == [("MOC-old.md", 8, 3)] and only(found, "MEM201") == []


def test_orphan_beyond_index_depth_and_behind_body_links(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": "# M\n- [[MOC-a]]\n",
            "MOC-a.md": "# A\n- [[a1]]\n- [[MOC-deep]]\n",
            "MOC-deep.md": "# Deep\n- [[d1]]\n",
            "a1.md": "# a1\nSee [[b1]].\n",
            "b1.md": "# b1\n",
            "d1.md": "# d1\n",
            ".memlint.yaml": "index-depth: 2\n",
        }
    )
    found = {f["path"]: f["message"] for f in run(cli, store) if f["code"] == "MEM201"}
    assert sorted(found) == ["b1.md", "d1.md"]
    assert "linked only from a1.md, which the agent does not route by" in found["b1.md"]
    assert "listed only in MOC-deep.md, which is 2 links from the root; index-depth is 2" in found["d1.md"]


def test_orphan_is_a_warning_under_openclaw(make_store, cli):
    store = make_store({"MEMORY.md": "# M\n", "memory/2026-03-01.md": "# log\n", "memory/notes.md": "# notes\n"})
    found = run(cli, store, "--preset", "openclaw")
    assert [(f["path"], f["line"], f["severity"]) for f in found if f["code"] == "MEM201"] == [("memory/notes.md", 1, "warning")]


def test_orphan_suppressed_by_disable_file_in_the_orphan(make_store, cli):
    store = make_store({"MEMORY.md": "# M\n", "a.md": "<!-- memlint-disable-file orphan -->\n" + mem("a")})
    assert only(run(cli, store), "MEM201") == []


# ---------------------------------------------------------------- MEM202 broken-link


def test_broken_link_fires_on_its_line_and_column_with_did_you_mean(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": "# Index\n- [Pricing](project_pricng.md) — prices\n- [Ok](project_pricing.md) — ok\n",
            "project_pricing.md": mem("pricing") + "\nSee ![chart](charts/q1.png) and [[Project Pricing]].\n",
        }
    )
    found = run(cli, store)
    assert only(found, "MEM202") == [("MEMORY.md", 2, 3), ("project_pricing.md", 8, 5)]
    messages = [f["message"] for f in found if f["code"] == "MEM202"]
    assert messages[0] == "link target `project_pricng.md` does not exist; did you mean project_pricing.md?"
    assert messages[1] == "link target `charts/q1.png` does not exist"


def test_the_near_spelling_chosen_is_difflibs_best_among_many_near_names():
    """The guess skips the exact ratio of names that cannot beat the best so
    far: it must still pick what difflib.get_close_matches(n=1) picks, ties
    on the ratio included (the greater name wins there)."""
    import difflib
    import random

    from memlint.graph import _closest_match

    rng = random.Random(20261202)
    for _ in range(3000):
        letters = rng.choice(["abc", "abcdeé_-12"])  # three letters: many ties on the ratio
        word = "".join(rng.choice(letters) for _ in range(rng.randint(3, 12)))
        pool = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 14))) for _ in range(rng.randint(0, 30))]
        pool += [word[:-1] + c for c in "ab"] if rng.random() < 0.3 else []
        for cutoff in (0.6, 0.75):
            expected = difflib.get_close_matches(word, pool, n=1, cutoff=cutoff)
            assert _closest_match(word, pool, cutoff) == (expected[0] if expected else None), (word, pool)


def test_near_spellings_are_guessed_once_a_name_and_at_most_max_guesses_a_run(make_store, cli, monkeypatch):
    from memlint import graph

    guessed: list[str] = []
    real = graph._closest_match

    def counting(word, possibilities, cutoff):
        guessed.append(word)
        return real(word, possibilities, cutoff)

    monkeypatch.setattr(graph, "_closest_match", counting)
    monkeypatch.setattr(graph._Suggester, "MAX_GUESSES", 3)
    names = ["pricng", "pricin", "prcing", "pricingg"]
    store = make_store({
        "MEMORY.md": "# Index\n- [Q](qqqqqq.md) — no file shares an end with it: no guess\n"
                     + "".join(f"- [P](project_{name}.md) — p\n" for name in ["pricng"] * 5 + names[1:])
                     + "- [Ok](project_pricing.md) — ok\n",
        "project_pricing.md": mem("pricing"),
    })
    messages = [f["message"] for f in run(cli, store) if f["code"] == "MEM202"]
    assert sorted(guessed) == ["projectprcing", "projectpricin", "projectpricng"]  # the first three names, once each
    assert messages[0] == "link target `qqqqqq.md` does not exist"
    assert messages[1:6] == ["link target `project_pricng.md` does not exist; did you mean project_pricing.md?"] * 5
    assert messages[-1] == "link target `project_pricingg.md` does not exist"  # past the guesses a run makes


def test_a_wikilink_without_the_type_prefix_is_offered_the_one_file_that_has_it(make_store, cli):
    store = make_store({
        "MEMORY.md": "# Index\n- [[beta]] — b\n- [[gamma]] — c\n- [[delta]] — d\n- [P](project_gamma.md) — p\n"
                     "- [[agent]] — a\n",
        "feedback_beta.md": mem("feedback_beta"),
        "agents.md": mem("agents"), "multi-agent.md": mem("multi-agent"),  # a near spelling beats a prefix cut off
        "project_gamma.md": mem("project_gamma"),
        "feedback_gamma.md": mem("feedback_gamma"),  # two files end in gamma: no guess
        "alphadelta.md": mem("alphadelta"),  # ends in delta, but with no prefix cut off by `_` or `-`
    })
    messages = {f["line"]: f["message"] for f in run(cli, store) if f["code"] == "MEM202"}
    assert messages == {
        2: "[[beta]] matches no file, name or title in the store; did you mean [[feedback_beta]]?",
        3: "[[gamma]] matches no file, name or title in the store",
        4: "[[delta]] matches no file, name or title in the store",
        6: "[[agent]] matches no file, name or title in the store; did you mean [[agents]]?",
    }


def test_github_footnotes_are_no_links_but_a_link_whose_text_starts_with_a_caret_is(make_store, cli):
    store = make_store({
        "MEMORY.md": "# Index\n- [A](a.md) — a\n",
        "a.md": mem("a") + "The limit is 500 rps[^1], then [^note].\nSee [^x](gone.md).\n\n[^1]: Source\n[^note]: 2026-03-01\n",
    })
    assert only(run(cli, store), "MEM202") == [("a.md", 8, 5)]


@pytest.mark.parametrize("quoted", [
    "\n## Syntax\n\n    - [[gone]]\n",  # an indented code block
    "\n## Syntax\n    [[gone]]\n",  # one right after a heading
    "\n## Syntax\n\n\t`gone.md` and [[gone]]\n",  # indented with a tab
    "\n> ~~~\n> [[gone]]\n> ~~~\n",  # a fence in a quote
    "\n1. e.g.\n\n    ~~~\n    [[gone]]\n    ~~~\n",  # a fence in a list item
    "\n- ```\n  [[gone]]\n  ```\n",  # a fence opening a list item
])
def test_a_wikilink_in_code_of_any_depth_is_quoted_not_a_link(make_store, cli, quoted):
    store = make_store({"MEMORY.md": "# Index\n- [A](a.md) — a\n" + quoted, "a.md": mem("a")})
    assert only(run(cli, store, "--select", "MEM202"), "MEM202") == []
    nested = make_store({"MEMORY.md": "# Index\n- [A](a.md) — a\n    - [[gone]]\n", "a.md": mem("a")}, sub="nested")
    assert only(run(cli, nested, "--select", "MEM202"), "MEM202") == [("MEMORY.md", 3, 7)]  # a nested item, not code
    tabs = make_store({"MEMORY.md": "# Index\n- [A](a.md) — a\n\t- [[gone]]\n\t\t- [[gone2]]\n", "a.md": mem("a")},
                      sub="tabs")  # an Obsidian vault's nesting
    assert only(run(cli, tabs, "--select", "MEM202"), "MEM202") == [("MEMORY.md", 3, 4), ("MEMORY.md", 4, 5)]


def test_a_long_run_of_reference_definitions_still_routes_the_agent(make_store, cli):
    """350 entries `- [Note i][ni]` and their 350 definitions: 12,000
    characters of definitions are no paragraph too long for the CommonMark
    parser, and no memory is an orphan."""
    root = "".join(f"- [Note {i}][n{i}] — about {i}\n" for i in range(350)) + "\n"
    root += "".join(f"[n{i}]: memory/note-number-{i:04}.md\n" for i in range(350))
    store = make_store({"MEMORY.md": root, **{f"memory/note-number-{i:04}.md": mem(f"n{i}") for i in range(350)}})
    assert only(run(cli, store, "--select", "MEM201"), "MEM201") == []


def test_an_encoded_hash_or_question_mark_is_part_of_the_file_name(make_store, cli):
    """``c%23.md`` is the file ``c#.md``, ``what%3F.md`` is ``what?.md``; a
    bare ``#`` still starts the fragment, and a missing file is still broken."""
    store = make_store({
        "MEMORY.md": ("# Index\n- [C#](reference_c%23.md) — c\n- [Q](what%3f.md#part) — q\n"
                      "- [D](d.md#c%23) — d\n- [E](gone%23.md) — e\n"),
        "reference_c#.md": mem("c"), "what?.md": mem("q"), "d.md": mem("d"),
    })
    found = run(cli, store)
    assert only(found, "MEM201") == [] and only(found, "MEM202") == [("MEMORY.md", 5, 3)]
    assert "gone%23.md" in message(found, "MEM202")


def test_an_encoded_percent_sign_is_decoded_once(make_store, cli):
    """``c%2523.md`` is the file ``c%23.md`` (``%25`` is ``%``), not ``c#.md``;
    a bare ``%`` is itself (CommonMark reads it as ``%25``)."""
    store = make_store({
        "MEMORY.md": "# Index\n- [C](c%2523.md) — c\n- [P](p%.md) — p\n- [Q](q%25.md#top) — q\n- [G](gone%2523.md) — g\n",
        "c%23.md": mem("c"), "c#.md": mem("hash"), "p%.md": mem("p"), "q%.md": mem("q"),
    })
    found = run(cli, store)
    assert only(found, "MEM201") == [("c#.md", 1, 1)] and only(found, "MEM202") == [("MEMORY.md", 5, 3)]
    assert message(found, "MEM202") == "link target `gone%23.md` does not exist"  # the name looked for


def test_a_missing_target_with_a_percent_sign_is_named_as_written(make_store, cli):
    store = make_store({"MEMORY.md": "# Index\n- [P](50%.md) — p\n"})
    found = run(cli, store)
    assert message(found, "MEM202") == "link target `50%.md` does not exist"


def test_a_link_reaches_a_file_whose_name_is_not_utf8(make_store, cli):
    """`%E9` is the byte 0xE9, as the file name b'lat\\xe9.md' holds it (memlint
    names it `lat\\udce9.md`); a missing one is named so too, never mangled."""
    latin = os.fsdecode(b"lat\xe9.md")
    store = make_store({"MEMORY.md": "# M\n- [L](lat%E9.md) — l\n- [G](gone%E9.md) — g\n", latin: mem("latin")})
    found = run(cli, store)
    assert only(found, "MEM201") == [] and only(found, "MEM202") == [("MEMORY.md", 3, 3)]
    assert message(found, "MEM202") == "link target `gone\udce9.md` does not exist"


def test_a_backtick_path_in_the_root_reaches_a_file_whatever_its_name_holds(make_store, cli):
    """`meeting (2).md` names a file as `plain name.md` does; a code span is
    no URL, so `100%25.md` is the file of that name, `%25` and all."""
    names = ["meeting (2)", "q&a", "plain name", "a+b, c", "it's done!", "100%25"]
    store = make_store({"MEMORY.md": "# M\n" + "".join(f"- Context: `{n}.md`\n" for n in names) + "- `ls -la`\n",
                        **{f"{n}.md": mem(n.replace("%", "p")) for n in names}, "100%.md": mem("percent")})
    found = run(cli, store)
    assert only(found, "MEM201") == [("100%.md", 1, 1)] and only(found, "MEM202") == []


def test_a_file_named_with_a_question_mark_is_told_how_to_link_it(make_store, cli):
    """`?` starts a query: the link reads `plan`, and "did you mean plan?.md"
    would print the link as written back."""
    store = make_store({"MEMORY.md": "# M\n- [P](<plan?.md>) — the plan\n", "plan?.md": mem("p")})
    text = message(run(cli, store), "MEM202")
    assert "did you mean" not in text and "the file read is `plan`" in text and "write `plan%3F.md`" in text


def test_a_file_named_with_a_hash_is_told_how_to_link_it_however_short_its_name(make_store, cli):
    """`#` starts an anchor: `[c](c#.md)` reads `c`. Where `c#.md` exists the
    finding says so and how to write it; where it does not, a plain MEM202."""
    store = make_store({"MEMORY.md": "# M\n- [C](c#.md) — c\n- [G](gone#.md) — g\n- [N](<n b?x#y.md>) — n\n",
                        "c#.md": mem("c"), "n b?x#y.md": mem("n")})
    assert [f["message"] for f in run(cli, store) if f["code"] == "MEM202"] == [
        "link target `c#.md` does not exist: a `#` in a link starts an anchor, so the file read is `c`; "
        "to link the file `c#.md`, write `c%23.md`",
        "link target `gone#.md` does not exist",
        "link target `n b?x#y.md` does not exist: a `?` in a link starts a query, so the file read is `n b`; "
        "to link the file `n b?x#y.md`, write `n%20b%3Fx%23y.md`",
    ]


def test_broken_link_suggests_same_name_in_another_folder_and_case(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": "# M\n- [A](Tools/RG.md)\n- [B](rg.md)\n- [T](tools/rg.md)\n",
            "tools/rg.md": mem("rg"),
        }
    )
    found = run(cli, store)
    assert [f["message"].split("; ")[1] for f in found if f["code"] == "MEM202"] == [
        "did you mean tools/rg.md?",
        "did you mean tools/rg.md?",
    ]


@pytest.mark.parametrize("wiki", [False, True])
def test_broken_link_suggests_the_candidate_with_fewest_folders_then_in_path_order(make_store, cli, wiki):
    # Several files answer a misspelt name: the one nearest the store's top,
    # then the first in path order, whichever table found them (a store with
    # a [[wikilink]] files the folded names for it, and the suggestion reuses them).
    files = {
        "MEMORY.md": "# M\n- [R](rg.md)\n- [D](deploy-notes.md)\n- [S](zz/sessionz.md)\n"
        + ("- [[tools/rg]]\n" if wiki else ""),
        "tools/deep/rg.md": mem("rg deep"),
        "a/z/rg.md": mem("rg a/z"),  # first in path order, but a folder deeper
        "tools/rg.md": mem("rg"),
        "b/rg.md": mem("rg b"),
        "x/y/Deploy_Notes.md": mem("deploy deep"),
        "x/deploy_notes.md": mem("deploy"),
        "a/deploy notes.md": mem("deploy a"),
        "q/r/sessions.md": mem("sessions deep"),
        "p/sessions.md": mem("sessions"),
        "o/sessions.md": mem("sessions o"),
    }
    found = run(cli, make_store(files))
    assert sorted(f["message"].split("; ")[1] for f in found if f["code"] == "MEM202") == [
        "did you mean a/deploy notes.md?",
        "did you mean b/rg.md?",
        "did you mean o/sessions.md?",
    ]


def test_broken_link_to_a_name_in_another_unicode_normalization_says_so(make_store, cli):
    # macOS has written file names decomposed (e + combining accent); a link
    # typed with the composed é finds the file there, not on Linux or GitHub.
    decomposed, composed = "cafe\u0301.md", "caf\u00e9.md"
    store = make_store({
        "MEMORY.md": f"# M\n- [C]({composed})\n- [W](r%C3%A9sum%C3%A9.md)\n- [[re\u0301sume\u0301]]\n- [ok](tools/rg.md)\n",
        decomposed: mem("cafe"),
        "re\u0301sume\u0301.md": mem("resume"),
        "tools/rg.md": mem("rg"),
    })
    found = run(cli, store)
    messages = [f["message"] for f in found if f["code"] == "MEM202"]
    assert len(messages) == 2  # the wikilink spelt as the file is spelt resolves
    for text in messages:
        assert "other Unicode code points" in text and "did you mean" not in text
    assert f"; {decomposed} exists" in messages[0]
    assert [f["path"] for f in found if f["code"] == "MEM201"] == [decomposed]
    # in another folder as well: then it is a plain "did you mean"
    store = make_store({"MEMORY.md": f"# M\n- [C](notes/{composed})\n", f"archive/{decomposed}": mem("cafe")},
                       sub="other")
    [text] = [f["message"] for f in run(cli, store) if f["code"] == "MEM202"]
    assert text.endswith(f"; did you mean archive/{decomposed}?")


@pytest.mark.parametrize("preset", ["claude-code", "moc"])
def test_dangling_wikilink_ok_in_a_memory_body_broken_in_an_index_or_as_a_path(make_store, cli, preset):
    files = {
        "MEMORY.md": "# M\n- [[topics/work]]\n",
        "topics/work.md": "# T\n- [[note]]\n- [[nope]]\n",
        "note.md": "# n\nLater: [[to-write]]; see [[archive/gone.md]] and [[drafts/plan]].\n",
    }
    found = run(cli, make_store(files, sub=preset), "--preset", preset)
    # [[to-write]] in a memory body is a note to write later; a topic entry or a path to nothing is broken
    assert only(found, "MEM202") == [("note.md", 2, 26), ("note.md", 2, 50), ("topics/work.md", 3, 3)]


def test_a_wikilink_path_matches_a_path_ending_not_a_file_of_that_name_elsewhere(make_store, cli):
    """[[memory/2026-03-06.md]] after the log moved to archives/ leads nowhere
    (a real store had two); [[archive/deep]] finds sub/archive/deep.md, as
    Obsidian finds a path by its ending, and [[Old/Thing]] old/thing.md."""
    files = {
        "MEMORY.md": "# M\nSee [[memory/2026-03-06.md]], [[archive/deep]], [[Old/Thing]] and [[nowhere/real]].\n",
        "archives/2026-03-06.md": "# log\n",
        "sub/archive/deep.md": mem("deep"),
        "old/thing.md": mem("thing"),
        "sub/real.md": mem("real"),
    }
    found = run(cli, make_store(files), "--preset", "claude-code")
    broken = [(f["line"], f["column"], f["message"]) for f in found if f["code"] == "MEM202"]
    assert broken == [
        (2, 5, "link target [[memory/2026-03-06.md]] does not exist; did you mean [[archives/2026-03-06]]?"),
        (2, 67, "link target [[nowhere/real]] does not exist; did you mean [[sub/real]]?"),
    ]
    # the two that resolve are reached: the one orphan is the file the broken link meant
    assert [path for path, _, _ in only(found, "MEM201")] == ["sub/real.md"]


@pytest.mark.parametrize("folder", ["agent/memory", "notes"])
def test_a_wikilink_path_may_start_with_the_stores_own_folder_or_memory(make_store, cli, folder):
    """[[memory/a]] in a store kept in memory/ (no git to find it through:
    ~/.claude/projects/*/memory/), or in a copy of one named otherwise."""
    name = folder.rsplit("/", 1)[-1]
    files = {
        "MEMORY.md": f"# M\n- [[memory/a]]\n- [[{name}/sub/b]]\n- [[Memory/Sub/B]]\n- [[elsewhere/a]]\n",
        "a.md": mem("a"),
        "sub/b.md": mem("b"),
    }
    found = run(cli, make_store(files, sub=folder), "--preset", "claude-code")
    assert [(line, text.split(";")[0]) for _, line, text in
            [(f["path"], f["line"], f["message"]) for f in found if f["code"] == "MEM202"]] == [
        (5, "link target [[elsewhere/a]] does not exist")]
    assert only(found, "MEM201") == []


def test_a_wikilink_with_no_name_left_reaches_no_file(make_store, cli):
    """[[.md]] and [[/]] name nothing: not -.md, whose name folds to nothing too."""
    files = {"MEMORY.md": "# M\n- [[-]]\n- [[.md]]\n- [[dir/.md]]\n", "-.md": mem("dash")}
    found = run(cli, make_store(files), "--preset", "claude-code")
    assert [line for _, line, _ in only(found, "MEM202")] == [3, 4]


def test_a_path_that_ends_so_itself_wins_over_one_that_does_with_the_stores_folder(make_store, cli):
    """In a store kept in notes/, [[notes/x]] is old/notes/x.md, as Obsidian
    reads it; the top x.md matches only with the store's folder put before it."""
    files = {"MEMORY.md": "# M\n- [[notes/x]]\n", "x.md": mem("x1"), "old/notes/x.md": mem("x2")}
    found = run(cli, make_store(files, sub="notes"), "--preset", "claude-code")
    assert only(found, "MEM202") == [] and [path for path, _, _ in only(found, "MEM201")] == ["x.md"]


def test_wikilinks_strict_reports_every_dangling_wikilink(make_store, cli):
    files = {
        "MEMORY.md": "# M\n- [[note]]\n",
        "note.md": "# n\nLater: [[to-write]]\n",
        ".memlint.yaml": "wikilinks: strict\n",
    }
    found = run(cli, make_store(files))
    assert only(found, "MEM202") == [("note.md", 2, 8)]
    assert message(found, "MEM202") == "[[to-write]] matches no file, name or title in the store"


def test_broken_link_quiet_on_existing_repo_files_urls_and_anchors(tmp_path, make_store, cli):
    repo = make_store(
        {
            "memory/MEMORY.md": "# M\n- [A](a.md#usage)\n",
            "memory/a.md": mem("a") + "[src](../src/app.py) [web](https://example.com/x.md) [top](#top) [dir](../src/)\n",
            "src/app.py": "print()\n",
        },
        sub="repo",
    )
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    found = run(cli, repo / "memory")
    assert [f for f in found if f["code"].startswith("MEM2")] == []


def test_broken_link_off_for_wikilinks_in_openclaw(make_store, cli):
    store = make_store({"MEMORY.md": "# M\n", "memory/2026-03-01.md": "[[reply_to_current]] [[someday]]\n"})
    assert only(run(cli, store, "--preset", "openclaw"), "MEM202") == []


# ---------------------------------------------------------------- MEM203 link-outside-repo


def test_link_outside_repo_fires_and_never_reads(make_store, cli):
    repo = make_store(
        {
            "MEMORY.md": "# M\n- [A](a.md)\n",
            "a.md": mem("a")
            + "[p](../../etc/passwd)\n[abs](/etc/passwd)\n[url](file:///etc/passwd)\n[win](C:\\Users\\me\\notes.md)\n"
            + "[home](~/.ssh/id_rsa)\n[[../../../../secrets]]\n",
        }
    )
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    found = run(cli, repo, "--preset", "moc")
    assert only(found, "MEM203") == [("a.md", line, 1) for line in range(7, 13)]
    assert [f["message"] for f in found if f["code"] == "MEM203"][0] == (
        "link `../../etc/passwd` points outside the repository (climbs out of the repository); memlint does not follow it"
    )
    assert only(found, "MEM202") == []


def test_link_outside_repo_found_by_the_reference_parser_too(make_store, cli):
    # A backslash escape sends the file to markdown-it-py, which by default drops file: links.
    store = make_store({"MEMORY.md": "# M\n- [A](a.md)\n", "a.md": mem("a") + "5 \\* 3\n[cad](file:///Users/sam/x.dxf)\n"})
    assert only(run(cli, store), "MEM203") == [("a.md", 8, 1)]


def test_link_outside_repo_quiet_inside_the_repository(make_store, cli):
    repo = make_store(
        {"memory/MEMORY.md": "# M\n- [Plan](../docs/plan.md)\n", "docs/plan.md": "# plan\n"}, sub="repo"
    )
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert only(run(cli, repo / "memory"), "MEM203") == []


def test_a_scheme_relative_url_is_a_web_link_and_three_slashes_a_path(make_store, cli):
    store = make_store({"MEMORY.md": "# M\n- [web](//example.com/x.md)\n- [root](///etc/passwd)\n"})
    found = run(cli, store)
    assert only(found, "MEM203") == [("MEMORY.md", 3, 3)] and only(found, "MEM202") == []


# ---------------------------------------------------------------- MEM204 filed-twice


def test_filed_twice_in_one_index_and_in_two_topics(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": "# M\n- [[MOC-a]]\n- [[MOC-b]]\n",
            "MOC-a.md": "# A\n- [[x]] — x\n- [[y]] — y\n- [[x]] — x again\n",
            "MOC-b.md": "# B\n- [Y](y.md) — y here too\n",
            "x.md": "# x\n",
            "y.md": "# y\n",
        }
    )
    found = run(cli, store)
    assert only(found, "MEM204") == [("MOC-a.md", 4, 3), ("MOC-b.md", 2, 3)]
    assert [f["message"] for f in found if f["code"] == "MEM204"] == [
        "x.md is listed twice in this index (first on line 2)",
        "y.md is filed in two topics: also in MOC-a.md (line 3)",
    ]
    assert {f["severity"] for f in found if f["code"] == "MEM204"} == {"warning"}


def test_filed_twice_quiet_on_root_plus_topic_prose_and_backticks(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": "# M\n- [[MOC-a]]\n- [[x]] — hot entry\n",
            "MOC-a.md": "# A\nStart with [[x]].\n- [[x]] — x\n- [[y]] — see also [[x]]\n- notes in `x.md`\n",
            "x.md": "# x\n",
            "y.md": "# y\n",
        }
    )
    assert only(run(cli, store, "--preset", "moc"), "MEM204") == []


def test_filed_twice_counts_a_backtick_path_that_is_its_items_subject(make_store, cli):
    """OpenClaw roots list files as backtick paths: a block pasted twice
    lists them twice. A path mentioned inside an item's sentence is no entry."""
    block = "**Files**:\n- Plan: `drills/d1.md`\n> - `drills/d2.md` — the result\n"
    store = make_store({
        "MEMORY.md": "# M\n" + block + "\nLater:\n" + block + "- Never edit `drills/d1.md` by hand\n",
        "drills/d1.md": "# d1\n",
        "drills/d2.md": "# d2\n",
    })
    found = run(cli, store, "--preset", "openclaw")
    assert only(found, "MEM204") == [("MEMORY.md", 8, 10), ("MEMORY.md", 9, 6)]
    assert [f["message"] for f in found if f["code"] == "MEM204"] == [
        "drills/d1.md is listed twice in this index (first on line 3)",
        "drills/d2.md is listed twice in this index (first on line 4)",
    ]


def test_filed_twice_counts_a_backtick_path_in_a_table_cell_of_its_own_past_the_first(make_store, cli):
    """A table's file column need not come first (| Priority | File |): a
    path alone in its cell is the row's entry wherever the cell is; one in a
    sentence of a cell is not."""
    table = "| Priority | File | Notes |\n|---|---|---|\n| 🔴 | `memory/x.md` | core |\n"
    store = make_store({
        "MEMORY.md": "# M\n" + table + "\n## Again\n" + table + "| 🟡 | Never edit `memory/x.md` | by hand |\n",
        "memory/x.md": "# x\n",
    })
    found = run(cli, store, "--preset", "openclaw")
    assert only(found, "MEM204") == [("MEMORY.md", 9, 8)]
    assert [f["message"] for f in found if f["code"] == "MEM204"] == [
        "memory/x.md is listed twice in this index (first on line 4)",
    ]


# ---------------------------------------------------------------- MEM205 routes-to-retired


def test_filed_twice_counts_a_path_after_cells_of_one_word_each(make_store, cli):
    """| # | File |, | Priority | File |, | Date | File |: a number, a label or a date before the path."""
    for first, again in (("1", "3"), ("P1", "P2"), ("2026-03-01", "2026-03-02"), ("🔴", "🟡"),
                         ("Authentication", "kubernetes-ops"), ("高", "核心"), ("3月1日", "2026年3月1日"),
                         ("データベース", "ｾｷｭﾘﾃｨ")):
        table = f"| Key | File | What |\n|---|---|---|\n| {first} | `memory/x.md` | X |\n| {again} | `memory/x.md` | X again |\n"
        store = make_store({"MEMORY.md": "# M\n" + table, "memory/x.md": "# x\n"})
        assert only(run(cli, store, "--preset", "openclaw"), "MEM204") == [("MEMORY.md", 5, len(again) + 7)], first


def test_filed_twice_counts_a_path_after_a_mixed_label(make_store, cli):
    """A mark beside a word (| ✅ Done |) or a Latin name with a short key of
    a script written without spaces after it (| Redis缓存 |) labels the row;
    a statement in such a cell still cites the path as its source."""
    def mem204(first, again):
        table = f"| Key | File | What |\n|---|---|---|\n| {first} | `memory/x.md` | X |\n| {again} | `memory/x.md` | X again |\n"
        store = make_store({"MEMORY.md": "# M\n" + table, "memory/x.md": "# x\n"})
        return only(run(cli, store, "--preset", "openclaw"), "MEM204")

    for first, again in (("Redis缓存", "Git運用"), ("✅ Done", "🔴 P1"), ("Done ✅", "✅ 完成"),
                         ("Redisキャッシュ", "K8s部署"), ("✅ **Done**", "⚠️ Redis缓存")):
        assert mem204(first, again) == [("MEMORY.md", 5, len(again) + 7)], first
    for first, again in (("Use Postgres", "Drop Redis"), ("禁止推送到主分支", "必须签名提交"), ("使用Redis", "放弃Redis缓存"),
                         ("Redisを使う", "Gitで管理"), ("✅ Use Postgres", "🔴 Never push"), ("Redis缓存策略", "Git工作流程")):
        assert mem204(first, again) == [], first


def test_filed_twice_reads_table_cells_by_what_they_hold(make_store, cli):
    """A cell of marks with spaces (| ✓ ✓ |) is a mark; a Chinese sentence
    written without spaces is a statement citing its source; padded empty
    cells before a statement are read at once (a regex over them could
    backtrack for hours)."""
    def mem204(rows):
        table = "| A | B | C |\n|---|---|---|\n" + "".join(rows)
        store = make_store({"MEMORY.md": "# M\n" + table, "memory/x.md": "# x\n"})
        return only(run(cli, store, "--preset", "openclaw"), "MEM204")

    assert mem204(["| ✓ ✓ | `memory/x.md` | X |\n", "| ✓ | `memory/x.md` | again |\n"]) == [("MEMORY.md", 5, 8)]
    assert mem204(["| 使用Postgres数据库 | `memory/x.md` |\n", "| 放弃Redis缓存 | `memory/x.md` |\n"]) == []
    assert mem204(["| 禁止推送 | `memory/x.md` |\n", "| 必须签名 | `memory/x.md` |\n"]) == []  # rules citing one source
    assert mem204(["| Use<br>Postgres | `memory/x.md` |\n", "| Drop<br>Redis | `memory/x.md` |\n"]) == []
    padded = "|" + "          |" * 14 + " Use Postgres | `memory/x.md` |\n"
    assert mem204([padded, padded]) == []


def test_filed_twice_leaves_a_path_citing_its_rows_source_after_the_rows_text(make_store, cli):
    """A Source column: two decisions of one day cite one log. The row's
    subject is its text; the path after it is no entry of that log's."""
    table = ("| Decision | Date | Source |\n|---|---|---|\n"
             "| Use Postgres | 2026-03-01 | `memory/2026-03-01.md` |\n"
             "| Drop Redis | 2026-03-01 | `memory/2026-03-01.md` |\n")
    store = make_store({"MEMORY.md": "# M\n" + table, "memory/2026-03-01.md": "# log\n"})
    assert only(run(cli, store, "--preset", "openclaw"), "MEM204") == []


def test_routes_to_retired_by_status_superseded_by_and_expiry(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": "# M\n- [Old](old.md)\n- [Ex](expired.md)\n- [Re](replaced.md)\n- [Ok](ok.md)\n",
            "old.md": mem("old", status="superseded"),
            "expired.md": mem("expired", expires="2026-05-31"),
            "replaced.md": mem("replaced", superseded_by="ok"),
            "ok.md": mem("ok", status="active", expires="2026-06-01"),
        }
    )
    found = run(cli, store, today="2026-06-01")
    assert only(found, "MEM205") == [("MEMORY.md", 2, 3), ("MEMORY.md", 3, 3), ("MEMORY.md", 4, 3)]
    assert [f["message"] for f in found if f["code"] == "MEM205"] == [
        "routes to old.md, which is retired: status: superseded (line 5)",
        "routes to expired.md, which is retired: expired on 2026-05-31 (line 5)",
        "routes to replaced.md, which is retired: superseded by ok.md (its `superseded_by: ok`)",
    ]


def test_routes_to_retired_into_a_hidden_folder_of_the_store(make_store, cli):
    """A memory moved to `.archive/` (a hidden folder: memlint reads none, and
    takes one for an archive) while an index entry still leads there: the agent
    follows it to what was put away. A mention in prose, a line routing first
    to a live memory, and a file of the repository elsewhere are no such route."""
    store = make_store({
        "MEMORY.md": "# M\n- [Tools](MOC-tools.md) — tools\n- [Promo](.archive/promo.md) — old codes\n",
        "MOC-tools.md": ("# Tools\n- [jq](jq.md) — jq\n- [Old promo](.archive/promo.md) — codes\n"
                         "- [New](jq.md) — replaces [old](.archive/promo.md)\n"
                         "Old notes are in [the archive](.archive/promo.md).\n- [Guide](../guide.md) — outside\n"),
        "jq.md": mem("jq"),
        ".archive/promo.md": mem("promo"),
    })
    (store.parent / "guide.md").write_text("# guide\n")
    found = run(cli, store)
    assert only(found, "MEM205") == [("MEMORY.md", 3, 3), ("MOC-tools.md", 3, 3)]
    messages = {f["path"]: f["message"] for f in found if f["code"] == "MEM205"}
    assert messages["MOC-tools.md"] == ("routes to .archive/promo.md, in the hidden folder .archive/, which memlint takes "
                                        "for an archive and does not read: the agent still follows the entry to what "
                                        "was put away there")


def test_routes_to_retired_only_from_indexes_the_agent_reads(make_store, cli):
    """An archive list nobody links to, or one retired itself, routes no
    agent; a topic the root reaches does."""
    archive = "".join(f"- [O{i}](old{i}.md) — old\n" for i in range(5))
    store = make_store({
        "MEMORY.md": "# M\n- [Live](live.md) — live\n- [Topics](topics/live.md) — topics\n",
        "live.md": mem("live"),
        **{f"old{i}.md": mem(f"old{i}", status="archived") for i in range(5)},
        "topics/archive.md": "# Archive\n" + archive.replace("(old", "(../old"),
        "topics/live.md": "# Live\n- [O0](../old0.md) — still listed\n- [L](../live.md) — live\n",
        "archive-list.md": "---\nname: a\ndescription: d\ntype: reference\nstatus: archived\n---\n" + archive,
    })
    found = run(cli, store, "--preset", "moc")
    assert only(found, "MEM205") == [("topics/live.md", 2, 3)]


def test_routes_to_retired_past_the_roots_load_cap_says_the_entry_does_not_load_now(make_store, cli):
    """An entry past the root's cut (MEM101's finding) does not load now: MEM205
    says so, not that the agent loads the old fact, and tells to drop the entry
    (moved into a topic, as MEM101's fix has it, it would route the agent). So
    for a topic reached only through lines past the cut; one above it routes."""
    files = {f"m{i}.md": mem(f"m{i}") for i in range(198)}
    files.update({
        "MEMORY.md": "# M\n- [Old](old.md) — old\n" + "".join(f"- [M{i}](m{i}.md) — m\n" for i in range(198))
                     + "- [Old](old.md) — old again\n- [Topic](topics/t.md) — topic\n",
        "topics/t.md": "# T\n- [Old](../old.md) — old\n",
        "old.md": mem("old", status="superseded"),
    })
    found = run(cli, make_store(files), "--preset", "claude-code", "--select", "MEM101,MEM205")
    assert [(f["line"], f["code"]) for f in found if f["path"] == "MEMORY.md"] == [(2, "MEM205"), (201, "MEM101"), (201, "MEM205")]
    said = {(f["path"], f["line"]): f["message"] for f in found if f["code"] == "MEM205"}
    assert said[("MEMORY.md", 2)] == "routes to old.md, which is retired: status: superseded (line 5)"
    assert said[("MEMORY.md", 201)] == (
        "routes to old.md, which is retired: status: superseded (line 5); MEMORY.md's load cap drops the line, so it "
        "does not load now, but would once the root is cut back: drop the entry rather than move it into a topic")
    assert said[("topics/t.md", 2)].endswith("; topics/t.md is reached only through lines MEMORY.md's load cap drops, "
                                             "so the entry does not load now, but would once they load: drop the entry")


def test_routes_to_retired_into_a_hidden_folder_past_the_cap_does_not_say_the_agent_follows_it(make_store, cli):
    """An entry into `.archive/` past the cut does not load now: the finding
    said "the agent still follows the entry" and then that it does not load."""
    files = {f"m{i}.md": mem(f"m{i}") for i in range(199)}
    files.update({
        "MEMORY.md": "# M\n" + "".join(f"- [M{i}](m{i}.md) — m\n" for i in range(199))
                     + "- [Promo](.archive/promo.md) — old codes\n",
        ".archive/promo.md": mem("promo"),
    })
    found = run(cli, make_store(files), "--preset", "claude-code", "--select", "MEM205")
    assert message(found, "MEM205") == (
        "routes to .archive/promo.md, in the hidden folder .archive/, which memlint takes for an archive and does not "
        "read: the entry leads to what was put away there; MEMORY.md's load cap drops the line, so it does not load "
        "now, but would once the root is cut back: drop the entry rather than move it into a topic")


def test_routes_to_retired_through_a_reference_definition_past_the_cap_says_the_entry_loses_its_target(make_store, cli):
    """`- [Old][o]` above the cut, `[o]: old.md` below it: the agent reads the
    words without the file (MEM101 counts the entry's target lost), so MEM205
    says the entry loads without its target; a topic reached only so does not
    load, as one reached only through lines past the cut does not."""
    files = {f"m{i}.md": mem(f"m{i}") for i in range(198)}
    files.update({
        "MEMORY.md": "# M\n- [Old][o] — old\n- [Topic][t] — topic\n"
                     + "".join(f"- [M{i}](m{i}.md) — m\n" for i in range(198)) + "\n[o]: old.md\n[t]: topics/t.md\n",
        "topics/t.md": "# T\n- [Old](../old.md) — old\n",
        "old.md": mem("old", status="superseded"),
    })
    found = run(cli, make_store(files), "--preset", "claude-code", "--select", "MEM101,MEM205")
    assert "topics/t.md" in message(found, "MEM101")
    said = {(f["path"], f["line"]): f["message"] for f in found if f["code"] == "MEM205"}
    assert said == {
        ("MEMORY.md", 2): "routes to old.md, which is retired: status: superseded (line 5); MEMORY.md's load cap drops "
                          "the link's reference definition, so the entry loads without its target now, but would route "
                          "there once the root is cut back: drop the entry and its definition",
        ("topics/t.md", 2): "routes to old.md, which is retired: status: superseded (line 5); topics/t.md is reached "
                            "only through what MEMORY.md's load cap drops, so the entry does not load now, but would once "
                            "that loads: drop the entry",
    }


@pytest.mark.parametrize("status", ["outdated", "archived", "conflicted", "Deprecated"])
def test_routes_to_retired_statuses_and_metadata_nesting(make_store, cli, status):
    nested = f"---\nname: n\ndescription: d\nmetadata:\n  type: project\n  status: {status}\n---\nBody\n"
    store = make_store({"MEMORY.md": "# M\n- [N](n.md)\n", "n.md": nested})
    assert only(run(cli, store), "MEM205") == [("MEMORY.md", 2, 3)]


def test_routes_to_retired_quiet_on_stale_mentions_and_unlisted(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": "# M\n- [New](new.md) — replaces [old](old.md)\n- [S](stale.md)\n",
            "new.md": mem("new", supersedes="old"),
            "old.md": mem("old", status="superseded") + "Now in [new](new.md).\n",
            "stale.md": mem("stale", status="stale"),
            "retired.md": mem("retired", status="archived"),
        }
    )
    found = run(cli, store)
    assert only(found, "MEM205") == []
    # a retired memory no index routes to is the goal, not an orphan ...
    assert only(found, "MEM201") == []
    # ... unless the store asks for orphan checks on retired memories too
    (store / ".memlint.yaml").write_text("retired-exempt-rules: []\n")
    assert only(run(cli, store), "MEM201") == [("retired.md", 1, 1)]


@pytest.mark.parametrize("root", [
    "# M\n\nPress the ` key to open the console.\n\n- [D](deploy.md)\n- [Old](gone.md)\n\nBuild with `make`.\n",
    "# M\n- the ` key\n- [D](deploy.md)\n- [Old](gone.md)\n- build `make`\n",  # list items end a span too
    "# M\nAn escaped \\` backtick.\n- [D](deploy.md)\n- [Old](gone.md)\n- build `make`\n",
])
def test_a_stray_backtick_does_not_hide_the_links_after_it(make_store, cli, root):
    store = make_store({"MEMORY.md": root, "deploy.md": mem("deploy")})
    found = run(cli, store)
    assert only(found, "MEM201") == []
    assert [f["message"].split(";")[0] for f in found if f["code"] == "MEM202"] == ["link target `gone.md` does not exist"]


def test_the_orphan_hint_never_points_beside_a_root_line_the_harness_drops(make_store, cli):
    """An OpenClaw root over its cap loses its middle: an entry added beside
    a line there would never load either, and one added anywhere would push
    another line into the middle: the hint says the root is full."""
    import re

    root = "# Memory\n" + "".join(f"- [E{i:03}](notes/e{i:03}.md) — " + "x" * 80 + "\n" for i in range(150))
    files = {"MEMORY.md": root, **{f"notes/e{i:03}.md": "# e\n" for i in range(150)}, "notes/e100b.md": "# new\n",
             ".memlint.yaml": "preset: openclaw\n"}
    found = run(cli, make_store(files))
    [budget] = [f for f in found if f["code"] == "MEM101"]
    first, last = (int(n) for n in re.search(r"lines (\d+)-(\d+) are never", budget["message"]).groups())
    assert first < 102 < last  # e100 sits in the dropped middle
    [orphan] = [f for f in found if f["code"] == "MEM201" and f["path"] == "notes/e100b.md"]
    assert "beside" not in orphan["message"]
    assert orphan["message"].endswith("MEMORY.md is already over its load cap (12,000 characters): part of it does "
                                      "not load now; file it in a topic index, moving some of MEMORY.md's entries "
                                      "into one first if none fits")


TOOLS_TOPIC = "# Tools\n- [A](../tools/a.md) — a\n- [B](../tools/b.md) — b\n"
TOOLS = {"topics/tools.md": TOOLS_TOPIC, "tools/a.md": mem("a"), "tools/b.md": mem("b"), "tools/c.md": mem("c")}


@pytest.mark.parametrize("link", ["line past the cap", "definition past the cap", "above the cap"])
def test_the_orphan_hint_never_files_into_a_topic_only_what_the_root_cap_drops_reaches(make_store, cli, link):
    """A topic the root links only on a line past Claude Code's 200-line cap,
    or by a link above it whose reference definition (`[t]: topics/t.md`) is
    below it, never loads (MEM101 names it lost): the hint sent the memory
    there, beside its entries, where the agent would still never read it.
    Linked above the cap, the topic is where the memory goes."""
    facts = "".join(f"- [Fact {i}](project_fact_{i}.md) — fact {i}\n" for i in range(150 if link == "above the cap" else 200))
    root = {"line past the cap": "# Memory\n" + facts + "- [Tools](topics/tools.md) — tools\n",
            "definition past the cap": "# Memory\n- [Tools][t] — tools\n" + facts + "\n[t]: topics/tools.md\n",
            "above the cap": "# Memory\n- [Tools](topics/tools.md) — tools\n" + facts}[link]
    files = {"MEMORY.md": root, **TOOLS, **{f"project_fact_{i}.md": mem(f"fact-{i}") for i in range(200)}}
    found = run(cli, make_store(files), "--preset", "claude-code", "--select", "MEM101,MEM201")
    [orphan] = [f["message"] for f in found if f["code"] == "MEM201" and f["path"] == "tools/c.md"]
    if link == "above the cap":
        assert "MEM101" not in {f["code"] for f in found}
        assert orphan.endswith("; add an entry for it to topics/tools.md, beside tools/b.md (line 3)")
        return
    assert "topics/tools.md" in message(found, "MEM101")  # lost with what the cut drops
    assert "topics/tools.md" not in orphan
    assert orphan.endswith("; MEMORY.md is already over its load cap (200 lines): part of it does not load now; file "
                           "it in a topic index, moving some of MEMORY.md's entries into one first if none fits")


@pytest.mark.parametrize("link, through", [("line past the cap", "lines"), ("definition past the cap", "what")])
def test_the_orphan_hint_says_a_declared_topic_the_root_cap_cuts_off_does_not_load(make_store, cli, link, through):
    """``topics: [tools]`` names a topic reached only through what the load
    cap drops: the hint said to link it from an index the root reaches, when
    the root links it; it says where it is lost, as MEM205 says it."""
    facts = "".join(f"- [Fact {i}](facts/fact{i}.md) — fact {i}\n" for i in range(199))
    head = "# Memory\n- [Misc](topics/misc.md) — misc\n"
    root = {"line past the cap": head + facts + "- [Tools](topics/tools.md) — tools\n",
            "definition past the cap": head + "- [Tools][t] — tools\n" + facts + "\n[t]: topics/tools.md\n"}[link]
    files = {"MEMORY.md": root, **TOOLS, "topics/misc.md": "# Misc\n- [M](../misc/m.md) — m\n", "misc/m.md": mem("m"),
             "notes/z.md": mem("z", topics="[tools]"), **{f"facts/fact{i}.md": mem(f"fact-{i}") for i in range(199)}}
    found = {f["path"]: f["message"] for f in run(cli, make_store(files), "--preset", "claude-code")
             if f["code"] == "MEM201"}
    assert found["notes/z.md"].endswith(
        "; add an entry for it to its topic topics/tools.md, and link topics/tools.md from a line the agent loads "
        f"(topics/tools.md is reached only through {through} MEMORY.md's load cap drops, so the agent does not read "
        "it now)")


@pytest.mark.parametrize("at", ["middle", "top"])
def test_the_orphan_hint_never_files_into_a_topic_an_openclaw_root_links_in_its_dropped_middle(make_store, cli, at):
    """An OpenClaw root over 12,000 characters loses its middle: a topic
    linked only there does not load, and a memory filed in it neither."""
    import re

    lines = [f"- [E{i:03}](notes/e{i:03}.md) — " + "x" * 80 for i in range(150)]
    lines.insert(100 if at == "middle" else 0, "- [Tools](tools/INDEX.md) — tools")
    files = {"MEMORY.md": "# Memory\n" + "\n".join(lines) + "\n", ".memlint.yaml": "preset: openclaw\n",
             "tools/INDEX.md": "# Tools\n- [A](a.md) — a\n- [B](b.md) — b\n", "tools/a.md": "# a\n",
             "tools/b.md": "# b\n", "tools/c.md": "# c\n", **{f"notes/e{i:03}.md": "# e\n" for i in range(150)}}
    found = run(cli, make_store(files), "--select", "MEM101,MEM201")
    first, last = (int(n) for n in re.search(r"lines (\d+)-(\d+) are never", message(found, "MEM101")).groups())
    assert (first <= (102 if at == "middle" else 2) <= last) == (at == "middle")  # the topic's line
    [orphan] = [f["message"] for f in found if f["code"] == "MEM201" and f["path"] == "tools/c.md"]
    if at == "top":
        assert orphan.endswith("; add an entry for it to tools/INDEX.md, beside tools/b.md (line 3)")
    else:
        assert "tools/INDEX.md" not in orphan
        assert orphan.endswith("MEMORY.md is already over its load cap (12,000 characters): part of it does not "
                               "load now; file it in a topic index, moving some of MEMORY.md's entries into one "
                               "first if none fits")


@pytest.mark.parametrize("status", ["archived", "active"])
def test_the_orphan_hint_never_files_a_memory_in_a_retired_topic(make_store, cli, status):
    """A retired topic the root still links (MEM205's finding) routes nobody:
    the hint sent a memory of its folder there, beside its entries, or to it
    as the topic the memory names (``topics: [tools]``); a live one takes it."""
    root = "# Memory\n- [Tools](topics/tools.md) — tools\n- [Misc](topics/misc.md) — misc\n- [O](other.md) — o\n"
    files = {"MEMORY.md": root, "other.md": mem("other"), **TOOLS,
             "topics/tools.md": f"---\nstatus: {status}\n---\n" + TOOLS_TOPIC,
             "topics/misc.md": "# Misc\n- [M](../misc/m.md) — m\n", "misc/m.md": mem("m"),
             "notes/z.md": mem("z", topics="[tools]")}
    found = {f["path"]: f["message"] for f in run(cli, make_store(files), "--preset", "claude-code")
             if f["code"] == "MEM201"}
    if status == "active":
        assert found["tools/c.md"].endswith("; add an entry for it to topics/tools.md, beside tools/b.md (line 6)")
        assert found["notes/z.md"].endswith("; add an entry for it to topics/tools.md")
    else:
        assert "topics/tools.md" not in found["tools/c.md"] and "topics/tools.md" not in found["notes/z.md"]
        assert found["tools/c.md"].endswith("; add an entry for it to the index where it belongs")


def test_the_orphan_hint_says_a_declared_topic_the_cut_leaves_past_index_depth_is_cut_off(make_store, cli):
    """The root links topics/tools.md past its 200-line cap, and a loaded chain
    (t1 -> t2 -> tools) reaches it too, but at index-depth, where the agent
    does not read it as an index: only the dropped line made it one. The hint
    told to link it from an index the root reaches, which it is."""
    facts = "".join(f"- [Fact {i}](facts/fact{i}.md) — fact {i}\n" for i in range(199))
    root = "# Memory\n- [T1](topics/t1.md) — t1\n" + facts + "- [Tools](topics/tools.md) — tools\n"
    files = {"MEMORY.md": root, **TOOLS, "notes/z.md": mem("z", topics="[tools]"),
             "topics/t1.md": "# T1\n- [T2](t2.md) — t2\n- [X](../x.md) — x\n", "x.md": mem("x"),
             "topics/t2.md": "# T2\n- [Tools](tools.md) — tools\n- [Y](../y.md) — y\n", "y.md": mem("y"),
             **{f"facts/fact{i}.md": mem(f"fact-{i}") for i in range(199)}}
    found = {f["path"]: f["message"] for f in run(cli, make_store(files), "--preset", "claude-code")
             if f["code"] == "MEM201"}
    assert found["notes/z.md"].endswith(
        "; add an entry for it to its topic topics/tools.md, and link topics/tools.md from a line the agent loads "
        "(topics/tools.md is reached within index-depth only through lines MEMORY.md's load cap drops, so the agent "
        "does not read it now)")

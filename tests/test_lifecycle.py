"""The lifecycle vocabulary, retired memories skipping content rules, and `check --summary`."""
from __future__ import annotations

import json

import pytest

from memlint import lifecycle
from memlint.config import Config
from memlint.store import Store

TODAY = "2026-11-30"


def mem(name: str, extra: str = "", body: str = "A fact.") -> str:
    return f"---\nname: {name}\ndescription: memory {name}\ntype: project\n{extra}---\n{body}\n"


def doc_with(make_store, extra: str, preset: str = "claude-code"):
    folder = make_store({"MEMORY.md": "# Memory\n- [A](a.md)\n", "a.md": mem("a", extra)})
    store = Store(folder, "MEMORY.md", Config(None, None, {}), preset=preset)
    return store, store.docs["a.md"]


@pytest.mark.parametrize("status", ["superseded", "Outdated", "archived", "conflict", "conflicted", "cancelled", "deleted"])
def test_retired_statuses(make_store, status):
    store, doc = doc_with(make_store, f"status: {status}\n")
    assert not lifecycle.is_live(doc, store.settings)
    assert lifecycle.is_retired(doc, store.settings)


@pytest.mark.parametrize("extra", ["status: active\n", "status: stale\n", "status: pending\n", "status: confirmed\n",
                                   "status: current\n", "", "status: [x]\n", "metadata:\n  status: active\n"])
def test_live_statuses(make_store, extra):
    store, doc = doc_with(make_store, extra)
    assert lifecycle.is_live(doc, store.settings)


def test_nested_status_counts(make_store):
    store, doc = doc_with(make_store, "metadata:\n  status: archived\n")
    assert not lifecycle.is_live(doc, store.settings)


@pytest.mark.parametrize("priority, core", [("🔴", True), ("🔴 core", True), ("Core", True), ("🟡", False),
                                            ("🟢 reference", False), ("3", False)])
def test_core_priority(make_store, priority, core):
    store, doc = doc_with(make_store, f"priority: \"{priority}\"\n")
    assert lifecycle.is_core(doc, store.settings) is core


def test_retired_statuses_are_configurable(make_store, findings):
    store = make_store({
        "MEMORY.md": "# Memory\n- [A](a.md)\n- [B](b.md)\n",
        "a.md": mem("a", "key: k\nstatus: wrong\n"),
        "b.md": mem("b", "key: k\n"),
    })
    assert [c for _, _, c in findings(store, "--today", TODAY)] == ["MEM504"]
    (store / ".memlint.yaml").write_text("retired-statuses: [wrong, outdated]\n")
    # a.md is retired now: no conflict, but the index still routes to it
    assert findings(store, "--today", TODAY) == [("MEMORY.md", 2, "MEM205")]


@pytest.mark.parametrize("setting", ["stale-days: soon", "core-stale-days: -3", "retired-statuses: archived",
                                     "retired-exempt-rules: 3", "core-priorities: 🔴"])
def test_bad_lifecycle_settings_are_config_errors(make_store, cli, setting):
    store = make_store({"MEMORY.md": "# Memory\n", ".memlint.yaml": setting + "\n"})
    result = cli("check", store)
    assert result.exit_code == 2 and setting.split(":")[0] in result.stderr


# ------------------------------------------------------------ retired memories skip content rules

BIG = "\n".join(f"line {i}" for i in range(400))


def test_retired_memory_skips_content_rules(make_store, findings):
    store = make_store({
        "MEMORY.md": "# Memory\n- [Live](live.md)\n",
        "live.md": mem("live", body=BIG),
        "old.md": mem("old", "status: archived\n", body=BIG),
    })
    assert findings(store, "--today", TODAY) == [("live.md", 301, "MEM104")]


def test_retired_memory_keeps_structural_rules(make_store, findings):
    store = make_store({"MEMORY.md": "# Memory\n", "old.md": "---\nname: old\nstatus: archived\n---\nx\n"})
    # description and type missing: one finding each
    assert findings(store, "--today", TODAY) == [("old.md", 1, "MEM003"), ("old.md", 1, "MEM003")]


def test_retired_exemption_can_be_turned_off(make_store, findings):
    store = make_store({
        "MEMORY.md": "# Memory\n",
        "old.md": mem("old", "status: archived\n", body=BIG),
        ".memlint.yaml": "retired-exempt-rules: []\n",
    })
    assert findings(store, "--today", TODAY, "--select", "MEM104") == [("old.md", 301, "MEM104")]


# ------------------------------------------------------------ check --summary


def summary_store(make_store):
    return make_store({
        "INDEX.md": "# INDEX\n"
                    "- [a](a.md)\n- [b](b.md)\n- [c](c.md)\n- [d](d.md)\n- [e](e.md)\n- [old](old.md)\n- [f](f.md)\n",
        "NOW.md": "# NOW\n",
        "a.md": "---\ntitle: a\nstatus: active\nlast_verified: 2026-01-01\n---\nstale\n",
        "b.md": "---\ntitle: b\nstatus: active\nlast_verified: 2026-11-29\nexpires: 2026-11-01\n---\nexpired\n",
        "c.md": "---\ntitle: c\nstatus: active\nlast_verified: 2026-11-29\nkey: k\n---\nconflict\n",
        "d.md": "---\ntitle: d\nstatus: stale\nlast_verified: 2026-11-29\nkey: k\n---\nconflict\n",
        "e.md": "---\ntitle: e\nstatus: active\nlast_verified: 2026-11-29\nsupersedes: [s, old]\n---\nnew\n",
        "s.md": "---\ntitle: s\nstatus: active\nlast_verified: 2026-11-29\n---\nsuperseded, still live\n",
        "old.md": "---\ntitle: old\nstatus: outdated\n---\nretired, still routed\n",
        "f.md": "---\ntitle: f\nstatus: archived\nexpires: 2026-01-01\n---\nretired\n",
    })


def test_summary_counts_text(make_store, cli):
    store = summary_store(make_store)
    result = cli("check", "--today", TODAY, "--summary", store)
    out = result.output
    findings_part, summary_part = out.split("\n\nsummary: ")
    assert "MEM501" in findings_part
    lines = summary_part.splitlines()
    assert lines[0].endswith("(three-layer)")
    assert lines[1:] == [
        "  memories       8: 6 live, 2 retired",
        "  by status      active 5, archived 1, outdated 1, stale 1",
        "  stale          1 (not verified for over 30 days)",
        "  expired        1 still live",
        "  superseded     1 still live",
        "  in conflict    2 memories in 1 group sharing a `key`",
        "  index entries  3 route to retired, superseded or expired memories, or retired topics",
    ]
    assert "memories " not in result.stderr  # stderr holds only the one no-git notice


def test_summary_counts_no_route_from_a_topic_the_agent_does_not_read(make_store, cli):
    """As MEM205: a topic no index links to routes nobody (MEM201 reports it), so --summary
    counts no entry of it that MEM205 does not report."""
    store = make_store({
        "MEMORY.md": "# Root\n- [Live](topics/live.md)\n",
        "topics/live.md": "# Live\n- [A](../a.md)\n",
        "topics/unlinked.md": "# Unlinked\n- [Promo](../promo.md)\n",
        "a.md": "---\nname: a\ncreated: 2026-01-01\n---\nA.\n",
        "promo.md": "---\nname: promo\nstatus: archived\n---\nPromo.\n",
    })
    result = cli("check", "--today", TODAY, "--preset", "moc", "--summary", store)
    assert "MEM205" not in result.output
    assert "  index entries  0 route to retired" in result.output


def test_summary_names_the_core_window_when_the_store_sets_one(make_store, cli):
    store = make_store({
        "INDEX.md": "# INDEX\n- [a](a.md)\n", "NOW.md": "# NOW\n",
        "a.md": "---\ntitle: a\nstatus: active\npriority: core\nlast_verified: 2026-06-01\n---\nold core\n",
        ".memlint.yaml": "stale-days: 1000\ncore-stale-days: 10\n",
    })
    out = cli("check", "--today", TODAY, "--summary", store).output
    assert "  stale          1 (not verified for over 1000 days; core memories 10 days)" in out.splitlines()


def test_a_status_written_as_a_one_item_list_is_that_status(make_store, cli):
    store = make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n",
                        "a.md": "---\nname: a\ndescription: d\ntype: user\nstatus: [superseded]\n---\nold\n"})
    found = cli("check", "--format", "json", "--today", TODAY, store).json()
    assert [f["code"] for f in found if f["code"] == "MEM205"] == ["MEM205"]


def test_summary_goes_to_stderr_for_machine_readable_formats(make_store, cli):
    store = summary_store(make_store)
    for fmt in ("json", "sarif"):
        result = cli("check", "--today", TODAY, "--summary", "--format", fmt, store)
        json.loads(result.output)  # still valid
        assert "summary: " in result.stderr and "in conflict    2 memories" in result.stderr


def test_summary_counts_findings_skipped_on_retired_memories(make_store, cli):
    store = make_store({"MEMORY.md": "# Memory\n", "old.md": mem("old", "status: archived\n", body=BIG)})
    result = cli("check", "--today", TODAY, "--summary", "--select", "MEM104", store)
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == "not reported: 1 finding on retired memories (store setting retired-exempt-rules)"


def test_no_summary_without_the_flag(make_store, cli):
    store = summary_store(make_store)
    assert "summary:" not in cli("check", "--today", TODAY, store).output


def test_a_file_named_as_a_daily_log_with_a_memorys_frontmatter_is_a_memory(make_store, cli):
    """`**/YYYY-MM-DD*.md` names daily logs, and also decision records filed by
    date: one whose frontmatter holds a lifecycle field or a Claude Code memory
    `type` is judged as a memory (stale, expired, an orphan when no index lists
    it); a log, with no frontmatter or only its date, stays a log."""
    store = make_store({
        ".memlint.yaml": "preset: moc\n",
        "MEMORY.md": "# Memory\n- [[MOC-decisions]]\n",
        "MOC-decisions.md": "# Decisions\n- [[decisions/2026-02-20-billing-cutover]]\n",
        "decisions/2026-02-20-billing-cutover.md":
            "---\ntitle: Billing cutover\nlast_verified: 2026-02-20\nstatus: active\nexpires: 2026-05-15\n---\nOn 05-15.\n",
        "decisions/2026-03-02-vendor.md": "---\nmetadata:\n  superseded_by: 2026-02-20-billing-cutover\n---\nOld.\n",
        "notes/2026-04-01-lesson.md": "---\nname: lesson\ndescription: d\ntype: feedback\n---\nA lesson.\n",
        "memory/2026-03-01.md": "- 09:00 deployed\n",
        "memory/2026-03-02.md": "---\ndate: 2026-03-02\ntags: [ops]\n---\n- 10:00 rolled back\n",
        "memory/2026-03-03.md": "---\ntype: daily\n---\n- 11:00 fixed\n",
    })
    found = cli("check", "--format", "json", "--today", "2026-12-02", store).json()
    judged = sorted({(f["path"], f["code"]) for f in found if f["code"] in ("MEM201", "MEM501", "MEM502", "MEM503")})
    assert judged == [
        ("decisions/2026-02-20-billing-cutover.md", "MEM501"),
        ("decisions/2026-02-20-billing-cutover.md", "MEM502"),
        ("decisions/2026-03-02-vendor.md", "MEM503"),  # live, and superseded: retire it (not an orphan: MEM201 quiet)
        ("notes/2026-04-01-lesson.md", "MEM201"),
    ]
    assert not [f for f in found if f["path"].startswith("memory/")]  # the logs: never orphans, not memories


def test_what_the_rules_keep_on_a_file_costs_it_no_table_of_its_own(make_store):
    """A store holds one Doc per file, all with the same attributes, which
    Python then keeps in one shared key table. Values kept on a Doc after
    it was made (its fields, its status) used to give each Doc a table of
    its own, 680 bytes more per file (7 MB on 10,000; it shows from a few
    dozen files): after every rule has run, each Doc is as small as a fresh one."""
    import sys

    from memlint import linter
    from memlint.store import Doc

    files = {"MEMORY.md": "# Index\n\n" + "".join(f"- [m{i}](m{i}.md)\n" for i in range(40))}
    for i in range(40):
        files[f"m{i}.md"] = mem(f"m{i}", "status: active\n" if i % 2 else "last_verified: 2020-01-01\n", body=f"Fact {i}.")
    store = Store(make_store(files), "MEMORY.md", Config(None, None, {}), preset="claude-code")
    linter.lint_store(store, linter.Selection())
    # the rules ran, and kept each memory's fields and status
    assert all(doc.__dict__.get("_status_of") and doc.__dict__.get("_fields_of")
               for doc in store.docs.values() if doc.role == "memory")
    fresh = sys.getsizeof(Doc("x.md", "x.md", "/x.md", 1).__dict__)
    assert {rel: sys.getsizeof(doc.__dict__) for rel, doc in store.docs.items()} == dict.fromkeys(store.docs, fresh)

"""MEM501 stale and MEM502 expired: windows per preset, core memories, git dates."""
from __future__ import annotations

import json

from tests.gitrepo import GitRepo

TODAY = "2026-11-30"
INDEX = "# INDEX\n\n| File | Status |\n|---|---|\n| [a](a.md) | active |\n"


def layer(fields: str, body: str = "A fact.\n") -> str:
    """A three-layer memory: title and status first, then ``fields``."""
    return f"---\ntitle: A\n{fields}---\n{body}"


def three_layer(make_store, a: str, **more) -> object:
    return make_store({"INDEX.md": INDEX, "NOW.md": "# NOW\n", "a.md": a, **more})


def codes(found, code):
    return [(p, line) for p, line, c in found if c == code]


def messages(cli, store, code, *args):
    result = cli("check", "--format", "json", "--today", TODAY, *args, store)
    return [(f["path"], f["line"], f["message"]) for f in result.json() if f["code"] == code]


# ------------------------------------------------------------------ MEM501


def test_mem501_fires_past_the_three_layer_window_on_last_verified_line(make_store, findings):
    store = three_layer(make_store, layer("status: active\nlast_verified: 2026-10-30\n"))  # 31 days
    assert codes(findings(store, "--today", TODAY), "MEM501") == [("a.md", 4)]


def test_mem501_quiet_at_exactly_the_window(make_store, findings):
    store = three_layer(make_store, layer("status: active\nlast_verified: 2026-10-31\n"))  # 30 days
    assert codes(findings(store, "--today", TODAY), "MEM501") == []


def test_mem501_message_says_how_old_and_what_to_do(make_store, cli):
    store = three_layer(make_store, layer("status: active\nlast_verified: 2026-04-01\n"))
    [(_, _, message)] = messages(cli, store, "MEM501")
    assert "last verified 2026-04-01, 243 days ago" in message
    assert "30-day window" in message
    assert "set `last_verified: 2026-11-30`" in message and "`status: superseded`" in message


def test_mem501_reads_a_yaml_timestamp_as_its_day(make_store, findings):
    """`2026-10-30 21:59:43.10 -5` is a YAML 1.1 timestamp: verified that day, not "not a date"."""
    store = three_layer(make_store, layer("status: active\nlast_verified: 2026-10-30 21:59:43.10 -5\n"))
    found = findings(store, "--today", TODAY)
    assert codes(found, "MEM501") == [("a.md", 4)] and codes(found, "MEM004") == []
    store = three_layer(make_store, layer("status: active\nlast_verified: 2026-10-31t09:00:00-05:00\n"))
    assert codes(findings(store, "--today", TODAY), "MEM501") == []


def test_mem501_moc_window_is_sixty_days(make_store, findings):
    root = "# Memory\n- [A](a.md)\n- [B](b.md)\n"
    store = make_store({
        "MEMORY.md": root,
        "a.md": "---\nname: a\nlast_verified: 2026-09-30\n---\nA\n",  # 61 days
        "b.md": "---\nname: b\nlast_verified: 2026-10-02\n---\nB\n",  # 59 days
    })
    assert codes(findings(store, "--today", TODAY, "--preset", "moc"), "MEM501") == [("a.md", 3)]


def test_mem501_quiet_on_retired_fires_on_status_stale(make_store, findings):
    store = three_layer(
        make_store,
        layer("status: outdated\nlast_verified: 2026-01-01\n"),
        **{"b.md": layer("status: stale\nlast_verified: 2026-01-01\n")},
    )
    assert codes(findings(store, "--today", TODAY), "MEM501") == [("b.md", 4)]


def test_mem501_core_memories_have_their_own_window(make_store, findings, tmp_path):
    store = three_layer(make_store, layer("status: active\npriority: 🔴 core\nlast_verified: 2026-08-01\n"))
    assert codes(findings(store, "--today", TODAY), "MEM501") == []  # default: core never goes stale
    (store / ".memlint.yaml").write_text("core-stale-days: 90\n")
    assert codes(findings(store, "--today", TODAY), "MEM501") == [("a.md", 5)]  # 121 days
    (store / ".memlint.yaml").write_text("core-stale-days: 150\n")
    assert codes(findings(store, "--today", TODAY), "MEM501") == []


def test_mem501_off_without_a_window_unless_configured(make_store, findings):
    mem = "---\nname: a\ndescription: d\ntype: project\nlast_verified: 2025-01-01\n---\nA\n"
    store = make_store({"MEMORY.md": "# Memory\n- [A](a.md)\n", "a.md": mem})
    assert codes(findings(store, "--today", TODAY), "MEM501") == []  # claude-code: no stale-days
    (store / ".memlint.yaml").write_text("stale-days: 100\n")
    assert codes(findings(store, "--today", TODAY), "MEM501") == [("a.md", 5)]


def test_mem501_quiet_without_last_verified_outside_git(make_store, findings):
    store = three_layer(make_store, layer("status: active\n"))
    assert codes(findings(store, "--today", TODAY), "MEM501") == []


def test_mem501_takes_git_last_change_when_last_verified_is_missing(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    repo.write("INDEX.md", INDEX + "| [b](b.md) | active |\n")
    repo.write("NOW.md", "# NOW\n")
    repo.write("a.md", layer("status: active\n"))
    repo.write("b.md", layer("status: active\n"))
    repo.commit("add", date="2026-06-01T12:00:00+00:00")
    repo.write("b.md", layer("status: active\n", body="Edited.\n"))
    repo.commit("edit b", date="2026-11-20T12:00:00+00:00")  # b changed 10 days ago
    found = messages(cli, repo.root, "MEM501")
    assert [(p, line) for p, line, _ in found] == [("a.md", 1)]  # no last_verified: the opening fence
    assert "no `last_verified`, and unchanged in git since 2026-06-01, 182 days ago" in found[0][2]
    assert "add `last_verified: 2026-11-30`" in found[0][2]


def test_mem501_fix_fits_the_file_an_index_entry_only_where_one_is_a_frontmatter_where_none(tmp_path, cli):
    """A real store's orphans were told to "remove its index entry", and its
    files without frontmatter to "add `last_verified`" to a block they lack."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("MEMORY.md", "# Memory\n- [A](a.md)\n")
    repo.write("a.md", "---\nname: a\n---\nA\n")
    repo.write("orphan.md", "---\nname: o\n---\nO\n")
    repo.write("bare.md", "# Bare\nno frontmatter\n")
    repo.write("broken.md", "---\nname: [unclosed\n---\nB\n")  # a block there already, one YAML cannot read
    repo.write(".memlint.yaml", "stale-days: 60\n")
    repo.commit("add", date="2026-06-01T12:00:00+00:00")
    fixes = {path: message.split(": check that it still holds, then ")[1]
             for path, _, message in messages(cli, repo.root, "MEM501", "--preset", "moc")}
    assert fixes == {
        "a.md": "add `last_verified: 2026-11-30`; if it no longer does, set `status: superseded` and remove its index entry",
        "orphan.md": "add `last_verified: 2026-11-30`; if it no longer does, set `status: superseded`",
        "bare.md": "give it a frontmatter block (`---` lines) with `last_verified: 2026-11-30`; "
                   "if it no longer does, put `status: superseded` there",
        "broken.md": "fix its frontmatter (MEM002) and add `last_verified: 2026-11-30` to it; "
                     "if it no longer does, set `status: superseded`",
    }


def test_mem501_an_invalid_last_verified_is_to_be_corrected_not_added_again(tmp_path, cli):
    """Adding the key as told would make a duplicate key (MEM002)."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("INDEX.md", INDEX)
    repo.write("NOW.md", "# NOW\n")
    repo.write("a.md", layer("status: active\nlast_verified: 2026-13-45\n"))
    repo.commit("add", date="2026-06-01T12:00:00+00:00")
    [(path, line, message)] = messages(cli, repo.root, "MEM501")
    assert (path, line) == ("a.md", 4) and "`last_verified` is not a date" in message
    assert "correct it to `last_verified: 2026-11-30`" in message and "add `last_verified" not in message


def test_mem501_an_empty_last_verified_is_to_be_filled_in_not_added_again(tmp_path, cli):
    """`last_verified:` with no value is there: adding it as told would make a duplicate key (MEM002)."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("INDEX.md", INDEX + "| [b](b.md) | active |\n")
    repo.write("NOW.md", "# NOW\n")
    repo.write("a.md", layer("status: active\nlast_verified:\n"))
    repo.write("b.md", layer("metadata:\n  status: active\n  last_verified: ~\n"))
    repo.commit("add", date="2026-06-01T12:00:00+00:00")
    found = {path: (line, message) for path, line, message in messages(cli, repo.root, "MEM501")}
    assert {path: line for path, (line, _) in found.items()} == {"a.md": 4, "b.md": 5}
    for path, (line, message) in found.items():
        assert message.startswith("`last_verified` is empty, and the file is unchanged in git since 2026-06-01")
        assert f"fill it in on line {line}: `last_verified: 2026-11-30`" in message and "add `" not in message


def test_mem501_a_last_verified_in_a_block_that_does_not_parse_is_set_on_its_line(tmp_path, cli):
    """Its frontmatter does not parse: the key is there all the same, and adding it would be a duplicate."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("INDEX.md", INDEX + "| [a](a.md) | active |\n")
    repo.write("NOW.md", "# NOW\n")
    repo.write("a.md", "---\ntitle: Fix: quote me\nstatus: active\nlast_verified:\n---\nA.\n")
    repo.commit("add", date="2026-06-01T12:00:00+00:00")
    [(path, line, message)] = messages(cli, repo.root, "MEM501")
    assert (path, line) == ("a.md", 4)
    assert "its frontmatter does not parse (MEM002), so its `last_verified` is not read" in message
    assert "fix its frontmatter and set `last_verified: 2026-11-30` on its line 4" in message and "add `" not in message


def test_mem501_last_verified_wins_over_git(tmp_path, findings):
    repo = GitRepo(tmp_path / "repo")
    repo.write("INDEX.md", INDEX + "| [b](b.md) | active |\n")
    repo.write("NOW.md", "# NOW\n")
    repo.write("a.md", layer("status: active\nlast_verified: 2026-01-05\n"))  # edited lately, verified long ago
    repo.write("b.md", layer("status: active\nlast_verified: 2026-11-25\n"))  # committed long ago, verified lately
    repo.commit("add", date="2026-01-01T12:00:00+00:00")
    repo.write("a.md", layer("status: active\nlast_verified: 2026-01-05\n", body="Reworded.\n"))
    repo.commit("reword a", date="2026-11-29T12:00:00+00:00")
    assert codes(findings(repo.root, "--today", TODAY), "MEM501") == [("a.md", 4)]


# ------------------------------------------------------------------ MEM502


def test_mem502_fires_on_live_expired_memory_and_names_the_index_line(make_store, cli):
    store = three_layer(make_store, layer("status: active\nlast_verified: 2026-11-20\nexpires: 2026-10-31\n"))
    [(path, line, message)] = messages(cli, store, "MEM502")
    assert (path, line) == ("a.md", 5)
    assert "expired on 2026-10-31 (30 days ago) but `status: active` is still live" in message
    assert "`status: archived`" in message and "remove its index entry (INDEX.md:5)" in message


def test_mem502_expires_today_is_not_yet_expired(make_store, findings):
    store = three_layer(make_store, layer("status: active\nlast_verified: 2026-11-20\nexpires: 2026-11-30\n"))
    assert codes(findings(store, "--today", TODAY), "MEM502") == []
    assert codes(findings(store, "--today", "2026-12-01"), "MEM502") == [("a.md", 5)]


def test_mem502_a_day_after_says_one_day(make_store, cli):
    store = three_layer(make_store, layer("status: active\nlast_verified: 2026-11-20\nexpires: 2026-11-29\n"))
    [(_, _, message)] = messages(cli, store, "MEM502")
    assert "expired on 2026-11-29 (1 day ago)" in message


def test_mem502_core_memories_never_expire(make_store, findings):
    store = three_layer(make_store, layer("status: active\npriority: 🔴\nlast_verified: 2026-11-20\nexpires: 2026-01-01\n"))
    assert codes(findings(store, "--today", TODAY), "MEM502") == []


def test_mem502_retired_and_unrouted_is_fine_retired_but_routed_fires(make_store, cli):
    archived = layer("status: archived\nexpires: 2026-01-01\n")
    unrouted = make_store({"INDEX.md": "# INDEX\n", "NOW.md": "# NOW\n", "a.md": archived}, sub="unrouted")
    assert messages(cli, unrouted, "MEM502") == []
    routed = three_layer(make_store, archived)
    [(path, line, message)] = messages(cli, routed, "MEM502")
    assert (path, line) == ("a.md", 4)
    assert "is `status: archived`, but an index still routes to it: remove the entry (INDEX.md:5)" in message


def test_mem502_an_archived_topic_routes_nobody_to_an_archived_memory(make_store, cli):
    """Archiving the topic that listed it takes the route away, as MEM205 and --summary have it."""
    store = make_store({
        "MEMORY.md": "# Root\n- [Pricing](topics/pricing.md)\n",
        "topics/pricing.md": "# Pricing\n- [A](../a.md)\n",
        "topics/promos.md": "---\nstatus: archived\n---\n# Promos\n- [Promo](../promo.md)\n",
        "a.md": "---\nname: a\ncreated: 2026-01-01\n---\nA.\n",
        "promo.md": "---\nname: promo\nstatus: archived\nexpires: 2026-01-01\n---\nPromo.\n",
    })
    assert messages(cli, store, "MEM502", "--preset", "moc") == []
    assert messages(cli, store, "MEM205", "--preset", "moc") == []


def test_mem502_a_topic_the_agent_does_not_read_routes_nobody(make_store, cli):
    """A topic no index links to is never read: its entry is no route (MEM201
    reports the topic), as MEM205 and --summary have it. Linked, it routes."""
    files = {
        "MEMORY.md": "# Root\n- [Pricing](topics/pricing.md)\n",
        "topics/pricing.md": "# Pricing\n- [A](../a.md)\n",
        "topics/unlinked.md": "# Old promos\n- [Promo](../promo.md)\n",
        "a.md": "---\nname: a\ncreated: 2026-01-01\n---\nA.\n",
        "promo.md": "---\nname: promo\nstatus: archived\nexpires: 2026-01-01\n---\nPromo.\n",
    }
    assert messages(cli, make_store(files), "MEM502", "--preset", "moc") == []
    files["MEMORY.md"] += "- [Old promos](topics/unlinked.md)\n"
    [(_, _, message)] = messages(cli, make_store(files), "MEM502", "--preset", "moc")
    assert "an index still routes to it: remove the entry (topics/unlinked.md:2)" in message


def test_mem502_fires_without_status_and_unrouted(make_store, cli):
    store = make_store({"INDEX.md": "# INDEX\n", "NOW.md": "# NOW\n", "a.md": "---\ntitle: A\nexpires: 2026-01-01\n---\nA\n"})
    [(_, line, message)] = messages(cli, store, "MEM502", "--ignore", "MEM003")
    assert line == 3 and "it has no `status`, so it is still live" in message and "index entry" not in message


def test_mem502_bad_date_is_left_to_mem004(make_store, findings):
    store = three_layer(make_store, layer("status: active\nlast_verified: 2026-11-20\nexpires: soon\n"))
    found = findings(store, "--today", TODAY)
    assert codes(found, "MEM502") == [] and codes(found, "MEM004") == [("a.md", 5)]


def test_stale_and_expired_respect_suppression_and_config(make_store, findings):
    body = "<!-- memlint-disable-file MEM502 -->\n"
    store = three_layer(make_store, layer("status: active\nlast_verified: 2026-01-01\nexpires: 2026-01-02\n", body))
    assert sorted(c for _, _, c in findings(store, "--today", TODAY, "--select", "MEM5")) == ["MEM501"]
    (store / ".memlint.yaml").write_text(json.dumps({"rules": {"stale": "off"}}))
    assert findings(store, "--today", TODAY, "--select", "MEM5") == []


def test_a_memory_listing_five_links_keeps_its_schema_and_lifecycle_checks(make_store, findings):
    # Five listed links make it route as an index (its links reach the
    # agent); its frontmatter still says it is a memory, and is checked as one.
    def memory(name):
        return f"---\nname: {name}\ndescription: d\ntype: project\n---\nFact {name}.\n"

    def checklist(links):
        listed = "".join(f"- [{n}]({n}.md)\n" for n in "abcde"[:links])
        return ("---\nname: release-checklist\ndescription: the 2024 release checklist\ntype: projekt\n"
                f"status: superseded\nexpires: 2024-12-31\n---\nBefore a release, read:\n{listed}")

    files = {f"{n}.md": memory(n) for n in "abcde"}
    files["MEMORY.md"] = "# Memory\n- [Release checklist](checklist.md) — before a release\n"
    expected = [("MEMORY.md", 2, "MEM205"), ("checklist.md", 4, "MEM003"), ("checklist.md", 6, "MEM502")]
    for links in (4, 5):
        store = make_store({**files, "checklist.md": checklist(links)})
        found = findings(store, "--today", TODAY)
        assert [f for f in found if f[2] in ("MEM003", "MEM205", "MEM502")] == expected
        orphans = {p for p, _, c in found if c == "MEM201"}
        # a memory's links do not route the agent; a list of five does
        assert orphans == ({f"{n}.md" for n in "abcde"} if links == 4 else set())
        # retired and listed by no index: retired memories are meant to be unrouted, not orphans
        unlisted = make_store({**files, "checklist.md": checklist(links), "MEMORY.md": "# Memory\n"})
        assert "checklist.md" not in {p for p, _, c in findings(unlisted, "--today", TODAY) if c == "MEM201"}


def test_templates_and_daily_named_logs_are_not_stale_memories(tmp_path, cli):
    """A blank form and a `daily-YYYY-MM-DD.md` log are no memories: never
    stale, never wanting dates, and backfill leaves them alone."""
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("MEMORY.md", "# M\n- [Lee](entities/lee.md) — lee\n")
    form = "---\nname: <name>\ntype: <type>\ncreated: YYYY-MM-DD\n---\n## Facts\n"
    for path in ("entities/TEMPLATE.md", "traces/_template.md", "people/person-template.md"):
        repo.write(path, form)
    repo.write("daily-2026-01-10.md", "# 2026-01-10\n- shipped\n")
    repo.write("entities/lee.md", "---\nname: lee\ntype: person\n---\nLee.\n")
    repo.commit("start", "2026-01-10T10:00:00+00:00")
    found = cli("check", "--format", "json", "--today", TODAY, repo.root).json()
    assert {f["path"] for f in found} == {"entities/lee.md"}
    dry = cli("backfill", "--dry-run", repo.root).output
    assert "+++ b/entities/lee.md" in dry and "TEMPLATE" not in dry and "_template" not in dry and "daily-" not in dry

"""`memlint health` and `memlint triage` on a planted session history."""
from __future__ import annotations

import json
import os
from datetime import date, datetime, timedelta

import pytest

TODAY = date(2026, 6, 30)
MEM = "---\nname: {name}\ndescription: {desc}\n---\n{body}\n"


def days_ago(n: int) -> date:
    return TODAY - timedelta(days=n)


def set_mtime(path, days: int):
    ts = datetime.combine(days_ago(days), datetime.min.time()).timestamp()  # local midnight: memlint counts local days
    os.utime(path, (ts, ts))


@pytest.fixture
def planted(make_store):
    """An openclaw store whose daily logs are the sessions.

    - ironclaw: a rare word, in many recent sessions          -> HOT, KEEP
    - mistakes-to-avoid: words found in almost every session  -> not HOT (IDF)
    - libpcb: only in sessions ~90 days ago, unchanged 100 d   -> COLD, ARCHIVE
    - gradle-caching: many sessions 32-44 days ago, none since -> UPDATE
    - kubernetes-runbook: 420 lines, one session                -> PRUNE
    """
    files = {"MEMORY.md": "# Memory\n"}
    logs = {}
    for n in range(0, 120):
        words = ["worked on the usual tasks", "listed mistakes to avoid"]
        if n < 20 and n % 2 == 0:
            words.append("debugged the ironclaw parser")
        if 88 <= n <= 92:
            words.append("routed the libpcb board")
        if 32 <= n <= 44 and n % 2 == 0:
            words.append("tuned gradle caching for the build")
        if n == 50:
            words.append("read the kubernetes runbook")
        logs[f"memory/{days_ago(n).isoformat()}.md"] = "# log\n" + "\n".join(f"- {w}" for w in words) + "\n"
    files.update(logs)
    files["ironclaw.md"] = MEM.format(name="ironclaw", desc="the ironclaw parser", body="Always run the parser tests.")
    files["mistakes-to-avoid.md"] = MEM.format(name="mistakes to avoid", desc="mistakes", body="Avoid mistakes.")
    files["libpcb.md"] = MEM.format(name="libpcb", desc="board routing", body="Notes on routing.")
    files["gradle-caching.md"] = MEM.format(name="gradle caching", desc="build cache", body="Use the remote cache.")
    files["kubernetes-runbook.md"] = MEM.format(
        name="kubernetes runbook", desc="cluster ops", body="\n".join(f"step {i}" for i in range(420))
    )
    store = make_store(files)
    ages = {"ironclaw.md": 5, "mistakes-to-avoid.md": 50, "libpcb.md": 100, "gradle-caching.md": 45,
            "kubernetes-runbook.md": 30}
    for name, age in ages.items():
        set_mtime(store / name, age)
    return store


def by_path(rows):
    return {r["path"]: r for r in rows}


def test_health_classes(planted, cli):
    result = cli("health", "--format", "json", "--today", TODAY.isoformat(), "--preset", "openclaw", planted)
    assert result.exit_code == 0, result.stderr
    rows = by_path(result.json())
    assert rows["ironclaw.md"]["hot_class"] == "HOT"
    assert "ironclaw" in rows["ironclaw.md"]["matched"]
    assert rows["libpcb.md"]["hot_class"] == "COLD"
    # common words carry no weight: not hot, and nothing matched
    assert rows["mistakes-to-avoid.md"]["hot_class"] != "HOT"
    assert rows["mistakes-to-avoid.md"]["matched"] == []
    assert rows["mistakes-to-avoid.md"]["hits"] == 0
    # sorted by hotness, memory files only (no logs, no root)
    hotness = [r["hotness"] for r in result.json()]
    assert hotness == sorted(hotness, reverse=True)
    assert set(rows) == {"ironclaw.md", "mistakes-to-avoid.md", "libpcb.md", "gradle-caching.md", "kubernetes-runbook.md"}


def test_health_text_table(planted, cli):
    out = cli("health", "--today", TODAY.isoformat(), "--preset", "openclaw", planted).output
    first, second = out.splitlines()[:2]
    assert "5 files, 30 sessions, window 30 days" in first  # those of the last 30 days, today included (120 in all)
    assert second.startswith("HOT") and "ironclaw.md" in second and "matched: ironclaw" in second


def test_health_heading_counts_a_memory_it_cannot_read(planted, cli):
    """A binary memory has no row (MEM006 is check's): the heading says one file was not scored."""
    (planted / "blob.md").write_bytes(b"\x00\x01\xff binary")
    out = cli("health", "--today", TODAY.isoformat(), "--preset", "openclaw", planted).output
    first = out.splitlines()[0]
    assert first.startswith("5 files, 30 sessions") and first.endswith("; 1 file not scored (unreadable: `memlint check` says why)")
    assert "blob.md" not in out
    triage = cli("triage", "--today", TODAY.isoformat(), "--preset", "openclaw", planted).output
    assert triage.splitlines()[0].endswith("; 1 file not scored (unreadable: `memlint check` says why)")


def test_triage_recommendations(planted, cli):
    result = cli("triage", "--format", "json", "--today", TODAY.isoformat(), "--preset", "openclaw", planted)
    assert result.exit_code == 0, result.stderr
    rows = by_path(result.json())
    assert rows["libpcb.md"]["recommendation"] == "ARCHIVE"
    assert rows["gradle-caching.md"]["recommendation"] == "UPDATE"
    assert rows["kubernetes-runbook.md"]["recommendation"] == "PRUNE"
    assert rows["ironclaw.md"]["recommendation"] == "KEEP"
    assert rows["mistakes-to-avoid.md"]["recommendation"] == "ARCHIVE"  # no weighted use, 50 days unchanged
    assert rows["ironclaw.md"]["actionability"] > 0  # "Always" in its body


def test_triage_text_shows_top_needing_attention(planted, cli):
    out = cli("triage", "--today", TODAY.isoformat(), "--preset", "openclaw", planted).output.splitlines()
    # mistakes-to-avoid matched nothing (its words weigh nothing) and is 50 days old: ARCHIVE
    assert out[0].startswith("5 files scored: 4 need attention")
    assert {line.split()[0] for line in out[1:]} == {"ARCHIVE", "UPDATE", "PRUNE"}
    assert all("R=" in line and "Rc=" in line and "A=" in line and "S=" in line for line in out[1:])


def test_triage_auto_waits_for_a_day_and_new_sessions(planted, cli):
    args = ("triage", "--auto", "--format", "json", "--preset", "openclaw", planted)
    first = cli(*args[:1], "--today", TODAY.isoformat(), *args[1:])
    assert first.exit_code == 0 and len(first.json()) == 5  # first run: no state yet
    again = cli(*args[:1], "--today", TODAY.isoformat(), *args[1:])
    assert again.json() == [] and "skipped" in again.stderr  # same day
    tomorrow = (TODAY + timedelta(days=1)).isoformat()
    no_new = cli(*args[:1], "--today", tomorrow, *args[1:])
    assert no_new.json() == [] and "0 new sessions" in no_new.stderr
    for n in range(1, 6):
        (planted / "memory" / f"{(TODAY + timedelta(days=n)).isoformat()}.md").write_text("# log\n- ironclaw\n")
    ran = cli(*args[:1], "--today", tomorrow, *args[1:])
    assert len(ran.json()) == 5


def test_one_file_one_day_and_a_skipped_auto_run_read_as_english(make_store, cli):
    """1 file, 1 day, 1 needs attention; an --auto run that skips every store
    scores nothing and says why on stderr only (no "0 files scored" line)."""
    store = make_store({"MEMORY.md": "# M\n- [L](libpcb.md)\n", "libpcb.md": MEM.format(name="libpcb", desc="d", body="b"),
                        f"memory/{TODAY.isoformat()}.md": "# log\n- worked\n"})
    set_mtime(store / "libpcb.md", 100)
    args = ("--today", TODAY.isoformat(), "--preset", "openclaw", store)
    assert cli("health", "--window", "1", *args).output.startswith("1 file, 1 session, window 1 day: 0 HOT, 0 WARM, 1 COLD\n")
    out = cli("triage", *args).output.splitlines()
    assert out[0] == "1 file scored: 1 needs attention" and out[1].startswith("ARCHIVE  ")
    (store / "retired.md").write_text(MEM.format(name="retired", desc="d", body="b").replace("---\n", "---\nstatus: archived\n", 1))
    assert cli("triage", *args).output.startswith("2 files scored: 1 needs attention, 1 already retired by its status ")
    skipped = cli("triage", "--auto", *args)  # the runs above were minutes ago
    assert skipped.exit_code == 0 and skipped.output == ""
    assert "memlint triage --auto: skipped for " in skipped.stderr and ": last run 0 h ago (< 24 h)" in skipped.stderr
    assert cli("triage", "--auto", "--format", "json", *args).json() == []
    tomorrow = (TODAY + timedelta(days=1)).isoformat()
    (store / "memory" / f"{tomorrow}.md").write_text("# log\n- worked\n")
    skipped = cli("triage", "--auto", "--today", tomorrow, *args[2:])
    assert skipped.output == "" and ": 1 new session (< 5)" in skipped.stderr


def test_triage_auto_counts_sessions_it_has_not_seen_not_a_difference_of_totals(planted, cli):
    """Old logs rotated out as new ones come in keep the total: the new ones
    still count. A last run dated after today (another --today, a clock set
    back) does not block the next."""
    args = ("triage", "--auto", "--format", "json", "--preset", "openclaw", planted)
    later = (TODAY + timedelta(days=400)).isoformat()
    assert len(cli(*args[:1], "--today", later, *args[1:]).json()) == 5  # leaves last_run 400 days ahead
    logs = sorted((planted / "memory").glob("20*.md"))
    for old in logs[:5]:
        old.unlink()
    for n in range(1, 6):
        (planted / "memory" / f"{(TODAY + timedelta(days=n)).isoformat()}.md").write_text("# log\n- ironclaw\n")
    assert len(logs) == len(list((planted / "memory").glob("20*.md")))  # the same total
    ran = cli(*args[:1], "--today", (TODAY + timedelta(days=6)).isoformat(), *args[1:])
    assert len(ran.json()) == 5, ran.stderr


def test_health_counts_each_session_of_its_window_once(make_store, cli, tmp_path):
    """Two stores read one --sessions folder: its sessions are counted once,
    and only those of the window."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for n in (1, 2, 3, 200):
        (sessions / f"{days_ago(n).isoformat()}.md").write_text("worked\n")
    one = make_store({"MEMORY.md": "# M\n", "a.md": MEM.format(name="a", desc="d", body="b")}, sub="one")
    two = make_store({"MEMORY.md": "# M\n", "b.md": MEM.format(name="b", desc="d", body="b")}, sub="two")
    out = cli("health", "--today", TODAY.isoformat(), "--sessions", sessions, one, two).output
    assert out.splitlines()[0].startswith("2 files, 3 sessions, window 30 days")


def test_the_last_n_days_are_n_calendar_days_today_included(make_store, cli):
    """`--window 30` is "the last 30 days" of FORMATS.md: today and the 29
    before it, not 31 days; so is triage's 60-day recurrence window, and
    report's "sessions in the last 30 days"."""
    logs = {f"memory/{days_ago(n).isoformat()}.md": "# log\n- kafka\n" for n in (0, 29, 30, 59, 60)}
    logs[f"memory/{days_ago(1).isoformat()}.md"] = "# log\n- other work\n"
    store = make_store({"MEMORY.md": "# M\n- [K](kafka.md)\n", "kafka.md": MEM.format(name="kafka", desc="k", body="b"),
                        **logs})
    args = ("--today", TODAY.isoformat(), "--preset", "openclaw", store)
    assert cli("health", *args).output.startswith("1 file, 3 sessions, window 30 ")  # 0, 1 and 29 days ago
    assert cli("health", "--window", "1", *args).output.startswith("1 file, 1 session, window 1 ")
    assert cli("health", "--window", "2", *args).output.startswith("1 file, 2 sessions, window 2 ")
    [row] = cli("triage", "--format", "json", *args).json()
    assert row["sessions"] == 4  # 0, 29, 30 and 59 days ago: 60 is out
    assert "- **Heat**: 3 sessions in the last 30 days; " in cli("report", *args).output


@pytest.fixture
def tokyo(monkeypatch):
    """The process's local time zone is Tokyo (UTC+9) for the test."""
    import time

    if not hasattr(time, "tzset"):
        pytest.skip("no time.tzset on this platform")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_without_git_a_file_changed_on_the_local_day_of_its_session(make_store, cli, tmp_path, tokyo):
    """Edited at 05:00 in Tokyo on Feb 15 (Feb 14 in UTC), as was the session
    that mentions it: both are Feb 15, the user's calendar day."""
    store = make_store({"MEMORY.md": "# Memory Index\n- [Kafka](project_kafka.md) — kafka\n",
                        "project_kafka.md": MEM.format(name="kafka", desc="kafka", body="body")})
    sessions = tmp_path / "sess"
    sessions.mkdir()
    (sessions / "chat.txt").write_text("looked at kafka\n")
    ts = datetime(2026, 2, 15, 5, 0).timestamp()  # naive: local, Tokyo
    for path in (store / "project_kafka.md", sessions / "chat.txt"):
        os.utime(path, (ts, ts))
    out = cli("health", "--today", "2026-03-02", "--sessions", sessions, store).output
    assert "project_kafka.md  hits 1.00 in 1 session; changed 15d ago (mtime)" in out
    [row] = cli("triage", "--format", "json", "--today", "2026-03-02", "--sessions", sessions, store).json()
    assert (row["last_session"], row["days_since_changed"]) == ("2026-02-15", 15)


def test_triage_log_appends_a_json_line_per_run(planted, cli, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for _ in range(2):
        cli("triage", "--today", TODAY.isoformat(), "--preset", "openclaw", planted)
    [log] = list((tmp_path / "cache").rglob("triage-log.jsonl"))
    lines = [json.loads(l) for l in log.read_text().splitlines()]
    assert len(lines) == 2 and lines[0]["trigger"] == "manual" and lines[0]["files_scanned"] == 5
    assert lines[0]["sessions_since_last_run"] == 120 and lines[1]["sessions_since_last_run"] == 0
    assert {s["recommendation"] for s in lines[0]["suggestions"]} == {"ARCHIVE", "UPDATE", "PRUNE"}


@pytest.mark.parametrize("state", ['{"last_run": "x", "sessions": "y"}', '{"last_run": 3, "sessions": -1}',
                                   '{"last_run": "2026-01-01T00:00:00", "sessions": true}', "[[[[", "[" * 100_000],
                         ids=["strings", "wrong-types", "naive-time-and-bool", "broken", "deep"])
def test_triage_state_of_the_wrong_shape_is_a_first_run(planted, cli, tmp_path, monkeypatch, state):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    args = ("triage", "--auto", "--format", "json", "--today", TODAY.isoformat(), "--preset", "openclaw", planted)
    assert len(cli(*args).json()) == 5
    [saved] = list((tmp_path / "cache").rglob("triage-state.json"))
    saved.write_text(state)
    again = cli(*args)
    assert again.exit_code == 0 and len(again.json()) == 5  # as on a first run


def test_triage_changes_no_memory_file(planted, cli):
    before = {p: p.read_bytes() for p in planted.rglob("*.md")}
    cli("triage", "--today", TODAY.isoformat(), "--preset", "openclaw", planted)
    assert {p: p.read_bytes() for p in planted.rglob("*.md")} == before


def test_sessions_dir_of_transcripts(make_store, cli, tmp_path):
    store = make_store({"MEMORY.md": "# M\n", "zephyrine.md": MEM.format(name="zephyrine", desc="d", body="b")})
    set_mtime(store / "zephyrine.md", 50)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for n in range(25):
        when = days_ago(n).isoformat()
        text = "zephyrine build" if n < 6 else "other work"
        line = {"type": "user", "message": {"role": "user", "content": text}, "timestamp": f"{when}T10:00:00Z"}
        (sessions / f"s{n}.jsonl").write_text(json.dumps(line) + "\n")
    result = cli("health", "--format", "json", "--today", TODAY.isoformat(), "--sessions", sessions, store)
    [row] = result.json()
    assert row["sessions"] == 6 and row["matched"] == ["zephyrine"]


@pytest.mark.parametrize("command", ["health", "triage", "report"])
def test_a_file_name_that_is_not_utf8_is_a_session_not_a_crash(make_store, cli, tmp_path, command):
    """A transcript, or a daily log in the store, named with bytes that are
    not UTF-8 (a Latin-1 file system): read and counted like any other."""
    store = make_store({"MEMORY.md": "# M\n", "zephyrine.md": MEM.format(name="zephyrine", desc="d", body="b"),
                        "memory/2026-03-29.md": "# log\nzephyrine\n"})
    os.rename(store / "memory" / "2026-03-29.md", os.fsencode(store / "memory") + b"/2026-03-29-caf\xe9.md")
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    line = {"type": "user", "message": {"role": "user", "content": "zephyrine"}, "timestamp": f"{days_ago(1)}T10:00:00Z"}
    (sessions / os.fsdecode(b"caf\xe9.jsonl")).write_text(json.dumps(line) + "\n")
    for extra in ((), ("--sessions", sessions)):
        result = cli(command, "--today", TODAY.isoformat(), *extra, store)
        assert result.exit_code == 0, result.stderr
    if command == "health":
        [row] = cli("health", "--format", "json", "--today", TODAY.isoformat(), "--sessions", sessions, store).json()
        assert row["sessions"] == 1


def test_a_memory_opened_in_many_sessions_is_hot_not_archived(make_store, cli, tmp_path):
    """Its words are then in many sessions, and IDF weighs them down to
    nothing; a session that writes its file name refers to it all the same."""
    store = make_store({"MEMORY.md": "# M\n- [Kafka](project_kafka.md) — kafka cluster\n",
                        "project_kafka.md": MEM.format(name="kafka", desc="k", body="kafka")})
    set_mtime(store / "project_kafka.md", 89)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for n in range(8):
        read = {"type": "tool_use", "name": "Read", "input": {"file_path": f"/p/{store.name}/project_kafka.md"}}
        line = {"type": "assistant", "message": {"content": [read]}, "timestamp": f"{days_ago(n + 1)}T10:00:00Z"}
        (sessions / f"s{n}.jsonl").write_text(json.dumps(line) + "\n")
    [row] = cli("health", "--format", "json", "--today", TODAY.isoformat(), "--sessions", sessions, store).json()
    assert row["sessions"] == 8 and row["matched"][0] == f"{store.name}/project_kafka.md"
    [triaged] = cli("triage", "--all", "--format", "json", "--today", TODAY.isoformat(), "--sessions", sessions,
                    store).json()
    assert triaged["recommendation"] != "ARCHIVE"


def user_sessions(folder, texts):
    """A transcript a day for each text, yesterday first: the user says it."""
    folder.mkdir()
    for n, text in enumerate(texts):
        line = {"type": "user", "message": {"role": "user", "content": text}, "timestamp": f"{days_ago(n + 1)}T10:00:00Z"}
        (folder / f"s{n}.jsonl").write_text(json.dumps(line) + "\n")
    return folder


def test_a_memory_with_no_keyword_is_found_by_its_path(make_store, cli, tmp_path):
    store = make_store({"MEMORY.md": "# M\n- [A](ab.md) — ab\n", "ab.md": "---\nname: ab\ndescription: d\n---\nab\n"})
    sessions = user_sessions(tmp_path / "sessions", [f"read {store.name}/ab.md"] * 5)
    [row] = cli("health", "--format", "json", "--today", TODAY.isoformat(), "--sessions", sessions, store).json()
    assert row["sessions"] == 5


def test_a_longer_file_name_holding_the_memorys_is_no_mention_of_it(make_store, cli, tmp_path):
    store = make_store({"MEMORY.md": "# M\n- [N](notes.md) — notes\n", "notes.md": MEM.format(name="n", desc="d", body="n")})
    set_mtime(store / "notes.md", 59)
    sessions = user_sessions(tmp_path / "sessions",
                             [f"Updated /p/{store.name}/release-notes.md and docs/meeting-notes.md"] * 5)
    [row] = cli("health", "--format", "json", "--today", TODAY.isoformat(), "--sessions", sessions, store).json()
    assert row["sessions"] == 0 and row["matched"] == []


@pytest.mark.parametrize("command", ["health", "triage"])
def test_a_file_named_reports_that_file_only(make_store, cli, command):
    store = make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n- [B](b.md) — b\n",
                        "a.md": MEM.format(name="a", desc="d", body="a"), "b.md": MEM.format(name="b", desc="d", body="b")})
    args = ("--all",) if command == "triage" else ()
    rows = cli(command, *args, "--format", "json", "--today", TODAY.isoformat(), store / "b.md").json()
    assert [row["path"] for row in rows] == ["b.md"]


def kafka_and_logs(tmp_path, kafka: str, logs: str):
    """A repository whose store holds two memories added on 2026-01-01, the
    second edited on 2026-02-01."""
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", f"# M\n- [K]({kafka}) — kafka\n- [L]({logs}) — logs\n")
    repo.write(f"memory/{kafka}", MEM.format(name="kafka", desc="k", body="kafka cluster"))
    repo.write(f"memory/{logs}", MEM.format(name="logs", desc="l", body="log shipping"))
    repo.commit("init", "2026-01-01T12:00:00+00:00")
    repo.write(f"memory/{logs}", MEM.format(name="logs", desc="l", body="log shipping, now to s3"))
    repo.commit("edit logs", "2026-02-01T12:00:00+00:00")
    return repo


@pytest.mark.parametrize("folder", ["", "memory/"], ids=["at-the-repository-root", "in-a-folder"])
def test_commits_name_a_memory_with_no_keyword_wherever_the_store_sits(tmp_path, cli, folder):
    """`notes` is a stop word: the memory is found by its path in the commits
    that touched it, a store at the repository root as much as one in a folder."""
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.write(f"{folder}MEMORY.md", "# Memory Index\n- [Notes](project_notes.md) — notes\n- [Kafka](project_kafka.md) — kafka\n")
    repo.write(f"{folder}project_notes.md", MEM.format(name="notes", desc="notes", body="body"))
    repo.write(f"{folder}project_kafka.md", MEM.format(name="kafka", desc="kafka", body="body"))
    repo.commit("init", "2026-01-01T12:00:00+00:00")
    for day in (10, 12, 14, 16, 18, 20):
        repo.write(f"{folder}project_notes.md", repo.read(f"{folder}project_notes.md") + f"x{day}\n")
        repo.commit("update", f"2026-02-{day}T12:00:00+00:00")
    args = ("--today", "2026-03-02", repo.root / folder)
    lines = cli("health", *args).output.splitlines()
    assert lines[1].startswith(f"HOT   0.93  {folder}project_notes.md  hits 6.00 in 6 sessions; ")
    assert lines[1].endswith(f"matched: {folder}project_notes.md")
    [notes] = [r for r in cli("triage", "--format", "json", *args).json() if r["path"].endswith("notes.md")]
    assert (notes["sessions"], notes["last_session"]) == (6, "2026-02-20")


def test_a_commit_that_only_wrote_dates_is_no_change(tmp_path, cli):
    """backfill's commit writes dates: health and triage still count the days
    from the last change of what the memory says, as MEM404 does."""
    repo = kafka_and_logs(tmp_path, "project_kafka.md", "project_logs.md")
    backfilled = MEM.format(name="kafka", desc="k", body="kafka cluster").replace(
        "---\nkafka", "created: 2026-01-01\nlast_verified: 2026-01-01\n---\nkafka")
    assert backfilled.count("last_verified") == 1
    repo.write("memory/project_kafka.md", backfilled)
    repo.write("memory/project_logs.md", MEM.format(name="logs", desc="l", body="log shipping, now to s3").replace(
        "---\nlog", "created: 2026-01-01\n---\nlog"))
    repo.commit("backfill", "2026-03-30T12:00:00+00:00")
    today = "2026-03-31"
    for _ in range(2):  # the second from what the first kept in the cache
        rows = {r["path"]: r for r in cli("health", "--format", "json", "--today", today, repo.root / "memory").json()}
        assert rows["memory/project_kafka.md"]["days_since_changed"] == 89  # since 2026-01-01, not 1
        assert rows["memory/project_logs.md"]["days_since_changed"] == 58  # since 2026-02-01
    triage = {r["path"]: r for r in cli("triage", "--all", "--format", "json", "--today", today,
                                         repo.root / "memory").json()}
    assert triage["memory/project_kafka.md"]["days_since_changed"] == 89


def test_the_days_since_a_change_do_not_depend_on_what_the_cache_knew(tmp_path, cli):
    """A merge kept main's kafka (last changed there by a commit that wrote
    dates only) and the branch's logs: the branch's edit of kafka counts, as
    for MEM404, whether or not logs is looked up in the same run (a run
    built on the cache looks up only what it does not know)."""
    repo = kafka_and_logs(tmp_path, "project_kafka.md", "project_logs.md")
    repo.checkout("side", new=True)
    repo.write("memory/project_kafka.md", MEM.format(name="kafka", desc="k", body="kafka cluster, edited on a branch"))
    repo.commit("edit kafka on a branch", "2026-02-10T12:00:00+00:00")
    repo.write("memory/project_logs.md", MEM.format(name="logs", desc="l", body="log shipping, edited on a branch"))
    repo.commit("edit logs on a branch", "2026-02-11T12:00:00+00:00")
    repo.checkout("main")
    dated = "---\nname: {name}\ndescription: {desc}\ncreated: 2026-01-01\n---\n{body}\n"
    repo.write("memory/project_kafka.md", dated.format(name="kafka", desc="k", body="kafka cluster"))
    repo.write("memory/project_logs.md", dated.format(name="logs", desc="l", body="log shipping, now to s3"))
    repo.commit("backfill", "2026-02-15T12:00:00+00:00")  # both last changed by dates only
    repo.merge("side", date="2026-02-20T12:00:00+00:00", commit=False)
    repo.run("checkout", "HEAD", "--", "memory/project_kafka.md")  # main's kafka
    repo.run("checkout", "side", "--", "memory/project_logs.md")  # the branch's logs
    repo.commit("merge side", "2026-02-20T12:00:00+00:00")
    today = "2026-03-31"

    def kafka_days(cache: bool = True):
        rows = cli("health", "--format", "json", "--today", today, repo.root / "memory",
                   env=None if cache else {"MEMLINT_NO_CACHE": "1"}).json()
        return {r["path"]: r["days_since_changed"] for r in rows}["memory/project_kafka.md"]

    assert kafka_days() == kafka_days(cache=False) == 49  # since the branch's edit of 2026-02-10
    repo.write("memory/project_logs.md", MEM.format(name="logs", desc="l", body="log shipping, to s3 again"))
    repo.commit("edit logs", "2026-03-01T12:00:00+00:00")  # logs is no longer looked up: kafka alone
    assert kafka_days() == kafka_days(cache=False) == 49


def test_a_repository_missing_an_old_object_still_gives_the_days_since_a_change(tmp_path, cli):
    """git cannot write the patch of a commit whose blob is gone: the days
    count from each file's last commit instead, and stderr says why."""
    repo = kafka_and_logs(tmp_path, "project_kafka.md", "project_logs.md")
    repo.write("memory/project_kafka.md", MEM.format(name="kafka", desc="k", body="kafka cluster").replace(
        "---\nkafka", "created: 2026-01-01\n---\nkafka"))
    repo.commit("backfill", "2026-03-30T12:00:00+00:00")
    old = repo.run("rev-parse", "HEAD~2:memory/project_logs.md").strip()  # what "edit logs" changed
    (repo.root / ".git" / "objects" / old[:2] / old[2:]).unlink()
    result = cli("health", "--format", "json", "--today", "2026-03-31", repo.root / "memory")
    assert result.exit_code == 0
    rows = {r["path"]: (r["days_since_changed"], r["changed_from"]) for r in result.json()}
    assert rows == {"memory/project_kafka.md": (1, "git"), "memory/project_logs.md": (58, "git")}
    assert f"memory: git log failed in {repo.root}: unable to read {old}: days since a change count " \
           "from each file's last commit" in result.stderr


def test_the_commits_kept_as_sessions_follow_head_and_the_date_fields(tmp_path, cli):
    """The commits health reads as sessions are kept for the next run at the
    same HEAD, and which paths a commit changed only the dates of for any
    later run: after a new commit, an amend and a change of date-fields,
    health gives what it gives without the cache."""
    repo = kafka_and_logs(tmp_path, "project_kafka.md", "project_logs.md")

    def rows() -> dict:
        """{path: (sessions, last session, hits)}, the same with and without the cache."""
        runs = [{r["path"]: (r["sessions"], r["last_session"], r["hits"])
                 for r in cli("health", "--format", "json", "--today", "2026-03-02", repo.root / "memory",
                              env=env).json()}
                for env in ({}, {"MEMLINT_NO_CACHE": "1"})]
        assert runs[0] == runs[1]
        return runs[0]

    first = rows()
    assert rows() == first  # the second from what the first kept
    assert first["memory/project_logs.md"][:2] == (1, "2026-02-01")
    repo.write("memory/project_logs.md", MEM.format(name="logs", desc="l", body="log shipping, now to s3 and gcs"))
    repo.commit("ship logs to gcs too", "2026-02-20T12:00:00+00:00")
    assert rows()["memory/project_logs.md"][:2] == (2, "2026-02-20")
    repo.write("memory/project_logs.md", MEM.format(name="logs", desc="l", body="log shipping, now to s3, gcs"))
    repo.run("commit", "-q", "--amend", "--no-verify", "-am", "ship logs to gcs", "--date", "2026-02-22T12:00:00+00:00",
             env={"GIT_COMMITTER_DATE": "2026-02-22T12:00:00+00:00"})
    assert rows()["memory/project_logs.md"][:2] == (2, "2026-02-22")
    verified = repo.read("memory/project_logs.md").replace("---\nlog", "last_verified: 2026-02-25\n---\nlog")
    repo.write("memory/project_logs.md", verified)
    repo.commit("verified the logs memory", "2026-02-25T12:00:00+00:00")
    assert rows()["memory/project_logs.md"][:2] == (2, "2026-02-22")  # a commit that only wrote a date: no session
    repo.write("memory/.memlint.yaml", "date-fields: [created]\n")  # last_verified is no date field now
    assert rows()["memory/project_logs.md"][:2] == (3, "2026-02-25")


def test_a_move_is_no_change_but_an_edit_before_it_is(tmp_path, cli):
    """`git mv` renames a memory (or moves the whole store): the days count
    from the last change of what it says, under its old name, as backfill's
    last_verified and MEM404 count them."""
    repo = kafka_and_logs(tmp_path, "kafka.md", "logs.md")
    repo.mv("memory/kafka.md", "memory/project_kafka.md")
    repo.write("memory/MEMORY.md", "# M\n- [K](project_kafka.md) — kafka\n- [L](logs.md) — logs\n")
    repo.commit("rename kafka", "2026-03-01T12:00:00+00:00")
    repo.mv("memory", "store")
    repo.commit("move the store", "2026-03-20T12:00:00+00:00")
    repo.write("store/project_kafka.md", MEM.format(name="kafka", desc="k", body="kafka cluster").replace(
        "---\nkafka", "created: 2026-01-01\n---\nkafka"))
    repo.commit("backfill", "2026-03-25T12:00:00+00:00")  # dates only, after the moves
    today = "2026-03-31"
    for _ in range(2):  # the second from what the first kept in the cache
        rows = {r["path"]: r for r in cli("health", "--format", "json", "--today", today, repo.root / "store").json()}
        assert rows["store/project_kafka.md"]["days_since_changed"] == 89  # since 2026-01-01
        assert rows["store/logs.md"]["days_since_changed"] == 58  # since 2026-02-01


def test_upkeep_commits_are_no_sessions_when_commits_are_the_sessions(tmp_path, cli):
    """A store without daily logs takes its commits as sessions. Committing
    backfill's dates, or moving the store, used no memory: nothing turns HOT
    and triage still advises ARCHIVE; a commit that edits a memory still
    counts for that memory, even when it also writes dates to another."""
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", "# M\n- [K](kafka.md) — kafka\n- [S](smoke.md) — smoke\n")
    repo.write("memory/kafka.md", MEM.format(name="kafka", desc="k", body="kafka cluster"))
    repo.write("memory/smoke.md", MEM.format(name="smoke", desc="s", body="smoke tests"))
    repo.commit("init", "2026-01-01T12:00:00+00:00")

    def dated(name, body):
        return MEM.format(name=name, desc=name[0], body=body).replace("\n---\n", "\ncreated: 2026-01-01\n---\n", 1)

    repo.mv("memory", "store")
    repo.commit("move the store", "2026-03-20T12:00:00+00:00")
    repo.write("store/kafka.md", dated("kafka", "kafka cluster"))
    repo.write("store/smoke.md", dated("smoke", "smoke tests"))
    repo.commit("backfill dates", "2026-03-25T12:00:00+00:00")
    today = "2026-03-31"

    def rows(command, *args):
        result = cli(command, *args, "--format", "json", "--today", today, repo.root / "store")
        return {r["path"]: r for r in result.json()}

    heat = rows("health")
    assert {r["hot_class"] for r in heat.values()} == {"COLD"} and all(r["sessions"] == 0 for r in heat.values())
    assert {r["recommendation"] for r in rows("triage", "--all").values()} == {"ARCHIVE"}
    repo.write("store/smoke.md", dated("smoke", "smoke tests, now nightly"))
    repo.write("store/kafka.md", dated("kafka", "kafka cluster").replace("created: 2026-01-01", "created: 2025-12-31"))
    repo.commit("smoke runs nightly; fix a date", "2026-03-30T12:00:00+00:00")
    heat = rows("health")
    assert heat["store/smoke.md"]["sessions"] == 1 and heat["store/kafka.md"]["sessions"] == 0


def test_an_import_is_no_session_nor_is_the_stores_folder_a_keyword(tmp_path, cli):
    """A store copied in by one commit made every file HOT (a user's first
    `memlint health`): a commit that only adds ten files or more is an
    import, not a session. A commit adding fewer still is one; and MOC-moc.md's
    "moc", the store's own folder, named in every commit of it, matches none."""
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    names = [f"topic{i:02}" for i in range(12)]
    repo.write("moc/MEMORY.md", "# M\n")
    repo.commit("start", "2026-02-01T12:00:00+00:00")
    repo.write("moc/MEMORY.md", "# M\n- [Moc](MOC-moc.md) — the map\n")  # an import that also edits the root
    repo.write("moc/MOC-moc.md", "# Map\n" + "".join(f"- [{n}]({n}.md) — {n}\n" for n in names))
    for name in names:
        repo.write(f"moc/{name}.md", MEM.format(name=name, desc=name, body=name))
    repo.commit("import the store", "2026-03-01T12:00:00+00:00")
    repo.write("moc/zephyrine.md", MEM.format(name="zephyrine", desc="z", body="z"))
    repo.write("moc/quokka.md", MEM.format(name="quokka", desc="q", body="q"))
    repo.commit("two new notes", "2026-03-10T12:00:00+00:00")
    heat = {r["path"]: r for r in cli("health", "--format", "json", "--today", "2026-03-20", repo.root / "moc").json()}
    used = sorted(path for path, row in heat.items() if row["sessions"])
    assert used == ["moc/quokka.md", "moc/zephyrine.md"]  # not the imported ones, though the import edited the root
    assert heat["moc/topic00.md"]["hot_class"] != "HOT" and heat["moc/MOC-moc.md"]["matched"] == []


def test_the_words_of_the_stores_folder_match_no_commit(tmp_path, cli):
    """Every commit of .claude/memory/ names `claude`: claude_hooks.md is used
    by the one commit that changed it, not by every commit of the store."""
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.write(".claude/memory/MEMORY.md", "# M\n- [H](claude_hooks.md) — hooks\n- [K](kafka.md) — kafka\n")
    repo.write(".claude/memory/claude_hooks.md", MEM.format(name="hooks", desc="h", body="h"))
    repo.write(".claude/memory/kafka.md", MEM.format(name="kafka", desc="k", body="k"))
    repo.commit("start", "2026-03-01T12:00:00+00:00")
    for day in (5, 6, 7):
        repo.write(".claude/memory/kafka.md", repo.read(".claude/memory/kafka.md") + f"x{day}\n")
        repo.commit("kafka notes", f"2026-03-{day:02}T12:00:00+00:00")
    rows = {r["path"]: r for r in cli("health", "--format", "json", "--today", "2026-03-20",
                                      repo.root / ".claude" / "memory").json()}
    assert rows[".claude/memory/claude_hooks.md"]["sessions"] == 1  # its own commit, not the three of kafka.md


@pytest.mark.parametrize("folder, name, word", [("kafka", "kafka.md", "kafka"), (".claude/memory", "claude_hooks.md", "claude")])
def test_a_folder_word_is_a_keyword_where_sessions_are_logs_not_commits(tmp_path, cli, folder, name, word):
    """Daily logs do not name the store's folder: there `kafka` of kafka/kafka.md
    is the memory's keyword (a commit of .claude/memory/ names `claude`, a log does not)."""
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.write(f"{folder}/MEMORY.md", f"# M\n- [{word}]({name}) — {word}\n")
    repo.write(f"{folder}/{name}", MEM.format(name=word, desc=word, body=word))
    for day in range(1, 20):  # 19 logs, 3 of them about it
        repo.write(f"{folder}/2026-03-{day:02}.md", f"- restarted the {word} broker\n" if day % 5 == 0 else "- quiet day\n")
    repo.commit("memory", "2026-03-20T12:00:00+00:00")
    [row] = [r for r in cli("health", "--format", "json", "--today", "2026-03-20", repo.root / folder).json()
             if r["path"].endswith(name)]
    assert (row["sessions"], row["matched"]) == (3, [word])


def test_a_project_folder_as_sessions_counts_its_transcripts_not_its_memories(tmp_path, cli):
    """Claude Code keeps a project's transcripts beside its memory/ folder:
    --sessions on the project counts the transcripts; the memories (this
    store's, or another project's) are not sessions, or each would match itself."""
    project = tmp_path / "projects" / "my-project"
    memory = project / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("# M\n- [Z](zephyrine.md) — z\n- [Q](quokka.md) — q\n")
    (memory / "zephyrine.md").write_text(MEM.format(name="zephyrine", desc="d", body="zephyrine"))
    (memory / "quokka.md").write_text(MEM.format(name="quokka", desc="d", body="quokka"))
    other = tmp_path / "projects" / "other" / "memory"
    other.mkdir(parents=True)
    (other / "MEMORY.md").write_text("# M\n- [Q](quokka.md) — q\n")
    (other / "quokka.md").write_text(MEM.format(name="quokka", desc="d", body="quokka"))
    line = {"type": "user", "message": {"role": "user", "content": "zephyrine again"},
            "timestamp": f"{days_ago(1).isoformat()}T10:00:00Z"}
    (project / "0b1c.jsonl").write_text(json.dumps(line) + "\n")
    for path in (*memory.iterdir(), *other.iterdir()):
        set_mtime(path, 2)  # inside the window, were they read as sessions
    for folder in (project, tmp_path / "projects"):
        result = cli("health", "--format", "json", "--today", TODAY.isoformat(), "--sessions", folder, memory)
        rows = {row["path"].rsplit("/", 1)[-1]: row for row in result.json()}
        assert rows["zephyrine.md"]["sessions"] == 1 and rows["quokka.md"]["sessions"] == 0, folder


def test_triage_ranks_the_files_of_every_store_together(tmp_path, cli):
    def store(name, lines, age):
        folder = tmp_path / name
        folder.mkdir()
        index = "# Memory\n"
        for i in range(1, 7):
            body = "".join(f"line {j}\n" for j in range(lines))
            (folder / f"project_{name}{i}.md").write_text(MEM.format(name=f"{name}{i}", desc="d", body=body))
            set_mtime(folder / f"project_{name}{i}.md", age)
            index += f"- [{name}{i}](project_{name}{i}.md) — d\n"
        (folder / "MEMORY.md").write_text(index)

    store("a", 350, 1)  # long and fresh: PRUNE
    store("b", 5, 300)  # short and long untouched: ARCHIVE, a lower score
    alone = cli("triage", "--format", "json", "--today", TODAY.isoformat(), tmp_path / "b").json()
    worst = min(row["score"] for row in alone)
    out = cli("triage", "--today", TODAY.isoformat(), tmp_path).output.splitlines()
    shown = [line.split() for line in out[1:]]
    assert len(shown) == 5 and all(row[0] == "ARCHIVE" and float(row[1]) == worst for row in shown), out
    rows = cli("triage", "--format", "json", "--today", TODAY.isoformat(), tmp_path).json()
    assert [row["score"] for row in rows if row["recommendation"] != "KEEP"] == sorted(
        row["score"] for row in rows if row["recommendation"] != "KEEP")


def test_a_shallow_clone_says_so_and_its_cut_commit_is_no_session(tmp_path, cli):
    """The commit a shallow clone is cut at "adds" every file: it is no
    session that touched them all, and the file times a checkout sets are said
    to be what they are."""
    import subprocess

    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "full")
    repo.write("memory/MEMORY.md", "# M\n- [A](a.md) — alpha\n- [B](b.md) — beta\n")
    repo.write("memory/a.md", MEM.format(name="alpha", desc="d", body="A"))
    repo.write("memory/b.md", MEM.format(name="beta", desc="d", body="B"))
    repo.commit("add alpha and beta", days_ago(20).isoformat() + "T10:00:00+00:00")
    repo.write("memory/a.md", MEM.format(name="alpha", desc="d", body="A, again"))
    repo.commit("alpha again", days_ago(5).isoformat() + "T10:00:00+00:00")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.root}", str(shallow)], check=True)
    full_rows = cli("health", "--format", "json", "--today", TODAY.isoformat(), repo.root / "memory").json()
    assert {row["path"]: row["sessions"] for row in full_rows} == {"memory/a.md": 2, "memory/b.md": 1}
    result = cli("health", "--format", "json", "--today", TODAY.isoformat(), shallow / "memory")
    assert "shallow clone" in result.stderr and "fetch-depth: 0" in result.stderr
    assert all(row["sessions"] == 0 for row in result.json())  # the cut commit counted for every file


def test_triage_scores_memories_not_the_indexes_that_route_to_them(make_store, cli):
    files = {"MEMORY.md": "# M\n- [Projects](MOC-projects.md) — projects\n",
             "MOC-projects.md": "# Projects\n" + "".join(f"- [P{i}](p{i}.md) — project {i}\n" for i in range(6))}
    files.update({f"p{i}.md": MEM.format(name=f"p{i}", desc="d", body="b") for i in range(6)})
    store = make_store(files)
    for name in files:
        set_mtime(store / name, 90)  # unchanged for long, and no session: an index would look ARCHIVE
    rows = cli("triage", "--format", "json", "--today", TODAY.isoformat(), "--preset", "moc", store).json()
    assert sorted(row["path"] for row in rows) == [f"p{i}.md" for i in range(6)]
    assert all(row["recommendation"] == "ARCHIVE" for row in rows)


def test_triage_leaves_out_an_index_with_frontmatter_too(make_store, cli):
    listing = MEM.format(name="streaming index", desc="index of streaming memories",
                         body="".join(f"- [Item {i}](item_{i}.md) — thing {i}\n" for i in range(6)))
    files = {"MEMORY.md": "# M\n- [Streaming](streaming_index.md) — all streaming memories\n",
             "streaming_index.md": listing}
    files.update({f"item_{i}.md": MEM.format(name=f"item {i}", desc="d", body="b") for i in range(6)})
    store = make_store(files)
    rows = cli("triage", "--format", "json", "--all", "--today", TODAY.isoformat(), store).json()
    assert sorted(row["path"] for row in rows) == [f"item_{i}.md" for i in range(6)]


def test_sessions_inside_the_store_are_not_counted_again(planted, cli):
    """--sessions naming a folder of the store: its daily logs are sessions
    already and its memories never are; a transcript there is one."""
    alone = cli("health", "--format", "json", "--today", TODAY.isoformat(), planted).json()
    inside = cli("health", "--format", "json", "--today", TODAY.isoformat(), "--sessions", planted / "memory", planted)
    assert inside.json() == alone
    transcript = {"type": "user", "timestamp": f"{days_ago(1).isoformat()}T10:00:00Z",
                  "message": {"role": "user", "content": "the libpcb board again"}}
    (planted / "memory" / "t.jsonl").write_text(json.dumps(transcript) + "\n")
    (planted / "README.md").write_text("# About\nNotes on ironclaw, libpcb, gradle caching.\n")  # left out by the store
    (planted / "node_modules" / "pkg").mkdir(parents=True)
    (planted / "node_modules" / "pkg" / "notes.txt").write_text("libpcb gradle caching ironclaw\n")
    set_mtime(planted / "README.md", 1)  # in the window: counted, were they sessions
    set_mtime(planted / "node_modules" / "pkg" / "notes.txt", 1)
    rows = by_path(cli("health", "--format", "json", "--today", TODAY.isoformat(), "--sessions", planted, planted).json())
    assert rows["libpcb.md"]["sessions"] == 1 and by_path(alone)["libpcb.md"]["sessions"] == 0
    assert rows["gradle-caching.md"]["sessions"] == by_path(alone)["gradle-caching.md"]["sessions"]


def test_a_state_folder_that_cannot_be_written_still_gives_health_and_triage(planted, cli, monkeypatch):
    """An earlier `sudo` run left .git/memlint to root: the sessions are indexed in memory instead."""
    import sqlite3

    from memlint import sessions

    expected = cli("health", "--format", "json", "--today", TODAY.isoformat(), planted).json()
    real = sessions.SessionIndex.update

    def refused(self, found):
        if str(self.db_path) != ":memory:":
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real(self, found)

    monkeypatch.setattr(sessions.SessionIndex, "update", refused)
    result = cli("health", "--format", "json", "--today", TODAY.isoformat(), planted)
    assert result.exit_code == 0 and result.json() == expected
    assert "cannot be written" in result.stderr and "indexed in memory" in result.stderr
    assert cli("triage", "--format", "json", "--today", TODAY.isoformat(), planted).exit_code == 0


def test_a_huge_session_log_is_read_only_as_far_as_a_memory_file_would_be(tmp_path):
    """The README: oversized files are read only up to 8 MB; a 300 MB log must not take gigabytes."""
    from memlint import sessions

    log = tmp_path / "2026-03-01.md"
    log.write_bytes(b"filler words\n" * (9 * 1024 * 1024 // 13) + b"needle at the end\n")
    text = sessions._read_text(log)
    assert len(text.encode()) <= 8 * 1024 * 1024 and "needle" not in text


def test_two_stores_daily_logs_of_the_same_names_are_different_sessions(tmp_path, cli):
    for team in ("team-a", "team-b"):
        (tmp_path / team / "memory").mkdir(parents=True)
        (tmp_path / team / "MEMORY.md").write_text("# Memory\n- Kafka: `memory/kafka.md`\n")
        (tmp_path / team / "memory" / "kafka.md").write_text("# Kafka\nAlways set acks.\n")
        for day in ("01", "05", "10"):
            (tmp_path / team / "memory" / f"2026-06-{day}.md").write_text(f"# log\n- {team} worked on kafka\n")
    out = cli("health", "--today", TODAY.isoformat(), "--preset", "openclaw", "team-a", "team-b", cwd=tmp_path).output
    assert out.splitlines()[0].startswith("2 files, 6 sessions"), out


def test_a_state_folder_that_cannot_even_be_made_still_gives_health_and_triage(planted, cli, monkeypatch):
    from memlint import statedir

    expected = cli("health", "--format", "json", "--today", TODAY.isoformat(), planted).json()

    def refused(repo_root, store_dir):
        raise PermissionError(1, "Operation not permitted", str(repo_root))

    monkeypatch.setattr(statedir, "state_dir", refused)
    result = cli("health", "--format", "json", "--today", TODAY.isoformat(), planted)
    assert result.exit_code == 0 and result.json() == expected and "indexed in memory" in result.stderr
    triage = cli("triage", "--format", "json", "--today", TODAY.isoformat(), planted)
    assert triage.exit_code == 0 and "this triage run is not logged" in triage.stderr


def test_triage_never_advises_archiving_a_core_memory(make_store, cli):
    """A 🔴 memory never expires (MEM501, MEM502 leave it): triage keeps it
    however cold it is, and still advises archiving a cold ordinary one."""
    core = "---\ntitle: How we deploy\nstatus: active\npriority: 🔴\n---\nAlways deploy on Tuesdays.\n"
    plain = "---\ntitle: Old gh tips\nstatus: active\npriority: 🟢\n---\nSome gh tips.\n"
    store = make_store({"INDEX.md": "# INDEX\n- [d](deploys.md)\n- [g](gh-tips.md)\n", "NOW.md": "# NOW\n",
                        "deploys.md": core, "gh-tips.md": plain})
    for name in ("deploys.md", "gh-tips.md"):
        set_mtime(store / name, 90)
    rows = {r["path"]: r for r in cli("triage", "--all", "--format", "json", "--today", TODAY.isoformat(), store).json()}
    assert rows["gh-tips.md"]["recommendation"] == "ARCHIVE"
    assert rows["deploys.md"]["recommendation"] == "KEEP" and rows["deploys.md"]["staleness"] == 1.0
    # a long one is still advised to be pruned: only archiving is ruled out
    (store / "deploys.md").write_text(core + "".join(f"- step {i}\n" for i in range(320)))
    set_mtime(store / "deploys.md", 90)
    rows = {r["path"]: r for r in cli("triage", "--all", "--format", "json", "--today", TODAY.isoformat(), store).json()}
    assert rows["deploys.md"]["recommendation"] == "PRUNE"


def test_triage_text_says_one_line_not_one_lines(make_store, cli):
    store = make_store({"INDEX.md": "# INDEX\n- [g](gh.md)\n", "NOW.md": "# NOW\n", "gh.md": "Some gh tips."})
    out = cli("triage", "--all", "--today", TODAY.isoformat(), store).output
    assert "ago, 1 line)" in out and "1 lines" not in out


def test_triage_advises_nothing_on_a_memory_its_status_retires(make_store, cli):
    """`status: archived`, `superseded`... (the store's retired-statuses): the
    memory is archived already. KEEP, listed last with --all, and no crowding
    of the files that need attention; a live cold one is still advised."""
    mem = "---\nname: {0}\ndescription: {0}\n{1}---\n{2}\n"
    store = make_store({
        "MEMORY.md": "# Memory\n- [Price](price.md) — price\n- [Cold](cold.md) — cold\n",
        "price.md": mem.format("price", "supersedes: oldprice\n", "The new price."),
        "cold.md": mem.format("cold", "", "Cold notes."),
        "oldprice.md": mem.format("oldprice", "status: superseded\n", "The old price."),
        "freeze.md": mem.format("freeze", "status: archived\n", "Code freeze 2025."),
        "long-gone.md": mem.format("long-gone", "status: obsolete\n", "\n".join(f"step {i}" for i in range(320))),
    })
    for name in ("cold.md", "oldprice.md", "freeze.md", "long-gone.md"):
        set_mtime(store / name, 90)
    args = ("--today", TODAY.isoformat(), "--preset", "claude-code", store)
    out = cli("triage", *args).output.splitlines()
    assert out[0] == "5 files scored: 1 needs attention, 3 already retired by their status (KEEP: nothing to advise)"
    assert [line.split()[:3:2] for line in out[1:]] == [["ARCHIVE", "cold.md"]]
    out = cli("triage", "--all", *args).output.splitlines()
    assert [line.split()[0] for line in out[1:]] == ["ARCHIVE", "KEEP", "KEEP", "KEEP", "KEEP"]
    assert all("(retired)" in line for line in out[3:]) and "(retired)" not in out[2]
    rows = by_path(cli("triage", "--format", "json", *args).json())
    assert {p: (r["recommendation"], r["retired"]) for p, r in rows.items()} == {
        "cold.md": ("ARCHIVE", False), "price.md": ("KEEP", False), "oldprice.md": ("KEEP", True),
        "freeze.md": ("KEEP", True), "long-gone.md": ("KEEP", True)}
    report = cli("report", *args).output
    assert "**triage**: 1 ARCHIVE, 0 PRUNE, 0 UPDATE, 4 KEEP" in report


def test_moving_the_store_keeps_its_commits_as_sessions(tmp_path, cli):
    """Commits are the sessions (no daily logs): those made before `git mv
    memory store` touched the old folder, and still count after the move."""
    repo = kafka_and_logs(tmp_path, "kafka.md", "billing.md")
    for day in ("2026-02-05", "2026-02-08"):
        repo.write("memory/billing.md", repo.read("memory/billing.md") + f"Invoices sent again on {day}.\n")
        repo.commit("billing: invoices", f"{day}T12:00:00+00:00")

    def rows(folder):
        result = cli("health", "--format", "json", "--today", "2026-02-14", repo.root / folder)
        return {r["path"].split("/", 1)[1]: (r["sessions"], r["hot_class"]) for r in result.json()}

    before = rows("memory")
    assert before["billing.md"][0] == 3
    repo.mv("memory", "store")
    repo.commit("move the store", "2026-02-12T12:00:00+00:00")
    assert rows("store") == before


def test_files_moved_in_from_another_folder_do_not_bring_its_sessions(tmp_path, cli):
    """Two notes moved from docs/ (which keeps its other files) into the
    store: the store did not move, and docs/'s commits are not its sessions."""
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", "# M\n- [X](zephyr-x.md) — x\n- [Y](zephyr-y.md) — y\n")
    repo.commit("root", "2026-01-01T12:00:00+00:00")
    for day, name in (("02", "x"), ("03", "y"), ("04", "z")):
        repo.write(f"docs/zephyr-{name}.md", MEM.format(name=f"zephyr-{name}", desc=name, body=f"zephyr notes {name}"))
        repo.commit(f"docs: zephyr {name}", f"2026-01-{day}T12:00:00+00:00")
    repo.mv("docs/zephyr-x.md", "memory/zephyr-x.md")
    repo.mv("docs/zephyr-y.md", "memory/zephyr-y.md")
    repo.commit("file two notes", "2026-01-05T12:00:00+00:00")
    result = cli("health", "--format", "json", "--today", "2026-01-07", repo.root / "memory")
    assert all(r["sessions"] == 0 for r in result.json()), result.json()

"""MEM401-MEM405: frontmatter dates against git, on real repositories with known dates."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.gitrepo import GitRepo

D1 = "2024-01-10T09:00:00+00:00"
D2 = "2024-02-20T10:30:00+00:00"
D3 = "2024-03-30T12:00:00+00:00"
D4 = "2024-04-15T08:15:00+00:00"
TODAY = "2024-05-01"
INDEX = "# Index\n- [A](a.md) — the first memory\n"
BODY = "".join(f"line {i}: a fact worth keeping\n" for i in range(1, 11))


def mem(created: str | None = None, last_verified: str | None = None, body: str = BODY, **extra: str) -> str:
    """A memory whose `created` is on line 4 and `last_verified` on line 5 (when given)."""
    lines = ["---", "name: a", "description: a memory"]
    if created is not None:
        lines.append(f"created: {created}")
    if last_verified is not None:
        lines.append(f"last_verified: {last_verified}")
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return "\n".join(lines) + "\n---\n" + body


@pytest.fixture
def repo(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("memory/MEMORY.md", INDEX)
    return repo


@pytest.fixture
def dates(findings):
    """dates(repo, *args): (path, line, code) of the MEM4xx findings."""

    def run(repo: GitRepo, *args: str, select: str = "MEM4"):
        return sorted(findings(repo.root / "memory", "--today", TODAY, "--select", select, *args))

    return run


def message(cli, repo: GitRepo, code: str, *args: str) -> str:
    result = cli("check", "--format", "json", "--today", TODAY, "--select", code, *args, repo.root / "memory")
    [finding] = result.json()
    return finding["message"]


# ---------------------------------------------------------------- MEM401 created-mismatch


def test_a_renamed_store_folder_keeps_its_dates_for_every_rule(repo, findings, cli):
    """`git mv memory .claude/memory`: the files are not new, nor changed."""
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/b.md", mem(body=BODY.replace("line", "row")))
    repo.commit("add", D1)
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.mv("memory", ".claude/memory")
    repo.commit("move the store", D3)
    found = findings(repo.root / ".claude" / "memory", "--today", TODAY, "--select", "MEM401,MEM501")
    stale = {(".claude/memory/a.md", 5, "MEM501"), (".claude/memory/b.md", 1, "MEM501")}  # unchanged since D1
    assert sorted(found) == sorted(stale)  # and no MEM401: created is still the first add
    result = cli("backfill", "--dry-run", "--today", TODAY, repo.root / ".claude" / "memory")
    assert "+created: 2024-01-10" in result.output and "2024-03-30" not in result.output


def test_created_agrees_with_the_first_add_or_fires(repo, dates, cli):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/b.md", mem("2024-03-01", "2024-03-01"))
    repo.commit("add", D1)
    assert dates(repo) == [("memory/b.md", 4, "MEM401")]
    assert message(cli, repo, "MEM401") == (
        "`created: 2024-03-01` is 51 days after git first added this file on 2024-01-10 "
        f"(commit {repo.head()[:7]}): set `created: 2024-01-10`")


def test_created_tolerance_and_allow_earlier(repo, dates, cli):
    repo.commit("the store", "2024-01-01T09:00:00+00:00")
    repo.write("memory/one-day.md", mem("2024-01-11", "2024-01-11"))
    repo.write("memory/two-days.md", mem("2024-01-12", "2024-01-12"))
    repo.write("memory/earlier.md", mem("2023-06-01", "2024-01-10"))
    repo.commit("add", D1)
    assert dates(repo) == [("memory/earlier.md", 4, "MEM401"), ("memory/two-days.md", 4, "MEM401")]
    repo.write(".memlint.yaml", "preset: moc\nrules:\n  created-mismatch: {tolerance-days: 0, allow-earlier: true}\n")
    assert dates(repo) == [("memory/one-day.md", 4, "MEM401"), ("memory/two-days.md", 4, "MEM401")]
    result = cli("check", "--format", "json", "--today", TODAY, "--select", "MEM401", repo.root / "memory" / "one-day.md")
    assert "is 1 day after git first added" in result.json()[0]["message"]


def test_an_earlier_created_on_a_file_the_stores_first_commit_added_is_not_disputed(repo, dates):
    """Memories older than their repository come into git with its first
    commit: git cannot say how old they are. Added later, it can."""
    repo.write("memory/imported.md", mem("2023-06-01", "2024-01-10"))
    repo.write("memory/later-typo.md", mem("2024-02-20", "2024-02-20"), add=False)
    repo.commit("import the store", D1)
    assert dates(repo) == []
    repo.run("add", "memory/later-typo.md")
    repo.commit("a later memory", "2024-03-05T09:00:00+00:00")
    assert dates(repo) == [("memory/later-typo.md", 4, "MEM401")]


def test_the_stores_first_commit_is_its_files_not_a_readme_before_them(tmp_path, findings):
    """A repository that began with a README: the store came in later, with its old dates."""
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("README.md", "# notes\n")
    repo.commit("readme", "2024-01-01T09:00:00+00:00")
    repo.write("MEMORY.md", INDEX)
    repo.write("a.md", mem("2023-06-01", "2024-01-10"))
    repo.commit("import the store", D1)
    assert sorted(findings(repo.root, "--today", TODAY, "--select", "MEM401")) == []


def test_created_is_the_day_in_the_commits_own_time_zone(repo, dates):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write(".memlint.yaml", "preset: moc\nrules:\n  MEM401: {tolerance-days: 0}\n")
    repo.commit("late in New York: already the 11th in UTC", "2024-01-10T23:30:00-05:00")
    assert dates(repo) == []


def test_git_mv_and_rename_with_edits_keep_the_first_add(repo, dates, cli):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.mv("memory/a.md", "memory/moved/a.md")
    repo.mv("memory/b.md", "memory/moved/b renamed.md")
    repo.write("memory/moved/b renamed.md", mem("2024-01-10", "2024-01-10", BODY.replace("line 3:", "line three:")))
    repo.commit("move", D3)
    assert dates(repo, select="MEM401") == []
    # dated by the move instead: git follows the rename back to January
    repo.write("memory/moved/a.md", mem("2024-03-30", "2024-03-30"))
    repo.commit("redate", D3)
    assert dates(repo, select="MEM401") == [("memory/moved/a.md", 4, "MEM401")]
    assert "on 2024-01-10" in message(cli, repo, "MEM401")


def test_deleted_then_readded_is_born_again(repo, dates, cli):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.rm("memory/a.md")
    repo.commit("delete", D2)
    repo.write("memory/a.md", mem("2024-01-10", "2024-03-30"))
    repo.commit("a new memory at the old path", D3)
    assert dates(repo) == [("memory/a.md", 4, "MEM401")]
    assert "git first added this file on 2024-03-30" in message(cli, repo, "MEM401")


def test_a_file_added_on_a_merged_branch_keeps_the_branch_date(repo, dates):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.checkout("topic", new=True)
    repo.write("memory/b.md", mem("2024-02-20", "2024-02-20"))
    repo.commit("b on a branch", D2)
    repo.checkout("main")
    repo.write("memory/c.md", mem("2024-03-30", "2024-03-30"))
    repo.commit("c on main", D3)
    repo.merge("topic", date=D4)
    assert dates(repo) == []


def test_spaces_and_unicode_in_names(repo, dates):
    repo.commit("the store", "2024-01-01T09:00:00+00:00")
    repo.write("memory/café notes/my memory.md", mem("2023-01-01", "2024-01-10"))
    repo.commit("add", D1)
    assert dates(repo) == [("memory/café notes/my memory.md", 4, "MEM401")]


def test_uncommitted_files_are_unknown_and_staged_new_files_are_created_today(repo, dates, cli):
    repo.commit("the store", D1)
    repo.write("memory/untracked.md", mem("2020-01-01", "2020-01-01"), add=False)
    repo.write("memory/staged-old.md", mem("2020-01-01", "2020-01-01"))
    repo.write("memory/staged-today.md", mem(TODAY, TODAY))
    assert dates(repo) == []  # not committed: nothing to compare with
    assert dates(repo, "--staged") == [("memory/staged-old.md", 4, "MEM401")]
    assert "git first added this file on 2024-05-01 (the commit being made)" in message(
        cli, repo, "MEM401", "--staged")


def test_shallow_clone_reports_mem403_once_and_judges_no_dates(repo, dates, tmp_path, cli):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.write("memory/c.md", mem("2024-04-15", "2024-04-15"))
    repo.commit("add c", D4)
    assert dates(repo) == []  # full history: every date agrees

    clone = GitRepo(tmp_path / "clone", init=False)
    clone.run("clone", "-q", "--depth", "1", f"file://{repo.root}", ".")
    # every file now looks added on 2024-04-15: a and b would be 96 days off
    assert dates(clone) == [("memory/MEMORY.md", 1, "MEM403")]
    msg = message(cli, clone, "MEM403")
    assert "fetch-depth: 0" in msg
    # the fetch runs where memlint ran: here, outside the clone, git is sent into it
    fetch = msg.split("`")[1]
    assert fetch.startswith("git -C ") and fetch.endswith(" fetch --unshallow")
    subprocess.run(fetch, shell=True, env=clone.env, check=True, capture_output=True)
    assert dates(clone) == []


def test_shallow_clone_makes_git_dates_unknown_for_staleness_too(repo, findings, tmp_path):
    repo.write("memory/a.md", mem(body="no dates in the frontmatter\n"))
    repo.commit("add", "2023-01-10T09:00:00+00:00")
    repo.write("memory/b.md", mem("2024-04-15", "2024-04-15"))
    repo.commit("add b", D4)
    full = findings(repo.root / "memory", "--today", TODAY, "--select", "MEM501")
    assert full == [("memory/a.md", 1, "MEM501")]  # unchanged since 2023: over the 60-day window
    clone = GitRepo(tmp_path / "clone", init=False)
    clone.run("clone", "-q", "--depth", "1", f"file://{repo.root}", ".")
    assert findings(clone.root / "memory", "--today", TODAY, "--select", "MEM501") == []


def test_not_a_repository_one_notice_and_the_other_rules_run(repo, tmp_path, cli):
    folder = tmp_path / "plain"
    (folder / "memory").mkdir(parents=True)
    (folder / ".memlint.yaml").write_text("preset: moc\n")
    (folder / "memory" / "MEMORY.md").write_text(INDEX)
    (folder / "memory" / "a.md").write_text(mem("2024-13-01", "2024-01-10"))  # MEM004: no month 13
    (folder / "memory" / "b.md").write_text(mem("2020-01-01", "2024-01-10"))
    result = cli("check", "--format", "json", "--today", TODAY, folder / "memory", "--select", "MEM004,MEM4")
    assert [(f["path"], f["line"], f["code"]) for f in result.json()] == [("a.md", 4, "MEM004")]
    notices = result.stderr.splitlines()
    assert len(notices) == 1, notices
    assert "not in a git repository" in notices[0]
    assert "MEM401, MEM403, MEM404, MEM405" in notices[0] and "skipped" in notices[0]


def test_no_notice_when_no_git_rule_runs(tmp_path, cli):
    (tmp_path / "MEMORY.md").write_text(INDEX)
    (tmp_path / "a.md").write_text(mem("2024-01-10", "2024-01-10"))
    result = cli("check", "--preset", "moc", "--select", "MEM004", tmp_path)
    assert result.exit_code == 0 and result.stderr == ""


# ---------------------------------------------------------------- MEM402 dates-missing


def test_dates_missing_per_preset(make_store, findings, cli):
    store = make_store({
        "MEMORY.md": INDEX,
        "a.md": mem(),
        "b.md": mem("2024-01-10"),
        "c.md": mem("2024-01-10", "2024-01-10"),
        "d.md": mem("2024-01-10", last_verified='""'),
        "e.md": "---\nname: e\nmetadata:\n  created: 2024-01-10\n  last_verified: 2024-01-10\n---\nnested\n",
        "f.md": "no frontmatter: optional in moc\n",
        "2024-01-10.md": "- a daily log, not a memory\n",
    })
    # on the opening fence, or on the empty key's own line (d.md's `last_verified: ""`)
    assert sorted(findings(store, "--preset", "moc", "--select", "MEM402")) == [
        ("a.md", 1, "MEM402"), ("b.md", 1, "MEM402"), ("d.md", 5, "MEM402")]
    assert sorted(findings(store, "--preset", "three-layer", "--select", "MEM402")) == [
        ("a.md", 1, "MEM402"), ("b.md", 1, "MEM402"), ("d.md", 5, "MEM402")]
    assert findings(store, "--preset", "claude-code", "--select", "MEM402") == []  # Claude Code memories carry no dates
    result = cli("check", "--format", "json", "--preset", "moc", "--select", "MEM402", store / "a.md")
    assert [f["message"] for f in result.json()] == [  # no git here: backfill could not help
        "no `created` or `last_verified`: the moc preset wants them on every memory; add them"]
    subprocess.run(["git", "init", "-q", str(store)], check=True)
    subprocess.run(["git", "-C", str(store), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(store), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"], check=True)
    result = cli("check", "--format", "json", "--preset", "moc", "--select", "MEM402", store / "a.md")
    assert [f["message"] for f in result.json()] == [
        "no `created` or `last_verified`: the moc preset wants them on every memory; "
        "run `memlint backfill` to take them from git"]


def test_dates_missing_says_to_fill_in_an_empty_key_not_to_add_it(make_store, cli):
    """Adding a key that is there with no value makes a duplicate key (MEM002)."""
    store = make_store({
        "MEMORY.md": INDEX,
        "a.md": "---\nname: a\ndescription: d\ncreated:\n---\nA\n",
        "b.md": "---\nname: b\ndescription: d\ncreated: ''\nlast_verified: ~\n---\nB\n",
        "c.md": "---\nname: c\ndescription: d\nmetadata:\n  last_verified:\n---\nC\n",
    })
    result = cli("check", "--format", "json", "--preset", "moc", "--select", "MEM402", store)
    assert [(f["path"], f["line"], f["message"].split(": the moc preset wants them on every memory; "))
            for f in result.json()] == [
        ("a.md", 4, ["no `last_verified`, and `created` is empty", "fill in `created` on line 4 and add `last_verified`"]),
        ("b.md", 4, ["`created` and `last_verified` are empty", "fill in `created` on line 4 and `last_verified` on line 5"]),
        ("c.md", 5, ["no `created`, and `last_verified` is empty", "fill in `last_verified` on line 5 and add `created`"]),
    ]


def test_dates_missing_fields_come_from_the_wants_dates_setting(make_store, findings, cli):
    store = make_store({"MEMORY.md": INDEX, "a.md": mem("2024-01-10", "2024-01-10"),
                        ".memlint.yaml": "preset: claude-code\nwants-dates: [created, expires]\n"})
    assert findings(store, "--select", "MEM402") == [("a.md", 1, "MEM402")]
    [text] = [f["message"] for f in cli("check", "--format", "json", "--select", "MEM402", store).json()]
    assert text.startswith("no `expires`: this store's `wants-dates` wants it")  # not the preset's doing


# ---------------------------------------------------------------- MEM404 changed-since-verified


def test_a_body_edit_after_last_verified_fires(repo, dates, cli):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", BODY + "a new claim\n"))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10", BODY + "edited the next morning\n"))
    repo.commit("edit a and b", "2024-01-11T08:00:00+00:00")
    assert dates(repo) == []  # within the 1-day tolerance
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", BODY + "a newer claim\n"))
    c = repo.commit("edit a", D3)
    assert dates(repo) == [("memory/a.md", 5, "MEM404")]
    assert message(cli, repo, "MEM404") == (
        f"changed on 2024-03-30 (commit {c[:7]}), 80 days after `last_verified: 2024-01-10`: "
        "what it says now was not verified; check it, then set `last_verified: 2024-05-01`")


def test_the_edit_that_retires_a_memory_is_no_change_to_verify(repo, dates, cli):
    """MEM501 and MEM503 say: set `status: outdated`. That edit comes after
    `last_verified`; a memory no longer loaded needs no verifying, so MEM404
    is quiet on it (retired-exempt-rules), and on a live one still fires."""
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", status="outdated", superseded_by="b"))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10", BODY + "a newer claim\n"))
    repo.commit("retire a, edit b", D3)
    assert dates(repo) == [("memory/b.md", 5, "MEM404")]
    summary = cli("check", "--today", TODAY, "--select", "MEM404", "--summary", repo.root / "memory").output
    assert summary.splitlines()[-1] == "not reported: 1 finding on retired memories (store setting retired-exempt-rules)"
    repo.write(".memlint.yaml", "preset: moc\nretired-exempt-rules: [content, orphan]\n")
    assert dates(repo) == [("memory/a.md", 5, "MEM404"), ("memory/b.md", 5, "MEM404")]


def test_commits_whose_patches_run_to_megabytes_are_read_whole(repo, dates, cli):
    """git's log is read as git writes it, in pieces: a memory whose patch
    lies between two others of megabytes is judged as any (b's last commit
    wrote a date only: its change is the one before)."""
    def big(version: str) -> str:  # ~1.6 MB, every line changed from one version to the next
        return "".join(f"{version} line {i}: {'x' * 70}\n" for i in range(20_000))

    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/a_bulk.md", big("first"))
    repo.write("memory/c_bulk.md", big("first"))
    repo.commit("add", D1)
    repo.write("memory/a_bulk.md", big("second"))
    repo.write("memory/c_bulk.md", big("second"))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10", BODY + "a new claim\n"))  # after a_bulk's patch
    edit = repo.commit("rewrite both bulks, edit b", D2)
    repo.write("memory/a_bulk.md", big("third"))
    repo.write("memory/c_bulk.md", big("third"))
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", BODY + "another claim\n"))
    repo.write("memory/b.md", mem("2024-01-09", "2024-01-10", BODY + "a new claim\n"))  # a date only
    repo.commit("rewrite both bulks, edit a, fix b's created", D3)
    repo.write("memory/a_bulk.md", big("fourth"))
    repo.commit("rewrite the bulk", D4)
    assert dates(repo, "--select", "MEM404") == [("memory/a.md", 5, "MEM404"), ("memory/b.md", 5, "MEM404")]
    b = [f["message"] for f in cli("check", "--format", "json", "--today", TODAY, "--select", "MEM404",
                                   repo.root / "memory").json() if f["path"].endswith("b.md")]
    assert b == [f"changed on 2024-02-20 (commit {edit[:7]}), 41 days after `last_verified: 2024-01-10`: "
                 "what it says now was not verified; check it, then set `last_verified: 2024-05-01`"]
    rows = {r["path"]: r["days_since_changed"]
            for r in cli("health", "--format", "json", "--today", TODAY, repo.root / "memory").json()}
    assert (rows["memory/a.md"], rows["memory/b.md"], rows["memory/a_bulk.md"]) == (32, 71, 16)


def test_a_binary_file_in_the_store_hides_no_change_after_it(repo, dates, cli):
    """Past 200 memories to ask about, git's patches are asked of the
    store's folder, a picture's with them, written as text: a NUL byte in
    that patch does not end the commit, and the memories' patches after it
    in the same commit count."""
    from memlint.gitdates import _MAX_PATH_ARGS

    names = [f"memory/m{i:03}.md" for i in range(_MAX_PATH_ARGS + 1)]
    for i, name in enumerate(names):
        repo.write(name, mem("2024-01-10", "2024-01-10", f"fact {i}\n"))
    picture = repo.path("memory/diagram.png")  # listed before memory/m*.md in a commit's patches
    pixels = bytes(range(256)) * 6_000  # 1.5 MB, a NUL in every 256 bytes: git's log comes in many pieces
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR first" + pixels)
    repo.add("memory/diagram.png")
    repo.commit("add", D1)
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR second" + pixels[::-1])
    repo.add("memory/diagram.png")
    for i, name in enumerate(names):
        repo.write(name, mem("2024-01-10", "2024-01-10", f"fact {i}, revised\n"))
    edit = repo.commit("redraw the diagram, revise every memory", D3)
    assert dates(repo, "--select", "MEM404") == [(name, 5, "MEM404") for name in names]
    texts = {f["message"] for f in cli("check", "--format", "json", "--today", TODAY, "--select", "MEM404",
                                       repo.root / "memory").json()}
    assert texts == {f"changed on 2024-03-30 (commit {edit[:7]}), 80 days after `last_verified: 2024-01-10`: "
                     "what it says now was not verified; check it, then set `last_verified: 2024-05-01`"}


def test_commits_that_only_write_dates_are_not_changes(repo, dates):
    repo.write("memory/a.md", mem(body=BODY))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    # months later: a backfill adds both dates to a, someone fixes b's `created`
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/b.md", mem("2024-01-09", "2024-01-10"))
    repo.commit("backfill dates", D3)
    assert dates(repo) == []


def test_a_date_rewritten_as_a_yaml_timestamp_is_no_change(repo, dates):
    """YAML 1.1 spells a timestamp with a one-digit zone, a lowercase t,
    spaces before the zone: a date still, so the edit writes only dates."""
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.write("memory/a.md", mem("2024-01-09t09:00:00-5", "2024-01-10 09:00:00.5  +1:00"))
    repo.commit("dates with their times", D3)
    assert dates(repo) == []


def test_a_body_line_that_starts_with_a_date_fields_name_is_a_change(repo, dates, cli):
    """`date:` and `expires:` lines of the body say something: only a date
    field's line with a date (or nothing) is a dates-only edit."""
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", BODY + "date: 2024-03-01\nexpires: with Q1\n"))
    repo.commit("add", D1)
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", BODY + "date: 2024-05-15 (slipped)\nexpires: with Q3\n"))
    repo.commit("the launch slipped", D3)
    assert dates(repo) == [("memory/a.md", 5, "MEM404")]
    repo.write("memory/a.md", mem("2024-01-09", "2024-01-10", BODY + "date: 2024-05-15 (slipped)\nexpires: with Q3\n"))
    repo.commit("fix created", D4)  # a date, written as one: no change
    assert message(cli, repo, "MEM404").startswith("changed on 2024-03-30")


def test_backfill_rewriting_a_flow_mapping_or_an_indented_frontmatter_is_no_change(repo, dates, cli):
    """Where a plain insert cannot give the same fields, backfill rewrites
    the frontmatter's lines: with only dates added (a flow mapping) or only
    its spacing changed (indented as a whole), that says nothing new."""
    repo.write("memory/flow.md", "---\n{name: flow, description: d, last_verified: 2024-01-10}\n---\n" + BODY)
    repo.write("memory/deep.md", "---\n  name: deep\n  description: d\n  last_verified: 2024-01-10\n---\n" + BODY)
    repo.commit("add", D1)
    assert cli("backfill", "--fields", "created", repo.root / "memory").exit_code == 1  # it wrote dates
    assert "created: 2024-01-10" in repo.read("memory/flow.md") and "created: 2024-01-10" in repo.read("memory/deep.md")
    repo.add("memory")
    repo.commit("backfill", D3)
    assert dates(repo) == []
    repo.write("memory/flow.md", repo.read("memory/flow.md").replace("name: flow", "name: renamed"))
    repo.commit("a real edit", D4)
    assert dates(repo) == [("memory/flow.md", 1, "MEM404")]  # (a key in a flow mapping: the frontmatter's line)


def test_a_line_moved_or_nested_is_a_change(repo, dates):
    """The same words elsewhere say something else: `- use tabs` moved from
    Do to Don't, or an item nested under another."""
    body = "## Do\n- use tabs\n- keep lines short\n\n## Don't\n- commit secrets\n"
    repo.write("memory/style.md", mem("2024-01-10", "2024-01-10", body))
    repo.write("memory/list.md", mem("2024-01-10", "2024-01-10", "- deploy\n- smoke test\n"))
    repo.commit("add", D1)
    repo.write("memory/style.md", mem("2024-01-10", "2024-01-10", body.replace("- use tabs\n", "") + "- use tabs\n"))
    repo.write("memory/list.md", mem("2024-01-10", "2024-01-10", "- deploy\n    - smoke test\n"))
    repo.commit("rules changed", D3)
    assert dates(repo) == [("memory/list.md", 5, "MEM404"), ("memory/style.md", 5, "MEM404")]


def test_pure_rename_is_not_a_change_but_a_rename_with_edits_is(repo, dates):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.mv("memory/a.md", "memory/x/a.md")
    repo.mv("memory/b.md", "memory/x/b.md")
    repo.write("memory/x/b.md", mem("2024-01-10", "2024-01-10", BODY.replace("line 2:", "line two:")))
    repo.commit("move", D3)
    assert dates(repo) == [("memory/x/b.md", 5, "MEM404")]


def test_a_move_after_a_dates_only_commit_is_followed_to_the_old_name(repo, dates):
    """A backfill writes `created` months after `last_verified`, then the
    memory moves into a folder: neither says anything new."""
    repo.write("memory/a.md", mem(None, "2024-01-10"))
    repo.commit("add", D1)
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("backfill created", D2)
    repo.mv("memory/a.md", "memory/topics/a.md")
    repo.commit("file it under topics", D3)
    assert dates(repo) == []
    # a new memory that takes the old name later is another file
    repo.write("memory/a.md", mem("2024-04-15", "2024-04-15", "another memory\n"))
    repo.commit("a new a.md", D4)
    repo.write("memory/a.md", mem("2024-04-15", "2024-04-15", "another memory, edited\n"))
    repo.commit("edit the new a.md", "2024-04-20T08:00:00+00:00")
    assert dates(repo) == [("memory/a.md", 5, "MEM404")]  # the new file's own edit, not the moved one's


@pytest.mark.parametrize("count", [2, 205])  # a few names given to git; many: the folders that hold them
def test_the_whole_store_moved_keeps_what_changed_and_what_did_not(repo, findings, count):
    """`git mv memory mem2`: the store's files keep their history in the old
    folder, which the new store's pathspec does not hold. A dates-only commit
    there is still no change, and an edit there still is one."""
    names = [f"m{i:03}.md" for i in range(count)]
    for name in names:
        repo.write(f"memory/{name}", mem(None, "2024-01-10"))
    repo.commit("add", D1)
    for name in names:  # a backfill, months later
        repo.write(f"memory/{name}", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/m001.md", mem("2024-01-10", "2024-01-10", BODY + "a new claim\n"))  # and one real edit
    repo.commit("backfill created, edit m001", D2)
    repo.mv("memory", "mem2")
    repo.commit("move the store", D3)
    got = sorted(findings(repo.root / "mem2", "--today", TODAY, "--select", "MEM404"))
    assert got == [("mem2/m001.md", 5, "MEM404")]


def test_an_edit_under_the_old_name_still_counts_after_a_move(repo, dates, cli):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", BODY + "a new claim\n"))
    edit = repo.commit("edit", D2)
    repo.mv("memory/a.md", "memory/x/a.md")
    repo.commit("move once", D3)
    repo.mv("memory/x/a.md", "memory/y/a.md")
    repo.write("memory/y/a.md", mem("2024-01-09", "2024-01-10", BODY + "a new claim\n"))  # a date fixed on the way
    repo.commit("move again", D4)
    assert dates(repo) == [("memory/y/a.md", 5, "MEM404")]
    assert message(cli, repo, "MEM404").startswith(f"changed on 2024-02-20 (commit {edit[:7]}), 41 days after")


def test_an_edit_on_one_branch_to_a_memory_moved_on_the_other_counts(repo, dates, cli):
    """The merge carries the edit into the moved file: the old name's history
    goes on on the other branch, not only before the move."""
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.checkout("topic", new=True)
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", BODY + "from the branch\n"))
    repo.mv("memory/b.md", "memory/y/b.md")
    repo.commit("edit a, move b, on a branch", D2)
    repo.checkout("main")
    repo.mv("memory/a.md", "memory/x/a.md")
    repo.write("memory/b.md", mem("2024-01-10", "2024-01-10", BODY + "from main\n"))
    repo.commit("move a, edit b, on main", "2024-02-25T10:00:00+00:00")
    repo.merge("topic", date=D3)
    assert repo.read("memory/x/a.md").endswith("from the branch\n")
    assert repo.read("memory/y/b.md").endswith("from main\n")
    assert dates(repo) == [("memory/x/a.md", 5, "MEM404"), ("memory/y/b.md", 5, "MEM404")]
    # a file that takes the old name after the move is still another file
    repo.write("memory/a.md", mem("2024-04-15", "2024-04-15", "another memory\n"))
    repo.commit("a new a.md", D4)
    assert dates(repo) == [("memory/x/a.md", 5, "MEM404"), ("memory/y/b.md", 5, "MEM404")]


def test_an_edit_to_a_quoted_name_with_a_space_counts(repo, dates):
    """git quotes a name with a double quote in it and, when it has a space
    too, puts a tab after the closing quote on its ``+++`` line."""
    name = 'memory/the "ops" notes.md'
    repo.write(name, mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.write(name, mem("2024-01-10", "2024-01-10", BODY + "a new claim\n"))
    repo.commit("edit", D3)
    assert dates(repo) == [(name, 5, "MEM404")]


def test_a_memory_added_after_its_verification_date_is_quiet(repo, dates):
    repo.write("memory/a.md", mem("2023-11-01", "2023-12-01"))
    repo.write(".memlint.yaml", "preset: moc\nrules:\n  MEM401: {allow-earlier: true}\n")
    repo.commit("import memories written before this repository", D3)
    assert dates(repo) == []


def test_an_edit_on_a_merged_branch_counts_with_its_own_date(repo, dates, cli):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.checkout("topic", new=True)
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", BODY + "from the branch\n"))
    repo.commit("edit on a branch", D2)
    repo.checkout("main")
    repo.write("memory/MEMORY.md", INDEX + "\n")
    repo.commit("main moves on", D3)
    repo.merge("topic", date=D4)
    assert dates(repo) == [("memory/a.md", 5, "MEM404")]
    assert message(cli, repo, "MEM404").startswith("changed on 2024-02-20")


def test_a_staged_move_into_the_store_keeps_the_files_dates(repo, dates, cli):
    """Under pre-commit, `git mv drafts/x.md memory/x.md` is not a new file:
    git first added it when it was a draft."""
    repo.write("drafts/a.md", mem("2024-01-10", "2024-01-10"))
    repo.write("drafts/b.md", mem("2024-03-01", "2024-03-01", body=BODY.replace("line", "row")))
    repo.commit("drafts", D1)
    repo.mv("drafts/a.md", "memory/a.md")
    repo.mv("drafts/b.md", "memory/b.md")
    assert dates(repo, "--staged", select="MEM401") == [("memory/b.md", 4, "MEM401")]
    assert "git first added this file on 2024-01-10" in message(cli, repo, "MEM401", "--staged")


def test_a_staged_move_into_the_store_with_edits_is_a_change_made_today(repo, dates):
    repo.write("drafts/a.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("a draft", D1)
    repo.mv("drafts/a.md", "memory/a.md")
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", body=BODY + "one more line\n"))
    assert dates(repo, "--staged", "--today", "2024-05-01") == [("memory/a.md", 5, "MEM404")]


def test_a_staged_move_in_beside_many_deletions_keeps_renames_inside_the_store(repo, dates):
    """Pairing a move in means a second, wider diff; where it passes git's
    rename limit, what the store's own diff paired still stands."""
    repo.write("memory/x.md", mem("2024-01-10", "2024-01-10"))
    repo.write("drafts/d.md", mem("2024-01-10", "2024-01-10", body=BODY.replace("line", "row")))
    for i in range(4):
        repo.write(f"old/{i}.txt", f"an unrelated file {i}\n" * 20)
    repo.commit("start", D1)
    repo.run("config", "diff.renameLimit", "2")
    repo.mv("memory/x.md", "memory/y.md")
    repo.write("memory/y.md", mem("2024-01-10", "2024-01-10", body=BODY + "edited in the rename\n"))
    repo.mv("drafts/d.md", "memory/d.md")
    repo.rm("old/0.txt"), repo.rm("old/1.txt"), repo.rm("old/2.txt"), repo.rm("old/3.txt")
    found = dates(repo, "--staged", "--today", "2024-02-01", select="MEM401")
    assert found == []  # neither the renamed nor the moved-in file is taken as created today


def test_staged_edits_count_in_a_staged_run(repo, dates, cli):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10", BODY + "staged claim\n"))
    assert dates(repo) == []  # not committed: history does not have it
    assert dates(repo, "--staged") == [("memory/a.md", 5, "MEM404")]
    assert message(cli, repo, "MEM404", "--staged").startswith(
        "changed on 2024-05-01 (the commit being made), 112 days after")
    repo.write("memory/a.md", mem("2024-01-10", TODAY, BODY + "staged claim\n"))  # verified now
    assert dates(repo, "--staged") == []


# ---------------------------------------------------------------- MEM405 append-only-rewritten


@pytest.fixture
def logs(tmp_path):
    repo = GitRepo(tmp_path / "logs")
    repo.write(".memlint.yaml", "preset: openclaw\n")
    repo.write("MEMORY.md", "# Memory\n")
    repo.write("memory/2024-01-10.md", "- 09:00 deployed\n- 10:00 rolled back\n- 11:00 fixed\n")
    repo.commit("day one", D1)
    return repo


def rewritten(findings, repo, *args):
    return findings(repo.root, "--select", "MEM405", *args)


def test_a_dated_decision_record_is_retired_by_an_edit_not_a_rewrite(logs, findings):
    """A file named by its date whose frontmatter makes it a memory (a
    decision record) is edited to retire it, as MEM502 advises: not a log's
    rewrite. A daily log edited beside it still is."""
    record = "---\ntitle: Billing cutover\nstatus: active\nexpires: 2024-03-01\n---\nCutover on 2024-03-01.\n"
    logs.write("memory/2024-01-11-billing-cutover.md", record)
    logs.commit("decision", D2)
    logs.write("memory/2024-01-11-billing-cutover.md", record.replace("status: active", "status: archived"))
    assert rewritten(findings, logs, "--staged") == []
    logs.write("memory/2024-01-10.md", logs.read("memory/2024-01-10.md").replace("rolled back", "held"))
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-10.md", 2, "MEM405")]
    logs.commit("retire it, rewrite the log", D3)
    assert rewritten(findings, logs, "--since", "HEAD~1") == [("memory/2024-01-10.md", 2, "MEM405")]
    # a log that only now says `status:` is still the log it was: its rewrite is one
    logs.write("memory/2024-01-10.md", "---\nstatus: reviewed\n---\n- 09:00 deployed\n- 10:00 all fine\n")
    assert [(path, code) for path, _, code in rewritten(findings, logs, "--staged")] == [("memory/2024-01-10.md", "MEM405")]
    # the decision record deleted is a memory deleted, no log's lines lost (MEM405 says nothing of it)
    logs.run("checkout", "HEAD", "--", "memory/2024-01-10.md")
    logs.run("rm", "-q", "memory/2024-01-11-billing-cutover.md")
    assert rewritten(findings, logs, "--staged") == []
    logs.run("rm", "-q", "memory/2024-01-10.md")
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-10.md", 1, "MEM405")]


def test_ticking_a_task_done_in_a_daily_log_is_no_rewrite(logs, findings):
    """`- [ ] deploy` becoming `- [x] deploy` records the task done; changing
    its words, or unticking it, rewrites what the log said."""
    logs.write("memory/2024-01-11.md", "- [ ] deploy\n- [ ] review\n* [ ] tests\n1. [ ] notes\n")
    logs.commit("day two", D2)
    logs.write("memory/2024-01-11.md", "- [x] deploy\n- [ ] review\n* [X] tests\n1. [x] notes\n- added later\n")
    assert rewritten(findings, logs, "--staged") == []
    logs.write("memory/2024-01-11.md", "- [x] deploy\n- [x] review the PR\n* [X] tests\n1. [x] notes\n")
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-11.md", 2, "MEM405")]
    logs.commit("ticked", D3)
    logs.write("memory/2024-01-11.md", "- [ ] deploy\n- [x] review the PR\n* [X] tests\n1. [x] notes\n")
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-11.md", 1, "MEM405")]  # unticked
    # a note added under a task ticked, and the last line, with no newline, ticked too
    logs.write("memory/2024-01-12.md", "# d\n- [ ] deploy\n- [ ] docs")
    logs.commit("day three", D4)
    logs.write("memory/2024-01-12.md", "# d\n- [x] deploy\n  - done 10:00\n- [x] docs")
    assert rewritten(findings, logs, "--staged") == []
    logs.write("memory/2024-01-12.md", "# d\n- [x] deploy\n  - done 10:00\n- [x] docs, all of them")
    assert [(path, code) for path, _, code in rewritten(findings, logs, "--staged")] == [("memory/2024-01-12.md", "MEM405")]


def test_appending_to_a_daily_log_is_fine(logs, findings):
    logs.write("memory/2024-01-10.md", logs.read("memory/2024-01-10.md") + "- 12:00 correction: it was 10:30\n")
    assert rewritten(findings, logs, "--staged") == []


def test_a_staged_edit_of_a_daily_log_fires(logs, findings, cli):
    logs.write("memory/2024-01-10.md", "- 09:00 deployed\n- 10:00 nothing happened\n- 11:00 fixed\n")
    assert rewritten(findings, logs) == []  # a plain check has no change to judge
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-10.md", 2, "MEM405")]
    result = cli("check", "--format", "json", "--select", "MEM405", "--staged", logs.root)
    # HEAD added the log: the commit may be an amend of it, which a hook cannot tell
    assert result.json()[0]["message"] == (
        "append-only file rewritten: line 2 of its HEAD version changed or deleted; "
        "restore it and add the correction at the end; if you are amending the commit that added it (HEAD), "
        "the log is still new: commit with --no-verify")
    assert result.exit_code == 1  # an error by default
    logs.write("memory/2024-01-10.md", "- 09:00 deployed\n- 10:00 rolled back\n- 11:00 fixed\n")
    logs.write("README.md", "notes\n")
    logs.commit("later", D2)  # the log is now older than HEAD: no amend of its first commit
    logs.write("memory/2024-01-10.md", "- 09:00 deployed\n- 10:00 nothing happened\n- 11:00 fixed\n")
    result = cli("check", "--format", "json", "--select", "MEM405", "--staged", logs.root)
    assert result.json()[0]["message"] == (
        "append-only file rewritten: line 2 of its HEAD version changed or deleted; "
        "restore it and add the correction at the end")


def test_a_log_saved_with_other_line_endings_is_not_rewritten(logs, findings):
    # A Windows editor turning the log to CRLF blocked every commit of it: no line says anything else.
    crlf = logs.read("memory/2024-01-10.md").replace("\n", "\r\n")
    logs.write("memory/2024-01-10.md", crlf)
    assert rewritten(findings, logs, "--staged") == []
    logs.write("memory/2024-01-10.md", crlf.replace("rolled back", "held"))
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-10.md", 2, "MEM405")]
    logs.commit("crlf", D2)
    assert rewritten(findings, logs, "--since", "HEAD~1") == [("memory/2024-01-10.md", 2, "MEM405")]


def test_a_rewrite_below_inserted_lines_is_reported_where_it_is_now(logs, findings, cli):
    """Lines inserted above the rewritten one: the finding sits on the
    rewritten line as the file has it (where an annotation or a
    disable-line comment goes), the message names its line in HEAD."""
    logs.write("memory/2024-01-10.md", "- 08:00 standup\n- 08:30 review\n- 09:00 deployed\n- 10:00 nothing happened\n"
                                       "- 11:00 fixed\n")
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-10.md", 4, "MEM405")]
    result = cli("check", "--format", "json", "--select", "MEM405", "--staged", logs.root)
    assert result.json()[0]["message"].startswith("append-only file rewritten: line 2 of its HEAD version")
    logs.write("memory/2024-01-10.md", "- 08:00 standup\n- 09:00 deployed\n- 11:00 fixed\n")  # a line deleted
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-10.md", 3, "MEM405")]
    logs.write("memory/2024-01-10.md", "- 08:00 standup\n- 08:30 review\n- 09:00 deployed\n"
                                       "- 10:00 nothing happened <!-- memlint-disable-line MEM405 -->\n- 11:00 fixed\n")
    assert rewritten(findings, logs, "--staged") == []


def test_a_daily_log_deleted_whole_is_rewritten_but_one_moved_is_not(logs, findings, cli):
    base = logs.head()
    logs.rm("memory/2024-01-10.md")
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-10.md", 1, "MEM405")]
    message = cli("check", "--format", "json", "--select", "MEM405", "--staged", logs.root).json()[0]["message"]
    assert message.startswith("append-only file deleted: every line of its HEAD version is gone")
    logs.run("reset", "-q", "--hard", base)
    logs.mv("memory/2024-01-10.md", "memory/archive/2024-01-10.md")
    assert rewritten(findings, logs, "--staged") == []
    logs.run("reset", "-q", "--hard", base)
    logs.mv("memory/2024-01-10.md", "archive/2024-01-10.md")  # out of the store's folder: still a move
    assert rewritten(findings, logs, "--staged") == []
    logs.run("reset", "-q", "--hard", base)
    logs.mv("memory/2024-01-10.md", "memory/archive/2024-01-10.md")  # moved, and much appended: git sees no rename
    logs.write("memory/archive/2024-01-10.md", logs.read("memory/archive/2024-01-10.md")
               + "".join(f"- {h}:00 more\n" for h in range(12, 40)))
    assert rewritten(findings, logs, "--staged") == []
    logs.run("reset", "-q", "--hard", base)
    logs.write(".memlint.yaml", "preset: openclaw\nexclude: [\"memory/2024-01-10.md\"]\n")
    logs.rm("memory/2024-01-10.md")  # a file the store leaves out: not judged, as its rewrite is not
    assert rewritten(findings, logs, "--staged") == []
    logs.run("reset", "-q", "--hard", base)
    logs.rm("memory/2024-01-10.md")
    logs.commit("prune the log", D2)
    assert rewritten(findings, logs, "--since", base) == [("memory/2024-01-10.md", 1, "MEM405")]


def test_staged_since_catches_the_deletion_of_a_log_born_after_rev(logs, cli):
    # Judged against REV it never existed, so its deletion by the commit being made went unseen.
    base = logs.head()
    logs.write("memory/2024-01-11.md", "- 09:00 started\n")
    logs.commit("day two", D2)
    logs.rm("memory/2024-01-11.md")
    found = cli("check", "--format", "json", "--select", "MEM405", "--staged", "--since", base, cwd=logs.root).json()
    assert [(f["path"], f["line"]) for f in found] == [("memory/2024-01-11.md", 1)]
    assert found[0]["message"].startswith("append-only file deleted: every line of its HEAD version is gone; "
                                          "restore it (`git restore --source=HEAD --staged --worktree -- memory/2024-01-11.md`)")


@pytest.mark.parametrize("where", ["a subfolder", "outside the repository"])
def test_the_restore_command_of_a_deleted_log_works_pasted_where_memlint_ran(tmp_path, cli, where):
    """The command MEM405 prints is run where memlint ran: a path with a
    space is quoted, and given from there (it was repo-relative, unquoted)."""
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: openclaw\n")
    repo.write("MEMORY.md", "# Memory\n")
    log = "- 09:00 deployed\n"
    repo.write("my logs/2024-01-11.md", log)
    repo.write("notes/todo.md", "- nothing\n")
    repo.commit("day one", D1)
    repo.rm("my logs/2024-01-11.md")
    here = repo.path("notes") if where == "a subfolder" else tmp_path
    found = cli("check", "--format", "json", "--select", "MEM405", "--staged", repo.root, cwd=here).json()
    assert [(f["path"], f["line"]) for f in found] == [("my logs/2024-01-11.md", 1)]
    command = found[0]["message"].split("`")[1]
    assert "'" in command  # quoted for the shell
    subprocess.run(command, shell=True, cwd=here, env=repo.env, check=True, capture_output=True)
    assert repo.read("my logs/2024-01-11.md") == log and repo.run("status", "--porcelain") == ""


def test_a_staged_edit_of_a_daily_log_under_a_quoted_folder_fires(tmp_path, findings):
    """git quotes a path with a double quote in it and, when it has a space
    too, puts a tab after the closing quote on its ``---`` line."""
    repo = GitRepo(tmp_path / "repo")
    store = 'the "ops" store'
    repo.write(f"{store}/.memlint.yaml", "preset: openclaw\n")
    repo.write(f"{store}/MEMORY.md", "# Memory\n")
    repo.write(f"{store}/memory/2024-01-10.md", "- 09:00 deployed\n- 10:00 rolled back\n")
    repo.commit("day one", D1)
    repo.write(f"{store}/memory/2024-01-10.md", "- 09:00 deployed\n- 10:00 nothing happened\n")
    assert rewritten(findings, repo, "--staged") == [(f"{store}/memory/2024-01-10.md", 2, "MEM405")]


def test_a_log_renamed_and_rewritten_in_one_change_is_caught(logs, findings):
    start = logs.head()
    logs.mv("memory/2024-01-10.md", "memory/2024-01-10-deploy.md")
    logs.write("memory/2024-01-10-deploy.md", "- 09:00 deployed\n- 10:00 nothing happened\n- 11:00 fixed\n")
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-10-deploy.md", 2, "MEM405")]
    logs.commit("rename and rewrite", D2)
    assert rewritten(findings, logs, "--since", start) == [("memory/2024-01-10-deploy.md", 2, "MEM405")]
    logs.mv("memory/2024-01-10-deploy.md", "memory/2024-01-10-ops.md")  # a rename alone rewrites nothing
    assert rewritten(findings, logs, "--staged") == []


def test_a_rename_into_a_log_name_or_to_another_day_is_not_followed(logs, findings):
    """Only a log renamed keeping its date is judged against its old lines:
    a note renamed to a log's name, or yesterday's log deleted and a like one
    added for today (git pairs them), are new logs."""
    logs.write("memory/scratch.md", "- 09:00 draft idea\n- 10:00 another\n- 11:00 third\n- 12:00 fourth\n")
    logs.commit("scratch", D2)
    logs.mv("memory/scratch.md", "memory/2024-01-11.md")
    logs.write("memory/2024-01-11.md", "- 09:00 draft idea\n- 10:00 another (done)\n- 11:00 third\n- 12:00 fourth\n")
    assert rewritten(findings, logs, "--staged") == []
    logs.commit("a note becomes a log", D2)
    logs.rm("memory/2024-01-11.md")
    logs.write("memory/2024-01-12.md", "- 09:00 draft idea\n- 10:00 another (done)\n- 11:00 third, again\n- 12:00 fourth\n")
    assert rewritten(findings, logs, "--staged") == []


def test_a_log_moved_to_another_folder_and_rewritten_is_caught(logs, findings):
    logs.mv("memory/2024-01-10.md", "logs/2024-01-10.md")  # no log is left in memory/
    logs.write("logs/2024-01-10.md", "- 09:00 deployed\n- 10:00 nothing happened\n- 11:00 fixed\n")
    assert rewritten(findings, logs, "--staged") == [("logs/2024-01-10.md", 2, "MEM405")]


def test_a_big_change_elsewhere_does_not_stop_a_renamed_log_being_followed(logs, findings):
    for i in range(1100):
        logs.write(f"other/o{i}.txt", f"old content file {i} unique\n")
    logs.commit("others", D2)
    logs.run("rm", "-rq", "other")
    for i in range(1100):
        logs.write(f"other2/n{i}.txt", f"brand new {i} zzz\n")
    logs.mv("memory/2024-01-10.md", "memory/2024-01-10-x.md")
    logs.write("memory/2024-01-10-x.md", "- 09:00 deployed\n- 10:00 nothing happened\n- 11:00 fixed\n")
    assert rewritten(findings, logs, "--staged") == [("memory/2024-01-10-x.md", 2, "MEM405")]


def test_since_on_a_branch_with_no_commit_yet_says_so(logs, cli):
    # It said "--since main: not a commit", though main is one: HEAD is the one with none.
    logs.run("checkout", "-q", "--orphan", "fresh")
    result = cli("check", "--select", "MEM405", "--since", "main", logs.root)
    assert result.exit_code == 2
    assert "--since main: HEAD has no commit yet, so there is no change since it to judge" in result.stderr


def test_since_a_branch_not_merged_judges_from_where_they_meet(logs, findings, cli):
    """`--since origin/main` on a branch behind main: what main appended is no deletion here."""
    logs.run("checkout", "-q", "-b", "feature")
    logs.write("memory/2024-01-12.md", "- x\n")
    logs.commit("feature work", D2)
    logs.run("checkout", "-q", "main")
    logs.write("memory/2024-01-10.md", logs.read("memory/2024-01-10.md") + "- 12:00 appended on main\n")
    logs.commit("append on main", D2)
    logs.run("checkout", "-q", "feature")
    assert rewritten(findings, logs, "--since", "main") == []
    logs.write("memory/2024-01-10.md", "- 09:00 deployed\n- 10:00 rewritten on the branch\n- 11:00 fixed\n")
    logs.commit("rewrite on the branch", D2)
    assert rewritten(findings, logs, "--since", "main") == [("memory/2024-01-10.md", 2, "MEM405")]
    [message] = [f["message"] for f in cli("check", "--format", "json", "--select", "MEM405", "--since", "main",
                                          logs.root).json()]
    assert "line 2 of its `main` and HEAD's merge base (" in message  # not main's line 2, which nobody changed


def test_history_since_a_revision(logs, findings, cli):
    start = logs.head()
    logs.write("memory/2024-01-10.md", "- 09:00 deployed\n")  # lines 2-3 deleted
    logs.commit("tidy", D2)
    logs.write("memory/2024-02-20.md", "- new day\n")
    logs.commit("day two", D2)
    assert rewritten(findings, logs) == []
    assert rewritten(findings, logs, "--since", start) == [("memory/2024-01-10.md", 1, "MEM405")]
    assert rewritten(findings, logs, "--since", "HEAD~1") == []
    result = cli("check", "--select", "MEM405", "--since", "no-such-rev", logs.root)
    assert result.exit_code == 2 and "--since no-such-rev" in result.stderr


def test_staged_and_since_together_judge_the_commit_being_made_against_rev(logs, findings, cli):
    """A hook run with ``--since origin/main`` must still catch the rewrite
    being committed, and let through a commit that restores a rewritten log."""
    start = logs.head()
    logs.write("memory/2024-02-20.md", "- 08:00 standup\n- 09:00 review\n")
    logs.commit("day two", D2)
    original = logs.read("memory/2024-01-10.md")
    logs.write("memory/2024-01-10.md", "- 09:00 deployed\n")  # lines 2-3 deleted, committed
    logs.commit("tidy", D2)
    logs.write("memory/2024-02-20.md", "- 08:00 standup\n- 09:00 nothing\n")  # line 2 changed, staged
    both = rewritten(findings, logs, "--staged", "--since", start)
    assert both == [("memory/2024-01-10.md", 1, "MEM405"), ("memory/2024-02-20.md", 2, "MEM405")]
    assert rewritten(findings, logs, "--staged") == [("memory/2024-02-20.md", 2, "MEM405")]
    result = cli("check", "--format", "json", "--select", "MEM405", "--staged", "--since", start, logs.root)
    messages = {f["path"]: f["message"] for f in result.json()}
    assert "line 2 of its HEAD version" in messages["memory/2024-02-20.md"]  # born after REV: judged against HEAD
    assert f"lines 2-3 of its `{start}` version" in messages["memory/2024-01-10.md"]
    logs.write("memory/2024-02-20.md", "- 08:00 standup\n- 09:00 review\n")
    logs.write("memory/2024-01-10.md", original)  # the rewrite undone, staged
    assert rewritten(findings, logs, "--staged", "--since", start) == []


def test_a_since_that_names_no_commit_is_said_without_daily_logs_too(repo, cli):
    repo.write("memory/a.md", mem("2024-01-10", "2024-01-10"))
    repo.commit("add", D1)
    result = cli("check", "--since", "no-such-rev", repo.root / "memory")
    assert result.exit_code == 2 and "--since no-such-rev: not a commit in" in result.stderr
    assert cli("check", "--select", "MEM405", "--since", "HEAD", repo.root / "memory").exit_code == 0


def test_since_outside_git_is_an_error_not_a_pass(tmp_path, cli):
    """`--since` asks for the history by name: with no repository there is
    none, and a CI job whose checkout lost its .git must fail, not pass on
    a notice (as `--staged` does). Without it, the notice stands."""
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2024-01-10.md").write_text("- a\n")
    result = cli("check", "--preset", "openclaw", "--select", "MEM405", "--since", "HEAD~1", tmp_path)
    assert result.exit_code == 2 and result.output == ""
    assert f"--since needs a git repository; {tmp_path} is not in one" in result.stderr
    result = cli("check", "--preset", "openclaw", tmp_path)
    assert result.exit_code == 0 and "not in a git repository" in result.stderr


@pytest.mark.parametrize("rev", ["HEAD~1:memory", "HEAD~1:memory/2024-01-10.md"], ids=["a tree", "a blob"])
def test_since_a_tree_or_a_blob_is_no_commit(logs, cli, rev):
    """git would diff a tree as it is (silently nothing) and give its usage text for a blob."""
    logs.write("memory/2024-01-10.md", "- 09:00 deployed\n")  # lines 2-3 deleted
    logs.commit("tidy", D2)
    result = cli("check", "--select", "MEM405", "--since", rev, logs.root)
    assert result.exit_code == 2 and f"--since {rev}: not a commit in" in result.stderr, result.stderr


def test_since_past_a_shallow_clones_cut_says_the_clone_is_shallow(logs, cli, tmp_path):
    """A CI checkout of depth 1 has no HEAD~1: "not a commit" alone sends
    the user looking for a typo; the cut is the cause, and its fix is said."""
    logs.write("memory/2024-01-10.md", "- 09:00 deployed\n")
    logs.commit("tidy", D2)
    clone = GitRepo(tmp_path / "clone", init=False)
    clone.run("clone", "-q", "--depth", "1", f"file://{logs.root}", ".")
    result = cli("check", "--select", "MEM405", "--since", "HEAD~1", clone.root)
    assert result.exit_code == 2
    assert "--since HEAD~1: not a commit in" in result.stderr and "a shallow clone" in result.stderr
    assert "fetch-depth: 0" in result.stderr
    result = cli("check", "--select", "MEM405", "--since", "no-such-rev", logs.root)  # not shallow: not said
    assert result.exit_code == 2 and "a shallow clone" not in result.stderr


@pytest.mark.parametrize("staged", [(), ("--staged",)], ids=["work tree", "staged"])
def test_since_with_no_commit_yet_says_so_staged_too(tmp_path, cli, staged):
    repo = GitRepo(tmp_path / "fresh")
    repo.write(".memlint.yaml", "preset: openclaw\n")
    repo.write("MEMORY.md", "# Memory\n")
    repo.write("memory/2024-01-10.md", "- a\n")
    repo.run("add", "-A")
    result = cli("check", "--select", "MEM405", *staged, "--since", "HEAD", repo.root)
    assert result.exit_code == 2
    assert "--since HEAD: HEAD has no commit yet, so there is no change since it to judge" in result.stderr


# ---------------------------------------------------------------- the docs


@pytest.mark.parametrize("code", ["MEM401", "MEM402", "MEM403", "MEM404", "MEM405"])
def test_rule_docs_and_readme_rows(code, cli):
    from tests.conftest import REPO

    result = cli("rule", code)
    assert result.exit_code == 0 and "Fix:" in result.output
    assert f"| {code} |" in (REPO / "README.md").read_text(encoding="utf-8")


def test_copied_store_keeps_its_dates_out_of_git(repo, tmp_path, findings):
    """A store copied out of its repository is judged without git, not with stale paths."""
    repo.write("memory/a.md", mem("2020-01-01", "2024-01-10"))
    repo.commit("add", D1)
    copy = tmp_path / "copy"
    shutil.copytree(repo.root / "memory", copy)
    assert findings(copy, "--preset", "moc", "--select", "MEM4", "--today", TODAY) == []


def test_report_shows_no_git_dates_from_a_shallow_clone(repo, tmp_path, cli):
    from tests.test_report import table

    repo.write("memory/a.md", mem(body="undated\n"))
    repo.commit("add", D1)
    repo.write("memory/b.md", mem(body="undated too\n"))
    repo.commit("add b", D4)

    def dates_shown(root):
        result = cli("report", "--today", TODAY, root / "memory")
        assert result.exit_code == 0, result.stderr
        return result.output, {r["File"]: (r["Created"], r["Verified"]) for r in table(result.output, "File")}

    _, full = dates_shown(repo.root)
    assert full["a.md"] == ("_2024-01-10_", "_2024-01-10_")
    clone = GitRepo(tmp_path / "clone", init=False)
    clone.run("clone", "-q", "--depth", "1", f"file://{repo.root}", ".")
    text, shallow = dates_shown(clone.root)
    assert "2024-04-15" not in shallow["a.md"][0]  # not the shallow commit's date
    assert "shallow clone" in text


def test_first_commit_being_made(tmp_path, findings):
    """No HEAD yet: every staged file is created today, none changed after a
    verification; and the commit being made is the store's first, whose files
    may be older than git (as once committed: the hook and CI agree)."""
    repo = GitRepo(tmp_path / "new")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("memory/MEMORY.md", INDEX)
    repo.write("memory/a.md", mem("2024-01-01", "2024-01-01"))
    repo.write("memory/2024-01-01.md", "- a daily log\n")
    assert sorted(findings(repo.root / "memory", "--staged", "--today", TODAY, "--select", "MEM4")) == []
    repo.commit("import the store", D1)
    assert sorted(findings(repo.root / "memory", "--today", TODAY, "--select", "MEM4")) == []
    # a later commit's new file is dated by it: an earlier `created` is disputed
    repo.write("memory/b.md", mem("2024-01-01", "2024-01-01"))
    assert sorted(findings(repo.root / "memory", "--staged", "--today", TODAY, "--select", "MEM401")) == [
        ("memory/b.md", 4, "MEM401")]

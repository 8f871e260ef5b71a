"""Git dates at history's edges: skewed commit dates, files only merges made,
a log renamed then rewritten, a merge being committed, one file added twice.

Real repositories built commit by commit, dates fixed through the environment.
"""
from __future__ import annotations

import pytest

from memlint.history import load_history
from tests.gitrepo import GitRepo

INDEX = "# Index\n- [A](a.md) — the first memory\n- [B](b.md) — the second\n"
TODAY = "2024-05-01"


def mem(name: str = "a", last_verified: str | None = "2024-03-01", body: str = "a body\n",
        created: str | None = None) -> str:
    """A memory with `last_verified` on line 5 (and `created` on line 6 when given)."""
    lines = ["---", f"name: {name}", "description: d", "type: user"]
    if last_verified is not None:
        lines.append(f"last_verified: {last_verified}")
    if created is not None:
        lines.append(f"created: {created}")
    return "\n".join(lines) + "\n---\n" + body


def store(tmp_path, date: str = "2024-01-01T10:00:00+00:00") -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("memory/MEMORY.md", INDEX)
    repo.write("memory/a.md", mem())
    repo.write("memory/b.md", mem("b", body="b body\n"))
    repo.commit("init", date)
    return repo


def check(cli, repo: GitRepo, select: str, *args: str) -> list[tuple[str, int, str, str]]:
    result = cli("check", "--format", "json", "--no-cache", "--today", TODAY, "--select", select, *args,
                 repo.root / "memory")
    assert result.exit_code in (0, 1), result.output + result.stderr
    return sorted((f["path"], f["line"], f["code"], f["message"]) for f in result.json())


# ---------------------------------------------------------------- 1. MEM404 and skewed committer dates


@pytest.fixture(params=["few names", "many names", "many names, many ends"])
def names(request, monkeypatch):
    """MEM404's walk by the memories' names, or (past its limit on arguments)
    by the store's folder: cut where nothing newer is below, or (past its
    limit on those commits) picking the commits by date from a first log."""
    if request.param != "few names":
        monkeypatch.setattr("memlint.gitdates._MAX_PATH_ARGS", 0)
    if request.param == "many names, many ends":
        monkeypatch.setattr("memlint.gitdates._MAX_ENDS", 0)
    return request.param


def test_mem404_sees_an_edit_below_a_commit_with_an_older_committer_date(tmp_path, cli, names):
    """`git rebase --committer-date-is-author-date` puts a commit dated
    January on top of April's edit: a cut by committer date stops at it."""
    repo = store(tmp_path)
    repo.checkout("feat", new=True)
    repo.write("memory/b.md", mem("b", body="b body, edited\n"))
    repo.commit("edit b", "2024-01-15T10:00:00+00:00")
    repo.checkout("main")
    repo.write("memory/a.md", mem(body="a body\nnew fact\n"))
    edit = repo.commit("a new fact", "2024-04-01T10:00:00+00:00")
    repo.checkout("feat")
    repo.run("rebase", "-q", "--committer-date-is-author-date", "main")
    assert repo.run("log", "-1", "--format=%cI").startswith("2024-01-15")  # HEAD is older than April's edit
    [(path, line, code, message)] = check(cli, repo, "MEM404")
    assert (path, line, code) == ("memory/a.md", 5, "MEM404")
    assert message.startswith(f"changed on 2024-04-01 (commit {edit[:7]})")


def test_mem404_follows_a_move_past_a_merge_with_an_older_committer_date(tmp_path, cli, names):
    """A memory edited on a branch and moved on main: the merge (its
    committer's clock a year behind) carries the edit into the moved file."""
    repo = store(tmp_path)
    repo.checkout("topic", new=True)
    repo.write("memory/a.md", mem(body="a body\nfrom the branch\n"))
    repo.commit("edit a on a branch", "2024-03-20T10:00:00+00:00")
    repo.checkout("main")
    repo.mv("memory/a.md", "memory/x/a.md")
    repo.write("memory/MEMORY.md", INDEX.replace("(a.md)", "(x/a.md)"))
    repo.commit("move a", "2024-03-25T10:00:00+00:00")
    repo.run("merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge topic", "topic",
             env={"GIT_AUTHOR_DATE": "2024-03-30T10:00:00+00:00", "GIT_COMMITTER_DATE": "2023-03-30T10:00:00+00:00"})
    assert repo.read("memory/x/a.md").endswith("from the branch\n")
    [(path, line, code, message)] = check(cli, repo, "MEM404")
    assert (path, line, code) == ("memory/x/a.md", 5, "MEM404")
    assert message.startswith("changed on 2024-03-20")


# ---------------------------------------------------------------- 2. a file only a merge added


def test_a_file_an_evil_merge_added_keeps_that_merges_date_at_later_merges(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    repo.write("MEMORY.md", "# Memory\n- [C](c.md)\n")
    repo.write("a.md", "a\nb\nc\n")
    repo.commit("init", "2024-01-05T10:00:00+00:00")
    repo.branch("longlived")
    repo.checkout("side", new=True)
    repo.write("a.md", "a\nside\nc\n")
    repo.commit("side", "2024-01-10T10:00:00+00:00")
    repo.checkout("main")
    repo.write("a.md", "a\nmain\nc\n")
    repo.commit("main", "2024-01-11T10:00:00+00:00")
    try:
        repo.merge("side", date="2024-01-20T10:00:00+00:00")
    except RuntimeError:  # the conflict, resolved while adding c.md
        pass
    repo.write("a.md", "a\nmerged\nc\n")
    repo.write("c.md", "---\nname: c\ndescription: made while merging\n---\nc\n")
    m1 = repo.commit("merge side", "2024-01-20T10:00:00+00:00")
    assert load_history(repo.root).files["c.md"].created_commit == m1
    repo.checkout("longlived")
    repo.write("y.txt", "y\n")
    repo.commit("y", "2024-02-01T10:00:00+00:00")
    repo.checkout("main")
    repo.merge("longlived", date="2024-03-01T10:00:00+00:00")
    dates = load_history(repo.root).files["c.md"]
    assert (dates.created_commit, dates.created.date().isoformat()) == (m1, "2024-01-20")
    assert dates.changed_commit == m1
    result = cli("backfill", "--dry-run", "--preset", "generic", "--fields", "created", repo.root)
    assert "+created: 2024-01-20" in result.output and "2024-03-01" not in result.output
    # merged into a branch that never had it, then back: still the first merge's
    repo.checkout("longlived")
    repo.merge("main", date="2024-03-05T10:00:00+00:00")
    assert load_history(repo.root).files["c.md"].created_commit == m1


def test_a_subtree_keeps_the_date_it_was_added_at_each_pull(tmp_path):
    """`git subtree add` and `git subtree pull`: merges that bring the files
    under a prefix (never added there by a commit of their own)."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("README", "main\n")
    repo.commit("init", "2024-01-01T10:00:00+00:00")
    repo.run("checkout", "-q", "--orphan", "lib")
    repo.run("rm", "-rq", "--cached", ".")
    repo.path("README").unlink()
    repo.write("x.md", "x\n")
    repo.commit("lib", "2024-01-02T10:00:00+00:00")
    repo.checkout("main")
    env = {"GIT_AUTHOR_DATE": "2024-01-10T10:00:00+00:00", "GIT_COMMITTER_DATE": "2024-01-10T10:00:00+00:00"}
    repo.run("merge", "-q", "-s", "ours", "--no-commit", "--allow-unrelated-histories", "lib")
    repo.run("read-tree", "--prefix=vendor/", "-u", "lib")
    repo.run("commit", "-q", "--no-verify", "-m", "subtree add", env=env)
    added = repo.head()
    repo.checkout("lib")
    repo.write("y.md", "y\n")
    repo.commit("lib: y", "2024-02-01T10:00:00+00:00")
    repo.checkout("main")
    repo.run("merge", "-q", "-X", "subtree=vendor", "--no-ff", "-m", "subtree pull", "lib",
             env={**env, "GIT_AUTHOR_DATE": "2024-03-01T10:00:00+00:00",
                  "GIT_COMMITTER_DATE": "2024-03-01T10:00:00+00:00"})
    pulled = repo.head()
    files = load_history(repo.root).files
    assert files["vendor/x.md"].created_commit == added
    assert files["vendor/y.md"].created_commit == pulled  # new in the pull: born there


# ---------------------------------------------------------------- 3. MEM405 --since: renamed, then rewritten


def daily_logs(tmp_path) -> GitRepo:
    repo = GitRepo(tmp_path / "logs")
    repo.write(".memlint.yaml", "preset: openclaw\n")
    repo.write("MEMORY.md", "# Memory\n")
    repo.write("memory/2024-01-05.md", "- 09:00 deployed\n- 10:00 rolled back\n- 11:00 fixed\n- 12:00 lunch\n")
    repo.commit("day one", "2024-01-05T18:00:00+00:00")
    return repo


def rewritten(findings, repo, *args):
    return findings(repo.root, "--no-cache", "--select", "MEM405", *args)


REWRITE = "- 09:00 deployed to staging\n- 10:00 nothing rolled back\n- 11:00 all fine\n- 12:00 lunch\n"


def renamed_and_rewritten(tmp_path):
    """(repo, the commit before): the day's log renamed in a commit, then rewritten (staged)."""
    repo = daily_logs(tmp_path)
    base = repo.head()
    repo.mv("memory/2024-01-05.md", "memory/2024-01-05-deploy.md")
    repo.commit("name the day", "2024-01-06T09:00:00+00:00")
    repo.write("memory/2024-01-05-deploy.md", REWRITE)
    return repo, base


def test_since_follows_a_log_renamed_in_one_commit_and_rewritten_in_the_next(tmp_path, findings):
    repo, base = renamed_and_rewritten(tmp_path)
    repo.commit("rewrite it", "2024-01-07T09:00:00+00:00")
    assert rewritten(findings, repo, "--since", "HEAD~1") == [("memory/2024-01-05-deploy.md", 1, "MEM405")]
    assert rewritten(findings, repo, "--since", base) == [("memory/2024-01-05-deploy.md", 1, "MEM405")]
    # and renamed again, with the rewrite in between
    repo.mv("memory/2024-01-05-deploy.md", "memory/2024-01-05-ops.md")
    repo.commit("rename again", "2024-01-08T09:00:00+00:00")
    assert rewritten(findings, repo, "--since", base) == [("memory/2024-01-05-ops.md", 1, "MEM405")]


def test_since_and_staged_follow_a_committed_rename_to_a_staged_rewrite(tmp_path, findings):
    repo, base = renamed_and_rewritten(tmp_path)
    assert rewritten(findings, repo, "--staged") == [("memory/2024-01-05-deploy.md", 1, "MEM405")]
    assert rewritten(findings, repo, "--staged", "--since", base) == [("memory/2024-01-05-deploy.md", 1, "MEM405")]


def test_since_does_not_follow_a_rename_to_another_day(tmp_path, cli):
    """Yesterday's log reused as today's is today's log from that commit on,
    not yesterday's renamed: a rewrite after it is judged against the
    version that commit gave it, not against yesterday's at REV."""
    repo = daily_logs(tmp_path)
    base = repo.head()
    repo.mv("memory/2024-01-05.md", "memory/2024-01-06.md")
    repo.commit("reuse", "2024-01-06T09:00:00+00:00")
    reused = repo.head()
    repo.write("memory/2024-01-06.md", REWRITE)
    repo.commit("rewrite it", "2024-01-06T10:00:00+00:00")
    result = cli("check", "--no-cache", "--select", "MEM405", "--since", base, repo.root)
    assert f"memory/2024-01-06.md:1:1: MEM405 append-only file rewritten: lines 1-3 of its first ({reused[:7]}) " \
           "version changed" in result.output
    assert "`" + base not in result.output


def test_since_judges_a_log_born_since_against_its_first_version(tmp_path, cli):
    """A pull request's own log, committed and then rewritten in a later
    commit of the pull request: `--since main` saw it only as added."""
    repo = daily_logs(tmp_path)
    base = repo.head()
    repo.write("memory/2024-01-06.md", "- 09:00 deployed\n- 10:00 rolled back\n")
    repo.commit("day two", "2024-01-06T18:00:00+00:00")
    born = repo.head()
    repo.write("memory/2024-01-06.md", "- 09:00 deployed\n- 11:00 appended\n")  # line 2 rewritten
    repo.commit("day two, again", "2024-01-07T09:00:00+00:00")
    repo.write("memory/2024-01-07.md", "- 09:00 a log of today\n")
    repo.commit("day three", "2024-01-07T18:00:00+00:00")
    repo.write("memory/2024-01-07.md", "- 09:00 a log of today\n- 10:00 appended, which is fine\n")
    repo.commit("day three, more", "2024-01-07T19:00:00+00:00")
    result = cli("check", "--no-cache", "--select", "MEM405", "--since", base, repo.root)
    assert result.exit_code == 1
    assert result.output == (
        f"memory/2024-01-06.md:2:1: MEM405 append-only file rewritten: line 2 of its first ({born[:7]}) version "
        "changed or deleted; restore it and add the correction at the end [append-only-rewritten]\n")


# ---------------------------------------------------------------- 4. a merge being committed


def merging(tmp_path) -> tuple[GitRepo, str, str]:
    """main and a branch that added c.md and edited a.md; `git merge --no-commit`
    of the branch left staged (MERGE_HEAD), as a pre-merge-commit hook sees it."""
    repo = store(tmp_path)
    repo.checkout("feat", new=True)
    repo.write("memory/c.md", mem("c", last_verified=None, created="2024-02-01", body="c body\n"))
    repo.write("memory/MEMORY.md", INDEX + "- [C](c.md) — the third\n")
    added = repo.commit("add c", "2024-02-01T10:00:00+00:00")
    repo.write("memory/a.md", mem(body="a body\nfrom the branch\n"))
    edited = repo.commit("edit a", "2024-03-20T10:00:00+00:00")
    repo.checkout("main")
    repo.write("memory/b.md", mem("b", body="b body\nfrom main\n", last_verified="2024-04-10"))
    repo.commit("edit b", "2024-04-10T10:00:00+00:00")
    repo.merge("feat", date="2024-04-20T10:00:00+00:00", commit=False)
    assert repo.run("rev-parse", "-q", "--verify", "MERGE_HEAD").strip()
    return repo, added, edited


def test_a_merge_being_committed_keeps_the_branch_dates(tmp_path, cli):
    repo, added, edited = merging(tmp_path)
    history = load_history(repo.root)
    assert "memory/c.md" not in history.staged_new
    c = history.dates("memory/c.md")
    assert (c.created_commit, c.changed_commit) == (added, added)
    a = history.dates("memory/a.md")
    assert a.changed_commit == edited and "memory/a.md" not in history.staged_changed
    assert check(cli, repo, "MEM401", "--staged") == []  # c.md is not created today
    [(path, line, code, message)] = check(cli, repo, "MEM404", "--staged")
    assert (path, line, code) == ("memory/a.md", 5, "MEM404")
    assert message.startswith(f"changed on 2024-03-20 (commit {edited[:7]})")  # not "the commit being made"
    result = cli("backfill", "--dry-run", "--staged", "--today", TODAY, "--fields", "last_verified",
                 repo.root / "memory")
    assert "+last_verified: 2024-02-01" in result.output and TODAY not in result.output
    # once made, the merge commit gives the same answers
    repo.commit("merge feat", "2024-04-20T10:00:00+00:00")
    assert check(cli, repo, "MEM401") == []
    assert [f[:3] for f in check(cli, repo, "MEM404")] == [("memory/a.md", 5, "MEM404")]


def test_a_conflict_resolved_as_one_side_keeps_that_sides_dates_staged_and_committed(tmp_path, cli):
    """Both sides edit a.md; the conflict is resolved by taking the branch's
    text. Once made, the merge keeps the branch's history of a.md alone (git
    follows the parent it kept the file from), so main's edit, thrown away,
    is no change: the staged run (a pre-merge-commit hook) says the same."""
    repo = store(tmp_path)
    repo.write("memory/a.md", mem(last_verified="2024-03-15"))
    repo.commit("verify a", "2024-03-15T10:00:00+00:00")
    repo.checkout("feat", new=True)
    repo.write("memory/a.md", mem(last_verified="2024-03-15", body="a body\nfrom the branch\n"))
    repo.commit("edit a on the branch", "2024-03-10T10:00:00+00:00")  # before last_verified: verified
    repo.checkout("main")
    repo.write("memory/a.md", mem(last_verified="2024-03-15", body="a body\nfrom main\n"))
    main_edit = repo.commit("edit a on main", "2024-03-20T10:00:00+00:00")  # after it
    try:
        repo.merge("feat", date="2024-04-20T10:00:00+00:00", commit=False)
    except RuntimeError:
        pass  # the conflict, left to resolve
    repo.run("checkout", "--theirs", "--", "memory/a.md")
    repo.add("memory/a.md")
    history = load_history(repo.root)
    assert history.dates("memory/a.md").changed_commit != main_edit
    staged = check(cli, repo, "MEM404", "--staged")
    repo.commit("merge feat", "2024-04-20T10:00:00+00:00")
    assert check(cli, repo, "MEM404") == staged == []


def test_a_file_renamed_while_merging_keeps_its_birth_staged_and_committed(tmp_path, cli):
    """`git mv a.md a2.md` while a merge is being made: the staged run
    follows the rename, and so does the history once the merge is made
    (the rename is in the merge commit, which the replay of commits skips)."""
    repo = store(tmp_path)
    born = repo.head()
    repo.write("memory/a.md", mem(created="2024-01-01"))
    repo.commit("date a", "2024-01-02T10:00:00+00:00")
    repo.checkout("feat", new=True)
    repo.write("memory/c.md", mem("c", created="2024-02-01", body="c body\n"))
    repo.commit("add c", "2024-02-01T10:00:00+00:00")
    repo.checkout("main")
    repo.merge("feat", date="2024-04-20T10:00:00+00:00", commit=False)
    repo.mv("memory/a.md", "memory/a2.md")
    repo.write("memory/MEMORY.md", INDEX.replace("(a.md)", "(a2.md)") + "- [C](c.md) — the third\n")
    staged = check(cli, repo, "MEM401", "--staged")
    repo.commit("merge feat, a renamed", "2024-04-20T10:00:00+00:00")
    assert load_history(repo.root).dates("memory/a2.md").created_commit == born  # not the merge's
    assert check(cli, repo, "MEM401") == staged == []


def test_a_real_pre_merge_commit_hook_sees_the_branch_dates(tmp_path):
    """`git merge` runs pre-merge-commit before it writes MERGE_HEAD (it does
    so only when the hook fails): the hook learns the merged commits from
    the GITHEAD_<sha> variables git sets, and the branch's files keep its
    commits' dates instead of being "created today"."""
    import json
    import sys

    repo = store(tmp_path)
    repo.checkout("feat", new=True)
    repo.write("memory/c.md", mem("c", last_verified="2024-02-01", created="2024-02-01", body="c body\n"))
    repo.write("memory/MEMORY.md", INDEX + "- [C](c.md) — the third\n")
    repo.commit("add c", "2024-02-01T10:00:00+00:00")
    repo.checkout("main")
    repo.write("memory/b.md", mem("b", body="b body\nfrom main\n", last_verified="2024-04-10"))
    repo.commit("edit b", "2024-04-10T10:00:00+00:00")
    out = tmp_path / "hook.json"
    hook = repo.root / ".git" / "hooks" / "pre-merge-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\ntest -e .git/MERGE_HEAD && echo MERGE_HEAD >&2\n"
                    f"exec '{sys.executable}' -m memlint check --staged --no-cache --format json --today {TODAY} "
                    f"--select MEM401,MEM404 memory > '{out}'\n")
    hook.chmod(0o755)
    repo.run("merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge feat", "feat",
             env={"GIT_AUTHOR_DATE": "2024-04-20T10:00:00+00:00", "GIT_COMMITTER_DATE": "2024-04-20T10:00:00+00:00"})
    assert json.loads(out.read_text()) == []  # c.md was added on 2024-02-01, as it says, and not edited since
    assert len(repo.run("log", "-1", "--format=%P").split()) == 2  # the hook passed: the merge was made


def test_the_cache_tells_a_merge_being_made_from_the_same_index_without_one(tmp_path, cli):
    """The same index, with and without MERGE_HEAD: the files the branch
    brought are dated by its commits in the one, new in the other."""
    repo, _, _ = merging(tmp_path)

    def cached():
        result = cli("check", "--format", "json", "--today", TODAY, "--select", "MEM401", "--staged",
                     repo.root / "memory")
        return sorted((f["path"], f["line"], f["code"], f["message"]) for f in result.json())

    assert cached() == check(cli, repo, "MEM401", "--staged") == []
    (repo.root / ".git" / "MERGE_HEAD").unlink()  # the same index, no merge being made
    assert cached() == check(cli, repo, "MEM401", "--staged") != []


def test_a_conflicted_merge_being_committed_keeps_the_branch_dates(tmp_path, cli):
    repo = store(tmp_path)
    repo.checkout("feat", new=True)
    repo.write("memory/c.md", mem("c", last_verified=None, created="2024-02-01", body="c body\n"))
    added = repo.commit("add c", "2024-02-01T10:00:00+00:00")
    repo.write("memory/b.md", mem("b", body="b body, the branch's\n"))
    repo.commit("edit b", "2024-02-02T10:00:00+00:00")
    repo.checkout("main")
    repo.write("memory/b.md", mem("b", body="b body, main's\n"))
    repo.commit("edit b", "2024-02-03T10:00:00+00:00")
    try:
        repo.merge("feat", date="2024-02-10T10:00:00+00:00")
    except RuntimeError:
        pass
    repo.write("memory/b.md", mem("b", body="b body, both\n"))  # resolved
    history = load_history(repo.root)
    assert history.merge_heads and history.dates("memory/c.md").created_commit == added
    assert "memory/c.md" not in history.staged_new
    assert check(cli, repo, "MEM401", "--staged") == []


def test_a_file_added_while_resolving_a_merge_is_created_today(tmp_path, cli):
    repo, _, _ = merging(tmp_path)
    repo.write("memory/d.md", mem("d", last_verified=TODAY, created=TODAY))
    history = load_history(repo.root)
    assert "memory/d.md" in history.staged_new and "memory/c.md" not in history.staged_new
    assert check(cli, repo, "MEM401", "--staged") == []



def test_a_file_deleted_then_written_anew_while_merging_is_new_staged_and_born_at_the_merge(tmp_path, cli):
    """Not the file deleted before: created today while the merge is being
    made, and at the merge once it is committed."""
    repo = store(tmp_path)
    repo.rm("memory/b.md")
    repo.write("memory/MEMORY.md", "# Index\n- [A](a.md) — the first memory\n")
    repo.commit("drop b", "2024-02-01T10:00:00+00:00")
    repo.checkout("feat", new=True)
    repo.write("memory/a.md", mem(body="a body\nfrom the branch\n"))
    repo.commit("edit a", "2024-03-01T10:00:00+00:00")
    repo.checkout("main")
    repo.merge("feat", date="2024-04-20T10:00:00+00:00", commit=False)
    repo.write("memory/b.md", mem("b", last_verified=TODAY, created=TODAY, body="b written anew\n"))
    repo.write("memory/MEMORY.md", INDEX)
    assert "memory/b.md" in load_history(repo.root).staged_new
    assert check(cli, repo, "MEM401", "--staged") == []
    merge = repo.commit("merge feat, with b anew", f"{TODAY}T10:00:00+00:00")
    assert load_history(repo.root).files["memory/b.md"].created_commit == merge
    assert check(cli, repo, "MEM401") == []


def test_a_file_a_merge_made_keeps_that_birth_when_moved_out_of_the_store_and_back(tmp_path):
    """Made while merging, renamed into a subfolder, moved out of the store
    and back in: each old name's history is read from where the file left
    it, and the merge that made the first is found there too."""
    repo = store(tmp_path)
    repo.checkout("feat", new=True)
    repo.write("memory/a.md", mem(body="a body\nfrom the branch\n"))
    repo.commit("edit a", "2024-02-01T10:00:00+00:00")
    repo.checkout("main")
    repo.merge("feat", commit=False)
    repo.write("memory/x.md", mem("x", body="x, written while merging\n"))
    merge = repo.commit("merge feat, with x", "2024-03-01T10:00:00+00:00")
    repo.mv("memory/x.md", "memory/sub/z.md")
    repo.write("memory/sub/z.md", mem("x", body="x, written while merging\nand edited\n"))
    edited = repo.commit("into a subfolder, edited", "2024-03-10T10:00:00+00:00")
    repo.mv("memory/sub/z.md", "archive/z.md")
    repo.commit("out of the store", "2024-03-20T10:00:00+00:00")
    repo.mv("archive/z.md", "memory/w.md")
    repo.commit("back in", "2024-04-01T10:00:00+00:00")

    dates = load_history(repo.root, under="memory").files["memory/w.md"]
    assert (dates.created_commit, dates.changed_commit) == (merge, edited)

# ---------------------------------------------------------------- 5. one file added on two branches


def added_on_two_branches(tmp_path) -> tuple[GitRepo, str, str]:
    """a.md added on branch one (the first add), then on main, then merged: (repo, first add, second add)."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("README", "r\n")
    repo.commit("init", "2024-01-01T10:00:00+00:00")
    repo.checkout("one", new=True)
    repo.write("a.md", "same\n")
    first = repo.commit("add a on one", "2024-01-05T10:00:00+00:00")
    repo.checkout("main")
    repo.write("a.md", "same\n")
    second = repo.commit("add a on main", "2024-01-10T10:00:00+00:00")
    repo.merge("one", date="2024-01-20T10:00:00+00:00")
    return repo, first, second


def test_a_file_added_on_two_branches_is_created_at_the_first_add(tmp_path):
    repo, first, second = added_on_two_branches(tmp_path)
    dates = load_history(repo.root).files["a.md"]
    assert dates.created_commit == first
    assert dates.changed_commit == second  # the newest change of any line
    # deleted and added again on one line of history: born again
    repo.rm("a.md")
    repo.commit("drop a", "2024-02-01T10:00:00+00:00")
    repo.write("a.md", "same\n")
    again = repo.commit("a again", "2024-02-05T10:00:00+00:00")
    assert load_history(repo.root).files["a.md"].created_commit == again


def test_a_file_added_on_two_branches_keeps_its_first_add_after_a_pure_rename(tmp_path):
    # The rename marked the old name gone, so a full replay (a fresh clone, CI, --no-cache) dated it by the
    # later add, while a run extending its cache kept the first: the two disagreed.
    repo, first, _ = added_on_two_branches(tmp_path)
    repo.mv("a.md", "b.md")
    repo.commit("rename", "2024-02-01T10:00:00+00:00")
    assert load_history(repo.root).files["b.md"].created_commit == first


# ---------------------------------------------------------------- 6. the rule's text


def test_mem404_rule_text_says_merges_are_not_changes(cli):
    text = cli("rule", "MEM404").output
    assert "a merge)" not in text and "Merge commits are skipped" in text


# ---------------------------------------------------------------- found on the way


def test_a_staged_move_in_with_edits_counts_among_many_memories(tmp_path, cli, monkeypatch):
    """Past the limit on names, the staged diff is of the store's folder: the
    moved file's old name must be in it for git to pair the move."""
    monkeypatch.setattr("memlint.gitdates._MAX_PATH_ARGS", 2)
    repo = store(tmp_path)
    repo.write("memory/c.md", mem("c"))
    repo.write("drafts/d.md", mem("d", body="d body\n"))
    repo.commit("more", "2024-01-02T10:00:00+00:00")
    for name in "abc":
        repo.write(f"memory/{name}.md", mem(name, body=f"{name} body, edited\n"))
    repo.commit("edit", "2024-04-01T10:00:00+00:00")
    repo.mv("drafts/d.md", "memory/d.md")
    repo.write("memory/d.md", mem("d", body="d body\none more line\n"))
    found = check(cli, repo, "MEM404", "--staged")
    assert [f[:3] for f in found] == [(f"memory/{name}.md", 5, "MEM404") for name in "abcd"]
    assert found[-1][3].startswith(f"changed on {TODAY} (the commit being made)")


def test_a_repository_whose_path_holds_a_newline_is_read_like_any_other(tmp_path, cli):
    """git prints the top folder's path raw: a newline in it is no end of the
    answer (it was: every git date rule failed, MEM000, and backfill stopped)."""
    repo = store(tmp_path / "two\nlines")
    repo.write("memory/a.md", mem(body="a body, edited\n"))
    repo.commit("edit", "2024-04-01T10:00:00+00:00")
    for staged in ((), ("--staged",)):
        found = check(cli, repo, "MEM401,MEM403,MEM404", *staged)
        assert [f[:3] for f in found] == [("memory/a.md", 5, "MEM404")]
    dry = cli("backfill", "--dry-run", "--today", TODAY, repo.root / "memory")
    assert dry.exit_code == 0, dry.stderr
    assert "+created: 2024-01-01" in dry.output

"""memlint.history against real repositories whose true dates are known by construction."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memlint import history as history_mod
from memlint.history import (FileDates, HistoryError, NotAWorkTree, append_only_violations,
                             load_history)
from tests.gitrepo import GitRepo

D1 = "2024-01-10T09:00:00+00:00"
D2 = "2024-02-20T10:30:00+00:00"
D3 = "2024-03-30T12:00:00+00:00"
D4 = "2024-04-15T08:15:00+00:00"
D5 = "2024-05-01T18:45:00+00:00"
BODY = "".join(f"line {i}: a memory about something worth keeping\n" for i in range(1, 21))


def dt(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def dates(created: str, created_sha: str, changed: str, changed_sha: str) -> FileDates:
    return FileDates(dt(created), dt(changed), created_sha, changed_sha)


@pytest.fixture
def repo(tmp_path):
    return GitRepo(tmp_path / "repo")


def test_add_and_edit(repo):
    repo.write("notes/a.md", BODY)
    c1 = repo.commit("add a", D1)
    repo.write("notes/a.md", BODY + "more\n")
    c2 = repo.commit("edit a", D2)
    repo.write("notes/b.md", "b\n")
    c3 = repo.commit("add b", D3)

    h = load_history(repo.root)
    assert h.head == c3 and h.shallow is False and h.repo_root == repo.root.resolve()
    assert h.files == {"notes/a.md": dates(D1, c1, D2, c2), "notes/b.md": dates(D3, c3, D3, c3)}
    assert h.dates("notes/a.md") == dates(D1, c1, D2, c2)
    assert h.dates("nope.md") is None
    assert h.staged_new == frozenset()


def test_pure_rename_keeps_created_and_changed(repo):
    repo.write("a.md", BODY)
    c1 = repo.commit("add", D1)
    repo.write("a.md", BODY + "edit\n")
    c2 = repo.commit("edit", D2)
    repo.mv("a.md", "archive/b.md")
    repo.commit("move", D3)

    assert load_history(repo.root).files == {"archive/b.md": dates(D1, c1, D2, c2)}


def test_rename_with_edits_is_a_change(repo):
    repo.write("a.md", BODY)
    c1 = repo.commit("add", D1)
    repo.mv("a.md", "b.md")
    repo.write("b.md", BODY.replace("line 7:", "line seven:"))
    c2 = repo.commit("move and edit", D2)
    repo.mv("b.md", "c.md")  # a chain of renames still leads back to a.md
    repo.commit("move again", D3)
    assert "R0" in repo.run("log", "-M", "--name-status", "--format=", "-1", c2)  # git saw R0xx, not A+D

    assert load_history(repo.root).files == {"c.md": dates(D1, c1, D2, c2)}


def test_copy_is_born_at_its_commit(repo):
    repo.write("orig.md", BODY)
    c1 = repo.commit("add", D1)
    repo.write("copy.md", BODY)
    repo.write("orig.md", BODY + "edited in the copy commit, so -C can pair them\n")
    c2 = repo.commit("copy", D2)
    assert "C100\torig.md\tcopy.md" in repo.run("log", "-C", "--name-status", "--format=", "-1")

    expected = {"orig.md": dates(D1, c1, D2, c2), "copy.md": dates(D2, c2, D2, c2)}
    assert load_history(repo.root).files == expected

    # The replay treats a C record (as `log -C` writes it) as a birth too.
    log = history_mod._run_log(repo.root, [*history_mod._log_args("author"), "-C"])
    replay = history_mod._Replay(["copy.md", "orig.md"])
    replay.feed(log.split("\0"))
    # [created, changed] (0 = newest), and the name each was born under
    assert "\nC100\0" in log and replay.files == {"copy.md": [0, 0, "copy.md"], "orig.md": [1, 0, "orig.md"]}


def test_delete_then_readd_is_born_again(repo):
    repo.write("a.md", BODY)
    repo.write("keep.md", "k\n")
    c1 = repo.commit("add", D1)
    repo.rm("a.md")
    repo.commit("delete", D2)
    repo.write("a.md", BODY)  # same content, same path
    c3 = repo.commit("re-add", D3)

    assert load_history(repo.root).files == {"a.md": dates(D3, c3, D3, c3), "keep.md": dates(D1, c1, D1, c1)}


def test_deleted_files_are_not_listed(repo):
    repo.write("a.md", "a\n")
    repo.write("b.md", "b\n")
    c1 = repo.commit("add", D1)
    repo.rm("b.md")
    repo.commit("delete", D2)
    assert load_history(repo.root).files == {"a.md": dates(D1, c1, D1, c1)}


def test_merge_keeps_branch_commit_dates(repo):
    repo.write("a.md", BODY)
    c1 = repo.commit("add a", D1)
    repo.checkout("feature", new=True)
    repo.write("feature.md", "from the branch\n")
    c2 = repo.commit("add on branch", D2)
    repo.checkout("main")
    repo.write("a.md", BODY + "main edit\n")
    c3 = repo.commit("edit on main", D3)
    merge = repo.merge("feature", date=D4)

    h = load_history(repo.root)
    assert h.head == merge
    assert h.files == {"a.md": dates(D1, c1, D3, c3), "feature.md": dates(D2, c2, D2, c2)}


def test_rename_on_branch_while_main_edits(repo):
    repo.write("a.md", BODY)
    c1 = repo.commit("add", D1)
    repo.checkout("feature", new=True)
    repo.mv("a.md", "moved.md")
    repo.commit("move on branch", D2)
    repo.checkout("main")
    repo.write("a.md", BODY.replace("line 20:", "line twenty:"))
    c3 = repo.commit("edit on main", D3)
    repo.merge("feature", date=D4)  # git carries main's edit over to moved.md

    assert load_history(repo.root).files == {"moved.md": dates(D1, c1, D3, c3)}


@pytest.mark.parametrize("delete_first", [True, False])
def test_merge_keeps_a_file_deleted_on_the_other_side(repo, delete_first):
    repo.write("a.md", BODY)
    c1 = repo.commit("add", D1)
    repo.checkout("cleanup", new=True)
    repo.rm("a.md")
    repo.commit("delete on branch", D2 if delete_first else D4)
    repo.checkout("main")
    repo.write("a.md", BODY + "kept and edited\n")
    c_edit = repo.commit("edit on main", D3)
    with pytest.raises(RuntimeError, match="CONFLICT"):  # modify/delete
        repo.merge("cleanup", date=D5)
    repo.add("a.md")  # resolved by keeping the file
    repo.commit("merge", D5)

    assert load_history(repo.root).files == {"a.md": dates(D1, c1, D3, c_edit)}


@pytest.mark.parametrize("max_path_args", [200, 0])
def test_file_added_only_by_a_merge_commit(repo, monkeypatch, max_path_args):
    monkeypatch.setattr(history_mod, "_MAX_PATH_ARGS", max_path_args)  # 0: the whole-store fallback
    repo.write("a.md", "a\n")
    c1 = repo.commit("add", D1)
    repo.checkout("feature", new=True)
    repo.write("b.md", "b\n")
    c2 = repo.commit("branch", D2)
    repo.checkout("main")
    repo.merge("feature", commit=False)
    repo.write("resolution.md", "written while merging\n")
    merge = repo.commit("merge with an extra file", D3)

    assert load_history(repo.root).files == {
        "a.md": dates(D1, c1, D1, c1), "b.md": dates(D2, c2, D2, c2),
        "resolution.md": dates(D3, merge, D3, merge)}



def merged_with_a_new_file(repo: GitRepo, path: str, text: str, branch_date: str, merge_date: str) -> str:
    """A branch that edits a.md, merged with ``path`` written while merging: the merge's sha."""
    repo.checkout("feature", new=True)
    repo.write("a.md", "a, on a branch\n")
    repo.commit("branch", branch_date)
    repo.checkout("main")
    repo.merge("feature", commit=False)
    repo.write(path, text)
    return repo.commit(f"merge, with {path}", merge_date)

@pytest.mark.parametrize("max_path_args", [200, 0])
def test_a_file_only_a_merge_made_keeps_that_birth_through_later_renames(repo, monkeypatch, max_path_args):
    """Renamed after the merge that made it, it is looked for under its old
    name from the rename back, not taken as born at the rename; a new file
    at the old name since is another file."""
    monkeypatch.setattr(history_mod, "_MAX_PATH_ARGS", max_path_args)
    repo.write("a.md", "a\n")
    repo.commit("add", D1)
    merge = merged_with_a_new_file(repo, "x.md", "written while merging\n", D2, D3)
    repo.mv("x.md", "y.md")
    repo.commit("a pure rename", D4)
    assert load_history(repo.root).files["y.md"] == dates(D3, merge, D3, merge)
    repo.write("x.md", "another file at the old name\n")
    again = repo.commit("a new x.md", D5)
    repo.mv("y.md", "z.md")
    repo.write("z.md", "written while merging\nand edited\n")
    edited = repo.commit("renamed with an edit", "2024-06-01T10:00:00+00:00")

    files = load_history(repo.root).files
    assert files["z.md"] == dates(D3, merge, "2024-06-01T10:00:00+00:00", edited)
    assert files["x.md"] == dates(D5, again, D5, again)


def test_a_file_deleted_then_made_anew_by_a_merge_is_born_at_that_merge(repo):
    """Deleted, then written again while resolving a merge: the file at HEAD
    is the merge's, not the one deleted (a log without merges sees only the
    deletion and the first add). The cache, extended commit by commit, agrees."""
    repo.write("a.md", "a\n")
    repo.write("x.md", "the first x\n")
    repo.commit("add", D1)
    before = load_history(repo.root)  # a replay kept at the first x, to extend
    repo.rm("x.md")
    repo.commit("delete x", D2)
    merge = merged_with_a_new_file(repo, "x.md", "x written anew while merging\n", D3, D4)

    assert load_history(repo.root).files["x.md"] == dates(D4, merge, D4, merge)
    assert load_history(repo.root, earlier={before.head: lambda: before}).files["x.md"] == dates(D4, merge, D4, merge)



def test_a_file_renamed_onto_a_name_a_merge_made_before_is_not_that_file(repo):
    """A merge made p, p was deleted, o was added and renamed to p, and a
    branch that deleted p was merged keeping it: p is o, born at o's add."""
    repo.write("a.md", "a\n")
    repo.commit("add", D1)
    merged_with_a_new_file(repo, "p.md", "the first p\n", D2, D3)
    repo.rm("p.md")
    repo.commit("delete p", D4)
    repo.write("o.md", "o\n")
    born = repo.commit("add o", D5)
    repo.mv("o.md", "p.md")
    repo.commit("o becomes p", "2024-06-01T10:00:00+00:00")
    repo.checkout("side", new=True)
    repo.rm("p.md")
    repo.commit("delete p on a side", "2024-06-10T10:00:00+00:00")
    repo.checkout("main")
    repo.write("p.md", "o\nedited\n")
    edited = repo.commit("edit p", "2024-06-20T10:00:00+00:00")
    with pytest.raises(RuntimeError):  # modify/delete: resolved by keeping p
        repo.merge("side", date="2024-07-01T10:00:00+00:00")
    repo.add("p.md")
    repo.commit("merge side, keeping p", "2024-07-01T10:00:00+00:00")

    assert load_history(repo.root).files["p.md"] == dates(D5, born, "2024-06-20T10:00:00+00:00", edited)


def test_a_file_a_merge_made_and_both_branches_renamed_keeps_that_birth(repo):
    """Both lines renamed n to q and were merged: git's log of n follows one
    side only, and may not show the rename the replay met; the file is still
    born at the merge that made n."""
    repo.write("a.md", "a\n")
    repo.commit("add", D1)
    merge = merged_with_a_new_file(repo, "n.md", "made by a merge\n", D2, D3)
    repo.branch("b")
    repo.mv("n.md", "q.md")
    repo.write("x.md", "x\n")
    repo.commit("rename on main", D4)
    repo.checkout("b")
    repo.mv("n.md", "q.md")
    repo.write("y.md", "y\n")
    repo.commit("rename on b", D5)
    repo.checkout("main")
    repo.merge("b", date="2024-06-01T10:00:00+00:00")

    assert load_history(repo.root).files["q.md"] == dates(D3, merge, D3, merge)


def test_a_merges_edit_to_a_file_a_merge_made_is_no_change_replayed_or_extended(repo):
    """Merges are skipped for every file: an edit made while resolving a
    later merge changes neither a full replay's dates nor an extended one's."""
    repo.write("a.md", "a\n")
    repo.commit("add", D1)
    merged_with_a_new_file(repo, "p.md", "p\n", D2, D3)
    before = load_history(repo.root)
    repo.checkout("side", new=True)
    repo.write("p.md", "p\nside\n")
    repo.commit("edit p on a side", D4)
    repo.checkout("main")
    repo.write("p.md", "p\nmain\n")
    edited = repo.commit("edit p on main", D5)
    with pytest.raises(RuntimeError):  # both edited p: resolved with a third text
        repo.merge("side", date="2024-06-01T10:00:00+00:00")
    repo.write("p.md", "p\nresolved\n")
    repo.commit("merge side", "2024-06-01T10:00:00+00:00")

    full = load_history(repo.root).files["p.md"]
    extended = load_history(repo.root, earlier={before.head: lambda: before}).files["p.md"]
    assert full == extended
    assert full.changed_commit == edited


@pytest.mark.parametrize("renamed_and_back", [False, True])
def test_a_file_a_merge_made_is_dated_alike_replayed_or_extended(repo, renamed_and_back):
    """Edited after the merge that made it (renamed away and back, or
    edited on a branch whose merge kept the other side): a full replay
    gives the dates a replay extended from that merge gives."""
    repo.write("a.md", "a\n")
    repo.commit("add", D1)
    merge = merged_with_a_new_file(repo, "p.md", "made\nby\na merge\n", D2, D3)
    before = load_history(repo.root)
    if renamed_and_back:
        repo.write("p.md", "made\nby\na merge\nedited\n")
        edited = repo.commit("edit p", D4)
        repo.mv("p.md", "r.md")
        repo.commit("p to r", D5)
        repo.mv("r.md", "p.md")
        repo.commit("r to p", "2024-06-01T10:00:00+00:00")
    else:
        repo.checkout("c", new=True)
        repo.write("p.md", "made\nby\na merge\nedited on c\n")
        edited = repo.commit("edit p on c", D4)
        repo.checkout("main")
        repo.write("z.md", "z\n")
        repo.commit("z", D5)
        repo.run("merge", "-q", "-s", "ours", "--no-edit", "c",
                 env={"GIT_AUTHOR_DATE": "2024-06-01T10:00:00+00:00", "GIT_COMMITTER_DATE": "2024-06-01T10:00:00+00:00"})

    full = load_history(repo.root).files["p.md"]
    assert full == load_history(repo.root, earlier={before.head: lambda: before}).files["p.md"]
    assert (full.created_commit, full.changed_commit) == (merge, edited)


def test_a_file_an_octopus_merge_of_nine_branches_made_is_born_there(repo):
    """Its combined status has a letter per parent: nine or more are no commit header."""
    repo.write("a.md", "a\n")
    repo.commit("add", D1)
    for i in range(9):
        repo.checkout("main")
        repo.checkout(f"b{i}", new=True)
        repo.write(f"b{i}.md", f"{i}\n")
        repo.commit(f"b{i}", D2)
    repo.checkout("main")
    env = {"GIT_AUTHOR_DATE": D3, "GIT_COMMITTER_DATE": D3}
    repo.run("merge", "-q", "--no-commit", *(f"b{i}" for i in range(9)), env=env)
    repo.write("o.md", "written while merging nine branches\n")
    octopus = repo.commit("octopus", D3)

    assert load_history(repo.root).files["o.md"] == dates(D3, octopus, D3, octopus)

def test_a_file_a_branch_kept_through_a_merge_keeps_its_first_birth(repo):
    """Deleted on one side, edited on the other, and the merge keeps the
    edited file: the same file, born at its first add."""
    repo.write("x.md", "x\n")
    first = repo.commit("add", D1)
    repo.checkout("feature", new=True)
    repo.write("x.md", "x, edited on a branch\n")
    edit = repo.commit("edit on a branch", D2)
    repo.checkout("main")
    repo.rm("x.md")
    repo.commit("delete x", D3)
    with pytest.raises(RuntimeError):  # modify/delete: resolved by keeping the branch's file
        repo.merge("feature", date=D4)
    repo.write("x.md", "x, edited on a branch\n")
    repo.commit("merge, keeping x", D4)

    assert load_history(repo.root).files["x.md"] == dates(D1, first, D2, edit)

def test_spaces_unicode_and_tabs(repo):
    names = ["notes/dé jà vu.md", "日本/メモ 1.md", "tab\there.md", 'quote"and\\slash.md']
    for name in names:
        repo.write(name, BODY + name + "\n")
    c1 = repo.commit("add", D1)
    repo.mv("notes/dé jà vu.md", "archivé/ça va.md")
    repo.write("tab\there.md", BODY + "changed\n")
    c2 = repo.commit("move and edit", D2)

    assert load_history(repo.root).files == {
        "archivé/ça va.md": dates(D1, c1, D1, c1),
        "日本/メモ 1.md": dates(D1, c1, D1, c1),
        "tab\there.md": dates(D1, c1, D2, c2),
        'quote"and\\slash.md': dates(D1, c1, D1, c1)}


def test_name_that_is_not_utf8(repo):
    name = b"caf\xe9.md".decode("utf-8", "surrogateescape")  # as os.listdir would name it
    repo.write(name, "latin-1 name\n")
    c1 = repo.commit("add", D1)
    h = load_history(repo.root)
    assert h.files == {name: dates(D1, c1, D1, c1)}
    assert repo.path(name).exists()  # the key works as a path


def test_corrupt_repository_gives_one_line(repo):
    repo.write("a.md", "a\n")
    repo.commit("add", D1)
    tree = repo.run("rev-parse", "HEAD^{tree}").strip()
    repo.path(f".git/objects/{tree[:2]}/{tree[2:]}").unlink()
    with pytest.raises(HistoryError) as err:
        load_history(repo.root)
    assert "\n" not in str(err.value) and tree in str(err.value)


def test_a_log_that_fails_part_way_gives_one_line(repo):
    """git log stops when rename detection needs a blob the repository has
    lost, after the replay has started: the error is git's, on one line."""
    repo.write("memory/a.md", BODY)
    repo.commit("add", D1)
    blob = repo.run("rev-parse", "HEAD:memory/a.md").strip()
    repo.mv("memory/a.md", "memory/b.md")
    repo.write("memory/b.md", BODY + "one more line\n")
    repo.commit("rename with an edit", D2)
    repo.path(f".git/objects/{blob[:2]}/{blob[2:]}").unlink()
    with pytest.raises(HistoryError) as err:
        load_history(repo.root, under="memory")
    assert str(err.value).startswith("git log failed") and blob in str(err.value) and "\n" not in str(err.value)


def test_a_history_kept_by_the_cache_comes_back_whole(repo):
    """The cache pickles a History compactly (each commit once): what it
    loads has the same dates, with their time zones, and the staged state."""
    import pickle

    repo.write("memory/a.md", BODY)
    repo.write("memory/b.md", "b\n")
    repo.commit("add", "2024-01-10T09:00:00+05:30")
    repo.write("memory/b.md", "b2\n")
    repo.commit("edit b", "2024-02-20T10:30:00-08:00")
    repo.mv("memory/a.md", "memory/c.md")
    found = load_history(repo.root, under="memory")
    assert found.staged_renames == {"memory/c.md": "memory/a.md"}
    again = pickle.loads(pickle.dumps(found, protocol=5))
    assert again == found and again.dates("memory/c.md") == found.files["memory/a.md"]
    assert [str(d.changed.utcoffset()) for d in again.files.values()] == ["5:30:00", "-1 day, 16:00:00"]


def test_a_log_cut_off_in_the_middle_of_a_record_gives_gits_error(repo):
    """git killed part-way (out of memory, a signal) leaves a record without
    its path: the replay reports git's failure, not a parser error."""
    import subprocess
    import sys

    from memlint.history import _Replay, _feed_log, _full_log_args, _log_args

    repo.write("memory/a.md", BODY)
    head = repo.commit("add", D1)
    repo.write("memory/a.md", BODY + "more\n")
    head = repo.commit("edit", D2)
    args = _full_log_args(_log_args("author"), head, ["memory"])
    out = subprocess.run(["git", *args], cwd=repo.root, capture_output=True, check=True).stdout
    cut = out[:out.index(b"M\0") + 2]  # up to the edit's M, without the path that follows it
    killed = subprocess.Popen(
        [sys.executable, "-c", f"import os, sys; os.write(1, {cut!r}); sys.stderr.write('fatal: killed'); sys.exit(128)"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    with pytest.raises(HistoryError, match="git log failed in .*: killed$"):
        _feed_log(repo.root, args, lambda: _Replay(["memory/a.md"]), [], started=killed)
    assert killed.poll() == 128


def test_shallow_clone_is_flagged(repo, tmp_path):
    repo.write("a.md", "a\n")
    repo.commit("one", D1)
    repo.write("a.md", "a2\n")
    repo.write("b.md", "b\n")
    repo.commit("two", D2)
    repo.write("c.md", "c\n")
    c3 = repo.commit("three", D3)
    clone = tmp_path / "clone"
    GitRepo(tmp_path, init=False).run("clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone))

    h = load_history(clone)
    assert h.shallow is True and h.head == c3
    # The only visible commit "adds" every file: dates are computed but wrong, hence the flag.
    assert h.files == {name: dates(D3, c3, D3, c3) for name in ("a.md", "b.md", "c.md")}
    assert load_history(repo.root).shallow is False


def test_no_commits(repo):
    repo.write("staged.md", "s\n")
    h = load_history(repo.root)
    assert h.head is None and h.files == {} and h.shallow is False
    assert h.staged_new == frozenset({"staged.md"})
    assert append_only_violations(repo.root, ["staged.md"], None) == {}


def test_not_a_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # in case /tmp sits in a repository
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NotAWorkTree, match="not a git repository"):
        load_history(plain)
    with pytest.raises(HistoryError, match="not a directory"):
        load_history(tmp_path / "does-not-exist")


def test_the_work_tree_is_found_from_any_folder_in_it(repo):
    repo.write("deep/er/x.md", "x\n")
    c1 = repo.commit("add", D1)
    assert load_history(repo.path("deep/er")).files == {"deep/er/x.md": dates(D1, c1, D1, c1)}
    with pytest.raises(NotAWorkTree):  # inside .git is not a work tree
        load_history(repo.path(".git"))


# ---------------------------------------------------------------- moved into the store's folder


def test_the_store_folder_renamed_keeps_every_date(repo):
    """The log is limited to the store's folder, whose files look born at a
    move into it: followed back, a renamed store keeps its dates."""
    repo.write("memory/a.md", BODY)
    repo.write("memory/b.md", BODY.replace("line", "row"))
    c1 = repo.commit("add", D1)
    repo.write("memory/b.md", BODY.replace("line", "row") + "edited\n")
    c2 = repo.commit("edit b", D2)
    repo.mv("memory", "mem")
    c3 = repo.commit("rename the store", D3)
    assert load_history(repo.root, under="mem").files == {
        "mem/a.md": dates(D1, c1, D1, c1), "mem/b.md": dates(D1, c1, D2, c2)}
    repo.mv("mem/a.md", ".claude/memory/a.md")  # and moved on, with an edit this time
    repo.write(".claude/memory/a.md", BODY.replace("line 7:", "line seven:"))
    c4 = repo.commit("move a, edited", D4)
    assert load_history(repo.root, under=".claude/memory").files == {".claude/memory/a.md": dates(D1, c1, D4, c4)}
    assert c3  # the pure rename of the folder was no change of a.md


def test_a_file_moved_in_from_another_folder_keeps_its_dates(repo):
    repo.write("drafts/x.md", BODY)
    c1 = repo.commit("draft", D1)
    repo.write("memory/MEMORY.md", "# index\n")
    repo.mv("drafts/x.md", "memory/x.md")
    c2 = repo.commit("file the draft", D2)
    repo.write("drafts/x.md", "another file, same name\n")  # the old name taken again later
    repo.commit("new draft", D3)
    assert load_history(repo.root, under="memory").files == {
        "memory/MEMORY.md": dates(D2, c2, D2, c2), "memory/x.md": dates(D1, c1, D1, c1)}


@pytest.mark.parametrize("first, moves", [
    ("inbox/x.md", [("inbox/x.md", "notes/x.md"), ("notes", "memory")]),  # folder to folder
    ("old/a.md", [("old/a.md", "old/b.md"), ("old/b.md", "memory/b.md")]),  # renamed in the old folder first
])
def test_moves_before_the_move_in_are_followed(repo, first, moves):
    repo.write(first, BODY)
    c1 = repo.commit("add", D1)
    for (old, new), when in zip(moves, (D2, D3)):
        repo.mv(old, new)
        repo.commit(f"{old} -> {new}", when)
    [(path, found)] = load_history(repo.root, under="memory").files.items()
    assert found == dates(D1, c1, D1, c1), path


@pytest.mark.parametrize("trips", [1, 2, 3])
def test_a_memory_moved_out_and_back_again_keeps_its_birth(repo, trips):
    """To an archive folder and back, more than once, all by `git mv`: born
    on the first day, not on a day it left the store."""
    repo.write("memory/a.md", BODY)
    c1 = repo.commit("add", D1)
    day = datetime.fromisoformat(D1)
    for _ in range(trips):
        for old, new in (("memory/a.md", "archive/a.md"), ("archive/a.md", "memory/a.md")):
            day += timedelta(days=10)
            repo.mv(old, new)
            repo.commit(f"{old} -> {new}", day.isoformat())
    assert load_history(repo.root, under="memory").files == {"memory/a.md": dates(D1, c1, D1, c1)}


def test_a_file_moved_in_then_renamed_inside_the_store(repo):
    """The move is found under the name the file had then, not its name now;
    a full replay and one resumed from before the move agree."""
    repo.write("old/f.md", BODY)
    c1 = repo.commit("add", D1)
    repo.write("mem/MEMORY.md", "# index\n")
    repo.commit("the store", D2)
    kept = load_history(repo.root, under="mem")
    repo.mv("old/f.md", "mem/f.md")
    repo.commit("move in", D3)
    repo.mv("mem/f.md", "mem/g.md")
    repo.commit("rename inside", D4)
    full = load_history(repo.root, under="mem")
    assert full.files["mem/g.md"] == dates(D1, c1, D1, c1)
    assert load_history(repo.root, under="mem", previous=kept).files == full.files


def test_two_drafts_of_one_name_each_moved_in_keep_their_own_births(repo):
    """drafts/d.md filed as mem/a.md, then a new drafts/d.md filed as
    mem/b.md: each memory is born with its own draft, in a full replay and
    in one resumed between the two moves."""
    repo.write("mem/MEMORY.md", "# index\n")
    repo.write("drafts/d.md", BODY)
    c1 = repo.commit("draft a", D1)
    repo.mv("drafts/d.md", "mem/a.md")
    repo.commit("file a", D2)
    repo.write("drafts/d.md", BODY.replace("line", "row"))
    c3 = repo.commit("draft b", D3)
    kept = load_history(repo.root, under="mem")
    repo.mv("drafts/d.md", "mem/b.md")
    repo.commit("file b", D4)
    full = load_history(repo.root, under="mem")
    assert full.files["mem/a.md"] == dates(D1, c1, D1, c1)
    assert full.files["mem/b.md"] == dates(D3, c3, D3, c3)
    assert load_history(repo.root, under="mem", previous=kept).files == full.files


def test_a_file_a_merge_dropped_and_added_anew_is_born_anew(repo):
    """x.md added on a branch, dropped by the merge of that branch, written
    again later: born at the new add (a log without merges shows no
    deletion between the two adds, but the older is the newer's ancestor);
    a full replay and one resumed after the merge agree."""
    repo.write("a.md", BODY)
    repo.commit("start", D1)
    repo.checkout("side", new=True)
    repo.write("x.md", BODY.replace("line", "row"))
    repo.commit("x on the side", D2)
    repo.checkout("main")
    repo.write("a.md", BODY + "edited\n")
    repo.commit("edit a", D3)
    repo.merge("side", commit=False)
    repo.run("rm", "-qf", "--", "x.md")
    repo.commit("merge, without x", D3)
    kept = load_history(repo.root)
    repo.write("x.md", "a new x\n")
    c5 = repo.commit("x again", D5)
    full = load_history(repo.root)
    assert full.files["x.md"] == dates(D5, c5, D5, c5)
    assert load_history(repo.root, previous=kept).files == full.files


def test_a_file_both_branches_added_is_born_at_the_older_add(repo):
    """Added on two lines of history, joined by a merge: one file, born at
    the first add (the older add is no ancestor of the newer)."""
    repo.write("a.md", BODY)
    repo.commit("start", D1)
    repo.checkout("side", new=True)
    repo.write("x.md", BODY.replace("line", "row"))
    c2 = repo.commit("x on the side", D2)
    repo.checkout("main")
    repo.write("x.md", BODY.replace("line", "row"))
    c3 = repo.commit("x on main", D3)
    repo.merge("side", date=D4)
    assert load_history(repo.root).files["x.md"] == dates(D2, c2, D3, c3)


def test_a_move_in_resumed_from_a_kept_replay_equals_a_full_one(repo):
    repo.write("memory/a.md", BODY)
    repo.write("old/b.md", BODY.replace("line", "row"))
    c1 = repo.commit("add", D1)
    kept = load_history(repo.root, under="memory")
    repo.mv("old/b.md", "memory/b.md")
    repo.commit("move b in", D2)
    resumed = load_history(repo.root, under="memory", previous=kept)
    assert resumed.files == load_history(repo.root, under="memory").files
    assert resumed.files["memory/b.md"] == dates(D1, c1, D1, c1)


@pytest.mark.parametrize("differ_starts", [True, False])
def test_deletions_outside_are_listed_while_the_log_runs(repo, monkeypatch, differ_starts):
    """A full replay of a store's folder asks git once for the log and once,
    alongside it, which of its commits deleted a file outside the folder
    (no listing of the store's commits first); when that second git cannot
    start, the birth commits are asked about afterwards, with the same dates."""
    for i in range(20):
        repo.write(f"memory/n{i}.md", f"{i}\n")
        repo.commit(f"c{i}", D1)
    repo.write("drafts/x.md", BODY)
    c1 = repo.commit("draft", D2)
    repo.mv("drafts/x.md", "memory/x.md")
    repo.commit("file the draft", D3)
    from memlint import gitrun

    calls = []

    def spy(real, streamed=False):
        def call(cwd, args, **kwargs):
            name = [a for a in args if not a.startswith("-") and "=" not in a][0]
            calls.append(name)
            if streamed and name == "diff-tree" and not differ_starts:
                raise OSError("cannot start")
            return real(cwd, args, **kwargs)
        return call

    monkeypatch.setattr(gitrun, "run", spy(gitrun.run))
    monkeypatch.setattr(gitrun, "popen", spy(gitrun.popen, streamed=True))
    files = load_history(repo.root, under="memory").files
    assert files["memory/x.md"] == dates(D2, c1, D2, c1) and len(files) == 21
    # The store's log and the old name's. diff-tree: the deletions outside
    # the store (streamed, or asked afterwards), the move itself (with rename
    # detection), and the deletions outside the old name's folder.
    assert calls.count("log") == 2 and "rev-list" not in calls
    assert calls.count("diff-tree") == (3 if differ_starts else 4), " ".join(calls)


def test_a_log_started_early_gives_the_same_dates(repo):
    """`start_log` runs the full replay's log before it is asked for; the
    replay that takes it gives what one without it gives."""
    from memlint.history import start_log

    repo.write("memory/a.md", BODY)
    c1 = repo.commit("add", D1)
    repo.mv("memory/a.md", "memory/b.md")
    repo.write("memory/c.md", "c\n")
    c2 = repo.commit("rename, add", D2)
    early = start_log(repo.root, c2, under="memory")
    found = load_history(repo.root, under="memory", early=early)
    assert early.proc is None  # taken
    assert found.files == load_history(repo.root, under="memory").files == {
        "memory/b.md": dates(D1, c1, D1, c1), "memory/c.md": dates(D2, c2, D2, c2)}


@pytest.mark.parametrize("case", ["another folder", "no commit yet", "kept replay at HEAD", "committer dates",
                                  "a commit since"])
def test_a_log_started_early_but_not_needed_is_ended(repo, case):
    """The early log is the wrong one (another folder, another date, a HEAD
    a commit has moved since), or no full replay is made: it is stopped, and
    the dates are still right."""
    from memlint import gitrun
    from memlint.history import start_log

    head = "0" * 40
    if case != "no commit yet":
        repo.write("memory/a.md", BODY)
        repo.write("notes/n.md", BODY)
        head = repo.commit("add", D1)
    kept = load_history(repo.root, under="memory") if case == "kept replay at HEAD" else None
    early = start_log(repo.root, head, under="notes" if case == "another folder" else "memory")
    if case == "a commit since":
        repo.write("memory/a.md", BODY + "more\n")
        repo.commit("edit", D2)
    proc = early.proc
    found = load_history(repo.root, under="memory", previous=kept, early=early,
                         date_kind="committer" if case == "committer dates" else "author")
    assert proc.poll() is not None and early.proc is None and proc.pid not in gitrun.ALONGSIDE
    assert found.files == ({} if case == "no commit yet" else load_history(repo.root, under="memory").files)
    if case == "a commit since":
        assert found.files["memory/a.md"].changed == datetime.fromisoformat(D2)


def test_a_copy_or_a_new_file_is_not_taken_for_a_move(repo):
    repo.write("drafts/x.md", BODY)
    repo.commit("draft", D1)
    repo.write("memory/x.md", BODY)  # a copy: drafts/x.md stays
    c2 = repo.commit("copy it in", D2)
    repo.rm("drafts/x.md")
    repo.write("memory/y.md", "unrelated\n")
    c3 = repo.commit("delete the draft, add y", D3)
    assert load_history(repo.root, under="memory").files == {
        "memory/x.md": dates(D2, c2, D2, c2), "memory/y.md": dates(D3, c3, D3, c3)}


def test_load_history_from_a_subfolder_uses_the_top(repo):
    repo.write("store/a.md", "a\n")
    c1 = repo.commit("add", D1)
    h = load_history(repo.path("store"))
    assert h.repo_root == repo.root.resolve() and h.files == {"store/a.md": dates(D1, c1, D1, c1)}


def test_git_missing(repo, monkeypatch, tmp_path):
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no git on PATH
    with pytest.raises(HistoryError, match="git is not installed"):
        load_history(repo.root)


def test_staged_new_with_a_relative_index_name_from_a_subfolder(repo, monkeypatch):
    """A hook's `GIT_INDEX_FILE=.git/index` is relative to the top of the work
    tree, wherever memlint itself runs (a hook may `cd` into the store)."""
    repo.write("store/a.md", "a\n")
    repo.commit("add", D1)
    repo.write("store/new.md", "new\n")
    monkeypatch.chdir(repo.path("store"))
    monkeypatch.setenv("GIT_INDEX_FILE", ".git/index")
    assert load_history(repo.path("store")).staged_new == frozenset({"store/new.md"})


def test_author_versus_committer_date_and_time_zone(repo):
    author, committer = "2024-05-06T07:08:09+02:00", "2024-06-07T01:02:03-07:30"
    repo.write("a.md", "a\n")
    c1 = repo.commit("add", author, committer_date=committer)

    by_author = load_history(repo.root).files["a.md"]
    by_committer = load_history(repo.root, date_kind="committer").files["a.md"]
    assert by_author == dates(author, c1, author, c1)
    assert by_committer == dates(committer, c1, committer, c1)
    assert by_author.created.utcoffset() == timedelta(hours=2)  # the author's own zone is kept
    assert by_committer.created.utcoffset() == -timedelta(hours=7, minutes=30)
    with pytest.raises(ValueError):
        load_history(repo.root, date_kind="mtime")


@pytest.mark.parametrize("raw, expected", [
    ("1768046400 +2500", "2026-01-10T12:00:00+00:00"),  # a zone past 24 hours: UTC
    ("400000000000 +0000", "9999-12-31T23:59:59.999999+00:00"),  # past year 9999: the last day Python holds
])
def test_a_commit_date_python_cannot_hold_is_read_as_git_shows_it(repo, raw, expected):
    """git accepts (and imported histories hold) dates a datetime cannot: one
    such commit must not fail every git date of the store."""
    repo.write("a.md", "a\n")
    c1 = repo.commit("add", D1)
    repo.write("b.md", "b\n")
    tree = repo.run("write-tree").strip()
    commit = f"tree {tree}\nparent {c1}\nauthor t <t@t> {raw}\ncommitter t <t@t> {raw}\n\nimported\n"
    import subprocess

    odd = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin", "--literally"], cwd=repo.root,
                         input=commit.encode(), capture_output=True, check=True).stdout.decode().strip()
    repo.run("update-ref", "HEAD", odd)
    files = load_history(repo.root).files
    assert files["a.md"] == dates(D1, c1, D1, c1)
    assert files["b.md"] == dates(expected, odd, expected, odd)


def test_staged_new_and_staged_renames(repo):
    repo.write("a.md", BODY)
    repo.write("b.md", BODY + "b\n")
    c1 = repo.commit("add", D1)
    repo.write("new note.md", "today\n")
    repo.mv("b.md", "moved/b.md")
    repo.write("a.md", BODY + "unstaged edits are not new\n", add=False)
    repo.write("untracked.md", "x\n", add=False)

    h = load_history(repo.root)
    assert h.staged_new == frozenset({"new note.md"})
    assert h.staged_renames == {"moved/b.md": "b.md"}
    assert h.dates("moved/b.md") == dates(D1, c1, D1, c1)  # a staged rename keeps its dates
    assert set(h.files) == {"a.md", "b.md"}  # files are as at HEAD


def test_under_limits_to_the_store(repo):
    repo.write("store/a.md", "a\n")
    repo.write("src/code.py", "x = 1\n")
    c1 = repo.commit("add", D1)
    repo.write("store/new.md", "n\n")
    repo.write("src/new.py", "n\n")

    h = load_history(repo.root, under="store/")
    assert h.files == {"store/a.md": dates(D1, c1, D1, c1)}
    assert h.staged_new == frozenset({"store/new.md"})
    assert load_history(repo.root, under=repo.path("store")).files == h.files
    assert set(load_history(repo.root, under=".").files) == {"store/a.md", "src/code.py"}


def test_one_git_log_for_the_whole_store(repo, monkeypatch):
    for i in range(30):
        repo.write(f"n{i}.md", f"{i}\n")
        repo.commit(f"c{i}", D1)
    from memlint import gitrun

    calls = []

    def spy(real):
        def call(cwd, args, **kwargs):
            calls.append([a for a in args if not a.startswith("-") and "=" not in a][0])
            return real(cwd, args, **kwargs)
        return call

    monkeypatch.setattr(gitrun, "run", spy(gitrun.run))
    monkeypatch.setattr(gitrun, "popen", spy(gitrun.popen))
    assert len(load_history(repo.root).files) == 30
    assert calls.count("log") == 1 and len(calls) <= 4


# ----------------------------------------------------------------- append-only


LOG = "# 2024-01-10\n- first\n- second\n- third\n"


@pytest.fixture
def daily(repo):
    repo.write("daily/2024-01-10.md", LOG)
    repo.write("daily/other day.md", LOG)
    first = repo.commit("log", D1)
    return repo, first


def test_append_only_accepts_appends(daily):
    repo, _ = daily
    repo.write("daily/2024-01-10.md", LOG + "- fourth\n- fifth\n")
    assert append_only_violations(repo.root, ["daily/2024-01-10.md"], None) == {}


def test_append_only_reports_edits_and_deletions(daily):
    repo, _ = daily
    repo.write("daily/2024-01-10.md", LOG.replace("- second", "- 2nd") + "- fourth\n")
    repo.write("daily/other day.md", "# 2024-01-10\n- first\n")  # lines 3 and 4 deleted
    repo.write("daily/unchecked.md", "not asked about\n")
    paths = ["daily/2024-01-10.md", "daily/other day.md"]
    assert append_only_violations(repo.root, paths, None) == {
        "daily/2024-01-10.md": [3], "daily/other day.md": [3, 4]}


def test_append_only_compares_staged_content(daily):
    repo, _ = daily
    repo.write("daily/2024-01-10.md", LOG.replace("- first", "- 1st"), add=False)  # not staged
    assert append_only_violations(repo.root, ["daily/2024-01-10.md"], None) == {}


def test_append_only_since_a_commit(daily):
    repo, first = daily
    repo.write("daily/2024-01-10.md", LOG + "- fourth\n")
    repo.commit("append", D2)
    repo.write("daily/2024-01-10.md", (LOG + "- fourth\n").replace("- third\n", ""))
    repo.commit("drop a line", D3)
    assert append_only_violations(repo.root, ["daily/2024-01-10.md"], since=first) == {"daily/2024-01-10.md": [4]}
    assert append_only_violations(repo.root, ["daily/2024-01-10.md"], since="HEAD") == {}
    with pytest.raises(HistoryError):
        append_only_violations(repo.root, ["daily/2024-01-10.md"], since="no-such-rev")


def test_append_only_last_line_without_newline(repo):
    repo.write("log.md", "one\ntwo")
    repo.commit("log", D1)
    repo.write("log.md", "one\ntwo\nthree\n")
    assert append_only_violations(repo.root, ["log.md"], None) == {}
    repo.write("log.md", "one\ntwo!\nthree\n")
    assert append_only_violations(repo.root, ["log.md"], None) == {"log.md": [2]}


def test_append_only_odd_names_and_deleted_file(repo):
    repo.write("tab\tday.md", LOG)
    repo.write("day é.md", LOG)
    repo.commit("logs", D1)
    repo.write("tab\tday.md", LOG.replace("- third", "- 3rd"))
    repo.rm("day é.md")
    assert append_only_violations(repo.root, [repo.path("tab\tday.md"), "day é.md"], None) == {
        "tab\tday.md": [4], "day é.md": [1, 2, 3, 4]}
    assert append_only_violations(repo.root, [], None) == {}


# ----------------------------------------------------------------- at scale


def test_generated_history_matches_its_truth(tmp_path):
    """Hundreds of adds, edits, renames (with and without edits), copies,
    deletes and re-adds; the generator knows every true date."""
    from tests.perf.bench_history import build_repo

    truth = build_repo(tmp_path / "store", n_files=300, n_commits=400, seed=7)
    h = load_history(tmp_path / "store")
    found = {p: (int(d.created.timestamp()), int(d.changed.timestamp())) for p, d in h.files.items()}
    assert found == truth

"""MEM007: git's conflict markers left in a memory."""
from __future__ import annotations

import pytest

ROOT = "# Index\n- [A](a.md) — a\n"
HEAD = "---\nname: a\ndescription: the a memory\ntype: feedback\n---\n"
CONFLICT = ("<<<<<<< HEAD\nThe key rotates every 30 days.\n=======\n"
            "The key rotates every 90 days.\n>>>>>>> laptop\n")


def mem007(make_store, findings, files):
    store = make_store({"MEMORY.md": ROOT, **files})
    return [(p, line) for p, line, code in findings(store, "--today", "2026-06-01") if code == "MEM007"]


def test_fires_on_a_conflict_in_the_body(make_store, findings, cli):
    store = make_store({"MEMORY.md": ROOT, "a.md": HEAD + "Intro.\n" + CONFLICT + "Outro.\n"})
    result = cli("check", "--format", "json", "--today", "2026-06-01", store)
    [found] = [f for f in result.json() if f["code"] == "MEM007"]
    assert (found["path"], found["line"], found["severity"]) == ("a.md", 7, "error")
    assert "lines 7-11" in found["message"] and result.exit_code == 1


def test_fires_on_each_conflict_in_the_root_and_in_frontmatter(make_store, findings):
    root = ROOT + CONFLICT + "\n## More\n" + CONFLICT.replace("HEAD", "main")
    fm = "---\nname: a\n<<<<<<< HEAD\ndescription: old\n=======\ndescription: new\n>>>>>>> other\n---\nBody.\n"
    assert mem007(make_store, findings, {"MEMORY.md": root, "a.md": fm}) == [
        ("MEMORY.md", 3), ("MEMORY.md", 10), ("a.md", 3)]


def test_fires_on_a_diff3_conflict_and_on_longer_markers(make_store, findings):
    diff3 = "<<<<<<< ours\nA\n||||||| base\nB\n=======\nC\n>>>>>>> theirs\n"
    long = "<<<<<<<<<<\nA\n==========\nB\n>>>>>>>>>>\n"
    assert mem007(make_store, findings, {"a.md": HEAD + diff3, "b.md": HEAD + long}) == [("a.md", 6), ("b.md", 6)]


@pytest.mark.parametrize("body", [
    "Title\n=======\nText under a setext heading.\n",  # a separator alone
    "<<<<<<< HEAD\nhalf a conflict, never closed\n",
    "<<<<<<< HEAD\nA\n>>>>>>> other\n",  # no separator
    "".join("    " + line + "\n" for line in CONFLICT.splitlines()),  # quoted in an indented code block
    "<<<<<<< HEAD\nA\n=========\nB\n>>>>>>> other\n",  # markers of different lengths
    "<<<<<<< HEAD\nA\n======= not alone\nB\n>>>>>>> other\n",
    "Arrows <<<<<<< here, ======= and >>>>>>> there, inside lines.\n",
])
def test_quiet_without_a_complete_conflict(make_store, findings, body):
    assert mem007(make_store, findings, {"a.md": HEAD + body}) == []


def test_fires_where_git_put_markers_in_code_blocks(make_store, findings):
    """Inside a fenced block, and where the two sides open the block with
    different fences (git's markers then sit between fences that do not pair)."""
    inside = "```sh\n<<<<<<< HEAD\nmake 60\n=======\nmake 90\n>>>>>>> other\n```\n"
    fences = "<<<<<<< HEAD\n```sh\n=======\n```bash\n>>>>>>> other\nmake\n```\n"
    assert mem007(make_store, findings, {"a.md": HEAD + inside, "b.md": HEAD + fences}) == [("a.md", 7), ("b.md", 6)]


def test_a_suppression_comment_silences_a_quoted_example(make_store, findings):
    body = ("How to read one:\n\n<!-- memlint-disable MEM007 -->\n```text\n" + CONFLICT + "```\n"
            "<!-- memlint-enable MEM007 -->\n")
    assert mem007(make_store, findings, {"a.md": HEAD + body}) == []


def test_a_conflicted_file_added_as_it_is_is_caught_before_the_commit(tmp_path, cli):
    """A real merge conflict, `git add`-ed with its markers: the staged check
    (what the pre-commit hook runs) reports it where git put the markers."""
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", ROOT)
    repo.write("memory/a.md", HEAD + "The key rotates every 30 days.\n")
    repo.commit("base", "2026-01-02T10:00:00+00:00")
    repo.run("checkout", "-q", "-b", "laptop")
    repo.write("memory/a.md", HEAD + "The key rotates every 90 days.\n")
    repo.commit("laptop", "2026-01-03T10:00:00+00:00")
    repo.run("checkout", "-q", "main")
    repo.write("memory/a.md", HEAD + "The key rotates every 60 days.\n")
    repo.commit("main", "2026-01-04T10:00:00+00:00")
    with pytest.raises(RuntimeError, match="CONFLICT"):
        repo.run("merge", "laptop")
    repo.add("memory/a.md")  # "resolved", markers and all
    result = cli("check", "--staged", "--format", "json", "--today", "2026-06-01", repo.root / "memory")
    assert [(f["path"], f["line"]) for f in result.json() if f["code"] == "MEM007"] == [("memory/a.md", 6)]
    assert result.exit_code == 1

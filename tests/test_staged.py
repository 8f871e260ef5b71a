"""`check --staged`: lint the store the next commit holds (the git index), and `--scope`."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import write_files

INDEX = "# Index\n- [A](a.md) — first\n- [B](b.md) — second\n"
GOOD = "---\nname: a\ndescription: d\ntype: user\n---\nBody\n"
WRONG_TYPE = "---\nname: b\ndescription: d\ntype: bogus\n---\nBody\n"  # MEM003 on line 4
NOFM = "# no frontmatter\n"
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_AUTHOR_DATE": "2026-01-05T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-05T12:00:00+00:00",
}


def git(repo: Path, *args: str) -> None:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **GIT_ENV}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path


def codes(cli, *args, env=None):
    result = cli("check", "--format", "json", *args, env=env)
    assert result.exit_code in (0, 1), result.output + result.stderr
    return sorted((f["path"], f["line"], f["code"]) for f in result.json())


def test_staged_reads_the_index_not_the_working_tree(repo, cli):
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": WRONG_TYPE})
    git(repo, "add", ".")
    write_files(repo, {
        "memory/b.md": WRONG_TYPE.replace("bogus", "user"),  # fixed on disk only
        "memory/a.md": NOFM,  # broken on disk only
        "memory/new.md": NOFM,  # untracked
    })
    assert codes(cli, "--staged", repo / "memory") == [("memory/b.md", 4, "MEM003")]
    assert codes(cli, repo / "memory") == [
        ("memory/a.md", 1, "MEM001"), ("memory/new.md", 1, "MEM001"), ("memory/new.md", 1, "MEM201")]


def test_the_config_is_read_as_the_commit_holds_it(repo, cli):
    """An untracked config does not count, as an untracked memory does not,
    and a config edit not staged is not read: the hook then judges what CI
    will judge after the push."""
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": NOFM})
    git(repo, "add", "memory")
    write_files(repo, {".memlint.yaml": "rules:\n  MEM001: off\n"})  # untracked
    assert codes(cli, "--staged", repo / "memory") == [("memory/b.md", 1, "MEM001")]
    assert codes(cli, repo / "memory") == []  # on disk, by hand: the file there counts
    git(repo, "add", ".memlint.yaml")
    assert codes(cli, "--staged", repo / "memory") == []
    write_files(repo, {".memlint.yaml": "rules:\n  MEM001: error\n  MEM003: off\n"})  # not staged
    assert codes(cli, "--staged", repo / "memory") == []
    write_files(repo, {".memlint.yaml": "rules: [\n"})  # broken on disk only: the commit's config is fine
    assert codes(cli, "--staged", repo / "memory") == []


def test_a_schema_the_committed_config_names_but_the_commit_leaves_out_is_an_error(repo, cli):
    """A staged config naming a schema file left untracked: the hook read it
    from disk and passed, and every check of the commit (CI, a clone) then
    stopped with exit 2 for want of it."""
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD.replace("name: a", "name: b"),
                       "memory/.memlint.yaml": "schema: my.json\n",
                       "memory/my.json": '{"type": "object", "required": ["name"]}'})
    git(repo, "add", "memory/MEMORY.md", "memory/a.md", "memory/b.md", "memory/.memlint.yaml")
    result = cli("check", "--staged", repo / "memory")
    assert result.exit_code == 2, result.output + result.stderr
    assert "schema 'my.json'" in result.stderr and "is not in the commit" in result.stderr
    assert "add memory/my.json" in result.stderr
    assert codes(cli, repo / "memory") == []  # on disk, by hand: the file there counts
    git(repo, "add", "memory/my.json")
    assert codes(cli, "--staged", repo / "memory") == []


def test_a_schema_named_by_a_symbolic_link_the_commit_leaves_out_is_an_error(repo, cli):
    """The link untracked, the file it leads to staged: the hook passed, and a
    clone of the commit had no schema by the name the config gives."""
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD.replace("name: a", "name: b"),
                       "memory/.memlint.yaml": "schema: my.json\n",
                       "memory/real.json": '{"type": "object", "required": ["name"]}'})
    os.symlink("real.json", repo / "memory/my.json")
    git(repo, "add", "memory/MEMORY.md", "memory/a.md", "memory/b.md", "memory/.memlint.yaml", "memory/real.json")
    result = cli("check", "--staged", repo / "memory")
    assert result.exit_code == 2, result.output + result.stderr
    assert "my.json is not in the commit" in result.stderr and "add memory/my.json" in result.stderr
    git(repo, "add", "memory/my.json")
    assert codes(cli, "--staged", repo / "memory") == []


def test_a_schema_in_a_folder_named_by_a_symbolic_link_needs_the_link_of_the_folder(repo, cli):
    """git tracks the folder's link, and no path beyond it: with the link
    staged the commit holds the schema; without it, the advice adds the link
    (`git add` of the path beyond it fails)."""
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD.replace("name: a", "name: b"),
                       "memory/.memlint.yaml": "schema: schemas/my.json\n",
                       "memory/real/my.json": '{"type": "object", "required": ["name"]}'})
    os.symlink("real", repo / "memory/schemas")
    git(repo, "add", "memory/MEMORY.md", "memory/a.md", "memory/b.md", "memory/.memlint.yaml", "memory/real/my.json")
    result = cli("check", "--staged", repo / "memory")
    assert result.exit_code == 2, result.output + result.stderr
    assert "schemas is not in the commit" in result.stderr and "add memory/schemas`" in result.stderr
    git(repo, "add", "memory/schemas")
    assert codes(cli, "--staged", repo / "memory") == []


def test_a_schema_through_two_symbolic_links_needs_both(repo, cli):
    """schemas -> real, and real/my.json -> actual.json: with the folder's
    link staged and the file's left out, the commit has no schema by the
    name the config gives, and the hook passed."""
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD.replace("name: a", "name: b"),
                       "memory/.memlint.yaml": "schema: schemas/my.json\n",
                       "memory/real/actual.json": '{"type": "object", "required": ["name"]}'})
    os.symlink("real", repo / "memory/schemas")
    os.symlink("actual.json", repo / "memory/real/my.json")
    git(repo, "add", "memory/MEMORY.md", "memory/a.md", "memory/b.md", "memory/.memlint.yaml",
        "memory/real/actual.json", "memory/schemas")
    result = cli("check", "--staged", repo / "memory")
    assert result.exit_code == 2, result.output + result.stderr
    assert "my.json is not in the commit" in result.stderr and "add memory/real/my.json`" in result.stderr
    git(repo, "add", "memory/real/my.json")
    assert codes(cli, "--staged", repo / "memory") == []


def test_the_links_to_a_schema_are_followed_as_the_file_system_follows_them(repo, cli, tmp_path):
    """A `..` after a link climbs from where the link leads (schemas ->
    sub/../real, sub -> x/y: memory/x/real), and an absolute link written
    through a folder outside that leads back in (/home -> /usr/home) still
    leads to the links beyond: read lexically, the hook passed a commit
    without sub, or without real/my.json."""
    (tmp_path / "alias").symlink_to(repo)
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD.replace("name: a", "name: b"),
                       "memory/.memlint.yaml": "schema: schemas/my.json\n",
                       "memory/x/real/actual.json": '{"type": "object", "required": ["name"]}', "memory/x/y/keep": ""})
    os.symlink("x/y", repo / "memory/sub")
    os.symlink("sub/../real", repo / "memory/schemas")
    os.symlink("actual.json", repo / "memory/x/real/my.json")
    git(repo, "add", "memory/MEMORY.md", "memory/a.md", "memory/b.md", "memory/.memlint.yaml",
        "memory/x/real/actual.json", "memory/x/y/keep", "memory/schemas", "memory/x/real/my.json")
    result = cli("check", "--staged", repo / "memory")
    assert result.exit_code == 2 and "add memory/sub`" in result.stderr, result.output + result.stderr
    git(repo, "add", "memory/sub")
    assert codes(cli, "--staged", repo / "memory") == []
    git(repo, "rm", "-q", "--cached", "memory/schemas", "memory/x/real/my.json")
    os.remove(repo / "memory/schemas")
    os.symlink(tmp_path / "alias" / "memory" / "x" / "real", repo / "memory/schemas")
    git(repo, "add", "memory/schemas")
    result = cli("check", "--staged", repo / "memory")
    assert result.exit_code == 2 and "add memory/x/real/my.json`" in result.stderr, result.output + result.stderr
    git(repo, "add", "memory/x/real/my.json")
    assert codes(cli, "--staged", repo / "memory") == []


def test_an_absolute_schema_path_is_followed_as_a_relative_one(repo, cli, tmp_path):
    """schema: /…/memory/schemas/my.json, schemas -> real: the path was
    kept as written (taken for a shipped schema's), so with everything
    staged the hook stopped, advising a `git add` beyond a symbolic link;
    written through a folder outside (/home -> /usr/home), it was never
    asked for at all."""
    (tmp_path / "alias").symlink_to(repo)
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD.replace("name: a", "name: b"),
                       "memory/.memlint.yaml": f"schema: {repo}/memory/schemas/my.json\n",
                       "memory/real/my.json": '{"type": "object", "required": ["name"]}'})
    os.symlink("real", repo / "memory/schemas")
    git(repo, "add", "memory")
    assert codes(cli, "--staged", repo / "memory") == []
    write_files(repo, {"memory/.memlint.yaml": f"schema: {tmp_path}/alias/memory/schemas/my.json\n"})
    git(repo, "add", "memory/.memlint.yaml")
    git(repo, "rm", "-q", "--cached", "memory/schemas")
    result = cli("check", "--staged", repo / "memory")
    assert result.exit_code == 2 and "add memory/schemas`" in result.stderr, result.output + result.stderr


def test_a_config_staged_as_a_symbolic_link_is_the_file_it_names(repo, cli):
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": NOFM,
                       "shared.yaml": "rules:\n  MEM001: off\n"})
    (repo / ".memlint.yaml").symlink_to("shared.yaml")
    git(repo, "add", ".")
    assert codes(cli, "--staged", repo / "memory") == codes(cli, repo / "memory") == []


def test_the_staged_config_is_read_once_for_all_the_files_a_hook_names(repo, cli, monkeypatch):
    """memlint-files names every staged file: one look in the index for the
    config, not one per file (a git call each, at 1,500 files 5 s)."""
    import memlint.store as store_mod

    files = {f"memory/m{i}.md": GOOD.replace("name: a", f"name: m{i}") for i in range(40)}
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD, **files,
                       ".memlint.yaml": "rules:\n  MEM201: off\n"})
    git(repo, "add", ".")
    calls = []
    real_git = store_mod._git
    monkeypatch.setattr(store_mod, "_git", lambda root, *args, **kw: calls.append(args) or real_git(root, *args, **kw))
    assert codes(cli, "--staged", "--scope", "file", *[repo / name for name in files]) == []
    assert sum(1 for args in calls if args[:2] == ("ls-files", "--stage") and ".memlint.yaml" in args) == 1


def test_an_intent_to_add_file_is_not_in_the_commit_but_an_empty_staged_one_is(repo, cli):
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD.replace("name: a", "name: b")})
    git(repo, "add", ".")
    write_files(repo, {"memory/later.md": GOOD.replace("name: a", "name: later"), "memory/empty.md": ""})
    git(repo, "add", "-N", "memory/later.md")  # git commit leaves it out
    git(repo, "add", "memory/empty.md")
    assert codes(cli, "--staged", repo / "memory") == [("memory/empty.md", 1, "MEM001"), ("memory/empty.md", 1, "MEM201")]
    write_files(repo, {"memory/a.md": GOOD + "See [the notes](../docs/notes.txt).\n", "docs/notes.txt": "notes\n"})
    git(repo, "add", "memory/a.md")
    git(repo, "add", "-N", "docs/notes.txt")  # the link target is not in the commit either
    assert ("memory/a.md", 7, "MEM202") in codes(cli, "--staged", repo / "memory")
    # An empty file only intended to be added has the id and mode of one added: a run
    # that kept the findings of the first must not take them for the second's.
    write_files(repo, {"memory/b.md": GOOD.replace("name: a", "name: b") + "See [x](../docs/empty.txt).\n",
                       "docs/empty.txt": ""})
    git(repo, "add", "memory/b.md")
    git(repo, "add", "-N", "docs/empty.txt")
    assert ("memory/b.md", 7, "MEM202") in codes(cli, "--staged", repo / "memory")
    git(repo, "add", "docs/empty.txt")
    assert ("memory/b.md", 7, "MEM202") not in codes(cli, "--staged", repo / "memory")
    assert codes(cli, "--staged", repo / "memory") == codes(cli, "--staged", "--no-cache", repo / "memory")


def test_pre_commit_environment_turns_staged_on_while_git_makes_a_commit(repo, cli):
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD.replace("name: a", "name: b")})
    git(repo, "add", ".")
    write_files(repo, {"memory/untracked.md": NOFM})
    committing = {"PRE_COMMIT": "1", "GIT_INDEX_FILE": str(repo / ".git" / "index")}  # git's hook environment
    on_disk = [("memory/untracked.md", 1, "MEM001"), ("memory/untracked.md", 1, "MEM201")]
    assert codes(cli, repo, env=committing) == []
    assert codes(cli, "--no-staged", repo, env=committing) == on_disk
    # `pre-commit run --all-files` by hand: no commit is being made, the files on disk are judged
    assert codes(cli, repo, env={"PRE_COMMIT": "1"}) == on_disk


def test_staged_files_as_paths_report_only_those_files(repo, cli):
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": NOFM, "memory/b.md": WRONG_TYPE})
    git(repo, "add", ".")
    assert codes(cli, "--staged", repo / "memory" / "b.md") == [("memory/b.md", 4, "MEM003")]


def test_staged_file_deleted_on_disk_is_still_judged(repo, cli):
    write_files(repo, {"MEMORY.md": INDEX, "a.md": GOOD, "b.md": NOFM})
    git(repo, "add", ".")
    (repo / "b.md").unlink()  # the deletion is not staged: the commit still holds b.md
    assert codes(cli, "--staged", repo) == [("b.md", 1, "MEM001")]
    git(repo, "rm", "-q", "--cached", "a.md")  # staged deletion, still on disk
    # the commit will not hold a.md: the index's link to it breaks
    assert codes(cli, "--staged", repo) == [("MEMORY.md", 2, "MEM202"), ("b.md", 1, "MEM001")]


def test_staged_skips_the_folders_a_walk_skips_and_odd_names_work(repo, cli):
    write_files(repo, {
        "MEMORY.md": INDEX,
        "a.md": GOOD,
        ".archive/old.md": NOFM,  # hidden folders are never walked
        "node_modules/x.md": NOFM,
        "notes/ä b.md": NOFM,
        "notes/c.txt": "not markdown",
    })
    git(repo, "add", ".")
    assert codes(cli, "--staged", "--select", "MEM0", repo) == [("notes/ä b.md", 1, "MEM001")]


def test_staged_symlink_out_of_the_repository_is_reported(repo, cli, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(GOOD)
    write_files(repo, {"MEMORY.md": INDEX, "a.md": GOOD})
    (repo / "b.md").symlink_to(outside)
    git(repo, "add", ".")
    assert codes(cli, "--staged", repo) == [("b.md", 1, "MEM006")]


def test_a_staged_symlink_is_judged_as_the_index_holds_it_whatever_the_disk_holds(repo, cli, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(GOOD)
    write_files(repo, {"MEMORY.md": INDEX + "- [C](c.md) — c\n- [D](d.md) — d\n", "a.md": GOOD,
                       "notes/target.md": GOOD.replace("name: a", "name: t")})
    (repo / "b.md").symlink_to(outside)  # out of the repository
    (repo / "c.md").symlink_to("untracked.md")  # to a file the commit does not hold
    (repo / "d.md").symlink_to("notes/target.md")  # to a file it holds, as it holds it
    git(repo, "add", ".")
    # the disk now says otherwise: b.md a regular file, untracked.md there (and wrong), target.md changed
    (repo / "b.md").unlink()
    write_files(repo, {"b.md": GOOD, "untracked.md": WRONG_TYPE, "notes/target.md": NOFM})
    assert codes(cli, "--staged", "--select", "MEM0", repo) == [("b.md", 1, "MEM006"), ("c.md", 1, "MEM006")]
    result = cli("check", "--staged", "--format", "json", "--select", "MEM006", repo)
    messages = {f["path"]: f["message"] for f in result.json()}
    assert messages == {"b.md": "symbolic link to a file outside the repository: not followed",
                        "c.md": "symbolic link that points nowhere (dangling or a loop)"}
    # staged now: c.md is that file, read once (as untracked.md); d.md is the index's target.md, not the
    # disk's (no frontmatter): each link stands for its file, no duplicate, same name or orphan of it
    git(repo, "add", "untracked.md")
    assert codes(cli, "--staged", repo) == [("b.md", 1, "MEM006"), ("untracked.md", 4, "MEM003")]


def test_a_staged_absolute_link_written_through_a_linked_folder_stays_inside(repo, cli, tmp_path):
    (tmp_path / "alias").symlink_to(repo)  # /home/me -> /usr/home/me: the path written is not the resolved one
    write_files(repo, {"MEMORY.md": INDEX, "a.md": GOOD, "notes/b.md": WRONG_TYPE})
    (repo / "b.md").symlink_to(tmp_path / "alias" / "notes" / "b.md")
    git(repo, "add", ".")
    assert codes(cli, "--staged", repo) == codes(cli, repo) == [("notes/b.md", 4, "MEM003")]


def test_two_staged_links_to_one_file_outside_the_store_are_one_memory_however_each_is_followed(repo, cli):
    # l2.md goes through a linked folder, which only the disk can follow: l1.md, followed in the index, still meets it
    write_files(repo, {"mem/MEMORY.md": "# I\n- [l1](l1.md)\n- [l2](l2.md)\n", "shared/s.md": WRONG_TYPE})
    (repo / "sharedlink").symlink_to("shared")
    (repo / "mem" / "l1.md").symlink_to("../shared/s.md")
    (repo / "mem" / "l2.md").symlink_to("../sharedlink/s.md")
    git(repo, "add", ".")
    expected = [("mem/MEMORY.md", 3, "MEM204"), ("mem/l1.md", 4, "MEM003")]
    assert codes(cli, "--staged", repo / "mem") == codes(cli, repo / "mem") == expected


def test_a_linked_topics_folder_makes_no_moc_store_staged_or_not(repo, cli):
    # memlint does not enter a linked folder: its topics are no store's, on disk or in the commit,
    # and the hook and CI guessed two presets (moc on disk, claude-code staged) for one commit
    write_files(repo, {"memory/MEMORY.md": "- [T](topics/t0.md) — topic\n- [B](b.md) — b\n", "memory/b.md": WRONG_TYPE,
                       "docs/topicsreal/t0.md": "# Topic\n- [b](../b.md) — b\n"})
    (repo / "memory" / "topics").symlink_to("../docs/topicsreal")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "all")
    staged = codes(cli, "--staged", repo / "memory")
    assert staged == codes(cli, repo / "memory") == [("memory/b.md", 4, "MEM003")]  # claude-code's schema


def test_staged_binary_and_non_utf8_content_is_reported(repo, cli):
    write_files(repo, {"MEMORY.md": INDEX, "a.md": b"\xff\xfe\x00x", "b.md": b"---\nname: \xe9\n---\n"})
    git(repo, "add", ".")
    assert codes(cli, "--staged", repo) == [("a.md", 1, "MEM006"), ("b.md", 2, "MEM006")]


def test_staged_outside_git_is_a_usage_error_but_pre_commit_env_is_not(make_store, cli):
    store = make_store({"MEMORY.md": INDEX, "a.md": GOOD, "b.md": NOFM})
    result = cli("check", "--staged", store)
    assert result.exit_code == 2 and "--staged needs a git repository" in result.stderr
    assert codes(cli, store, env={"PRE_COMMIT": "1", "GIT_INDEX_FILE": str(store / "index")}) == [("b.md", 1, "MEM001")]


def test_scope_picks_file_or_store_rules(make_store, cli):
    store = make_store({
        ".memlint.yaml": "rules:\n  root-budget: {max-lines: 2}\n",
        "MEMORY.md": INDEX,
        "a.md": GOOD,
        "b.md": NOFM,
    })
    assert codes(cli, store) == [("MEMORY.md", 3, "MEM101"), ("b.md", 1, "MEM001")]
    assert codes(cli, "--scope", "file", store) == [("b.md", 1, "MEM001")]
    assert codes(cli, "--scope", "store", store) == [("MEMORY.md", 3, "MEM101")]


def test_staged_link_to_an_untracked_file_is_broken(repo, cli):
    write_files(repo, {"MEMORY.md": "# Index\n- [A](a.md) — first\n", "a.md": GOOD})
    git(repo, "add", "MEMORY.md")  # a.md stays untracked: the commit will not hold it
    assert codes(cli, "--staged", repo) == [("MEMORY.md", 2, "MEM202")]
    git(repo, "add", "a.md")
    assert codes(cli, "--staged", repo) == []


def test_staged_without_git_says_so(repo, cli, tmp_path):
    write_files(repo, {"MEMORY.md": INDEX, "a.md": GOOD, "b.md": WRONG_TYPE})
    git(repo, "add", ".")
    (tmp_path / "no-git").mkdir()
    result = cli("check", "--staged", repo, env={"PATH": str(tmp_path / "no-git")})
    assert result.exit_code == 2
    assert result.stderr == "memlint: --staged needs git: No such file or directory\n"


def test_staged_from_the_store_folder_with_the_index_named_relatively(repo, cli):
    """A hook that changes into the store folder first: for a plain `git commit`
    git names the index `.git/index`, relative to the top of the work tree (as
    git itself reads it), not to where memlint runs."""
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": WRONG_TYPE})
    git(repo, "add", ".")
    result = cli("check", "--staged", "--format", "json", ".", cwd=repo / "memory", env={"GIT_INDEX_FILE": ".git/index"})
    assert result.exit_code == 1, result.output + result.stderr
    assert [(f["path"], f["line"], f["code"]) for f in result.json()] == [("memory/b.md", 4, "MEM003")]


def test_staged_in_a_linked_worktree_hook_judges_the_whole_work_tree(repo, cli, tmp_path):
    """In a linked worktree (`git worktree add`) git hands hooks GIT_DIR, and a
    git that sees GIT_DIR takes the folder it runs in as the top of the work
    tree: the dates and the append-only diff must be read from the real top,
    not from the store folder below it."""
    log = "# 2026-01-01\n- 09:00 one\n- 10:00 two\n"
    write_files(repo, {"memory/MEMORY.md": "# Index\n- [A](a.md) — first\n", "memory/a.md": GOOD,
                       "memory/2026-01-01.md": log})
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "store")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    write_files(linked, {"memory/2026-01-01.md": log.replace("one", "uno")})
    git(linked, "add", ".")
    hook_env = {"GIT_DIR": str((repo / ".git" / "worktrees" / "linked").resolve())}
    result = cli("check", "--staged", "--format", "json", ".", cwd=linked / "memory", env=hook_env)
    assert [(f["path"], f["line"], f["code"]) for f in result.json()] == [("memory/2026-01-01.md", 2, "MEM405")]


@pytest.mark.parametrize("untracked", [["memory/2026-11-29.md", "memory/2026-11-30.md"], ["MOC-draft.md"]])
def test_untracked_files_do_not_choose_the_layout_of_a_staged_run(repo, cli, untracked):
    """Daily logs or a map of content left untracked on disk would make the
    store openclaw or moc, which want no frontmatter: the commit (a
    claude-code store, as a clone of it is) holds a memory without one."""
    write_files(repo, {"MEMORY.md": "# Index\n- [A](a.md) — first\n", "a.md": GOOD})
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    write_files(repo, {**{name: "# log\n" for name in untracked},
                       "c.md": NOFM, "MEMORY.md": "# Index\n- [A](a.md) — first\n- [C](c.md) — c\n"})
    git(repo, "add", "c.md", "MEMORY.md")
    assert ("c.md", 1, "MEM001") in codes(cli, "--staged", repo)
    git(repo, "commit", "-qm", "c")
    for name in untracked:
        os.unlink(repo / name)
    assert ("c.md", 1, "MEM001") in codes(cli, repo)  # what CI says of the commit


def test_a_root_left_out_of_the_commit_is_an_error_and_an_untracked_store_is_skipped(repo, cli):
    """Committing memories without their root makes a store CI cannot find;
    a store git holds nothing of (a scratch folder) is no part of the commit."""
    write_files(repo, {"README.txt": "hi\n"})
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD.replace("name: a", "name: b"),
                       "scratch/MEMORY.md": INDEX, "scratch/a.md": NOFM})
    git(repo, "add", "memory/a.md")
    result = cli("check", "--staged", repo)
    assert result.exit_code == 2
    assert "memory/MEMORY.md: the store's root is not in the commit" in result.stderr
    assert "add memory/MEMORY.md" in result.stderr
    git(repo, "add", "memory")
    assert codes(cli, "--staged", repo) == []  # scratch/, untracked, is not judged (its a.md has no frontmatter)
    assert ("scratch/a.md", 1, "MEM001") in codes(cli, repo)  # the working tree's run judges it


@pytest.mark.parametrize("author_date", ["@1780308000 +0000", "2026-06-01T10:00:00+00:00",
                                         "Mon, 01 Jun 2026 10:00:00 +0000"])
def test_the_commit_being_made_is_dated_by_the_author_date_git_gives_its_hooks(repo, cli, author_date):
    """A cherry-pick or an amend keeps the original author date, which git
    exports to the hook: a file the commit adds is created that day, as git
    will date it once committed, not the day the hook runs."""
    write_files(repo, {"MEMORY.md": "# Index\n- [A](a.md) — first\n", "a.md": GOOD})
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    write_files(repo, {"c.md": GOOD.replace("name: a", "name: c").replace("---\nBody", "created: 2026-06-01\n---\nBody"),
                       "MEMORY.md": "# Index\n- [A](a.md) — first\n- [C](c.md) — c\n"})
    git(repo, "add", ".")
    args = ("--staged", "--today", "2026-12-01", "--select", "MEM401", repo)
    assert codes(cli, *args, env={"GIT_AUTHOR_DATE": author_date}) == []
    assert codes(cli, *args) == [("c.md", 5, "MEM401")]  # no hook: the commit is made today
    write_files(repo, {".memlint.yaml": "date-source: committer\n"})
    git(repo, "add", ".memlint.yaml")
    assert codes(cli, *args, env={"GIT_AUTHOR_DATE": author_date}) == [("c.md", 5, "MEM401")]


def test_a_config_staged_but_deleted_on_disk_is_still_the_commits(repo, cli):
    """`rm .memlint.yaml` without `git rm`: the commit still holds it, and a
    staged run (a plain git hook, no pre-commit stash) is judged by it."""
    write_files(repo, {"MEMORY.md": "# Index\n- [A](a.md) — first\n", "a.md": NOFM,
                       ".memlint.yaml": "rules:\n  MEM001: off\n"})
    git(repo, "add", ".")
    os.unlink(repo / ".memlint.yaml")
    assert codes(cli, "--staged", "--select", "MEM001", repo) == []
    assert codes(cli, "--select", "MEM001", repo) == [("a.md", 1, "MEM001")]  # the work tree's run: no config


def test_an_ignored_root_or_a_store_of_only_readmes_is_not_the_commits(repo, cli):
    """A MEMORY.md git is told to ignore (a local, generated index) at the
    top of a repository whose README.md is committed: no store is committed."""
    write_files(repo, {".gitignore": "MEMORY.md\n", "README.md": "# Project\n", "MEMORY.md": "# Index\n- [A](a.md)\n"})
    git(repo, "add", ".gitignore", "README.md")
    result = cli("check", "--staged", repo)
    assert result.exit_code == 0 and "not in the commit" not in result.stderr
    os.unlink(repo / ".gitignore")
    git(repo, "rm", "-q", "--cached", ".gitignore")
    result = cli("check", "--staged", repo)  # README.md is no file of the store: nothing of it is committed
    assert result.exit_code == 0 and "not in the commit" not in result.stderr


def test_links_through_committed_symbolic_links_are_judged_as_without_staged(repo, cli):
    """A folder linked into the store (`memory/shared -> ../docs`) and a link
    out of the repository: the staged run follows them as the plain one does."""
    (repo / "memory").mkdir()
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text("x\n")
    (repo / "memory" / "shared").symlink_to("../docs")
    (repo / "memory" / "etc").symlink_to("/etc")
    (repo / "memory" / "MEMORY.md").write_text("# I\n- [g](shared/guide.md)\n- [p](etc/passwd)\n")
    git(repo, "add", "memory")  # docs/guide.md is not in the commit
    assert codes(cli, "--staged", "--select", "MEM2", repo / "memory") == [
        ("memory/MEMORY.md", 2, "MEM202"), ("memory/MEMORY.md", 3, "MEM203")]
    git(repo, "add", ".")
    plain = codes(cli, "--select", "MEM2", repo / "memory")
    assert plain == [("memory/MEMORY.md", 3, "MEM203")]
    assert codes(cli, "--staged", "--select", "MEM2", repo / "memory") == plain
    os.unlink(repo / "docs" / "guide.md")  # gone from disk, still in the index: the commit holds it
    assert codes(cli, "--staged", "--select", "MEM2", repo / "memory") == plain


def test_a_link_through_a_symbolic_link_to_a_folder_of_the_store_reaches_its_file(repo, cli):
    """`projects -> projects-2026` inside the store, and the root links
    `projects/roadmap.md`: the file the store reads as
    projects-2026/roadmap.md is reached, no orphan, plain and staged alike."""
    memory = repo / "memory"
    (memory / "projects-2026").mkdir(parents=True)
    (memory / "projects-2026" / "roadmap.md").write_text("---\nname: roadmap\ndescription: d\ntype: project\n---\nQ3.\n")
    (memory / "projects-2026" / "stray.md").write_text("---\nname: stray\ndescription: d\ntype: project\n---\nX.\n")
    (memory / "projects").symlink_to("projects-2026")
    (memory / "MEMORY.md").write_text("# I\n- [Roadmap](projects/roadmap.md) — Q3 plan\n")
    git(repo, "add", "memory")
    expected = [("memory/projects-2026/stray.md", 1, "MEM201")]  # listed nowhere: still an orphan
    assert codes(cli, "--select", "MEM2", memory) == expected
    assert codes(cli, "--staged", "--select", "MEM2", memory) == expected


def test_a_store_in_a_submodule_is_not_judged_at_a_commit_of_the_outer_repository(tmp_path, repo, cli, monkeypatch):
    """The commit of the outer repository holds a submodule as one commit id:
    a broken link in the submodule's store cannot be mended in it, and must
    not block it at a commit. A check of the disk (CI) still judges it."""
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    write_files(sub, {"MEMORY.md": "# Index\n- [X](x.md) — gone\n"})
    git(sub, "add", "-A")
    git(sub, "commit", "-q", "-m", "sub")
    write_files(repo, {"memory/MEMORY.md": "# Index\n- [A](a.md) — first\n", "memory/a.md": GOOD})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "outer")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/mem")
    git(repo, "commit", "-q", "-m", "submodule")
    write_files(repo, {"README.md": "# readme\n"})
    git(repo, "add", "README.md")
    monkeypatch.chdir(repo)
    on_disk = cli("check", "--format", "json", cwd=repo)
    assert [(f["path"], f["code"]) for f in on_disk.json()] == [("vendor/mem/MEMORY.md", "MEM202")]
    hook = {"PRE_COMMIT": "1", "GIT_INDEX_FILE": str(repo / ".git" / "index")}  # as git and pre-commit run it
    staged = cli("check", "--format", "json", cwd=repo, env=hook)
    assert staged.exit_code == 0 and staged.json() == [], staged.stderr
    assert "vendor/mem: a store in another repository (a submodule, or one nested in this one): not in this commit" \
        in staged.stderr
    # `--staged` by hand names no commit: what is named is judged, the submodule's store too
    by_hand = cli("check", "--format", "json", "--staged", cwd=repo)
    assert [(f["path"], f["code"]) for f in by_hand.json()] == [("vendor/mem/MEMORY.md", "MEM202")]


def test_a_link_to_a_file_on_disk_but_not_in_the_commit_says_it_is_on_disk(repo, cli):
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD})
    git(repo, "add", "-A")
    messages = lambda: [f["message"] for f in cli("check", "--format", "json", "--staged", cwd=repo).json()  # noqa: E731
                        if f["code"] == "MEM202"]
    assert messages() == ["link target `b.md` does not exist"]
    # b.md written, not staged (the cached findings of the run above are not taken for this one's)
    write_files(repo, {"memory/b.md": WRONG_TYPE})
    assert messages() == ["link target `b.md` is not in the commit: memory/b.md is on disk, but the commit does "
                          "not hold it (untracked, or left out of this commit)"]
    git(repo, "add", "memory/b.md")
    assert messages() == []
    git(repo, "rm", "-q", "--cached", "memory/b.md")  # and gone from the disk again: as it was
    (repo / "memory" / "b.md").unlink()
    assert messages() == ["link target `b.md` does not exist"]


def _sparse_repo(repo: Path, config: str | None = None) -> None:
    """A store in memory/ and a docs/ folder, committed, then a sparse
    checkout of docs/ alone: git's index holds the store, the work tree not."""
    files = {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": WRONG_TYPE, "docs/guide.md": "# Guide\n"}
    if config is not None:
        files[".memlint.yaml"] = config
    write_files(repo, files)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    git(repo, "sparse-checkout", "set", "docs")
    assert not (repo / "memory").exists()


@pytest.mark.parametrize("config", [None, "root: memory/MEMORY.md\n"])
def test_a_store_a_sparse_checkout_leaves_out_is_judged_from_the_index_at_a_commit(repo, cli, monkeypatch, config):
    """A sparse checkout without the store: the commit still holds it, so a
    staged run finds it in git's index and judges it there, as it would in
    a full checkout; a run on the work tree says where the store is."""
    _sparse_repo(repo, config)
    monkeypatch.chdir(repo)
    committing = {"PRE_COMMIT": "1", "GIT_INDEX_FILE": str(repo / ".git" / "index")}
    assert codes(cli, env=committing) == [("memory/b.md", 4, "MEM003")]
    git(repo, "rm", "-q", "--cached", "--sparse", "memory/a.md")  # a change to the store, made from here
    assert codes(cli, env=committing) == [("memory/MEMORY.md", 2, "MEM202"), ("memory/b.md", 4, "MEM003")]
    # the per-file hooks name only files of docs/: no store of theirs, nothing to judge
    assert codes(cli, "--scope", "file", "--", "docs/guide.md", env=committing) == []
    plain = cli("check")
    assert plain.exit_code == 2
    assert "the sparse checkout leaves" in plain.stderr and "(`git sparse-checkout add memory` brings it in" in plain.stderr
    assert "Traceback" not in plain.stderr
    backfill = cli("backfill", "--staged")
    assert backfill.exit_code == 2 and "memory: not in the work tree" in backfill.stderr


def test_a_sparse_checkouts_stores_are_those_of_the_index_and_of_the_work_tree(repo, cli, monkeypatch):
    """A store on disk that is not the commit's (an untracked .claude/memory),
    a second store checked out, a subfolder of the store kept on disk by
    non-cone patterns: none hides the store the index holds, and a file
    added with `git add --sparse` is judged in it by the per-file hooks."""
    _sparse_repo(repo)
    monkeypatch.chdir(repo)
    committing = {"PRE_COMMIT": "1", "GIT_INDEX_FILE": str(repo / ".git" / "index")}
    write_files(repo, {".claude/memory/MEMORY.md": "# mine\n"})  # untracked: not the commit's
    assert codes(cli, env=committing) == [("memory/b.md", 4, "MEM003")]
    write_files(repo, {"memory/c.md": NOFM})
    git(repo, "add", "--sparse", "memory/c.md")
    assert codes(cli, "--scope", "file", "--", "memory/c.md", env=committing) == [("memory/c.md", 1, "MEM001")]
    git(repo, "rm", "-q", "--cached", "--sparse", "memory/c.md")
    git(repo, "sparse-checkout", "disable")
    write_files(repo, {"memory/sub/MEMORY.md": "# Sub\n- [B](../b.md)\n"})
    git(repo, "add", "memory/sub")
    git(repo, "commit", "-qm", "a topic index of its own folder")
    git(repo, "sparse-checkout", "set", "--no-cone", "/docs/", "/memory/sub/")
    assert not (repo / "memory" / "MEMORY.md").exists() and (repo / "memory" / "sub" / "MEMORY.md").exists()
    # memory/ is the store, memory/sub/MEMORY.md a topic index in it (it links b.md): as in a full checkout
    assert codes(cli, env=committing) == [("memory/b.md", 4, "MEM003"), ("memory/sub/MEMORY.md", 1, "MEM201")]


def test_without_a_sparse_checkout_a_root_deleted_on_disk_is_no_store_as_before(repo, cli, monkeypatch):
    """Not a sparse checkout: a root deleted from the work tree is said to
    be missing, with no word of sparse checkouts, and a staged run does not
    look for stores in the index."""
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD})
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    (repo / "memory" / "MEMORY.md").unlink()
    monkeypatch.chdir(repo)
    for args in ((), ("--staged",)):
        result = cli("check", *args)
        assert result.exit_code == 2 and "no memory store found" in result.stderr and "sparse" not in result.stderr


def advised_command(stderr: str) -> str:
    """The git command a message tells the user to run (between backquotes)."""
    return stderr.split("`")[1]


def run_pasted(command: str, cwd: Path) -> None:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **GIT_ENV}
    subprocess.run(command, shell=True, cwd=cwd, env=env, check=True, capture_output=True)


def test_the_git_add_printed_for_a_root_left_out_works_pasted_in_a_subfolder(repo, cli, monkeypatch):
    """It named the root from the top of the repository, unquoted: from
    docs/, `git add my store/MEMORY.md` added nothing it meant."""
    write_files(repo, {"docs/guide.md": "# Guide\n"})
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    write_files(repo, {"my store/MEMORY.md": INDEX, "my store/a.md": GOOD,
                       "my store/b.md": GOOD.replace("name: a", "name: b")})
    git(repo, "add", "my store/a.md", "my store/b.md")
    monkeypatch.chdir(repo / "docs")
    result = cli("check", "--staged", "..")
    assert result.exit_code == 2
    assert "`git add '../my store/MEMORY.md'`" in result.stderr
    run_pasted(advised_command(result.stderr), repo / "docs")
    assert codes(cli, "--staged", "..") == []


@pytest.mark.parametrize("config", [None, "root: memory/MEMORY.md\n"])
def test_the_sparse_checkout_add_printed_works_pasted_in_a_subfolder(repo, cli, monkeypatch, config):
    """`git sparse-checkout add memory` run in docs/ is refused in a
    non-cone sparse checkout and adds docs/memory in a cone one: git is
    sent to the top of the repository."""
    _sparse_repo(repo, config)
    monkeypatch.chdir(repo / "docs")
    result = cli("check", "..")
    assert result.exit_code == 2
    assert "`git -C .. sparse-checkout add memory`" in result.stderr
    if config is None:  # (with a configured root, the config's own error, which names no path)
        assert "`memlint check --staged ..` judges it as committed" in result.stderr
    run_pasted(advised_command(result.stderr), repo / "docs")
    assert codes(cli, "..") == [("memory/b.md", 4, "MEM003")]


def test_a_staged_run_still_finds_no_store_where_the_index_has_none_either(repo, cli, monkeypatch):
    """The index is looked in only for a store the work tree lacks: a
    misspelt root, or a repository without a store, is still an error."""
    _sparse_repo(repo, "root: memroy/MEMORY.md\n")
    monkeypatch.chdir(repo)
    result = cli("check", "--staged")
    assert result.exit_code == 2
    assert "root 'memroy/MEMORY.md' does not exist" in result.stderr
    git(repo, "rm", "-q", "--cached", "--sparse", "-r", "memory", ".memlint.yaml")
    result = cli("check", "--staged")
    assert result.exit_code == 2
    assert "no memory store found" in result.stderr


def test_a_sparse_checkouts_store_keeps_its_own_config_and_its_root_over_an_index_md_above(repo, cli, monkeypatch):
    """The store left out of the work tree is found as in a full checkout:
    not taken for a topic of an INDEX.md at the top, judged by its own
    .memlint.yaml, and named as a folder by the hook's `args`."""
    write_files(repo, {"INDEX.md": "# Project index\n", "memory/.memlint.yaml": "preset: claude-code\nrules:\n"
                       "  root-budget: {max-lines: 2}\n"})
    _sparse_repo(repo)
    monkeypatch.chdir(repo)
    committing = {"PRE_COMMIT": "1", "GIT_INDEX_FILE": str(repo / ".git" / "index")}
    full = [("memory/MEMORY.md", 3, "MEM101"), ("memory/b.md", 4, "MEM003")]
    assert codes(cli, env=committing) == full
    assert codes(cli, "memory", env=committing) == full
    assert cli("check", "memory").exit_code == 2  # not staged: no such folder on disk
    git(repo, "sparse-checkout", "disable")
    assert codes(cli, env=committing) == full


def test_a_file_skipped_by_hand_is_no_sparse_checkout_and_a_linked_path_finds_the_store(repo, cli, monkeypatch, tmp_path):
    """`git update-index --skip-worktree` without a sparse checkout: the old
    message, no sparse-checkout advice that git would refuse; in a sparse
    checkout, a file named through a link to the repository is in its store."""
    write_files(repo, {"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "memory/b.md": GOOD})
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    git(repo, "update-index", "--skip-worktree", "memory/MEMORY.md", "memory/a.md", "memory/b.md")
    for name in ("MEMORY.md", "a.md", "b.md"):
        (repo / "memory" / name).unlink()
    monkeypatch.chdir(repo)
    result = cli("check")
    assert result.exit_code == 2 and "no memory store found" in result.stderr and "sparse" not in result.stderr
    git(repo, "update-index", "--no-skip-worktree", "memory/MEMORY.md", "memory/a.md", "memory/b.md")
    git(repo, "checkout", "--", "memory")
    git(repo, "sparse-checkout", "set", "docs")
    (repo / "memory").mkdir()
    write_files(repo, {"memory/c.md": NOFM})
    git(repo, "add", "--sparse", "memory/c.md")
    (tmp_path / "link").symlink_to(repo)
    committing = {"PRE_COMMIT": "1", "GIT_INDEX_FILE": str(repo / ".git" / "index")}
    assert codes(cli, "--scope", "file", "--", tmp_path / "link" / "memory" / "c.md", env=committing) == [
        ("memory/c.md", 1, "MEM001")]
    backfill = cli("backfill", "--staged", "--dry-run", "memory")  # memory/ is on disk, a.md and b.md are not
    assert "memory/a.md: not in the work tree (deleted there, or left out by a sparse checkout): not dated" \
        in backfill.stderr

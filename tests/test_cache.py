"""memlint's cache (memlint.cache): whatever state it is in, `check` reports
exactly what `check --no-cache` reports.

Every test builds a real repository, runs `check` to fill the cache, changes
something (the store, the cache files, the history), then compares with a
run that does not use the cache.
"""
from __future__ import annotations

import functools
import gc
import json
import os
import shutil
from datetime import datetime
import subprocess
import time
import sys
from pathlib import Path

import pytest

from memlint import cache as cache_mod
from memlint import rules as rules_mod
from memlint.history import load_history
from tests.gitrepo import GitRepo

REPO_ROOT = Path(__file__).resolve().parent.parent
TODAY = "2025-03-01"
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def memory(name: str, *, verified: str = "2025-01-10", extra: str = "") -> str:
    """15 body lines of their own (not near-duplicates of each other), then ``extra`` on line 23."""
    body = "".join(f"{name} {WORDS[(i * len(name) + ord(name[0])) % 16]} {WORDS[(i * 7 + ord(name[-1])) % 16]} {i}\n"
                   for i in range(1, 16))
    return (f"---\nname: {name}\ndescription: what {name} says\ntype: project\ncreated: 2025-01-02\n"
            f"last_verified: {verified}\n---\n{body}{extra}")


@pytest.fixture
def repo(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", "# Memory\n\n- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n")
    for name in "abc":
        repo.write(f"memory/{name}.md", memory(name))
    repo.write("memory/d.md", memory("d"))  # an orphan
    repo.commit("start", "2025-01-02T10:00:00+00:00")
    repo.write("memory/a.md", memory("a", extra="Later: [gone](missing.md).\n"))
    repo.commit("edit a", "2025-02-01T10:00:00+00:00")
    return repo


def state_files(repo: GitRepo) -> list[Path]:
    return sorted((repo.root / ".git" / "memlint").rglob("*.pickle"))


@pytest.fixture
def check(cli):
    def run(repo: GitRepo, *extra):
        result = cli("check", "--format", "json", "--today", TODAY, *extra, repo.root / "memory")
        assert result.exit_code in (0, 1), result.output + result.stderr
        return sorted((f["path"], f["line"], f["code"], f["message"]) for f in result.json())

    return run


def same_as_without_cache(check, repo) -> list:
    with_cache = check(repo)
    assert with_cache == check(repo, "--no-cache")
    return with_cache


def test_cold_warm_and_no_cache_agree_and_no_cache_writes_nothing(check, repo):
    found = check(repo, "--no-cache")
    assert not state_files(repo)  # --no-cache neither reads nor writes
    assert {code for _, _, code, _ in found} >= {"MEM201", "MEM202"}
    assert check(repo) == found  # cold: fills the cache
    assert state_files(repo)
    assert check(repo) == found  # warm: from the cache


def test_edits_new_files_and_deletions_are_seen(check, repo):
    check(repo)
    repo.write("memory/b.md", memory("b", extra="See [nothing](nowhere.md).\n"), add=False)  # unstaged
    (repo.root / "memory" / "e.md").write_text(memory("e"), encoding="utf-8")  # untracked
    os.remove(repo.root / "memory" / "d.md")
    found = same_as_without_cache(check, repo)
    paths = {p for p, _, _, _ in found}
    assert "memory/e.md" in paths and "memory/d.md" not in paths
    assert ("memory/b.md", 23, "MEM202") in {(p, line, code) for p, line, code, _ in found}


def test_a_file_s_role_follows_the_globs_of_each_run(check, repo):
    """Roles by path are kept from run to run: a file named like a daily log
    is no orphan, until the configuration says there are no daily logs, and
    a renamed file takes the role of its new name (a memory's frontmatter
    keeps a memory one under a dated name: it is a decision record, say)."""
    repo.write("memory/2025-01-05.md", "# Jan 5\nWorked on a.\n")
    repo.commit("a daily log", "2025-01-05T10:00:00+00:00")
    orphans = lambda: [p for p, _, code, _ in check(repo) if code == "MEM201"]  # noqa: E731
    assert orphans() == ["memory/d.md"]
    (repo.root / "memory" / ".memlint.yaml").write_text("daily-logs: []\n", encoding="utf-8")
    assert orphans() == ["memory/2025-01-05.md", "memory/d.md"]
    os.remove(repo.root / "memory" / ".memlint.yaml")
    assert orphans() == ["memory/d.md"]
    os.rename(repo.root / "memory" / "d.md", repo.root / "memory" / "2025-01-06.md")
    assert orphans() == ["memory/2025-01-06.md"]
    (repo.root / "memory" / "2025-01-06.md").write_text("# Jan 6\nWorked on d.\n", encoding="utf-8")
    assert orphans() == []
    os.rename(repo.root / "memory" / "2025-01-06.md", repo.root / "memory" / "d.md")
    assert orphans() == ["memory/d.md"]
    assert check(repo) == check(repo, "--no-cache")


@pytest.mark.parametrize("flag", ["--assume-unchanged", "--skip-worktree"])
def test_a_file_git_is_told_not_to_look_at_is_read_from_the_disk(check, repo, flag):
    """git takes such a file as unchanged whatever the disk holds (so its
    index blob id says nothing of it): memlint judges what is on disk."""
    check(repo)
    repo.run("update-index", flag, "memory/b.md")
    repo.write("memory/b.md", "---\nname: [b\n---\nbroken\n", add=False)
    found = same_as_without_cache(check, repo)
    assert ("memory/b.md", 3, "MEM002") in {(p, line, code) for p, line, code, _ in found}
    repo.write("memory/b.md", memory("b"), add=False)  # as committed again, and the flag cleared
    repo.run("update-index", flag.replace("--", "--no-"), "memory/b.md")
    assert not any(p == "memory/b.md" and code == "MEM002" for p, _, code, _ in same_as_without_cache(check, repo))


@pytest.mark.parametrize("setting", ["config", "config, spelt yes", "attributes", "text=auto"])
@pytest.mark.parametrize("staged_first", [True, False])
def test_a_file_git_converts_is_judged_as_it_is_on_disk(check, repo, setting, staged_first):
    """With core.autocrlf (or an eol attribute) the disk holds CRLF where the
    index holds LF, and git reports no change: a plain run counts the disk's
    bytes, a staged run the index's, whichever of them ran first. With
    ``* text=auto``, the same for a file an editor saved with CRLF and that
    was added so (git stores it with LF)."""
    root = "# Memory\n\n" + "".join(f"- [B{i}](b.md) — b, {i}\n" for i in range(250))
    repo.write("memory/MEMORY.md", root)
    repo.commit("a long root", "2025-02-02T10:00:00+00:00")
    if setting == "text=auto":
        repo.write(".gitattributes", "* text=auto\n")
        repo.write("memory/MEMORY.md", root.replace("\n", "\r\n"))
        repo.commit("attributes, and the root saved with CRLF", "2025-02-03T10:00:00+00:00")
        assert b"\r" not in repo.run("show", "HEAD:memory/MEMORY.md").encode()  # stored with LF
    elif setting.startswith("config"):
        repo.run("config", "core.autocrlf", "yes" if "yes" in setting else "true")
    else:
        repo.write(".gitattributes", "*.md text eol=crlf\n")
        repo.commit("attributes", "2025-02-03T10:00:00+00:00")
    if setting != "text=auto":
        os.remove(repo.root / "memory" / "MEMORY.md")
        # written again, converted (repo.run itself turns autocrlf off)
        subprocess.run(["git", "checkout", "--", "memory/MEMORY.md"], cwd=repo.root, env=repo.env, check=True)
    assert b"\r\n" in (repo.root / "memory" / "MEMORY.md").read_bytes()
    git_sees = subprocess.run(["git", "diff-files", "--name-only"], cwd=repo.root, env=repo.env,
                              capture_output=True, text=True, check=True).stdout
    assert not git_sees.strip()  # git sees no change

    def budget(*extra):
        return [message for _, _, code, message in check(repo, *extra) if code == "MEM101"]

    runs = [("--staged",), ()] if staged_first else [(), ("--staged",)]
    first, second = (budget(*extra) for extra in runs)
    assert first == budget(*runs[0], "--no-cache") and second == budget(*runs[1], "--no-cache")
    plain, staged = (second, first) if staged_first else (first, second)
    assert plain != staged and "bytes" in plain[0]  # the disk's count is the index's plus a CR a line


def test_a_filter_named_in_an_untracked_attributes_file_in_the_store_is_seen(check, repo):
    """git applies a .gitattributes it does not track: a filter named there
    (here, beside a repository-wide ``* text=auto``) may give the disk other
    bytes of the same length than the index holds, and git sees no change."""
    repo.write(".gitattributes", "* text=auto\n")
    repo.write("memory/a.md", memory("a", extra="See [b](b.md).\n"))
    repo.commit("attributes", "2025-02-02T10:00:00+00:00")
    repo.run("config", "filter.swap.smudge", "sed s/b.md/q.md/")
    repo.run("config", "filter.swap.clean", "sed s/q.md/b.md/")
    (repo.root / "memory" / ".gitattributes").write_text("a.md filter=swap\n")  # untracked
    check(repo)  # a first run fills the cache
    os.remove(repo.root / "memory" / "a.md")
    subprocess.run(["git", "checkout", "--", "memory/a.md"], cwd=repo.root, env=repo.env, check=True)
    assert "[b](q.md)" in (repo.root / "memory" / "a.md").read_text()
    found = same_as_without_cache(check, repo)
    assert any(p == "memory/a.md" and code == "MEM202" and "q.md" in message for p, _, code, message in found)


def dotfiles(tmp_path):
    """(a GitRepo of the work tree, the work tree, the environment) of a bare
    "dotfiles" repository: GIT_DIR and GIT_WORK_TREE, no .git folder."""
    bare = GitRepo(tmp_path / "dotfiles.git", init=False)
    bare.run("init", "-q", "--bare")
    home = tmp_path / "home"
    env = {"GIT_DIR": str(tmp_path / "dotfiles.git"), "GIT_WORK_TREE": str(home)}
    work = GitRepo(home, init=False)
    work.env.update(env)
    return work, home, env


def test_a_store_in_a_bare_dotfiles_repository_sees_each_new_commit(cli, tmp_path, monkeypatch):
    """GIT_DIR and GIT_WORK_TREE name a bare repository (dotfiles kept so):
    no .git folder is above the store, and git still dates its files. A
    commit of an edit already on disk changes no file's content, but it
    changes the dates the git rules judge: the cached findings are not reused."""
    work, home, env = dotfiles(tmp_path)
    work.write(".claude/memory/MEMORY.md", "# Memory\n\n- [A](a.md) — a\n")
    work.write(".claude/memory/a.md", memory("a", verified="2025-01-10"))
    work.commit("start", "2025-01-02T10:00:00+00:00")
    work.write(".claude/memory/a.md", memory("a", verified="2025-01-10", extra="Later.\n"), add=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    def mem404(*extra):
        result = cli("check", "--format", "json", "--today", TODAY, "--select", "MEM404", *extra, home / ".claude" / "memory")
        return [(f["path"], f["message"][:23]) for f in result.json()]

    assert mem404() == []  # the edit is not committed: no change after last_verified in git
    work.run("commit", "-q", "-a", "-m", "edit", env={"GIT_AUTHOR_DATE": "2025-02-01T10:00:00+00:00",
                                                       "GIT_COMMITTER_DATE": "2025-02-01T10:00:00+00:00"})
    assert mem404() == mem404("--no-cache") == [("a.md", "changed on 2025-02-01 (")]


def test_a_staged_run_in_a_bare_dotfiles_repository_reads_the_index(cli, tmp_path, monkeypatch):
    """A pre-commit hook there has GIT_DIR and no .git folder: the staged
    run lists the index from the store's folder, names its files from there,
    and finds what the store links to in it."""
    work, home, env = dotfiles(tmp_path)
    work.write(".claude/memory/MEMORY.md", "# Memory\n\n- [A](a.md) — a\n- ![chart](img/p.png)\n")
    work.write(".claude/memory/img/p.png", "png\n")
    work.write(".claude/memory/a.md", memory("a", verified="2025-01-10"))
    work.commit("start", "2025-01-02T10:00:00+00:00")
    work.write(".claude/memory/a.md", "---\nname: a\n---\nno description now\n")  # staged
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = cli("check", "--staged", "--format", "json", "--today", TODAY, home / ".claude" / "memory")
    assert result.exit_code == 1, result.stderr
    assert {(f["path"], f["code"]) for f in result.json()} == {("a.md", "MEM003")}


@pytest.mark.parametrize("where", ["home", "store"])
def test_a_relative_git_dir_and_work_tree_are_read_from_where_memlint_runs(cli, tmp_path, monkeypatch, where):
    """A dotfiles setup with relative GIT_DIR / GIT_WORK_TREE, as git itself
    reads them from the shell's folder: the git rules still see the history."""
    bare = GitRepo(tmp_path / "dotfiles.git", init=False)
    bare.run("init", "-q", "--bare")
    home = tmp_path / "home"
    work = GitRepo(home, init=False)
    work.env.update({"GIT_DIR": str(tmp_path / "dotfiles.git"), "GIT_WORK_TREE": str(home)})
    work.write("mem/MEMORY.md", "# Memory\n\n- [A](a.md) — a\n")
    work.write("mem/a.md", memory("a", verified="2025-01-10"))
    work.commit("start", "2025-01-02T10:00:00+00:00")
    work.write("mem/a.md", memory("a", verified="2025-01-10", extra="Later.\n"))
    work.commit("edit", "2025-02-01T10:00:00+00:00")
    cwd = home if where == "home" else home / "mem"
    monkeypatch.setenv("GIT_DIR", os.path.relpath(tmp_path / "dotfiles.git", cwd))
    monkeypatch.setenv("GIT_WORK_TREE", os.path.relpath(home, cwd))
    result = cli("check", "--format", "json", "--today", TODAY, "--select", "MEM404", "--no-cache",
                 home / "mem", cwd=cwd)
    assert [f["message"][:23] for f in result.json()] == ["changed on 2025-02-01 ("]


def test_a_file_the_graph_looked_up_outside_the_store_is_rechecked(check, repo):
    repo.write("memory/c.md", memory("c", extra="Source: [notes](../docs/notes.txt).\n"))
    repo.commit("link out", "2025-02-02T10:00:00+00:00")
    before = check(repo)
    assert any(code == "MEM202" and p == "memory/c.md" for p, _, code, _ in before)
    (repo.root / "docs").mkdir()
    (repo.root / "docs" / "notes.txt").write_text("now it exists\n", encoding="utf-8")
    after = same_as_without_cache(check, repo)
    assert not any(code == "MEM202" and p == "memory/c.md" for p, _, code, _ in after)


@pytest.mark.parametrize("ref", ["old-c", ".archive/old-c.md"])
def test_a_memory_archived_out_of_sight_between_two_runs_is_seen(check, repo, ref):
    """MEM503 looks beyond the store's files for what a reference names (a
    hidden .archive/): a file put there, not committed, changes the findings."""
    repo.write("memory/c.md", memory("c").replace("type: project\n", f"type: project\nsupersedes: {ref}\n"))
    repo.commit("supersede", "2025-02-02T10:00:00+00:00")
    before = check(repo)
    assert any(code == "MEM503" and p == "memory/c.md" for p, _, code, _ in before)
    (repo.root / "memory" / ".archive").mkdir()
    (repo.root / "memory" / ".archive" / "old-c.md").write_text(memory("old-c"), encoding="utf-8")
    after = same_as_without_cache(check, repo)
    assert not any(code == "MEM503" for _, _, code, _ in after)
    (repo.root / "memory" / ".archive" / "old-c.md").unlink()
    assert check(repo) == before
    if ref == "old-c":  # a nested repository is not looked into: its .git gone, it is
        (repo.root / "memory" / ".archive" / "old-c.md").write_text(memory("old-c"), encoding="utf-8")
        subprocess.run(["git", "init", "-q", str(repo.root / "memory" / ".archive")], check=True)
        time.sleep(2.1)  # out of the window where a folder's time is not trusted
        assert check(repo) == before == check(repo, "--no-cache")
        shutil.rmtree(repo.root / "memory" / ".archive" / ".git")
        assert same_as_without_cache(check, repo) != before


def test_a_pasted_secret_never_reaches_the_cache(check, repo):
    """The cache keeps parses (the text): not of a file holding a secret,
    which would stay there after the user removed it."""
    token = "xoxb-2938475610-9283746501928-Zq8Rk2LmWv7Tn3Bx5Hy9Pc4D"
    repo.write("memory/b.md", memory("b", extra=f"slack {token}\n"), add=False)  # never staged
    first = check(repo)
    assert any(code == "MEM601" and p == "memory/b.md" for p, _, code, _ in first)
    assert state_files(repo) and not any(token.encode() in f.read_bytes() for f in state_files(repo))
    assert same_as_without_cache(check, repo) == first  # still found, from the kept scan or a new one
    assert not any(token.encode() in f.read_bytes() for f in state_files(repo))


@pytest.mark.parametrize("run", [("--select", "MEM101"), ("--ignore", "MEM601"), ("--scope", "store")])
def test_a_secret_stays_out_of_the_cache_when_mem601_does_not_run(check, cli, repo, run):
    token = "xoxb-2938475610-9283746501928-Zq8Rk2LmWv7Tn3Bx5Hy9Pc4D"
    repo.write("memory/b.md", memory("b", extra=f"slack {token}\n"), add=False)
    check(repo, *run)
    assert state_files(repo) and not any(token.encode() in f.read_bytes() for f in state_files(repo))
    assert cli("health", "--today", TODAY, repo.root / "memory").exit_code == 0
    assert not any(token.encode() in f.read_bytes() for f in state_files(repo) if f.suffix == ".pickle")
    assert any(code == "MEM601" for _, _, code, _ in check(repo))  # and MEM601 still finds it


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "flip"])
def test_a_damaged_cache_file_is_not_trusted(check, repo, damage):
    expected = check(repo, "--no-cache")
    check(repo)
    for path in state_files(repo):
        data = path.read_bytes()
        if damage == "truncate":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "garbage":
            path.write_bytes(b"\x80\x04not a pickle at all" * 10)
        elif damage == "empty":
            path.write_bytes(b"")
        else:  # one byte of the payload changed: the header still parses, the CRC does not match
            path.write_bytes(data[:-5] + bytes([data[-5] ^ 0x55]) + data[-4:])
    assert check(repo) == expected
    assert check(repo) == expected  # and rebuilt


def _program(repo: GitRepo, *extra, **popen) -> subprocess.Popen:
    """``python -m memlint check`` on the store: the program, which writes
    its cache after its report (``popen``: Popen's options, say other streams)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MEMLINT_NO_CACHE", "PRE_COMMIT")}
    env["PYTHONPATH"] = str(REPO_ROOT)
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **popen}
    return subprocess.Popen([sys.executable, "-m", "memlint", "check", "--format", "json", "--today", TODAY,
                             *extra, str(repo.root / "memory")], env=env, cwd=repo.root, **streams)


def _findings_of(output: bytes) -> list:
    return sorted((f["path"], f["line"], f["code"], f["message"]) for f in json.loads(output))


def test_a_fifo_in_the_cache_folder_does_not_hang_the_run(check, repo):
    # open() of a FIFO waits for a writer: the run (and a commit's hook) hung forever.
    expected = check(repo, "--no-cache")
    check(repo)
    lock = state_files(repo)[0].parent / "lock"  # the writer's lock (memlint.deferred) too
    assert lock.exists()
    for path in [*state_files(repo), lock]:
        path.unlink()
        os.mkfifo(path)
    for _ in range(2):  # the second run after the first one's writer
        assert _findings_of(_program(repo).communicate(timeout=60)[0]) == expected


def test_a_link_planted_as_the_cache_lock_is_not_followed(check, repo, tmp_path):
    expected = check(repo, "--no-cache")
    check(repo)
    lock = state_files(repo)[0].parent / "lock"
    lock.unlink()
    elsewhere = tmp_path / "elsewhere"
    lock.symlink_to(elsewhere)
    for _ in range(2):
        assert _findings_of(_program(repo).communicate(timeout=60)[0]) == expected
    assert not elsewhere.exists()


def test_findings_of_a_run_a_commit_landed_in_are_not_kept(check, repo, tmp_path):
    # A commit made while a check ran (after it read HEAD, before the history): its findings were kept
    # under the HEAD the run began with, and served once that commit was undone.
    import json
    import shutil as shutil_mod

    real_git = shutil_mod.which("git")
    flag = tmp_path / "race.flag"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(f"""#!/bin/sh
case "$*" in *--show-toplevel*) if [ -f {flag} ]; then rm -f {flag}
  GIT_AUTHOR_DATE=2025-02-20T00:00:00+00:00 GIT_COMMITTER_DATE=2025-02-20T00:00:00+00:00 {real_git} commit -qm race --no-verify >/dev/null 2>&1; fi;; esac
exec {real_git} "$@"
""")
    wrapper.chmod(0o755)
    repo.write("memory/b.md", memory("b", extra="A change.\n"))  # staged: the racing commit takes it
    flag.touch()
    env = dict(os.environ, PATH=f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    argv = [sys.executable, "-m", "memlint", "check", "--format", "json", "--today", TODAY, str(repo.root / "memory")]
    raced = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=repo.root, timeout=120)
    assert not flag.exists() and "MEM404" in raced.stdout  # the commit landed during that run, and it judged it
    repo.run("reset", "-q", "--soft", "HEAD~1")  # HEAD and the index as that run began

    def run(*extra):
        done = subprocess.run([*argv, *extra], capture_output=True, text=True, env=repo.env, cwd=repo.root, timeout=120)
        return sorted((f["path"], f["line"], f["code"]) for f in json.loads(done.stdout))

    assert run() == run("--no-cache") and ("memory/b.md", 6, "MEM404") not in run()


def test_a_cache_written_by_another_version_is_not_used(check, repo, monkeypatch):
    expected = check(repo, "--no-cache")
    monkeypatch.setattr(cache_mod, "code_version", lambda: "another-version")
    # Written by "another version": findings that are not this store's.
    check(repo)
    for path in state_files(repo):
        if path.name.startswith("findings-"):
            value = cache_mod._read(path)
            cache_mod._write(path, (type(value[0])([], [], 0), value[1]))
    monkeypatch.undo()
    assert check(repo) == expected


def test_a_history_replay_kept_by_another_version_is_replaced(check, repo, monkeypatch):
    """After an upgrade the replay at HEAD is written anew, so the next commit
    resumes from it instead of replaying everything again."""
    from memlint.history import History

    monkeypatch.setattr(cache_mod, "code_version", lambda: "another-version")
    check(repo)
    monkeypatch.undo()
    kept = [p for p in state_files(repo) if p.name.startswith("history-")]
    assert kept and all(cache_mod._read(p) is cache_mod.MISSING for p in kept)  # foreign to this version
    check(repo)
    head = repo.run("rev-parse", "HEAD").strip()
    [at_head] = [p for p in state_files(repo) if p.name.startswith("history-") and head in p.name]
    assert isinstance(cache_mod._read(at_head), History)


def test_cached_values_are_checked_against_their_header(tmp_path):
    path = tmp_path / "x.pickle"
    cache_mod._write(path, {"a": 1})
    assert cache_mod._read(path) == {"a": 1}
    header, _, payload = path.read_bytes().partition(b"\n")
    for bad in (header.replace(cache_mod.MAGIC, b"other-magic"),
                header.replace(f" {cache_mod.FORMAT} ".encode(), b" 999 ", 1),
                header.replace(cache_mod.code_version().encode(), b"0" * 24)):
        path.write_bytes(bad + b"\n" + payload)
        assert cache_mod._read(path) is cache_mod.MISSING


def test_two_runs_at_once_both_right_and_the_cache_stays_usable(repo):
    def run(*extra):
        return _program(repo, *extra, stderr=None)

    expected = run("--no-cache").communicate()[0]
    for _ in range(3):
        procs = [run() for _ in range(4)]
        outputs = [p.communicate()[0] for p in procs]
        assert all(out == expected for out in outputs)
        repo.write("memory/b.md", memory("b", extra=f"Run {_}: [x](x{_}.md).\n"), add=False)
        expected = run("--no-cache").communicate()[0]
    assert run().communicate()[0] == expected


def _hold_lock(folder: Path):
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    fh = open(folder / "lock", "wb")
    fcntl.flock(fh, fcntl.LOCK_EX)
    return fh


def test_the_program_ends_before_its_cache_is_written_and_the_next_run_waits_for_it(check, repo):
    from memlint.statedir import state_dir

    expected = check(repo, "--no-cache")
    folder = state_dir(repo.root, repo.root / "memory")
    held = _hold_lock(folder)  # as an earlier run's writer would: this run's writer must wait for it
    try:
        proc = _program(repo)
        out, err = proc.communicate(timeout=120)  # the report, and the end of the output, come at once
        assert proc.returncode == 1, err
        assert not state_files(repo), "the cache was written before the writer could take the lock"
    finally:
        held.close()
    assert _findings_of(out) == expected
    # The next run waits for the writer, then reuses what it wrote.
    proc = _program(repo)
    again, err = proc.communicate(timeout=120)
    assert again == out, err
    names = [p.name for p in state_files(repo)]
    assert any(n.startswith("blobs-") for n in names) and any(n.startswith("findings-") for n in names)


def test_the_cache_writer_keeps_no_descriptor_it_inherited(check, repo):
    """A wrapper that hands the program a pipe of its own (a job server, a
    CI runner) sees the pipe end when the program ends, not when its cache
    is written."""
    import select

    from memlint.statedir import state_dir

    folder = state_dir(repo.root, repo.root / "memory")
    read_end, write_end = os.pipe()
    held = _hold_lock(folder)  # the writer waits for it, the pipe in hand if it kept it
    try:
        proc = _program(repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write_end,))
        os.close(write_end)
        assert proc.wait(timeout=120) == 1
        ready, _, _ = select.select([read_end], [], [], 5)
        assert ready and os.read(read_end, 1) == b"", "the pipe is still held open after the program ended"
        assert not state_files(repo)  # the writer still waits for the lock
    finally:
        held.close()
        os.close(read_end)


def test_two_caches_of_one_folder_are_written_by_one_writer_holding_one_lock(tmp_path, monkeypatch):
    """Two writes left for one folder: the detached writer takes its lock
    once (a second lock of the same file, by the same process, would wait
    on the first until it gave up)."""
    import time as time_mod

    from memlint import deferred

    monkeypatch.setattr(deferred, "WRITER_WAIT", 30.0)
    folder = tmp_path / "cache"
    folder.mkdir()

    def write(name):
        return lambda: (folder / name).write_text(str(os.getpid()))

    deferred.defer()
    owners = [object(), object()]
    assert deferred.leave(owners[0], folder, write("first"))
    assert deferred.leave(owners[1], folder, write("second"))
    start = time_mod.monotonic()
    deferred.write_left()
    deferred.wait_for_writer(folder)
    assert time_mod.monotonic() - start < 15, "the writer waited on its own lock"
    assert (folder / "first").read_text() == (folder / "second").read_text() != str(os.getpid())
    assert not deferred.leave(object(), folder, write("third"))  # write_left ends the deferring


def test_a_run_waits_while_a_writer_holds_the_cache(check, repo):
    from memlint.statedir import state_dir

    check(repo)  # an in-process run writes its cache at once
    assert state_files(repo)
    held = _hold_lock(state_dir(repo.root, repo.root / "memory"))
    try:
        proc = _program(repo)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.communicate(timeout=3)  # it has not read the cache, and so not reported, yet
    finally:
        held.close()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert _findings_of(out) == check(repo, "--no-cache")


def test_changed_since_verified_builds_on_the_last_run_and_agrees_with_a_full_one(check, repo, monkeypatch):
    """MEM404 walks the history only for the paths the last run's answers
    (kept at its HEAD) cannot give: new ones, new dates, files added or moved
    in the new commits; all of them after a rewrite or a merge."""
    from memlint import gitdates

    walked: list[list[str]] = []
    real = gitdates.GitDates._walk_committed

    def spy(self, wanted, *args):
        walked.append(sorted(wanted))
        return real(self, wanted, *args)

    monkeypatch.setattr(gitdates.GitDates, "_walk_committed", spy)

    def step(expect_walked, *extra):
        walked.clear()
        found = check(repo, *extra)
        assert walked == expect_walked
        assert found == check(repo, *extra, "--no-cache")
        return {(path, code) for path, _, code, _ in found if code == "MEM404"}

    assert step([["memory/a.md"]]) == {("memory/a.md", "MEM404")}  # a.md edited 2025-02-01, verified 2025-01-10
    repo.write("memory/b.md", memory("b", extra="A new fact.\n"))
    repo.commit("edit b", "2025-02-10T10:00:00+00:00")  # b's change is the new commit's
    assert step([]) == {("memory/a.md", "MEM404"), ("memory/b.md", "MEM404")}
    repo.write("memory/c.md", memory("c").replace("created: 2025-01-02", "created: 2025-01-03"))
    repo.commit("a date of c", "2025-02-15T10:00:00+00:00")  # only a date: no change of what it says
    assert step([["memory/c.md"]]) == {("memory/a.md", "MEM404"), ("memory/b.md", "MEM404")}
    repo.write("memory/b.md", memory("b", extra="A newer fact.\n"))
    repo.write("memory/c.md", memory("c", extra="At last a fact.\n").replace("created: 2025-01-02", "created: 2025-01-03"))
    repo.commit("edit b and c", "2025-02-16T10:00:00+00:00")  # both answered by the new commit
    assert step([]) == {("memory/a.md", "MEM404"), ("memory/b.md", "MEM404"), ("memory/c.md", "MEM404")}
    repo.write("memory/a.md", memory("a", verified="2025-02-20", extra="Later: [gone](missing.md).\n"))
    repo.commit("verify a", "2025-02-20T10:00:00+00:00")
    assert step([]) == {("memory/b.md", "MEM404"), ("memory/c.md", "MEM404")}
    repo.mv("memory/b.md", "memory/b2.md")
    repo.commit("move b", "2025-02-21T10:00:00+00:00")  # its edits before the move still count
    assert step([["memory/b2.md"]]) == {("memory/b2.md", "MEM404"), ("memory/c.md", "MEM404")}
    repo.run("commit", "-q", "--amend", "--no-verify", "-m", "move b, reworded",
             env={"GIT_AUTHOR_DATE": "2025-02-22T10:00:00+00:00", "GIT_COMMITTER_DATE": "2025-02-22T10:00:00+00:00"})
    assert step([["memory/b2.md", "memory/c.md"]]) == {("memory/b2.md", "MEM404"), ("memory/c.md", "MEM404")}
    repo.checkout("side", new=True)
    repo.write("memory/d.md", memory("d", extra="Side fact.\n"))
    repo.commit("edit d on a branch", "2025-02-23T10:00:00+00:00")
    repo.checkout("main")
    repo.merge("side", date="2025-02-24T10:00:00+00:00")
    assert step([["memory/b2.md", "memory/c.md", "memory/d.md"]]) == {
        ("memory/b2.md", "MEM404"), ("memory/c.md", "MEM404"), ("memory/d.md", "MEM404")}
    repo.write("memory/c.md", memory("c", extra="Staged fact.\n").replace("created: 2025-01-02", "created: 2025-01-03"))
    repo.add("memory/c.md")
    assert step([], "--staged") == {("memory/b2.md", "MEM404"), ("memory/c.md", "MEM404"), ("memory/d.md", "MEM404")}


def test_changed_since_verified_does_not_depend_on_which_other_files_are_asked_about(check, repo):
    """A merge that kept main's b.md and the branch's c.md: the branch's edit
    of b.md counts (an edit made on a branch counts with its own date, as a
    merge cannot say the memory was verified again), whether or not c.md is
    asked about in the same run. Once c.md was verified again and its date
    put back, a run built on the last one's answers and a full run agree."""
    def mem404(found):
        return {path for path, _, code, _ in found if code == "MEM404"}

    repo.checkout("side", new=True)
    repo.write("memory/b.md", memory("b", extra="Edited on the branch.\n"))
    repo.commit("edit b on a branch", "2025-02-03T10:00:00+00:00")
    repo.write("memory/c.md", memory("c", extra="Edited on the branch.\n"))
    repo.commit("edit c on a branch", "2025-02-04T10:00:00+00:00")
    repo.checkout("main")
    repo.write("memory/b.md", memory("b").replace("created: 2025-01-02", "created: 2025-01-03"))  # a date only
    repo.commit("a date of b", "2025-02-02T10:00:00+00:00")
    repo.merge("side", date="2025-02-05T10:00:00+00:00", commit=False)
    repo.run("checkout", "HEAD", "--", "memory/b.md")  # the merge keeps main's b.md, the branch's c.md
    repo.commit("merge side", "2025-02-05T10:00:00+00:00")
    assert mem404(same_as_without_cache(check, repo)) == {"memory/a.md", "memory/b.md", "memory/c.md"}
    repo.write("memory/c.md", repo.read("memory/c.md").replace("last_verified: 2025-01-10", "last_verified: 2025-02-20"))
    repo.commit("verify c", "2025-02-20T10:00:00+00:00")  # c.md is no longer asked about: b.md alone
    assert mem404(same_as_without_cache(check, repo)) == {"memory/a.md", "memory/b.md"}
    repo.write("memory/c.md", repo.read("memory/c.md").replace("last_verified: 2025-02-20", "last_verified: 2025-01-10"))
    repo.commit("c's date back", "2025-02-21T10:00:00+00:00")
    assert mem404(same_as_without_cache(check, repo)) == {"memory/a.md", "memory/b.md", "memory/c.md"}


def test_changed_since_verified_after_more_moves_than_followed_agrees_with_a_full_run(check, repo):
    """A memory moved more often than MEM404 follows is answered with its
    last change of any kind, which a commit changing only dates moves: that
    answer is not kept for the next run to build on."""
    from memlint.gitdates import _MAX_MOVES

    repo.write("memory/a.md", memory("a", extra="Edited after its date.\n"))
    repo.commit("edit a", "2025-01-12T10:00:00+00:00")
    name = "a"
    for i in range(_MAX_MOVES + 2):
        repo.mv(f"memory/{name}.md", f"memory/a{i}.md")
        name = f"a{i}"
        repo.commit(f"move {i}", f"2025-01-{13 + i}T10:00:00+00:00")
    check(repo)
    repo.write(f"memory/{name}.md", repo.read(f"memory/{name}.md").replace("created: 2025-01-02", "created: 2025-01-03"))
    repo.commit("a date only", "2025-02-01T10:00:00+00:00")
    found = check(repo)
    assert found == check(repo, "--no-cache")
    assert [m for p, _, code, m in found if code == "MEM404" and p == f"memory/{name}.md"]


def test_replaced_history_is_not_taken_from_the_cache(check, repo):
    """`git replace` shows other commits under the same HEAD id: the history
    kept at that id, and the findings, no longer hold; nor once git is told
    not to use replacements (core.useReplaceRefs)."""
    repo.write("memory/c.md", memory("c", verified="2025-01-02", extra="Edited.\n"))
    repo.commit("edit c", "2025-03-01T10:00:00+00:00")
    before = same_as_without_cache(check, repo)
    redone = repo.run("commit-tree", "HEAD^{tree}", "-p", "HEAD~1", "-m", "edit c, redated",
                      env={"GIT_AUTHOR_DATE": "2025-06-01T10:00:00+00:00",
                           "GIT_COMMITTER_DATE": "2025-06-01T10:00:00+00:00"}).strip()
    assert check(repo, "--staged") == check(repo, "--staged", "--no-cache")  # the hook's run, kept too
    repo.run("replace", "HEAD", redone)
    after = same_as_without_cache(check, repo)
    assert after != before  # c.md changed on 2025-06-01 now, as git log shows
    assert check(repo, "--staged") == check(repo, "--staged", "--no-cache") == after
    repo.run("config", "core.useReplaceRefs", "false")  # git told to ignore the replacement: so is what was kept
    assert same_as_without_cache(check, repo) == before
    repo.run("config", "--unset", "core.useReplaceRefs")
    assert same_as_without_cache(check, repo) == after
    repo.run("replace", "-d", "HEAD")
    assert same_as_without_cache(check, repo) == before


def test_git_settings_that_change_what_it_finds_do_not_change_the_findings(check, repo):
    """A rename with an edit is followed whatever the user's diff.renameLimit:
    kept results cannot depend on it."""
    for name in "bc":  # two renames, each with an edit: more pairs than a limit of 1 lets git compare
        repo.mv(f"memory/{name}.md", f"memory/{name}2.md")
        repo.write(f"memory/{name}2.md", memory(name, extra="One more line.\n"))
        repo.write("memory/MEMORY.md", repo.read("memory/MEMORY.md").replace(f"({name}.md)", f"({name}2.md)"))
    repo.commit("rename b and c with an edit", "2025-03-01T10:00:00+00:00")
    before = same_as_without_cache(check, repo)
    repo.run("config", "diff.renameLimit", "1")
    repo.run("config", "diff.interHunkContext", "5")
    assert same_as_without_cache(check, repo) == before


def checked_out_with_crlf_git_does_not_see(repo, path: str = "memory/MEMORY.md") -> None:
    """``path`` checked out again under core.autocrlf, then the setting
    removed: the disk holds CRLF, the index LF, and git sees no change."""
    repo.run("config", "core.autocrlf", "true")
    os.remove(repo.root / path)
    subprocess.run(["git", "checkout", "--", path], cwd=repo.root, env=repo.env, check=True)
    time.sleep(1.1)  # (the index refreshed after the file is newer than it: git trusts its stat data)
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=repo.root, env=repo.env, check=True)
    repo.run("config", "--unset", "core.autocrlf")


@pytest.mark.parametrize("after", ["setting removed", "blob checked out again"])
def test_line_endings_converted_under_a_setting_since_removed_are_seen(check, repo, after):
    """core.autocrlf on at a checkout, then off: the disk holds CRLF, the
    index LF, and git sees no change. The file's own length tells; and a
    parse of the CRLF bytes is never kept under the LF blob's id."""
    root = "# Memory\n\n" + "".join(f"- [B{i}](b.md) — b, {i}\n" for i in range(190))
    repo.write("memory/MEMORY.md", root)  # 192 lines: under the line cap, near the byte cap with CRs
    repo.commit("a long root", "2025-02-02T10:00:00+00:00")
    size = len(root.encode())
    repo.write(".memlint.yaml", f"rules:\n  MEM101: {{max-bytes: {size + 100}}}\n")
    repo.commit("cap", "2025-02-02T11:00:00+00:00")
    if after == "setting removed":
        check(repo)  # kept: the LF file, under the cap
    checked_out_with_crlf_git_does_not_see(repo)
    assert (repo.root / "memory" / "MEMORY.md").read_bytes().count(b"\r\n") == 192
    crlf = same_as_without_cache(check, repo)
    assert any(code == "MEM101" for _, _, code, _ in crlf)  # 192 CRs more: over the cap
    if after == "blob checked out again":
        os.remove(repo.root / "memory" / "MEMORY.md")
        subprocess.run(["git", "checkout", "--", "memory/MEMORY.md"], cwd=repo.root, env=repo.env, check=True)
        assert b"\r" not in (repo.root / "memory" / "MEMORY.md").read_bytes()
        assert not any(code == "MEM101" for _, _, code, _ in same_as_without_cache(check, repo))


def test_a_first_run_checks_the_index_blob_ids_against_the_bytes_it_reads(check, repo):
    """A first run asks git for no blob lengths: it reads every file anyway,
    and checks each index blob id against the bytes. A file git does not
    see converted (CRLF on disk, LF in the index) is judged as it is on
    disk, and its parse is not kept under the LF blob's id: once the LF
    file is back, nothing of the CRLF one is reported. The lengths it
    confirmed are left for the next run."""
    root = "# Memory\n\n" + "".join(f"- [B{i}](b.md) — b, {i}\n" for i in range(190))
    repo.write("memory/MEMORY.md", root)
    repo.write(".memlint.yaml", f"rules:\n  MEM101: {{max-bytes: {len(root.encode()) + 100}}}\n")
    repo.commit("a long root under its cap", "2025-02-02T10:00:00+00:00")
    checked_out_with_crlf_git_does_not_see(repo)
    assert not state_files(repo)  # nothing kept yet: this is a first run
    first = check(repo)
    assert any(code == "MEM101" for _, _, code, _ in first)  # 190 CRs more: over the cap
    assert first == check(repo, "--no-cache")
    folder = (repo.root / ".git" / "memlint")
    [sizes] = [cache_mod._read(path) for path in folder.rglob("blob-sizes.pickle")]
    index = {}  # path -> blob id
    for line in repo.run("ls-files", "-s", "memory").splitlines():
        meta, path = line.split("\t")
        index[path] = meta.split()[1]
    assert sizes == {blob: len((repo.root / path).read_bytes()) for path, blob in index.items()
                     if not path.endswith("MEMORY.md")}  # the converted file's length is not the blob's
    os.remove(repo.root / "memory" / "MEMORY.md")
    subprocess.run(["git", "checkout", "--", "memory/MEMORY.md"], cwd=repo.root, env=repo.env, check=True)
    assert b"\r" not in (repo.root / "memory" / "MEMORY.md").read_bytes()
    assert not any(code == "MEM101" for _, _, code, _ in same_as_without_cache(check, repo))


def test_amended_and_rebased_history(check, repo):
    assert same_as_without_cache(check, repo)
    # amend the last commit with other dates and content
    repo.write("memory/c.md", memory("c", verified="2025-01-20", extra="Amended.\n"))
    repo.run("commit", "-q", "--amend", "--no-edit", "--no-verify", "--no-gpg-sign",
             env={"GIT_AUTHOR_DATE": "2025-02-15T10:00:00+00:00", "GIT_COMMITTER_DATE": "2025-02-15T10:00:00+00:00"})
    same_as_without_cache(check, repo)
    # a new commit, then history rewritten under it (rebased onto a new root commit)
    repo.write("memory/b.md", memory("b", verified="2025-02-20", extra="More.\n"))
    repo.commit("edit b", "2025-02-20T10:00:00+00:00")
    same_as_without_cache(check, repo)
    # the last commit dropped and redone with another date
    repo.run("reset", "-q", "--hard", "HEAD~1")
    repo.write("memory/b.md", memory("b", verified="2025-02-22", extra="Redone.\n"))
    repo.commit("edit b again", "2025-02-22T10:00:00+00:00")
    same_as_without_cache(check, repo)
    # rebased onto a branch forked two commits back, which added a file
    repo.run("branch", "base", "HEAD~2")
    repo.checkout("base")
    repo.write("memory/e.md", memory("e"))
    repo.commit("add e", "2025-01-05T10:00:00+00:00")
    repo.checkout("main")
    repo.run("rebase", "-q", "base", env={"GIT_COMMITTER_DATE": "2025-02-23T10:00:00+00:00"})
    same_as_without_cache(check, repo)


# ---------------------------------------------------------------- the local rules' findings, reused per file


def codes_on(found: list, path: str) -> set[str]:
    return {code for where, _, code, _ in found if where == path}


def test_local_findings_follow_git_dates_of_an_unchanged_file(check, repo):
    """MEM401 compares a file's `created` with git: a history rewritten under
    an unchanged file (same blob, same path) changes its finding."""
    repo.write("memory/e.md", memory("e", verified="2025-02-10").replace("created: 2025-01-02", "created: 2025-02-10"))
    repo.commit("add e", "2025-02-10T10:00:00+00:00")
    assert "MEM401" not in codes_on(same_as_without_cache(check, repo), "memory/e.md")
    # the same commit redone two weeks later: e.md's content is what it was
    repo.run("commit", "-q", "--amend", "--no-edit", "--no-verify", "--no-gpg-sign", "--date=2025-02-24T10:00:00+00:00",
             env={"GIT_COMMITTER_DATE": "2025-02-24T10:00:00+00:00"})
    found = same_as_without_cache(check, repo)
    assert "MEM401" in codes_on(found, "memory/e.md")
    assert any("2025-02-24" in message for path, _, code, message in found if code == "MEM401")


def test_local_findings_follow_a_rename_the_date_and_the_configuration(check, repo, cli):
    future = memory("e").replace("last_verified: 2025-01-10", "last_verified: 2025-03-20")
    repo.write("memory/e.md", future)
    repo.commit("add e", "2025-02-10T10:00:00+00:00")
    assert "MEM004" in codes_on(same_as_without_cache(check, repo), "memory/e.md")  # in the future on TODAY
    # an unchanged file moved: its findings move with it
    repo.mv("memory/e.md", "memory/f.md")
    repo.commit("move e", "2025-02-11T10:00:00+00:00")
    found = same_as_without_cache(check, repo)
    assert "MEM004" in codes_on(found, "memory/f.md") and not codes_on(found, "memory/e.md")
    # another day: the date is no longer in the future
    later = check(repo, "--today", "2025-03-25")
    assert later == check(repo, "--today", "2025-03-25", "--no-cache")
    assert "MEM004" not in codes_on(later, "memory/f.md")
    # another configuration: a cap on a memory's lines
    repo.write(".memlint.yaml", "rules:\n  memory-oversized:\n    max-lines: 10\n", add=False)
    found = same_as_without_cache(check, repo)
    assert {"MEM104", "MEM004"} <= codes_on(found, "memory/f.md")


def test_local_findings_follow_a_files_role(check, repo):
    """The same bytes judged as a memory, then (the configuration names it a
    topic) as an index: the memory rules' findings go, the index rules' come."""
    listing = "---\nname: hub\n---\n" + "".join(f"- [{n}]({n}.md) — {n}\n" for n in "abcd") * 3
    repo.write("memory/hub.md", listing)
    repo.commit("add hub", "2025-02-10T10:00:00+00:00")
    as_memory = same_as_without_cache(check, repo)
    repo.write(".memlint.yaml", "topics: ['hub.md']\nrules:\n  topic-oversized:\n    max-entries: 5\n", add=False)
    as_topic = same_as_without_cache(check, repo)
    assert "MEM103" in codes_on(as_topic, "memory/hub.md")
    assert codes_on(as_memory, "memory/hub.md") != codes_on(as_topic, "memory/hub.md")


def test_shards_keep_the_local_findings_of_the_last_run_only(check, repo):
    """The local rules' findings are kept under the configuration they were
    made with; a shard written later keeps only the latest."""
    for cap in (10, 20, 30):
        repo.write(".memlint.yaml", f"rules:\n  memory-oversized:\n    max-lines: {cap}\n", add=False)
        repo.write("memory/c.md", memory("c", extra=f"Cap {cap}.\n"), add=False)  # a new blob: its shard is written
        check(repo)
    for path in state_files(repo):
        if path.name.startswith("blobs-"):
            kinds = cache_mod._read(path)
            assert sum(kind.startswith(cache_mod.LOCAL_KINDS) for kind in kinds) <= 1, path.name


# ---------------------------------------------------------------- history replay resumed


def replay_equal(repo: GitRepo, previous):
    resumed = load_history(repo.root, under="memory", previous=previous)
    full = load_history(repo.root, under="memory")
    assert resumed.files == full.files and resumed.head == full.head
    return resumed


def test_history_resumed_from_an_ancestor_equals_a_full_replay(repo):
    start = load_history(repo.root, under="memory")
    repo.mv("memory/b.md", "memory/topics/b.md")  # a pure rename
    repo.write("memory/c.md", memory("c", extra="edited\n"))
    repo.commit("rename b, edit c", "2025-02-03T10:00:00+00:00")
    repo.mv("memory/c.md", "memory/c2.md")  # a rename with an edit
    repo.write("memory/c2.md", memory("c", extra="edited\nagain\n"))
    repo.rm("memory/d.md")
    repo.commit("rename c with edits, delete d", "2025-02-04T10:00:00+00:00")
    repo.write("memory/d.md", memory("d again"))  # re-created at a deleted path
    repo.write("memory/a-copy.md", memory("a"))  # a copy: born now
    repo.commit("re-add d, copy a", "2025-02-05T10:00:00+00:00")
    resumed = replay_equal(repo, start)
    assert resumed.files["memory/topics/b.md"].created == start.files["memory/b.md"].created
    assert replay_equal(repo, resumed).files is resumed.files  # same HEAD: reused as is


def kept_replay(loaded: list, history, value=None):
    """A cache's loader of ``history`` (or of ``value``, a damaged one), noting each load in ``loaded``."""
    return lambda: loaded.append(history.head) or (value if value is not None else history)


def test_history_resumed_from_the_newest_kept_ancestor(repo):
    """The cache keeps replays at a few commits: after a reset, the one at a
    commit that is no longer an ancestor is passed over for one that is."""
    at_a = load_history(repo.root, under="memory")
    repo.write("memory/b.md", memory("b", extra="soon reset away\n"))
    repo.commit("X", "2025-02-03T10:00:00+00:00")
    at_x = load_history(repo.root, under="memory")
    repo.run("reset", "-q", "--hard", "HEAD~1")
    repo.write("memory/c.md", memory("c", extra="kept\n"))
    repo.commit("B", "2025-02-04T10:00:00+00:00")
    loaded = []
    keep = functools.partial(kept_replay, loaded)
    resumed = load_history(repo.root, under="memory", earlier={at_x.head: keep(at_x), at_a.head: keep(at_a)})
    assert loaded == [at_a.head]  # X is not an ancestor of HEAD: never even loaded
    full = load_history(repo.root, under="memory")
    assert resumed.files == full.files and resumed.head == full.head
    assert resumed.files["memory/b.md"] == at_a.files["memory/b.md"]  # X's edit of b.md is gone


def test_history_kept_at_head_first_then_the_newest_ancestor(repo):
    """HEAD's own replay is used when it is kept and readable, whatever came
    before it; when it is damaged, the newest kept ancestor is, and the
    older ones are never read. No git process or thread is left behind."""
    import threading

    at_a = load_history(repo.root, under="memory")
    repo.write("memory/b.md", memory("b", extra="B\n"))
    repo.commit("B", "2025-02-03T10:00:00+00:00")
    at_b = load_history(repo.root, under="memory")
    repo.write("memory/c.md", memory("c", extra="X\n"))
    repo.commit("X", "2025-02-04T10:00:00+00:00")
    at_x = load_history(repo.root, under="memory")
    repo.run("reset", "-q", "--hard", "HEAD~1")
    repo.write("memory/d.md", memory("d", extra="H\n"))
    repo.commit("H", "2025-02-05T10:00:00+00:00")
    at_head = load_history(repo.root, under="memory")
    loaded = []
    keep = functools.partial(kept_replay, loaded)

    threads = threading.active_count()
    kept = {at_x.head: keep(at_x), at_head.head: keep(at_head), at_b.head: keep(at_b), at_a.head: keep(at_a)}
    assert load_history(repo.root, under="memory", earlier=kept).files is at_head.files
    assert loaded == [at_head.head]
    loaded.clear()
    kept[at_head.head] = keep(at_head, "damaged")
    resumed = load_history(repo.root, under="memory", earlier=kept)
    assert loaded == [at_head.head, at_b.head]  # X is no ancestor; A is older than B
    assert resumed.files == at_head.files and resumed.head == at_head.head
    assert threading.active_count() == threads


def test_the_history_replays_kept_are_the_last_three_used(check, repo):
    def heads_kept() -> set[str]:
        return {p.stem.rsplit("-", 1)[1] for p in state_files(repo) if p.name.startswith("history-")}

    def head() -> str:
        return repo.run("rev-parse", "HEAD").strip()

    check(repo)
    x = head()
    repo.write("memory/b.md", memory("b", extra="y\n"))
    repo.commit("y", "2025-02-03T10:00:00+00:00")
    check(repo)
    y = head()
    repo.run("checkout", "-q", x)  # back to x (findings kept: no replay needed), then on from it
    check(repo)
    for n, name in enumerate("zw"):
        repo.write("memory/c.md", memory("c", extra=f"{name}\n"))
        repo.commit(name, f"2025-02-0{4 + n}T10:00:00+00:00")
        check(repo)
    # z resumed from x's replay, w from z's: y is the one least recently used
    assert heads_kept() == {x, head(), repo.run("rev-parse", "HEAD~1").strip()}
    assert y not in heads_kept()


def test_history_resumed_across_merges(repo):
    start = load_history(repo.root, under="memory")
    repo.checkout("side", new=True)  # forked after `start`: resumable
    repo.write("memory/e.md", memory("e"))
    repo.commit("side adds e", "2025-02-03T10:00:00+00:00")
    repo.checkout("main")
    repo.write("memory/b.md", memory("b", extra="main edit\n"))
    repo.commit("main edits b", "2025-02-04T10:00:00+00:00")
    repo.merge("side", date="2025-02-05T10:00:00+00:00")
    replay_equal(repo, start)
    # a branch forked before the cached HEAD, merged after it: replayed in full, same answer
    repo.checkout("old", new=True)
    repo.run("reset", "-q", "--hard", "main~3")
    repo.write("memory/c.md", memory("c", extra="old branch\n"))
    repo.commit("old branch edits c", "2025-01-20T10:00:00+00:00")
    repo.checkout("main")
    before_merge = load_history(repo.root, under="memory")
    repo.merge("old", date="2025-02-06T10:00:00+00:00")
    replay_equal(repo, before_merge)


# ---------------------------------------------------------------- parsing in two processes


def test_a_big_store_is_parsed_in_two_processes_with_the_same_findings(check, repo, monkeypatch):
    """Parsing, fingerprints, schema errors and secrets are computed in two
    processes while git log runs in a thread: the findings are the same."""
    from memlint import store as store_mod

    token = "gh" + "p_" + "".join(WORDS[i % 16][i % 4] for i in range(36)).replace("a", "Q7")[:36]
    repo.write("memory/b.md", memory("b", extra=f"Deploy with GITHUB_TOKEN={token}\n").replace("type: project", "type: projet"))
    repo.write("memory/c.md", memory("c").replace("type: project", "type: nonsense"))
    repo.commit("secrets and bad types", "2025-02-10T10:00:00+00:00")
    monkeypatch.setattr(store_mod, "SPLIT_MIN", 1)
    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    found = same_as_without_cache(check, repo)
    codes = {(path, code) for path, _, code, _ in found}
    # b.md is parsed by the parent, c.md by the child (the second half); MEM404 reads git dates
    assert {("memory/b.md", "MEM601"), ("memory/b.md", "MEM003"), ("memory/c.md", "MEM003"),
            ("memory/a.md", "MEM404"), ("memory/c.md", "MEM404")} <= codes


@pytest.mark.parametrize("extra_lines, split", [(3000, True), (0, False)], ids=["long files", "short files"])
def test_a_store_of_few_long_files_is_parsed_in_two_processes_too(check, repo, monkeypatch, extra_lines, split):
    """Whether a second process parses is decided by the files' length as
    well as their number: real memories run to kilobytes each, and five
    files of 75 KB are as much work as hundreds of short ones."""
    from memlint import store as store_mod

    for name in "abcde":
        repo.write(f"memory/{name}.md", memory(name, extra="".join(
            f"{name} note {i}: {WORDS[i % 16]} {WORDS[(i * 3) % 16]}.\n" for i in range(extra_lines))))
    repo.commit("long memories", "2025-02-10T10:00:00+00:00")
    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    split_reads: list[int] = []  # the files each read shared with a second process
    real_map_split = store_mod.map_split

    def recording(fn, items, meanwhile=None):
        split_reads.append(len(items))
        return real_map_split(fn, items, meanwhile)

    monkeypatch.setattr(store_mod, "map_split", recording)
    found = same_as_without_cache(check, repo)
    # The run that filled the cache parsed the store's six files (not the run without it: no split there)
    assert split_reads == ([6] if split else [])
    assert ("memory/d.md", "MEM201") in {(path, code) for path, _, code, _ in found}
    assert (("memory/a.md", "MEM104") in {(path, code) for path, _, code, _ in found}) == split  # 3,000 lines more


@pytest.mark.parametrize("select", [(), ("--select", "MEM001")], ids=["dates read", "no dates read"])
def test_a_first_run_starts_git_log_early_and_leaves_no_git_behind(check, repo, monkeypatch, select):
    """A first run starts the history's git log while it loads the rules;
    the history takes it, or, with no rule that reads dates, it is stopped."""
    from memlint import gitrun, history

    started = []

    def start_log(*args, **kwargs):
        early = real(*args, **kwargs)
        started.append(early.proc.pid)
        return early

    real = history.start_log
    monkeypatch.setattr(history, "start_log", start_log)
    found = check(repo, *select)
    assert len(started) == 1 and not gitrun.ALONGSIDE
    with pytest.raises(ProcessLookupError):  # ended and reaped
        os.kill(started[0], 0)
    assert check(repo, *select) == found and len(started) == 1  # a later run: nothing started
    assert check(repo, "--no-cache", *select) == found and len(started) == 1  # (the log is of the HEAD it found)
    codes = {code for _, _, code, _ in found}
    assert codes <= {"MEM001"} if select else "MEM404" in codes  # (MEM404 reads the dates)


def _split_rules(monkeypatch, log: Path):
    """Let the rules of any store run in two processes; ``log`` gets a line
    "pid code" for each rule run, from whichever process ran it. Each rule
    this process runs takes 50 ms more, so that the child (which claims the
    rules this one does not keep) surely starts before they are all taken."""
    import time

    from memlint import linter
    from memlint import store as store_mod

    monkeypatch.setattr(linter, "SPLIT_MIN", 1)
    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    real, parent = linter._problems, os.getpid()

    def logged(rule, *args):
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()} {rule.CODE}\n")
        if os.getpid() == parent:
            time.sleep(0.05)
        return real(rule, *args)

    monkeypatch.setattr(linter, "_problems", logged)


def _runs(log: Path) -> dict[str, set[str]]:
    """{pid: codes it ran} from ``_split_rules``'s log, emptied."""
    runs: dict[str, set[str]] = {}
    for line in log.read_text().splitlines():
        pid, code = line.split()
        runs.setdefault(pid, set()).add(code)
    log.unlink()
    return runs


def test_a_big_store_runs_its_rules_in_two_processes_with_the_same_findings(check, repo, monkeypatch):
    """A forked child takes rules too (the heaviest first), the graph rules
    stay here: the findings are those of the serial run, in the same order."""
    repo.write("memory/e.md", memory("c", extra="And one more thing about c.\n"))  # a near twin of c.md (MEM302: the child's)
    repo.write("memory/b.md", memory("b", verified="2025-01-03", extra="New: [c](c.md)\n"))  # MEM404
    repo.commit("e, and b after verification", "2025-02-12T10:00:00+00:00")
    serial = same_as_without_cache(check, repo)
    log = repo.root.parent / "ran.log"
    _split_rules(monkeypatch, log)
    assert check(repo, "--no-cache") == serial
    runs = _runs(log)
    here = runs.pop(str(os.getpid()))
    (child,) = runs.values()  # one child, which took rules too
    assert child and not child & here and len(child | here) == len(rules_mod.all_rules())
    assert {"MEM201", "MEM202", "MEM205", "MEM502", "MEM503"} <= here  # the graph rules, and those reading routes, stay here
    assert {"MEM302", "MEM404", "MEM201", "MEM202"} <= {code for _, _, code, _ in serial}
    assert check(repo) == serial  # cold, split
    assert check(repo) == serial  # warm


def _loose_notes(repo) -> None:
    """Eight notes with no frontmatter (MEM001) and an unresolved conflict
    (MEM007), in both halves of the files (by blob id, and by path)."""
    for i in range(8):
        repo.write(f"memory/loose-{i}.md", f"# Loose {i}\n<<<<<<< HEAD\nmine {i}\n=======\ntheirs\n>>>>>>> b\n")
    repo.commit("loose notes", "2025-02-12T10:00:00+00:00")


def _halves_apart(monkeypatch, log: Path) -> None:
    """Split the rules of any store, the local rules' two halves of the files
    each in another process (the first half is slow to start: the other
    process, free meanwhile, takes the second); ``log`` gets "pid half
    problems" for each half run."""
    import time

    from memlint import linter
    from memlint import store as store_mod

    monkeypatch.setattr(linter, "SPLIT_MIN", 1)
    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    real = linter._run_group

    def logged(store, rules, only_paths, **kwargs):
        part = kwargs.get("part")
        if part == (0, 2):
            time.sleep(0.3)
        ran = real(store, rules, only_paths, **kwargs)
        if part is not None:
            found = sum(len(problems) for _, problems, _ in ran[0] if isinstance(problems, list))
            with open(log, "a") as fh:
                fh.write(f"{os.getpid()} {part[0]} {found}\n")
        return ran

    monkeypatch.setattr(linter, "_run_group", logged)


def test_the_local_rules_split_in_two_halves_of_the_files_give_the_serial_findings(check, repo, monkeypatch):
    """The rules that judge each file by itself are claimed in two halves of
    the files, each by whichever process is free: the findings, cold, warm
    and without the cache, are the serial run's."""
    _loose_notes(repo)
    serial = same_as_without_cache(check, repo)
    assert {"MEM001", "MEM007"} <= {code for _, _, code, _ in serial}
    log = repo.root.parent / "halves.log"
    _halves_apart(monkeypatch, log)
    for extra in (("--no-cache",), (), ()):  # without the cache, then cold and warm with it
        log.unlink(missing_ok=True)
        assert check(repo, *extra) == serial
        if not log.exists():
            continue  # (a warm run reuses the whole findings: no rule runs)
        halves = [line.split() for line in log.read_text().splitlines()]
        assert sorted(part for _, part, _ in halves) == ["0", "1"]
        assert len({pid for pid, _, _ in halves}) == 2  # one half each
        assert all(int(found) > 0 for _, _, found in halves)  # files with findings in both


@pytest.mark.parametrize("fault", ["internal errors", "configuration errors", "one of each", "a notice each"])
def test_a_local_rule_failing_in_both_halves_is_told_as_the_serial_run_tells_it(cli, repo, monkeypatch, fault):
    """A local rule that fails, or tells something, on files of both halves:
    the run says what the serial run says (the first file's failure, in file
    order; the notices in file order), with the cache and without."""
    from memlint.config import ConfigError
    from memlint.rules import merge_conflict

    _loose_notes(repo)
    real = merge_conflict.check

    def faulty(doc, store, options):
        if doc.rel.startswith("loose-"):
            if fault == "a notice each":
                store.notice(f"a word about {doc.rel}")
            elif fault == "internal errors" or (fault == "one of each" and doc.rel < "loose-4"):
                raise RuntimeError(f"boom on {doc.rel}")
            else:
                raise ConfigError(f"cannot judge {doc.rel}")
        yield from real(doc, store, options)

    monkeypatch.setattr(merge_conflict, "check", faulty)

    def run(*extra):
        shutil.rmtree(repo.root / ".git" / "memlint", ignore_errors=True)
        result = cli("check", "--format", "json", "--today", TODAY, *extra, repo.root / "memory")
        return result.exit_code, result.output, result.stderr

    serial = {extra: run(*extra) for extra in ((), ("--no-cache",))}
    assert "loose-0" in serial[()][1] + serial[()][2]  # the first loose note's failure or notice
    log = repo.root.parent / "halves.log"
    _halves_apart(monkeypatch, log)
    for extra, expected in serial.items():
        log.unlink(missing_ok=True)
        assert run(*extra) == expected
        assert len({line.split()[0] for line in log.read_text().splitlines()}) == 2  # the halves apart


def test_split_rules_keep_notices_failures_and_cache_entries(cli, repo, monkeypatch, tmp_path):
    """What a rule in the child gives besides findings comes back: the notices
    (in the serial run's order), a failure as an internal-error finding, and
    the cache entries it made, which the parent saves."""
    from memlint import linter
    from memlint.cli import build_stores
    from memlint.rules import near_duplicate

    loose = tmp_path / "loose"  # no git: every git rule gives the one notice
    loose.mkdir()
    (repo.root / "memory").rename(loose / "memory")
    serial = cli("check", "--no-cache", "--format", "json", "--today", TODAY, loose / "memory")
    log = tmp_path / "ran.log"
    _split_rules(monkeypatch, log)
    split = cli("check", "--no-cache", "--format", "json", "--today", TODAY, loose / "memory")
    assert len(_runs(log)) == 2 and (split.output, split.stderr) == (serial.output, serial.stderr)
    assert "the git rules" in split.stderr

    def broken(store, options):
        raise RuntimeError("boom")
        yield

    monkeypatch.setattr(near_duplicate, "check", broken)
    failed = cli("check", "--no-cache", "--format", "json", "--today", TODAY, loose / "memory").json()
    assert [f["message"] for f in failed if f["code"] == "MEM000"] == [
        "rule MEM302 near-duplicate failed: RuntimeError: boom (please report this)"]
    assert any("MEM302" in codes for pid, codes in _runs(log).items() if pid != str(os.getpid()))  # failed there
    monkeypatch.undo()

    # fingerprints missing from the cache, made by the child's duplicate rules, are saved
    _split_rules(monkeypatch, log)
    (store,) = build_stores([loose / "memory"], None, None, cache=True)
    store.docs  # noqa: B018 - read (with the fingerprints, as the parse's content task)
    for shard in store.cache._shards.values():
        shard.pop("fingerprint", None)
    monkeypatch.setattr(near_duplicate, "TAGS", (*near_duplicate.TAGS, "graph"))  # MEM302 here: MEM301 is the child's
    linter.lint_store(store, linter.Selection(select=("MEM301", "MEM302")))
    runs = _runs(log)
    assert runs.pop(str(os.getpid())) == {"MEM302"} and list(runs.values()) == [{"MEM301"}]
    memories = [doc for doc in store.memories if doc.blob]
    assert memories and all(store.cache.get("fingerprint", doc.blob) is not cache_mod.MISSING for doc in memories)


def test_rules_a_dead_child_claimed_are_run_here(cli, repo, monkeypatch):
    """A child that dies after claiming rules: this process runs them."""
    from memlint import linter

    serial = cli("check", "--no-cache", "--format", "json", "--today", TODAY, repo.root / "memory").output
    log = repo.root.parent / "ran.log"
    _split_rules(monkeypatch, log)
    parent, logged = os.getpid(), linter._problems

    def dies_in_child(rule, *args):
        if os.getpid() != parent:
            os._exit(3)
        return logged(rule, *args)

    monkeypatch.setattr(linter, "_problems", dies_in_child)
    assert cli("check", "--no-cache", "--format", "json", "--today", TODAY, repo.root / "memory").output == serial
    assert list(_runs(log)) == [str(parent)]


def test_split_rules_stop_on_the_configuration_error_the_serial_run_stops_on(cli, repo, monkeypatch):
    """Two rules that raise a ConfigError (a schema that does not load:
    MEM003; ``--since`` a revision git does not know: MEM405): the serial run
    stops on the first in rule order, and so must the split run, whichever
    process claimed which (here the child is slow, so this process claims
    MEM405 before MEM003)."""
    import time

    from memlint import linter
    from memlint import store as store_mod

    repo.write(".memlint.yaml", "schema: broken.json\n")
    repo.write("broken.json", "{not json\n")
    repo.write("memory/logs/2025-02-01.md", "# 2025-02-01\n- did a thing\n")  # append-only: MEM405 judges it
    repo.commit("a schema that does not load, a daily log", "2025-02-12T10:00:00+00:00")
    args = ("check", "--no-cache", "--since", "no-such-revision", "--today", TODAY, repo.root / "memory")
    serial = cli(*args)
    assert serial.exit_code == 2 and "cannot load" in serial.stderr
    monkeypatch.setattr(linter, "SPLIT_MIN", 1)
    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    real, parent = linter._problems, os.getpid()

    def slow_child(rule, *args):
        if os.getpid() != parent:
            time.sleep(0.3)
        return real(rule, *args)

    monkeypatch.setattr(linter, "_problems", slow_child)
    split = cli(*args)
    assert (split.exit_code, split.stderr) == (serial.exit_code, serial.stderr)


def test_a_content_task_that_fails_in_the_child_leaves_no_value_in_the_cache(check, repo, monkeypatch):
    """A content task that fails (or is not wanted) gives "no value", and
    the rule computes its own. Sent back from the forked child that read
    the file, it must still be "no value": a stand-in object kept as the
    file's fingerprint made the duplicate rules fail, then and in every
    later run."""
    from memlint import store as store_mod
    from memlint.rules import _duplicates as duplicates_mod

    repo.write("memory/e.md", (repo.root / "memory" / "a.md").read_text())  # a copy: MEM301
    repo.commit("a copy of a", "2025-02-10T10:00:00+00:00")
    monkeypatch.setattr(store_mod, "SPLIT_MIN", 1)
    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    forks, real_fork, real_task = [], store_mod.fork_work, duplicates_mod.fingerprint_of

    def recorded(work):
        child = real_fork(work)
        forks.append(child is not None)
        return child

    def failing(doc):
        raise RuntimeError("no fingerprint today")

    monkeypatch.setattr(store_mod, "fork_work", recorded)
    monkeypatch.setattr(duplicates_mod, "fingerprint_of", failing)
    expected = check(repo, "--no-cache")
    assert ("memory/e.md", "MEM301") in {(path, code) for path, _, code, _ in expected}
    assert check(repo) == expected  # the run that fills the cache
    assert forks[:1] == [True]
    monkeypatch.setattr(duplicates_mod, "fingerprint_of", real_task)
    repo.write("memory/d.md", memory("d", extra="Edited.\n"))  # the findings are judged again, the fingerprints kept
    assert check(repo) == check(repo, "--no-cache")


def test_a_store_checked_before_reads_its_history_meanwhile_and_still_splits(check, repo, monkeypatch):
    """With the parses cached, the history loads while they are read; when
    many files changed after all, its thread ends before the read forks."""
    from memlint import store as store_mod

    check(repo)  # the cache now holds blobs
    for name in "abcd":
        repo.write(f"memory/{name}.md", memory(name, extra=f"Edited {name}.\n"))
    repo.commit("edit everything", "2025-02-15T10:00:00+00:00")
    monkeypatch.setattr(store_mod, "SPLIT_MIN", 1)
    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    forks, real = [], store_mod.fork_work

    def recorded(work):
        child = real(work)
        forks.append(child is not None)
        return child

    monkeypatch.setattr(store_mod, "fork_work", recorded)
    assert check(repo) == check(repo, "--no-cache")
    assert forks[:1] == [True]  # the read split (no thread running at the fork)


def test_near_duplicates_build_on_the_last_run_and_agree_with_a_full_one(check, repo, monkeypatch, tmp_path):
    """MEM302 keeps its pairs for the next run (also from a forked child),
    which judges only new bodies: pairs come and go as without the cache."""
    from memlint.fingerprint import NearMemo

    def memo() -> NearMemo:
        (kept,) = [p for p in state_files(repo) if p.name.startswith("near-pairs")]
        return cache_mod._read(kept)

    repo.write("memory/e.md", memory("c", extra="And one more thing about c.\n"))
    repo.commit("e, a near twin of c", "2025-02-12T10:00:00+00:00")
    first = same_as_without_cache(check, repo)
    assert [path for path, _, code, _ in first if code == "MEM302"] == ["memory/e.md"]
    assert len(memo().pairs) == 1
    repo.write("memory/e.md", memory("e"))  # e is itself again
    repo.write("memory/f.md", memory("b", extra="And a thought about b.\n"))  # a new twin, of b
    repo.commit("e rewritten, f added", "2025-02-13T10:00:00+00:00")
    _split_rules(monkeypatch, tmp_path / "ran.log")
    second = check(repo)
    assert [path for path, _, code, _ in second if code == "MEM302"] == ["memory/f.md"]
    monkeypatch.undo()
    assert second == check(repo, "--no-cache")
    assert len(memo().pairs) == 1 and len(memo().bodies) == 6  # saved by the parent, whoever judged


def test_shared_out_work_goes_to_whichever_process_is_free(monkeypatch):
    """share_out: a process kept busy (``first``) leaves the units to the
    other; a child that dies after claiming leaves its units to this one."""
    import time

    from memlint import store as store_mod

    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    parent = os.getpid()
    results, after = store_mod.share_out(20, lambda i: (i, os.getpid()), first=lambda poll: time.sleep(0.6),
                                         after=lambda: "from the child")
    assert sorted(results) == list(range(20)) and all(results[i][0] == i for i in range(20))
    assert after == "from the child" and {pid for _, pid in results.values()} == {results[0][1]} != {parent}

    def dies_at_five(i):
        if i == 5 and os.getpid() != parent:
            os._exit(1)
        time.sleep(0.01)
        return i * i

    results, after = store_mod.share_out(10, dies_at_five, first=lambda poll: time.sleep(0.6), after=lambda: "lost")
    assert results == {i: i * i for i in range(10)} and after is None
    with pytest.raises(ValueError):
        store_mod.share_out(store_mod._MAX_UNITS + 1, lambda i: i)


def test_a_child_with_big_results_is_not_held_up_while_this_process_is_busy(monkeypatch):
    """Results bigger than the pipe (a unit's findings on 10,000 files): the
    child waits for them to be read. ``first``, busy here, polls, so the
    child goes on to claim the next unit instead of leaving it to this process."""
    import time

    from memlint import store as store_mod

    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    big = store_mod._PIPE_SIZE * 3

    def busy(poll):
        stop = time.monotonic() + 1.5
        while time.monotonic() < stop:
            time.sleep(0.01)
            poll()

    results, _ = store_mod.share_out(2, lambda i: (os.getpid(), b"x" * big), first=busy)
    assert len({pid for pid, _ in results.values()}) == 1 and results[0][0] != os.getpid()
    assert all(len(data) == big for _, data in results.values())


def test_split_work_survives_an_ignored_sigchld(monkeypatch):
    """A program that ignores SIGCHLD passes that on to memlint (it survives
    exec): the kernel then reaps the child itself, and waiting for it finds
    none. The work still comes back; no ChildProcessError."""
    import signal
    import time

    from memlint import store as store_mod
    from memlint.store import map_split

    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    items = list(range(40))

    def slowly(x):
        time.sleep(0.005)  # the child surely takes a share
        return x, os.getpid()

    before = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        done = map_split(slowly, items)
        assert [x for x, _ in done] == items and len({pid for _, pid in done}) == 2
        assert map_split(lambda x: x * 2, items) == [x * 2 for x in items]
    finally:
        signal.signal(signal.SIGCHLD, before)
    assert gc.get_freeze_count() == 0


def test_a_failure_here_stops_the_child_at_once(monkeypatch):
    """This process fails (or is interrupted) while sharing out work: the
    child is stopped, not waited for through the rest of the work."""
    import time

    from memlint import store as store_mod

    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)

    def interrupted(poll):
        time.sleep(0.2)  # the child has started on the units
        raise KeyboardInterrupt

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        store_mod.share_out(50, lambda i: time.sleep(0.2), first=interrupted)  # 10 s of work left to the child
    assert time.monotonic() - started < 5
    assert gc.get_freeze_count() == 0


def test_a_history_that_fails_oddly_is_each_git_rule_s_failure_in_a_split_run_too(cli, repo, monkeypatch, tmp_path):
    """The history is loaded before the rules fork; if that fails other than
    as git failing, each rule that reads it reports the failure (MEM000), as
    in a one-process run, and the check goes on."""
    from memlint import store as store_mod

    def odd(self):
        raise RuntimeError("odd")

    monkeypatch.setattr(store_mod.Store, "_load_history", odd)
    args = ("check", "--no-cache", "--format", "json", "--today", TODAY, repo.root / "memory")
    serial = cli(*args)
    assert "failed: RuntimeError: odd" in serial.output
    _split_rules(monkeypatch, tmp_path / "ran.log")
    split = cli(*args)
    assert (split.exit_code, split.output) == (serial.exit_code, serial.output)
    assert len(_runs(tmp_path / "ran.log")) == 2


def test_a_big_store_s_cache_is_written_by_two_processes_the_same(check, repo, monkeypatch):
    """The shards a split run writes (pickled by two processes) hold what a
    one-process run's hold, and the next run reads them."""
    import time

    from memlint import store as store_mod

    def shards() -> dict:
        return {p.name: cache_mod._read(p) for p in state_files(repo) if p.name.startswith("blobs-")}

    found = check(repo)
    serial = shards()
    assert len(serial) > 1
    for p in state_files(repo):
        p.unlink()
    monkeypatch.setattr(store_mod, "SPLIT_MIN", 1)
    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    log, real = repo.root.parent / "writers.log", cache_mod._write

    def written(path, value):
        if path.name.startswith("blobs-"):
            with open(log, "a") as fh:
                fh.write(f"{os.getpid()}\n")
            time.sleep(0.05)  # each process surely gets a share
        real(path, value)

    monkeypatch.setattr(cache_mod, "_write", written)
    assert check(repo) == found
    assert len(set(log.read_text().split())) == 2  # both processes wrote shards
    assert shards() == serial
    assert check(repo, "--select", "MEM001,MEM201") == [f for f in found if f[2] in ("MEM001", "MEM201")]


def test_split_work_comes_back_in_order_and_survives_a_failing_child(monkeypatch):
    import time

    from memlint import store as store_mod
    from memlint.store import map_split

    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)  # as on an idle machine

    parent = os.getpid()
    items = list(range(40))

    def slowly(x):
        time.sleep(0.005)  # the child surely starts before this process has claimed every run
        return x, os.getpid()

    pids = map_split(slowly, items)
    assert [x for x, _ in pids] == items
    assert parent in {pid for _, pid in pids} and len({pid for _, pid in pids}) == 2  # both took a share

    def fails_in_child(x):
        if os.getpid() != parent:
            raise RuntimeError("child died")
        return x * 2

    assert map_split(fails_in_child, items) == [x * 2 for x in items]

    # a failure in the parent's half is raised, without waiting forever on a
    # child blocked writing a big result, nor leaving the collector frozen
    def fails_in_parent(x):
        # Whichever item this process claims fails: the runs are claimed by
        # whoever is free, so a fixed item (x == 5) may go to the child.
        if os.getpid() == parent:
            raise ValueError("parent half failed")
        time.sleep(0.01)  # this process surely claims a run
        return "y" * 100_000

    with pytest.raises(ValueError, match="parent half failed"):
        map_split(fails_in_parent, items)
    assert gc.get_freeze_count() == 0

    # `meanwhile` (the history thread's start) runs once, in the parent, after the fork
    called = []
    assert map_split(lambda x: x, items, lambda: called.append(os.getpid())) == items
    assert called == [parent]


def test_a_store_made_read_only_gets_no_cache(check, repo):
    for path in [repo.root / "memory", *(repo.root / "memory").iterdir()]:
        path.chmod(path.stat().st_mode & ~0o222)
    try:
        found = check(repo)
        assert not (repo.root / ".git" / "memlint").exists()  # root included: the bits are read, not tried
        assert found == check(repo, "--no-cache")
    finally:
        for path in [repo.root / "memory", *(repo.root / "memory").iterdir()]:
            path.chmod(path.stat().st_mode | 0o200)


def test_staged_runs_follow_the_index(check, repo):
    assert check(repo, "--staged") == check(repo, "--staged", "--no-cache")
    repo.write("memory/b.md", memory("b", extra="Staged: [x](staged-missing.md).\n"))  # staged
    repo.write("memory/c.md", memory("c", extra="Not staged: [y](unstaged-missing.md).\n"), add=False)
    found = check(repo, "--staged")
    assert found == check(repo, "--staged", "--no-cache")
    messages = " ".join(m for _, _, _, m in found)
    assert "staged-missing.md" in messages and "unstaged-missing.md" not in messages


def test_backfill_health_and_report_read_the_same_store_through_the_cache(cli, repo):
    """These commands use the cache too: what they print is the same cold, after
    a check filled it, and without it."""
    repo.write("memory/e.md", "---\nname: e\ndescription: undated\ntype: project\n---\nE.\n")
    repo.commit("add e", "2025-02-10T10:00:00+00:00")
    store = repo.root / "memory"

    def outputs(*extra_env):
        env = dict(extra_env)
        return [cli(*args, "--today", TODAY, store, env=env).output
                for args in (["backfill", "--dry-run"], ["health"], ["report"])]

    no_cache = outputs(("MEMLINT_NO_CACHE", "1"))
    assert not state_files(repo)
    cold = outputs()
    assert state_files(repo)  # they fill it
    cli("check", "--today", TODAY, store)
    assert outputs() == cold == no_cache
    assert "+created: 2025-02-10" in cold[0]  # the dry run shows e.md's backfill


def imports_of_a_check(repo: GitRepo, *args: str) -> tuple[set[str], str]:
    """The heavy packages a `check` run imported (in a fresh interpreter), and its output."""
    code = ("import sys\n"
            f"sys.argv = ['memlint', 'check', '--today', {TODAY!r}, *{list(args)!r}, {str(repo.root / 'memory')!r}]\n"
            "from memlint.cli import main\n"
            "try: main()  # as the program runs it, without its os._exit at the end\n"
            "except SystemExit: pass\n"
            "heavy = ('git', 'jsonschema', 'markdown_it', 'ruamel', 'yaml')\n"
            "print('IMPORTED', *sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy}))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("MEMLINT_NO_CACHE", "PRE_COMMIT")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert done.returncode == 0, done.stderr
    output, _, imported = done.stdout.rpartition("IMPORTED")
    return set(imported.split()), output


def test_heavy_imports_only_where_needed(repo):
    """GitPython never (memlint runs git itself); jsonschema not for the shipped
    schemas, even with schema errors; PyYAML not for simple frontmatter; a
    cached check imports none of them."""
    repo.write("memory/b.md", memory("b").replace("type: project", "type: projet"))  # a MEM003 error
    repo.commit("bad type", "2025-02-10T10:00:00+00:00")
    imported, output = imports_of_a_check(repo, "--select", "MEM001,MEM003", "--no-cache")
    assert imported == set() and "memory/b.md:4:1: MEM003 `type: projet` is not one of" in output
    imported, output = imports_of_a_check(repo)  # cold: history read, the schema error found without jsonschema
    assert imported == set() and "MEM003" in output and "MEM404" in output
    imported, again = imports_of_a_check(repo)  # warm: the cache holds the findings
    assert imported == set() and again == output


def test_overlapping_cache_loads_leave_the_collector_as_they_found_it(monkeypatch):
    """The history thread unpickles while the main thread does: the collector
    stays paused until the last load ends, then is back on (and stays off
    for a caller that had turned it off)."""
    import gc
    import threading

    from memlint import cache as cache_mod

    release = {b"a": threading.Event(), b"b": threading.Event()}
    started = {b"a": threading.Event(), b"b": threading.Event()}

    def slow_loads(payload):
        payload = bytes(payload)
        started[payload].set()
        release[payload].wait(10)
        return payload

    monkeypatch.setattr(cache_mod.pickle, "loads", slow_loads)
    assert gc.isenabled()
    first = threading.Thread(target=cache_mod.unpickle, args=(b"a",))
    second = threading.Thread(target=cache_mod.unpickle, args=(b"b",))
    first.start()
    started[b"a"].wait(10)
    second.start()
    started[b"b"].wait(10)
    release[b"a"].set()
    first.join(10)
    assert not gc.isenabled()  # the second load is still under way
    release[b"b"].set()
    second.join(10)
    assert gc.isenabled()

    gc.disable()
    try:
        release[b"a"].set()
        cache_mod.unpickle(b"a")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_save_interrupted_here_leaves_no_temp_file_of_the_child_behind(tmp_path, monkeypatch):
    """The two processes write the cache files; when this one fails or is
    interrupted mid-save, the child, which may be inside its own atomic
    write, finishes it: no temp file stays in the cache folder for good."""
    import time

    from memlint import atomic
    from memlint import store as store_mod

    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)
    cache = cache_mod.StoreCache(tmp_path)
    for digit in "abc":
        cache.put("kind", digit * 40, digit)  # three shards: three writes
    parent, real_chmod = os.getpid(), os.chmod

    def chmod(path, mode):  # between the temp file's write and its rename
        if str(path).endswith(".memlint-tmp"):
            if os.getpid() == parent:
                time.sleep(0.3)  # the child is inside its own write by now
                raise KeyboardInterrupt
            time.sleep(1)
        return real_chmod(path, mode)

    monkeypatch.setattr(atomic.os, "chmod", chmod)
    with pytest.raises(KeyboardInterrupt):
        cache.save(share=store_mod.share_out)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".memlint-tmp")] == []


def test_the_findings_of_the_eight_most_recently_used_checks_are_kept(check, repo):
    """Each selection's findings are a file of their own: a run reads only
    the one it may reuse; the least recently used go past eight."""
    codes = ["MEM001", "MEM002", "MEM003", "MEM004", "MEM005", "MEM101", "MEM201", "MEM202", "MEM301", "MEM501"]
    for code in codes:
        check(repo, "--select", code)

    def kept() -> set[str]:
        return {p.name for p in state_files(repo) if p.name.startswith("findings-")}

    before = kept()
    assert len(before) == 8
    check(repo, "--select", "MEM003")  # still kept: reused, nothing added
    assert kept() == before
    check(repo, "--select", "MEM001")  # gone: found again, and the least recently used goes
    after = kept()
    assert len(after) == 8 and len(after - before) == 1


def test_a_child_s_results_are_loaded_here_while_it_still_works(monkeypatch):
    """What the child sends comes as it is sent, not when the child ends: this
    process loads it between its own runs instead of all at the end."""
    import time

    from memlint import store as store_mod

    monkeypatch.setattr(store_mod, "cores_busy", lambda cpus: False)

    def work(send):
        send(("first", list(range(1000))))
        time.sleep(1.0)
        send("second")

    child = store_mod.fork_work(work)
    assert child is not None
    started, got = time.monotonic(), []
    while not got and time.monotonic() - started < 0.8:
        got = child.take()
        time.sleep(0.01)
    assert got == [("first", list(range(1000)))]  # before the child is done
    assert child.take() == []
    assert child.rest() == ["second"]
    assert gc.get_freeze_count() == 0


def test_a_file_that_could_not_be_read_is_read_again_next_time(check, repo, monkeypatch):
    """A read that fails (permissions, an I/O error) says nothing about the
    content: neither its failure nor the findings made with it are kept."""
    from memlint import store as store_mod

    # b reaches a by a name only a's frontmatter gives
    repo.write("memory/a.md", memory("a").replace("name: a\n", "name: a\naliases: [Alias Of A]\n"))
    repo.write("memory/b.md", memory("b", extra="See [[Alias Of A]].\n"))
    repo.write(".memlint.yaml", "wikilinks: strict\n")  # a [[name]] to nothing is a finding
    repo.commit("an alias", "2025-02-12T10:00:00+00:00")
    expected = check(repo, "--no-cache")
    real = store_mod.read_bounded

    def failing(path):
        if str(path).endswith("a.md"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(store_mod, "read_bounded", failing)
    assert any(path == "memory/a.md" and "cannot read: Permission denied" in message
               for path, _, _, message in check(repo))
    monkeypatch.undo()
    assert check(repo) == expected


def test_the_common_folder_of_a_linked_worktree_is_found_from_a_hooks_git_dir(repo, monkeypatch, tmp_path):
    """git hands a hook in a linked worktree GIT_DIR=<main>/.git/worktrees/<name>:
    the replace refs and the shallow file live in the main .git, which its
    `commondir` file names."""
    from memlint.statedir import common_dir

    linked = tmp_path / "linked"
    repo.run("worktree", "add", "-q", str(linked))
    monkeypatch.setenv("GIT_DIR", str(repo.root / ".git" / "worktrees" / "linked"))
    assert common_dir(linked) == (repo.root / ".git").resolve()
    monkeypatch.delenv("GIT_DIR")
    assert common_dir(linked) == (repo.root / ".git").resolve()


def test_a_linked_worktree_under_a_path_with_a_newline_keeps_its_cache_in_git(tmp_path, cli):
    """A worktree's `.git` file is one line only as git writes it: the
    path it names may hold a newline (the cache went to ~/.cache then)."""
    main = GitRepo(tmp_path / "two\nlines")
    main.write("memory/MEMORY.md", "# Memory\n\n- [A](a.md) — a\n")
    main.write("memory/a.md", memory("a"))
    main.commit("init")
    linked = tmp_path / "linked"
    main.run("worktree", "add", "-q", str(linked))
    result = cli("check", "--format", "json", "--today", TODAY, linked / "memory")
    assert result.exit_code == 0, result.output + result.stderr
    assert list((main.root / ".git" / "worktrees" / "linked" / "memlint").rglob("*.pickle"))


class _Planted:
    """A pickle that, loaded, leaves a file: the proof a planted cache ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_dot_git_file_naming_a_folder_of_the_store_is_not_where_the_cache_is_read(tmp_path, cli):
    """A folder shipped with its files (`.git` saying `gitdir: .`) is no git
    folder: memlint must not load pickles planted in it."""
    import hashlib
    import pickle
    import zlib

    from memlint import cache

    store = tmp_path / "store"
    store.mkdir()
    (store / "MEMORY.md").write_text("# Memory\n- [A](a.md) — a\n")
    (store / "a.md").write_text("---\nname: a\ndescription: d\ntype: user\n---\nBody\n")
    (store / ".git").write_text("gitdir: .\n")
    marker = tmp_path / "planted-cache-ran"
    payload = pickle.dumps(_Planted(marker), protocol=5)
    folder = store / "memlint" / hashlib.blake2b(str(store.resolve()).encode(), digest_size=6).hexdigest()
    folder.mkdir(parents=True)
    header = b" ".join((cache.MAGIC, str(cache.FORMAT).encode(), cache.code_version().encode(),
                        str(len(payload)).encode(), str(zlib.crc32(payload)).encode()))
    for name in ("links", "near-pairs", *(f"blobs-{i}" for i in range(16))):
        (folder / f"{name}.pickle").write_bytes(header + b"\n" + payload)
    result = cli("check", "--format", "json", store)
    assert result.exit_code in (0, 1) and not marker.exists()


# ---------------------------------------------------------------- merges stopped half way, renames in the index


def _memory_repo(tmp_path) -> GitRepo:
    repo = GitRepo(tmp_path / "m")
    repo.write("memory/MEMORY.md", "# Memory\n\n- [A](a.md) — a\n- [B](b.md) — b\n")
    repo.write("memory/a.md", memory("a"))
    repo.commit("start", "2025-01-02T10:00:00+00:00")
    return repo


def test_a_merge_quit_half_way_is_judged_as_without_the_cache(tmp_path, check):
    """`git merge --quit` leaves HEAD, the index and the files as the merge
    left them, and MERGE_HEAD gone: the files it brought are dated by
    HEAD's history again, not by their branch's commits."""
    repo = _memory_repo(tmp_path)
    repo.checkout("side", new=True)
    repo.write("memory/b.md", memory("b").replace("created: 2025-01-02", "created: 2025-01-20"))
    repo.commit("b on the side", "2025-02-01T10:00:00+00:00")
    repo.checkout("main")
    repo.merge("side", commit=False)
    during = check(repo)
    assert ("memory/b.md", "MEM401") in {(path, code) for path, _, code, _ in during}  # dated by the side's commit
    repo.run("merge", "--quit")
    after = same_as_without_cache(check, repo)
    assert ("memory/b.md", "MEM401") not in {(path, code) for path, _, code, _ in after}  # not committed yet


@pytest.mark.parametrize("change", ["merge aborted", "rename in the index"])
def test_health_reads_the_days_since_a_change_as_this_run_dates_the_files(tmp_path, cli, change):
    """At one HEAD, a merge being made and a rename in the index give a path
    another history: the day it last changed is not the one kept for it."""
    repo = _memory_repo(tmp_path)
    store = repo.root / "memory"
    if change == "merge aborted":
        repo.checkout("side", new=True)
        repo.write("memory/a.md", memory("a") + "Edited on the side.\n")
        repo.commit("edit a on the side", "2025-03-20T10:00:00+00:00")
        repo.checkout("main")
        repo.merge("side", commit=False)
    else:
        repo.write("memory/b.md", memory("b"))
        repo.commit("add b", "2025-03-01T10:00:00+00:00")
        repo.mv("memory/a.md", "memory/c.md")

    def days(**env) -> dict:
        rows = cli("health", "--format", "json", "--today", "2025-04-01", store, env=env).json()
        return {row["path"]: row["days_since_changed"] for row in rows}

    first = days()
    if change == "merge aborted":
        assert first["memory/a.md"] == 12  # the side's edit, as the merge will leave it
        repo.run("merge", "--abort")
    else:
        assert first["memory/c.md"] == 89  # a.md's day (2025-01-02), moved
        repo.mv("memory/c.md", "memory/a.md")
        repo.mv("memory/b.md", "memory/c.md")  # c.md is now b.md, changed on another day
    assert days() == days(MEMLINT_NO_CACHE="1")


# ---------------------------------------------------------------- inputs a kept value depends on (found by an audit)


def _replace_commit_date(repo: GitRepo, sha: str, old: str, new: str) -> None:
    """`git replace` a commit by one of another date: `git log` then shows the new date under the same id."""
    text = repo.run("cat-file", "commit", sha)
    stamp = lambda iso: str(int(datetime.fromisoformat(iso).timestamp()))  # noqa: E731
    replaced = text.replace(f" {stamp(old)} +0000", f" {stamp(new)} +0000")
    assert replaced != text
    made = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=repo.root, input=replaced,
                          capture_output=True, text=True, check=True).stdout.strip()
    repo.run("replace", sha, made)


def test_a_replace_ref_that_redates_a_commit_reaches_the_kept_file_findings_and_days(tmp_path, check, cli):
    """A replaced commit keeps its id and shows another date: the findings kept
    per file (MEM401 here) and health's days since a change follow it."""
    repo = _memory_repo(tmp_path)
    repo.write("memory/MEMORY.md", "# Memory\n\n- [A](a.md) — a\n- [B](b.md) — b\n")
    repo.write("memory/b.md", memory("b").replace("created: 2025-01-02", "created: 2025-03-01"))
    sha = repo.commit("add b", "2025-03-01T12:00:00+00:00")
    store = repo.root / "memory"
    health = lambda **env: cli("health", "--format", "json", "--today", TODAY, store, env=env).output  # noqa: E731
    check(repo, "--select", "MEM401")  # the kept per-file findings (a selection of its own: no whole-run findings reused)
    health()
    _replace_commit_date(repo, sha, "2025-03-01T12:00:00+00:00", "2025-05-01T12:00:00+00:00")
    found = check(repo, "--select", "MEM401")
    assert found == check(repo, "--select", "MEM401", "--no-cache")
    assert ("memory/b.md", "MEM401") in {(path, code) for path, _, code, _ in found}  # 61 days before git's add
    assert health() == health(MEMLINT_NO_CACHE="1")


def test_a_schema_file_a_ref_reads_is_part_of_the_key(tmp_path):
    repo = _memory_repo(tmp_path)
    repo.write("memory/a.md", memory("a").replace("type: project", "type: project\nowner: 5"))
    repo.write(".memlint.yaml", "schema: my.json\n")
    repo.write("my.json", '{"type": "object", "properties": {"owner": {"$ref": "owner.json"}}}')
    repo.write("owner.json", '{"type": "integer"}')
    repo.commit("a schema in two files", "2025-02-01T10:00:00+00:00")
    # The program, a process a run: this one loads a schema once (the suite's own runs name other files)
    program = lambda *extra: _findings_of(_program(repo, *extra).communicate(timeout=60)[0])  # noqa: E731
    for select in ((), ("--select", "MEM003")):
        assert "MEM003" not in {code for _, _, code, _ in program(*select)}
    (repo.root / "owner.json").write_text('{"type": "string"}')
    for select in ((), ("--select", "MEM003")):  # the whole run's findings, and the per-file ones
        found = program(*select)
        assert found == program(*select, "--no-cache")
        assert ("memory/a.md", "MEM003") in {(path, code) for path, _, code, _ in found}


def test_a_folder_a_retired_memory_was_found_in_turned_into_a_link_out(tmp_path, check):
    """`supersedes: .archive/old.md` found a file of the repository; the
    folder now links out of it: the reference names no memory any more."""
    repo = _memory_repo(tmp_path)
    repo.write("memory/MEMORY.md", "# Memory\n\n- [A](a.md) — a\n- [New](new.md) — new\n")
    repo.write("memory/new.md", memory("new").replace("type: project", "type: project\nsupersedes: .archive/old.md"))
    repo.write("memory/.archive/old.md", memory("old").replace("type: project", "type: project\nstatus: superseded"))
    repo.commit("archive", "2025-02-01T10:00:00+00:00")
    assert "MEM503" not in {code for _, _, code, _ in same_as_without_cache(check, repo)}
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(repo.root / "memory/.archive/old.md", outside / "old.md")
    shutil.rmtree(repo.root / "memory/.archive")
    (repo.root / "memory/.archive").symlink_to(outside)
    assert ("memory/new.md", "MEM503") in {(path, code) for path, _, code, _ in same_as_without_cache(check, repo)}


def test_a_secret_in_a_file_not_decoded_is_found_once_it_is_no_link(tmp_path, check):
    """Latin-1 text is scanned as it is on disk, and a symbolic link is not:
    the same bytes as a regular file are scanned, not given a link's answer."""
    repo = _memory_repo(tmp_path)
    token = "gh" + "p_" + "R4nd0mT0k3nV4lu3Xq9Zk2Lm8Np5Qr7St1Uv3"
    (repo.root / "data").mkdir()
    (repo.root / "data/x.md").write_bytes(b"caf\xe9 notes\ntoken = " + token.encode() + b"\n")
    (repo.root / "memory/x.md").symlink_to("../data/x.md")
    repo.run("add", "-A")
    repo.commit("a link to a Latin-1 note", "2025-02-01T10:00:00+00:00")
    assert "MEM601" not in {code for _, _, code, _ in same_as_without_cache(check, repo)}
    (repo.root / "memory/x.md").unlink()
    shutil.copy(repo.root / "data/x.md", repo.root / "memory/x.md")
    assert ("memory/x.md", "MEM601") in {(path, code) for path, _, code, _ in same_as_without_cache(check, repo)}


def test_commit_messages_are_read_as_utf8_whatever_git_is_told_to_write(tmp_path, cli):
    """health matches keywords in commit messages; `i18n.logOutputEncoding`
    would re-encode them: memlint asks git for UTF-8."""
    repo = _memory_repo(tmp_path)
    repo.write("memory/a.md", memory("a").replace("type: project", "type: project\ntags: [café]"))
    repo.commit("worked on the café hours", "2025-02-20T10:00:00+00:00")
    store = repo.root / "memory"
    health = lambda **env: cli("health", "--format", "json", "--today", TODAY, store, env=env).output  # noqa: E731
    before = health()
    repo.run("config", "i18n.logOutputEncoding", "ISO-8859-1")
    assert health() == health(MEMLINT_NO_CACHE="1") == before


def test_outside_git_the_cache_goes_under_a_home_that_exists_and_is_made_nowhere_else(tmp_path, monkeypatch):
    """The user cache folder outside a repository: made under an existing
    home, or in an absolute XDG_CACHE_HOME (made, as the XDG spec says); no
    cache (OSError, which the cache takes for "none") for a home that does
    not exist, an empty HOME (Python reads it as /) or a relative one."""
    from memlint.statedir import state_dir

    store = tmp_path / "store"
    store.mkdir()
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert state_dir(store, store).is_relative_to(tmp_path / "home" / ".cache" / "memlint")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg" / "cache"))
    assert state_dir(store, store).is_relative_to(tmp_path / "xdg" / "cache" / "memlint")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.chdir(tmp_path)
    for home in (str(tmp_path / "no-home"), "", "home"):
        monkeypatch.setenv("HOME", home)
        with pytest.raises(OSError):
            state_dir(store, store)
    assert not (tmp_path / "no-home").exists() and not (tmp_path / ".cache").exists()

"""memlint under the real pre-commit program, in throwaway git repositories.

The local config is made from this repository's .pre-commit-hooks.yaml: each
hook keeps its id, filters, pass_filenames and arguments, and only its entry
runs this checkout (`python -m memlint` with PYTHONPATH) through
`language: system` instead of an installed package. Commits go through
`git commit` and the installed git hook, as a user's do.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import memlint.cli
from memlint.rules import all_rules
from tests.conftest import REPO

MANIFEST = REPO / ".pre-commit-hooks.yaml"
INDEX = "# Index\n- [A](a.md) — the first memory\n"
GOOD = "---\nname: a\ndescription: first\ntype: user\n---\nBody\n"
WRONG_TYPE = "---\nname: b\ndescription: second\ntype: bogus\n---\nBody\n"  # MEM003 on line 4


def manifest_hooks() -> list[dict]:
    return yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    return tmp_path_factory.mktemp("pre-commit-home")


class Repo:
    """A git repository with pre-commit installed for some of memlint's hooks."""

    def __init__(self, path: Path, home: Path):
        self.path = path
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
        self.env.update(
            PYTHONPATH=str(REPO),
            PRE_COMMIT_HOME=str(home),
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_CONFIG_NOSYSTEM="1",
            GIT_AUTHOR_NAME="Test",
            GIT_AUTHOR_EMAIL="test@example.com",
            GIT_COMMITTER_NAME="Test",
            GIT_COMMITTER_EMAIL="test@example.com",
            GIT_AUTHOR_DATE="2026-01-05T12:00:00+00:00",
            GIT_COMMITTER_DATE="2026-01-05T12:00:00+00:00",
        )
        self.env.pop("GITHUB_ACTIONS", None)
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(args, cwd=self.path, env=self.env, capture_output=True, text=True, timeout=120)

    def git(self, *args: str) -> subprocess.CompletedProcess:
        done = self.run("git", *args)
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    def write(self, files: dict[str, str]) -> None:
        for rel, text in files.items():
            target = self.path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text(encoding="utf-8")

    def install_hooks(self, *hook_ids: str) -> None:
        """Local hooks made from the manifest entries ``hook_ids``, committed and installed."""
        wanted = {h["id"]: h for h in manifest_hooks()}
        hooks = []
        for hook_id in hook_ids:
            hook = dict(wanted[hook_id], language="system")
            assert hook["entry"].startswith("memlint ")
            hook["entry"] = f"{shlex.quote(sys.executable)} -m {hook['entry']}"
            hooks.append(hook)
        self.write({".pre-commit-config.yaml": yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]})})
        done = self.run(sys.executable, "-m", "pre_commit", "install")
        assert done.returncode == 0, done.stdout + done.stderr

    def commit(self, *args: str) -> subprocess.CompletedProcess:
        """`git commit` through the installed hook: returncode, stdout + stderr in .output."""
        done = self.run("git", "commit", "-q", "-m", "change", *args)
        done.output = done.stdout + done.stderr
        return done

    def commits(self) -> int:
        done = self.run("git", "rev-list", "--count", "HEAD")
        return int(done.stdout) if done.returncode == 0 else 0

    def committed(self, rel: str) -> str:
        return self.git("show", f"HEAD:{rel}").stdout


@pytest.fixture
def repo(tmp_path, pre_commit_home):
    return Repo(tmp_path / "repo", pre_commit_home)


def test_manifest_is_valid_for_pre_commit_and_every_hook_is_documented():
    done = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    hooks = manifest_hooks()
    ids = [h["id"] for h in hooks]
    assert len(ids) == len(set(ids))
    for hook in hooks:
        assert f"`{hook['id']}`" in readme, f"hook {hook['id']} is not in README.md"
        assert hook["entry"].startswith("memlint "), hook["id"]
        # Filenames are only ever a filter on what to report (or fix), and one
        # process loads the store once.
        assert hook.get("require_serial") is True, hook["id"]


def test_whole_store_hooks_take_no_filenames_and_options_exist():
    """Store-level hooks never see a subset of files; every option an entry uses is real."""
    check_options = {opt for p in memlint.cli.check.params for opt in p.opts + p.secondary_opts}
    tags = {t for rule in all_rules() for t in getattr(rule, "TAGS", ())}
    for hook in manifest_hooks():
        argv = shlex.split(hook["entry"])
        if argv[1] != "check":
            continue
        assert {a for a in argv[2:] if a.startswith("--")} <= check_options, hook["id"]
        if "--select" in argv:
            selected = argv[argv.index("--select") + 1]
            assert selected in tags, hook["id"]
        per_file = "--scope" in argv and argv[argv.index("--scope") + 1] == "file"
        assert hook.get("pass_filenames", True) is per_file, hook["id"]


def test_clean_commit_passes_and_a_bad_one_is_blocked_with_the_finding(repo):
    repo.install_hooks("memlint")
    repo.write({"memory/MEMORY.md": INDEX, "memory/a.md": GOOD, "notes.txt": "not markdown\n"})
    repo.git("add", ".")
    first = repo.commit()
    assert first.returncode == 0, first.output
    assert re.search(r"^memlint\.+Passed$", first.output, re.M)

    repo.write({"memory/MEMORY.md": INDEX + "- [B](b.md) — the second\n", "memory/b.md": "# B\nno frontmatter\n"})
    repo.git("add", ".")
    blocked = repo.commit()
    assert blocked.returncode == 1
    assert re.search(r"^memlint\.+Failed$", blocked.output, re.M)
    assert "memory/b.md:1:1: MEM001 no frontmatter" in blocked.output
    assert repo.commits() == 1


def test_the_hook_judges_staged_content_and_ignores_untracked_files(repo):
    repo.install_hooks("memlint", "memlint-frontmatter")
    repo.write({"memory/MEMORY.md": INDEX + "- [B](b.md) — the second\n", "memory/a.md": GOOD, "memory/b.md": WRONG_TYPE})
    repo.git("add", ".")
    fixed = WRONG_TYPE.replace("bogus", "feedback")
    repo.write({"memory/b.md": fixed})  # fixed on disk, not staged

    blocked = repo.commit()
    assert blocked.returncode == 1, blocked.output
    # both hooks report the staged line, not the working copy
    assert blocked.output.count("memory/b.md:4:1: MEM003") == 2, blocked.output
    assert repo.read("memory/b.md") == fixed  # pre-commit put the unstaged fix back

    repo.git("add", "memory/b.md")
    repo.write({"memory/b.md": "broken on disk only\n", "memory/c.md": "# untracked, never added\n"})
    passed = repo.commit()
    assert passed.returncode == 0, passed.output
    assert repo.committed("memory/b.md") == fixed
    assert repo.read("memory/b.md") == "broken on disk only\n"


def test_pre_commit_run_by_hand_judges_the_files_on_disk(repo):
    """`pre-commit run --all-files` makes no commit and stashes nothing: the
    work tree is what is judged, as by every other hook."""
    repo.install_hooks("memlint")
    repo.write({"memory/MEMORY.md": INDEX, "memory/a.md": GOOD})
    repo.git("add", ".")
    assert repo.commit().returncode == 0
    repo.write({"memory/MEMORY.md": INDEX + "- [Missing](nope.md) — not there\n"})  # unstaged
    by_hand = repo.run(sys.executable, "-m", "pre_commit", "run", "--all-files")
    assert by_hand.returncode == 1 and "memory/MEMORY.md:3:3: MEM202" in by_hand.stdout, by_hand.stdout
    repo.git("add", ".")
    repo.write({"memory/MEMORY.md": INDEX})  # staged broken, fixed on disk
    assert repo.run(sys.executable, "-m", "pre_commit", "run", "--all-files").returncode == 0
    assert repo.commit().returncode == 1  # the commit holds the broken line


def test_commit_all_is_judged_on_its_temporary_index(repo):
    repo.install_hooks("memlint")
    repo.write({"memory/MEMORY.md": INDEX, "memory/a.md": GOOD})
    repo.git("add", ".")
    assert repo.commit().returncode == 0
    repo.write({"memory/a.md": "# A\nfrontmatter removed\n"})  # tracked, modified, not staged
    blocked = repo.commit("-a")  # git hands the hook a temporary index holding the change
    assert blocked.returncode == 1, blocked.output
    assert "memory/a.md:1:1: MEM001" in blocked.output
    assert repo.commits() == 1


def test_store_rules_judge_the_whole_store_not_the_staged_files(repo):
    repo.install_hooks("memlint-budget", "memlint-frontmatter")
    long_index = INDEX + "".join(f"- [M{i}](a.md) — entry {i}\n" for i in range(3))
    repo.write({
        ".memlint.yaml": "rules:\n  root-budget: {max-lines: 3}\n",
        "memory/MEMORY.md": long_index,
        "memory/a.md": GOOD,
    })
    repo.git("add", ".")
    repo.git("commit", "-q", "--no-verify", "-m", "over budget, hooks skipped")

    repo.write({"memory/a.md": GOOD + "More body.\n"})
    repo.git("add", "memory/a.md")  # the only staged file: pre-commit's subset
    blocked = repo.commit()
    assert blocked.returncode == 1, blocked.output
    assert re.search(r"^memlint frontmatter\.+Passed$", blocked.output, re.M)
    assert re.search(r"^memlint budgets\.+Failed$", blocked.output, re.M)
    assert "memory/MEMORY.md:4:1: MEM101" in blocked.output


def test_links_hook_blocks_a_commit_that_deletes_a_linked_memory(repo):
    repo.install_hooks("memlint-links")
    repo.write({"memory/MEMORY.md": INDEX + "- [B](b.md) — the second\n", "memory/a.md": GOOD,
                "memory/b.md": GOOD.replace("name: a", "name: b")})
    repo.git("add", ".")
    assert repo.commit().returncode == 0
    repo.git("rm", "-q", "memory/b.md")
    repo.write({"memory/a.md": GOOD + "See the index.\n"})  # pre-commit runs file hooks only on staged files
    repo.git("add", "memory/a.md")
    blocked = repo.commit()
    assert blocked.returncode == 1, blocked.output
    assert re.search(r"memory/MEMORY\.md:3:\d+: MEM2\d\d", blocked.output), blocked.output


@pytest.mark.parametrize("config", ["", "root: memory/MEMORY.md\n"])
def test_hooks_judge_a_store_a_sparse_checkout_leaves_out_from_the_index(repo, config):
    """A sparse checkout of docs/ alone: the memory store is in the commit
    but not on disk. Every hook runs (none stops for a store it cannot find
    on disk), and a change to the store made from there is judged."""
    repo.install_hooks("memlint", "memlint-files", "memlint-backfill")
    repo.write({".memlint.yaml": config or "{}\n", "memory/MEMORY.md": INDEX + "- [B](b.md) — the second\n",
                "memory/a.md": GOOD, "memory/b.md": GOOD.replace("name: a", "name: b"), "docs/guide.md": "# Guide\n"})
    repo.git("add", ".")
    repo.git("commit", "-q", "--no-verify", "-m", "the store, undated")
    repo.git("sparse-checkout", "set", "docs")
    assert not (repo.path / "memory").exists()
    repo.write({"docs/guide.md": "# Guide\nMore.\n"})
    repo.git("add", "docs/guide.md")
    passed = repo.commit()
    assert passed.returncode == 0, passed.output
    assert repo.commits() == 2
    repo.git("rm", "-q", "--cached", "--sparse", "memory/b.md")  # the index entry of MEMORY.md's second link
    repo.write({"docs/guide.md": "# Guide\nMore, again.\n"})
    repo.git("add", "docs/guide.md")
    blocked = repo.commit()
    assert blocked.returncode == 1, blocked.output
    assert re.search(r"memory/MEMORY\.md:3:\d+: MEM202", blocked.output), blocked.output
    assert "Traceback" not in blocked.output
    assert repo.commits() == 2


def test_backfill_hook_writes_dates_fails_then_the_recommit_passes(repo):
    repo.install_hooks("memlint-backfill")
    repo.write({".memlint.yaml": "preset: moc\n", "memory/MEMORY.md": INDEX})
    repo.git("add", ".")
    repo.git("commit", "-q", "--no-verify", "-m", "the store, before this memory")
    repo.write({"memory/a.md": "---\ntitle: A\n---\nBody\n"})
    repo.git("add", "memory/a.md")
    first = repo.commit()
    assert first.returncode == 1, first.output  # the fixer changed a file: the commit stops
    assert "files were modified by this hook" in first.output
    written = repo.read("memory/a.md")
    # a file added in this very commit is created the day the commit will
    # carry: its author date, which git exports to the hook (set here)
    created = re.search(r"^created: '?(\d{4}-\d\d-\d\d)", written, re.M)
    assert created and created.group(1) == "2026-01-05", written
    assert repo.commits() == 1

    repo.git("add", "memory/a.md")
    second = repo.commit()
    assert second.returncode == 0, second.output
    assert repo.committed("memory/a.md") == written


def _readme_block(heading: str, lang: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return section.split(f"```{lang}\n", 1)[1].split("```", 1)[0]


def test_readme_pre_commit_entry_and_workflow_are_valid(tmp_path):
    from memlint import __version__

    config = tmp_path / "pre-commit-config.yaml"
    config.write_text(_readme_block("pre-commit", "yaml"))
    done = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config", str(config)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    [entry] = yaml.safe_load(config.read_text())["repos"]
    assert entry["rev"] == f"v{__version__}" and entry["hooks"] == [{"id": "memlint"}]

    workflow = yaml.safe_load(_readme_block("GitHub Actions", "yaml"))
    steps = workflow["jobs"]["memlint"]["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[0]["with"]["fetch-depth"] == 0
    runs = [s.get("run", "") for s in steps]
    assert "memlint check --format github" in runs
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif@") for s in steps)
    assert "memlint report --github-summary" in runs


def test_a_file_at_the_top_named_like_an_option_is_judged_as_a_file(repo):
    """pre-commit puts the filenames after the hook's args: the manifest's
    args end with `--`, so `-draft.md` is a file, not an unknown option."""
    repo.install_hooks("memlint-files", "memlint-frontmatter", "memlint-backfill")
    repo.write({"MEMORY.md": "# Index\n- [D](-draft.md) — a draft\n", "-draft.md": "# D\nno frontmatter\n"})
    repo.git("add", "--", ".")
    blocked = repo.commit()
    assert blocked.returncode == 1 and "No such option" not in blocked.output
    assert "-draft.md:1:1: MEM001 no frontmatter" in blocked.output


def test_the_hooks_do_not_run_at_a_push(repo, tmp_path):
    """A push is not a commit: the working tree is not what is pushed, and
    the backfill fixer must not rewrite files and refuse the push."""
    repo.install_hooks("memlint", "memlint-backfill")
    done = repo.run(sys.executable, "-m", "pre_commit", "install", "--hook-type", "pre-push")
    assert done.returncode == 0, done.stdout + done.stderr
    repo.write({"memory/MEMORY.md": INDEX, "memory/a.md": GOOD})
    repo.git("add", ".")
    repo.git("commit", "-q", "--no-verify", "-m", "no dates yet")
    repo.git("init", "-q", "--bare", str(tmp_path / "remote.git"))
    repo.git("remote", "add", "origin", str(tmp_path / "remote.git"))
    pushed = repo.run("git", "push", "-q", "origin", "main")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert repo.read("memory/a.md") == GOOD  # no dates written at the push

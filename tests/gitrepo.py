"""A small builder for real git repositories in tests (no mocks).

    repo = GitRepo(tmp_path)
    repo.write("notes/a.md", "hello\\n")
    sha = repo.commit("add a", date="2024-03-01T10:00:00+00:00")

Identity, dates and config come from the environment and `-c`, so no global
git config is needed and the user's own config cannot leak in.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

DEFAULT_DATE = "2025-01-02T03:04:05+00:00"


class GitRepo:
    def __init__(self, root: Path, *, init: bool = True, branch: str = "main"):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "GIT_AUTHOR_NAME": "Memlint Test", "GIT_AUTHOR_EMAIL": "test@memlint.invalid",
            "GIT_COMMITTER_NAME": "Memlint Test", "GIT_COMMITTER_EMAIL": "test@memlint.invalid",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
            "HOME": str(self.root),  # belt and braces for old gits without GIT_CONFIG_GLOBAL
        }
        if init:
            self.run("init", "-q")
            self.run("symbolic-ref", "HEAD", f"refs/heads/{branch}")  # `init -b` needs git 2.28

    def path(self, rel: str) -> Path:
        return self.root / rel

    def run(self, *args: str, env: dict[str, str] | None = None) -> str:
        """Run git in the repository; return stdout (raises with stderr on failure)."""
        proc = subprocess.run(["git", "-c", "commit.gpgSign=false", "-c", "core.autocrlf=false", *args],
                              cwd=self.root, env={**self.env, **(env or {})},
                              capture_output=True, text=True, encoding="utf-8", errors="surrogateescape")
        if proc.returncode:
            why = (proc.stderr.strip() + "\n" + proc.stdout.strip()).strip()  # merge conflicts go to stdout
            raise RuntimeError(f"git {' '.join(args)} failed ({proc.returncode}): {why}")
        return proc.stdout

    def write(self, rel: str, text: str, *, add: bool = True) -> Path:
        path = self.path(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))  # bytes: no newline translation
        if add:
            self.add(rel)
        return path

    def read(self, rel: str) -> str:
        return self.path(rel).read_bytes().decode("utf-8")

    def add(self, *rels: str) -> None:
        self.run("add", "--", *rels)

    def mv(self, old: str, new: str) -> None:
        self.path(new).parent.mkdir(parents=True, exist_ok=True)
        self.run("mv", "--", old, new)

    def rm(self, rel: str) -> None:
        self.run("rm", "-q", "--", rel)

    def commit(self, message: str = "commit", date: str = DEFAULT_DATE, committer_date: str | None = None,
               *, allow_empty: bool = False) -> str:
        """Commit what is staged with fixed dates; returns the new HEAD sha."""
        env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": committer_date or date}
        self.run("commit", "-q", "--no-gpg-sign", "--no-verify", "-m", message,
                 *(["--allow-empty"] if allow_empty else []), env=env)
        return self.head()

    def head(self) -> str:
        return self.run("rev-parse", "HEAD").strip()

    def branch(self, name: str) -> None:
        self.run("branch", name)

    def checkout(self, name: str, *, new: bool = False) -> None:
        self.run("checkout", "-q", *(["-b"] if new else []), name)

    def merge(self, name: str, message: str | None = None, date: str = DEFAULT_DATE,
              *, commit: bool = True) -> str | None:
        """Merge `name` with a merge commit (no fast-forward); returns the merge sha,
        or None with commit=False (left staged, to finish with `commit`)."""
        env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        self.run("merge", "-q", "--no-ff", "--no-gpg-sign", "--no-verify",
                 *(["-m", message or f"merge {name}"] if commit else ["--no-commit"]), name, env=env)
        return self.head() if commit else None

"""Shared fixtures: build stores in temp dirs, run the CLI in-process."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from memlint.cli import main

REPO = Path(__file__).resolve().parent.parent
TESTDATA = REPO / "testdata"
SHARED = REPO.parent / "shared"


def write_files(base: Path, files: dict[str, str | bytes], *, exact: bool = False) -> Path:
    """Write ``files`` under ``base``. Text starting with a newline is
    dedented (a triple-quoted block), unless ``exact``: then every character,
    line endings included, is written as given."""
    for rel, content in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif exact:
            path.write_text(content, encoding="utf-8", newline="")
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n") if content.startswith("\n") else content, encoding="utf-8")
    return base


@pytest.fixture(autouse=True, scope="session")
def _private_cache_folder(tmp_path_factory):
    """memlint's cache goes under .git of the test's repository, else the user
    cache folder: point that at a temporary one, never the real ~/.cache."""
    import os

    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old


@pytest.fixture
def make_store(tmp_path):
    """make_store({"MEMORY.md": "...", "a.md": "..."}) -> folder with those files."""

    def make(files, sub: str = "store") -> Path:
        return write_files(tmp_path / sub, files)

    return make


class CliResult:
    def __init__(self, result):
        self.exit_code = result.exit_code
        self.output = result.stdout
        self.stderr = result.stderr
        self.exception = result.exception

    def json(self):
        return json.loads(self.output)


@pytest.fixture
def cli(monkeypatch):
    """cli("check", path, ...) runs memlint in-process; never catches exceptions silently."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("MEMLINT_DEBUG", "1")  # a crash in a test shows its traceback
    monkeypatch.delenv("PRE_COMMIT", raising=False)  # set when the suite itself runs as a hook

    def run(*args, cwd: Path | None = None, env=None) -> CliResult:
        runner = CliRunner()
        if cwd is not None:
            monkeypatch.chdir(cwd)
        result = runner.invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)
        return CliResult(result)

    return run


@pytest.fixture
def findings(cli):
    """findings(path, *extra_args) -> list of (path, line, code) from --format json."""

    def run(path, *extra):
        result = cli("check", "--format", "json", *extra, path)
        assert result.exit_code in (0, 1), result.output + result.stderr
        return [(f["path"], f["line"], f["code"]) for f in result.json()]

    return run


CORPORA = {  # name: (branch, store folder inside the repo)
    "khursheed": ("main", "."),
    "ssam": ("main", "memory"),
    "nicola": ("master", "."),
    "ahmed": ("main", "memory"),
}


@pytest.fixture(scope="session")
def corpora(tmp_path_factory):
    """The real stores of ../shared/corpora imported into git repos: {name: repo path}."""
    import gzip
    import subprocess

    source = SHARED / "corpora"
    if not source.is_dir():
        pytest.skip("../shared/corpora is not present")
    base = tmp_path_factory.mktemp("corpora")
    repos = {}
    for name, (branch, _) in CORPORA.items():
        repo = base / name
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        with gzip.open(source / f"{name}.fe.gz", "rb") as stream:
            subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=stream.read(), check=True)
        subprocess.run(["git", "-C", str(repo), "checkout", "-q", branch], check=True)
        repos[name] = repo
    return repos

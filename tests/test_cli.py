"""The command line as a user drives it."""
from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memlint.rules import all_rules

ROOT = "# Index\n- [A](a.md) — " + "x" * 200 + "\n"
MEM = "---\nname: a\ndescription: d\ntype: user\n---\nBody\n"
NOFM = "# B\nno frontmatter\n"


def test_exit_codes(make_store, cli):
    clean = make_store({"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": MEM}, sub="clean")
    warn = make_store({"MEMORY.md": ROOT, "a.md": MEM}, sub="warn")
    err = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM}, sub="err")
    assert cli("check", clean).exit_code == 0
    assert cli("check", warn).exit_code == 0  # warnings alone pass
    assert cli("check", "--strict", warn).exit_code == 1
    assert cli("check", err).exit_code == 1


def test_the_program_writes_its_whole_report_and_exits_with_the_check_s_code(make_store, cli):
    """``python -m memlint`` (and the ``memlint`` script) leave with os._exit,
    skipping the interpreter's teardown: the report still arrives whole,
    flushed, and the exit code is the check's."""
    checkout = Path(__file__).resolve().parents[1]
    env = {**{k: v for k, v in os.environ.items() if k not in ("PRE_COMMIT", "GITHUB_ACTIONS")},
           "PYTHONPATH": str(checkout), "MEMLINT_NO_CACHE": "1"}
    roots = "".join(f"- [Memory {i}](m{i}.md) — " + "x" * 160 + "\n" for i in range(400))  # 400 MEM102
    store = make_store({"MEMORY.md": "# Index\n" + roots, **{f"m{i}.md": NOFM for i in range(400)}})

    def program(*args):
        return subprocess.run([sys.executable, "-m", "memlint", *map(str, args)], capture_output=True, text=True, env=env)

    done = program("check", "--strict", "--format", "json", store)
    assert done.returncode == 1, done.stderr
    assert done.stdout == cli("check", "--strict", "--format", "json", store).output
    assert len(json.loads(done.stdout)) >= 800
    clean = make_store({"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": MEM}, sub="clean")
    assert program("check", clean).returncode == 0
    missing = program("check", store / "nowhere")
    assert missing.returncode == 2 and "nowhere: no such file or folder" in missing.stderr
    assert program("--version").stdout.startswith("memlint, version")


def test_the_program_keeps_its_exit_code_with_stdout_or_stderr_closed(make_store):
    """``memlint check >&-`` (or ``2>&-``, as a cron job or a hook may run
    it): Python starts with that stream set to None, and leaving through
    ``run`` must not trip on it: the exit code is the check's, no traceback."""
    checkout = Path(__file__).resolve().parents[1]
    env = {**{k: v for k, v in os.environ.items() if k not in ("PRE_COMMIT", "GITHUB_ACTIONS")},
           "PYTHONPATH": str(checkout), "MEMLINT_NO_CACHE": "1"}
    clean = make_store({"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": MEM}, sub="clean")
    err = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM}, sub="err")

    def program(closed: int, *args):
        kept = subprocess.PIPE
        return subprocess.run([sys.executable, "-m", "memlint", *map(str, args)], env=env, text=True,
                              stdout=None if closed == 1 else kept, stderr=None if closed == 2 else kept,
                              preexec_fn=lambda: os.close(closed))

    for closed in (1, 2):
        done = program(closed, "check", clean)
        assert done.returncode == 0, (closed, done.stdout, done.stderr)
        assert "Traceback" not in (done.stderr or "") + (done.stdout or "")
        assert program(closed, "check", err).returncode == 1
        assert program(closed, "--version").returncode == 0


def test_default_path_is_current_folder(make_store, cli):
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    result = cli("check", cwd=store)
    assert result.exit_code == 1 and result.output.startswith("b.md:1:1: MEM001")


def test_store_discovered_below_repository_top(tmp_path, make_store, cli):
    make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM}, sub="repo/.claude/memory")
    make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM}, sub="repo/memory")
    result = cli("check", "--format", "json", tmp_path / "repo")
    paths = sorted(f["path"] for f in result.json())
    # hidden folders are not walked, except when named
    assert paths == ["b.md"] or paths == ["memory/b.md"]
    hidden = cli("check", "--format", "json", tmp_path / "repo" / ".claude" / "memory")
    assert [f["code"] for f in hidden.json()] == ["MEM001"]


@pytest.mark.parametrize("command", ["check", "backfill"])
def test_a_folder_inside_a_store_is_checked_as_part_of_it(tmp_path, cli, command):
    """Named like a file of the store is: the whole store is read (links,
    orphans), and only the folder's files are reported on (or fixed)."""
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", "# Index\n- [A](a.md)\n- [S](sub/s.md)\n")
    for rel in ("a.md", "sub/s.md", "sub/deeper/t.md", "other/u.md"):
        repo.write(f"memory/{rel}", f"---\nname: {rel}\ndescription: d\ntype: user\n---\nAbout {rel}.\n")
    repo.commit("start", "2026-01-02T10:00:00+00:00")
    if command == "check":
        result = cli("check", "--format", "json", "--today", "2026-01-10", repo.root / "memory" / "sub")
        assert result.exit_code == 1, result.stderr
        assert sorted((f["path"], f["code"]) for f in result.json()) == [("memory/sub/deeper/t.md", "MEM201")]
    else:
        result = cli("backfill", "--dry-run", "--preset", "moc", repo.root / "memory" / "sub")
        assert result.exit_code == 0, result.stderr
        changed = sorted(line[len("+++ b/"):] for line in result.output.splitlines() if line.startswith("+++ b/"))
        assert changed == ["memory/sub/deeper/t.md", "memory/sub/s.md"]


def test_a_folder_that_cannot_be_searched_is_passed_over_in_discovery(tmp_path, make_store, cli, monkeypatch):
    """A folder beside the store that this user may not search (chmod 000,
    or /proc/1/fdinfo) hides nothing memlint needs: the store is still
    found and checked, not ended with "Permission denied" on a file that
    does not exist. (The permission is made to fail here: root, who runs
    the suite in CI, may search any folder.)"""
    make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM}, sub="repo/memory")
    private = tmp_path / "repo" / "scratch" / "private"
    private.mkdir(parents=True)
    real_is_file, real_is_dir = Path.is_file, Path.is_dir

    def denied(real):
        def check(self):
            if self.parent == private:
                raise PermissionError(13, "Permission denied", str(self))
            return real(self)
        return check

    monkeypatch.setattr(Path, "is_file", denied(real_is_file))
    monkeypatch.setattr(Path, "is_dir", denied(real_is_dir))
    result = cli("check", "--format", "json", tmp_path / "repo")
    assert result.exit_code == 1, result.stderr
    assert [(f["path"], f["code"]) for f in result.json()] == [("b.md", "MEM001")]  # no git: named in the store


@pytest.mark.parametrize("layout", ["mocs/tools.md", "topics/tools.md", "MOC-tools.md"])
def test_a_map_of_content_store_with_an_index_is_discovered_from_above(make_store, cli, tmp_path, layout):
    """INDEX.md beside a map of content is the moc preset's root: found from
    the repository's top, as when its folder is named."""
    make_store({"INDEX.md": "# Index\n- [[tools]]\n", layout: "# Tools\n- [B](b.md)\n",
                "b.md": "b\n", "x.md": "x\n"}, sub="repo/memory")
    from_top = cli("check", "--format", "json", tmp_path / "repo")
    named = cli("check", "--format", "json", tmp_path / "repo" / "memory")
    assert from_top.exit_code == named.exit_code == 1
    assert [f["code"] for f in from_top.json() if f["path"].endswith("x.md")] == ["MEM201"]
    assert sorted(f["code"] for f in from_top.json()) == sorted(f["code"] for f in named.json())


def test_a_docs_map_of_content_does_not_hide_the_memory_store_beside_it(make_store, cli, tmp_path):
    """An INDEX.md beside topics/ is a store only when nothing else is: a
    docs folder laid out so must not swallow the real memory store."""
    make_store({"INDEX.md": "- [I](topics/install.md)\n", "topics/install.md": "# i\n", "src/notes.md": "# s\n",
                "memory/MEMORY.md": "# M\n- [P](prefs.md) — p\n",
                "memory/prefs.md": "---\nname: p\ndescription: d\ntype: user\n---\nx\n"}, sub="repo")
    result = cli("check", "--format", "json", tmp_path / "repo")
    assert result.exit_code == 0 and result.json() == []
    assert cli("check", "--format", "json", tmp_path / "repo" / "memory").json() == []


def test_a_file_of_a_map_of_content_store_named_alone_is_judged_in_its_store(make_store, cli, tmp_path):
    """The per-file hooks name files: a moc store's file finds its store, as from above."""
    make_store({"vault/INDEX.md": "# Index\n- [K](MOC-kafka.md)\n", "vault/topics/x.md": "# x\n",
                "vault/MOC-kafka.md": "---\ntitle: K\n---\nsee [[missing-note]]\n"}, sub="repo")
    result = cli("check", "--format", "json", tmp_path / "repo" / "vault" / "MOC-kafka.md")
    assert [(f["path"], f["code"]) for f in result.json()] == [("MOC-kafka.md", "MEM202")]


def test_one_date_named_memory_beside_the_root_does_not_make_a_store_openclaw(make_store, cli):
    store = make_store({"MEMORY.md": "# M\n- [I](2026-03-01-outage.md) — i\n- [B](feedback_b.md) — b\n",
                        "2026-03-01-outage.md": "---\nname: o\ndescription: d\ntype: project\n---\nx\n",
                        "feedback_b.md": "no frontmatter\n"})
    assert [f["code"] for f in cli("check", "--format", "json", store).json()] == ["MEM001"]
    (store / "2026-03-02.md").write_text("- 09:00 deployed\n")  # two: a habit of daily logs
    assert cli("check", "--format", "json", "--summary", store).stderr.count("(openclaw)") == 1


def test_files_named_by_a_date_in_full_width_digits_do_not_make_a_store_openclaw(make_store, cli):
    """The daily-log globs take ASCII digits only: a name in other digits is
    no log, so it must not switch the store's preset to daily logs either."""
    log = "- 09:00 deployed\n"
    store = make_store({"MEMORY.md": "# M\n- [B](b.md) — b\n", "b.md": "---\nname: b\ndescription: d\ntype: user\n---\nx\n",
                        "２０２５-０１-０１.md": log, "２０２５-０１-０２.md": log,
                        "memory/２０２５-０１-０３.md": log})
    result = cli("check", "--format", "json", "--summary", store)
    assert "(claude-code)" in result.stderr and "(openclaw)" not in result.stderr


def test_a_folder_with_an_index_and_nothing_else_is_not_a_store_from_above(make_store, cli, tmp_path):
    make_store({"INDEX.md": "# Docs\n", "guide.md": "g\n"}, sub="repo/docs")
    result = cli("check", tmp_path / "repo")
    assert result.exit_code == 2 and "no memory store found" in result.stderr


def test_a_store_in_a_nested_repository_reports_the_outer_repositorys_paths(tmp_path, cli):
    """A submodule's store, linted from the superproject: its paths are the
    superproject's (GitHub annotations, a click in the editor); from inside
    the submodule, they are the submodule's."""
    from tests.gitrepo import GitRepo

    outer = GitRepo(tmp_path / "super")
    outer.write("README.md", "the project\n")
    outer.commit("init", "2024-01-05T10:00:00+00:00")
    inner = GitRepo(tmp_path / "super" / "vendor" / "agent")
    inner.write("memory/MEMORY.md", "# Index\n- [B](b.md)\n")
    inner.write("memory/b.md", NOFM)
    inner.commit("init", "2024-01-06T10:00:00+00:00")
    from_outer = cli("check", "--format", "json", "vendor/agent/memory", cwd=outer.root)
    assert [f["path"] for f in from_outer.json()] == ["vendor/agent/memory/b.md"]
    from_inner = cli("check", "--format", "json", "memory", cwd=inner.root)
    assert [f["path"] for f in from_inner.json()] == ["memory/b.md"]


@pytest.mark.parametrize("index", ["relative", "absolute"])
def test_a_hooks_index_is_not_read_in_a_nested_repository(tmp_path, cli, index):
    """git hands a hook GIT_INDEX_FILE: `.git/index` for a plain commit, an
    absolute lock file for `commit -a`. It is the superproject's index: a
    store in a nested repository is read from its own (it was read from the
    superproject's: exit 2, or no files and exit 0)."""
    from tests.gitrepo import GitRepo

    outer = GitRepo(tmp_path / "super")
    outer.write("README.md", "the project\n")
    outer.write("notes.md", "staged now\n")
    outer.commit("init", "2024-01-05T10:00:00+00:00")
    inner = GitRepo(tmp_path / "super" / "vendor" / "agent")
    inner.write("memory/MEMORY.md", "# Index\n- [B](b.md)\n")
    inner.write("memory/b.md", NOFM)
    inner.commit("init", "2024-01-06T10:00:00+00:00")
    named = ".git/index" if index == "relative" else str(outer.root / ".git" / "index")
    result = cli("check", "--staged", "--format", "json", "vendor/agent/memory", cwd=outer.root,
                 env={"GIT_INDEX_FILE": named})
    assert result.exit_code == 1, result.stderr
    assert [(f["path"], f["code"]) for f in result.json()] == [("vendor/agent/memory/b.md", "MEM001")]


def test_no_store_is_a_usage_error(tmp_path, cli):
    (tmp_path / "notes.md").write_text("hi\n")
    result = cli("check", tmp_path)
    assert result.exit_code == 2 and "no memory store found" in result.stderr


def test_missing_path_is_a_usage_error(tmp_path, cli):
    result = cli("check", tmp_path / "nope")
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_select_and_ignore(make_store, cli):
    store = make_store({"MEMORY.md": ROOT + "- [B](b.md)\n", "a.md": MEM, "b.md": NOFM})
    codes = lambda *a: sorted(f["code"] for f in cli("check", "--format", "json", *a, store).json())
    assert codes() == ["MEM001", "MEM102"]
    assert codes("--select", "MEM001") == ["MEM001"]
    assert codes("--select", "budget") == ["MEM102"]
    assert codes("--select", "MEM1") == ["MEM102"]
    assert codes("--ignore", "MEM001,MEM102") == []
    assert codes("--select", "Index-Line-Length") == codes("--select", "mem102") == ["MEM102"]  # any case, as in config
    assert codes("--ignore", "FRONTMATTER-MISSING") == ["MEM102"]
    bad = cli("check", "--select", "MEM9", store)
    assert bad.exit_code == 2 and "MEM9" in bad.stderr


def test_files_as_paths_report_only_those_files(make_store, cli):
    store = make_store({"MEMORY.md": ROOT, "a.md": NOFM, "b.md": NOFM})
    result = cli("check", "--format", "json", store / "a.md")
    assert [(f["path"], f["code"]) for f in result.json()] == [("a.md", "MEM001")]


def test_a_file_of_one_store_and_the_folder_of_another_report_each_as_named(tmp_path, make_store, cli):
    for name in ("a", "b"):
        make_store({"MEMORY.md": ROOT, "a.md": "Alpha has no frontmatter.\n",
                    "b.md": "Beta has none either, and says so.\n"}, sub=f"both/{name}")
    both = tmp_path / "both"
    def found(*paths):
        return sorted((f["path"], f["code"]) for f in cli("check", "--format", "json", *paths, cwd=both).json())

    assert ("a/b.md", "MEM001") in found("a")
    assert found("b", "a/a.md") == sorted(found("b") + found("a/a.md"))
    assert ("a/a.md", "MEM001") in found("a/a.md") and not any(path != "a/a.md" for path, _ in found("a/a.md"))


def test_file_outside_any_store_is_skipped(tmp_path, cli):
    (tmp_path / "x.md").write_text("hi\n")
    assert cli("check", tmp_path / "x.md").exit_code == 0


def test_github_format_is_default_under_actions(make_store, cli):
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    result = cli("check", store, env={"GITHUB_ACTIONS": "true"})
    assert result.output.startswith("::error file=b.md,line=1,col=1,title=MEM001 frontmatter-missing::")


def test_output_file(make_store, cli, tmp_path):
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    out = tmp_path / "report.json"
    result = cli("check", "--format", "json", "--output", out, store)
    assert result.output == "" and json.loads(out.read_text())[0]["code"] == "MEM001"


def test_rules_lists_every_rule(cli):
    out = cli("rules").output
    columns = {line.split()[0]: line.split()[:4] for line in out.splitlines()}
    for rule in all_rules():
        assert columns[rule.CODE] == [rule.CODE, rule.NAME, rule.SEVERITY, rule.SCOPE]
    rows = json.loads(cli("rules", "--format", "json").output)
    assert [r["code"] for r in rows] == sorted(r["code"] for r in rows)


def test_rule_shows_docs_by_code_or_name(cli):
    out = cli("rule", "MEM101").output
    assert out.startswith("MEM101 root-budget") and "Fires" in out and "Fix" in out and "max-lines: claude-code 200, openclaw null, moc 200" in out
    assert "budget-lines: claude-code null, openclaw null, moc 40, three-layer null, generic null" in out
    assert cli("rule", "root-budget").output == out
    assert cli("rule", "mem101").output == out
    missing = cli("rule", "MEM999")
    assert missing.exit_code == 2 and "no such rule" in missing.stderr


@pytest.mark.parametrize("rule", [r for r in all_rules() if r.OPTIONS], ids=lambda r: r.CODE)
def test_each_default_memlint_rule_prints_loads_back_from_the_config_as_itself(cli, tmp_path, rule):
    """`exempt: [**/archive/**]` did not load: `*` starts a YAML alias. Each
    printed default, written under the rule in .memlint.yaml, loads as the
    default it shows (for every preset, where they differ)."""
    from memlint import config
    from memlint.presets import PRESETS

    out = cli("rule", rule.CODE).output
    printed = out.split("Options and their defaults:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split(":", 1)[0].strip() for line in printed] == list(rule.OPTIONS)
    for line in printed:
        option, shown = line.strip().split(": ", 1)
        per_preset = {p: shown for p in PRESETS}
        if shown.startswith(next(iter(PRESETS)) + " "):  # `claude-code 200, openclaw null, ...`
            for p, after in zip(PRESETS, [*list(PRESETS)[1:], None]):
                shown = shown.removeprefix(p + " ")
                per_preset[p], _, shown = shown.partition(f", {after} ") if after else (shown, "", "")
        for preset, value in per_preset.items():
            path = tmp_path / ".memlint.yaml"
            path.write_text(f"preset: {preset}\nrules:\n  {rule.NAME}:\n    {option}: {value}\n")
            loaded = config.load(path).rule_config(rule, preset).options[option]
            default = config.Config(None, None, {}).rule_config(rule, preset).options[option]
            assert loaded == default, (preset, line)


@pytest.mark.parametrize("code, field, value", [
    ("MEM003", "type", "projekt"),
    ("MEM003", "type", None),  # missing: the finding is on line 1, the opening fence
    ("MEM004", "created", "2024-02-30"),
    ("MEM502", "expires", "2024-01-01"),
])
def test_the_suppression_rule_suggests_works_on_a_frontmatter_line(make_store, cli, code, field, value):
    memory = f"---\nname: a\ndescription: d\ntype: project\n{field}: {value}\n---\nA [link](gone.md).\n"
    memory = memory.replace("type: project\ntype", "type").replace("type: None\n", "")  # the type cases set type
    store = make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": memory})

    def found():
        result = cli("check", "--format", "json", "--today", "2026-11-30", store)
        return sorted((f["line"], f["code"]) for f in result.json() if f["path"] == "a.md")

    before = found()
    [line] = [at for at, c in before if c == code]
    advice = cli("rule", code).output.split("Suppress in a file:", 1)[1]
    lines = (store / "a.md").read_text().split("\n")
    if line > 1:  # above the key's line, as a YAML comment
        lines.insert(line - 1, advice.splitlines()[0].strip())
        moved = 1
    else:  # a missing key: the file-wide form, at the end
        lines.insert(len(lines) - 1, re.search(r"<!-- memlint-disable-file \w+ -->", advice).group(0))
        moved = 0
    (store / "a.md").write_text("\n".join(lines))
    # the finding is gone, the others stay (lower by the line added), and the frontmatter still reads
    assert found() == [(at + moved, c) for at, c in before if c != code]


@pytest.mark.parametrize("code", ["MEM101", "MEM103", "MEM104"])
def test_the_suppression_rule_suggests_works_past_a_cap(make_store, cli, code):
    """The finding sits on the first line past a cap: a comment added above
    it would become that line, so the advice must be one that still works."""
    entries = "".join(f"- [M{i}](m.md) — entry {i}\n" for i in range(230))
    long_body = "".join(f"Line {i} of a long memory.\n" for i in range(330))
    store = make_store({"MEMORY.md": "# M\n- [T](topics/t.md) — t\n" + entries,
                        "m.md": "---\nname: m\ndescription: d\ntype: user\n---\n" + long_body,
                        # a topic of few entries over its line cap (200): the finding is on line 201
                        "topics/t.md": "# T\n- [M](../m.md) — m\n" + long_body})
    target = {"MEM101": "MEMORY.md", "MEM103": "topics/t.md", "MEM104": "m.md"}[code]

    def found():
        return [f for f in cli("check", "--format", "json", "--select", code, store).json()]

    [finding] = found()
    assert finding["path"] == target
    advice = cli("rule", code).output.split("Suppress in a file:", 1)[1].splitlines()[0]
    directive = re.search(r"<!-- memlint-[\w-]+ \w+ -->", advice).group(0)
    lines = (store / target).read_text().split("\n")
    if "disable-next-line" in directive:
        lines.insert(finding["line"] - 1, directive)
    else:  # "at the end of the file"
        assert "at the end of the file" in advice
        lines.insert(len(lines) - 1, directive)
    (store / target).write_text("\n".join(lines))
    assert found() == []


def test_the_suppression_rule_suggests_for_an_unreadable_file_works(tmp_path, cli):
    """A directive inside a file memlint cannot read is never read: the advice is the config's ignore."""
    store = tmp_path / "s"
    store.mkdir()
    (store / "MEMORY.md").write_text("# M\n- [Y](y.md) — y\n")
    (store / "y.md").write_bytes(b"---\nname: y\ndescription: d\ntype: user\n---\ncaf\xe9\n")
    assert [f["code"] for f in cli("check", "--format", "json", store).json()] == ["MEM006"]
    advice = cli("rule", "MEM006").output
    assert "disable-file" not in advice
    setting = re.search(r"Suppress for a file: +rules: (\{.*\}\})", advice).group(1).replace("path/to/file.md", "y.md")
    (store / ".memlint.yaml").write_text(f"rules: {setting}\n")
    assert cli("check", "--format", "json", store).json() == []


def test_every_rule_is_documented_and_codes_are_unique():
    codes = [r.CODE for r in all_rules()]
    assert len(codes) == len(set(codes))
    names = [r.NAME for r in all_rules()]
    assert len(names) == len(set(names))
    for rule in all_rules():
        doc = rule.__doc__ or ""
        assert "Fires" in doc and "Fix" in doc and "Why" in doc, rule.CODE
        assert rule.SEVERITY in ("error", "warning") and rule.SCOPE in ("file", "store")


def test_two_stores_outside_git_keep_their_findings_apart(tmp_path, cli):
    for name in ("d1", "d2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "MEMORY.md").write_text("# Index\n- [a](a.md)\n")
    result = cli("check", "--format", "json", "d1", "d2", cwd=tmp_path)
    assert sorted((f["path"], f["code"]) for f in result.json()) == [("d1/MEMORY.md", "MEM202"), ("d2/MEMORY.md", "MEM202")]


def test_stores_of_two_repositories_are_named_apart_by_every_command(tmp_path, cli):
    """Two repositories, one file name: every command names each file as
    check does, by its path from the current folder."""
    from tests.gitrepo import GitRepo

    for name in ("a", "b"):
        repo = GitRepo(tmp_path / name)
        repo.write("MEMORY.md", "# M\n- [U](user_profile.md) — the user\n")
        repo.write("user_profile.md", f"---\nname: user {name}\ndescription: d\ntype: user\n---\nThe user.\n")
        repo.commit("init", "2026-11-01T10:00:00+00:00")
    today = ("--today", "2026-11-30")
    health = cli("health", "--format", "json", *today, ".", cwd=tmp_path).json()
    assert sorted(row["path"] for row in health) == ["a/user_profile.md", "b/user_profile.md"]
    triage = cli("triage", "--format", "json", *today, ".", cwd=tmp_path).json()
    assert sorted(row["path"] for row in triage) == ["a/user_profile.md", "b/user_profile.md"]
    graph = cli("graph", ".", cwd=tmp_path).output
    assert 'store["a (claude-code)"]' in graph and 'store["b (claude-code)"]' in graph
    golden = tmp_path / "golden.yaml"
    golden.write_text("- q: who is the user\n  expect: b/user_profile.md\n")
    [outcome] = cli("eval", "--format", "json", golden, ".", cwd=tmp_path).json()["questions"]
    assert outcome["found"] == "b/user_profile.md" and outcome["passed"]


def test_outside_git_a_store_below_the_current_folder_is_named_from_it(tmp_path, cli):
    """With no repository, files are named as the user can open them: from the current folder."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "MEMORY.md").write_text("# Index\n- [a](a.md)\n")
    below = cli("check", "--format", "json", "notes", cwd=tmp_path)
    assert [f["path"] for f in below.json()] == ["notes/MEMORY.md"]
    inside = cli("check", "--format", "json", ".", cwd=tmp_path / "notes")
    assert [f["path"] for f in inside.json()] == ["MEMORY.md"]


def test_each_store_uses_its_own_config(tmp_path, cli):
    for name in ("r1", "r2"):
        (tmp_path / name / ".git").mkdir(parents=True)
        (tmp_path / name / "MEMORY.md").write_text("# Index\n- [a](a.md)\n")
    (tmp_path / "r1" / ".memlint.yaml").write_text("rules:\n  broken-link: off\n")
    for order in (("r1", "r2"), ("r2", "r1")):
        result = cli("check", "--format", "json", *order, cwd=tmp_path)
        assert [(f["path"], f["code"]) for f in result.json()] == [("r2/MEMORY.md", "MEM202")], order


def test_symlinked_root_is_read_once(make_store, cli):
    store = make_store({"notes/index.md": "# Index\n- [A](a.md)\n", "a.md": MEM})
    (store / "MEMORY.md").symlink_to("notes/index.md")
    (store / "alias.md").symlink_to("a.md")
    result = cli("check", "--format", "json", store)
    # the harness reads MEMORY.md: links resolve from there; notes/index.md and
    # alias.md are not second copies (no orphan, no duplicate)
    assert [(f["path"], f["code"]) for f in result.json()] == []


def test_unwritable_output_is_a_usage_error(make_store, cli, tmp_path):
    store = make_store({"MEMORY.md": "# Index\n"})
    target = tmp_path / "no" / "such" / "dir" / "out.txt"
    result = cli("check", "--output", target, store, env={"MEMLINT_DEBUG": ""})
    assert result.exit_code == 2 and "internal error" not in result.stderr
    assert result.stderr.splitlines()[-1] == f"memlint: {target}: No such file or directory"  # not a temp file's
    if Path("/dev/full").exists():
        full = cli("graph", "--output", "/dev/full", store, env={"MEMLINT_DEBUG": ""})
        assert full.exit_code == 2 and full.stderr.splitlines()[-1] == "memlint: /dev/full: No space left on device"


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="/dev/stdout is a link to /proc/self/fd/1 on Linux")
def test_output_to_dev_stdout_appends_to_the_file_the_shell_opened(make_store, tmp_path):
    """``memlint check -o /dev/stdout >> ci.log``: /dev/stdout names the
    stream, not a file to replace: the log keeps what it held and gets the
    report after it (a rename over it left only the report)."""
    checkout = Path(__file__).resolve().parents[1]
    env = {**{k: v for k, v in os.environ.items() if k not in ("PRE_COMMIT", "GITHUB_ACTIONS")},
           "PYTHONPATH": str(checkout), "MEMLINT_NO_CACHE": "1"}
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    log = tmp_path / "ci.log"
    log.write_text("earlier step\n")
    with open(log, "ab") as out:
        done = subprocess.run([sys.executable, "-m", "memlint", "check", "-o", "/dev/stdout", str(store)],
                              env=env, stdout=out, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 1, done.stderr
    kept, report = log.read_text().split("\n", 1)
    assert kept == "earlier step" and report.startswith("b.md:1:1: MEM001 ")


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="/dev/stdout is a link to /proc/self/fd/1 on Linux")
def test_output_to_dev_stdout_on_a_non_blocking_pipe_delivers_the_whole_report(make_store, tmp_path):
    """A CI step can inherit a pipe left non-blocking by an earlier one: the
    report (over a pipe's 64 KiB) reaches its reader whole and the run's
    status is the findings', not a "Resource temporarily unavailable" part-way."""
    import fcntl
    import time

    checkout = Path(__file__).resolve().parents[1]
    env = {**{k: v for k, v in os.environ.items() if k not in ("PRE_COMMIT", "GITHUB_ACTIONS")},
           "PYTHONPATH": str(checkout), "MEMLINT_NO_CACHE": "1"}
    long_lines = "".join(f"- [{'m' * 180}](m.md) entry {i}\n" for i in range(1200))
    store = make_store({"MEMORY.md": "# Index\n" + long_lines, "m.md": NOFM})
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETFL, fcntl.fcntl(write_end, fcntl.F_GETFL) | os.O_NONBLOCK)
    proc = subprocess.Popen([sys.executable, "-m", "memlint", "check", "-o", "/dev/stdout", "--format", "json",
                             str(store)], env=env, stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    time.sleep(3)  # the pipe fills before anything reads it
    with os.fdopen(read_end, "rb") as reader:
        report = reader.read()
    stderr = proc.stderr.read().decode()
    assert proc.wait() == 1, stderr
    assert len(report) > 65536 and len(json.loads(report)) >= 1200


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="/dev/stdout is a link to /proc/self/fd/1 on Linux")
def test_output_to_dev_stdout_on_a_socket_delivers_the_report(make_store):
    """Under systemd stdout is a socket to the journal, which /dev/stdout
    cannot reopen: the report is written to the stream memlint holds."""
    import socket

    checkout = Path(__file__).resolve().parents[1]
    env = {**{k: v for k, v in os.environ.items() if k not in ("PRE_COMMIT", "GITHUB_ACTIONS")},
           "PYTHONPATH": str(checkout), "MEMLINT_NO_CACHE": "1"}
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    ours, theirs = socket.socketpair()
    with ours, theirs:
        done = subprocess.run([sys.executable, "-m", "memlint", "check", "-o", "/dev/stdout", str(store)],
                              env=env, stdout=theirs.fileno(), stderr=subprocess.PIPE, text=True)
        theirs.close()
        report = b"".join(iter(lambda: ours.recv(65536), b"")).decode()
    assert done.returncode == 1, done.stderr
    assert report.startswith("b.md:1:1: MEM001 ")


@pytest.mark.parametrize("command", ["check", "health", "triage", "report", "backfill"])
# 20260302 and 2026-W10-1 are days Python reads, but not the YYYY-MM-DD the help asks for
@pytest.mark.parametrize("today", ["0001-01-01", "9999-12-31", "2026-02-30", "20260302", "2026-W10-1"])
def test_a_today_that_is_no_real_day_is_a_usage_error(make_store, cli, command, today):
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    result = cli(command, "--today", today, store)
    assert result.exit_code == 2 and "--today" in result.stderr and today in result.stderr


@pytest.mark.parametrize("command", ["report", "health", "triage", "graph"])
def test_a_markdown_file_in_no_store_is_a_usage_error_not_an_empty_result(cli, tmp_path, command):
    loose = tmp_path / "loose.md"
    loose.write_text("# a note in no store\n")
    result = cli(command, loose)
    assert result.exit_code == 2 and result.output == ""
    assert result.stderr == f"memlint: {loose}: in no memory store; name a store's folder: memlint {command} PATH\n"



def test_check_of_files_in_no_store_says_nothing_was_checked(cli, tmp_path, make_store):
    """check passes them (the hooks name a README in passing), but a mistyped
    path must not look like a clean store; one file of a store checks quietly."""
    loose, other = tmp_path / "loose.md", tmp_path / "notes.txt"
    loose.write_text("# a note in no store\n")
    other.write_text("text\n")
    one = cli("check", loose)
    assert (one.exit_code, one.output) == (0, "")
    assert one.stderr == f"memlint: {loose}: in no memory store, so nothing was checked\n"
    two = cli("check", loose, other)
    assert two.exit_code == 0 and two.stderr == f"memlint: {loose} and 1 more: in no memory store, so nothing was checked\n"
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    assert "nothing was checked" not in cli("check", loose, store / "b.md").stderr

def test_a_folder_name_with_a_newline_and_an_escape_is_printed_escaped_everywhere(tmp_path, cli):
    """Not only in findings: in the notices, the summary and usage errors too."""
    store = tmp_path / "st\x1b[2J\nore"
    store.mkdir()
    (store / "MEMORY.md").write_text("# M\n- [A](a.md) — a\n")
    (store / "a.md").write_text("---\nname: a\ndescription: d\ntype: user\n---\nx\n")
    result = cli("check", "--summary", store, cwd=tmp_path)
    missing = cli("check", store / "nope.md", cwd=tmp_path)
    for text in (result.output, result.stderr, missing.stderr):
        assert "\x1b" not in text and "st\\x1b[2J\\nore" in text
        assert all(line.startswith(("memlint: ", "summary: ", "  ")) for line in text.splitlines()), text


def test_a_reader_that_goes_away_does_not_change_the_exit_status(make_store):
    """`memlint check | head -1` on a store with warnings only: the run's
    status (0), not a failure, even though the rest of the output is lost."""
    import subprocess
    import sys

    entries = "".join(f"- [A](a.md) — again {i}\n" for i in range(400))  # MEM204 warnings, no errors
    store = make_store({"MEMORY.md": "# M\n" + entries, "a.md": "---\nname: a\ndescription: d\ntype: user\n---\nx\n"})
    argv = [sys.executable, "-m", "memlint", "check", "--no-cache", "--select", "MEM204", str(store)]
    full = subprocess.run(argv, capture_output=True, text=True)
    assert full.returncode == 0 and full.stdout.count("MEM204") > 100
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # gone before memlint writes a line
    assert proc.wait(timeout=60) == 0 and b"Traceback" not in proc.stderr.read()


def exit_status_with_stdout_closed(*args: str, cwd: Path | None = None) -> int:
    """memlint's exit status when the reader of its stdout is gone before it
    writes a line (`memlint rules | grep -q MEM001`); no traceback on stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "memlint", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=cwd, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    proc.stdout.close()
    status = proc.wait(timeout=120)
    assert b"Traceback" not in proc.stderr.read()
    return status


@pytest.mark.parametrize("command", [("rules",), ("rule", "MEM001"), ("graph",), ("report",), ("health",)])
def test_a_reader_that_stops_reading_is_no_failure_of_other_commands(make_store, command):
    """They exited 1, the status of findings, so `set -o pipefail` failed
    `memlint rules | grep -q MEM001` whenever grep quit first."""
    store = make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": "---\nname: a\ndescription: d\ntype: user\n---\nx\n"})
    assert exit_status_with_stdout_closed(*command, cwd=store) == 0


@pytest.mark.parametrize("to", [(), ("-o", "/dev/stdout")])
def test_check_whose_reader_stops_reading_exits_with_its_findings_status(make_store, to):
    """`memlint check | head -1` under `set -o pipefail`: the findings still fail the step, written through /dev/stdout too."""
    store = make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": "no frontmatter\n"})
    assert exit_status_with_stdout_closed("check", *to, cwd=store) == 1


def test_init_stopped_by_a_closed_pipe_before_writing_all_it_means_to_is_no_success(tmp_path):
    """`memlint init --pre-commit | true`: the first line it says fails, before
    the hook file is written; exit 0 would say it was."""
    import shutil
    import subprocess

    from tests.conftest import TESTDATA

    store = tmp_path / "clean"
    shutil.copytree(TESTDATA / "clean", store)
    subprocess.run(["git", "init", "-q"], cwd=store, check=True)
    status = exit_status_with_stdout_closed("init", "--pre-commit", cwd=store)
    assert (status, (store / ".pre-commit-config.yaml").exists()) in ((1, False), (0, True))


def test_eval_keeps_its_regression_status_when_the_reader_goes_away(tmp_path, cli):
    """A regression found is exit 1 whether or not anyone reads the report."""
    import shutil

    from tests.conftest import TESTDATA

    moc = tmp_path / "moc"
    shutil.copytree(TESTDATA / "moc", moc)
    baseline = tmp_path / "before.json"
    assert cli("eval", "--save", baseline, moc / "golden.yaml", moc).exit_code == 0
    topic = moc / "MOC-tools.md"
    topic.write_text(topic.read_text().replace("- [[ripgrep]] — fast search flags we use\n", ""))
    assert exit_status_with_stdout_closed("eval", "--baseline", str(baseline), str(moc / "golden.yaml"), str(moc)) == 1


@pytest.mark.parametrize("args", [("--select", "MEM201", "--ignore", "MEM201"), ("--scope", "file", "--select", "links")])
def test_a_selection_that_leaves_no_rule_is_an_error_not_a_silent_pass(make_store, cli, args):
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    result = cli("check", *args, store)
    assert result.exit_code == 2 and "no rule is left to run" in result.stderr


def test_a_rule_select_names_that_the_config_turns_off_is_said_not_silently_skipped(make_store, cli):
    """`--select MEM001` with `MEM001: off` in the config runs nothing: the
    user is told why, with the config's line; named by a tag, it is not said."""
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM,
                        ".memlint.yaml": "preset: claude-code\nrules:\n  frontmatter-missing: off\n"})
    for key in ("MEM001", "frontmatter-missing"):
        result = cli("check", "--select", key, store)
        assert result.exit_code == 0 and result.output == ""
        assert (f": MEM001 frontmatter-missing is off for this store ({store / '.memlint.yaml'}:3): "
                "--select does not turn it on") in result.stderr
    quiet = cli("check", "--select", "frontmatter", store)
    assert "is off for this store" not in quiet.stderr


def linked_store(root: Path, real: str, links=("linked.md",)) -> Path:
    """A git repository whose store, memory/, holds symbolic links (listed by
    its MEMORY.md) to docs/real.md, a file outside the store; the store."""
    import subprocess

    (root / "docs").mkdir()
    (root / "memory").mkdir()
    (root / "docs" / "real.md").write_text(real)
    for name in links:
        (root / "memory" / name).symlink_to("../docs/real.md")
    (root / "memory" / "MEMORY.md").write_text("# I\n" + "".join(f"- [{name[:-3]}]({name})\n" for name in links))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root / "memory"


def test_github_and_sarif_name_a_linked_memory_by_the_file_the_link_names(tmp_path, cli):
    """GitHub cannot show a result at a symbolic link's path: the github and
    sarif formats name the file it resolves to, text and json the link."""
    import json as json_mod

    store = linked_store(tmp_path, "---\nname: real\ndescription: [bad\n---\nx\n")
    assert "file=docs/real.md,line=4" in cli("check", "--format", "github", store).output
    sarif = json_mod.loads(cli("check", "--format", "sarif", store).output)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert uris == {"docs/real.md"}
    assert [f["path"] for f in cli("check", "--format", "json", store).json()] == ["memory/linked.md"]


def test_a_linked_memory_named_through_dot_dot_or_a_linked_folder_keeps_its_findings(tmp_path, cli):
    # Named as `../memory/linked.md` or `alias/linked.md`, its error was lost and the run passed.
    linked_store(tmp_path, "---\nname: real\ndescription: [bad\n---\nx\n")
    (tmp_path / "alias").symlink_to("memory")
    for named, cwd in [("memory/linked.md", tmp_path), ("../memory/linked.md", tmp_path / "docs"),
                       ("alias/linked.md", tmp_path)]:
        result = cli("check", "--format", "json", named, cwd=cwd)
        assert result.exit_code == 1 and [f["path"] for f in result.json()] == ["memory/linked.md"], named


def test_two_links_to_one_file_outside_the_store_are_one_memory(tmp_path, cli):
    # They were two memories with one name (MEM303 on the file against itself) and two GitHub annotations.
    store = linked_store(tmp_path, "---\nname: real\ndescription: d\ntype: typo\n---\nx\n", ("linked.md", "linked2.md"))
    found = {(f["path"], f["line"], f["code"]): f["message"]
             for f in cli("check", "--format", "json", "--preset", "claude-code", store).json()}
    # one memory, so one schema error; the root lists it twice, the second time through the other link
    assert found.keys() == {("memory/linked.md", 4, "MEM003"), ("memory/MEMORY.md", 3, "MEM204")}
    assert found["memory/MEMORY.md", 3, "MEM204"] == ("linked.md is listed twice in this index (first on line 2), "
                                                      "here through linked2.md, a symbolic link to it")
    assert cli("check", "--format", "github", "--preset", "claude-code", store).output.count("::error") == 1


def test_a_store_and_a_store_inside_it_named_together_say_each_finding_once(make_store, cli):
    store = make_store({"MEMORY.md": "- [a](a.md)\n", "a.md": "no frontmatter\n",
                        "archive/MEMORY.md": "- [b](b.md)\n", "archive/b.md": "---\nname: b\ndescription: [bad\n---\n"})
    both = cli("check", "--format", "json", store, store / "archive").json()
    keys = [(f["path"], f["line"], f["code"], f["message"]) for f in both]
    assert keys and len(keys) == len(set(keys))
    assert any(f["path"].endswith("archive/b.md") for f in both)


def test_an_empty_select_is_an_error_and_mem_selects_every_rule(make_store, cli):
    # `--select "$RULES"` with RULES unset ran every rule without a word; `--select MEM` was "no rule".
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    empty = cli("check", "--select", "", store)
    assert empty.exit_code == 2 and "--select names no rule (it is empty)" in empty.stderr
    assert cli("check", "--select", "MEM", store).output == cli("check", store).output != ""
    assert cli("check", "--select", "mem", store).output == cli("check", store).output


@pytest.mark.parametrize("args", [("check", ""), ("check", ".", ""), ("graph", ""), ("health", ""), ("report", ""),
                                  ("backfill", "--dry-run", ""), ("eval", ""), ("init", ""), ("check", "--config", "")])
def test_an_empty_path_is_a_usage_error_not_the_current_folder(make_store, cli, args):
    """`memlint check "$DIR"` with DIR unset linted the current folder, and
    passed: Path("") is ".". An empty path is refused, as `--select ""` is."""
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    result = cli(*args, cwd=store)
    assert result.exit_code == 2 and "the path is empty" in result.stderr, result.output + result.stderr
    assert not (store / ".memlint.yaml").exists()  # init wrote nothing


def test_an_empty_output_path_says_so(make_store, cli):
    """It said "memlint: .: Is a directory"."""
    store = make_store({"MEMORY.md": "# Index\n- [B](b.md)\n", "b.md": NOFM})
    for command in ("check", "graph", "report"):
        result = cli(command, "-o", "", store)
        assert result.exit_code == 2 and "Is a directory" not in result.stderr
        assert "'--output' / '-o': the path is empty: name the file to write" in result.stderr


def test_a_file_is_judged_in_the_store_a_check_of_the_repository_finds(tmp_path, cli):
    # The hook names files, CI checks the repository: a file of a folder with a MEMORY.md
    # of its own, inside a store, is the outer store's in both (it was the inner one's for the hook).
    import subprocess

    files = {"mem/MEMORY.md": "- [a](a.md)\n", "mem/a.md": "---\nname: a\ndescription: d\ntype: user\n---\nok\n",
             "mem/team/MEMORY.md": "- [b](b.md)\n", "mem/team/b.md": "---\nname: b\ndescription: d\ntype: user\n---\nok\n",
             ".claude/memory/MEMORY.md": "- [c](c.md)\n", ".claude/memory/c.md": "no frontmatter\n", "MEMORY.md": "# top\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "MEMORY.md").unlink()  # the repository's top holds no store: mem/ is the outermost
    whole = {(f["path"], f["line"], f["code"]) for f in cli("check", "--format", "json", tmp_path, cwd=tmp_path).json()}
    assert ("mem/team/MEMORY.md", 1, "MEM201") in whole and not any(p == "mem/team/MEMORY.md" and c == "MEM001"
                                                                   for p, _, c in whole)
    for rel in ("mem/team/MEMORY.md", "mem/team/b.md"):
        named = {(f["path"], f["line"], f["code"]) for f in cli("check", "--format", "json", rel, cwd=tmp_path).json()}
        assert named == {key for key in whole if key[0] == rel}, rel
    # a store in a hidden folder is its own: no store above walks into it
    hidden = cli("check", "--format", "json", ".claude/memory/c.md", cwd=tmp_path).json()
    assert [(f["path"], f["code"]) for f in hidden] == [(".claude/memory/c.md", "MEM001")]


def test_a_folder_of_a_store_named_or_checked_from_is_judged_in_that_store(tmp_path, cli):
    # mem/team has a MEMORY.md of its own: a topic index of mem/, which nothing links to. Named as a
    # folder, or checked from inside it, it used to be a store of its own, where that index is the
    # root and nothing is wrong: a clean exit where a check of the repository fails.
    import subprocess

    files = {"mem/MEMORY.md": "- [a](a.md)\n", "mem/a.md": "---\nname: a\ndescription: d\ntype: user\n---\nok\n",
             "mem/team/MEMORY.md": "- [b](b.md)\n", "mem/team/b.md": "---\nname: b\ndescription: d\ntype: user\n---\nok\n",
             "mem/notes/x.md": "---\nname: x\ndescription: d\ntype: user\n---\nok\n",
             "mem/notes/.claude/memory/MEMORY.md": "- [c](c.md)\n", "mem/notes/.claude/memory/c.md": "no frontmatter\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    whole = {(f["path"], f["line"], f["code"]) for f in cli("check", "--format", "json", cwd=tmp_path).json()}
    in_team = {key for key in whole if key[0].startswith("mem/team/")}
    assert ("mem/team/MEMORY.md", 1, "MEM201") in in_team
    for args, cwd in ((["mem/team"], tmp_path), (["mem/team/"], tmp_path), ([], tmp_path / "mem" / "team")):
        result = cli("check", "--format", "json", *args, cwd=cwd)
        assert result.exit_code == 1, (args, cwd)
        assert {(f["path"], f["line"], f["code"]) for f in result.json()} == in_team, (args, cwd)
    # A folder without a root index, holding a store in a hidden folder (which no store above walks
    # into): its own files are judged in mem/, and the hidden store as a store of its own.
    assert ("mem/notes/x.md", 1, "MEM201") in whole
    assert not any(path.startswith("mem/notes/.claude/") for path, _, _ in whole)
    notes = {(f["path"], f["line"], f["code"]) for f in cli("check", "--format", "json", "mem/notes", cwd=tmp_path).json()}
    assert notes == {key for key in whole if key[0].startswith("mem/notes/")} | {("mem/notes/.claude/memory/c.md", 1, "MEM001")}
    # the outermost store's own folder is the whole store, as before
    named = {(f["path"], f["line"], f["code"]) for f in cli("check", "--format", "json", "mem", cwd=tmp_path).json()}
    assert named == whole


def test_a_named_folder_is_found_in_its_store_however_it_is_named(tmp_path, cli):
    """The folder inside a store, named through `..` or a symbolic link, is
    judged in its store; an excluded topic index is not taken for a store of
    its own (reported twice); an untracked one does not stop a staged run."""
    import subprocess

    def repo(top, files):
        for rel, text in files.items():
            (top / rel).parent.mkdir(parents=True, exist_ok=True)
            (top / rel).write_text(text)
        subprocess.run(["git", "init", "-q"], cwd=top, check=True)
        return top

    def keys(*args, cwd):
        result = cli("check", "--format", "json", *args, cwd=cwd)
        assert result.exit_code in (0, 1), result.stderr
        return sorted((f["path"], f["code"]) for f in result.json())

    mem = "---\nname: {}\ndescription: d\ntype: user\n---\nok\n"
    top = repo(tmp_path / "r1", {"mem/MEMORY.md": "- [a](a.md)\n", "mem/a.md": mem.format("a"),
                                 "mem/team/MEMORY.md": "- [b](b.md)\n", "mem/team/b.md": mem.format("b"),
                                 "mem/team/sub/c.md": mem.format("c")})
    (top / "teamlink").symlink_to("mem/team")
    team = [key for key in keys(cwd=top) if key[0].startswith("mem/team/")]
    assert ("mem/team/MEMORY.md", "MEM201") in team
    for args, cwd in ((["mem/team/sub/.."], top), ([".."], top / "mem" / "team" / "sub"), (["teamlink"], top)):
        assert keys(*args, cwd=cwd) == team, args
    (top / ".memlint.yaml").write_text("exclude: ['*/MEMORY.md']\n")  # team/MEMORY.md is no file of the store now
    assert keys("mem/team", cwd=top) == [key for key in keys(cwd=top) if key[0].startswith("mem/team/")]
    (top / ".memlint.yaml").unlink()
    subprocess.run(["git", "add", "mem/a.md", "mem/MEMORY.md", "mem/team/b.md", "mem/team/sub/c.md"], cwd=top, check=True)
    staged = cli("check", "--format", "json", "--staged", "mem/team", cwd=top)  # team/MEMORY.md is untracked
    assert staged.exit_code == 1 and ("mem/team/sub/c.md", "MEM201") in {(f["path"], f["code"]) for f in staged.json()}

    # A map of content at the top (a docs folder, say) is not where a store below the folder is judged:
    # a check of the repository finds app/mem, and so does one of app.
    top = repo(tmp_path / "r2", {"INDEX.md": "# Docs\n- [Setup](topics/setup.md)\n", "topics/setup.md": "# Setup\n",
                                 "app/mem/MEMORY.md": "- [a](a.md)\n", "app/mem/a.md": mem.format("a"),
                                 "app/mem/unlinked.md": mem.format("u"), "app/NOTES.md": "# App\n"})
    assert keys(cwd=top) == keys("app", cwd=top) == keys(cwd=top / "app") == [("app/mem/unlinked.md", "MEM201")]

    # Outside git, each file's store is its nearest: a MEMORY.md in a folder above takes in nothing below.
    top = tmp_path / "r3"
    for rel, text in {"MEMORY.md": "# Work\n", "proj/mem/MEMORY.md": "- [a](a.md)\n", "proj/mem/a.md": mem.format("a"),
                      "proj/mem/unlinked.md": mem.format("u"), "proj/other/z.md": mem.format("z")}.items():
        (top / rel).parent.mkdir(parents=True, exist_ok=True)
        (top / rel).write_text(text)
    assert [path.rsplit("/", 1)[-1] for path, _ in keys(cwd=top / "proj")] == ["unlinked.md"]


def test_with_a_configured_root_a_named_folder_of_the_store_reports_on_its_files(tmp_path, cli):
    import subprocess

    mem = "---\nname: {}\ndescription: d\ntype: user\n---\nok\n"
    for rel, text in {"memory/MEMORY.md": "- [a](a.md)\n", "memory/a.md": mem.format("a"),
                      "memory/notes/x.md": mem.format("x"), "memory/team/y.md": mem.format("y"),
                      ".memlint.yaml": "root: memory/MEMORY.md\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    whole = sorted(f["path"] for f in cli("check", "--format", "json", cwd=tmp_path).json())
    assert whole == ["memory/notes/x.md", "memory/team/y.md"]
    assert [f["path"] for f in cli("check", "--format", "json", "memory/notes", cwd=tmp_path).json()] == ["memory/notes/x.md"]
    assert sorted(f["path"] for f in cli("check", "--format", "json", "memory", cwd=tmp_path).json()) == whole


def test_globs_that_leave_out_a_whole_store_leave_it_out(tmp_path, cli):
    """Excluding a second store of the repository (an old copy, a fixture)
    leaves it out; it is only leaving out a root while keeping the rest of
    its store that is refused."""
    import subprocess

    mem = "---\nname: {}\ndescription: d\ntype: user\n---\nok\n"
    for rel, text in {"memory/MEMORY.md": "- [a](a.md)\n", "memory/a.md": mem.format("a"),
                      "memory/unlinked.md": mem.format("u"), "old-memory/MEMORY.md": "- [z](z.md)\n",
                      "old-memory/z.md": mem.format("z"), "old-memory/lost.md": mem.format("l")}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    for conf in ("exclude: ['old-memory/**']\n", "include: ['memory/**']\n"):
        (tmp_path / ".memlint.yaml").write_text(conf)
        result = cli("check", "--format", "json", cwd=tmp_path)
        assert result.exit_code == 1, (conf, result.stderr)
        assert [f["path"] for f in result.json()] == ["memory/unlinked.md"], conf
    (tmp_path / ".memlint.yaml").write_text("exclude: ['old-memory/MEMORY.md']\n")
    result = cli("check", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 2 and "leave out the whole store (`old-memory/**`)" in result.stderr


@pytest.mark.parametrize("conf", ["include: ['notes/**/*.md']\n", "exclude: ['**']\n"])
def test_globs_that_leave_out_every_store_named_are_an_error_not_a_pass(tmp_path, cli, conf):
    """A mistyped include (or an exclude of everything) left out the only
    store: every command passed, checking nothing, and CI stayed green."""
    import subprocess

    (tmp_path / "MEMORY.md").write_text("- [a](a.md)\n")
    (tmp_path / "a.md").write_text("no frontmatter\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert cli("check", cwd=tmp_path).exit_code == 1  # MEM001: there is something to find
    (tmp_path / ".memlint.yaml").write_text(conf)
    for command in (["check"], ["check", "--format", "sarif"], ["health"], ["backfill", "--dry-run"]):
        result = cli(*command, cwd=tmp_path)
        assert result.exit_code == 2, (command, result.output)
        assert (".memlint.yaml:1: include/exclude leave out every file of the store whose root is MEMORY.md"
                in result.stderr), (command, result.stderr)


def test_a_check_run_in_process_leaves_the_cycle_collector_on(make_store, cli):
    """The program turns Python's cycle collector off for a check (it ends
    with the check); memlint run in-process, as a library, must not leave
    its caller's process without one."""
    import gc

    store = make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": "---\nname: a\ndescription: d\ntype: user\n---\nx\n"})
    assert gc.isenabled()
    cli("check", store)
    assert gc.isenabled()


def test_a_folder_on_another_drive_is_shown_whole_not_an_internal_error(monkeypatch):
    """Windows: no relative path joins two drives (relpath raises), as for a
    store on D: checked from C:; notices name such a folder by its full path."""
    from memlint import gitdates

    def other_drive(path, start=None):
        raise ValueError("path is on mount 'D:', start on mount 'C:'")

    monkeypatch.setattr(gitdates.os.path, "relpath", other_drive)
    assert gitdates.shown_folder(Path("/d/memory")) == "/d/memory"

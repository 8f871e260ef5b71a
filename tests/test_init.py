"""`memlint init`: a detected .memlint.yaml and the pre-commit entry."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
import yaml

from memlint import __version__
from memlint import config as config_mod
from memlint.presets import PRESET_NAMES
from memlint.rules import all_rules
from tests.conftest import TESTDATA, write_files

SNIPPET = f"-   repo: https://github.com/memlint/memlint\n    rev: v{__version__}\n    hooks:\n    -   id: memlint\n"
MEM = "---\nname: a\ndescription: d\ntype: user\n---\nBody\n"


def validate_pre_commit_config(path):
    done = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def uncomment_defaults(text: str) -> str:
    """The written file with every commented setting and rule turned on."""
    out = []
    for line in text.splitlines():
        if re.match(r"^# (rules|[a-z-]+: )", line) or line.startswith("#   "):
            line = line[2:]
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(("layout", "root"), [
    ("claude-code", "MEMORY.md"), ("moc", "MEMORY.md"), ("openclaw", "MEMORY.md"), ("three-layer", "INDEX.md"),
])
def test_init_detects_the_preset_and_the_config_lints_the_same(tmp_path, cli, layout, root):
    repo = tmp_path / "repo"
    shutil.copytree(TESTDATA / layout, repo / "memory")
    result = cli("init", repo)
    assert result.exit_code == 0, result.stderr
    assert result.output.startswith(f"wrote {repo / '.memlint.yaml'} for 1 store")  # the folder as it was named
    text = (repo / ".memlint.yaml").read_text()
    assert f"\npreset: {layout}\n" in text and f'\nroot: "memory/{root}"\n' in text
    article = "an" if layout[0] in "aeiou" else "a"
    assert re.search(rf"^# Detected: memory/{root}, {article} {layout} store \(\d+ memor(y|ies), \d+ topic index(es)?, "
                     rf"\d+ daily logs?\)", text, re.M)

    # the written config lints exactly as detection did without it
    shutil.move(repo / ".memlint.yaml", tmp_path / "init.yaml")
    without = cli("check", "--format", "json", repo).json()
    shutil.move(tmp_path / "init.yaml", repo / ".memlint.yaml")
    with_config = cli("check", "--format", "json", repo).json()
    assert with_config == without and without  # the sample stores have planted defects


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_commented_defaults_are_valid_config_and_equal_the_preset(tmp_path, cli, preset):
    write_files(tmp_path, {"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": MEM})
    assert cli("init", "--preset", preset, tmp_path).exit_code == 0
    (tmp_path / ".memlint.yaml").write_text(uncomment_defaults((tmp_path / ".memlint.yaml").read_text()))
    data = config_mod.load(tmp_path / ".memlint.yaml").data  # as memlint reads it: a key twice is an error
    assert "frontmatter" in data and "root-budget" in data["rules"]
    written = config_mod.Config(None, tmp_path, data)
    assert written.settings(preset) == config_mod.Config(None, None, {}).settings(preset)
    for rule in all_rules():
        assert written.rule_config(rule, preset) == config_mod.Config(None, None, {}).rule_config(rule, preset)


def test_init_never_overwrites_without_force(tmp_path, cli):
    write_files(tmp_path, {"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": MEM, ".memlint.yml": "preset: moc\n"})
    refused = cli("init", tmp_path)
    assert refused.exit_code == 2 and "not overwritten (--force replaces it)" in refused.stderr
    assert (tmp_path / ".memlint.yml").read_text() == "preset: moc\n"
    assert not (tmp_path / ".memlint.yaml").exists()
    forced = cli("init", "--force", tmp_path)
    assert forced.exit_code == 0
    assert "\npreset: claude-code\n" in (tmp_path / ".memlint.yml").read_text()  # the file memlint reads
    assert not (tmp_path / ".memlint.yaml").exists()


@pytest.mark.parametrize("breaker", ["\n", "\r", "\u2028", "\x85"])
def test_a_folder_name_cannot_write_configuration_through_init(tmp_path, cli, breaker):
    """The store's folder is named in a comment: a line break in its name
    must not end the comment and start a live key."""
    folder = f"st{breaker}rules: {{orphan: off}}{breaker}#"
    write_files(tmp_path / folder, {"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": MEM, "b.md": MEM.replace("a", "b")})
    before = cli("check", "--format", "json", "--select", "MEM201", tmp_path)
    assert cli("init", tmp_path).exit_code == 0
    written = (tmp_path / ".memlint.yaml").read_text(encoding="utf-8")
    assert "rules" not in yaml.safe_load(written)
    after = cli("check", "--format", "json", "--select", "MEM201", tmp_path)
    assert after.json() == before.json() != []


def test_init_respects_pyproject_configuration(tmp_path, cli):
    write_files(tmp_path, {"MEMORY.md": "# Index\n", "pyproject.toml": "[tool.memlint]\npreset = 'moc'\n"})
    refused = cli("init", tmp_path)
    assert refused.exit_code == 2 and "pyproject.toml already holds memlint configuration" in refused.stderr
    assert not (tmp_path / ".memlint.yaml").exists()
    forced = cli("init", "--force", tmp_path)  # a new file, read first: the section is said to be shadowed
    assert forced.exit_code == 0 and "[tool.memlint] no longer applies: remove it" in forced.stderr


def test_init_pre_commit_keeps_an_existing_config_and_adds_the_hook(tmp_path, cli):
    """`memlint init`, edited, then the pre-commit quick start: the config stays, the hook comes."""
    write_files(tmp_path, {"MEMORY.md": "# Index\n", ".git/HEAD": "ref: refs/heads/main\n"})
    assert cli("init", tmp_path).exit_code == 0
    edited = (tmp_path / ".memlint.yaml").read_text() + "# mine\n"
    (tmp_path / ".memlint.yaml").write_text(edited)
    result = cli("init", "--pre-commit", tmp_path)
    assert result.exit_code == 0 and "kept" in result.output and "created .pre-commit-config.yaml" in result.output
    assert (tmp_path / ".memlint.yaml").read_text() == edited
    validate_pre_commit_config(tmp_path / ".pre-commit-config.yaml")
    # a config whose root no discovery would find is kept too; --preset would write one: refused
    elsewhere = tmp_path / "elsewhere"
    write_files(elsewhere, {"notes/main.md": "# Index\n", ".git/HEAD": "ref: refs/heads/main\n",
                            ".memlint.yaml": "root: notes/main.md\n"})
    assert cli("init", "--pre-commit", elsewhere).exit_code == 0
    assert (elsewhere / ".pre-commit-config.yaml").is_file()
    assert cli("init", "--pre-commit", "--preset", "moc", elsewhere).exit_code == 2


def test_init_in_a_folder_below_a_config_does_not_hide_it_silently(tmp_path, cli):
    # `init memory` wrote memory/.memlint.yaml, and the repository's `MEM102: off` stopped applying.
    write_files(tmp_path, {".git/HEAD": "ref: refs/heads/main\n", ".memlint.yaml": "rules:\n  MEM102: off\n",
                           "memory/MEMORY.md": "- [a](a.md)\n"})
    refused = cli("init", tmp_path / "memory")
    assert refused.exit_code == 2 and not (tmp_path / "memory" / ".memlint.yaml").exists()
    assert f"{tmp_path / '.memlint.yaml'} configures the stores here now" in refused.stderr
    hook = cli("init", "--pre-commit", tmp_path / "memory")  # the hook alone: the config above is kept
    assert hook.exit_code == 0 and "kept" in hook.output and not (tmp_path / "memory" / ".memlint.yaml").exists()
    validate_pre_commit_config(tmp_path / ".pre-commit-config.yaml")
    assert cli("init", "--pre-commit", "--preset", "moc", tmp_path / "memory").exit_code == 2  # would need a config here
    forced = cli("init", "--force", tmp_path / "memory")
    assert forced.exit_code == 0 and (tmp_path / "memory" / ".memlint.yaml").exists()
    assert "hides" in forced.stderr


def test_init_beside_a_store_a_config_above_names_by_root_writes_its_own(tmp_path, cli):
    # A `root:` above names one store, not this one: it was "kept", and the hook added then failed every commit.
    write_files(tmp_path, {".git/HEAD": "ref: refs/heads/main\n", ".memlint.yaml": "root: memory/MEMORY.md\n",
                           "memory/MEMORY.md": "- [a](a.md)\n", "team/MEMORY.md": "# Team\n"})
    result = cli("init", "--pre-commit", tmp_path / "team")
    assert result.exit_code == 0 and (tmp_path / "team" / ".memlint.yaml").exists() and "hides" not in result.stderr
    assert cli("check", tmp_path / "team").exit_code == 0


def test_init_pre_commit_for_a_second_store_adds_a_hook_that_checks_it(tmp_path, cli):
    # The first store's hook, `args: ["memory"]`, was taken for one that checks team/memory too.
    files = {".git/HEAD": "ref: refs/heads/main\n"}
    for store in ("memory", "team/memory"):
        files.update({f"{store}/MEMORY.md": "- [a](a.md)\n"})
    write_files(tmp_path, files)
    assert cli("init", "--pre-commit", tmp_path / "memory").exit_code == 0
    second = cli("init", "--pre-commit", tmp_path / "team" / "memory")
    assert second.exit_code == 0 and "added the memlint hook" in second.output
    config = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text())
    assert [hook["args"] for repo in config["repos"] for hook in repo["hooks"]] == [["memory"], ["team/memory"]]
    validate_pre_commit_config(tmp_path / ".pre-commit-config.yaml")
    again = cli("init", "--pre-commit", tmp_path / "team" / "memory")  # now it is checked: nothing to add
    assert again.exit_code == 0 and "already runs memlint: left unchanged" in again.output


@pytest.mark.parametrize("args", [["--format", "github"], ["./memory"], ["--select", "links", "."]])
def test_init_pre_commit_knows_a_hook_that_already_checks_the_store(tmp_path, cli, args):
    # An option's value (`github`) was taken for a folder, and `./memory` was not `memory`: a second hook was added.
    write_files(tmp_path, {".git/HEAD": "ref: refs/heads/main\n", "memory/MEMORY.md": "- [a](a.md)\n",
                           ".memlint.yaml": "preset: claude-code\n",
                           ".pre-commit-config.yaml": "repos:\n-   repo: https://github.com/memlint/memlint\n"
                                                     f"    rev: v0.1.0\n    hooks:\n    -   id: memlint\n        args: {args}\n"})
    before = (tmp_path / ".pre-commit-config.yaml").read_bytes()
    result = cli("init", "--pre-commit", tmp_path / "memory")
    assert result.exit_code == 0 and "already runs memlint: left unchanged" in result.output
    assert (tmp_path / ".pre-commit-config.yaml").read_bytes() == before


def test_init_prints_a_valid_pre_commit_entry(tmp_path, cli):
    write_files(tmp_path, {"MEMORY.md": "# Index\n"})
    result = cli("init", tmp_path)
    assert result.output.endswith("repos:\n" + SNIPPET)
    assert not (tmp_path / ".pre-commit-config.yaml").exists()
    printed = tmp_path / "printed.yaml"
    printed.write_text(result.output[result.output.index("repos:"):])
    validate_pre_commit_config(printed)


def test_init_pre_commit_creates_appends_once_and_keeps_the_rest(tmp_path, cli):
    repo = tmp_path / "repo"
    write_files(repo, {"memory/MEMORY.md": "# Index\n", ".git/HEAD": "ref: refs/heads/main\n"})
    hooks = repo / ".pre-commit-config.yaml"
    created = cli("init", "--pre-commit", repo / "memory")  # the hook file goes to the git root
    assert created.exit_code == 0 and "created .pre-commit-config.yaml" in created.output
    assert hooks.read_text() == "repos:\n" + SNIPPET + '        args: ["memory"]\n'  # run at the top: the store named
    validate_pre_commit_config(hooks)

    existing = (
        "# team hooks\n"
        "repos:\n"
        "  - repo: local  # ours\n"
        "    hooks:\n"
        "      - id: tidy\n"
        "        name: tidy\n"
        "        entry: tidy\n"
        "        language: system\n"
    )
    hooks.write_text(existing)
    assert cli("init", "--force", "--pre-commit", repo / "memory").exit_code == 0
    text = hooks.read_text()
    assert text.startswith(existing)
    assert text[len(existing):] == (f"  - repo: https://github.com/memlint/memlint\n    rev: v{__version__}\n    hooks:\n"
                                    '      - id: memlint\n        args: ["memory"]\n')
    validate_pre_commit_config(hooks)

    again = cli("init", "--force", "--pre-commit", repo / "memory")
    assert again.exit_code == 0 and "already runs memlint: left unchanged" in again.output
    assert hooks.read_text() == text


def test_init_pre_commit_refuses_a_config_it_cannot_edit_before_writing_anything(tmp_path, cli):
    """PyYAML keeps the last of two `repos:`; the editor refuses the file: the
    refusal comes first, and .memlint.yaml is not written either."""
    write_files(tmp_path, {"MEMORY.md": "# Index\n", ".pre-commit-config.yaml": "repos: []\nrepos: []\n"})
    result = cli("init", "--pre-commit", tmp_path)
    assert result.exit_code == 2 and "cannot edit it safely" in result.stderr and "add the hook by hand" in result.stderr
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == "repos: []\nrepos: []\n"
    assert not (tmp_path / ".memlint.yaml").exists()


def test_init_pre_commit_keeps_a_byte_order_mark_and_crlf(tmp_path, cli):
    existing = "\ufeffrepos:\r\n-   repo: local\r\n    hooks:\r\n    -   id: tidy\r\n        name: tidy\r\n" \
               "        entry: tidy\r\n        language: system\r\n"
    write_files(tmp_path, {"MEMORY.md": "# Index\n"})
    (tmp_path / ".pre-commit-config.yaml").write_bytes(existing.encode("utf-8"))
    assert cli("init", "--pre-commit", tmp_path).exit_code == 0
    written = (tmp_path / ".pre-commit-config.yaml").read_bytes().decode("utf-8")
    assert written.startswith(existing) and "memlint" in written[len(existing):]
    assert written.count("\r\n") == written.count("\n")  # every line ends as the file's did
    validate_pre_commit_config(tmp_path / ".pre-commit-config.yaml")


def test_init_pre_commit_refuses_a_config_it_cannot_read(tmp_path, cli):
    write_files(tmp_path, {"MEMORY.md": "# Index\n", ".pre-commit-config.yaml": "repos: [\n"})
    result = cli("init", "--pre-commit", tmp_path)
    assert result.exit_code == 2
    # one line with the place (the error's line, 1-based) and the reason, before the snippet to paste
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"memlint: {tmp_path / '.pre-commit-config.yaml'}:2:1: cannot read it as YAML (")
    assert first.endswith("content (while parsing a flow node that began on line 2)); add the hook by hand:")
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == "repos: [\n"
    # `!!bool maybe` (PyYAML's KeyError) says what it is, where
    write_files(tmp_path, {".pre-commit-config.yaml": "repos:\n- x: !!bool maybe\n"})
    first = cli("init", "--pre-commit", tmp_path).stderr.splitlines()[0]
    assert first.startswith(f"memlint: {tmp_path / '.pre-commit-config.yaml'}: cannot read it as YAML (a value its "
                            "tag (`!!bool`, `!!timestamp`...) cannot be read as)")
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == "repos:\n- x: !!bool maybe\n"


@pytest.mark.parametrize("docs", ["docs/", ""])
def test_init_prefers_the_hidden_claude_store_to_a_docs_map_of_content(tmp_path, cli, docs):
    write_files(tmp_path, {".claude/memory/MEMORY.md": "# Index\n- [A](a.md)\n", ".claude/memory/a.md": "# A\n",
                           f"{docs}INDEX.md": "# Docs\n- [I](topics/install.md)\n", f"{docs}topics/install.md": "# i\n",
                           ".git/HEAD": "ref: refs/heads/main\n"})
    assert cli("init", tmp_path).exit_code == 0
    assert '\nroot: ".claude/memory/MEMORY.md"\n' in (tmp_path / ".memlint.yaml").read_text()


def test_init_finds_a_store_in_a_hidden_claude_folder(tmp_path, cli):
    write_files(tmp_path, {".claude/memory/MEMORY.md": "# Index\n- [A](a.md)\n", ".claude/memory/a.md": "# A\n",
                           ".git/HEAD": "ref: refs/heads/main\n"})  # paths print from the repository root
    # hidden folders are not walked, but .claude/memory is looked in, by check as by init
    before = cli("check", "--format", "json", tmp_path)
    assert [(f["path"], f["code"]) for f in before.json()] == [(".claude/memory/a.md", "MEM001")]
    write_files(tmp_path, {".hidden/MEMORY.md": "# Index\n- [A](a.md)\n", ".hidden/a.md": "# A\n"})
    assert [f["path"] for f in cli("check", "--format", "json", tmp_path).json()] == [".claude/memory/a.md"]
    assert cli("init", tmp_path).exit_code == 0
    assert '\nroot: ".claude/memory/MEMORY.md"\n' in (tmp_path / ".memlint.yaml").read_text()
    result = cli("check", "--format", "json", tmp_path)
    assert [(f["path"], f["code"]) for f in result.json()] == [(".claude/memory/a.md", "MEM001")]


def test_init_with_stores_of_different_layouts_leaves_detection_on(tmp_path, cli):
    shutil.copytree(TESTDATA / "moc", tmp_path / "notes")
    shutil.copytree(TESTDATA / "clean", tmp_path / "memory")
    assert cli("init", tmp_path).exit_code == 0
    text = (tmp_path / ".memlint.yaml").read_text()
    data = yaml.safe_load(text)
    assert "preset" not in data and "root" not in data
    assert "# preset: left out, so each store's layout is detected (claude-code, moc)" in text
    assert "each store takes its own preset's defaults. A value set here applies to\n# every store" in text
    assert "# Store settings: the claude-code defaults, uncomment to change." not in text  # not moc's
    assert cli("check", tmp_path).exit_code == 1  # both stores still lint


def test_init_preset_option_and_no_store(tmp_path, cli):
    write_files(tmp_path, {"s/MEMORY.md": "# Index\n"})
    assert cli("init", "--preset", "generic", tmp_path / "s").exit_code == 0
    assert "\npreset: generic\n" in (tmp_path / "s" / ".memlint.yaml").read_text()
    (tmp_path / "empty").mkdir()
    missing = cli("init", tmp_path / "empty")
    assert missing.exit_code == 2 and "no memory store found" in missing.stderr
    assert not (tmp_path / "empty" / ".memlint.yaml").exists()


def test_init_does_not_write_through_a_link_out_of_the_repository(tmp_path, cli):
    outside = tmp_path / "outside.txt"
    outside.write_text("repos: []  # not the repository's\n")
    repo = tmp_path / "repo"
    write_files(repo, {"MEMORY.md": "# Index\n", ".git/HEAD": "ref: refs/heads/main\n"})
    (repo / ".pre-commit-config.yaml").symlink_to(outside)
    refused = cli("init", "--pre-commit", repo)
    assert refused.exit_code == 2 and "outside the repository; not written through" in refused.stderr
    assert outside.read_text() == "repos: []  # not the repository's\n" and not (repo / ".memlint.yaml").exists()
    (repo / ".pre-commit-config.yaml").unlink()
    (repo / ".memlint.yaml").symlink_to(outside)
    assert cli("init", "--force", repo).exit_code == 2
    assert outside.read_text() == "repos: []  # not the repository's\n"


def test_init_does_not_write_into_a_fifo(tmp_path, cli):
    import os

    write_files(tmp_path, {"MEMORY.md": "# Index\n", ".git/HEAD": "ref: refs/heads/main\n"})
    os.mkfifo(tmp_path / ".memlint.yaml")  # opened for writing, it would wait for a reader forever
    result = cli("init", "--force", tmp_path)
    assert result.exit_code == 2 and "not a regular file" in result.stderr


def test_init_in_a_store_folder_below_the_top_names_it_for_the_hook(tmp_path, cli):
    """pre-commit runs the hook at the top of the repository: the hook names
    the store's folder, whatever discovery would find from there."""
    repo = tmp_path / "repo"
    write_files(repo, {"memory/INDEX.md": "- [Tools](mocs/tools.md) — tools\n", "memory/mocs/tools.md": "- [a](../a.md) — a\n",
                       "memory/a.md": "---\ntitle: a\n---\nbody\n", ".git/HEAD": "ref: refs/heads/main\n"})
    done = cli("init", "--pre-commit", "memory", cwd=repo)
    assert "`memlint check memory` lints with it" in done.output
    assert cli("check", cwd=repo).exit_code in (0, 1)  # from the top: a map of content's INDEX.md is found too
    assert cli("check", "memory", cwd=repo).exit_code in (0, 1)  # as the hook runs it
    assert 'args: ["memory"]' in (repo / ".pre-commit-config.yaml").read_text()


def test_init_pre_commit_leaves_every_byte_of_the_other_hooks(tmp_path, cli):
    repo = tmp_path / "repo"
    write_files(repo, {"MEMORY.md": "# Index\n", ".git/HEAD": "ref: refs/heads/main\n"})
    before = ('repos:\n-   repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n    -   id: black\n'
              '        args: ["--line-length=100"]   # wide\n')
    (repo / ".pre-commit-config.yaml").write_text(before)
    assert cli("init", "--pre-commit", repo).exit_code == 0
    after = (repo / ".pre-commit-config.yaml").read_text()
    assert after == before + SNIPPET  # added after, in the file's own style
    validate_pre_commit_config(repo / ".pre-commit-config.yaml")
    flow = "repos: [{repo: https://github.com/psf/black, rev: 24.1.0, hooks: [{id: black}]}]\n"
    (repo / ".pre-commit-config.yaml").write_text(flow)  # no block list to add to: rewritten, still valid
    assert cli("init", "--force", "--pre-commit", repo).exit_code == 0
    validate_pre_commit_config(repo / ".pre-commit-config.yaml")


def test_init_pre_commit_adds_the_linter_beside_a_backfill_hook_alone(tmp_path, cli):
    repo = tmp_path / "repo"
    write_files(repo, {"MEMORY.md": "# Index\n", ".git/HEAD": "ref: refs/heads/main\n"})
    only_backfill = f"repos:\n-   repo: https://github.com/memlint/memlint\n    rev: v{__version__}\n    hooks:\n    -   id: memlint-backfill\n"
    (repo / ".pre-commit-config.yaml").write_text(only_backfill)
    done = cli("init", "--pre-commit", repo)
    assert "added the memlint hook" in done.output
    assert (repo / ".pre-commit-config.yaml").read_text() == only_backfill + SNIPPET



def read_back(path):
    """The config as PyYAML and ruamel read it, which must agree, after pre-commit has validated it."""
    from ruamel.yaml import YAML

    validate_pre_commit_config(path)
    text = path.read_bytes().decode("utf-8")
    data = yaml.safe_load(text)
    assert YAML(typ="safe", pure=True).load(text) == data
    return data


OURS = "-   repo: local\n    hooks:\n    -   id: x\n        name: x\n        entry: x\n        language: system\n"
LONG = "        args: [" + ", ".join(f'"--option-number-{n}"' for n in range(6)) + "]\n"  # past 80 columns


@pytest.mark.parametrize(("head", "added", "tail"), [
    ('repos:\n' + OURS + '        args: ["--a"]\n', SNIPPET, 'exclude: "^vendor/"\n'),  # the tester's
    ("repos:\n" + OURS + LONG, SNIPPET, "ci:\n      autofix_prs: false   # odd indent\ndefault_stages: [pre-commit]\n"),
    ("repos:\n" + OURS, SNIPPET, "...\n"),  # an end marker
    ("repos:\n" + OURS + "    # -   id: y   (off for now)\n", SNIPPET, "\n# the rest\nexclude: '^x/'\n"),
    ("# hooks\nrepos:\n  - repo: local\n    hooks:\n      - id: x\n        name: x\n        entry: x\n        language: system\n",
     f"  - repo: https://github.com/memlint/memlint\n    rev: v{__version__}\n    hooks:\n      - id: memlint\n",
     "\nfail_fast: true\n"),
    ("repos:\n- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: x\n    language: system\n",
     f"- repo: https://github.com/memlint/memlint\n  rev: v{__version__}\n  hooks:\n  - id: memlint\n",
     "exclude: |\n  ^a/\nrepos_note: 'one'\n"),
    ('"repos":   &hooks   # anchored\n' + OURS, SNIPPET, 'exclude: "^vendor/"\n'),
], ids=["exclude", "long-lines-ci", "end-marker", "comments-between", "indented-list", "compact-list", "quoted-anchored"])
def test_init_pre_commit_inserts_before_the_keys_after_repos_changing_no_byte(tmp_path, cli, head, added, tail):
    """`exclude:`, `ci:`, ... after `repos:`: the entry goes at the end of
    the list, in its style, and no other line changes (a round trip rewrote
    quotes, wrapped long lines, re-indented `ci:` and dropped `...`)."""
    write_files(tmp_path, {"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": MEM, ".pre-commit-config.yaml": head + tail})
    before = yaml.safe_load(head + tail)
    result = cli("init", "--pre-commit", tmp_path)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == head + added + tail
    assert read_back(tmp_path / ".pre-commit-config.yaml") == {
        **before, "repos": [*before["repos"], {"repo": "https://github.com/memlint/memlint", "rev": f"v{__version__}",
                                               "hooks": [{"id": "memlint"}]}]}


@pytest.mark.parametrize(("existing", "expected"), [
    ("repos: []\n", "repos:\n" + SNIPPET),
    ("repos: [] # none yet\nexclude: \"^vendor/\"\n", "repos: # none yet\n" + SNIPPET + "exclude: \"^vendor/\"\n"),
    ("# ours\nrepos:   [ ]   \n...\n# after\n", "# ours\nrepos:\n" + SNIPPET + "...\n# after\n"),
    ("\ufeffrepos: []\r\nci:\r\n    skip: []\r\n", "\ufeffrepos:\r\n" + SNIPPET.replace("\n", "\r\n") + "ci:\r\n    skip: []\r\n"),
    ("'repos' : [] # q\nci: {skip: []}\n", "'repos' : # q\n" + SNIPPET + "ci: {skip: []}\n"),
], ids=["alone", "comment", "spaced-end-marker", "bom-crlf", "quoted"])
def test_init_pre_commit_adds_the_hook_to_an_empty_repos_list(tmp_path, cli, existing, expected):
    """`repos: []`: only that value is replaced, and init does all or nothing
    (the tester saw .memlint.yaml written, then exit 2)."""
    write_files(tmp_path, {"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": MEM})
    (tmp_path / ".pre-commit-config.yaml").write_bytes(existing.encode("utf-8"))
    result = cli("init", "--pre-commit", tmp_path)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / ".memlint.yaml").is_file() and "added the memlint hook" in result.output
    assert (tmp_path / ".pre-commit-config.yaml").read_bytes().decode("utf-8") == expected
    assert len(read_back(tmp_path / ".pre-commit-config.yaml")["repos"]) == 1


def test_init_pre_commit_refuses_what_it_would_change_besides_repos(tmp_path, cli):
    """`repos:` an alias of another key's list: a round trip added the hook to
    both. Refused, before anything is written."""
    existing = "x: &shared []\nrepos: *shared\n"
    write_files(tmp_path, {"MEMORY.md": "# Index\n", ".pre-commit-config.yaml": existing})
    result = cli("init", "--pre-commit", tmp_path)
    assert result.exit_code == 2 and "cannot edit it safely" in result.stderr, result.output
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == existing
    assert not (tmp_path / ".memlint.yaml").exists()


@pytest.mark.parametrize(("ends", "new"), [
    (["\r\n", "\n", "\n", "\r\n", "\n", "\n", "\n"], "\n"),  # mostly LF: the hook's lines too
    (["\n", "\r\n", "\r\n", "\n", "\r\n", "\r\n", "\r\n"], "\r\n"),  # mostly CRLF
], ids=["mostly-lf", "mostly-crlf"])
@pytest.mark.parametrize("tail", [[], ["exclude: x"]], ids=["last", "then-exclude"])
def test_init_pre_commit_keeps_each_line_ending_in_a_mixed_file(tmp_path, cli, ends, new, tail):
    lines = ["repos:", "- repo: local", "  hooks:", "  - id: tidy", "    name: tidy", "    entry: tidy", "    language: system"]
    head = "".join(line + end for line, end in zip(lines, ends))
    rest = "".join(line + ends[0] for line in tail)
    write_files(tmp_path, {"MEMORY.md": "# Index\n"})
    (tmp_path / ".pre-commit-config.yaml").write_bytes((head + rest).encode("utf-8"))
    assert cli("init", "--pre-commit", tmp_path).exit_code == 0
    added = "".join(line + new for line in [
        "- repo: https://github.com/memlint/memlint", f"  rev: v{__version__}", "  hooks:", "  - id: memlint"])
    assert (tmp_path / ".pre-commit-config.yaml").read_bytes().decode("utf-8") == head + added + rest
    assert len(read_back(tmp_path / ".pre-commit-config.yaml")["repos"]) == 2


def test_init_pre_commit_keeps_line_endings_adding_repos_to_a_file_without(tmp_path, cli):
    existing = "# nothing yet\r\n# really\r\n#\n"  # mostly CRLF, no newline at the very end either
    write_files(tmp_path, {"MEMORY.md": "# Index\n"})
    (tmp_path / ".pre-commit-config.yaml").write_bytes(existing.encode("utf-8") + b"# last")
    assert cli("init", "--pre-commit", tmp_path).exit_code == 0
    written = (tmp_path / ".pre-commit-config.yaml").read_bytes().decode("utf-8")
    assert written == existing + "# last\r\n" + ("repos:\n" + SNIPPET).replace("\n", "\r\n")
    read_back(tmp_path / ".pre-commit-config.yaml")


@pytest.mark.parametrize("text", ["repos: []\nx: 2024-13-45\n", "repos: []\nx: !!bool maybe\n", "repos:\n"])
def test_init_pre_commit_refuses_what_it_cannot_read_and_prints_a_snippet_to_paste(tmp_path, cli, text):
    repo = tmp_path / "repo"
    write_files(repo, {"MEMORY.md": "# Index\n", ".git/HEAD": "ref: refs/heads/main\n", ".pre-commit-config.yaml": text})
    result = cli("init", "--pre-commit", repo)
    assert result.exit_code == 2 and "add the hook by hand:" in result.stderr
    assert "\n-   repo: https://github.com/memlint/memlint\n    rev: v" in result.stderr  # lines, to paste
    assert (repo / ".pre-commit-config.yaml").read_text() == text


def test_a_hidden_claude_store_is_linted_beside_a_map_of_content(tmp_path, cli):
    """A vault (INDEX.md beside mocs/) and a committed .claude/memory store:
    both are stores, the vault's broken link is still reported."""
    write_files(tmp_path, {".claude/memory/MEMORY.md": "# Index\n- [A](a.md)\n", ".claude/memory/a.md": "# A\n",
                           "kb/INDEX.md": "# KB\n- [T](mocs/t.md)\n", "kb/mocs/t.md": "# T\n- [gone](../nope.md)\n",
                           ".git/HEAD": "ref: refs/heads/main\n"})
    found = {(f["path"], f["code"]) for f in cli("check", "--format", "json", tmp_path).json()}
    assert (".claude/memory/a.md", "MEM001") in found and ("kb/mocs/t.md", "MEM202") in found
    # an INDEX.md at the top (a store of the folder itself) does not hold it either: it walks no hidden folder
    shutil.move(tmp_path / "kb" / "INDEX.md", tmp_path / "INDEX.md")
    found = {(f["path"], f["code"]) for f in cli("check", "--format", "json", tmp_path).json()}
    assert (".claude/memory/a.md", "MEM001") in found


def test_init_above_a_store_with_its_own_config_refuses_a_config_it_would_ignore(tmp_path, cli):
    shutil.copytree(TESTDATA / "moc", tmp_path / "memory")
    (tmp_path / ".git").mkdir()
    assert cli("init", tmp_path / "memory").exit_code == 0
    result = cli("init", tmp_path)
    assert result.exit_code == 2 and "the nearest config wins" in result.stderr
    assert not (tmp_path / ".memlint.yaml").exists()


def test_init_counts_in_plain_english(tmp_path, cli):
    shutil.copytree(TESTDATA / "openclaw", tmp_path / "oc")
    assert cli("init", tmp_path / "oc").exit_code == 0
    text = (tmp_path / "oc" / ".memlint.yaml").read_text()
    assert ", an openclaw store (" in text and "a openclaw" not in text and " 1 daily logs" not in text
    assert "indexs" not in text


def test_init_beside_a_pyproject_that_does_not_parse_still_writes_its_config(tmp_path, cli):
    """A project below with a broken pyproject.toml: check will say so; init
    above it (looking for a config nearer the store) does not stop on it."""
    shutil.copytree(TESTDATA / "clean", tmp_path / "proj")
    (tmp_path / "proj" / "pyproject.toml").write_text("[project\nname = 'x'\n")
    assert cli("init", tmp_path).exit_code == 0
    assert (tmp_path / ".memlint.yaml").is_file()

"""Config discovery and strict validation."""
from __future__ import annotations

import os
import subprocess

import pytest

from memlint import config

ROOT = "# Index\n- [A](a.md) — " + "x" * 200 + "\n"
MEM = "---\nname: a\ndescription: d\ntype: user\n---\nBody\n"


def store_with(make_store, conf_name, conf_text):
    return make_store({"MEMORY.md": ROOT, "a.md": MEM, conf_name: conf_text})


def test_memlint_yaml_turns_rule_off(make_store, findings):
    store = store_with(make_store, ".memlint.yaml", "rules:\n  MEM102: off\n")
    assert findings(store) == []


def test_rule_named_by_name_and_severity_changed(make_store, cli):
    store = store_with(make_store, ".memlint.yaml", "rules:\n  index-line-length:\n    severity: error\n")
    result = cli("check", "--format", "json", store)
    assert result.exit_code == 1 and result.json()[0]["severity"] == "error"


@pytest.mark.parametrize("spelling", ["off", "'off'"])
def test_wikilinks_off_written_bare_is_off_not_a_type_error(make_store, findings, spelling):
    # YAML 1.1 reads a bare `off` as false, as it does for a rule's severity
    files = {"MEMORY.md": ROOT + "- [[nowhere]]\n", "a.md": MEM, ".memlint.yaml": f"wikilinks: {spelling}\nrules:\n  MEM102: off\n"}
    assert findings(make_store(files)) == []
    files[".memlint.yaml"] = "wikilinks: strict\nrules:\n  MEM102: off\n"
    assert [code for _, _, code in findings(make_store(files))] == ["MEM202"]


@pytest.mark.parametrize("key", ["MEM102", "mem102", "Mem102", "index-line-length", "Index-Line-Length"])
def test_a_rule_is_configured_by_its_code_or_name_in_any_case(make_store, findings, key):
    # Validation accepts these spellings: the setting must then apply, not be dropped
    assert findings(store_with(make_store, ".memlint.yaml", f"rules:\n  {key}: off\n")) == []


def test_two_entries_for_one_rule_are_an_error_not_one_silently_dropped(make_store, cli):
    store = store_with(make_store, ".memlint.yaml", "rules:\n  index-line-length: off\n  MEM102: warning\n")
    result = cli("check", store)
    assert result.exit_code == 2
    assert ".memlint.yaml:3: " in result.stderr
    assert "'index-line-length' and 'MEM102' both configure MEM102" in result.stderr


def test_pyproject_tool_memlint(make_store, findings):
    store = store_with(make_store, "pyproject.toml", "[tool.memlint]\nrules = {MEM102 = 'off'}\n")
    assert findings(store) == []


def test_a_toml_file_named_with_config_is_read_as_toml(make_store, cli, tmp_path):
    store = make_store({"MEMORY.md": ROOT, "a.md": MEM})
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "memlint.toml").write_text("[tool.memlint]\nrules = {MEM102 = 'off'}\n")
    result = cli("check", "--format", "json", "--config", tmp_path / "ci" / "memlint.toml", store)
    assert result.exit_code == 0 and result.json() == []


@pytest.mark.parametrize("name", ["pyproject.toml", "memlint.toml"])
def test_a_named_toml_file_without_a_memlint_table_is_an_error_not_the_defaults(make_store, cli, tmp_path, name):
    store = make_store({"MEMORY.md": ROOT, "a.md": MEM})
    (tmp_path / name).write_text("[tool.memlnt]\nrules = {MEM102 = 'off'}\n")  # misspelt
    result = cli("check", "--config", tmp_path / name, store)
    assert result.exit_code == 2 and f"{name}: no [tool.memlint] table" in result.stderr


def test_a_config_path_that_is_not_a_file_says_so(make_store, cli, tmp_path):
    result = cli("check", "--config", os.devnull, make_store({"MEMORY.md": ROOT, "a.md": MEM}))
    assert result.exit_code == 2 and "not a file" in result.stderr


def test_config_found_walking_up(tmp_path, make_store, findings):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".memlint.yaml").write_text("rules:\n  MEM102: off\n")
    store = make_store({"MEMORY.md": ROOT, "a.md": MEM}, sub="deep/memory")
    assert findings(store) == []


@pytest.mark.parametrize("text, said", [
    ("preset: moc\non: 1\n", ".memlint.yaml:2: unknown key 'on', which YAML reads as true (known: "),
    ("rules:\n  MEM102:\n    On: 3\n", ".memlint.yaml:3: rules.MEM102: unknown option 'On', which YAML reads as true (known: "),
    ("rules:\n  MEM102: off\n  ~: off\n", ".memlint.yaml:3: rules: no such rule: '~', which YAML reads as null (see "),
    ("rules: {MEM102: off, no: off}\n", ".memlint.yaml:1: rules: no such rule: 'no', which YAML reads as false (see "),
    ("preset: moc\n0x1F: 1\n", ".memlint.yaml:2: unknown key '0x1F' (known: "),
])
def test_a_key_yaml_reads_as_no_string_is_named_as_written_on_its_line(make_store, cli, text, said):
    """YAML 1.1 reads `on` as True and `~` as None: the errors named the key
    'True' or 'None', and could not find its line."""
    result = cli("check", store_with(make_store, ".memlint.yaml", text))
    assert result.exit_code == 2 and said in result.stderr, result.stderr


def test_config_not_taken_from_above_git_root(tmp_path, make_store, findings):
    (tmp_path / ".memlint.yaml").write_text("rules:\n  MEM102: off\n")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / ".git").mkdir()
    store = make_store({"MEMORY.md": ROOT, "a.md": MEM}, sub="repo/memory")
    assert [c for _, _, c in findings(store)] == ["MEM102"]


@pytest.mark.parametrize(
    "text, needle",
    [
        ("rulez: {}\n", "unknown key 'rulez'"),
        ("2024: 1\n", "unknown key '2024'"),  # YAML's numbers and booleans are keys too
        ("yes: 1\n", ".memlint.yaml:1: unknown key 'yes', which YAML reads as true"),
        ("preset: claud\n", "unknown preset"),
        ("rules:\n  MEM999: off\n", "no such rule"),
        ("rules:\n  root-budget:\n    max-line: 3\n", "unknown option 'max-line'"),
        ("rules:\n  root-budget:\n    max-lines: lots\n", "max-lines must be integer"),
        ("rules:\n  MEM101: loud\n", "severity must be"),
        ("include: '*.md'\n", "'include' must be a list"),
        ("wikilinks: maybe\n", "'wikilinks' must be one of"),
        ("- a\n", "must be a mapping"),
        ("rules: [\n", "invalid YAML"),
        ("rules:\n  MEM102: {max-length: -5}\n", "max-length must be 0 or more"),
        ("rules:\n  MEM101: {max-lines: -1}\n", "max-lines must be 0 or more"),
        ("schema: 5\n", "'schema' has the wrong type"),
        ("rules:\n  near-duplicate: {threshold: .nan}\n", "threshold must be from 0.01 to 1.0, not nan"),
        ("rules:\n  MEM404: {tolerance-days: .inf}\n", "tolerance-days must be"),
        ("index-depth: -1\n", "'index-depth' must be 1 or more, not -1"),
        # 0 reaches no memory at all: every one an orphan, told to link its index from one nearer the root
        ("index-depth: 0\n", "'index-depth' must be 1 or more, not 0 (links from the root to a memory"),
        ("backtick-refs: 1\n", "'backtick-refs' has the wrong type (int)"),
        ("retired-exempt-rules: [stale, no-such-rule]\n", "retired-exempt-rules: no rule, tag or code prefix matches 'no-such-rule'"),
        ("root: .\n", ".memlint.yaml:1: root '.' is a folder"),
        ("root: .memlint.yaml\n", ".memlint.yaml:1: root '.memlint.yaml' is not a markdown file"),
        # the item at fault, not the list's type
        ("date-fields: [created, 3]\n", "'date-fields' must be a list of strings; item 2 is 3, not a string (quote it)"),
        ("exclude:\n  - drafts/**\n  - {a: 1}\n", "item 2 is {'a': 1}, not a string"),
        # YAML 1.1 reads on as true
        ("rules:\n  orphan:\n    severity: on\n", "not True (YAML reads a bare on or yes as true: write error or warning)"),
        # a value that would silently do nothing
        ("rules:\n  secret-in-memory: {allow: [xyz]}\n", "rules.secret-in-memory.allow: 'xyz' is not a fingerprint"),
        ("rules:\n  MEM601: {allow: [312345678901]}\n", "item 1 is 312345678901, not a string (quote it)"),
        # a field MEM004 does not read as a date (a typo) would allow nothing
        ("rules:\n  MEM004:\n    allow-future: [expires, expries]\n",
         ".memlint.yaml:3: rules.MEM004.allow-future: 'expries' is not a date field, so it allows nothing"),
        ("date-fields: [created]\nrules: {frontmatter-date: {allow-future: [expires]}}\n", "(date fields: created;"),
        ("schema: nope.json\n", ".memlint.yaml:1: schema 'nope.json': no such file"),
        ("schema: claude-code\n", "(shipped: claude-code.json, moc.json, three-layer.json)"),
        # globs that leave the root out: every rule that starts from it would find nothing, silently
        ("exclude: [MEMORY.md]\n", ".memlint.yaml:1: exclude leaves out the store's root, MEMORY.md, but not the rest"),
        ("exclude: ['**/MEMORY.md']\n", "`*/MEMORY.md` leaves out the MEMORY.md of the folders below it"),
        ("include: ['a.md']\n", ".memlint.yaml:1: include leaves out the store's root, MEMORY.md, but not the rest"),
    ],
)
def test_bad_config_exits_2_with_message(make_store, cli, text, needle):
    store = store_with(make_store, ".memlint.yaml", text)
    result = cli("check", store)
    assert result.exit_code == 2
    assert needle in result.stderr
    assert ".memlint.yaml" in result.stderr
    assert "Traceback" not in result.stderr + result.output


def test_globs_that_keep_the_root_leave_the_root_rules_on(make_store, cli):
    # `*/MEMORY.md` leaves out the MEMORY.md of the folders below the root, not the root; and a root
    # named as a project doc (CLAUDE.md, which the default excludes) is still the store's root.
    files = {"MEMORY.md": "# M\n- [A](a.md) — a\n- [gone](gone.md) — gone\n- [Team](team/MEMORY.md) — team\n",
             "a.md": MEM, "team/MEMORY.md": "- [gone too](gone-too.md) — x\n", ".memlint.yaml": "exclude: ['*/MEMORY.md']\n"}
    found = cli("check", "--format", "json", make_store(files)).json()
    assert {(f["path"].rsplit("store/", 1)[-1], f["code"]) for f in found} == {("MEMORY.md", "MEM202")}
    files = {"CLAUDE.md": "# M\n- [A](a.md) — a\n- [gone](gone.md) — gone\n", "a.md": MEM,
             "b.md": MEM.replace("name: a", "name: b"), ".memlint.yaml": "root: CLAUDE.md\n"}
    found = cli("check", "--format", "json", make_store(files, "claude")).json()
    assert {(f["path"].rsplit("claude/", 1)[-1], f["code"]) for f in found} == {("CLAUDE.md", "MEM202"), ("b.md", "MEM201")}


@pytest.mark.parametrize("text, line", [
    ("preset: claude-code\nfoo: 1\n", 2),
    ("# settings\nindex-depth: 'x'\n", 2),
    ("rules:\n  MEM102: off\n  MEM999: off\n", 3),
    ("rules:\n  MEM102: off\n  orphan:\n    severity: loud\n", 4),  # the bad value's line
    ("preset: claude-code\nrules:\n  MEM101:\n    max-lines: x\n", 4),
    ("rules:\n  MEM101:\n    severity: error\n  MEM102:\n    max-lines: 3\n", 5),  # not MEM101's option
    ("rules:\n  MEM102: {max-length: -5}\n", 2),  # flow style: the rule's line
    ("\ufeffbogus: 1\n", 1),  # a BOM
    ("preset: claude-code\n'wikilinks': maybe\n", 2),
])
def test_a_config_error_names_its_line(make_store, cli, text, line):
    store = store_with(make_store, ".memlint.yaml", text)
    result = cli("check", store)
    assert result.exit_code == 2 and f".memlint.yaml:{line}: " in result.stderr, result.stderr


@pytest.mark.parametrize("text, line", [
    ("[tool.memlint]\npreset = 'claude-code'\nbogus = 1\n", 3),
    ("[project]\nname = 'x'\n\n[tool.memlint]\nindex-depth = -1\n", 5),
    ("[tool.memlint]\npreset = 'claude-code'\n\n[tool.memlint.rules.MEM101]\nseverity = 'error'\nmax-lines = 'x'\n", 6),
    ("[tool.memlint]\nrules = {MEM102 = {max-length = -5}}\n", 2),
    ("[tool.memlint.rules]\nMEM102 = 'loud'\n", 2),
    ("[tool.memlint]\npreset = 'claude-code'\nrules.MEM101.max-lines = 'x'\n", 3),  # dotted keys
    ("[tool.memlint]\n\n[tool.memlint.rules]\nMEM102 = 'off'\n\"MEM101\".max-lines = 'x'\n", 5),
    ("[tool.memlint]\ndescription = 'x'\n", 2),
    ("[tool.x]\nd = \"\"\"\nbogus = 1\n\"\"\"\n[tool.memlint]\nbogus = 2\n", 6),  # not the text of a string
    ("[tool.memlint]\nexempt = [\"NOW.md\"]  # docstrings use \"\"\"\n\n[tool.memlint.rules.MEM101]\nmax-lines = -5\n", 5),
    ("[tool.memlint]\nexempt = ['a\"\"\"b']\nbogus = 1\n", 3),  # quotes inside a one-line string
    ("[tool.other]\nd = \"\"\"\nsay \\\"\"\" here\n[tool.memlint]\nmax-lines = 3\n\"\"\"\n[tool.memlint]\nmax-lines = \"bad\"\n", 8),  # an escaped quote
    ("[tool.other]\ntext = \"\"\"first\nlast\"\"\"  # closed; a comment quoting \"\"\"\nother = 1\n\n[tool.memlint]\nfrontmatter = \"sometimes\"\n", 7),
    ("[tool.x]\nd = '''one line'''\n[tool.memlint]\nbogus = 1\n", 4),
])
def test_a_pyproject_error_names_its_line(make_store, cli, text, line):
    store = store_with(make_store, "pyproject.toml", text)
    result = cli("check", store)
    assert result.exit_code == 2 and f"pyproject.toml:{line}: " in result.stderr, result.stderr


def test_explicit_config_file_and_missing_one(make_store, cli, tmp_path):
    store = make_store({"MEMORY.md": ROOT, "a.md": MEM})
    conf = tmp_path / "other.yaml"
    conf.write_text("rules:\n  MEM102: off\n")
    assert cli("check", "--config", conf, store).exit_code == 0
    missing = cli("check", "--config", tmp_path / "nope.yaml", store)
    assert missing.exit_code == 2


def test_root_named_in_config(make_store, findings):
    store = make_store(
        {
            "notes/HOME.md": "# Home\n- [A](a.md)\n",
            "notes/a.md": "plain text\n",
            ".memlint.yaml": "preset: generic\nroot: notes/HOME.md\n",
        }
    )
    assert findings(store) == []


def test_root_in_config_that_does_not_exist(make_store, cli):
    store = make_store({"MEMORY.md": ROOT, ".memlint.yaml": "root: nope/MEMORY.md\n"})
    result = cli("check", store)
    assert result.exit_code == 2 and ".memlint.yaml:1: root 'nope/MEMORY.md' does not exist" in result.stderr


def test_a_folder_beside_the_configured_root_is_refused_not_swapped_for_it(make_store, cli):
    # `check other` once linted mem/ instead, and `check other/b.md` said nothing and passed.
    bad = "---\nname: b\ndescription: d\ntype: typo\n---\nbad\n"
    store = make_store({
        ".memlint.yaml": "preset: claude-code\nroot: mem/MEMORY.md\n",
        "mem/MEMORY.md": "- [a](a.md)\n", "mem/a.md": "---\nname: a\ndescription: d\ntype: user\n---\nok\n",
        "mem/c.md": "---\nname: c\ndescription: d\ntype: user\n---\nok\n",
        "other/MEMORY.md": "- [b](b.md)\n", "other/b.md": bad,
    })
    beside = cli("check", store / "other")
    assert beside.exit_code == 2 and "mem/" not in beside.output
    assert f"other: not the memory store {store / '.memlint.yaml'}:2 names (root: mem/MEMORY.md)" in beside.stderr
    for named in (store, store / "mem", store / "mem" / "c.md"):  # the store, from above it or inside it
        result = cli("check", named)
        assert result.exit_code == 1 and "c.md:1:1: MEM201" in result.output, named
    assert cli("check", store / "other" / "b.md").output == ""  # a file of no store the config names


def test_exclude_globs(make_store, findings):
    store = make_store({"MEMORY.md": "# Index\n", "drafts/x.md": "no frontmatter\n", ".memlint.yaml": "exclude: ['drafts/**']\n"})
    assert findings(store) == []


@pytest.mark.parametrize("glob", ["beta.md", "memory/beta.md", "**/beta.md"])
def test_globs_of_a_config_above_the_store_match_from_either_folder(make_store, findings, glob):
    """The config at the top, the store in memory/: a glob written from the
    config's folder must not silently match nothing."""
    files = {"memory/MEMORY.md": "# Index\n- [Beta](beta.md) — b\n", "memory/beta.md": "no frontmatter\n"}
    top = make_store(files)
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    assert findings(top / "memory", "--select", "MEM001") == [("memory/beta.md", 1, "MEM001")]
    (top / ".memlint.yaml").write_text(f"exclude: ['{glob}']\n")
    assert findings(top / "memory", "--select", "MEM001") == []
    (top / ".memlint.yaml").write_text(f"rules:\n  MEM001:\n    ignore: ['{glob}']\n")
    assert findings(top / "memory", "--select", "MEM001") == []
    (top / ".memlint.yaml").write_text(f"include: ['{glob}', 'MEMORY.md']\nrules:\n  MEM102: off\n")
    assert findings(top / "memory", "--select", "MEM001,MEM201") == [("memory/beta.md", 1, "MEM001")]


@pytest.mark.parametrize("glob, left", [("*/*", ["a.md", "meeting-notes.md"]), ("m*", ["a.md", "archive/old.md"]),
                                        ("memory/m*", ["a.md", "archive/old.md"])])
def test_a_store_relative_glob_in_a_config_above_the_store_matches_only_what_it_says(make_store, findings, glob, left):
    """"*/*" must not match memory/a.md: only a glob that starts with the store's folder is read from the config's."""
    files = {"memory/MEMORY.md": "# Index\n- [A](a.md) — a\n- [M](meeting-notes.md) — m\n- [O](archive/old.md) — o\n",
             "memory/a.md": "Alpha.\n", "memory/meeting-notes.md": "Meeting.\n", "memory/archive/old.md": "Old.\n",
             ".memlint.yaml": f"exclude: ['{glob}']\n"}
    top = make_store(files)
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    assert [path for path, _, _ in findings(top / "memory", "--select", "MEM001")] == [f"memory/{p}" for p in left]


def test_globs_of_a_config_in_a_subfolder_or_a_sibling_folder(make_store, findings, cli):
    files = {"sub/memory/MEMORY.md": "# Index\n- [A](a.md) — a\n- [D](drafts/d.md) — d\n",
             "sub/memory/a.md": "Alpha.\n", "sub/memory/drafts/d.md": "Draft.\n",
             "sub/.memlint.yaml": "rules:\n  MEM001:\n    ignore: ['memory/drafts/*']\n",
             "cfg/c.yaml": "exclude: ['../sub/memory/drafts/**']\n"}
    top = make_store(files)
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    assert findings(top / "sub" / "memory", "--select", "MEM001") == [("sub/memory/a.md", 1, "MEM001")]
    result = cli("check", "--format", "json", "--select", "MEM001", "--config", top / "cfg" / "c.yaml", top / "sub" / "memory")
    assert [f["path"] for f in result.json()] == ["sub/memory/a.md"]


@pytest.mark.parametrize("glob", ["./drafts/**", "drafts/", "./drafts/", "./memory/drafts/**", "memory/drafts/"])
def test_globs_written_as_paths_with_dot_slash_or_a_trailing_slash_match(make_store, findings, glob):
    """`./drafts/**` and `drafts/` (the folder) must not silently match nothing."""
    files = {"memory/MEMORY.md": "# Index\n", "memory/drafts/x.md": "no frontmatter\n"}
    top = make_store(files)
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    for where in (top, top / "memory"):  # the config above the store, or in it
        if glob.lstrip("./").startswith("memory/") and where != top:
            continue
        (where / ".memlint.yaml").write_text(f"exclude: ['{glob}']\n")
        assert findings(top / "memory") == [], where
        (where / ".memlint.yaml").write_text(f"rules:\n  MEM001:\n    ignore: ['{glob}']\n")
        assert findings(top / "memory", "--select", "MEM001") == [], where
        (where / ".memlint.yaml").unlink()


@pytest.mark.parametrize("glob", ["./drafts/**", "drafts/", "./drafts/"])
def test_glob_options_written_as_paths_match_too(make_store, findings, glob):
    """orphan's `exempt` and the duplicate rules' `reports` are globs too: read as `ignore:`'s are."""
    body = "The deploy checklist: run the tests, tag the release, watch the dashboards for an hour.\n"
    files = {"MEMORY.md": "# Index\n- [a](a.md)\n", "a.md": body, "drafts/x.md": body}
    assert sorted(findings(make_store(files), "--select", "MEM201,MEM301")) == [("drafts/x.md", 1, "MEM201"),
                                                                                 ("drafts/x.md", 1, "MEM301")]
    store = make_store({**files, ".memlint.yaml": f"rules:\n  orphan:\n    exempt: ['{glob}']\n"})
    assert findings(store, "--select", "MEM201") == []
    store = make_store({**files, ".memlint.yaml": f"rules:\n  MEM301:\n    reports: ['{glob}']\n"})
    assert findings(store, "--select", "MEM301") == []


@pytest.mark.parametrize("conf, config_form", [("exclude: ['/drafts/**']\n", True),
                                                ("rules:\n  orphan:\n    exempt: ['/drafts/x.md']\n", False),
                                                ("topics: ['/maps/*.md']\n", False)])
def test_an_absolute_glob_error_offers_only_the_forms_its_setting_reads(make_store, cli, conf, config_form):
    """`exempt` and `topics` are read from the store's folder only: the error must not suggest the config's."""
    store = make_store({"MEMORY.md": "# Index\n", "drafts/x.md": "no frontmatter\n", ".memlint.yaml": conf})
    result = cli("check", store)
    assert result.exit_code == 2 and "relative to the store's folder (`drafts/**` for its drafts/ folder)" in result.stderr
    assert ("or to the config file's folder where the store is below it" in result.stderr) == config_form


@pytest.mark.parametrize("conf", ["exclude: ['/drafts/**']\n", "rules:\n  MEM001:\n    ignore: ['/drafts/x.md']\n"])
def test_an_absolute_glob_is_an_error_not_a_glob_that_matches_nothing(make_store, cli, conf):
    store = make_store({"MEMORY.md": "# Index\n", "drafts/x.md": "no frontmatter\n", ".memlint.yaml": conf})
    result = cli("check", store)
    assert result.exit_code == 2
    assert f".memlint.yaml:{conf.count(chr(10))}: " in result.stderr and "is absolute" in result.stderr


def test_rule_ignore_globs(make_store, findings):
    store = make_store(
        {"MEMORY.md": "# Index\n", "drafts/x.md": "no frontmatter\n", ".memlint.yaml": "rules:\n  MEM001:\n    ignore: ['drafts/*']\n  orphan:\n    ignore: ['drafts/**']\n"}
    )
    assert findings(store) == []


def test_glob_match():
    assert config.glob_match("a/b/README.md", ["**/README.md"])
    assert config.glob_match("README.md", ["**/README.md"])
    assert config.glob_match("drafts/x/y.md", ["drafts/**"])
    assert not config.glob_match("notes.md", ["**/README.md"])


def test_a_double_star_between_folders_matches_no_folder_too(make_store, findings):
    """`drafts/**/*.md` is every markdown file under drafts/, drafts/x.md too (as ``**/`` at the start is)."""
    assert config.glob_match("drafts/x.md", ["drafts/**/*.md"])
    assert config.glob_match("a/b/c.md", ["a/**/b/**/c.md"]) and config.glob_match("a/b/x/c.md", ["a/**/b/**/c.md"])
    assert not config.glob_match("a/c.md", ["a/**/b/**/c.md"]) and not config.glob_match("draftsx.md", ["drafts/**/*.md"])
    store = make_store({"MEMORY.md": "# Index\n", "drafts/x.md": "no frontmatter\n", "drafts/old/y.md": "no frontmatter\n",
                        ".memlint.yaml": "exclude: ['drafts/**/*.md']\n"})
    assert findings(store) == []


def test_glob_matcher_agrees_with_the_plain_globs_on_random_paths():
    """The literal each glob needs lets most paths skip the regex: never a
    different answer than fnmatch's (with ``**/`` matching no folder too, and
    ``dir/**`` the folder itself)."""
    import fnmatch
    import random

    rng = random.Random(7)
    parts = ["a", "b", "reports", "report-1", "x_report", "[x]", "]", "!", "*", "notes", "README", "md", "-", "_", "."]
    globs = ["**/reports/**", "**/*report[-_][0-9]*.md", "**/*[-_]report.md", "drafts/**", "**/README.md", "*.md",
             "a/[!b]*/x.md", "[]]*", "[!]]x*", "a[", "**", "?/*.md", "[a-c]/**", "notes/*[.]md"]

    def plain(path: str, patterns) -> bool:
        for pattern in patterns:
            alternatives = [pattern] + ([pattern[3:]] if pattern.startswith("**/") else [])
            if any(fnmatch.fnmatchcase(path, a) for a in alternatives):
                return True
            if pattern.endswith("/**") and (path + "/").startswith(pattern[:-2]):
                return True
        return False

    for _ in range(3000):
        path = "/".join("".join(rng.choice(parts) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 4)))
        path += rng.choice(["", ".md"])
        patterns = rng.sample(globs, rng.randint(1, 3))
        assert config.glob_matcher(patterns)(path) == plain(path, patterns), (path, patterns)
    assert config._literal_run("**/*report[-_][0-9]*.md") == "report"
    assert config._literal_run("a[") == ""  # an unclosed [ is read as itself: no needle bet on it


def test_a_schema_that_is_a_fifo_is_a_config_error_not_a_hang(make_store, cli):
    import os

    store = store_with(make_store, ".memlint.yaml", "schema: s.json\n")
    os.mkfifo(store / "s.json")
    result = cli("check", store)
    assert result.exit_code == 2 and "not a regular file" in result.stderr


def test_a_tool_key_that_is_not_a_table_is_no_memlint_table_not_a_crash(make_store, cli, tmp_path):
    store = make_store({"MEMORY.md": ROOT, "a.md": MEM, "pyproject.toml": '[project]\nname = "x"\n[[tool]]\nfoo = 1\n'})
    assert cli("check", store).exit_code in (0, 1)
    (tmp_path / "x.toml").write_text("tool = 3\n")
    result = cli("check", "--config", tmp_path / "x.toml", store)
    assert result.exit_code == 2 and "no [tool.memlint] table" in result.stderr


@pytest.mark.parametrize("value", ["!!bool maybe", "!!timestamp foo"])
def test_a_tag_yaml_cannot_read_is_a_finding_or_a_config_error(make_store, cli, value):
    store = make_store({"MEMORY.md": "# Index\n- [A](a.md) — a\n", "a.md": f"---\nname: a\nx: {value}\n---\nbody\n"})
    result = cli("check", "--format", "json", store)
    assert [(f["path"], f["line"], f["code"]) for f in result.json()] == [("a.md", 2, "MEM002")]
    (store / ".memlint.yaml").write_text(f"x: {value}\n")
    bad = cli("check", store)
    assert bad.exit_code == 2 and ".memlint.yaml:1:1: invalid YAML" in bad.stderr

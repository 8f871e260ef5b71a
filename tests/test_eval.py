"""`memlint eval`: golden questions walked root -> topic -> memory."""
from __future__ import annotations

import json
import shutil

import pytest
import yaml

from memlint.evaluate import GoldenError, Router, load_golden, parse_golden, words
from tests.conftest import TESTDATA

MOC_GOLDEN = TESTDATA / "moc" / "golden.yaml"


def entries(path) -> int:
    """Index entry lines of a sample topic (other work may plant more in it)."""
    return sum(1 for line in path.read_text().splitlines() if line.startswith("- [["))


@pytest.fixture
def moc(tmp_path):
    """A copy of testdata/moc (the store is not in a git repo: paths are store-relative)."""
    store = tmp_path / "moc"
    shutil.copytree(TESTDATA / "moc", store)
    return store


def run_json(cli, *args):
    result = cli("eval", "--format", "json", *args)
    assert result.exit_code == 0, result.output + result.stderr
    return result.json()


def by_q(record):
    return {item["q"]: item for item in record["questions"]}


# ---------------------------------------------------------------- the golden set on a testdata store


def test_moc_golden_set_all_pass_with_paths(cli, moc):
    record = run_json(cli, moc / "golden.yaml", moc)
    assert record["totals"] == {
        "questions": 5, "k": 3,
        "passed": {"count": 5, "percent": 100.0}, "reachable": {"count": 5, "percent": 100.0},
        "loaded": {"count": 5, "percent": 100.0}, "routed": {"count": 5, "percent": 100.0},
    }
    ripgrep = by_q(record)["which search tool flags do we use?"]
    assert [(h["path"], h["line"], h["target"]) for h in ripgrep["path"]] == [
        ("MEMORY.md", 7, "MOC-tools.md"),
        ("MOC-tools.md", 4, "tools/ripgrep.md"),
    ]
    assert [(h["path"], h["line"], h["rank"], h["of"]) for h in ripgrep["route"]] == [
        ("MEMORY.md", 7, 1, 2),
        ("MOC-tools.md", 4, 1, entries(moc / "MOC-tools.md")),
    ]
    project = by_q(record)["what is the status of client project 07?"]
    assert [(h["path"], h["line"], h["rank"], h["of"]) for h in project["route"]] == [
        ("MEMORY.md", 6, 1, 2),
        ("MOC-projects.md", 9, 1, 27),
    ]


def test_any_spelling_of_a_store_file_is_that_file(cli, moc, tmp_path):
    spellings = ["tools/ripgrep.md", "./tools/ripgrep.md", "tools/./ripgrep.md", "tools//ripgrep.md",
                 "tools\\ripgrep.md", str(moc.resolve() / "tools" / "ripgrep.md")]
    golden = tmp_path / "golden.yaml"
    golden.write_text("".join(f"- q: which search tool flags do we use? ({i})\n  expect: '{path}'\n"
                              for i, path in enumerate(spellings)), encoding="utf-8")
    record = run_json(cli, golden, moc)
    assert record["totals"]["reachable"]["count"] == len(spellings), [q.get("why") for q in record["questions"]]


def test_text_output_names_each_hop_and_totals(cli, moc):
    result = cli("eval", moc / "golden.yaml", moc)
    assert result.exit_code == 0, result.stderr
    lines = result.output.splitlines()
    assert "PASS  which search tool flags do we use?  -> tools/ripgrep.md" in lines
    tools = entries(moc / "MOC-tools.md")
    assert f"      MEMORY.md:7 (#1 of 2) -> MOC-tools.md:4 (#1 of {tools}) -> tools/ripgrep.md" in lines
    assert lines[-1] == "5 questions, 5 pass: reachable 5/5 (100%), loaded 5/5 (100%), routed@3 5/5 (100%)"


def test_repository_relative_expect_in_the_real_testdata(cli):
    """testdata/moc/golden.yaml names store-relative files; from the repository
    the files print repository-relative."""
    record = run_json(cli, MOC_GOLDEN, TESTDATA / "moc")
    assert record["totals"]["passed"]["count"] == 5
    assert by_q(record)["scope of client project 12"]["found"] == "testdata/moc/projects/project-12.md"


# ---------------------------------------------------------------- a tidy-up that loses a memory


def test_moving_a_memory_out_of_its_topic_flips_exactly_that_question(cli, moc, tmp_path):
    golden = moc / "golden.yaml"
    baseline = tmp_path / "before.json"
    before = cli("eval", "--save", baseline, golden, moc)
    assert before.exit_code == 0
    assert json.loads(baseline.read_text())["totals"]["passed"]["count"] == 5

    # The tidy-up: ripgrep moves to an archive folder, out of the tools topic.
    topic = moc / "MOC-tools.md"
    topic.write_text(topic.read_text().replace("- [[ripgrep]] — fast search flags we use\n", ""))
    (moc / "archive").mkdir()
    (moc / "tools" / "ripgrep.md").rename(moc / "archive" / "ripgrep.md")

    record = run_json(cli, golden, moc)
    failed = [q for q, item in by_q(record).items() if not item["passed"]]
    assert failed == ["which search tool flags do we use?"]
    assert by_q(record)[failed[0]]["why"] == "tools/ripgrep.md is not a file of the store"
    assert record["totals"]["passed"] == {"count": 4, "percent": 80.0}

    after = cli("eval", "--baseline", baseline, golden, moc)
    assert after.exit_code == 1
    lines = after.output.splitlines()
    assert lines[-2:] == [
        f"REGRESSION: 1 passed in {baseline} and fail now:",
        f"  {golden}:6: 'which search tool flags do we use?' -> tools/ripgrep.md: tools/ripgrep.md is not a file of the store",
    ]


def test_baseline_names_the_question_that_regressed(cli, moc, tmp_path):
    baseline = tmp_path / "before.json"
    cli("eval", "--save", baseline, moc / "golden.yaml", moc)
    topic = moc / "MOC-tools.md"
    topic.write_text(topic.read_text().replace("- [[ripgrep]] — fast search flags we use\n", ""))

    after = cli("eval", "--baseline", baseline, moc / "golden.yaml", moc)
    assert after.exit_code == 1
    lines = after.output.splitlines()
    assert "REGRESSION: 1 passed in " + str(baseline) + " and fail now:" in lines
    assert (f"  {moc / 'golden.yaml'}:6: 'which search tool flags do we use?' -> tools/ripgrep.md: "
            "not reachable: nothing links to it") in lines
    assert lines.count("FAIL  which search tool flags do we use?  -> tools/ripgrep.md") == 1
    assert sum(line.startswith("FAIL") for line in lines) == 1

    # put it back: no regression, exit 0
    topic.write_text(topic.read_text() + "- [[ripgrep]] — fast search flags we use\n")
    again = cli("eval", "--baseline", baseline, moc / "golden.yaml", moc)
    assert again.exit_code == 0, again.output
    assert again.output.splitlines()[-1] == f"no regression against {baseline}"


def test_a_regression_is_found_however_the_file_is_spelt_in_either_run(cli, moc, tmp_path):
    before_golden, after_golden = tmp_path / "a.yaml", tmp_path / "b.yaml"
    before_golden.write_text("- q: which search tool flags do we use?\n  expect: tools/ripgrep.md\n")
    after_golden.write_text(f"- q: which search tool flags do we use?\n  expect: '{moc.resolve() / 'tools/ripgrep.md'}'\n")
    baseline = tmp_path / "before.json"
    cli("eval", "--save", baseline, before_golden, moc)
    topic = moc / "MOC-tools.md"
    topic.write_text(topic.read_text().replace("- [[ripgrep]] — fast search flags we use\n", ""))
    after = cli("eval", "--baseline", baseline, after_golden, moc)
    assert after.exit_code == 1 and "REGRESSION: 1 passed" in after.output and "new questions" not in after.output


def test_the_same_question_for_one_file_spelt_two_ways_is_an_error(cli, moc, tmp_path):
    golden = tmp_path / "golden.yaml"
    golden.write_text("- q: flags?\n  expect: tools/ripgrep.md\n"
                      f"- q: flags?\n  expect: '{moc.resolve() / 'tools/ripgrep.md'}'\n")
    result = cli("eval", golden, moc)
    assert result.exit_code == 2 and f"{golden}:3: the same question and file as line 1" in result.stderr


def test_a_question_that_failed_before_is_not_a_regression(cli, moc, tmp_path):
    topic = moc / "MOC-tools.md"
    original = topic.read_text()
    topic.write_text(original.replace("- [[ripgrep]] — fast search flags we use\n", ""))
    baseline = tmp_path / "before.json"
    cli("eval", "--save", baseline, moc / "golden.yaml", moc)
    topic.write_text(original)
    result = cli("eval", "--baseline", baseline, moc / "golden.yaml", moc)
    assert result.exit_code == 0
    assert "1 now pass that failed in" in result.output


# ---------------------------------------------------------------- routing

ROUTED_STORE = {
    "MEMORY.md": (
        "# Memory\n"
        "- [Billing](topics/billing.md) — invoices, plans and what customers pay\n"
        "- [Releases](topics/releases.md) — deploy steps, smoke tests, the pricing page\n"
        "- [People](topics/people.md) — who owns what\n"
    ),
    "topics/billing.md": (
        "# Billing\n"
        "- [Pro plan](../pro-plan.md) — what the Pro plan costs per month\n"
        "- [Invoices](../invoices.md) — how invoices are numbered\n"
    ),
    "topics/releases.md": (
        "# Releases\n"
        "- [Smoke test](../smoke.md) — run the smoke test before a deploy\n"
        "- [Pricing page](../pricing-page.md) — how the pricing page is deployed\n"
    ),
    "topics/people.md": "# People\n- [Owners](../owners.md) — who owns billing and releases\n",
    "pro-plan.md": "---\nname: pro-plan\ndescription: Pro plan price\n---\n49 EUR a month.\n",
    "invoices.md": "---\nname: invoices\ndescription: Invoice numbers\n---\nINV-YYYY-NNNN.\n",
    "smoke.md": "---\nname: smoke\ndescription: Smoke test\n---\nmake smoke\n",
    "pricing-page.md": "---\nname: pricing-page\ndescription: Pricing page deploys\n---\nnetlify\n",
    "owners.md": "---\nname: owners\ndescription: Owners\n---\nAda.\n",
}
GENERIC = ".memlint.yaml"


def golden_file(tmp_path, *items):
    path = tmp_path / "golden.yaml"
    path.write_text(yaml.safe_dump([{"q": q, "expect": e} for q, e in items], sort_keys=False))
    return path


def test_a_question_the_root_answers_passes(cli, make_store, tmp_path):
    """The root is loaded at every session start: there is nothing to route through."""
    store = make_store(ROUTED_STORE)
    golden = golden_file(tmp_path, ("which topics does the memory have?", "MEMORY.md"))
    (answer,) = by_q(run_json(cli, golden, store)).values()
    assert (answer["reachable"], answer["loaded"], answer["routed"], answer["passed"]) == (True, True, True, True)
    assert not answer["why"]


def test_a_better_match_elsewhere_fails_routing_but_not_reachability(cli, make_store, tmp_path):
    store = make_store(ROUTED_STORE)
    # "pricing" and "plan" point the router at Billing first; the answer is under Releases.
    golden = golden_file(tmp_path, ("what plan does the pricing page show customers?", "pricing-page.md"),
                         ("what does the Pro plan cost per month?", "pro-plan.md"))
    at_k1 = by_q(run_json(cli, "--k", "1", golden, store))
    miss = at_k1["what plan does the pricing page show customers?"]
    assert (miss["reachable"], miss["loaded"], miss["routed"], miss["passed"]) == (True, True, False, False)
    assert [(h["path"], h["line"]) for h in miss["path"]] == [("MEMORY.md", 3), ("topics/releases.md", 3)]
    assert miss["path"][0]["rank"] == 2
    assert miss["why"] == "not routed@1: at MEMORY.md, line 3 ranked 2 of 3"
    assert at_k1["what does the Pro plan cost per month?"]["passed"] is True

    # with the default k=3 the router follows the second-best topic too
    at_k3 = by_q(run_json(cli, golden, store))
    assert at_k3["what plan does the pricing page show customers?"]["passed"] is True
    assert [(h["path"], h["line"], h["rank"]) for h in at_k3["what plan does the pricing page show customers?"]["route"]] == [
        ("MEMORY.md", 3, 2), ("topics/releases.md", 3, 1)]


def test_a_line_sharing_no_word_is_never_picked(cli, make_store, tmp_path):
    store = make_store(ROUTED_STORE)
    golden = golden_file(tmp_path, ("who is Ada?", "owners.md"))
    item = run_json(cli, golden, store)["questions"][0]
    assert (item["reachable"], item["routed"]) == (True, False)
    assert item["why"] == "not routed@3: at MEMORY.md, line 4 shares no word with the question"


def test_words_fold_plurals_and_drop_stop_words():
    assert words("What does the Pro plan cost? Costs, flags and stories") == ["pro", "plan", "cost", "cost", "flag", "story"]
    assert words("踩坑 AGI") == ["踩", "坑", "agi"]
    # half-width katakana is Japanese too: one word per character, as its full-width form
    assert words("ｾｷｭﾘﾃｨﾎﾟﾘｼｰ") == list("ｾｷｭﾘﾃｨﾎﾟﾘｼｰ")
    # words a file name says nothing with are a question's content: "json", "new", "notes", "log"
    assert words("how do I filter json with jq into new notes and the log?") == ["filter", "json", "jq", "new", "note", "log"]


def test_router_ranks_rare_words_above_common_ones(make_store):
    from memlint.config import load
    from memlint.store import Store

    store_dir = make_store({
        "MEMORY.md": "".join(f"- [Client {i}](c{i}.md) — client project {i}\n" for i in range(1, 8)),
        **{f"c{i}.md": f"---\nname: c{i}\ndescription: d\n---\nx\n" for i in range(1, 8)},
    })
    store = Store(store_dir, "MEMORY.md", load(None, start=store_dir), preset="generic")
    router = Router(store, {}, lambda rel: rel == "MEMORY.md")
    ranks = router.rank(words("client project 5"), "MEMORY.md")
    assert [(rank, entry.line) for rank, _, entry in ranks][:2] == [(1, 5), (2, 1)]
    # every other line ties on the common words and shares rank 2
    assert {rank for rank, _, _ in ranks[1:]} == {2}


# ---------------------------------------------------------------- loaded, depth, missing files


def test_a_memory_past_the_root_load_cap_is_reachable_but_not_loaded(cli, make_store, tmp_path):
    lines = ["# Memory"] + [f"- [Note {i}](n{i}.md) — note number {i}" for i in range(1, 9)]
    files = {"MEMORY.md": "\n".join(lines) + "\n", GENERIC: "preset: claude-code\nrules:\n  root-budget: {max-lines: 5}\n"}
    files.update({f"n{i}.md": f"---\nname: n{i}\ndescription: note {i}\ntype: project\n---\nx\n" for i in range(1, 9)})
    store = make_store(files)
    golden = golden_file(tmp_path, ("note number 2", "n2.md"), ("note number 7", "n7.md"))
    items = by_q(run_json(cli, golden, store))
    assert items["note number 2"]["passed"] is True
    late = items["note number 7"]
    assert (late["reachable"], late["loaded"], late["routed"]) == (True, False, False)
    assert late["why"] == "not loaded: MEMORY.md:8 is past the root's load cap (lines 6-9 dropped)"
    assert late["path"][0]["rank"] is None


def test_a_memory_whose_reference_definition_is_past_the_root_cap_is_not_loaded(cli, make_store, tmp_path):
    """`- [Note 1][a]` loads, `[a]: n1.md` past the cap does not: the agent
    reads the words without the file (MEM101 counts it lost)."""
    lines = ["# Memory", "- [Note 1][a] — note number 1"]
    lines += [f"- [Note {i}](n{i}.md) — note number {i}" for i in range(2, 5)]
    files = {"MEMORY.md": "\n".join(lines) + "\n\n[a]: n1.md\n",
             GENERIC: "preset: claude-code\nrules:\n  root-budget: {max-lines: 5}\n"}
    files.update({f"n{i}.md": f"---\nname: n{i}\ndescription: note {i}\ntype: project\n---\nx\n" for i in range(1, 5)})
    golden = golden_file(tmp_path, ("note number 1", "n1.md"))
    item = run_json(cli, golden, make_store(files))["questions"][0]
    assert (item["reachable"], item["loaded"], item["routed"]) == (True, False, False)
    assert item["why"] == ("not loaded: MEMORY.md:2 links through a reference definition past the root's load cap "
                           "(lines 6-7 dropped)")


def test_a_memory_also_reached_through_a_loaded_topic_is_loaded(cli, make_store, tmp_path):
    """Reached through a hidden root line and through a loaded topic: loaded."""
    lines = ["# Memory", "- [Topic](topic.md) — topic of the late items"] + [f"- [Filler {i}](f.md) — filler" for i in range(6)]
    lines.append("- [Late](late.md) — late note")
    topic = "# Topic\n" + "".join(f"- [x{i}](x.md) — x\n" for i in range(4)) + "- [Late note](late.md) — the late note\n"
    store = make_store({
        "MEMORY.md": "\n".join(lines) + "\n", GENERIC: "preset: generic\nrules:\n  root-budget: {max-lines: 5}\n",
        "topic.md": topic, "late.md": "late\n", "f.md": "f\n", "x.md": "x\n",
    })
    golden = golden_file(tmp_path, ("the late note", "late.md"))
    item = run_json(cli, golden, store)["questions"][0]
    assert (item["reachable"], item["loaded"], item["routed"]) == (True, True, True)
    assert [(h["path"], h["line"]) for h in item["path"]] == [("MEMORY.md", 2), ("topic.md", 6)]


def test_index_depth_limits_reachability(cli, make_store, tmp_path):
    store = make_store({
        "MEMORY.md": "- [Area](area.md) — the area\n",
        "area.md": "# Area\n" + "".join(f"- [t{i}](t.md) — sub topic\n" for i in range(5)),
        "t.md": "# Sub topic\n" + "".join(f"- [leaf](leaf.md) — the leaf {i}\n" for i in range(5)),
        "leaf.md": "leaf\n",
        GENERIC: "preset: generic\nindex-depth: 2\n",
    })
    golden = golden_file(tmp_path, ("the leaf of the sub topic area", "leaf.md"))
    item = run_json(cli, golden, store)["questions"][0]
    assert item["reachable"] is False
    assert item["why"] == "not reachable: linked only from t.md, which the walk from MEMORY.md does not read as an index within 2 levels"


def test_an_expected_file_missing_from_the_store_fails(cli, make_store, tmp_path):
    store = make_store(ROUTED_STORE)
    golden = golden_file(tmp_path, ("gone", "nowhere.md"))
    item = run_json(cli, golden, store)["questions"][0]
    assert (item["passed"], item["found"], item["why"]) == (False, None, "nowhere.md is not a file of the store")


# ---------------------------------------------------------------- golden set validation


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- q: a\n  expect: a.md\n  note: x\n", "golden.yaml:3: unknown key 'note' (expected q and expect)"),
        ("- q: a\n  expect: a.md\n- q: b\n", "golden.yaml:3: missing 'expect'"),
        ("- expect: a.md\n", "golden.yaml:1: missing 'q'"),
        ("q: a\nexpect: a.md\n", "golden.yaml:1: expected a list of {q: question, expect: path/to/memory.md}"),
        ("- q: a\n  expect: [a.md]\n", "golden.yaml:2: expect must be a string"),
        ("- q: 42\n  expect: a.md\n", "golden.yaml:1: q must be a string"),
        ("- q: ''\n  expect: a.md\n", "golden.yaml:1: q is empty"),
        ("- just a string\n", "golden.yaml:1: each item must be a mapping with keys q and expect"),
        ("- q: a\n  q: b\n  expect: a.md\n", "golden.yaml:2: duplicate key 'q'"),
        ("- q: a\n  expect: a.md\n\n- q: a\n  expect: a.md\n", "golden.yaml:4: the same question and file as line 1"),
        ("- q: a\n  expect: tools/x.md\n- q: a\n  expect: ./tools//x.md\n",
         "golden.yaml:3: the same question and file as line 1"),
        ('- q: a\n  expect: "a.md\\nb.md"\n', "golden.yaml:2: expect must be one path, on one line"),
        ("", "golden.yaml:1: empty golden set; expected a list of {q: question, expect: path/to/memory.md}"),
        ("[]\n", "golden.yaml:1: the golden set has no questions"),
        ("- q: 'a\n  expect: a.md\n", "golden.yaml:3: not valid YAML: found unexpected end of stream"),
        ("[" * 2000, "golden.yaml: nested too deeply to be a golden set"),
    ],
)
def test_bad_golden_sets_exit_2_with_file_and_line(cli, make_store, tmp_path, text, message):
    store = make_store(ROUTED_STORE)
    golden = tmp_path / "golden.yaml"
    golden.write_text(text)
    result = cli("eval", "golden.yaml", store.name, cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == f"memlint: {message}\n"
    assert result.output == ""


def test_parse_golden_keeps_item_lines():
    questions = parse_golden("# c\n- q: a\n  expect: a.md\n\n- expect: b.md\n  q: b\n", "g.yaml")
    assert [(q.q, q.expect, q.line) for q in questions] == [("a", "a.md", 2), ("b", "b.md", 5)]


def test_missing_golden_file_and_bad_baseline_exit_2(cli, make_store, tmp_path):
    store = make_store(ROUTED_STORE)
    missing = cli("eval", tmp_path / "nope.yaml", store)
    assert missing.exit_code == 2 and "nope.yaml: cannot read" in missing.stderr
    golden = golden_file(tmp_path, ("a", "owners.md"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"questions": 3}')
    result = cli("eval", "--baseline", bad, golden, store)
    assert result.exit_code == 2
    assert result.stderr == f"memlint: {bad}: not a saved eval run (write one with memlint eval --save FILE)\n"
    bad.write_text("[" * 100_000 + "]" * 100_000)
    deep = cli("eval", "--baseline", bad, golden, store)
    assert deep.exit_code == 2 and deep.stderr == f"memlint: {bad}: not a saved eval run (nested too deeply)\n"
    with pytest.raises(GoldenError):
        load_golden(tmp_path / "nope.yaml")


def test_usage_errors(cli, make_store, tmp_path):
    store = make_store(ROUTED_STORE)
    assert cli("eval", store).exit_code == 2  # a folder is not a golden set
    assert "needs a golden set" in cli("eval").stderr
    golden = golden_file(tmp_path, ("a", "owners.md"))
    assert "go with --init" in cli("eval", "--output", tmp_path / "x", golden, store).stderr
    loose = tmp_path / "loose.md"
    loose.write_text("# a note in no store\n")
    outside = cli("eval", "--init", loose)
    assert outside.exit_code == 2 and outside.stderr == f"memlint: {loose}: in no memory store; name a store's folder: memlint eval --init PATH\n"
    outside = cli("eval", golden, loose)  # ran against no store: every question failed, and exit 0
    assert outside.exit_code == 2 and outside.stderr == (
        f"memlint: {loose}: in no memory store; name a store's folder: memlint eval {golden} PATH\n")


def test_text_output_escapes_control_characters_in_names(cli, make_store, tmp_path):
    store = make_store({"MEMORY.md": "# Memory\n- [Red](<red\x1b[2Jx.md>) — red alert\n",
                        "red\x1b[2Jx.md": "---\nname: red\ndescription: red alert\ntype: project\n---\nbody\n"})
    golden = tmp_path / "g.yaml"
    golden.write_text('- q: red alert\n  expect: "red\\e[2Jx.md"\n')
    result = cli("eval", golden, store)
    assert result.exit_code == 0 and "\x1b" not in result.output
    assert "PASS  red alert  -> red\\x1b[2Jx.md" in result.output


def test_save_writes_the_run_atomically(cli, moc, tmp_path, monkeypatch):
    import memlint.atomic as atomic

    writes = []
    real = atomic.write_bytes_atomic
    monkeypatch.setattr(atomic, "write_bytes_atomic", lambda path, data: (writes.append(path), real(path, data)))
    saved = tmp_path / "run.json"
    saved.write_text("old")
    result = cli("eval", "--save", saved, moc / "golden.yaml", moc)
    assert result.exit_code == 0
    assert writes == [saved]
    data = json.loads(saved.read_text())
    assert data["memlint-eval"] == 1 and data["k"] == 3 and len(data["questions"]) == 5
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".memlint-tmp")]


def test_save_refuses_to_replace_the_golden_set(cli, moc, monkeypatch):
    golden = moc / "golden.yaml"
    before = golden.read_bytes()
    monkeypatch.chdir(moc)
    result = cli("eval", "--save", "./golden.yaml", golden, moc)
    assert result.exit_code == 2 and "that is the golden set" in result.stderr
    assert golden.read_bytes() == before


# ---------------------------------------------------------------- --init


def test_init_proposes_one_question_per_memory(cli, make_store, tmp_path):
    store = make_store(ROUTED_STORE)
    result = cli("eval", "--init", store)
    assert result.exit_code == 0, result.stderr
    assert result.output.startswith("# Golden set for MEMORY.md, proposed by `memlint eval --init`.\n")
    questions = parse_golden(result.output, "proposal")
    assert [(q.q, q.expect) for q in questions] == [
        ("Invoice numbers", "invoices.md"),
        ("Owners", "owners.md"),
        ("Pricing page deploys", "pricing-page.md"),
        ("Pro plan price", "pro-plan.md"),
        ("Smoke test", "smoke.md"),
    ]
    # a proposal is a working golden set as it stands
    proposal = tmp_path / "proposal.yaml"
    proposal.write_text(result.output)
    assert run_json(cli, proposal, store)["totals"]["reachable"]["count"] == 5


def test_init_leaves_out_retired_memories(cli, make_store):
    store = make_store({
        "MEMORY.md": "- [New](new.md) — prices\n",
        "new.md": "---\ndescription: current prices\nsupersedes: old\n---\nx\n",
        "old.md": "---\ndescription: old prices\nstatus: superseded\n---\nx\n",
    })
    questions = parse_golden(cli("eval", "--init", "--preset", "generic", store).output, "p")
    assert [(q.q, q.expect) for q in questions] == [("current prices", "new.md")]


def test_init_falls_back_to_heading_and_file_name(cli, make_store):
    store = make_store({
        "MEMORY.md": "- [a](a.md)\n- [b](deploy_notes.md)\n",
        "a.md": "# How we ship | fast\nbody\n",
        "deploy_notes.md": "no heading\n",
    })
    questions = parse_golden(cli("eval", "--init", "--preset", "generic", store).output, "p")
    assert [(q.q, q.expect) for q in questions] == [("How we ship | fast", "a.md"), ("deploy notes", "deploy_notes.md")]


def test_init_output_never_overwrites_without_force(cli, make_store, tmp_path):
    store = make_store(ROUTED_STORE)
    target = tmp_path / "golden.yaml"
    first = cli("eval", "--init", "--output", target, store)
    assert first.exit_code == 0 and first.output == ""
    assert "wrote" in first.stderr and "(5 questions)" in first.stderr
    target.write_text("mine\n")
    again = cli("eval", "--init", "--output", target, store)
    assert again.exit_code == 2 and "exists; use --force" in again.stderr
    assert target.read_text() == "mine\n"
    forced = cli("eval", "--init", "--output", target, "--force", store)
    assert forced.exit_code == 0
    assert len(parse_golden(target.read_text(), "g")) == 5




def test_dash_is_standard_output_for_the_proposal_and_no_file_to_save_a_run_in(cli, make_store, tmp_path,
                                                                                monkeypatch):
    """As for check, graph and report, ``-o -`` is standard output; ``--save -``
    would mix the run into the report there, so it is refused. Neither writes
    a file named ``-``."""
    store = make_store(ROUTED_STORE)
    monkeypatch.chdir(tmp_path)
    proposal = cli("eval", "--init", "-o", "-", store)
    assert proposal.exit_code == 0 and proposal.output == cli("eval", "--init", store).output
    golden = tmp_path / "golden.yaml"
    golden.write_text(proposal.output)
    saved = cli("eval", golden, store, "--save", "-")
    assert saved.exit_code == 2
    assert "a run is kept in a file; for it on standard output use --format json" in saved.stderr
    assert not (tmp_path / "-").exists()
def test_init_in_a_repository_names_repository_relative_files(cli, tmp_path):
    import subprocess

    repo = tmp_path / "repo"
    (repo / "memory").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "memory" / "MEMORY.md").write_text("- [Pricing](pricing.md) — competitor prices\n")
    (repo / "memory" / "pricing.md").write_text("---\nname: pricing\ndescription: What does the Pro plan cost?\ntype: project\n---\n49\n")
    questions = parse_golden(cli("eval", "--init", repo).output, "p")
    assert [(q.q, q.expect) for q in questions] == [("What does the Pro plan cost?", "memory/pricing.md")]


def test_a_golden_set_that_is_a_fifo_is_refused_not_waited_for(cli, make_store, tmp_path):
    import os

    store = make_store(ROUTED_STORE)
    os.mkfifo(tmp_path / "golden.yaml")
    result = cli("eval", tmp_path / "golden.yaml", store)
    assert result.exit_code == 2 and "not a regular file" in result.stderr


def test_eval_never_writes_over_a_file_the_store_reads(cli, moc):
    """--save and --init --output are reports: the root, a memory or the
    config is refused (exit 2, the file as it was), --force or not."""
    root = (moc / "MEMORY.md").read_bytes()
    result = cli("eval", moc / "golden.yaml", moc, "--save", moc / "MEMORY.md")
    assert result.exit_code == 2 and "is a file of the store" in result.stderr
    assert (moc / "MEMORY.md").read_bytes() == root
    memory = next(p for p in sorted(moc.rglob("*.md")) if p.name not in ("MEMORY.md", "INDEX.md", "README.md"))
    before = memory.read_bytes()
    result = cli("eval", "--init", moc, "-o", memory, "--force")
    assert result.exit_code == 2 and memory.read_bytes() == before
    result = cli("eval", "--init", moc, "-o", moc / ".memlint.yaml")
    assert result.exit_code == 2 and "would configure the store" in result.stderr and not (moc / ".memlint.yaml").exists()


def test_eval_init_with_no_memory_to_ask_about_says_so(cli, make_store, tmp_path):
    store = make_store({"MEMORY.md": "# Index\n"})
    result = cli("eval", "--init", store, "-o", tmp_path / "g.yaml")
    assert result.exit_code == 2 and "no memory to ask about" in result.stderr and not (tmp_path / "g.yaml").exists()


def test_a_store_relative_expect_in_two_stores_is_named_ambiguous(cli, tmp_path):
    for name in ("one", "two"):
        shutil.copytree(TESTDATA / "moc", tmp_path / name)
    golden = tmp_path / "g.yaml"
    golden.write_text("- q: how do I search files?\n  expect: tools/ripgrep.md\n"
                      "- q: how do I search files there?\n  expect: two/tools/ripgrep.md\n")
    result = cli("eval", "--format", "json", golden, ".", cwd=tmp_path)
    first, second = result.json()["questions"]
    assert "names a file in 2 stores" in first["why"] and "write its path in the repository" in first["why"]
    assert second["reachable"] is True


def test_a_repository_path_picks_its_store_among_stores_it_could_be_store_relative_in(cli, tmp_path):
    """`notes/deploy.md` is the repository path of notes/'s file, and also
    store-relative in mem/ (mem/notes/deploy.md): the repository's wins."""
    for folder in ("mem", "notes"):
        (tmp_path / folder).mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "mem" / "MEMORY.md").write_text("# M\n- [Deploy](notes/deploy.md) — deploy steps\n")
    (tmp_path / "mem" / "notes").mkdir()
    (tmp_path / "mem" / "notes" / "deploy.md").write_text("# Deploy\n")
    (tmp_path / "notes" / "MEMORY.md").write_text("# N\n- [Deploy](deploy.md) — deploy steps\n")
    (tmp_path / "notes" / "deploy.md").write_text("# Deploy\n")
    golden = tmp_path / "g.yaml"
    golden.write_text("- q: how do I deploy?\n  expect: notes/deploy.md\n")
    result = cli("eval", "--format", "json", golden, ".", cwd=tmp_path)
    [question] = result.json()["questions"]
    assert question["found"] == "notes/deploy.md" and question["reachable"] is True

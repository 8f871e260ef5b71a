"""Output formats: text, json, github annotations, SARIF."""
from __future__ import annotations

import json

from memlint import reporters
from memlint.finding import Finding
from memlint.rules import all_rules, documentation

F = Finding("memory/a b.md", 3, 5, "MEM102", "index-line-length", "warning", "entry is long, over 150: 50%")
E = Finding("MEMORY.md", 201, 1, "MEM101", "root-budget", "error", "over the cap")


def test_text_format_is_path_line_col_code_message():
    out = reporters.text([E, F])
    assert out.splitlines()[0].startswith("MEMORY.md:201:1: MEM101 over the cap")
    assert out.splitlines()[1].startswith("memory/a b.md:3:5: MEM102 entry is long")
    whole = Finding("b.md", 1, 0, "MEM301", "duplicate-content", "warning", "same body as a.md:1")
    assert reporters.text([whole]).startswith("b.md:1: MEM301 same body")  # no column: none written


def test_github_annotations_percent_encode_every_control_character():
    hostile = Finding("esc\x1b[31mred\udcff.md", 1, 1, "MEM001", "n", "error", "bell\x07 and DEL\x7f")
    out = reporters.github([hostile])
    assert out == "::error file=esc%1B[31mred%FF.md,line=1,col=1,title=MEM001 n::bell%07 and DEL%7F\n"


def test_json_has_exactly_the_finding_keys():
    [row] = json.loads(reporters.json_report([F]))
    assert set(row) == {"path", "line", "column", "code", "name", "severity", "message"}
    assert row["line"] == 3 and row["code"] == "MEM102"


def test_github_annotations_escape_properties_and_data():
    out = reporters.github([F, E]).splitlines()
    assert out[0] == "::warning file=memory/a b.md,line=3,col=5,title=MEM102 index-line-length::entry is long, over 150: 50%25"
    assert out[1].startswith("::error file=MEMORY.md,line=201,col=1,")
    multi = Finding("a%,:.md", 1, 1, "MEM001", "n", "error", "two\nlines")
    assert reporters.github([multi]) == "::error file=a%25%2C%3A.md,line=1,col=1,title=MEM001 n::two%0Alines\n"


def test_sarif_shape():
    doc = json.loads(reporters.sarif([F, E], all_rules()))
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert "MEM101" in ids and "MEM102" in ids
    result = run["results"][0]
    assert result["ruleId"] == "MEM102" and result["level"] == "warning"
    assert ids[result["ruleIndex"]] == "MEM102"
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "memory/a%20b.md"
    assert loc["region"] == {"startLine": 3, "startColumn": 5}


def test_whole_file_finding_sits_on_line_1():
    """GitHub code scanning wants region.startLine: without it upload-sarif
    fingerprints no result, and the alert is placed in no line of the file."""
    whole = Finding("a.md", 0, 0, "MEM001", "n", "error", "m")
    loc = json.loads(reporters.sarif([whole], all_rules()))["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert loc["region"] == {"startLine": 1}


def test_the_sarif_help_link_lands_on_the_readme_rules_table():
    import re
    from pathlib import Path

    from memlint.reporters import DOCS_URL

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    anchors = {re.sub(r"[^\w\- ]", "", h.lower()).strip().replace(" ", "-") for h in re.findall(r"^#+ (.+)$", readme, re.M)}
    assert DOCS_URL.rsplit("#", 1)[1] in anchors



def test_sarif_rule_descriptions_fit_github_and_the_help_keeps_the_whole_text():
    """GitHub code scanning takes descriptions of 1,024 characters at most;
    several rules' documentation is longer."""
    rules = list(all_rules())
    described = json.loads(reporters.sarif([], rules))["runs"][0]["tool"]["driver"]["rules"]
    assert any(len(documentation(rule)) > 1024 for rule in rules)  # else this test proves nothing
    for rule, entry in zip(rules, described):
        doc = documentation(rule)
        full = entry["fullDescription"]["text"]
        assert 0 < len(full) <= 1024 and len(entry["shortDescription"]["text"]) <= 1024
        assert doc.startswith(full.rstrip("…")), rule.CODE  # its first paragraphs
        assert entry["help"]["text"] == doc


def test_sarif_names_a_file_that_is_not_utf8_with_a_uri_github_can_decode():
    from urllib.parse import unquote

    odd = Finding("memory/caf\udce9 \u00e4.md", 1, 1, "MEM001", "n", "error", "m")
    uri = json.loads(reporters.sarif([odd], all_rules()))["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"]["artifactLocation"]["uri"]
    assert unquote(uri, errors="strict") == "memory/caf\ufffd \u00e4.md"


def test_json_report_is_the_json_modules_indented_text_byte_for_byte():
    # json_report writes the records by hand (fast); it must be exactly what json.dumps(indent=2) gives.
    hostile = [
        F, E,
        Finding("memory/caf\u00e9 \"q\"\\.md", 0, 0, "MEM301", "duplicate-content", "warning", "tab\there, nl\nthere"),
        Finding("mem\udcffory/x.md", 7, 2, "MEM001", "frontmatter-missing", "error", "\u2028 line sep, \x00 nul, \U0001f600"),
        Finding("a.md", 1, 1, "MEM202", "broken-link", "error", "</script> & 'quotes' \x7f\x1b[31m"),
    ]
    expected = reporters.json_text([f.to_dict() for f in hostile]) + "\n"
    assert reporters.json_report(hostile) == expected
    assert json.loads(reporters.json_report(hostile))[3]["path"] == "mem\udcffory/x.md"
    assert reporters.json_report([]) == reporters.json_text([]) + "\n" == "[]\n"
    for odd in (Finding("b.md", True, 0, "MEM001", "n", "error", "m"), Finding("b.md", 1, 0, "MEM001", "n", "error", None)):
        assert reporters.json_report([odd]) == reporters.json_text([odd.to_dict()]) + "\n"  # as json writes them
    assert reporters.json_report(iter(hostile)) == expected  # any iterable


def test_sarif_says_its_columns_are_characters_as_memlint_counts_them():
    """MEM102's column on an index line with an emoji is a count of
    characters; SARIF readers count UTF-16 units unless the run says
    otherwise, and would put it one further for each emoji before it."""
    column = 151  # MEM102's limit + 1, in characters, on "- 🔴 [a](a.md) xxx…"
    found = Finding("MEMORY.md", 2, column, "MEM102", "index-line-length", "warning", "over 150")
    run = json.loads(reporters.sarif([found], all_rules()))["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] == column

"""Frontmatter splitting and link extraction on single texts."""
from __future__ import annotations

import datetime as dt
import operator
import re

import frontmatter as python_frontmatter
import pytest

from memlint.markdown import extract_links, parse


def test_frontmatter_lines_and_body_start():
    p = parse("---\nname: a\nmetadata:\n  type: user\n---\nBody [x](x.md)\n")
    assert p.frontmatter == {"name": "a", "metadata": {"type": "user"}}
    assert p.frontmatter_lines == (1, 5)
    assert p.key_lines == {"name": 2, "metadata": 3, "metadata.type": 4}
    assert p.body_line == 6 and p.links[0].line == 6


@pytest.mark.parametrize("text, body", [
    ("---\nname: a\n---\nBody [x](x.md)\n", "Body [x](x.md)\n"),
    ("# Title\n\nText\n", "# Title\n\nText\n"),  # no frontmatter: the whole text
    ("---\nname: a\n---\n", ""),  # frontmatter only
    ("---\r\nname: a\r\n---\r\nBody\r\n", "Body\r\n"),
    ("\ufeff---\nname: a\n---\nB\n", "B\n"),  # the byte order mark is not text
    ("Intro\n\n---\nname: late\n---\nAfter\n", "After\n"),  # a frontmatter after a preamble
    ("---\nname: never closed\nText\n", "---\nname: never closed\nText\n"),  # all of it is body
    ("---\n| a | b |\n---\nRuled\n", "---\n| a | b |\n---\nRuled\n"),  # two rules, no frontmatter
])
def test_body_is_the_text_after_the_frontmatter_also_from_the_cache(text, body):
    """The body (what the duplicate rules compare, and index detection
    reads) is the rest of the text after the frontmatter, and a parse loaded
    back from the cache (pickled) has the same body and fields."""
    import pickle

    p = parse(text)
    assert p.body == body
    again = pickle.loads(pickle.dumps(p, protocol=5))
    assert again == p and again.body == body


def test_field_names_are_kept_once_in_the_cache_whatever_the_number_of_files():
    """Every memory repeats the same few field names; a cache shard (parses
    pickled together) holds each name once, not once per file, so a store
    of thousands loads that much less. The fields and their order, keys
    that are not strings, and the lines of nested keys are as written."""
    import pickle

    parses = [parse(f"---\nname: n{i}\ndescription: d{i}\nmetadata:\n  confidence: high\n"
                    f"1: one\n2024-01-02: day\n---\nBody {i}\n") for i in range(50)]
    loaded = pickle.loads(pickle.dumps(parses, protocol=5))
    first = loaded[0]

    def held(parsed) -> list:
        return [*parsed.frontmatter, *parsed.frontmatter["metadata"], *parsed.key_lines]

    # one string object for each name, shared by every file loaded: the shard held it once
    assert all(all(map(operator.is_, held(p), held(first))) for p in loaded)
    assert first.frontmatter == {"name": "n0", "description": "d0", "metadata": {"confidence": "high"},
                                 1: "one", "2024-01-02": "day"}  # (dates stay strings)
    assert list(first.frontmatter) == ["name", "description", "metadata", 1, "2024-01-02"]
    assert first.key_lines == {"name": 2, "description": 3, "metadata": 4, "metadata.confidence": 5, "1": 6,
                               "2024-01-02": 7}


def test_crlf_frontmatter_key_lines():
    p = parse("---\r\nname: a\r\nmetadata:\r\n  type: user\r\n---\r\nBody\r\n")
    assert p.key_lines == {"name": 2, "metadata": 3, "metadata.type": 4}


def test_keys_of_a_flow_mapping_on_one_line_are_on_its_line():
    """`metadata: {type: user, status: superseded}`: a finding on `status`
    sits on that line, not on line 1 (the multi-line form was already right)."""
    p = parse('---\nname: a\nmetadata: {type: user, "status": superseded, superseded_by: x, created: 2030-01-01}\n'
              "tags: [a, b]\n---\nBody\n")
    assert p.key_lines == {"name": 2, "metadata": 3, "metadata.type": 3, "metadata.status": 3,
                           "metadata.superseded_by": 3, "metadata.created": 3, "tags": 4}


def test_a_link_after_a_code_span_that_wraps_lines_is_on_its_own_line():
    """A code span across a line break holds the break as a space, so the
    parser's count of lines fell one short: the link sat on the line above, at
    column 1 (a root entry past the load cap then counted as loaded)."""
    text = ("# M\n- Tip: run `git log\n  --follow` then see [Deploy](deploy.md)\n"
            "  and `a\n  b` and [c](c.md), [d](d.md)\n- [X](x.md) &amp; more\n")
    assert [(link.target, link.line, link.column) for link in parse(text).links] == [
        ("deploy.md", 3, 22), ("c.md", 5, 10), ("d.md", 5, 21), ("x.md", 6, 3)]
    # a link whose own text wraps (its '[' above its destination), after a backtick memlint takes
    # for code: it stays on its first line, and does not take the next link's '['
    text = "# Memory\n<!--\n-->`\n[`a\nb`](gone.md) and [c](c.md)\n"
    assert [(link.target, link.line, link.column) for link in parse(text).links] == [
        ("gone.md", 4, 1), ("c.md", 5, 18)]


def test_a_space_before_a_destination_keeps_each_link_at_its_own_column():
    """`[Missing]( gone.md)` then `[older](gone.md)` on one line (an entity
    sends the file to the reference parser): the first link's column was the
    second's, and the second's 1."""
    p = parse("- [Missing]( gone.md) — and [older](gone.md) &amp; more\n- [N](<no.md>) and [M](\tno.md)\n")
    assert p.used_reference_parser
    assert [(link.target, link.line, link.column) for link in p.links] == [
        ("gone.md", 1, 3), ("gone.md", 1, 29), ("no.md", 2, 3), ("no.md", 2, 20)]


def test_a_line_separator_pasted_into_a_frontmatter_value_is_no_yaml_error():
    """PyYAML (YAML 1.1) breaks lines at U+2028, U+2029 and U+0085; the file
    and YAML 1.2 do not. Pasted into a value from a web page, one made a false
    MEM002 on the wrong line; a real error after it is on its own line."""
    p = parse("---\nname: a\ndescription: pasted\u2028text and\x85more\ntype: user\n---\nA\n")
    assert p.frontmatter_error is None
    assert p.frontmatter == {"name": "a", "description": "pasted text and more", "type": "user"}
    p = parse("---\nname: a\ndescription: pasted\u2028text\ntype: user\nbad: [unclosed\n---\nA\n")
    assert p.frontmatter_error is not None and p.frontmatter_error.line == 6
    assert "flow sequence that began on line 5" in p.frontmatter_error.message


def test_a_stray_backtick_in_the_block_above_does_not_hide_a_links_column():
    """A code span cannot cross into the next block (a list item here):
    memlint's blanking of code took the stray backtick's line and the item's
    text as one span, and the link fell to column 1."""
    p = parse("Intro with a stray backtick ` here\n1. [guide](gone.md) and `code` &amp;\n")
    assert [(link.target, link.line, link.column) for link in p.links] == [("gone.md", 2, 4)]


def test_no_frontmatter():
    p = parse("# Title\n\nText\n")
    assert p.frontmatter is None and p.frontmatter_lines is None and p.body_line == 1


def test_dates_stay_strings_so_bad_dates_do_not_break_the_block():
    p = parse("---\ncreated: 2026-13-01\nok: 2026-01-01\n---\n")
    assert p.frontmatter == {"created": "2026-13-01", "ok": "2026-01-01"}


def test_empty_frontmatter_is_an_empty_mapping():
    assert parse("---\n---\nbody\n").frontmatter == {}


def test_body_dashes_are_not_frontmatter():
    p = parse("Intro\n\n---\n\nMore\n")
    assert p.frontmatter is None and p.preamble_lines == 0


def test_alias_bomb_is_refused_quickly():
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(12)
    )
    p = parse(f"---\n{bomb}---\nbody\n")
    assert p.frontmatter is None and "alias" in p.frontmatter_error.message


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[a](a.md) and ![i](img.png)", [("a.md", 1, 1, "link"), ("img.png", 1, 15, "image")]),
        ("x\n  - [b](dir/b%20c.md#part)", [("dir/b c.md#part", 2, 5, "link")]),
        ("`[no](no.md)` [yes](yes.md)", [("yes.md", 1, 15, "link")]),
        ("```\n[no](no.md)\n```\n[yes](yes.md)", [("yes.md", 4, 1, "link")]),
        ("<https://example.com/x>", [("https://example.com/x", 1, 1, "autolink")]),
        ("[[note]] ![[pic.png]] [[b|Alias]] [[c#Head]]", [("note", 1, 1, "wiki"), ("pic.png", 1, 10, "embed"), ("b", 1, 23, "wiki"), ("c", 1, 35, "wiki")]),
        ("<!-- [no](no.md) -->\n[yes](yes.md)", [("yes.md", 2, 1, "link")]),
        ("[ref][r]\n\n[r]: target.md", [("target.md", 1, 1, "link")]),
        ("\\[not](a.md) [yes](y.md)", [("y.md", 1, 14, "link")]),
        ("    [indented code](no.md)\n\n[yes](y.md)", [("y.md", 3, 1, "link")]),
        ("[a](a.md) <b> \\* [a](a.md)", [("a.md", 1, 1, "link"), ("a.md", 1, 18, "link")]),
    ],
)
def test_links(text, expected):
    links, _ = extract_links(text, 1, backtick_refs=False)
    assert [(l.target, l.line, l.column, l.kind) for l in links] == expected


def test_wikilink_parts():
    [link] = extract_links("see [[folder/Note Name#Heading|shown]]", 1)[0]
    assert (link.target, link.anchor, link.text) == ("folder/Note Name", "#Heading", "shown")


def test_backtick_path_refs():
    links, _ = extract_links("read `memory/2026-03-01.md` and `ls -la`", 1)
    assert [(l.target, l.kind) for l in links] == [("memory/2026-03-01.md", "code")]


def test_a_backtick_path_may_hold_what_a_file_name_holds():
    """Parentheses, `&`, `+`, `,`, `'`, `!`, `%`: a file's name; a glob, a
    `key: value`, a URL or a name with `#` in it is no path."""
    text = ("`meeting (2).md` `q&a.md` `a+b, c.md` `it's!.md` `100%.md` `notes/x.md#top`\n"
            "`*/MEMORY.md` `supersedes: old.md` `https://x.org/a.md` `c#.md` `a\\b.md` `.md`\n")
    assert [(l.target, l.line) for l in extract_links(text, 1)[0] if l.kind == "code"] == [
        ("meeting (2).md", 1), ("q&a.md", 1), ("a+b, c.md", 1), ("it's!.md", 1), ("100%.md", 1), ("notes/x.md#top", 1)]


def _plain(value):
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, str) and re.match(r"^\d{4}-\d\d-\d\d[T ]\d", value):
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def test_frontmatter_agrees_with_python_frontmatter_on_corpora_and_testdata(corpora):
    """python-frontmatter is the reference for what counts as frontmatter."""
    from tests.conftest import TESTDATA

    files = [p for repo in corpora.values() for p in repo.rglob("*.md") if ".git" not in p.parts]
    # testdata/bad departs from the reference on purpose where the reference is
    # unsafe or lax (alias bombs, duplicate keys): tests/test_bad_input.py
    files += [p for p in TESTDATA.rglob("*.md") if p.relative_to(TESTDATA).parts[0] != "bad"]
    compared = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        ours = parse(text)
        try:
            theirs = python_frontmatter.loads(text.lstrip("\ufeff"))
        except ValueError as exc:
            # PyYAML turns 2026-13-01 into a date and fails; memlint keeps dates
            # as text and reports the bad date on its line (MEM004).
            assert "month" in str(exc) or "day" in str(exc), path
            continue
        except Exception:
            assert ours.frontmatter is None, path  # they reject it: so do we
            continue
        if ours.preamble_lines:
            continue  # we parse frontmatter after a preamble on purpose (and report it)
        if ours.frontmatter is None:
            assert theirs.metadata == {}, path
            continue
        assert _plain(ours.frontmatter) == _plain(theirs.metadata), path
        compared += 1
    assert compared > 200


@pytest.mark.parametrize("text, targets", [
    ("- [T](b`tick`.md) — tick\n", ["b`tick`.md"]),  # the link first: markdown-it percent-encodes the backticks
    ("- [T](<b`tick`.md>) — tick\n", ["b`tick`.md"]),
    ("[not a `link](/foo`)\n", []),  # a code span begun in the link text wins (CommonMark example 342)
])
def test_a_backtick_in_a_link_destination_is_the_link_s(text, targets):
    assert [link.target for link in parse(text).links] == targets


@pytest.mark.parametrize("text, error", [
    ("---\n- name: x\n- description: y\n---\nbody\n", "frontmatter is a YAML list, not a mapping of fields"),
    ("---\nname pricing\ndescription what it costs\n---\nbody\n", "frontmatter is a YAML str, not a mapping of fields"),
    # no space after the colons: YAML reads text, but these are fields
    ("---\nname:pricing\ndescription:the pricing rules\n---\nbody\n", "frontmatter is a YAML str, not a mapping of fields"),
    ("---\nowner:dana\n---\nbody\n", "frontmatter is a YAML str, not a mapping of fields"),
])
def test_frontmatter_written_wrong_is_still_a_broken_frontmatter(text, error):
    parsed = parse(text)
    assert parsed.frontmatter_error is not None and parsed.frontmatter_error.message == error


def test_reference_links_after_the_first_on_a_line_get_their_own_columns():
    # The second one was given the first one's label's column.
    text = "- See [ok][r] and [gone][r2], [also][r3]\n- [x] [gone2] here\n\n[r]: a.md\n[r2]: b.md\n[r3]: c.md\n[gone2]: d.md\n[x]: e.md\n"
    links = [(l.target, l.line, l.column) for l in parse(text).links if l.line <= 2]
    assert links == [("a.md", 1, 7), ("b.md", 1, 19), ("c.md", 1, 31), ("e.md", 2, 3), ("d.md", 2, 7)]

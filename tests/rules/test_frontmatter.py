"""MEM001-MEM006: frontmatter presence, validity, schema, dates, preamble, unreadable files."""
from __future__ import annotations

import pytest

ROOT = "# Index\n- [A](a.md) — a\n"
GOOD = "---\nname: a\ndescription: the a memory\ntype: feedback\n---\nBody.\n"


def lint(make_store, findings, files, *args):
    store = make_store({"MEMORY.md": ROOT, **files})
    return findings(store, "--today", "2026-06-01", *args)


def codes(found, code):
    return [(p, line) for p, line, c in found if c == code]


def test_good_memory_is_quiet(make_store, findings):
    assert lint(make_store, findings, {"a.md": GOOD}) == []


def test_mem001_fires_on_memory_without_frontmatter(make_store, findings):
    found = lint(make_store, findings, {"a.md": "# A\nJust text.\n"})
    assert codes(found, "MEM001") == [("a.md", 1)]


def test_mem001_names_lone_cr_line_endings_as_why_a_block_is_not_one(make_store, cli):
    store = make_store({"MEMORY.md": ROOT, "a.md": GOOD.replace("\n", "\r"), "b.md": "# B\rJust text.\r"})
    found = {f["path"]: f["message"] for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM001"}
    assert found == {
        "a.md": "no frontmatter that a harness reads: the lines end in a lone CR (\\r, old Mac line endings), so "
                "the --- block on line 1 is one line of text; convert the line endings to \\n",
        "b.md": "no frontmatter: this store wants a --- block with the memory's fields on line 1",
    }


def test_mem001_quiet_where_frontmatter_is_optional(make_store, findings):
    found = lint(make_store, findings, {"a.md": "# A\nJust text.\n"}, "--preset", "openclaw")
    assert codes(found, "MEM001") == []


def test_mem001_quiet_on_root_and_daily_logs(make_store, findings):
    found = lint(make_store, findings, {"a.md": GOOD, "memory/2026-01-02.md": "# log\n- did things\n"})
    assert codes(found, "MEM001") == []


@pytest.mark.parametrize(
    "frontmatter, line",
    [
        ('name: "unclosed\ndescription: x\ntype: user\n', 4),  # error at end of stream
        ("name: a\n\tdescription: tab\ntype: user\n", 3),
        ("name: a: b\ndescription: x\ntype: user\n", 2),
        ("[1, 2\n", 3),
    ],
)
def test_mem002_gives_yaml_line(make_store, findings, frontmatter, line):
    found = lint(make_store, findings, {"a.md": f"---\n{frontmatter}---\nBody\n"})
    assert codes(found, "MEM002") == [("a.md", line)]


# Fields written as a list, or without their colons: a broken frontmatter. (A plain
# list or a paragraph between two rules is markdown: see the test below.)
@pytest.mark.parametrize("frontmatter", ["- name: a\n- type: b\n", "name just a string\n"])
def test_mem002_fires_when_not_a_mapping(make_store, findings, frontmatter, cli):
    store = make_store({"MEMORY.md": ROOT, "a.md": f"---\n{frontmatter}---\nBody\n"})
    result = cli("check", "--format", "json", store)
    [finding] = [f for f in result.json() if f["code"] == "MEM002"]
    assert finding["line"] == 2 and "not a mapping" in finding["message"]


def test_mem002_fires_when_never_closed(make_store, findings):
    found = lint(make_store, findings, {"a.md": "---\nname: a\ntype: user\n\nBody text\n"})
    assert codes(found, "MEM002") == [("a.md", 1)]


@pytest.mark.parametrize(
    "frontmatter, hint",
    [
        # a `: ` in a plain value, as 26 files of a real store have it: the fix named with the key
        ("name: a\ndescription: SSH host key reset: run ssh-keygen -R\ntype: user\n",
         ': a value holding `: ` must be quoted, `description: "..."`'),
        ("name: a\n  description: indented under a scalar\ntype: user\n", ""),  # an indent, not a value: no hint
        ('name: a\ndescription: the "fix": use x\ntype: user\n',  # double quotes in it: single ones around it
         ": a value holding `: ` must be quoted, `description: '...'`"),
        ('name: a\ndescription: it\'s the "fix": use x\ntype: user\n',  # both: a single one inside is doubled
         ": a value holding `: ` must be quoted, `description: '...'` (each ' in it written twice)"),
    ],
)
def test_mem002_says_to_quote_a_value_holding_a_colon(make_store, cli, frontmatter, hint):
    store = make_store({"MEMORY.md": ROOT, "a.md": f"---\n{frontmatter}---\nBody\n"})
    [finding] = [f for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM002"]
    problem, _, said = finding["message"].partition(": a value")
    # (libyaml says "in this context", PyYAML's own loader "here")
    assert problem in ("invalid YAML: mapping values are not allowed in this context",
                       "invalid YAML: mapping values are not allowed here")
    assert (": a value" + said if said else "") == hint


def test_mem003_missing_field_and_bad_vocabulary(make_store, cli):
    store = make_store(
        {
            "MEMORY.md": ROOT,
            "a.md": "---\nname: a\ntype: feedbak\n---\nBody\n",
        }
    )
    result = cli("check", "--format", "json", store)
    got = sorted((f["line"], f["message"]) for f in result.json() if f["code"] == "MEM003")
    assert got[0][0] == 1 and "`description` is missing" in got[0][1]
    assert got[1][0] == 3 and "feedbak" in got[1][1] and "feedback" in got[1][1]


@pytest.mark.parametrize("value, shown", [("", "null (no value)"), ("2024", "integer"), ("[a, b]", "array (a list)")])
def test_mem003_names_a_wrong_type_as_the_schema_does(make_store, cli, value, shown):
    store = make_store({"MEMORY.md": ROOT, "a.md": f"---\nname: a\ndescription: {value}\ntype: user\n---\nBody\n"})
    [message] = [f["message"] for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM003"]
    assert message == f"`description` must be string, not {shown}"


def test_mem003_accepts_type_nested_under_metadata(make_store, findings):
    nested = "---\nname: a\ndescription: d\nmetadata:\n  type: project\n---\nBody\n"
    assert lint(make_store, findings, {"a.md": nested}) == []


def test_mem003_nested_bad_type_points_at_nested_line(make_store, findings):
    nested = "---\nname: a\ndescription: d\nmetadata:\n  type: projekt\n---\nBody\n"
    assert codes(lint(make_store, findings, {"a.md": nested}), "MEM003") == [("a.md", 5)]


def test_mem003_a_bad_type_inside_braces_points_at_its_parent_s_line(make_store, findings):
    # It was put on line 1, where the documented suppression cannot sit above it.
    nested = "---\nname: a\ndescription: d\nmetadata: {type: projekt}\n---\nBody\n"
    assert codes(lint(make_store, findings, {"a.md": nested}), "MEM003") == [("a.md", 4)]


def test_mem003_missing_type_anywhere(make_store, cli):
    store = make_store({"MEMORY.md": ROOT, "a.md": "---\nname: a\ndescription: d\n---\nBody\n"})
    [f] = [f for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM003"]
    assert "type" in f["message"] and "metadata" in f["message"]


def test_mem003_user_schema_from_config(make_store, findings):
    schema = '{"type": "object", "required": ["owner"]}'
    store = make_store(
        {
            "MEMORY.md": ROOT,
            "a.md": GOOD,
            "my-schema.json": schema,
            ".memlint.yaml": "schema: my-schema.json\n",
        }
    )
    assert codes(findings(store), "MEM003") == [("a.md", 1)]


@pytest.mark.parametrize("metadata", ['{"required": ["metadata"]}',
                                      '{"required": ["metadata"], "properties": {"metadata": true}}'])
@pytest.mark.parametrize("field", ["owner", "type"])
def test_mem003_a_user_any_of_asking_for_metadata_alone_is_not_said_to_nest_the_field(make_store, cli, metadata, field):
    """`owner`, or any `metadata:` (its schema may be `true`): the owner is not asked for under `metadata:`."""
    schema = '{"type": "object", "anyOf": [{"required": ["' + field + '"]}, ' + metadata + ']}'
    good = GOOD.replace("type: feedback\n", "") if field == "type" else GOOD
    store = make_store({"MEMORY.md": ROOT, "a.md": good, "my-schema.json": schema,
                        ".memlint.yaml": "schema: my-schema.json\n"})
    [message] = [f["message"] for f in cli("check", "--format", "json", "--select", "MEM003", store).json()]
    assert message.startswith("frontmatter matches none of the allowed shapes") and "nested" not in message


@pytest.mark.parametrize("schema", [
    '{"type": ["object", "object"], "required": ["owner"]}',  # a type listed twice
    '{"$id": "http://x y/##", "type": "object", "required": ["owner"]}',  # an $id the meta-schema rejects
    '{"type": "object", "required": "owner"}',
])
@pytest.mark.parametrize("frontmatter_owner", [True, False])
def test_mem003_invalid_user_schema_is_a_configuration_error(make_store, cli, schema, frontmatter_owner):
    """Whether or not the files break it, a schema that is not valid JSON Schema is exit 2, not findings."""
    good = GOOD.replace("---\nBody", "owner: me\n---\nBody") if frontmatter_owner else GOOD
    store = make_store({"MEMORY.md": ROOT, "a.md": good, "my-schema.json": schema,
                        ".memlint.yaml": "schema: my-schema.json\n"})
    result = cli("check", store)
    assert result.exit_code == 2
    assert "my-schema.json: not a valid JSON Schema" in result.stderr


@pytest.mark.parametrize(
    "field, line, fires",
    [
        ("created: 2026-05-01", 5, False),
        ("created: 2026-02-30", 5, True),
        ("created: yesterday", 5, True),
        ("created: 2027-01-01", 5, True),  # future
        ("created: 2026-06-03", 5, True),  # two days ahead
        ("last_verified: 2026-06-02", 5, False),  # tomorrow: written east of UTC, checked west of it
        ("expires: 2027-01-01", 5, False),  # may lie in the future
        ("last_verified: 2026-05-02T10:00:00Z", 5, False),
        # YAML 1.1 timestamps (yaml.org/type/timestamp.html), typed as such by YAML
        ("last_verified: 2026-05-02 21:59:43.10 -5", 5, False),
        ("last_verified: 2026-05-02t21:59:43.10-05:00", 5, False),
        ("last_verified: 2026-5-2 3:04:05", 5, False),
        ('last_verified: "2026-05-02\t21:59:43 +5:30"', 5, False),
        ("last_verified: 2026-05-02 21:59:43.10  Z", 5, False),
        ("last_verified: 2026-05-02T21:59:43.10z", 5, True),  # YAML's Z is upper case: a string
        ("last_verified: 2026-5-2", 5, True),  # a date alone is YYYY-MM-DD in YAML too
        ("last_verified: 2026-05-02 21:59:43 -24", 5, True),  # no zone a day away
        ("created: 2026-06-03 01:00:00 +14", 5, True),  # two days ahead in its own zone
    ],
)
def test_mem004_date_values(make_store, findings, field, line, fires):
    text = f"---\nname: a\ndescription: d\ntype: user\n{field}\n---\nBody\n"
    got = codes(lint(make_store, findings, {"a.md": text}), "MEM004")
    assert got == ([("a.md", line)] if fires else [])


def test_mem004_last_verified_before_created(make_store, findings):
    text = "---\nname: a\ndescription: d\ntype: user\ncreated: 2026-05-01\nlast_verified: 2026-04-01\n---\nB\n"
    assert codes(lint(make_store, findings, {"a.md": text}), "MEM004") == [("a.md", 6)]


def test_mem004_allow_future_takes_a_date_field_the_store_names(make_store, findings):
    text = "---\nname: a\ndescription: d\ntype: user\nreview_by: 2027-01-01\n---\nB\n"
    store = make_store({"MEMORY.md": ROOT, "a.md": text,
                        ".memlint.yaml": "date-fields: [created, review_by]\nrules: {MEM004: {allow-future: [review_by]}}\n"})
    assert codes(findings(store), "MEM004") == []


def test_mem005_preamble_before_frontmatter(make_store, findings):
    text = "# Title\n---\nname: a\ndescription: d\ntype: user\n---\nBody\n"
    found = lint(make_store, findings, {"a.md": text})
    assert codes(found, "MEM005") == [("a.md", 2)]
    assert codes(found, "MEM001") == []  # parsed anyway


def test_mem005_quiet_for_horizontal_rule_in_body(make_store, findings):
    text = GOOD + "\nMore text\n\n---\n\nAfter a rule.\n"
    assert codes(lint(make_store, findings, {"a.md": text}), "MEM005") == []


@pytest.mark.parametrize("preset", ["openclaw", "claude-code"])
def test_a_rule_before_a_key_like_line_is_not_an_unclosed_frontmatter(make_store, findings, preset):
    # CommonMark: a setext underline (or a thematic break), then a paragraph
    text = "# Deploys\n\nAlways run the smoke test.\n---\nNote: the canary step is optional on Fridays.\n"
    found = lint(make_store, findings, {"a.md": text, ".memlint.yaml": f"preset: {preset}\n"})
    assert codes(found, "MEM002") == [] and codes(found, "MEM005") == []
    assert codes(found, "MEM001") == ([("a.md", 1)] if preset == "claude-code" else [])  # no frontmatter at all


@pytest.mark.parametrize("preset", ["openclaw", "claude-code"])
def test_two_setext_headings_are_not_a_late_frontmatter(make_store, findings, preset):
    # CommonMark: "Setup" and "Usage" are headings underlined with ---; what
    # lies between is a paragraph, not YAML
    text = "# Deploys\n\nSetup\n---\nServer: prod-1\n\nUsage\n---\nRun the smoke test.\n"
    found = lint(make_store, findings, {"a.md": text, ".memlint.yaml": f"preset: {preset}\n"})
    assert codes(found, "MEM002") == [] and codes(found, "MEM005") == []
    assert codes(found, "MEM001") == ([("a.md", 1)] if preset == "claude-code" else [])


def test_key_value_lines_between_two_rules_under_a_heading_are_markdown(make_store, findings):
    """`Owner: Dana` between two rules names none of a memory's fields: it is
    text (and its links are checked), not a frontmatter pushed down."""
    text = ("# CAD project\n\n---\nStatus: waiting on the client\nOwner: Dana, see [her](people/dana.md)\n---\n\n"
            "STEP exports by Friday.\n")
    found = lint(make_store, findings, {"a.md": text, ".memlint.yaml": "preset: openclaw\n"})
    assert codes(found, "MEM005") == [] and codes(found, "MEM002") == []
    assert codes(found, "MEM202") == [("a.md", 5)]


def test_a_pushed_down_frontmatter_of_the_users_own_lower_case_fields_is_one(make_store, findings):
    """Fields no shipped schema names (`reviewed:`, `summary:`) are still
    fields when written as fields are: lower case."""
    text = "<!-- generated -->\n---\nreviewed: 2099-01-01\nsummary: foo\n---\nBody\n"
    found = lint(make_store, findings, {"a.md": text, ".memlint.yaml": "preset: generic\ndate-fields: [reviewed]\n"})
    assert codes(found, "MEM005") == [("a.md", 2)] and codes(found, "MEM004") == [("a.md", 3)]


def test_one_lower_case_key_line_with_a_link_between_two_rules_is_text(make_store, findings):
    text = "Deploy rules:\n\n---\nwarning: never deploy on fridays, see [runbook](gone.md)\n---\n"
    found = lint(make_store, findings, {"a.md": text, ".memlint.yaml": "preset: generic\n"})
    assert codes(found, "MEM005") == [] and codes(found, "MEM202") == [("a.md", 4)]


def test_one_lower_case_field_pushed_below_text_is_still_a_frontmatter(make_store, findings):
    text = "Imported from the wiki.\n\n---\nreviewed: 2026-01-01\n---\nBody\n"
    found = lint(make_store, findings, {"a.md": text, ".memlint.yaml": "preset: generic\n"})
    assert codes(found, "MEM005") == [("a.md", 3)]


def test_a_late_frontmatter_with_a_yaml_typo_is_still_one(make_store, findings):
    # every line is a `key:`: the agent wrote a frontmatter after a line of text
    text = "Here is the memory:\n---\nname: a\ndescription: [d\ntype: user\n---\nBody\n"
    found = lint(make_store, findings, {"a.md": text})
    assert codes(found, "MEM005") == [("a.md", 2)] and codes(found, "MEM002") == [("a.md", 5)]  # where YAML saw it


def test_a_frontmatter_pushed_down_by_a_comment_and_never_closed_is_still_reported(make_store, findings):
    text = "<!-- generated by the agent -->\n---\nname: a\ndescription: d\ntype: user\n\nBody\n"
    found = lint(make_store, findings, {"a.md": text, ".memlint.yaml": "preset: openclaw\n"})
    assert codes(found, "MEM002") == [("a.md", 2)] and codes(found, "MEM005") == [("a.md", 2)]


def test_horizontal_rules_around_markdown_are_not_a_frontmatter(make_store, findings):
    # An OpenClaw daily log opening with a rule: a heading, bold text and a
    # table between two `---`, and not one `key:` line
    log = ("---\n\n## [status] paused (08:35)\n\n**Time:** 2026-03-22 08:19\n\n| task | state |\n|---|---|\n"
           "| groups | paused |\n\n---\nSee [a](a.md).\n")
    found = lint(make_store, findings, {"memory/2026-03-22-status.md": log, "a.md": GOOD,
                                        ".memlint.yaml": "preset: openclaw\n"})
    assert codes(found, "MEM002") == [] and codes(found, "MEM005") == []
    source = "# Deploys\n\n---\nSource: the team wiki\nMore prose.\n"  # a rule before a line with a colon
    assert codes(lint(make_store, findings, {"c.md": source}), "MEM002") == []
    listed = ("---\n- name: a list\n---\nBody\n")  # fields written as a list: still a broken frontmatter
    assert codes(lint(make_store, findings, {"b.md": listed}), "MEM002") == [("b.md", 2)]
    for text in ("---\n- a list\n- of lines\n---\nBody\n", "---\njust a string\n---\nBody\n"):
        found = codes(lint(make_store, findings, {"d.md": text}), "MEM002")
        assert [c for c in found if c[0] == "d.md"] == []  # no field: rules around markdown


def test_horizontal_rules_around_a_task_list_are_not_a_frontmatter(make_store, findings):
    # An OpenClaw daily log opening with a rule: headings and a task list
    # (`- [x] done`, which YAML cannot read) between two `---`
    log = "---\n\n## Session 08:25\n\n- [x] 10 drafts done\n- [ ] review\n\n---\nSee [a](a.md).\n"
    found = lint(make_store, findings, {"memory/2026-04-02.md": log, "a.md": GOOD,
                                        ".memlint.yaml": "preset: openclaw\n"})
    assert codes(found, "MEM002") == [] and codes(found, "MEM005") == []
    for text in ("---\n- [x]\n- [ ]\n---\nBody\n", "---\n* [X] shipped\n---\nBody\n"):
        found = codes(lint(make_store, findings, {"d.md": text}), "MEM002")
        assert [c for c in found if c[0] == "d.md"] == []


@pytest.mark.parametrize(
    "content, needle",
    [
        ("caf\xe9\n".encode("latin-1"), "UTF-8"),
        ("\ufeffhello\n".encode("utf-16"), "UTF-16"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "binary"),
    ],
)
def test_mem006_unreadable_files(make_store, cli, content, needle):
    store = make_store({"MEMORY.md": ROOT, "a.md": GOOD, "b.md": content})
    result = cli("check", "--format", "json", store)
    [f] = [f for f in result.json() if f["code"] == "MEM006"]
    assert f["path"] == "b.md" and needle in f["message"]


def test_bom_and_crlf_frontmatter_parse(make_store, findings):
    text = "\ufeff---\r\nname: a\r\ndescription: d\r\ntype: user\r\n---\r\nBody\r\n"
    assert lint(make_store, findings, {"a.md": text}) == []


@pytest.mark.parametrize("preset", ["moc", "three-layer"])
def test_every_retired_status_the_lifecycle_knows_is_valid_in_the_shipped_schemas(preset):
    """A schema that rejects a status the lifecycle retires by turns the advice
    ("set `status: retired`") into an error."""
    import json
    from importlib import resources

    from memlint.lifecycle import RETIRED_STATUSES

    schema = json.loads(resources.files("memlint.schemas").joinpath(f"{preset}.json").read_text())
    allowed = set(schema["properties"]["status"]["enum"])
    assert set(RETIRED_STATUSES) <= allowed


@pytest.mark.parametrize("status, valid", [("paused", True), ("Superseded", True), ('"archived "', True),
                                           ("bogus", False)])
def test_mem003_accepts_a_status_the_lifecycle_reads_as_known(make_store, cli, status, valid):
    """A status the store retires (its own retired-statuses), or a known one
    in another case or padding, is what the lifecycle rules go by: the
    schema must not call it invalid."""
    store = make_store({"INDEX.md": "# INDEX\n- [a](a.md)\n", "NOW.md": "# NOW\n",
                        "a.md": f"---\ntitle: A\nstatus: {status}\n---\nA fact.\n",
                        ".memlint.yaml": "retired-statuses: [superseded, archived, paused]\n"})
    found = [f for f in cli("check", "--format", "json", "--select", "MEM003", store).json()]
    assert (found == []) is valid, found


@pytest.mark.parametrize("memory, code, line", [
    ('---\n"name": a\n"description": d\n"type": usr\n---\nx\n', "MEM003", 4),  # quoted keys, as JSON
    ("---\nname: a\ndescription: d\ntype: user\nmetadata:\n  type: bogus\n---\nx\n", "MEM003", 6),  # the nested one
    ('---\n"name": a\n"description": d\n"type": user\n"created": 2099-01-01\n---\nx\n', "MEM004", 5),
])
def test_a_finding_on_a_key_points_at_that_key(make_store, cli, memory, code, line):
    store = make_store({"MEMORY.md": ROOT, "a.md": memory})
    found = [(f["line"], f["code"]) for f in cli("check", "--format", "json", "--today", "2026-11-30", store).json()
             if f["path"] == "a.md"]
    assert (line, code) in found


def test_a_list_item_of_the_wrong_type_points_at_its_key(make_store, cli):
    store = make_store({"INDEX.md": "# INDEX\n- [a](a.md)\n", "NOW.md": "# NOW\n",
                        "a.md": "---\ntitle: A\nstatus: active\nlast_verified: 2026-04-01\ntags: [a, {b: c}]\n---\nx\n"})
    [f] = [f for f in cli("check", "--format", "json", "--select", "MEM003", store).json()]
    assert (f["line"], "tags.1" in f["message"]) == (5, True)


@pytest.mark.parametrize("preset", ["three-layer", "moc"])
def test_a_year_a_version_or_yes_as_a_tag_or_title_is_no_error(make_store, cli, preset):
    """YAML reads `2026`, `3.12` and `yes` as a number and a boolean; an agent
    means the words, and reads them as words."""
    files = {"a.md": "---\ntitle: yes\nstatus: active\nlast_verified: 2026-04-01\ntags: [release, 2026, 3.12, yes]\n"
                     "---\nx\n"}
    files.update({"INDEX.md": "# INDEX\n- [a](a.md)\n", "NOW.md": "# NOW\n"} if preset == "three-layer"
                 else {"INDEX.md": "# I\n- [X](MOC-x.md)\n", "MOC-x.md": "# X\n- [a](a.md)\n"})
    assert cli("check", "--format", "json", "--select", "MEM003", make_store(files)).json() == []


def test_mem003_three_layer_status_counts_under_metadata_as_the_lifecycle_reads_it(make_store, cli):
    """`metadata: {status: superseded}` retires the memory (MEM205 says so);
    MEM003 must not call the same status missing, and checks its vocabulary."""
    files = {"INDEX.md": "# INDEX\n" + "".join(f"- [{n}]({n}.md)\n" for n in "abcd"), "NOW.md": "# NOW\n",
             "a.md": "---\ntitle: A\nmetadata:\n  status: active\n---\nx\n",
             "b.md": "---\ntitle: B\nmetadata:\n  status: bogus\n---\nx\n",
             "c.md": "---\ntitle: C\nmetadata:\n  owner: me\n---\nx\n",
             "d.md": "---\ntitle: D\nmetadata: none\n---\nx\n"}
    found = cli("check", "--format", "json", "--select", "MEM003", make_store(files)).json()
    missing = "required field `status` is missing (flat, or nested under `metadata:`)"
    assert [(f["path"], f["line"], f["message"].split(" is not one of")[0]) for f in found] == [
        ("b.md", 4, "`metadata.status: bogus`"), ("c.md", 1, missing), ("d.md", 1, missing)]


@pytest.mark.parametrize("value", ['"20260301"', '"2026-W10-1"'])
def test_a_date_not_written_yyyy_mm_dd_is_reported(make_store, cli, value):
    store = make_store({"MEMORY.md": ROOT, "a.md": f"---\nname: a\ndescription: d\ntype: user\ncreated: {value}\n---\nx\n"})
    found = [f for f in cli("check", "--format", "json", "--select", "MEM004", store).json()]
    assert [(f["line"], "use YYYY-MM-DD" in f["message"]) for f in found] == [(5, True)]


def test_mem002_says_what_yaml_was_reading_when_it_gave_up(make_store, cli):
    store = make_store({"MEMORY.md": ROOT, "a.md": "---\nname: \"unclosed\ndescription: d\ntype: user\n---\nBody\n"})
    [text] = [f["message"] for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM002"]
    assert text.endswith("(while scanning a quoted scalar that began on line 2)")


def test_mem004_judges_kept_dates_against_each_run_s_today_and_fields(make_store, findings):
    """The cache keeps the dates a file's frontmatter holds; whether one lies
    in the future is decided by each run's --today, and which fields count by
    each run's ``date-fields``."""
    text = "---\nname: a\ndescription: d\ntype: user\ncreated: 2026-07-01\n---\nBody\n"
    store = make_store({"MEMORY.md": ROOT, "a.md": text})
    on = lambda today: codes([f for f in findings(store, "--today", today)], "MEM004")  # noqa: E731
    assert on("2026-06-01") == [("a.md", 5)]
    assert on("2026-08-01") == []
    assert on("2026-06-01") == [("a.md", 5)]
    (store / ".memlint.yaml").write_text("date-fields: [last_verified]\n", encoding="utf-8")
    assert on("2026-06-01") == []

"""`memlint backfill`: git dates into frontmatter, every other byte kept."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from datetime import date

import pytest

from memlint.backfill import add_dates
from tests.conftest import CORPORA, REPO
from tests.gitrepo import GitRepo

D1 = "2024-01-10T09:00:00+00:00"
D2 = "2024-02-20T10:30:00+00:00"
D3 = "2024-03-30T12:00:00+00:00"
INDEX = "# Index\n- [A](a.md) — the first memory\n"
JAN, FEB = date(2024, 1, 10), date(2024, 2, 20)
BOTH = {"created": JAN, "last_verified": FEB}


def body_after_frontmatter(data: bytes) -> bytes:
    """Everything after the closing fence (the whole file when there is none)."""
    from memlint.markdown import _find_frontmatter

    text = data.decode("utf-8-sig")
    lines = text.split("\n")
    fences = _find_frontmatter(lines)
    if fences is None or fences[1] == -1:
        return text.encode()
    return "\n".join(lines[fences[1] + 1:]).encode()


# ---------------------------------------------------------------- the pure edit


def test_new_keys_go_before_the_closing_fence_and_nothing_else_moves():
    old = (b"---\nname: a   # trailing comment\ndescription: 'single quoted: yes'\n"
           b"tags: [x, \"y\"]\n# a comment line\nmetadata:\n  type: user\n---\nBody [link](b.md)\n\n---\nnot frontmatter\n")
    out = add_dates(old, BOTH, create_block=False)
    assert out.added == ("created", "last_verified") and out.skipped is None
    assert out.data == old.replace(b"  type: user\n---\n", b"  type: user\ncreated: 2024-01-10\nlast_verified: 2024-02-20\n---\n", 1)


def test_only_missing_fields_are_written_and_a_second_run_changes_nothing():
    old = b"---\nname: a\nlast_verified: 2024-03-01\n---\nBody\n"
    out = add_dates(old, BOTH, create_block=False)
    assert out.added == ("created",) and out.skipped is None
    assert out.data == b"---\nname: a\nlast_verified: 2024-03-01\ncreated: 2024-01-10\n---\nBody\n"
    again = add_dates(out.data, BOTH, create_block=False)
    assert not again.changed and again.data is out.data


def test_a_pair_already_inverted_by_hand_is_left_to_mem004_without_a_word():
    old = b"---\nname: a\ncreated: 2026-11-01\nlast_verified: 2026-10-15\n---\nBody\n"
    out = add_dates(old, BOTH, create_block=False)
    assert not out.changed and out.skipped is None  # nothing was to be written: nothing left out


@pytest.mark.parametrize("frontmatter, dates, added, why", [
    # verified before git first added it: a memory older than its repository
    ("last_verified: 2023-12-01\n", BOTH, (), "created left out"),
    # `created` set by hand after git's last change
    ("created: 2024-03-01\n", BOTH, (), "last_verified left out"),
    # author dates out of order: the last change dated before the first add
    ("", {"created": FEB, "last_verified": JAN}, ("created",), "last_verified left out"),
])
def test_a_date_that_would_come_before_created_is_left_out(frontmatter, dates, added, why):
    """Backfill never writes a pair MEM004 reports (last_verified before created)."""
    from memlint.markdown import parse

    old = f"---\nname: a\n{frontmatter}---\nBody\n".encode()
    out = add_dates(old, dates, create_block=False)
    assert out.added == added and why in out.skipped
    fm = parse(out.data.decode()).frontmatter
    assert not ("created" in fm and "last_verified" in fm and str(fm["last_verified"]) < str(fm["created"]))


def test_a_quoted_empty_key_is_filled_where_it_is_and_comments_elsewhere_stay():
    old = b'---\nname: a\ntags: [x,  # why x\n  y]\nrefs:\n    - r1\n"created":\n---\nBody\n'
    out = add_dates(old, {"created": JAN}, create_block=False)
    assert out.data == old.replace(b'"created":\n', b'"created": 2024-01-10\n')


def test_a_rewrite_that_would_lose_a_comment_is_not_made():
    old = b"---\n{name: a,  # why a\n tags: [x]}\n---\nBody\n"  # a flow mapping: only a rewrite could add a key
    out = add_dates(old, BOTH, create_block=False)
    assert not out.changed and out.data == old and "lose a comment" in out.skipped


def test_crlf_is_kept_when_the_closing_fence_ends_the_file():
    old = b"---\r\nname: a\r\ndescription: d\r\n---"
    out = add_dates(old, BOTH, create_block=False)
    assert out.data == b"---\r\nname: a\r\ndescription: d\r\ncreated: 2024-01-10\r\nlast_verified: 2024-02-20\r\n---"


def test_dates_under_metadata_count_as_present():
    old = b"---\nname: a\nmetadata:\n  created: 2023-01-01\n  last_verified: 2023-02-01\n---\nBody\n"
    assert not add_dates(old, BOTH, create_block=False).changed


@pytest.mark.parametrize("empty", ["created:", "created: ~", "created: null", 'created: ""', "created: ''",
                                   "created:   # fill me"])
def test_an_empty_value_is_filled_on_its_own_line(empty):
    old = f"---\nname: a\n{empty}\nlast_verified: 2024-02-20\n---\nBody\n".encode()
    out = add_dates(old, BOTH, create_block=False)
    comment = " # fill me" if "#" in empty else ""
    assert out.data == f"---\nname: a\ncreated: 2024-01-10{comment}\nlast_verified: 2024-02-20\n---\nBody\n".encode()


@pytest.mark.parametrize("empty", ["created: |", "created: |-", "created: >", "created: >+", "created: |2-",
                                   "created: !!null", 'created: !!null ""', "created: !!str", "created: !!null ~",
                                   "created: |  # fill me"])
def test_an_empty_block_scalar_or_tagged_value_is_filled_on_its_own_line(empty):
    """An empty value in any form is filled where it is: the other lines are
    never reformatted (as a ruamel.yaml rewrite would: `name:   a`, `n: ~`)."""
    rest = "name:   a\ntags:\n    - a\nnums: [1,   2]\nn: ~\n"
    old = f"---\n{rest}{empty}\n---\nBody\n".encode()
    out = add_dates(old, BOTH, create_block=False)
    comment = "  # fill me" if "#" in empty else ""
    assert out.data == f"---\n{rest}created: 2024-01-10{comment}\nlast_verified: 2024-02-20\n---\nBody\n".encode()


@pytest.mark.parametrize("empty", ["created: !!null", "created: |", "metadata:\r\n  created: !!str"])
def test_a_filled_line_keeps_its_crlf(empty):
    old = f"---\r\nname: a\r\n{empty}\r\n---\r\nBody\r\n".encode()
    out = add_dates(old, {"created": JAN}, create_block=False)
    assert out.data == old.replace(empty.split(": ")[-1].encode() + b"\r\n---", b"2024-01-10\r\n---")


def test_a_block_scalar_with_more_indented_lines_is_not_taken_for_an_empty_value():
    # `|` then an indented line: its value runs on; the date line alone is not
    # what the key holds, so no plain one-line fill is made. A line of spaces
    # alone is an empty line, in the block or not: the fill stands.
    from memlint.backfill import _edit_lines, _Plan

    plan = _Plan(fill={"created": "2024-01-10"})
    assert _edit_lines(["name: a", "created: |", "  ", "  more", "x: 1"], plan, "") is None
    for blank in ("", "  "):
        assert _edit_lines(["name: a", "created: |", blank, "x: 1"], plan, "") == ["name: a", "created: 2024-01-10",
                                                                                  blank, "x: 1"]


def test_an_empty_block_scalar_followed_by_a_line_of_spaces_changes_that_line_only():
    # The line of spaces was taken for the block's content: ruamel rewrote the whole frontmatter
    # (`  - x` became `- x`, `description:   spaced` lost its spaces).
    old = b"---\nname: a\ntags:\n  - x\ndescription:   spaced\ncreated: |\n  \n---\nBody\n"
    out = add_dates(old, BOTH, create_block=False)
    assert out.skipped is None
    assert out.data == old.replace(b"created: |\n  \n", b"created: 2024-01-10\n  \nlast_verified: 2024-02-20\n")


@pytest.mark.parametrize("before, after", [
    ('description: "x\ncreated:\n  y"\ncreated:\n', 'description: "x\ncreated:\n  y"\ncreated: 2024-01-10\n'),
    ("description: 'x\ncreated: ~\n  y'\ncreated: ~\n", "description: 'x\ncreated: ~\n  y'\ncreated: 2024-01-10\n"),
    ('metadata:\n  note: "x\n  created:\n  y"\n  created:\n',
     'metadata:\n  note: "x\n  created:\n  y"\n  created: 2024-01-10\n'),
])
def test_a_line_inside_a_quoted_string_that_looks_like_the_key_is_not_filled(before, after):
    # The line inside the string was filled, the check refused it, and the rewrite folded the string into one line.
    out = add_dates(f"---\nname: a\n{before}---\nBody\n".encode(), {"created": JAN}, create_block=False)
    assert out.skipped is None and out.data == f"---\nname: a\n{after}---\nBody\n".encode()


def test_a_frontmatter_the_dates_would_take_past_the_read_limit_says_so():
    from memlint.frontmatter_yaml import MAX_FRONTMATTER_CHARS
    from memlint.markdown import parse

    dates = "\ncreated: 2024-01-10\nlast_verified: 2024-02-20"
    head = "name: a\ndescription: "

    def frontmatter(size: int) -> bytes:  # of `size` characters once dated
        return f"---\n{head}{'x' * (size - len(head) - len(dates))}\n---\nBody\n".encode()

    over = add_dates(frontmatter(MAX_FRONTMATTER_CHARS + 1), BOTH, create_block=False)
    assert not over.changed and over.skipped == (
        f"with the dates its frontmatter would be {MAX_FRONTMATTER_CHARS + 1} characters, over the "
        f"{MAX_FRONTMATTER_CHARS} memlint reads (MEM002): not written; shorten it first")
    at_limit = add_dates(frontmatter(MAX_FRONTMATTER_CHARS), BOTH, create_block=False)
    assert at_limit.added == ("created", "last_verified") and at_limit.skipped is None
    assert parse(at_limit.data.decode()).frontmatter_error is None  # check reads it


def test_a_comment_after_an_empty_quoted_value_keeps_its_gap():
    old = b'---\nname: a        # who\ncreated: ""     # fill me\n---\nBody\n'
    out = add_dates(old, {"created": JAN}, create_block=False)
    assert out.data == b'---\nname: a        # who\ncreated: 2024-01-10     # fill me\n---\nBody\n'


@pytest.mark.parametrize("empty", ["created:", "created: ~", "'created': ''", "created: |  # fill me"])
def test_an_empty_metadata_date_is_filled_where_it_is_and_the_other_date_added_flat(empty):
    old = f"---\nname: a\nmetadata:\n  # when\n  type: user\n  {empty}\n  tags:\n    - x\n---\nBody\n".encode()
    out = add_dates(old, BOTH, create_block=False)
    assert out.added == ("created", "last_verified") and out.skipped is None
    filled = empty.split(":")[0] + ": 2024-01-10" + ("  # fill me" if "#" in empty else "")
    assert out.data == (f"---\nname: a\nmetadata:\n  # when\n  type: user\n  {filled}\n  tags:\n    - x\n"
                        "last_verified: 2024-02-20\n---\nBody\n").encode()


def test_an_empty_date_deeper_than_metadata_is_not_taken_for_it():
    old = b"---\nname: a\nmetadata:\n  sub:\n    created:\n---\nBody\n"
    out = add_dates(old, {"created": JAN}, create_block=False)
    assert out.data == old.replace(b"\n---\nBody", b"\ncreated: 2024-01-10\n---\nBody")


def test_crlf_bom_and_no_final_newline_are_kept():
    old = b"\xef\xbb\xbf---\r\nname: a\r\n---\r\nBody\r\nno newline at the end"
    out = add_dates(old, BOTH, create_block=False)
    assert out.data == (b"\xef\xbb\xbf---\r\nname: a\r\ncreated: 2024-01-10\r\nlast_verified: 2024-02-20\r\n---\r\n"
                        b"Body\r\nno newline at the end")


def test_empty_frontmatter_and_a_dots_closing_fence():
    assert add_dates(b"---\n---\nBody\n", BOTH, create_block=False).data == (
        b"---\ncreated: 2024-01-10\nlast_verified: 2024-02-20\n---\nBody\n")
    assert add_dates(b"---\nname: a\n...\nBody\n", BOTH, create_block=False).data == (
        b"---\nname: a\ncreated: 2024-01-10\nlast_verified: 2024-02-20\n...\nBody\n")


def test_a_block_scalar_at_the_end_keeps_its_value():
    old = b"---\nname: a\nnote: |+\n  kept\n\n---\nBody\n"
    out = add_dates(old, BOTH, create_block=False)
    assert out.data == old.replace(b"\n---\n", b"\ncreated: 2024-01-10\nlast_verified: 2024-02-20\n---\n", 1)
    import yaml

    assert yaml.safe_load(out.data.split(b"---\n")[1])["note"] == "kept\n\n"


def test_an_indented_frontmatter_gets_its_new_keys_at_its_indentation_and_nothing_else_moves():
    old = b"---\n  name: a\n  # a comment\n  description: 'quoted'   # why\n  tags: [x,  # why x\n    y]\n---\nBody\n"
    out = add_dates(old, BOTH, create_block=False)
    assert out.data == old.replace(b"y]\n---", b"y]\n  created: 2024-01-10\n  last_verified: 2024-02-20\n---")
    empty = b"---\n  name: a\n  created:\n  metadata:\n    last_verified: ''\n---\nBody\n"  # filled where they are
    assert add_dates(empty, BOTH, create_block=False).data == (
        b"---\n  name: a\n  created: 2024-01-10\n  metadata:\n    last_verified: 2024-02-20\n---\nBody\n")


def test_a_flow_mapping_frontmatter_is_rewritten_by_ruamel_keeping_its_fields():
    old = b"---\n{name: a, description: 'quoted'}\n---\nBody\n"
    out = add_dates(old, BOTH, create_block=False)
    assert out.changed and body_after_frontmatter(out.data) == b"Body\n"
    from memlint.markdown import parse

    assert parse(out.data.decode()).frontmatter == {
        "name": "a", "description": "quoted", "created": "2024-01-10", "last_verified": "2024-02-20"}
    assert b"'quoted'" in out.data  # quoting survives the round trip


def test_a_tab_inside_a_value_takes_a_plain_insert_though_ruamel_refuses_it():
    # YAML allows a tab between the words of a plain value, and check's reader
    # takes it; ruamel.yaml does not, and needs to read only what it rewrites.
    old = b"---\nname: a\ndescription: x\tand y\n---\nBody\n"
    out = add_dates(old, BOTH, create_block=False)
    assert out.skipped is None
    assert out.data == old.replace(b"y\n---", b"y\ncreated: 2024-01-10\nlast_verified: 2024-02-20\n---")
    flow = b"---\n{name: a, description: x\tand y}\n---\nBody\n"  # needs a rewrite: ruamel would
    out = add_dates(flow, BOTH, create_block=False)
    assert not out.changed and "ruamel.yaml cannot read this frontmatter" in out.skipped


@pytest.mark.parametrize("text, why", [
    ("---\nname: [unclosed\n---\nBody\n", "invalid frontmatter"),
    ("---\nname: a\nBody with no closing fence\n", "never closed"),
    ("# Title\n\n---\nname: a\n---\nBody\n", "after other text"),
    ("---\n- name: a list\n---\nBody\n", "invalid frontmatter"),
    ("---\nname: a\nname: b\n---\nBody\n", "duplicate key 'name'"),
    ("---\rname: a\rtype: user\r---\rBody\r", "lone CR"),  # old Mac line ends: a new block could be a second one
])
def test_files_it_cannot_edit_safely_are_never_touched(text, why):
    out = add_dates(text.encode(), BOTH, create_block=True)
    assert not out.changed and out.data == text.encode() and why in out.skipped


def test_no_frontmatter_gets_a_block_only_when_required():
    old = b"# Deploy notes\r\nAlways smoke test.\r\n"
    left = add_dates(old, BOTH, create_block=False)
    assert not left.changed and "does not require" in left.skipped
    made = add_dates(old, BOTH, create_block=True)
    assert made.data == b"---\r\ncreated: 2024-01-10\r\nlast_verified: 2024-02-20\r\n---\r\n" + old


def test_unknown_dates_are_left_out_and_listed():
    out = add_dates(b"---\nname: a\n---\nBody\n", {"created": None, "last_verified": FEB}, create_block=False)
    assert out.added == ("last_verified",) and out.unknown == ("created",)
    assert add_dates(b"not utf-8 \xff\n", BOTH, create_block=True).skipped == "not valid UTF-8"


# ---------------------------------------------------------------- the command


@pytest.fixture
def repo(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("memory/MEMORY.md", INDEX)
    repo.write("memory/a.md", "---\nname: a\n---\nBody\n")
    repo.write("memory/b c é.md", "---\nname: b\ncreated: 2023-05-05\n---\nBody\n")
    repo.commit("add", D1)
    repo.write("memory/a.md", "---\nname: a\n---\nBody, edited\n")
    repo.commit("edit a", D2)
    return repo


def test_dry_run_prints_a_diff_and_writes_nothing(repo, cli):
    before = repo.read("memory/a.md")
    result = cli("backfill", "--dry-run", repo.root / "memory")
    assert result.exit_code == 0
    assert result.output == (
        "--- a/memory/a.md\n+++ b/memory/a.md\n@@ -1,4 +1,6 @@\n ---\n name: a\n"
        "+created: 2024-01-10\n+last_verified: 2024-02-20\n ---\n Body, edited\n"
        "--- a/memory/b c é.md\n+++ b/memory/b c é.md\n@@ -1,5 +1,6 @@\n ---\n name: b\n created: 2023-05-05\n"
        "+last_verified: 2024-01-10\n ---\n Body\n")
    assert repo.read("memory/a.md") == before


def test_a_reader_that_goes_away_stops_the_printing_not_the_writes(repo):
    """`memlint backfill | head -1`: every file is still dated, and the exit
    status is the run's (1: it changed files)."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "memlint", "backfill", str(repo.root / "memory")],
                            cwd=repo.root, env=repo.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # gone before the first line
    assert proc.wait(timeout=60) == 1 and b"Traceback" not in proc.stderr.read()
    assert "last_verified: 2024-02-20" in repo.read("memory/a.md")
    assert "last_verified: 2024-01-10" in repo.read("memory/b c é.md")


def test_a_file_named_beside_another_stores_folder_limits_its_own_store(tmp_path, cli):
    """`backfill other-store a/memory/a.md` must not write a/memory/b.md."""
    repo = GitRepo(tmp_path / "two")
    for name in ("a", "b"):
        repo.write(f"{name}/memory/MEMORY.md", INDEX + "- [B](b.md) — the second\n")
        repo.write(f"{name}/memory/a.md", "---\nname: a\n---\nBody\n")
        repo.write(f"{name}/memory/b.md", "---\nname: b\n---\nBody\n")
    repo.commit("add", D1)
    result = cli("backfill", "--dry-run", "b", "a/memory/a.md", cwd=repo.root)
    assert result.exit_code == 0
    changed = [line[6:] for line in result.output.splitlines() if line.startswith("+++ b/")]
    assert sorted(changed) == ["a/memory/a.md", "b/memory/a.md", "b/memory/b.md"]


def test_a_git_date_after_today_is_not_written(repo, cli):
    """An author's clock was ahead: written, the date would be an error
    (MEM004: in the future); the other date still is."""
    repo.write("memory/ahead.md", "---\nname: ahead\n---\nBody\n")
    repo.commit("from the future", "2030-05-01T10:00:00+00:00")
    repo.write("memory/ahead.md", "---\nname: ahead\n---\nBody, edited\n")
    repo.commit("back to now", D3, committer_date="2030-05-02T10:00:00+00:00")
    result = cli("backfill", "--today", "2026-11-30", repo.root / "memory")
    assert result.exit_code == 1
    assert repo.read("memory/ahead.md") == "---\nname: ahead\nlast_verified: 2024-03-30\n---\nBody, edited\n"
    assert ("memlint: memory/ahead.md: git dates it after today (2026-11-30): created 2030-05-01; "
            "a clock was ahead; not written") in result.stderr
    found = cli("check", "--format", "json", "--today", "2026-11-30", "--select", "MEM004", repo.root / "memory")
    assert found.json() == []


def test_a_git_date_one_day_ahead_is_a_time_zone_and_is_written(repo, cli):
    """Committed in Kiribati (+14:00) early on 2026-12-01, backfilled in UTC
    on 2026-11-30: MEM004 accepts a day ahead, so backfill writes it."""
    repo.write("memory/east.md", "---\nname: east\n---\nBody\n")
    repo.commit("from the east", "2026-12-01T08:00:00+14:00")
    result = cli("backfill", "--today", "2026-11-30", "--fields", "created", repo.root / "memory")
    assert result.exit_code == 1 and "not written" not in result.stderr
    assert "created: 2026-12-01" in repo.read("memory/east.md")
    found = cli("check", "--format", "json", "--today", "2026-11-30", "--select", "MEM004", repo.root / "memory")
    assert found.json() == []


@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_the_dry_run_diff_applies_with_form_feeds_and_unicode_line_separators(repo, cli, bom):
    """Lines are split at \\n only, as patch counts them: a form feed or a
    U+2028 inside a line does not break the diff, and a BOM is kept in it."""
    text = bom + "---\nname: a\n---\nPage one\x0cpage two\nA\u2028B\nend\n"
    repo.write("memory/a.md", text)
    repo.commit("form feed", D3)
    result = cli("backfill", "--dry-run", "--fields", "created", repo.root / "memory" / "a.md")
    assert "No newline" not in result.output
    patch = repo.root / "a.patch"
    patch.write_text(result.output, encoding="utf-8")
    repo.run("apply", "--check", str(patch))
    repo.run("apply", str(patch))
    assert repo.read("memory/a.md") == text.replace("name: a\n", "name: a\ncreated: 2024-01-10\n")


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to give a file away")
def test_a_file_root_rewrites_keeps_its_owner(repo, cli):
    path = repo.path("memory/a.md")
    os.chown(path, 65534, 65534)
    assert cli("backfill", repo.root / "memory" / "a.md").exit_code == 1
    assert (os.stat(path).st_uid, os.stat(path).st_gid) == (65534, 65534) and "created:" in repo.read("memory/a.md")


def test_a_file_that_cannot_be_written_is_reported_and_the_others_still_are(repo, cli, monkeypatch):
    from memlint import atomic

    real = atomic.write_bytes_atomic

    def refuse_a(path, data, **kwargs):
        if str(path).endswith("a.md"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, data, **kwargs)

    monkeypatch.setattr(atomic, "write_bytes_atomic", refuse_a)
    result = cli("backfill", repo.root / "memory")
    assert result.exit_code == 2 and "memory/a.md: cannot write: Permission denied; left as it was" in result.stderr
    assert repo.read("memory/a.md") == "---\nname: a\n---\nBody, edited\n"
    assert "last_verified: 2024-01-10" in repo.read("memory/b c é.md")


def test_a_store_without_git_stops_the_run_before_anything_is_written(repo, tmp_path, cli):
    plain = tmp_path / "plain"
    shutil.copytree(repo.root / "memory", plain)
    result = cli("backfill", "--preset", "moc", repo.root / "memory", plain)
    assert result.exit_code == 2 and "not in a git repository" in result.stderr
    assert repo.read("memory/a.md") == "---\nname: a\n---\nBody, edited\n"


def test_writes_exit_1_then_a_second_run_changes_nothing(repo, cli):
    os.chmod(repo.path("memory/a.md"), 0o600)
    first = cli("backfill", repo.root / "memory")
    assert first.exit_code == 1
    assert first.output == ("memory/a.md: added created: 2024-01-10, last_verified: 2024-02-20\n"
                            "memory/b c é.md: added last_verified: 2024-01-10\n")
    assert repo.read("memory/a.md") == "---\nname: a\ncreated: 2024-01-10\nlast_verified: 2024-02-20\n---\nBody, edited\n"
    assert stat.S_IMODE(os.stat(repo.path("memory/a.md")).st_mode) == 0o600
    assert not list(repo.path("memory").glob(".*memlint-tmp"))
    second = cli("backfill", repo.root / "memory")
    assert second.exit_code == 0 and second.output == ""
    # and the store is now clean of MEM402; the backfill commit is not a change for MEM404
    repo.add("memory")
    repo.commit("backfill", D3)
    result = cli("check", "--format", "json", "--select", "MEM402,MEM404", "--today", "2024-04-01", repo.root / "memory")
    assert result.json() == []


def test_only_the_files_named_are_changed_and_index_files_never(repo, cli):
    result = cli("backfill", repo.root / "memory" / "a.md", repo.root / "memory" / "MEMORY.md")
    assert result.exit_code == 1
    assert result.output.splitlines() == ["memory/a.md: added created: 2024-01-10, last_verified: 2024-02-20"]
    assert "last_verified" not in repo.read("memory/b c é.md")
    assert repo.read("memory/MEMORY.md") == INDEX


def test_fields_follow_the_preset_or_the_option(repo, cli):
    repo.write(".memlint.yaml", "preset: three-layer\nroot: memory/MEMORY.md\n")
    assert cli("backfill", repo.root / "memory" / "a.md").exit_code == 1
    assert repo.read("memory/a.md") == "---\nname: a\nlast_verified: 2024-02-20\n---\nBody, edited\n"
    assert cli("backfill", "--fields", "created", repo.root / "memory" / "a.md").exit_code == 1
    assert "created: 2024-01-10" in repo.read("memory/a.md")
    bad = cli("backfill", "--fields", "expires", repo.root / "memory")
    assert bad.exit_code == 2 and "expires" in bad.stderr
    empty = cli("backfill", "--fields", " , ", repo.root / "memory")  # not the default, quietly
    assert empty.exit_code == 2 and "names no field" in empty.stderr
    before = repo.read("memory/a.md")
    assert cli("backfill", "--fields", "created, last_verified", "--dry-run", repo.root / "memory").exit_code == 0
    assert repo.read("memory/a.md") == before


def test_uncommitted_invalid_and_symlinked_files_are_reported_and_left_alone(repo, cli):
    repo.write("memory/new.md", "---\nname: new\n---\nBody\n", add=False)
    repo.write("memory/bad.md", "---\nname: [oops\n---\nBody\n")
    repo.commit("bad", D3)
    os.symlink("a.md", repo.path("memory/link.md"))
    repo.add("memory/link.md")
    repo.commit("link", D3)
    result = cli("backfill", "--fields", "created", repo.root / "memory")
    assert result.exit_code == 1
    assert repo.read("memory/new.md") == "---\nname: new\n---\nBody\n"
    assert repo.read("memory/bad.md") == "---\nname: [oops\n---\nBody\n"
    assert os.path.islink(repo.path("memory/link.md"))
    err = result.stderr
    assert "memory/new.md: not committed yet" in err
    assert "memory/bad.md: invalid frontmatter (MEM002, line 3)" in err
    assert "memory/link.md" not in err  # a link to a.md is a.md: the store reads (and fixes) it once


def test_an_empty_block_scalar_created_changes_that_line_only(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("MEMORY.md", INDEX)
    old = "---\nname:   a\ndescription: d\ntype: user\ntags:\n    - a\nnums: [1,   2]\nn: ~\ncreated: |\n---\nbody\n"
    repo.write("a.md", old)
    repo.commit("add", D1)
    result = cli("backfill", repo.root)
    assert result.exit_code == 1 and result.stderr == ""
    assert repo.read("a.md") == old.replace("created: |\n", "created: 2024-01-10\nlast_verified: 2024-01-10\n")


def test_a_read_only_file_is_left_as_it_was_and_said_so(repo, cli):
    """The rename that writes a file atomically needs only its folder's write
    permission: a file made read-only is left alone rather than replaced."""
    path = repo.path("memory/a.md")
    os.chmod(path, 0o444)
    for dry_run in (["--dry-run"], []):
        result = cli("backfill", *dry_run, repo.root / "memory")
        assert "memlint: memory/a.md: read-only: left as it was" in result.stderr
        assert "memory/a.md" not in result.output  # no diff, no "added"
    assert result.exit_code == 1 and result.output == "memory/b c é.md: added last_verified: 2024-01-10\n"
    assert repo.read("memory/a.md") == "---\nname: a\n---\nBody, edited\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o444
    alone = cli("backfill", path)
    assert alone.exit_code == 0 and alone.output == "" and "read-only: left as it was" in alone.stderr


@pytest.mark.parametrize("preset", ["moc", "claude-code"])
@pytest.mark.parametrize("old", [
    "---\n**Note** x\n---\nbody\n",
    # a paragraph, a heading and a list between rules: YAML reads text or a list of lines, no field
    "---\n\nPrefer small PRs and always run the linter first.\n\n---\n",
    "---\n## 09:12 session\n- deployed v2\n---\n",
], ids=["bold", "paragraph", "heading-and-list"])
def test_rules_around_plain_markdown_are_no_frontmatter_as_check_reads_them(tmp_path, cli, preset, old):
    """`---`, bold text, `---`: check reads horizontal rules, not a frontmatter
    (MEM001 where one is required); backfill reads them the same way."""
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", f"preset: {preset}\n")
    repo.write("MEMORY.md", INDEX)
    repo.write("a.md", old)
    repo.commit("add", D1)
    found = cli("check", "--format", "json", "--select", "MEM001,MEM002", repo.root)
    assert [f["code"] for f in found.json()] == (["MEM001"] if preset == "claude-code" else [])
    result = cli("backfill", repo.root)
    assert "ruamel" not in result.stderr
    if preset == "moc":  # frontmatter optional: left alone
        assert result.exit_code == 0 and repo.read("a.md") == old
        assert "memlint: a.md: no frontmatter, and this store does not require one: left alone" in result.stderr
    else:  # required: a minimal block goes on top, the rules stay body
        assert result.exit_code == 1
        assert repo.read("a.md") == "---\ncreated: 2024-01-10\nlast_verified: 2024-01-10\n---\n" + old
        assert cli("check", "--format", "json", "--select", "MEM001,MEM002", repo.root).json() == []


def test_an_empty_metadata_date_is_backfilled_so_check_and_backfill_agree(tmp_path, cli):
    """MEM402 says `memlint backfill` for an empty `metadata.created`; backfill
    fills it where it is, so the two do not send the user round in a loop."""
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("MEMORY.md", INDEX)
    repo.write("a.md", "---\nname: a\ndescription: d\nmetadata:\n  created:\n---\nBody\n")
    repo.commit("add", D1)
    found = cli("check", "--format", "json", "--select", "MEM402", repo.root)
    assert ["run `memlint backfill`" in f["message"] for f in found.json()] == [True]
    result = cli("backfill", repo.root)
    assert result.exit_code == 1 and result.stderr == ""
    assert repo.read("a.md") == ("---\nname: a\ndescription: d\nmetadata:\n  created: 2024-01-10\n"
                                 "last_verified: 2024-01-10\n---\nBody\n")
    assert cli("check", "--format", "json", "--select", "MEM402", repo.root).json() == []


def test_a_symlink_named_alone_is_reported_with_its_target(repo, cli):
    """The store reads a link to one of its memories as that memory, once:
    named alone, the link is said, and nothing is written through it."""
    os.symlink("a.md", repo.path("memory/link.md"))
    repo.add("memory/link.md")
    repo.commit("link", D3)
    result = cli("backfill", repo.root / "memory" / "link.md")
    assert result.exit_code == 0 and result.output == ""
    assert ("memlint: memory/link.md: symbolic link to memory/a.md: not written through the link; "
            "name memory/a.md to date it") in result.stderr
    assert repo.read("memory/a.md") == "---\nname: a\n---\nBody, edited\n"
    assert os.path.islink(repo.path("memory/link.md"))
    both = cli("backfill", repo.root / "memory" / "link.md", repo.root / "memory" / "a.md")
    assert both.exit_code == 1 and both.output.startswith("memory/a.md: added created: 2024-01-10")
    assert "memory/link.md: symbolic link to memory/a.md" in both.stderr


def test_staged_new_file_is_created_today_under_staged(repo, cli):
    repo.write("memory/new.md", "---\nname: new\n---\nBody\n")
    assert cli("backfill", repo.root / "memory" / "new.md").exit_code == 0  # not committed: no date
    result = cli("backfill", "--staged", "--today", "2024-06-01", repo.root / "memory" / "new.md")
    assert result.exit_code == 1
    assert repo.read("memory/new.md") == "---\nname: new\ncreated: 2024-06-01\nlast_verified: 2024-06-01\n---\nBody\n"


def test_no_git_and_shallow_clones_are_usage_errors(repo, tmp_path, cli):
    plain = tmp_path / "plain"
    shutil.copytree(repo.root / "memory", plain)
    result = cli("backfill", "--preset", "moc", plain)
    assert result.exit_code == 2 and "not in a git repository" in result.stderr
    clone = GitRepo(tmp_path / "clone", init=False)
    clone.run("clone", "-q", "--depth", "1", f"file://{repo.root}", ".")
    result = cli("backfill", "memory", cwd=clone.root)
    assert result.exit_code == 2 and "fetch-depth: 0" in result.stderr
    assert result.stderr.startswith("memlint: memory: shallow clone")  # the store as findings name it, not /tmp/...
    assert clone.read("memory/a.md") == "---\nname: a\n---\nBody, edited\n"


def test_check_never_imports_ruamel():
    code = ("import sys; sys.argv = ['memlint', 'check', '--preset', 'moc', 'testdata/moc'];\n"
            "from memlint.cli import main\n"
            "try: main()\n"
            "except SystemExit: pass\n"
            "assert not [m for m in sys.modules if m.startswith('ruamel')], 'ruamel imported'\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- every corpus file


@pytest.mark.parametrize("preset", ["moc", "claude-code"])
def test_corpora_bodies_stay_byte_identical_and_a_second_run_is_a_no_op(corpora, tmp_path, cli, preset):
    """moc wants both dates (frontmatter optional); claude-code requires frontmatter,
    so files without it get a minimal block."""
    for name, (_, folder) in CORPORA.items():
        copy = tmp_path / name
        shutil.copytree(corpora[name], copy, symlinks=True)
        files = sorted(p for p in copy.rglob("*.md") if ".git" not in p.parts and not p.is_symlink())
        before = {p: p.read_bytes() for p in files}
        first = cli("backfill", "--preset", preset, copy / folder)
        assert first.exit_code in (0, 1), first.stderr
        changed = [p for p in files if p.read_bytes() != before[p]]
        assert (first.exit_code == 1) == bool(changed)
        for p in files:
            after = p.read_bytes()
            if after == before[p]:
                continue
            assert body_after_frontmatter(after) == body_after_frontmatter(before[p]), p
            old_lines, new_lines = before[p].split(b"\n"), after.split(b"\n")
            if old_lines[0].rstrip(b"\r") in (b"---", b"\xef\xbb\xbf---"):
                # frontmatter existed: the old lines are all still there, in order, plus one or two
                it = iter(new_lines)
                assert all(line in it for line in old_lines), p
                assert len(new_lines) - len(old_lines) in (1, 2), p
            else:  # a new block on top of the untouched file
                assert preset == "claude-code" and after.endswith(before[p]), p
        written = {p: p.read_bytes() for p in files}
        second = cli("backfill", "--preset", preset, copy / folder)
        assert second.exit_code == 0 and second.output == "", (name, second.output)
        assert {p: p.read_bytes() for p in files} == written
        if preset == "moc":
            missing = cli("check", "--format", "json", "--preset", "moc", "--select", "MEM402", copy / folder)
            skipped = {line.split(": ")[1] for line in first.stderr.splitlines() if line.startswith("memlint: ")}
            assert {f["path"] for f in missing.json()} <= skipped, name


@pytest.mark.parametrize("config", ['rules:\n  MEM001:\n    ignore: ["scratch/*"]\n', "rules:\n  MEM001: off\n"])
def test_no_block_where_check_does_not_ask_for_one(tmp_path, cli, config):
    # A block on a file MEM001 leaves alone turned a clean check into three MEM003 errors.
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", config)
    repo.write("MEMORY.md", "- [a](a.md)\n- [s](scratch/s.md)\n")
    repo.write("a.md", "---\nname: a\ndescription: d\ntype: user\n---\nA.\n")
    repo.write("scratch/s.md", "Scratch note.\n")
    repo.commit("add", D1)
    assert cli("check", "--select", "frontmatter", repo.root).exit_code == 0
    result = cli("backfill", repo.root)
    assert repo.read("scratch/s.md") == "Scratch note.\n"
    assert "scratch/s.md: no frontmatter, and check does not ask for one here" in result.stderr
    assert cli("check", "--select", "frontmatter", repo.root).exit_code == 0


@pytest.mark.parametrize("stage", [False, True])
def test_a_file_with_changes_not_committed_gets_no_last_verified_from_its_last_commit(tmp_path, cli, stage):
    # Its last commit's day, written into an edited file, made MEM404 fire the moment it was committed.
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("MEMORY.md", "- [T](mocs/t.md)\n")
    repo.write("mocs/t.md", "# T\n- [a](../a.md)\n")
    repo.write("a.md", "---\ntitle: a\n---\nOld fact.\n")
    repo.commit("add", D1)
    repo.write("a.md", repo.read("a.md") + "New fact.\n", add=stage)
    repo.write("b.md", "---\ntitle: b\n---\nNew.\n", add=stage)  # new: not committed at all
    repo.write("mocs/t.md", "# T\n- [a](../a.md)\n- [b](../b.md)\n")
    result = cli("backfill", repo.root)
    assert repo.read("a.md") == "---\ntitle: a\ncreated: 2024-01-10\n---\nOld fact.\nNew fact.\n"
    assert "a.md: has changes not committed yet, so git has no date for last_verified" in result.stderr
    assert "b.md: not committed yet, so git has no date for created, last_verified" in result.stderr


@pytest.mark.parametrize("flag", ["--assume-unchanged", "--skip-worktree"])
def test_an_edit_git_is_told_not_to_look_at_gets_no_last_verified_from_its_last_commit(tmp_path, cli, flag):
    # `git diff` takes a file so marked as unchanged without reading it: the edit got the last commit's day.
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("MEMORY.md", "- [T](mocs/t.md)\n")
    repo.write("mocs/t.md", "# T\n- [a](../a.md)\n- [b](../b.md)\n")
    repo.write("a.md", "---\ntitle: a\n---\nOld fact.\n")
    repo.write("b.md", "---\ntitle: b\n---\nKept.\n")
    repo.commit("add", D1)
    repo.run("update-index", flag, "a.md", "b.md")
    repo.write("a.md", repo.read("a.md") + "New fact.\n", add=False)
    result = cli("backfill", repo.root)
    assert repo.read("a.md") == "---\ntitle: a\ncreated: 2024-01-10\n---\nOld fact.\nNew fact.\n"
    assert "a.md: has changes not committed yet, so git has no date for last_verified" in result.stderr
    assert repo.read("b.md") == "---\ntitle: b\ncreated: 2024-01-10\nlast_verified: 2024-01-10\n---\nKept.\n"


@pytest.mark.parametrize("odd", ['"quoted.md', "line\nbreak.md", "cr\r in it.md", 'back\\slash "q".md'])
def test_a_file_git_is_told_not_to_look_at_is_hashed_by_its_name_whatever_it_holds(tmp_path, cli, odd):
    # hash-object reads a line starting with a quote C-quoted, and drops a CR before the line break (the
    # attachment's): such a name written as it is named no file, the call failed and every such file was withheld.
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("MEMORY.md", "- [T](mocs/t.md)\n")
    repo.write("mocs/t.md", "# T\n- [a](../a.md)\n")
    repo.write("a.md", "---\ntitle: a\n---\nOld fact.\n")
    repo.write(odd, "---\ntitle: odd\n---\nKept.\n")
    repo.write("attachment\r", "Not a memory.\n")
    repo.commit("add", D1)
    repo.run("update-index", "--assume-unchanged", "a.md", odd, "attachment\r")
    repo.write("a.md", repo.read("a.md") + "New fact.\n", add=False)
    result = cli("backfill", repo.root)
    assert "a.md: has changes not committed yet, so git has no date for last_verified" in result.stderr
    assert repo.read(odd) == "---\ntitle: odd\ncreated: 2024-01-10\nlast_verified: 2024-01-10\n---\nKept.\n"


def test_thousands_of_files_git_is_told_not_to_look_at_are_hashed_all_the_same(tmp_path, cli, monkeypatch):
    # Their paths on hash-object's command line passed the system's limit on its length (E2BIG, here made
    # small): the call failed, and no edit was seen, so the edited file got the last commit's day.
    import errno

    from memlint import gitrun

    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    names = [f"project_{'x' * 40}_{i:02d}.md" for i in range(40)]
    repo.write("MEMORY.md", "- [T](mocs/t.md)\n")
    repo.write("mocs/t.md", "# T\n" + "".join(f"- [{name}](../{name})\n" for name in names))
    for name in names:
        repo.write(name, f"---\ntitle: {name}\n---\nOld fact.\n")
    repo.commit("add", D1)
    repo.run("update-index", "--assume-unchanged", *names)
    repo.write(names[7], repo.read(names[7]) + "New fact.\n", add=False)
    real = gitrun.subprocess.run

    def limited(argv, *args, **kwargs):
        if sum(len(os.fsencode(arg)) + 1 for arg in argv) > 1000:
            raise OSError(errno.E2BIG, "Argument list too long")
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(gitrun.subprocess, "run", limited)
    result = cli("backfill", repo.root)
    assert f"{names[7]}: has changes not committed yet, so git has no date for last_verified" in result.stderr
    assert "last_verified" not in repo.read(names[7])
    assert "last_verified: 2024-01-10" in repo.read(names[8])


def test_a_file_committed_with_crlf_git_is_told_not_to_look_at_is_unchanged_under_autocrlf(tmp_path, cli):
    # hash-object converted its CRLF as core.autocrlf asks, which git does not where the index holds
    # CRLF: the file, untouched, differed from its blob and was withheld as having changes not committed.
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("MEMORY.md", "- [T](mocs/t.md)\n")
    repo.write("mocs/t.md", "# T\n- [a](../a.md)\n- [b](../b.md)\n")
    repo.path("a.md").write_bytes(b"---\r\ntitle: a\r\n---\r\nFact.\r\n")
    repo.path("b.md").write_bytes(b"---\r\ntitle: b\r\n---\r\nFact.\r\n")
    repo.add("a.md", "b.md")
    repo.commit("add", D1)
    repo.run("config", "core.autocrlf", "true")
    repo.run("update-index", "--skip-worktree", "a.md", "b.md")
    repo.path("b.md").write_bytes(repo.path("b.md").read_bytes() + b"New fact.\r\n")
    result = cli("backfill", repo.root)
    assert "a.md: has changes" not in result.stderr
    assert repo.path("a.md").read_bytes() == (b"---\r\ntitle: a\r\ncreated: 2024-01-10\r\nlast_verified: 2024-01-10\r\n"
                                              b"---\r\nFact.\r\n")
    assert "b.md: has changes not committed yet, so git has no date for last_verified" in result.stderr


@pytest.mark.parametrize("stage", [False, True])
def test_a_mode_changed_alone_is_no_edit_and_keeps_last_verified(tmp_path, cli, stage):
    # `chmod -x` on a memory committed executable withheld its last_verified as "changes not committed yet".
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("MEMORY.md", "- [T](mocs/t.md)\n")
    repo.write("mocs/t.md", "# T\n- [a](../a.md)\n")
    repo.write("a.md", "---\ntitle: a\n---\nFact.\n")
    repo.commit("add", D1)
    repo.path("a.md").chmod(0o755)
    if stage:
        repo.add("a.md")
    result = cli("backfill", repo.root)
    assert repo.read("a.md") == "---\ntitle: a\ncreated: 2024-01-10\nlast_verified: 2024-01-10\n---\nFact.\n"
    assert "has changes not committed yet" not in result.stderr


def test_a_file_named_that_is_not_dated_is_said_why(tmp_path, cli):
    # `backfill memory/mocs/t.md memory/drafts/d.md` said nothing and passed.
    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/.memlint.yaml", "preset: moc\nexclude: [\"drafts/**\"]\n")
    repo.write("memory/MEMORY.md", "- [T](mocs/t.md)\n")
    repo.write("memory/mocs/t.md", "---\ntitle: t\n---\n# T\n- [a](../a.md)\n- [b](../b.md)\n")
    repo.write("memory/drafts/d.md", "---\ntitle: d\n---\nD.\n")
    repo.write("memory/.hidden/h.md", "---\ntitle: h\n---\nH.\n")
    repo.write("memory/notes.txt", "notes\n")
    repo.commit("add", D1)
    named = [str(repo.root / p) for p in ("memory/MEMORY.md", "memory/mocs/t.md", "memory/drafts/d.md",
                                          "memory/.hidden/h.md", "memory/notes.txt")]
    result = cli("backfill", *named)
    assert result.exit_code == 0 and result.output == ""
    assert result.stderr.splitlines() == [
        "memlint: memory/MEMORY.md: the root index, not a memory: backfill dates memories only",
        "memlint: memory/mocs/t.md: a topic index, not a memory: backfill dates memories only",
        "memlint: memory/.hidden/h.md: in a folder the store does not read (hidden, or one such as node_modules): "
        "not dated",
        "memlint: memory/drafts/d.md: not one of the store's files (its `include`/`exclude`): not dated",
        "memlint: memory/notes.txt: not a markdown file (.md): not dated",
    ]
    # a hook names every staged file: no noise, also from `pre-commit run --all-files` (no index of a commit)
    assert cli("backfill", "--staged", *named, env={"PRE_COMMIT": "1"}).stderr == ""
    assert cli("backfill", *named, env={"PRE_COMMIT": "1"}).stderr == ""


def test_a_folder_of_the_store_named_dates_its_memories_and_says_nothing_of_its_index(tmp_path, cli):
    # `backfill memory/team` said "a topic index, not a memory" of the folder's own MEMORY.md
    # (its index in the store), which nobody named; naming that file still says it.
    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", "- [Team](team/MEMORY.md)\n")
    repo.write("memory/team/MEMORY.md", "# Team\n- [b](b.md)\n")
    repo.write("memory/team/b.md", "---\nname: b\ndescription: d\n---\nB.\n")
    repo.commit("add", D1)
    result = cli("backfill", repo.root / "memory" / "team")
    assert result.exit_code == 1, result.stderr
    assert result.stderr == ""
    assert "memory/team/b.md: added created: 2024-01-10, last_verified: 2024-01-10" in result.output
    named = cli("backfill", repo.root / "memory" / "team" / "MEMORY.md")
    assert named.stderr == "memlint: memory/team/MEMORY.md: a topic index, not a memory: backfill dates memories only\n"


def test_the_hook_reads_the_store_the_commit_holds(tmp_path, cli):
    # An untracked daily log made backfill read the store as openclaw (frontmatter optional)
    # while the other hooks, reading the index, asked for frontmatter: b.md passed one, failed the other.
    repo = GitRepo(tmp_path / "repo")
    repo.write("MEMORY.md", "- [a](a.md)\n- [b](b.md)\n")
    repo.write("a.md", "---\nname: a\ndescription: d\ntype: user\n---\nA.\n")
    repo.commit("add", D1)
    repo.write("memory/2026-11-30.md", "agent log\n", add=False)
    repo.write("b.md", "No frontmatter.\n")
    result = cli("backfill", "--staged", "--today", "2026-12-01", repo.root / "b.md")
    assert result.exit_code == 1 and repo.read("b.md").startswith("---\ncreated: 2026-12-01\n")


def test_the_backfill_hook_started_with_no_file_staged_dates_none(repo, cli):
    """pre-commit starts a hook with `always_run: true` even when the commit
    stages none of its files: `memlint backfill --` with no filenames. Dating
    the whole store then would put every undated memory into your commit."""
    before = {rel: repo.read(rel) for rel in ("memory/a.md", "memory/b c é.md")}
    hook = {"PRE_COMMIT": "1", "GIT_INDEX_FILE": str(repo.root / ".git" / "index")}
    # at a commit, by `pre-commit run` (no GIT_INDEX_FILE), and with `args: [--staged, --]`
    for env, args in ((hook, ()), ({"PRE_COMMIT": "1"}, ()), (hook, ("--staged",))):
        result = cli("backfill", *args, "--", cwd=repo.root, env=env)
        assert result.exit_code == 0, result.stderr
        assert "pre-commit named no file: nothing to date" in result.stderr
        assert {rel: repo.read(rel) for rel in before} == before
    # by hand (no hook), or named, the same store is dated as ever
    assert cli("backfill", "--dry-run", cwd=repo.root).output != ""
    assert cli("backfill", "--dry-run", "memory/a.md", cwd=repo.root, env=hook).output != ""


def test_a_staged_run_gives_no_last_verified_to_edits_not_staged(tmp_path, cli):
    # `backfill --staged` wrote b.md's last commit's day into a file whose edit was not staged:
    # neither that commit nor the one being made holds what it says now.
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("memory/MEMORY.md", "# I\n")
    for name in ("staged", "unstaged", "both"):
        repo.write(f"memory/{name}.md", f"---\nname: {name}\n---\nOld.\n")
    repo.commit("add", D1)
    repo.write("memory/staged.md", repo.read("memory/staged.md") + "Staged.\n")
    repo.write("memory/unstaged.md", repo.read("memory/unstaged.md") + "Not staged.\n", add=False)
    repo.write("memory/both.md", repo.read("memory/both.md") + "Staged.\n")
    repo.write("memory/both.md", repo.read("memory/both.md") + "Then more, not staged.\n", add=False)
    result = cli("backfill", "--staged", "--today", "2024-06-01", repo.root / "memory")
    assert result.exit_code == 1
    assert result.output.splitlines() == ["memory/both.md: added created: 2024-01-10",
                                          "memory/staged.md: added created: 2024-01-10, last_verified: 2024-06-01",
                                          "memory/unstaged.md: added created: 2024-01-10"]
    for name in ("both", "unstaged"):
        assert (f"memlint: memory/{name}.md: has changes not staged, so the commit being made has no date for "
                "last_verified; stage them first (`git add`)") in result.stderr
    # at a commit, pre-commit has stashed what is not staged: the file is what the commit holds, dated today
    repo.run("checkout", "--", "memory/both.md")
    hook = cli("backfill", "--today", "2024-06-01", "memory/both.md", cwd=repo.root,
               env={"PRE_COMMIT": "1", "GIT_INDEX_FILE": str(repo.root / ".git" / "index")})
    assert hook.exit_code == 1 and hook.stderr == ""
    assert repo.read("memory/both.md") == "---\nname: both\ncreated: 2024-01-10\nlast_verified: 2024-06-01\n---\nOld.\nStaged.\n"


@pytest.mark.parametrize("stage", [False, True])
def test_last_verified_is_the_last_change_of_content_not_a_commit_that_wrote_dates(tmp_path, cli, stage):
    # `backfill --fields created`, committed, then `backfill` wrote that commit's day: the result
    # hung on how many runs it took. Staged (the hook at that commit), the commit being made wrote only dates.
    repo = GitRepo(tmp_path / "repo")
    repo.write(".memlint.yaml", "preset: moc\n")
    repo.write("memory/MEMORY.md", "# I\n")
    repo.write("memory/a.md", "---\nname: a\n---\nA.\n")
    repo.commit("add", D1)
    repo.write("memory/a.md", "---\nname: a\n---\nA, changed.\n")
    repo.commit("change", D2)
    assert cli("backfill", "--fields", "created", repo.root / "memory").exit_code == 1
    repo.add("memory/a.md")
    if not stage:
        repo.commit("dates only", D3)
    result = cli("backfill", *(["--staged", "--today", "2024-06-01"] if stage else []), repo.root / "memory")
    assert result.exit_code == 1 and result.stderr == ""
    assert repo.read("memory/a.md") == "---\nname: a\ncreated: 2024-01-10\nlast_verified: 2024-02-20\n---\nA, changed.\n"
    # one run of both fields writes the same
    repo.run("reset", "-q", "--hard", "HEAD~1" if not stage else "HEAD")
    assert cli("backfill", repo.root / "memory").exit_code == 1
    assert repo.read("memory/a.md") == "---\nname: a\ncreated: 2024-01-10\nlast_verified: 2024-02-20\n---\nA, changed.\n"


def test_a_file_edited_while_backfill_ran_is_left_with_the_edit(repo, cli, monkeypatch):
    # An editor's save between backfill's read and its rename was silently replaced by the dated old text.
    from memlint import backfill as backfill_mod

    real = backfill_mod.add_dates

    def edited_meanwhile(data, dates, **kwargs):
        outcome = real(data, dates, **kwargs)
        if b"name: a\n" in data:
            repo.path("memory/a.md").write_bytes(data + b"Saved meanwhile.\n")
        return outcome

    monkeypatch.setattr(backfill_mod, "add_dates", edited_meanwhile)
    result = cli("backfill", repo.root / "memory")
    assert result.exit_code == 1  # the other file was dated
    assert "memlint: memory/a.md: changed while backfill ran; left as it was" in result.stderr
    assert repo.read("memory/a.md") == "---\nname: a\n---\nBody, edited\nSaved meanwhile.\n"
    assert result.output == "memory/b c é.md: added last_verified: 2024-01-10\n"
    assert not list(repo.path("memory").glob(".*memlint-tmp"))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_stdout_that_cannot_be_written_stops_the_printing_not_the_writes(repo):
    # `memlint backfill > /dev/full` stopped after the first file, exit 2, saying only "No space left on device".
    def run(*args: str) -> subprocess.CompletedProcess:
        with open("/dev/full", "w") as full:
            return subprocess.run([sys.executable, "-m", "memlint", "backfill", *args, str(repo.root / "memory")],
                                  cwd=repo.root, env={**repo.env, "PYTHONPATH": str(REPO)}, stdout=full,
                                  stderr=subprocess.PIPE, text=True, timeout=60)

    before = {rel: repo.read(rel) for rel in ("memory/a.md", "memory/b c é.md")}
    dry = run("--dry-run")  # the diff is what was asked for: cut short, it is no "nothing to change"
    assert dry.returncode == 2 and dry.stderr == (
        "memlint: cannot write to stdout (No space left on device): the diff is cut short; no file was written\n")
    assert {rel: repo.read(rel) for rel in before} == before
    written = run()
    assert written.returncode == 1 and written.stderr == (
        "memlint: cannot write to stdout (No space left on device): the list of what was added is lost; "
        "the files were still dated\n")
    assert "last_verified: 2024-02-20" in repo.read("memory/a.md")
    assert "last_verified: 2024-01-10" in repo.read("memory/b c é.md")


def test_a_file_in_no_memory_store_is_said_not_dated(repo, cli):
    # `backfill other/x.md` passed in silence, where check says the file is in no store.
    repo.write("other/x.md", "---\nname: x\n---\nX.\n")
    repo.commit("other", D3)
    result = cli("backfill", "other/x.md", cwd=repo.root)
    assert result.exit_code == 0 and result.output == ""
    assert result.stderr == "memlint: other/x.md: in no memory store, so nothing was dated\n"
    assert cli("check", "other/x.md", cwd=repo.root).stderr == (
        "memlint: other/x.md: in no memory store, so nothing was checked\n")
    # a hook names every staged file, the README of the repository too: no noise there
    assert cli("backfill", "other/x.md", cwd=repo.root, env={"PRE_COMMIT": "1"}).stderr == ""
    assert repo.read("other/x.md") == "---\nname: x\n---\nX.\n"


def test_a_partial_clone_that_cannot_reach_its_remote_is_dated_by_last_commits_and_told(tmp_path, cli, monkeypatch):
    """A blobless clone offline: git cannot show the old versions that tell a
    commit of dates only from a change. Backfill stopped with exit 2 (and
    the hook with it); it dates each file by its last commit, as it did
    before reading them, and says so. A staged check there that must read
    files git lacks names the partial clone."""
    origin = GitRepo(tmp_path / "origin")
    origin.run("config", "uploadpack.allowFilter", "true")
    origin.write("MEMORY.md", "- [b](b.md)\n")
    origin.write("b.md", "---\nname: b\ndescription: d\n---\nPhase 2.\n")
    origin.commit("init", "2026-09-01T12:00:00+00:00")
    origin.write("b.md", "---\nname: b\ndescription: d\n---\nPhase 2.\nPhase 3.\n")
    origin.commit("more", "2026-09-10T12:00:00+00:00")
    clone = GitRepo(tmp_path / "clone", init=False)
    subprocess.run(["git", "clone", "-q", "--filter=blob:none", f"file://{origin.root}", str(clone.root)],
                   env=clone.env, check=True, capture_output=True)
    origin.root.rename(tmp_path / "offline")
    monkeypatch.chdir(clone.root)
    result = cli("backfill", "--fields", "last_verified")
    assert result.exit_code == 1, result.stderr
    assert "b.md: added last_verified: 2026-09-10" in result.output
    assert "so last_verified is the day of each file's last commit" in result.stderr
    old_blob = subprocess.run(["git", "rev-parse", "HEAD~1:b.md"], cwd=tmp_path / "offline", env=clone.env,
                              check=True, capture_output=True, text=True).stdout.strip()
    clone.run("update-index", "--add", "--cacheinfo", f"100644,{old_blob},old.md")  # staged, not in this clone
    staged = cli("check", "--staged")
    assert staged.exit_code == 2 and "a partial clone fetches the files it lacks from its remote" in staged.stderr

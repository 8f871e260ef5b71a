"""Hostile and broken input: a finding or a one-line error, never a traceback,
a hang or a crash; bounded time and memory.

Many cases run memlint as a real subprocess (``python3 -m memlint``) so that a
traceback, a segfault or a runaway process is visible as such. The sample
files live in ``testdata/bad/`` (see its README); cases that cannot be
committed (huge files, symlinks, odd names, git states) are built here.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from memlint import markdown
from memlint.frontmatter_yaml import load_yaml
from tests.conftest import REPO, TESTDATA, write_files

BAD = TESTDATA / "bad"
ROW = re.compile(r"^\|\s*([^|]+?)\s*\|\s*(\d+)\s*\|\s*(MEM\d{3})\s*\|")
QUIET_ROW = re.compile(r"^\|\s*([^|]+?\.md)\s*\|\s*[^|\d]")
MEM = "---\nname: {name}\ndescription: d\ntype: reference\n---\nBody.\n"

# Runs memlint under a fresh interpreter and reports its peak memory: the
# caller's own RUSAGE_CHILDREN would mix in every earlier child of the suite.
_MEASURED = """
import resource, subprocess, sys, time
start = time.monotonic()
proc = subprocess.run(sys.argv[1:], capture_output=True)
sys.stdout.buffer.write(proc.stdout)
sys.stderr.buffer.write(proc.stderr)
sys.stderr.write("\\nMEASURED %d %f %d" % (proc.returncode, time.monotonic() - start,
                 resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
"""


class Run:
    def __init__(self, proc: subprocess.CompletedProcess, seconds: float, max_rss_mb: float | None = None):
        self.code = proc.returncode
        self.stdout = proc.stdout.decode("utf-8", "replace")
        self.stderr = proc.stderr.decode("utf-8", "replace")
        self.seconds = seconds
        self.max_rss_mb = max_rss_mb

    def json(self):
        return json.loads(self.stdout)

    def triples(self):
        return {(f["path"], f["line"], f["code"]) for f in self.json()}


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    env["PYTHONPATH"] = str(REPO)  # this checkout, wherever the command runs
    return env


def memlint(*args, cwd: Path | None = None, timeout: float = 60, measure: bool = False) -> Run:
    """Run ``python3 -m memlint ARGS`` and assert the no-crash contract."""
    command = [sys.executable, "-m", "memlint", *map(str, args)]
    if measure:
        command = [sys.executable, "-c", _MEASURED, *command]
    start = time.monotonic()
    # Its own process group, so that a timeout kills memlint too, not only
    # the measuring wrapper above it.
    child = subprocess.Popen(command, cwd=cwd or REPO, env=_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        raise
    proc = subprocess.CompletedProcess(command, child.returncode, out, err)
    seconds, rss = time.monotonic() - start, None
    if measure:
        stderr, _, measured = proc.stderr.decode().rpartition("\nMEASURED ")
        code, seconds, kb = measured.split()
        proc = subprocess.CompletedProcess(proc.args, int(code), proc.stdout, stderr.encode())
        seconds, rss = float(seconds), int(kb) / 1024
    run = Run(proc, seconds, rss)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.code in (0, 1, 2), f"exit {run.code} (negative: killed by a signal)\n{run.stderr}"
    if run.code == 2:  # one error line: memlint's own, or click's after its usage hint
        assert run.stderr.strip().splitlines()[-1].startswith(("memlint: ", "Error: ")), run.stderr
    return run


def git(repo: Path, *args, check: bool = True) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_AUTHOR_DATE": "2026-01-02T03:04:05+00:00", "GIT_COMMITTER_DATE": "2026-01-02T03:04:05+00:00",
    }
    return subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "protocol.file.allow=always", "-C", str(repo), *args],
        env=env, capture_output=True, text=True, check=check,
    )


def write(base: Path, files: dict[str, str | bytes]) -> Path:
    return write_files(base, files, exact=True)  # bad input is written byte for byte


# ---------------------------------------------------------------- testdata/bad


def _readme():
    findings, quiet = set(), set()
    for line in (BAD / "README.md").read_text(encoding="utf-8").splitlines():
        if m := ROW.match(line):
            findings.add((m.group(1), int(m.group(2)), m.group(3)))
        elif (m := QUIET_ROW.match(line)) and m.group(1) != "file":
            quiet.add(m.group(1))
    return findings, quiet


def test_readme_lists_every_bad_file():
    findings, quiet = _readme()
    listed = {f for f, _, _ in findings} | quiet
    on_disk = {p.name for p in BAD.glob("*.md")} - {"MEMORY.md", "README.md"}
    assert listed == on_disk


def test_bad_store_reports_exactly_the_readme_rows(tmp_path):
    copy = tmp_path / "bad"
    shutil.copytree(BAD, copy)
    findings, quiet = _readme()
    codes = {code for _, _, code in findings}
    run = memlint("check", "--format", "json", "--today", "2026-11-30", copy)
    assert run.code == 1
    got = {t for t in run.triples() if t[2] in codes}
    assert got == findings
    assert not any(t[0] in quiet for t in got)
    assert "MEM000" not in {t[2] for t in run.triples()}  # no rule crashed
    assert run.seconds < 30


def test_bad_store_in_text_format_is_one_line_per_finding(tmp_path):
    copy = tmp_path / "bad"
    shutil.copytree(BAD, copy)
    run = memlint("check", "--format", "text", copy)
    findings, _ = _readme()
    lines = run.stdout.splitlines()
    assert all(re.match(r"^\S.*:\d+:(?:\d+:)? MEM\d{3} ", line) for line in lines), lines
    assert len(lines) >= len(findings)


def test_python_tag_is_refused_never_run(tmp_path):
    marker = Path("/tmp/memlint-pwned")
    marker.unlink(missing_ok=True)
    parsed = markdown.parse((BAD / "yaml-python-tag.md").read_text(encoding="utf-8"))
    assert parsed.frontmatter is None and "constructor for the tag" in parsed.frontmatter_error.message
    assert not marker.exists()


def test_crlf_fields_have_no_carriage_returns_and_lines_count():
    parsed = markdown.parse((BAD / "crlf.md").read_bytes().decode("utf-8"))
    assert parsed.frontmatter == {"name": "crlf", "description": "Windows line endings", "type": "reference"}
    assert parsed.key_lines == {"name": 2, "description": 3, "type": 4}
    assert [(l.target, l.line, l.column) for l in parsed.links] == [("bom.md", 6, 5)]


def test_bom_is_skipped():
    parsed = markdown.parse((BAD / "bom.md").read_text(encoding="utf-8"))
    assert parsed.frontmatter["name"] == "bom" and parsed.frontmatter_lines == (1, 5)


def test_dashes_in_body_are_not_frontmatter():
    parsed = markdown.parse((BAD / "dashes-in-body.md").read_text(encoding="utf-8"))
    assert set(parsed.frontmatter) == {"name", "description", "type"}
    assert "name: not-a-field" in parsed.body


def test_only_frontmatter_without_newline():
    parsed = markdown.parse((BAD / "only-frontmatter.md").read_text(encoding="utf-8"))
    assert parsed.frontmatter["name"] == "only-frontmatter" and parsed.body == "" and parsed.line_count == 5


def test_deeply_nested_list_links_are_all_found():
    parsed = markdown.parse((BAD / "nested-lists.md").read_text(encoding="utf-8"))
    assert len(parsed.links) == 150
    assert [l.line for l in parsed.links] == list(range(6, 156))


@pytest.mark.parametrize(
    "yaml_text, message",
    [
        ("a: &a [*a]", "nests deeper than"),  # an alias that contains itself
        ("a: " + "[" * 40 + "]" * 40, "nests deeper than"),  # deep, but not enough to hurt libyaml
        ("a: " + "[" * 2000 + "]" * 2000, "nests too deep"),  # refused before libyaml
        ("a: 1\nb:\n  c: 1\n  c: 2", "duplicate key 'c'"),
    ],
)
def test_hostile_yaml_is_an_error_not_a_crash(yaml_text, message):
    data, error = load_yaml(yaml_text, 2)
    assert data is None and message in error.message


def test_merge_keys_may_override_without_being_duplicates():
    data, error = load_yaml("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  x: 3", 2)
    assert error is None and data["d"] == {"x": 3, "y": 2}


@pytest.mark.parametrize(
    "deep",
    ["[" * 30000 + "]" * 30000, "\n  " + "- " * 30000 + "x", "{a: " * 12000 + "1" + "}" * 12000],
    ids=["flow lists", "block lists", "flow maps"],
)
def test_yaml_nested_30000_deep_does_not_kill_the_process(tmp_path, deep):
    # Under the 64 KB frontmatter cap; libyaml alone segfaults on each (in a
    # subprocess, so that a regression cannot take the test run down with it).
    store = write(tmp_path / "s", {"MEMORY.md": "- [d](d.md)\n", "d.md": f"---\nname: d\nx: {deep}\n---\n"})
    run = memlint("check", "--format", "json", "--select", "MEM002", store)
    assert run.triples() == {("d.md", 2, "MEM002")}


# ---------------------------------------------------------------- huge files

# Not a measure of speed (tests/perf/bench.py is): a bound on a hang. Each
# case below once took minutes; they take 1 to 8 s on a slow day.
HANG = 60


def test_50_mb_file_is_reported_in_bounded_time_and_memory(tmp_path):
    store = write(tmp_path / "s", {"MEMORY.md": "- [big](big.md)\n"})
    line = b"- [link](MEMORY.md) and some words to make the line longer\n"
    with open(store / "big.md", "wb") as fh:
        fh.write(b"---\nname: big\ndescription: d\ntype: reference\n---\n")
        fh.write(line * (50 * 1024 * 1024 // len(line)))
    run = memlint("check", "--format", "json", store, measure=True)
    assert ("big.md", 1, "MEM006") in run.triples()
    assert "over 8 MB" in run.stdout
    assert run.seconds < HANG
    assert run.max_rss_mb < 300  # reads at most 8 MB + 1 byte of it


def test_the_size_bound_is_exact(tmp_path):
    """8 MB is read; one byte more is reported, whatever the file's size on disk."""
    from memlint.store import MAX_FILE_BYTES, decode, read_bounded

    at, over = tmp_path / "at.md", tmp_path / "over.md"
    at.write_bytes(b"x" * MAX_FILE_BYTES)
    over.write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    text, problem, _ = decode(read_bounded(at))
    assert problem is None and len(text) == MAX_FILE_BYTES
    text, problem, _ = decode(read_bounded(over))
    assert text is None and problem == "file is over 8 MB; memlint does not parse it"


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_a_file_holding_more_than_its_size_says_is_read_whole():
    """A file that grows between its size and its read (an agent appending to
    a daily log during a check) was read to one byte past the size it had,
    which cuts an appended UTF-8 character in two: "not valid UTF-8". A /proc
    file, of size 0 with text in it, shows that every time."""
    from memlint.store import decode, read_bounded

    text, problem, _ = decode(read_bounded("/proc/self/status"))
    assert problem is None and text.startswith("Name:") and "\nPid:" in text


MB = 1024 * 1024
ONE_MB_LINES = {  # each of these made a regex or markdown-it pass take minutes
    "open brackets": "[" * MB,
    "embeds": "![[" * (MB // 3),
    "unclosed comments": "<!--" * (MB // 4),
    "unclosed directives": "<!-- memlint-disable " * (MB // 21),
    "closing brackets": "[" + "<]" * (MB // 2),
    "close-paren brackets": "[" + ")]]" * (MB // 3),
    "backtick runs of every length": "".join("`" * k + "a" for k in range(1, 1448)),
    "links": "[a](b) " * (MB // 7),
    "email autolinks": "<a@b.c>" * (MB // 7),
    "a list item padded with spaces": "- [a](b.md)\n" * 5 + "- " + " " * MB + "x",
    "a paragraph continued by indented links": "password: " + "    - [a](b.md)\n" * (MB // 16),
}


@pytest.mark.parametrize("case", ONE_MB_LINES)
def test_a_1_mb_line_is_linted_in_bounded_time(tmp_path, case):
    body = ONE_MB_LINES[case]
    store = write(tmp_path / "s", {"MEMORY.md": "- [l](line.md)\n", "line.md": MEM.format(name="line") + body + "\n"})
    run = memlint("check", "--format", "json", store, measure=True)
    assert run.code in (0, 1)
    assert run.seconds < HANG, run.seconds
    assert run.max_rss_mb < 500


def test_10000_links_in_one_file(tmp_path):
    links = "".join(f"- [note {i}](n{i % 10}.md) and [[n{i % 10}]]\n" for i in range(10_000))
    files = {"MEMORY.md": "# Index\n" + links}
    files.update({f"n{i}.md": MEM.format(name=f"n{i}") for i in range(10)})
    store = write(tmp_path / "s", files)
    run = memlint("check", "--format", "json", store, measure=True)
    assert ("MEMORY.md", 201, "MEM101") in run.triples()  # the root is over its 200-line cap
    assert run.seconds < HANG and run.max_rss_mb < 500


# ---------------------------------------------------------------- symlinks


@pytest.fixture
def linked_store(tmp_path):
    """A repository whose store holds every kind of bad symlink.

    Both targets outside the repository are FIFOs: opening one blocks forever,
    so a run that finishes proves memlint never opened them.
    """
    outside = tmp_path / "outside"
    outside.mkdir()
    os.mkfifo(outside / "secret.md")
    repo = tmp_path / "repo"
    store = write(repo / "store", {
        "MEMORY.md": "# Index\n- [ok](ok.md)\n",
        "ok.md": MEM.format(name="ok"),
        "links.md": MEM.format(name="links") + textwrap.dedent(f"""\
            - [climbs out](../../outside/secret.md)
            - [absolute]({outside}/secret.md)
            - [file url](file://{outside}/secret.md)
            - [windows](C:\\Users\\me\\secret.md)
            - [unc](\\\\server\\share\\secret.md)
            """),
    })
    (repo / ".git").mkdir()  # the repository boundary, without needing git
    os.mkfifo(repo / "fifo")
    (store / "out.md").symlink_to(outside / "secret.md")
    (store / "out-relative.md").symlink_to(Path("../../outside/secret.md"))
    (store / "loop.md").symlink_to("loop.md")
    (store / "ping.md").symlink_to("pong.md")
    (store / "pong.md").symlink_to("ping.md")
    (store / "dangling.md").symlink_to("nowhere.md")
    (store / "fifo.md").symlink_to(Path("../fifo"))
    (repo / "folder").mkdir()
    (store / "folder.md").symlink_to(repo / "folder")
    (store / "inside.md").symlink_to("ok.md")  # inside the repository: read
    os.mkfifo(store / "plain-fifo.md")  # not a regular file: reported, never opened
    return store


def test_symlinks_are_reported_never_followed(linked_store):
    run = memlint("check", "--format", "json", "--select", "MEM006", linked_store, timeout=30)
    got = {(f["path"], f["message"]) for f in run.json()}
    out = "symbolic link to a file outside the repository: not followed"
    nowhere = "symbolic link that points nowhere (dangling or a loop)"
    not_file = "symbolic link to something that is not a file: not followed"
    assert got == {
        ("store/out.md", out),
        ("store/out-relative.md", out),
        ("store/loop.md", nowhere),
        ("store/ping.md", nowhere),
        ("store/pong.md", nowhere),
        ("store/dangling.md", nowhere),
        ("store/fifo.md", not_file),
        ("store/folder.md", not_file),
        ("store/plain-fifo.md", "not a regular file (a FIFO, socket or device): not read"),
    }
    assert run.code == 1


def test_a_committed_symlink_loop_with_the_cache_on(tmp_path):
    """The cache keys a run by each symlink's target: a loop has none."""
    repo = _repo_with_store(tmp_path)
    (repo / "memory" / "ping.md").symlink_to("pong.md")
    (repo / "memory" / "pong.md").symlink_to("ping.md")
    _commit(repo, "a loop")
    expected = memlint("check", "--format", "json", "--no-cache", repo / "memory")
    assert {("memory/ping.md", 1, "MEM006"), ("memory/pong.md", 1, "MEM006")} <= expected.triples()
    for _ in range(2):  # cold, then warm
        assert memlint("check", "--format", "json", repo / "memory").triples() == expected.triples()
    assert memlint("report", repo / "memory").code in (0, 1)


def test_a_fifo_named_like_a_log_or_a_transcript_is_not_waited_for(tmp_path):
    """health, triage and report read daily logs and transcripts as
    sessions: a FIFO among them is skipped, not opened and waited on."""
    store = write(tmp_path / "s", {"MEMORY.md": "# Memory\n- [a](memory/a.md)\n",
                                   "memory/a.md": MEM.format(name="a"), "memory/2026-04-02.md": "- deployed\n"})
    os.mkfifo(store / "memory" / "2026-04-01.md")
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "one.jsonl").write_text('{"type": "user", "timestamp": "2026-04-03T10:00:00Z", '
                                        '"message": {"content": "about a"}}\n')
    os.mkfifo(sessions / "two.jsonl")
    for command in (["health"], ["triage"], ["report"], ["health", "--sessions", sessions]):
        run = memlint(*command, "--preset", "openclaw", store, timeout=30)  # a wait on the FIFO would time out
        assert run.code in (0, 1), (command, run.stderr)
    (sessions / "three.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")  # a line too deep to read: skipped
    # the readable log is a session, and so is the transcript; the FIFOs are not
    # (counted in the window of a day soon after them)
    soon = ("--today", "2026-04-10")
    assert memlint("health", *soon, "--preset", "openclaw", store).stdout.startswith("1 file, 1 session")
    assert memlint("health", *soon, "--preset", "openclaw", "--sessions", sessions, store).stdout.startswith(
        "1 file, 2 sessions")


def test_symlinks_named_on_the_command_line(linked_store):
    run = memlint("check", "--format", "json", "--select", "MEM006", "out.md", "loop.md", "inside.md", cwd=linked_store, timeout=30)
    assert {f["path"] for f in run.json()} == {"store/out.md", "store/loop.md"}


def test_links_out_of_the_repository_are_never_opened(linked_store):
    from memlint.rules import all_rules

    run = memlint("check", "--format", "json", linked_store, timeout=30)  # a FIFO read would hang
    if "MEM203" in {r.CODE for r in all_rules()}:
        lines = {f["line"] for f in run.json() if f["code"] == "MEM203" and f["path"] == "store/links.md"}
        assert lines == {7, 8, 9, 10, 11}


# ---------------------------------------------------------------- names and paths


def test_odd_file_names_print_one_line_each(tmp_path):
    names = ["new\nline.md", "tab\tand\x1b[31mescape.md", "-dash.md", "sp ace.md", "ünï-メモ.md"]
    store = write(tmp_path / "s", {"MEMORY.md": "# Index\n", **{n: "no frontmatter\n" for n in names}})
    run = memlint("check", "--format", "text", "--select", "MEM001", store)
    lines = run.stdout.splitlines()
    assert len(lines) == len(names)
    assert "new\\nline.md:1:1: MEM001" in run.stdout
    assert "tab\\tand\\x1b[31mescape.md:1:1: MEM001" in run.stdout
    assert "\x1b" not in run.stdout
    as_json = memlint("check", "--format", "json", "--select", "MEM001", store)
    assert {f["path"] for f in as_json.json()} == set(names)


def test_odd_file_names_in_the_other_commands_and_in_written_reports(tmp_path):
    """A newline in a name is escaped wherever a name is printed one per
    line; a name that is not UTF-8 reaches a written report as an escape,
    not a crash."""
    repo = _repo_with_store(tmp_path)
    latin = os.fsdecode(b"lat\xe9n.md")
    write(repo / "memory", {"new\nline.md": MEM.format(name="nl"), latin: MEM.format(name="latin")})
    _commit(repo, "odd names")
    store = repo / "memory"
    for command in (["health"], ["triage"], ["backfill", "--dry-run"], ["graph"]):
        run = memlint(*command, store, cwd=repo)
        assert run.code in (0, 1), (command, run.stderr)
        assert "new\\nline.md" in run.stdout and "new\nline" not in run.stdout, command
    for command, name, shown in ((["check", "--format", "json"], "out.json", "lat\\udce9n.md"),
                                 (["check", "--format", "sarif"], "out.sarif", "lat%EF%BF%BDn.md"),  # U+FFFD: GitHub decodes it
                                 (["report"], "report.md", "lat\\udce9n.md"), (["graph"], "graph.md", "lat\\udce9n.md")):
        run = memlint(*command, "-o", tmp_path / name, store, cwd=repo)
        assert run.code in (0, 1), (command, run.stderr)
        written = (tmp_path / name).read_text(encoding="utf-8")  # UTF-8, whatever the names
        assert shown in written, command
        if name.endswith((".json", ".sarif")):
            json.loads(written)
    assert "lat\\udce9n.md:1:1: MEM201" in memlint("check", "--format", "text", store, cwd=repo).stdout
    for command in (["check"], ["graph"], ["health"], ["triage", "--all"]):  # JSON on stdout: valid UTF-8
        run = memlint(*command, "--format", "json", store, cwd=repo)
        assert "\ufffd" not in run.stdout and "lat\\udce9n.md" in run.stdout, command
        json.loads(run.stdout)


def test_leading_dash_file_name_after_double_dash(tmp_path):
    store = write(tmp_path / "s", {"MEMORY.md": "# Index\n", "-dash.md": "no frontmatter\n", "b.md": "no frontmatter\n"})
    for args in (["--", "-dash.md"], ["./-dash.md"]):
        run = memlint("check", "--format", "json", "--select", "MEM001", *args, cwd=store)
        assert run.triples() == {("-dash.md", 1, "MEM001")}
    as_option = memlint("check", "-dash.md", cwd=store)
    assert as_option.code == 2  # click: no such option, a usage error


@pytest.mark.parametrize("spelling", [".", "./", "{abs}/", "{abs}//", "../s/"])
def test_store_path_spellings_agree(tmp_path, spelling):
    store = write(tmp_path / "s", {"MEMORY.md": "# Index\n- [b](b.md)\n", "b.md": "no frontmatter\n"})
    run = memlint("check", "--format", "json", spelling.format(abs=store), cwd=store)
    assert run.triples() == {("b.md", 1, "MEM001")}


def test_a_path_that_does_not_exist_is_one_line(tmp_path):
    run = memlint("check", tmp_path / "nope")
    assert run.code == 2 and run.stderr == f"memlint: {tmp_path / 'nope'}: no such file or folder\n"


def test_store_folder_that_cannot_be_listed_is_skipped(tmp_path):
    store = write(tmp_path / "s", {"MEMORY.md": "# Index\n", "ok.md": MEM.format(name="ok")})
    (store / "sub.md").mkdir()  # a folder with a markdown name
    (store / "sub.md" / "x.md").write_text("no frontmatter\n")
    run = memlint("check", "--format", "json", "--select", "MEM0", store)
    assert run.triples() == {("sub.md/x.md", 1, "MEM001")}


def _without_permission_override() -> list[str]:
    """A command prefix under which file permissions bind: for root, setpriv
    drops the capabilities that read any folder (none needed otherwise)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a folder without permissions is readable")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def test_a_folder_that_cannot_be_listed_is_named_each_run(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    store = write(repo / "memory", {"MEMORY.md": "# Index\n- [ok](ok.md)\n- [hidden](private/hidden.md)\n"
                                                 "- [[private/hidden]] — again\n",
                                    "ok.md": MEM.format(name="ok").replace("type:", "superseded_by: private/old\ntype:"),
                                    "private/hidden.md": "no frontmatter\n", "private/old.md": MEM.format(name="old")})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "store")
    command = [*_without_permission_override(), sys.executable, "-m", "memlint", "check", "--format", "json",
               "--today", "2026-11-30", str(store)]
    (store / "private").chmod(0)
    try:
        # twice: a second run, with the cache, says it again
        runs = [subprocess.run(command, cwd=repo, env=_env(), capture_output=True, text=True) for _ in range(2)]
        # backfill leaves those files alone: it says so too
        runs.append(subprocess.run([*command[:-6], "backfill", "--dry-run", str(store)], cwd=repo, env=_env(),
                                   capture_output=True, text=True))
    finally:
        (store / "private").chmod(0o755)
    for run in runs:
        assert "Traceback" not in run.stderr, run.stderr
        assert run.returncode == 0, run.stderr  # the files it can read are clean
        assert ("memory/private: cannot list this folder (Permission denied): "
                "the markdown files in it are not checked") in run.stderr
    for run in runs[:2]:
        # hidden.md, unread, is not reported, nor the link to it or the reference into the folder as broken
        assert json.loads(run.stdout) == []
    # readable again: the file in it is checked
    assert "hidden.md" in subprocess.run(command, cwd=repo, env=_env(), capture_output=True, text=True).stdout


def test_links_into_a_folder_that_cannot_be_listed_cached_as_without_the_cache(tmp_path):
    """The folder holds no markdown: listing it or not lists the same files,
    yet a link into it is judged only where it can be listed."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    store = write(repo / "memory", {"MEMORY.md": "# Index\n- [ok](ok.md)\n- [gone](sub/gone.md)\n- [[gone]]\n",
                                    "ok.md": MEM.format(name="ok"), "sub/keep.txt": "not markdown\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "store")
    command = [*_without_permission_override(), sys.executable, "-m", "memlint", "check", "--format", "json",
               "--today", "2026-11-30", str(store)]

    def findings(*extra):
        run = subprocess.run([*command, *extra], cwd=repo, env=_env(), capture_output=True, text=True)
        assert "Traceback" not in run.stderr, run.stderr
        return {(f["line"], f["message"]) for f in json.loads(run.stdout)}

    listed = findings()
    assert listed == findings("--no-cache") == {
        (3, "link target `sub/gone.md` does not exist"), (4, "[[gone]] matches no file, name or title in the store")}
    (store / "sub").chmod(0)
    try:
        unlisted = findings(), findings("--no-cache"), findings()
    finally:
        (store / "sub").chmod(0o755)
    assert unlisted[0] == unlisted[1] == unlisted[2] == {
        (4, "[[gone]] matches no file, name or title in the store (memlint cannot list sub: Permission denied)")}
    assert findings() == listed


# ---------------------------------------------------------------- git states


def _repo_with_store(tmp_path, name="repo") -> Path:
    repo = tmp_path / name
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {
        "memory/MEMORY.md": "# Index\n- [a](a.md)\n- [b](b.md)\n",
        "memory/a.md": MEM.format(name="a"),
        "memory/b.md": "no frontmatter\n",
    })
    return repo


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)


EXPECTED = {("memory/b.md", 1, "MEM001")}


def _check_repo(repo: Path) -> set:
    run = memlint("check", "--format", "json", "--select", "MEM0", repo / "memory")
    assert run.code == 1
    return run.triples()


def test_repository_with_no_commits(tmp_path):
    repo = _repo_with_store(tmp_path)
    assert _check_repo(repo) == EXPECTED


def test_shallow_clone_and_detached_head(tmp_path):
    repo = _repo_with_store(tmp_path)
    _commit(repo, "one")
    (repo / "memory" / "a.md").write_text(MEM.format(name="a2"))
    _commit(repo, "two")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)], check=True)
    assert (shallow / ".git" / "shallow").exists()
    assert _check_repo(shallow) == EXPECTED
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    assert _check_repo(repo) == EXPECTED


def test_merge_in_progress_reports_the_conflict(tmp_path):
    repo = _repo_with_store(tmp_path)
    _commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "memory" / "a.md").write_text(MEM.format(name="a-other"))
    _commit(repo, "other")
    git(repo, "checkout", "-q", "main")
    (repo / "memory" / "a.md").write_text(MEM.format(name="a-main"))
    _commit(repo, "main")
    assert git(repo, "merge", "-q", "other", check=False).returncode != 0
    assert (repo / ".git" / "MERGE_HEAD").exists()
    assert _check_repo(repo) == EXPECTED | {("memory/a.md", 2, "MEM002"), ("memory/a.md", 2, "MEM007")}


def test_file_staged_then_deleted(tmp_path):
    repo = _repo_with_store(tmp_path)
    _commit(repo, "base")
    write(repo, {"memory/c.md": "no frontmatter\n"})
    git(repo, "add", "memory/c.md")
    (repo / "memory" / "c.md").unlink()
    (repo / "memory" / "a.md").unlink()  # committed, deleted, not staged
    assert _check_repo(repo) == EXPECTED


def test_submodule_inside_the_store(tmp_path):
    sub = _repo_with_store(tmp_path, "sub")
    _commit(sub, "sub")
    repo = _repo_with_store(tmp_path)
    _commit(repo, "base")
    git(repo, "submodule", "add", "-q", str(sub), "memory/vendored")
    _commit(repo, "add submodule")
    # The submodule is another repository, so another store: not linted as
    # part of this one (working tree and index agree), but on its own.
    for staged in ([], ["--staged"]):
        run = memlint("check", "--format", "json", "--select", "MEM0,MEM201", *staged, repo / "memory")
        assert ("memory/b.md", 1, "MEM001") in run.triples()
        assert not [t for t in run.triples() if t[0].startswith("memory/vendored/")]
        assert run.code == 1
    run = memlint("check", "--format", "json", "--select", "MEM0", repo / "memory" / "vendored" / "memory")
    assert run.triples() == {("memory/b.md", 1, "MEM001")}


def test_a_repository_and_its_submodule_linted_together_are_named_from_the_outer_one(tmp_path):
    """From anywhere in the outer repository, its files by their path there
    and the submodule's below its folder: what GitHub's annotations and
    code scanning match, never `../memory/...`."""
    sub = _repo_with_store(tmp_path, "sub")
    _commit(sub, "sub")
    repo = _repo_with_store(tmp_path)
    _commit(repo, "base")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    _commit(repo, "add submodule")
    for cwd, args in ((repo / "memory", [".", "../vendor/sub/memory"]), (repo / "vendor", ["..", "sub/memory"])):
        run = memlint("check", "--format", "json", "--select", "MEM001", *args, cwd=cwd)
        assert run.triples() == {("memory/b.md", 1, "MEM001"), ("vendor/sub/memory/b.md", 1, "MEM001")}, cwd


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to give the repository away")
def test_a_repository_git_refuses_as_another_users_says_why(tmp_path):
    repo = _repo_with_store(tmp_path)
    _commit(repo, "base")
    for folder, _, names in os.walk(repo):
        for name in [folder, *(os.path.join(folder, n) for n in names)]:
            os.lchown(name, 65534, 65534)
    run = memlint("check", "--select", "MEM404", repo / "memory")  # a rule that reads git
    assert "dubious ownership" in run.stderr and "safe.directory" in run.stderr and "not in a git repository" not in run.stderr


def test_stores_of_two_repositories_in_one_run(tmp_path):
    """Each store's files are named as in a run of it alone (a store in
    another repository, run from outside it, by its path in that
    repository); linted together, the other repository's files by their
    path from the current folder, the current one's without a prefix."""
    here, other = _repo_with_store(tmp_path, "here"), _repo_with_store(tmp_path, "other")
    _commit(here, "here")
    _commit(other, "other")
    alone = memlint("check", "--format", "json", "--select", "MEM001", tmp_path / "other" / "memory", cwd=here)
    assert alone.triples() == {("memory/b.md", 1, "MEM001")}
    both = memlint("check", "--format", "json", "--select", "MEM001", "memory", tmp_path / "other" / "memory", cwd=here)
    assert both.triples() == {("memory/b.md", 1, "MEM001"), ("../other/memory/b.md", 1, "MEM001")}


# ---------------------------------------------------------------- real and big stores


def test_every_corpus_store_lints_without_an_internal_error(corpora):
    from tests.conftest import CORPORA

    for name, repo in corpora.items():
        run = memlint("check", "--format", "json", repo / CORPORA[name][1], timeout=120)
        assert run.code in (0, 1), name
        assert not [f for f in run.json() if f["code"] == "MEM000"], name


def test_synthetic_10k_store(tmp_path):
    store = tmp_path / "big"
    topics = store / "topics"
    topics.mkdir(parents=True)
    entries = []
    for t in range(100):
        lines = [f"# Topic {t}"]
        for i in range(100):
            n = t * 100 + i
            (store / f"m{n:05d}.md").write_text(
                f"---\nname: m{n}\ndescription: memory {n}\ntype: project\n---\n"
                f"Fact {n}. See [[m{(n + 1) % 10000:05d}]] and [next](m{(n + 7) % 10000:05d}.md).\n"
            )
            lines.append(f"- [Memory {n}](../m{n:05d}.md) — fact {n}")
        (topics / f"t{t:03d}.md").write_text("\n".join(lines) + "\n")
        entries.append(f"- [Topic {t}](topics/t{t:03d}.md)")
    (store / "MEMORY.md").write_text("# Index\n" + "\n".join(entries) + "\n")
    run = memlint("check", "--format", "json", store, timeout=300, measure=True)
    assert run.code in (0, 1)
    assert not [f for f in run.json() if f["code"] == "MEM000"]
    assert run.seconds < 120


# ---------------------------------------------------------------- hostile config


@pytest.mark.parametrize(
    "name, text, message",
    [
        (".memlint.yaml", "exclude: " + "[" * 3000 + "]" * 3000, ".memlint.yaml:1:1: config nests too deep"),
        (".memlint.yaml", (BAD / "yaml-alias-bomb.md").read_text().split("---")[1].lstrip("\n"),
         ".memlint.yaml:1:1: config expands to more than 10,000 values"),
        (".memlint.yaml", "rules:\n  MEM102: off\nrules:\n  MEM101: off\n", ".memlint.yaml:3:1: invalid YAML: duplicate key 'rules'"),
        (".memlint.yaml", b"exclude: ['caf\xe9']\n", ".memlint.yaml:1: not valid UTF-8 (byte 0xe9)"),
        (".memlint.yaml", b"rules:\n  MEM001: off\n# caf\xe9\n", ".memlint.yaml:3: not valid UTF-8 (byte 0xe9)"),
        (".memlint.yaml", "preset: moc\n".encode("utf-16"), ".memlint.yaml:1: the file is UTF-16 encoded"),
        ("pyproject.toml", b"[tool.memlint]\npreset = 'caf\xe9'\n", "pyproject.toml:2: not valid UTF-8 (byte 0xe9)"),
        (".memlint.yaml", 'schema: "a\\0b.json"\n', ".memlint.yaml:1: schema 'a\\x00b.json': no such file (a file name cannot hold a NUL byte)"),
        ("pyproject.toml", "[tool.memlint]\nexclude = " + "[" * 3000 + "]" * 3000 + "\n", "pyproject.toml: cannot read TOML: nested too deep"),
    ],
)
def test_hostile_config_is_a_one_line_error(tmp_path, name, text, message):
    store = write(tmp_path / "s", {"MEMORY.md": "# Index\n", name: text})
    run = memlint("check", store)
    assert run.code == 2 and message in run.stderr


def test_a_file_system_that_reads_short_still_gives_the_whole_file(tmp_path, monkeypatch):
    """A network file system may return less than asked before the end: the
    read goes on (a file cut short would be judged on part of its text)."""
    from memlint.store import MAX_FILE_BYTES, decode, read_bounded

    whole, big = tmp_path / "whole.md", tmp_path / "big.md"
    whole.write_bytes("é".encode() * 5000)
    big.write_bytes(b"x" * (MAX_FILE_BYTES + 10))
    real = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: real(fd, min(n, 7 if n < 100_000 else 70_001)))
    text, problem, _ = decode(read_bounded(whole))
    assert problem is None and text == "é" * 5000
    assert decode(read_bounded(big))[1] == "file is over 8 MB; memlint does not parse it"


# ---------------------------------------------------------------- found by a hunt: loops, schemas, FIFOs


def test_a_report_into_a_symbolic_link_loop_is_refused_with_the_path(tmp_path):
    store = write(tmp_path / "s", {"MEMORY.md": "# Memory\n- [a](a.md)\n", "a.md": MEM.format(name="a")})
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    for command in (["check"], ["graph"], ["report"]):
        run = memlint(*command, "-o", tmp_path / "loop1", store)
        assert run.code == 2 and "loop1: a symbolic link loop" in run.stderr, (command, run.stderr)
    assert not (tmp_path / "s" / ".memlint.yaml").exists() and os.path.islink(tmp_path / "loop1")


def _schema_store(tmp_path: Path, schema: str, files: dict[str, str]) -> Path:
    return write(tmp_path / "s", {"MEMORY.md": "# Memory\n- [a](a.md)\n", "a.md": MEM.format(name="a"),
                                  ".memlint.yaml": f"schema: {schema}\n", **files})


@pytest.mark.parametrize("schema, files, error", [
    ("rec.json", {"rec.json": '{"$ref": "#"}'}, "rec.json: cannot be applied: its `$ref`s loop without end"),
    ("none.json", {"none.json": '{"$ref": "nothere.json"}'}, "`$ref` 'nothere.json' names nothing that can be read"),
    ("remote.json", {"remote.json": '{"$ref": "https://example.com/s.json"}'}, "names nothing that can be read"),
    ("deep.json", {"deep.json": "[" * 100_000 + "]" * 100_000}, "deep.json: cannot load: nested too deeply"),
], ids=["refers to itself", "refers to no file", "refers to the network", "nested too deeply"])
def test_a_schema_that_cannot_be_applied_is_a_config_error(tmp_path, schema, files, error):
    run = memlint("check", "--no-cache", _schema_store(tmp_path, schema, files))
    assert run.code == 2 and error in run.stderr, run.stderr


def test_a_schema_through_a_symbolic_link_loop_is_a_config_error(tmp_path):
    store = _schema_store(tmp_path, "s1.json", {})
    os.symlink("s2.json", store / "s1.json")
    os.symlink("s1.json", store / "s2.json")
    run = memlint("check", store)
    assert run.code == 2 and ".memlint.yaml:1: schema 's1.json': a symbolic link loop" in run.stderr, run.stderr


def test_a_schema_split_into_files_reads_the_one_beside_it(tmp_path):
    """`$ref: other.json` is the file beside the schema, as JSON Schema
    tools resolve it from the schema's own location."""
    store = _schema_store(tmp_path, "schemas/main.json", {
        "schemas/main.json": '{"allOf": [{"$ref": "parts/owner.json"}]}',
        "schemas/parts/owner.json": '{"type": "object", "required": ["owner"], "properties": {"owner": {"type": "string"}}}',
    })
    run = memlint("check", "--format", "json", store)
    assert [(f["path"], f["code"], f["message"]) for f in run.json() if f["code"] == "MEM003"] == [
        ("a.md", "MEM003", "required field `owner` is missing")]


@pytest.mark.parametrize("fmt, value, hint", [("email", "not-an-address", ""), ("date", "someday", " (use YYYY-MM-DD)")])
def test_a_format_error_hints_at_dates_only_for_a_date(tmp_path, fmt, value, hint):
    schema = '{"type": "object", "properties": {"contact": {"type": "string", "format": "%s"}}}' % fmt
    store = _schema_store(tmp_path, "s.json", {"s.json": schema,
                                               "a.md": MEM.format(name="a").replace("---\nBody", f"contact: {value}\n---\nBody")})
    messages = [f["message"] for f in memlint("check", "--format", "json", store).json() if f["code"] == "MEM003"]
    assert messages == [f"`contact: {value}` is not a valid {fmt}{hint}"]


@pytest.mark.parametrize("name", ["triage-state.json", "triage-log.jsonl"])
def test_a_fifo_in_place_of_triage_state_is_not_waited_on(tmp_path, name):
    store = write(tmp_path / "s", {"MEMORY.md": "# Memory\n- [a](a.md)\n", "a.md": MEM.format(name="a")})
    git(tmp_path / "s", "init", "-q")
    git(tmp_path / "s", "add", "-A")
    git(tmp_path / "s", "commit", "-qm", "start")
    assert memlint("triage", store).code == 0  # makes the state folder
    [state] = (tmp_path / "s" / ".git" / "memlint").glob(f"*/{name}")
    state.unlink()
    os.mkfifo(state)
    run = memlint("triage", store, timeout=30)  # a wait on the FIFO would time out
    assert run.code == 0 and "1 file scored" in run.stdout


@pytest.mark.parametrize("folder", [os.fsdecode(b"Donn\xe9es"), "notes\u2028old", "form\x0cfeed"],
                         ids=["latin-1 name", "U+2028", "form feed"])
def test_a_repository_folder_named_oddly_is_linted_with_its_cache_and_its_git_rules(tmp_path, folder):
    """A folder name in another encoding (Latin-1 bytes, not UTF-8) once made
    the cache's key fail, and one holding a character Python splits lines
    on (U+2028, a form feed) cut git's answer in two: internal errors."""
    repo = _repo_with_store(tmp_path, folder)
    _commit(repo, "base")
    for _ in range(2):  # the second run reads the cache the first wrote
        run = memlint("check", "--format", "json", repo / "memory")
        assert run.code == 1 and "MEM000" not in run.stdout and "internal error" not in run.stderr, run.stderr
        assert {(p, line, code) for p, line, code in run.triples() if code.startswith("MEM0")} == EXPECTED
    assert (repo / ".git" / "memlint").is_dir()


def test_init_in_a_folder_named_in_another_encoding_writes_a_configuration_that_reads(tmp_path):
    """YAML is UTF-8: a root path that is not cannot be written in it, and is
    left out (the root is found without it), not written as a broken string."""
    top = tmp_path / "repo"
    folder = os.fsdecode(b"Donn\xe9es")
    write(top, {f"{folder}/MEMORY.md": "# Index\n- [a](a.md)\n", f"{folder}/a.md": MEM.format(name="a")})
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    init = memlint("init", cwd=top)
    assert init.code == 0, init.stderr
    text = (top / ".memlint.yaml").read_text("utf-8")
    assert "# root: left out: the path" in text and "\nroot:" not in text
    run = memlint("check", "--format", "json", cwd=top)
    assert run.code == 0 and "invalid YAML" not in run.stderr, run.stderr


def test_a_relative_xdg_cache_home_is_ignored_so_check_writes_nothing_into_the_store(tmp_path):
    """Outside git the cache goes to the user cache folder; a relative
    XDG_CACHE_HOME is to be ignored (the XDG spec), not made a folder in the
    store (``check`` never writes a file there)."""
    store = write(tmp_path / "store", {"MEMORY.md": "# Index\n- [a](a.md)\n", "a.md": MEM.format(name="a")})
    home = tmp_path / "home"
    home.mkdir()
    env = {**_env(), "XDG_CACHE_HOME": ".cache", "HOME": str(home)}
    before = sorted(p.relative_to(store) for p in store.rglob("*"))
    result = subprocess.run([sys.executable, "-m", "memlint", "check", "."], cwd=store, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert sorted(p.relative_to(store) for p in store.rglob("*")) == before
    assert list((home / ".cache" / "memlint").iterdir())  # the cache went to ~/.cache


def test_a_home_folder_that_does_not_exist_is_not_made_for_the_cache(tmp_path):
    """HOME=/nonexistent is how a service account says it has no home:
    outside git, the check runs without a cache rather than make one; an
    empty HOME, which Python reads as no path at all, puts none in the store."""
    store = write(tmp_path / "store", {"MEMORY.md": "# Index\n- [a](a.md)\n", "a.md": MEM.format(name="a")})
    for extra in ({"HOME": str(tmp_path / "no-home")}, {"HOME": ""}):
        env = {**{k: v for k, v in _env().items() if k != "XDG_CACHE_HOME"}, **extra}
        result = subprocess.run([sys.executable, "-m", "memlint", "check", "--format", "json", "."], cwd=store,
                                env=env, capture_output=True, text=True)
        assert result.returncode == 0 and json.loads(result.stdout) == [], result.stderr
        assert "Traceback" not in result.stderr
        assert not (tmp_path / "no-home").exists(), extra
        assert sorted(p.name for p in store.iterdir()) == ["MEMORY.md", "a.md"], extra


def test_a_transcript_cut_inside_an_emoji_is_indexed_not_an_internal_error(tmp_path):
    """A JSON line holding half of a surrogate pair (`\\ud83d`, text cut inside
    an emoji) reads as a lone surrogate, which SQLite refuses."""
    repo = _repo_with_store(tmp_path)
    _commit(repo, "base")
    sessions = write(tmp_path / "sessions", {
        "s1.jsonl": '{"type":"user","message":{"content":"ripgrep \\ud83d rocks"},"timestamp":"2026-02-28T10:00:00Z"}\n'})
    run = memlint("health", repo / "memory", "--sessions", sessions, "--today", "2026-03-01")
    assert run.code in (0, 1) and "internal error" not in run.stderr, run.stderr

"""MEM101-MEM104: root load cap, index line length, topic and memory size."""
from __future__ import annotations

import pytest

from memlint.rules.root_budget import first_hidden_line

MEM = "---\nname: {n}\ndescription: memory {n}\ntype: project\n---\nBody of {n}.\n"


def entries(n, start=1, hook="hook"):
    return "".join(f"- [M{i}](m{i}.md) — {hook}\n" for i in range(start, start + n))


def memories(n):
    return {f"m{i}.md": MEM.format(n=i) for i in range(1, n + 1)}


def codes(found, code):
    return [(p, line) for p, line, c in found if c == code]


def test_first_hidden_line_lines_then_bytes():
    text = "".join(f"line {i}\n" for i in range(1, 301))
    assert first_hidden_line(text, 200, 25000, None) == 201
    assert first_hidden_line(text, None, None, None) == 0
    # byte cap binds first: cut at the last newline under the cap
    long = "".join("x" * 99 + "\n" for _ in range(100))  # 100 lines of 100 bytes
    assert first_hidden_line(long, 200, 2550, None) == 26
    assert first_hidden_line(long, 200, 2500, None) == 26
    assert first_hidden_line(long, 200, 2499, None) == 26  # line 25's text ends at byte 2,499; its newline may pass
    assert first_hidden_line(long, 200, 2498, None) == 25


def test_first_hidden_line_counts_utf8_bytes_not_characters():
    text = "é" * 10 + "\n" + "b\n"  # 21 bytes + 2
    assert first_hidden_line(text, None, 21, None) == 2
    assert first_hidden_line(text, None, 20, None) == 2  # line 1's text is 20 bytes: the newline after it may pass
    assert first_hidden_line(text, None, 19, None) == 1
    assert first_hidden_line(text, None, None, 21) == 0


def test_a_root_exactly_at_the_cap_with_no_final_newline_loads_whole(make_store, findings, cli):
    root = "# Memory\n" + entries(3)
    filler = 25000 - len(root.encode())
    root += "y" * filler  # the last line, no newline after it: 25,000 bytes in all
    assert first_hidden_line(root, 200, 25000, None) == 0
    assert first_hidden_line(root, 200, 24999, None) == 5
    assert first_hidden_line(root + "\n", 200, 25000, None) == 0  # its newline is byte 25,001: its text all loads
    assert first_hidden_line(root + "\nmore\n", 200, 25000, None) == 6
    store = make_store({"MEMORY.md": root, **memories(3)})
    assert codes(findings(store), "MEM101") == []
    store = make_store({"MEMORY.md": root + "y", **memories(3)})
    assert codes(findings(store), "MEM101") == [("MEMORY.md", 5)]
    [text] = [f["message"] for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM101"]
    assert "line 5 is never loaded" in text  # one line: not "lines 5-5"


def test_a_byte_order_mark_counts_toward_the_byte_cap(make_store, findings, cli):
    root = "# Memory\n" + entries(3)
    root += "y" * (24998 - len(root.encode()))  # 24,998 bytes: with a BOM, 25,001
    assert codes(findings(make_store({"MEMORY.md": root, **memories(3)})), "MEM101") == []
    store = make_store({"MEMORY.md": "\ufeff" + root, **memories(3)}, sub="bom")
    assert codes(findings(store), "MEM101") == [("MEMORY.md", 5)]
    [f] = [f for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM101"]
    assert "25,001 bytes" in f["message"]


def test_a_line_whose_text_ends_at_the_byte_cap_loads(make_store, findings, cli):
    # Claude Code cuts at the last newline at or before the cap (lastIndexOf("\n", 25000)): a line whose
    # text ends on byte 25,000 loads whole, its newline (byte 25,001) with it; the next line is the first lost
    root = "# Memory\n" + entries(3)
    root += "y" * (25000 - len(root.encode())) + "\n- [M1](m1.md) — again\n"
    store = make_store({"MEMORY.md": root, **memories(3)})
    assert codes(findings(store), "MEM101") == [("MEMORY.md", 6)]
    [text] = [f["message"] for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM101"]
    assert "line 6 is never loaded" in text
    # the same root with a multibyte character across byte 25,000: line 5 is cut into, so lost
    root = "# Memory\n" + entries(3)
    root += "y" * (24999 - len(root.encode())) + "é\n- [M1](m1.md) — again\n"
    assert codes(findings(make_store({"MEMORY.md": root, **memories(3)}, sub="straddle")), "MEM101") == [("MEMORY.md", 5)]


def test_blank_lines_past_the_cap_lose_nothing_and_are_not_reported(make_store, findings):
    root = "# Index\n" + entries(199)
    assert codes(findings(make_store({"MEMORY.md": root + "\n\n  \n", **memories(199)})), "MEM101") == []
    store = make_store({"MEMORY.md": root + "\n\n- [M1](m1.md) — again\n", **memories(199)}, sub="more")
    assert codes(findings(store), "MEM101") == [("MEMORY.md", 201)]


def test_mem101_fires_on_first_invisible_line_and_counts_entries(make_store, cli):
    root = "# Index\n" + entries(210)
    store = make_store({"MEMORY.md": root, **memories(210)})
    result = cli("check", "--format", "json", "--select", "MEM101", store)
    [f] = result.json()
    assert (f["path"], f["line"]) == ("MEMORY.md", 201)
    assert "hiding 11 index entries" in f["message"] and "200 lines" in f["message"]
    assert result.exit_code == 1


def test_mem101_names_the_files_the_agent_reaches_only_through_the_lines_cut_off(make_store, cli):
    """Past the cut: m199-m205 and a topic listing m300. m200 is listed by a
    topic the root links above the cut too: only the others are lost."""
    root = ("# Index\n- [T](topics/t.md) — topic\n" + entries(198)  # 200 lines
            + entries(7, start=199) + "- [U](topics/u.md) — another topic\n")
    files = {"MEMORY.md": root, **memories(205), "m300.md": MEM.format(n=300),
             "topics/t.md": "# T\n- [M200](../m200.md) — again\n", "topics/u.md": "# U\n- [M300](../m300.md) — x\n"}
    [f] = cli("check", "--format", "json", "--select", "MEM101", "--preset", "claude-code", make_store(files)).json()
    assert f["line"] == 201
    assert f["message"].endswith("hiding 8 index entries; 8 files are reached only through those lines, so the agent "
                                 "never reads them: m199.md, m201.md, m202.md, m203.md, m204.md and 3 more")
    # every file linked past the cut is linked above it too: nothing more to say
    files["topics/t.md"] = "# T\n" + "".join(f"- [M{i}](../m{i}.md) — again\n" for i in range(199, 206)) + "- [U](u.md) — u\n"
    [f] = cli("check", "--format", "json", "--select", "MEM101", "--preset", "claude-code",
              make_store(files, sub="covered")).json()
    assert f["message"].endswith("hiding 8 index entries")


def test_mem101_counts_entries_whose_reference_definitions_are_cut_off(make_store, cli):
    """`- [Alpha][a]` loads, `[a]: m1.md` at the bottom does not: the agent
    sees the words without the file."""
    root = "# Index\n- [Alpha notes][a] — alpha\n- [Beta](m2.md) — beta\n" + entries(200, start=3) + "\n[a]: m1.md\n"
    store = make_store({"MEMORY.md": root, **memories(202)})
    [f] = cli("check", "--format", "json", "--select", "MEM101", store).json()
    assert f["message"].endswith("hiding 3 index entries; 4 files are reached only through what the cut drops, so the "
                                 "agent never reads them: m1.md, m200.md, m201.md, m202.md; 1 entry above the cut links "
                                 "through a reference definition below it (`[x]: file.md`), so it loses its target too")
    # a prose line past the cut is no entry, but the file only it links is lost all the same
    prose = make_store({"MEMORY.md": "# Index\n" + entries(199) + "Also read [the notes](notes.md) first.\n",
                        **memories(199), "notes.md": MEM.format(n="notes")}, sub="prose")
    [f] = cli("check", "--format", "json", "--select", "MEM101", "--preset", "claude-code", prose).json()
    assert f["message"].endswith("line 201 is never loaded, hiding 0 index entries; 1 file is reached only through "
                                 "that line, so the agent never reads it: notes.md")
    under = make_store({"MEMORY.md": "# Index\n- [Alpha notes][a] — alpha\n" + entries(20, start=2) + "\n[a]: m1.md\n",
                        **memories(21)}, sub="under")
    assert cli("check", "--format", "json", "--select", "MEM101", under).json() == []
    # OpenClaw keeps the end of the file, where the definitions usually are: nothing loses its target
    claw = make_store({"MEMORY.md": "# Index\n- [Alpha notes][a] — alpha\n" + entries(200, start=2, hook="h" * 60)
                       + "\n[a]: m1.md\n", **memories(201)}, sub="claw")
    [f] = cli("check", "--format", "json", "--select", "MEM101", "--preset", "openclaw", claw).json()
    assert "reference definition" not in f["message"]


def test_mem101_does_not_count_a_retired_memory_past_the_cut_lost_as_the_dashboard_does_not(make_store, cli):
    """A superseded or archived memory the agent cannot reach is no loss (MEM205
    tells to drop its entry): MEM101 named it among the files the agent never
    reads, while `memlint report` left it out of its past-cap count."""
    root = "# Index\n" + entries(199) + "- [Old](old.md) — old\n- [M200](m200.md) — new\n- [Arch](topics/a.md) — a\n"
    def retired(n, status):
        return MEM.format(n=n).replace("type: project\n", f"type: project\nstatus: {status}\n")

    store = make_store({"MEMORY.md": root, **memories(200), "old.md": retired("old", "superseded"),
                        "topics/a.md": "---\nstatus: archived\n---\n# A\n- [Gone](../gone.md) — gone\n",
                        "gone.md": retired("gone", "archived")})
    [f] = cli("check", "--format", "json", "--select", "MEM101", "--preset", "claude-code", store).json()
    assert f["message"].endswith("hiding 3 index entries; 1 file is reached only through those lines, so the agent "
                                 "never reads it: m200.md")
    assert "1 memory reached only through those lines" in cli("report", "--preset", "claude-code", store).output


def test_mem101_still_names_live_memories_behind_a_retired_topic_past_the_cut(make_store, cli):
    """The retired topic is no loss, but the live memories only it lists are:
    named, and counted as named."""
    root = "# Index\n" + entries(199) + "- [Arch](topics/a.md) — a\n"
    store = make_store({"MEMORY.md": root, **memories(199),
                        "topics/a.md": "---\nstatus: archived\n---\n# A\n- [L1](../l1.md) — l\n- [L2](../l2.md) — l\n",
                        "l1.md": MEM.format(n="l1"), "l2.md": MEM.format(n="l2")})
    [f] = cli("check", "--format", "json", "--select", "MEM101", "--preset", "claude-code", store).json()
    assert f["message"].endswith("hiding 1 index entry; 2 files are reached only through that line, so the agent "
                                 "never reads them: l1.md, l2.md")


def test_mem101_byte_cap_binds_with_long_lines(make_store, cli):
    root = "# Index\n" + entries(60, hook="h" * 480)  # ~500 bytes each
    store = make_store({"MEMORY.md": root, **memories(60)})
    [f] = cli("check", "--format", "json", "--select", "MEM101", store).json()
    assert "25,000 bytes" in f["message"] and "lines" not in f["message"].split("(")[1].split(")")[0].replace("bytes", "")
    assert 40 < f["line"] < 60


def test_mem101_quiet_under_cap(make_store, findings):
    store = make_store({"MEMORY.md": "# Index\n" + entries(199), **memories(199)})
    assert codes(findings(store, "--select", "MEM101"), "MEM101") == []


def test_mem101_openclaw_character_cap(make_store, findings):
    root = "# MEMORY\n" + "".join(f"- fact {i}: " + "y" * 100 + "\n" for i in range(130))
    store = make_store({"MEMORY.md": root, "memory/2026-01-01.md": "# log\n"})
    assert codes(findings(store, "--select", "MEM101"), "MEM101") != []
    assert codes(findings(store, "--select", "MEM101", "--preset", "claude-code"), "MEM101") == []


def test_mem101_openclaw_counts_characters_as_javascript_does(make_store, cli):
    """OpenClaw compares JavaScript's length, in UTF-16 units: an emoji is two.
    7,097 code points, of which 7,000 emoji, are 14,097 of its characters;
    14,096 once the last newline is trimmed, as OpenClaw trims the file."""
    root = "# Memory\n" + ("Mood: " + "😀" * 1000 + "\n") * 7 + "- [Fix](memory/2026-01-01.md) — newest\n"
    assert len(root) == 7097 and len(root.encode("utf-16-le")) // 2 == 14097
    store = make_store({"MEMORY.md": root, "memory/2026-01-01.md": "# log\n"})
    [f] = cli("check", "--format", "json", "--select", "MEM101", "--preset", "openclaw", store).json()
    assert "14,096 characters" in f["message"] and "12,000 characters" in f["message"]
    # OpenClaw keeps the first 8,400 and the last 2,400 of them: lines 6-7 go, the newest entry at the end stays
    assert f["line"] == 6 and "lines 6-7 are never loaded, hiding 0 index entries" in f["message"]


def test_mem101_openclaw_drops_the_middle_and_keeps_the_end(make_store, cli):
    """Over 12,000 characters OpenClaw keeps the first 70 % of the cap and
    the last 20 %: the entries in between are the ones lost."""
    root = "# Memory\n" + "".join(f"- [E{i:03}](e{i:03}.md) — " + "x" * 80 + "\n" for i in range(200))
    store = make_store({"MEMORY.md": root, **{f"e{i:03}.md": "# e\n" for i in range(200)}})
    [f] = cli("check", "--format", "json", "--select", "MEM101", "--preset", "openclaw", store).json()
    lines = root.split("\n")
    kept_head = len("\n".join(lines[:f["line"] - 1]))
    assert kept_head <= 8400 < kept_head + len(lines[f["line"] - 1]) + 1  # the first line cut into
    message = f["message"]
    import re

    first, last = (int(n.replace(",", "")) for n in re.search(r"lines ([\d,]+)-([\d,]+) are never", message).groups())
    assert first == f["line"] and last < len(lines) - 1  # the last lines load
    tail = "\n".join(lines[last:]).rstrip()
    assert 2400 - 100 < len(tail) <= 2400  # what follows the dropped lines is about the kept 20 %
    assert f"hiding {last - first + 1} index entries" in message


def test_mem101_does_not_call_daily_logs_listed_past_the_cut_unread(make_store, cli):
    """OpenClaw reads daily logs by their date (and search finds them), not
    through the root: a log listed only on a dropped line is no file lost,
    as a memory listed only there is."""
    import re

    mems = [f"- [M{i}](m{i}.md) — a fact " + "x" * 60 + "\n" for i in range(140)]
    logs = [f"- [{d}](memory/2026-06-{d:02}.md) — the day's log " + "x" * 60 + "\n" for d in range(1, 11)]
    root = "# Memory\n" + "".join(mems[:100] + logs + mems[100:])  # the logs on lines 102-111
    files = {"MEMORY.md": root, **{f"memory/2026-06-{d:02}.md": f"- {d}: worked\n" for d in range(1, 11)},
             **{f"m{i}.md": "# m\n" for i in range(140)}}
    [f] = cli("check", "--format", "json", "--select", "MEM101", "--preset", "openclaw", make_store(files)).json()
    first, last = (int(n) for n in re.search(r"lines (\d+)-(\d+) are never loaded", f["message"]).groups())
    log_lines = range(102, 112)
    assert first < log_lines[0] and log_lines[-1] < last  # every log entry is dropped, and memories' around them
    memories_lost = [f"m{line - 2 if line < 102 else line - 12}.md" for line in range(first, last + 1)
                     if line not in log_lines]
    assert f"hiding {last - first + 1} index entries; {len(memories_lost)} files are reached only through those lines, " \
           f"so the agent never reads them: {', '.join(memories_lost[:5])} and {len(memories_lost) - 5} more" in f["message"]


def test_mem101_counts_entries_nested_deep_and_in_blockquotes(make_store, cli):
    root = ("# Index\n" + entries(199) + "1. Topic\n   1. Sub\n      1. Subsub\n         - [A](m1.md)\n"
            "         - [B](m2.md)\n> - [Q](m3.md)\n")
    store = make_store({"MEMORY.md": root, **memories(199)})
    [f] = cli("check", "--format", "json", "--select", "MEM101", store).json()
    assert f["line"] == 201 and "hiding 3 index entries" in f["message"]


def test_blank_lines_at_the_end_do_not_count_toward_the_topic_and_memory_caps(make_store, findings):
    body = "".join(f"Line {i}.\n" for i in range(295))  # 300 lines with the frontmatter's 5
    topic = "# Topic\n" + "".join(f"Note {i}.\n" for i in range(99))  # 100 lines
    store = make_store({"MEMORY.md": "# Index\n- [T](t.md) — t\n- [M](m.md) — m\n",
                        "m.md": "---\nname: m\ndescription: d\ntype: user\n---\n" + body + "\n\n  \n",
                        "t.md": topic + "\n\n", ".memlint.yaml": "topics: [t.md]\n"})
    found = findings(store, "--preset", "moc")
    assert codes(found, "MEM103") == codes(found, "MEM104") == []
    more = make_store({"MEMORY.md": "# Index\n- [M](m.md) — m\n",
                       "m.md": "---\nname: m\ndescription: d\ntype: user\n---\n" + body + "One more.\n\n"}, sub="more")
    assert codes(findings(more), "MEM104") == [("m.md", 301)]


def test_a_thin_roots_line_budget_is_no_load_cap(make_store, cli):
    """moc keeps the root under 40 lines, a budget below the harness's
    200-line cut: over it, the root still loads whole, and the finding says
    so; past the cut, lines are lost as anywhere. Blank lines past the budget
    cost nothing; other presets have no budget unless one is set."""
    def mem101(root, *args, **files):
        store = make_store({"MEMORY.md": root, **memories(210), **files}, sub=str(len(root)) + "".join(args))
        return [(f["line"], f["message"]) for f in
                cli("check", "--format", "json", "--select", "MEM101", *args, store).json()]

    thin = "# Index\n" + entries(41)  # 42 lines
    assert mem101(thin, "--preset", "moc") == [(41, "MEMORY.md is 42 lines, over the store's budget of 40: it still "
                                                 "loads whole (the load cap is 200 lines / 25,000 bytes), but every "
                                                 "session reads all of it; move detail into topic files and keep one "
                                                 "short line per topic")]
    assert mem101("# Index\n" + entries(39) + "\n\n\n", "--preset", "moc") == []  # past 40: blank lines only
    assert mem101(thin, "--preset", "claude-code") == []
    [(line, message)] = mem101("# Index\n" + entries(205), "--preset", "moc")
    assert line == 201 and "over the load cap (200 lines): lines 201-206 are never loaded" in message
    config = {".memlint.yaml": "rules:\n  root-budget:\n    budget-lines: 10\n"}
    assert [line for line, _ in mem101(thin, "--preset", "claude-code", **config)] == [11]


def test_mem101_option_from_config(make_store, findings):
    store = make_store(
        {"MEMORY.md": "# Index\n" + entries(20), **memories(20), ".memlint.yaml": "rules:\n  root-budget:\n    max-lines: 10\n"}
    )
    assert codes(findings(store), "MEM101") == [("MEMORY.md", 11)]


def test_mem102_long_entry_line(make_store, findings):
    root = "# Index\n- [A](m1.md) — " + "x" * 200 + "\n- [B](m2.md) — short\n" + "Plain text " * 30 + "\n"
    store = make_store({"MEMORY.md": root, **memories(2)})
    assert codes(findings(store), "MEM102") == [("MEMORY.md", 2)]


def test_a_backtick_path_makes_an_entry_only_when_it_names_a_file(make_store, findings, cli):
    """A code span naming no file is no link (README): a long status bullet
    or table row quoting one is no index entry, neither for MEM102 nor among
    the entries MEM101 counts past the cut; one that names a file is."""
    status = "- Status: blocked on `constitution/directives/TASK-GUARANTEE.md` — " + "x" * 160 + "\n"
    named = "- Context: `m1.md` — " + "x" * 160 + "\n"
    row = "| `constitution/directives/TASK-GUARANTEE.md` | the guarantee |\n"
    root = "# Index\n" + status + named + entries(197, start=2) + row * 3 + "| `m1.md` | again |\n"
    store = make_store({"MEMORY.md": root, **memories(198)})
    assert codes(findings(store), "MEM102") == [("MEMORY.md", 3)]
    [f] = [f for f in cli("check", "--format", "json", "--select", "MEM101", store).json()]
    assert (f["line"], f["message"].endswith("hiding 1 index entry")) == (201, True), f["message"]


def test_mem102_off_for_openclaw(make_store, findings):
    root = "# Index\n- [A](m1.md) — " + "x" * 200 + "\n"
    store = make_store({"MEMORY.md": root, **memories(1)})
    assert codes(findings(store, "--preset", "openclaw"), "MEM102") == []


def test_mem103_topic_over_cap(make_store, findings):
    topic = "# Projects\n" + entries(27)
    store = make_store({"MEMORY.md": "# Index\n- [Projects](MOC-projects.md)\n", "MOC-projects.md": topic, **memories(27)})
    assert codes(findings(store, "--preset", "moc"), "MEM103") == [("MOC-projects.md", 27)]


def test_mem103_quiet_at_cap(make_store, findings):
    topic = "# Projects\n" + entries(25)
    store = make_store({"MEMORY.md": "# Index\n- [Projects](MOC-projects.md)\n", "MOC-projects.md": topic, **memories(25)})
    assert codes(findings(store, "--preset", "moc"), "MEM103") == []


def test_mem103_mostly_links_file_is_a_topic(make_store, findings):
    topic = "# Things\n" + entries(55)
    store = make_store({"MEMORY.md": "# Index\n- [Things](things.md)\n", "things.md": topic, **memories(55)})
    assert codes(findings(store), "MEM103") == [("things.md", 52)]


@pytest.mark.parametrize("hub, topic", [
    ("".join(f"- [m{i}](m{i}.md), [m{i + 1}](m{i + 1}.md)\n" for i in (1, 3, 5)), True),  # 6 links on 3 lines
    ("| File | What |\n|---|---|\n" + "".join(f"| [m{i}](m{i}.md) | fact {i} |\n" for i in range(1, 7)), True),
    ("See " + ", ".join(f"[m{i}](m{i}.md)" for i in range(1, 7)) + " for more.\nSome prose.\n", False),
])
def test_a_hub_is_a_topic_by_its_links_to_files_on_list_or_table_lines(make_store, findings, hub, topic):
    """MEM103's doc: at least 5 links to files, on 60 % or more of its lines other than headings."""
    store = make_store({"MEMORY.md": "# Index\n- [Hub](hub.md)\n", "hub.md": "# Hub\n" + hub, **memories(6)})
    orphans = codes(findings(store, "--preset", "moc", "--select", "MEM201"), "MEM201")
    assert (orphans == []) == topic, orphans


@pytest.mark.parametrize("n, fires", [(300, False), (301, True)])
def test_mem104_memory_lines(make_store, findings, n, fires):
    body = "".join(f"line {i}\n" for i in range(n - 5))
    text = "---\nname: a\ndescription: d\ntype: user\n---\n" + body
    store = make_store({"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": text})
    assert codes(findings(store), "MEM104") == ([("a.md", 301)] if fires else [])


def test_mem104_over_both_caps_says_both(make_store, cli):
    """460 lines of 140 bytes: over the byte cap too, by 2.5 times."""
    body = "".join(f"line {i:03} " + "x" * 130 + "\n" for i in range(460))
    store = make_store({"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": "---\nname: a\ndescription: d\ntype: user\n---\n" + body})
    [f] = [f for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM104"]
    assert (f["line"], f["message"]) == (301, "memory is 465 lines, over its cap of 300; and 64,442 bytes, over its cap of 25,000")


def test_mem104_over_the_byte_cap_only_sits_on_the_line_the_cap_falls_in(make_store, cli):
    """200 lines of 200 bytes: 40,000 bytes, 25,000 of them reached in line 125
    of the body (line 130 of the file); a report on line 1 pointed nowhere."""
    front = "---\nname: a\ndescription: d\ntype: user\n---\n"  # 42 bytes: the cap falls 24,958 bytes into the body
    body = "".join(f"{i:03} " + "y" * 195 + "\n" for i in range(200))
    store = make_store({"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": front + body})
    [f] = [f for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM104"]
    assert (f["line"], f["column"], f["message"]) == (130, 1, f"memory is {len(front) + len(body):,} bytes, over its cap of 25,000")


def test_mem104_over_the_byte_cap_counts_a_byte_order_mark_in_the_line_it_names(make_store, cli):
    """The BOM is three of the file's bytes (its size counts them): byte 25,000
    is the last character of line 255, whose newline is byte 25,001."""
    text = "\ufeff---\nname: a\ndescription: d\ntype: user\n---\n"
    while len(text.encode()) < 24900:
        text += "z" * 99 + "\n"
    text += "q" * (25001 - len(text.encode())) + "\n" + "tail\n" * 5
    assert text.encode()[25001:25002] == b"\n" and text.encode()[:25001].count(b"\n") + 1 == 255
    store = make_store({"MEMORY.md": "# Index\n- [A](a.md)\n", "a.md": text})
    [f] = [f for f in cli("check", "--format", "json", store).json() if f["code"] == "MEM104"]
    assert f["line"] == 255


def test_mem104_not_for_daily_logs(make_store, findings):
    log = "".join(f"- {i}\n" for i in range(400))
    store = make_store({"MEMORY.md": "# Index\n", "memory/2026-01-01.md": log})
    assert codes(findings(store, "--preset", "openclaw"), "MEM104") == []


def test_openclaw_cut_is_computed_as_javascript_computes_it():
    """Math.floor(11000 * 0.7) is 7699 in floating point, not 7700: a line
    whose last character is unit 7699 is cut into, so lost; trimEnd takes off
    JavaScript's whitespace (a byte order mark too), not Python's."""
    from memlint.rules.root_budget import hidden_ranges

    lines = ["x" * 99] * 76 + ["y" * 49] + ["z" * 50] + ["w" * 99] * 100
    text = "\n".join(lines) + "\n"
    first, _ = hidden_ranges(text, None, None, 11000)[0]
    assert first == 78  # the line of z, units 7650-7699
    assert hidden_ranges("a" * 11000 + "\ufeff\n", None, None, 11000) == []  # trimmed to the cap: all loads
    assert hidden_ranges("a" * 11000 + "\x1c\n", None, None, 11000) != []  # no whitespace to JavaScript

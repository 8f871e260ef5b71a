"""MEM503 supersession-broken and MEM504 conflict, including the eight-old-one-new case."""
from __future__ import annotations

import os
import time

import pytest

from memlint import rules
from tests.gitrepo import GitRepo

TODAY = "2026-11-30"


def mem(name: str, extra: str = "", body: str = "A fact.") -> str:
    return f"---\nname: {name}\ndescription: memory {name}\ntype: project\n{extra}---\n{body}\n"


def index(*files: str) -> str:
    return "# Memory\n" + "".join(f"- [{f[:-3]}]({f}) — {f[:-3]}\n" for f in files)


def codes(found, code):
    return [(p, line) for p, line, c in found if c == code]


def messages(cli, store, code):
    result = cli("check", "--format", "json", "--today", TODAY, store)
    return [(f["path"], f["line"], f["message"]) for f in result.json() if f["code"] == code]


# ------------------------------------------------------------------ MEM503


def test_mem503_missing_target(make_store, cli):
    store = make_store({"MEMORY.md": index("new.md"), "new.md": mem("new", "supersedes: old-price\n")})
    [(path, line, message)] = messages(cli, store, "MEM503")
    assert (path, line) == ("new.md", 5)
    assert "`supersedes: old-price` names no memory of this store" in message


def test_a_superseded_by_that_names_nothing_is_one_finding_and_hides_no_conflict(make_store, cli):
    """A dangling ``superseded_by`` is a bad reference, not a memory replaced:
    no "retire it" advice, and its key still conflicts with a live memory's."""
    key = "key: competitor-x/pro-plan/price\n"
    store = make_store({"MEMORY.md": index("a.md", "b.md"),
                        "a.md": mem("a", "status: active\n" + key + "superseded_by: price-april\n"),
                        "b.md": mem("b", "status: active\n" + key)})
    [(path, line, message)] = messages(cli, store, "MEM503")
    assert (path, line) == ("a.md", 7) and "names no memory of this store" in message
    [(path, _, message)] = messages(cli, store, "MEM504")
    assert path in ("a.md", "b.md") and "competitor-x/pro-plan/price" in message


@pytest.mark.parametrize("ref", ["pricing-2025", ".archive/pricing-2025.md", ".archive/pricing-2025", "Pricing-2025"])
def test_mem503_an_old_memory_moved_to_a_hidden_archive_is_not_missing(make_store, cli, ref):
    """MEM502's own fix is "move it to .archive/": the memory that replaces it must not then be told it names nothing."""
    store = make_store({"MEMORY.md": index("pricing-2026.md"),
                        "pricing-2026.md": mem("pricing-2026", f"supersedes: {ref}\n"),
                        ".archive/pricing-2025.md": mem("pricing-2025", "status: archived\n")})
    assert messages(cli, store, "MEM503") == []


def test_mem503_a_reference_too_long_to_be_a_file_name_names_no_memory(make_store, cli):
    store = make_store({"MEMORY.md": index("new.md"), "new.md": mem("new", "supersedes: " + "部署" * 43 + "\n")})
    [(path, _, message)] = messages(cli, store, "MEM503")
    assert path == "new.md" and "names no memory of this store" in message


def test_mem503_an_archive_that_is_a_link_out_of_the_repository_is_not_the_store_s(make_store, cli, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "old-thing.md").write_text(mem("old-thing"), encoding="utf-8")
    for ref in (".archive/old-thing", "old-thing"):
        store = make_store({"MEMORY.md": index("new.md"), "new.md": mem("new", f"supersedes: {ref}\n")},
                           sub=f"s{len(ref)}")
        (store / ".archive").symlink_to(outside)
        [(_, _, message)] = messages(cli, store, "MEM503")
        assert "names no memory of this store" in message, ref


def test_mem503_an_archive_that_cannot_be_read_is_said_and_not_kept_as_read(repo_with_archive, cli, monkeypatch):
    """A folder that cannot be listed is said once, and its empty listing is
    never taken as unchanged: a chmod back changes no folder's time."""
    store, archive = repo_with_archive
    real = os.scandir

    def refused(path):
        if str(path) == str(archive):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", refused)
    result = cli("check", "--format", "json", "--today", TODAY, store)
    assert ".archive: cannot be read (Permission denied)" in result.stderr
    assert any(f["code"] == "MEM503" for f in result.json())
    monkeypatch.setattr(os, "scandir", real)
    cached = cli("check", "--format", "json", "--today", TODAY, store).json()
    assert cached == cli("check", "--format", "json", "--today", TODAY, "--no-cache", store).json()
    assert not any(f["code"] == "MEM503" for f in cached)


@pytest.fixture
def repo_with_archive(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", index("new.md"))
    repo.write("memory/new.md", mem("new", "supersedes: old-thing\n"))
    repo.commit("start", "2026-01-05T10:00:00+00:00")
    archive = repo.root / "memory" / ".archive"
    archive.mkdir()
    (archive / "old-thing.md").write_text(mem("old-thing", "status: archived\n"), encoding="utf-8")
    old = time.time() - 10  # out of the window where a folder's time is not trusted
    os.utime(archive, (old, old))
    os.utime(archive.parent, (old, old))
    return repo.root / "memory", archive


def test_mem503_superseded_by_a_memory_out_of_sight_is_said_so(make_store, cli):
    store = make_store({"MEMORY.md": index("old.md"), "old.md": mem("old", "superseded_by: new\n"),
                        ".archive/new.md": mem("new")})
    [(path, line, message)] = messages(cli, store, "MEM503")
    assert (path, line) == ("old.md", 5)
    assert message.startswith("`superseded_by: new` names .archive/new.md, which the agent never reads")
    missing = make_store({"MEMORY.md": index("new.md"), "new.md": mem("new", "supersedes: pricing-2024\n"),
                          ".archive/pricing-2025.md": mem("pricing-2025")}, sub="other")
    assert "names no memory of this store" in messages(cli, missing, "MEM503")[0][2]


def test_mem503_targets_by_id_name_path_and_relative_path(make_store, findings):
    store = make_store({
        "MEMORY.md": index("sub/new.md"),
        "sub/new.md": mem("new", "supersedes: [price-v1, old-two, ../old3.md, sub/old4, old5]\n"),
        "a.md": mem("a", "id: price-v1\nstatus: outdated\n"),
        "b.md": mem("old-two", "status: outdated\n"),
        "old3.md": mem("old3", "status: outdated\n"),
        "sub/old4.md": mem("four", "status: outdated\n"),
    })
    # old5 names nothing; every other form resolves
    assert codes(findings(store, "--today", TODAY), "MEM503") == [("sub/new.md", 5)]


def test_a_reference_by_id_finds_the_memory_that_has_it_and_the_first_in_path_order(make_store, cli):
    # `price-v1` is no file's name, stem or path: only an `id` (flat, or under metadata:) says which memory it is
    store = make_store({
        "MEMORY.md": index("new.md", "b.md", "c.md"),
        "new.md": mem("new", "supersedes: price-v1\n"),
        "b.md": mem("b", "metadata:\n  id: price-v1\n"),
        "c.md": mem("c", "id: price-v1\n"),
    })
    [(path, _, message)] = messages(cli, store, "MEM503")
    assert path == "b.md" and "new.md" in message  # live, though new.md supersedes it; c.md, later, is not meant


def test_mem503_reference_to_an_index_is_not_a_memory(make_store, cli):
    store = make_store({"MEMORY.md": index("new.md"), "new.md": mem("new", "supersedes: MEMORY.md\n")})
    [(_, _, message)] = messages(cli, store, "MEM503")
    assert "names MEMORY.md, which is a root file, not a memory" in message


def test_mem503_superseded_but_live_names_the_fix_and_index_line(make_store, cli):
    store = make_store({
        "MEMORY.md": index("new.md", "old.md"),
        "new.md": mem("new", "supersedes: old\n"),
        "old.md": mem("old", "status: active\n"),
    })
    [(path, line, message)] = messages(cli, store, "MEM503")
    assert (path, line) == ("old.md", 5)
    assert "superseded by new.md (new.md says `supersedes: old`), but `status: active` is still live" in message
    assert "the agent loads both: set `status: superseded` here" in message
    assert "remove its index entry (MEMORY.md:3)" in message


def test_mem503_superseded_but_live_and_unrouted_is_no_orphan_and_not_said_to_be_loaded(make_store, cli):
    # The newer memory took the old one's index entry: the old is live but no
    # index routes to it. It is to be retired, not filed again (no MEM201
    # telling to add it to MEMORY.md), and the agent does not load it from an index.
    store = make_store({
        "MEMORY.md": index("new.md", "lone.md"),
        "new.md": mem("new", "supersedes: old\n"),
        "old.md": mem("old"),
        "lone.md": mem("lone"),
        "stray.md": mem("stray"),  # unrouted and superseded by nothing: an orphan still
    })
    found = cli("check", "--format", "json", "--today", TODAY, store).json()
    assert [(f["path"], f["code"]) for f in found if f["code"] in ("MEM201", "MEM503")] == [
        ("old.md", "MEM503"), ("stray.md", "MEM201")]
    [message] = [f["message"] for f in found if f["code"] == "MEM503"]
    assert message == ("superseded by new.md (new.md says `supersedes: old`), but it has no `status`, so it is still "
                       "live and a search of the memories can still serve it: set `status: superseded` here (keep the "
                       "file for provenance)")


def test_mem503_old_side_alone_saying_superseded_by_must_be_retired(make_store, findings):
    store = make_store({
        "MEMORY.md": index("new.md"),
        "new.md": mem("new"),
        "old.md": mem("old", "superseded_by: new\n"),  # no status: live
    })
    assert codes(findings(store, "--today", TODAY), "MEM503") == [("old.md", 5)]  # no status line: its superseded_by


def test_mem503_quiet_when_done_right(make_store, findings):
    store = make_store({
        "MEMORY.md": index("new.md"),
        "new.md": mem("new", "supersedes: old.md\n"),
        "old.md": mem("old", "status: superseded\nsuperseded_by: new\n"),
        "older.md": mem("older", "metadata:\n  status: outdated\n  superseded_by: old\n"),
    })
    assert codes(findings(store, "--today", TODAY), "MEM503") == []


def test_mem503_two_sides_disagree(make_store, cli):
    store = make_store({
        "MEMORY.md": index("new.md", "other.md"),
        "new.md": mem("new", "supersedes: old\n"),
        "other.md": mem("other"),
        "old.md": mem("old", "status: outdated\nsuperseded_by: other\n"),
    })
    [(path, line, message)] = messages(cli, store, "MEM503")
    assert (path, line) == ("old.md", 6)
    assert "new.md says it supersedes this memory, but `superseded_by` names other.md" in message


def test_mem503_superseded_by_a_memory_whose_list_omits_it(make_store, cli):
    store = make_store({
        "MEMORY.md": index("new.md"),
        "new.md": mem("new", "supersedes: [x]\n"),
        "x.md": mem("x", "status: outdated\n"),
        "old.md": mem("old", "status: outdated\nsuperseded_by: new\n"),
    })
    [(path, line, message)] = messages(cli, store, "MEM503")
    assert (path, line) == ("old.md", 6)
    assert "`superseded_by` names new.md, but its `supersedes` does not list this memory" in message


def test_mem503_cycle_reported_once(make_store, cli):
    store = make_store({
        "MEMORY.md": index("a.md"),
        "a.md": mem("a", "supersedes: b\n"),
        "b.md": mem("b", "status: outdated\nsupersedes: c\n"),
        "c.md": mem("c", "status: outdated\nsupersedes: a\n"),
    })
    found = messages(cli, store, "MEM503")
    cycle = [m for m in found if "cycle" in m[2]]
    assert [(p, line) for p, line, _ in cycle] == [("a.md", 5)]
    assert "a.md, b.md and c.md supersede one another in a cycle" in cycle[0][2]
    # a is live and c claims to supersede it: reported too, on a's own line
    assert ("a.md", 1) in [(p, line) for p, line, _ in found]


def test_mem503_self_supersession(make_store, cli):
    store = make_store({"MEMORY.md": index("a.md"), "a.md": mem("a", "supersedes: a\n")})
    [(path, line, message)] = messages(cli, store, "MEM503")
    assert (path, line) == ("a.md", 5) and "supersedes itself" in message


@pytest.mark.parametrize("field", ["supersedes", "superseded_by"])
def test_a_memory_naming_itself_is_not_retired_by_it(make_store, cli, field):
    """A self-reference replaces nothing: the memory stays live, its index
    entry is no route to a retired memory, and a conflict it is in is seen."""
    store = make_store({"MEMORY.md": index("me.md", "live.md"), "me.md": mem("me", f"{field}: me\nkey: k\n"),
                        "live.md": mem("live", "key: k\n")})
    found = cli("check", "--format", "json", "--today", TODAY, store).json()
    assert [(f["path"], f["code"]) for f in found if f["code"] in ("MEM205", "MEM503", "MEM504")] == [
        ("me.md", "MEM503"), ("me.md", "MEM504")] or [(f["path"], f["code"]) for f in found if f["code"] in (
            "MEM205", "MEM503", "MEM504")] == [("live.md", "MEM504"), ("me.md", "MEM503")]
    assert not any(f["code"] == "MEM205" for f in found)


@pytest.mark.parametrize("status", ["cancelled", "Canceled"])
def test_a_cancelled_memory_retires_nothing_it_would_have_superseded(make_store, cli, status):
    """A replacement that never took effect leaves the memory it names
    current: not to be retired (MEM503), still the right route (MEM205),
    and no claim against the old memory's own `superseded_by`."""
    store = make_store({
        "MEMORY.md": index("old.md", "other.md"),
        "old.md": mem("old", "status: active\n"),
        "new.md": mem("new", f"status: {status}\nsupersedes: [old, kept]\n"),
        "kept.md": mem("kept", "status: outdated\nsuperseded_by: other\n"),
        "other.md": mem("other", "supersedes: kept\n"),
    })
    found = cli("check", "--format", "json", "--today", TODAY, "--summary", store)
    assert [(f["path"], f["code"]) for f in found.json() if f["code"].startswith(("MEM2", "MEM5"))] == []
    assert "superseded     0 still live" in found.stderr
    # an outdated memory did replace what it names: A -> B -> C keeps A retired
    store = make_store({"MEMORY.md": index("c.md"), "a.md": mem("a", "status: active\n"),
                        "b.md": mem("b", "status: outdated\nsupersedes: a\nsuperseded_by: c\n"),
                        "c.md": mem("c", "supersedes: b\n")}, sub="chain")
    assert [(p, c) for p, _, c in [(f["path"], f["line"], f["code"]) for f in cli(
        "check", "--format", "json", "--today", TODAY, store).json()] if c.startswith("MEM5")] == [("a.md", "MEM503")]


@pytest.mark.parametrize("claimed", ["", "supersedes: old\n"])
def test_a_superseded_by_naming_a_cancelled_memory_retires_nothing(make_store, cli, claimed):
    """The other side of a cancelled replacement: the old memory's own
    `superseded_by` names one that never took effect. It is reported as that,
    not as a superseded memory to retire (MEM503), nor a route to one (MEM205)."""
    store = make_store({
        "MEMORY.md": index("old.md", "plan.md"),
        "old.md": mem("old", "status: active\nsuperseded_by: new\n"),
        "new.md": mem("new", "status: cancelled\n" + claimed),
        "plan.md": mem("plan", "status: outdated\nsuperseded_by: new\n"),
    })
    found = cli("check", "--format", "json", "--today", TODAY, "--summary", store)
    got = [(f["path"], f["line"], f["code"], f["message"]) for f in found.json() if f["code"].startswith(("MEM2", "MEM5"))]
    assert [(p, line, c) for p, line, c, _ in got] == [("MEMORY.md", 3, "MEM205"), ("old.md", 6, "MEM503"),
                                                       ("plan.md", 6, "MEM503")]
    assert "status: outdated" in got[0][3]  # plan.md, by its own status, not superseded by new.md
    for message in (got[1][3], got[2][3]):
        assert "`superseded_by: new` names new.md, which is `status: cancelled`: it never took effect" in message
        assert "set `status:" not in message and "supersedes this memory" not in message
    assert "superseded     0 still live" in found.stderr


@pytest.mark.parametrize("written", ["supersedes: [[old]]\n", "supersedes:\n  - [[old]]\n"])
def test_an_unquoted_wikilink_reference_is_read_as_the_wikilink(make_store, cli, written):
    """YAML reads `[[old]]` unquoted as a list in a list: it still names old.md."""
    store = make_store({"MEMORY.md": index("new.md"), "old.md": mem("old", "key: price\n"),
                        "new.md": mem("new", written + "key: price\n")})
    found = cli("check", "--format", "json", "--today", TODAY, store).json()
    # new.md supersedes old.md: no conflict between them, and old.md must now be retired
    assert [(f["path"], f["code"]) for f in found if f["code"] in ("MEM503", "MEM504")] == [("old.md", "MEM503")]


@pytest.mark.parametrize("written", ["supersedes: [[old#Price]]\n", "supersedes: '[[old#Price|the old price]]'\n",
                                     "superseded_by: ['[[new^abc123]]']\n"])
def test_a_wikilink_reference_to_a_heading_or_block_names_its_memory(make_store, cli, written):
    """`[[old#Price]]` in a body links old.md: in `supersedes` it names it too."""
    old_extra = "status: outdated\n" + (written if written.startswith("superseded_by") else "")
    new_extra = "" if written.startswith("superseded_by") else written
    store = make_store({"MEMORY.md": index("new.md"), "old.md": mem("old", old_extra),
                        "new.md": mem("new", new_extra + ("supersedes: old\n" if not new_extra else ""))})
    found = cli("check", "--format", "json", "--today", TODAY, store).json()
    assert [(f["path"], f["code"], f["message"]) for f in found if f["code"].startswith("MEM5")] == []


@pytest.mark.parametrize("written", ["'[[issue#42]]'", "'[[C# tips|the old tips]]'", "[[issue#42]]"])
def test_a_wikilink_reference_to_a_name_holding_a_hash_names_that_memory(make_store, cli, written):
    """Cut at its '#', `[[C# tips]]` would name `C`: a memory whose `id` or
    `name` holds the '#' itself is still the one it names."""
    store = make_store({"MEMORY.md": index("new.md"),
                        "old.md": mem("C# tips", "id: issue#42\nstatus: active\n"),
                        "new.md": mem("new", f"supersedes: {written}\n")})
    [(path, line, message)] = messages(cli, store, "MEM503")
    assert (path, line) == ("old.md", 6) and message.startswith("superseded by new.md")


@pytest.mark.parametrize("written", ["'[Old price](old.md)'", "'[Old price](./old.md#price)'",
                                     "['[Old price](<old.md>)']", "'[Old price](old)'",
                                     "'[Old price](old.md \"the 2025 price\")'", "\"[Old price](<old.md> 't')\""])
def test_a_markdown_link_reference_names_its_destination(make_store, cli, written):
    store = make_store({"MEMORY.md": index("new.md"), "old.md": mem("old", "status: active\n"),
                        "new.md": mem("new", f"supersedes: {written}\n")})
    [(path, line, message)] = messages(cli, store, "MEM503")
    assert (path, line) == ("old.md", 5) and message.startswith("superseded by new.md")


@pytest.mark.parametrize("name", ['[WIP](auth "v2")', "[draft](plan (v2))", "[Q3](plan)"])
def test_a_name_written_as_a_markdown_link_names_its_memory_where_the_destination_names_none(make_store, cli, name):
    """Read as a link, `[WIP](auth "v2")` would name `auth`: where that names
    no memory, the memory whose `name` it is, as for `[[C# tips]]`."""
    store = make_store({"MEMORY.md": index("new.md"), "old.md": mem(f"'{name}'", "status: active\n"),
                        "new.md": mem("new", f"supersedes: '{name}'\n")})
    [(path, line, message)] = messages(cli, store, "MEM503")
    assert (path, line) == ("old.md", 5) and message.startswith("superseded by new.md")


# ------------------------------------------------------------------ MEM504

OLD_DATES = [f"2026-01-0{i}" for i in range(1, 9)]


def nine(*, fixed: bool, routed_old: tuple[int, ...] = ()) -> dict[str, str]:
    files = {}
    for i, when in enumerate(OLD_DATES, start=1):
        status = "status: outdated\n" if fixed else ""
        files[f"old-{i}.md"] = mem(f"old-{i}", f"key: competitor-x/pro-plan/price\ncreated: {when}\n{status}",
                                   "Competitor X Pro plan: 49 EUR per month.")
    supersedes = "supersedes: [" + ", ".join(f"old-{i}" for i in range(1, 9)) + "]\n" if fixed else ""
    files["new.md"] = mem("new", f"key: competitor-x/pro-plan/price\ncreated: 2026-06-01\n{supersedes}",
                          "Competitor X Pro plan: 59 EUR per month.")
    listed = ["new.md"] + ([f"old-{i}.md" for i in range(1, 9)] if not fixed else [f"old-{i}.md" for i in routed_old])
    files["MEMORY.md"] = index(*listed)
    return files


def test_mem504_eight_old_one_new_names_all_nine_newest_first(make_store, cli):
    store = make_store(nine(fixed=False))
    # MEM5 only: the eight old memories are also exact copies of one another (MEM301).
    result = cli("check", "--format", "json", "--select", "MEM5", "--today", TODAY, store)
    assert result.exit_code == 1
    [finding] = result.json()
    assert (finding["code"], finding["path"], finding["line"]) == ("MEM504", "new.md", 5)
    message = finding["message"]
    assert message.startswith("9 live memories assert `key: competitor-x/pro-plan/price` and none supersedes another")
    order = ["new.md (2026-06-01)"] + [f"old-{i}.md (2026-01-0{i})" for i in range(8, 0, -1)]
    assert "newest first: " + ", ".join(order) + "." in message
    assert "add `supersedes: [old-8.md, old-7.md, old-6.md, old-5.md, old-4.md, old-3.md, old-2.md, old-1.md]` here" in message


def test_mem504_eight_old_one_new_fixed_is_clean(make_store, cli):
    store = make_store(nine(fixed=True))
    result = cli("check", "--format", "json", "--today", TODAY, store)
    assert result.exit_code == 0 and result.json() == []


def test_mem504_fixed_but_index_still_routes_an_old_one_fires_mem205(make_store, findings):
    try:
        rules.get("MEM205")
    except ValueError:
        pytest.skip("MEM205 routes-to-retired is not registered yet (it lands from the graph branch)")
    store = make_store(nine(fixed=True, routed_old=(3,)))
    assert findings(store, "--today", TODAY) == [("MEMORY.md", 3, "MEM205")]


def test_mem504_half_fixed_supersedes_without_statuses_is_mem503_not_mem504(make_store, findings):
    files = nine(fixed=True, routed_old=())
    for i in range(1, 9):
        files[f"old-{i}.md"] = files[f"old-{i}.md"].replace("status: outdated\n", "")
    found = findings(make_store(files), "--today", TODAY)
    assert codes(found, "MEM504") == []
    assert codes(found, "MEM503") == [(f"old-{i}.md", 1) for i in range(1, 9)]


def test_mem504_the_undecided_fix_it_gives_leaves_no_error(make_store, cli):
    key = "key: competitor-x/pro-plan/price\n"
    files = {"MEMORY.md": index("a.md", "b.md"), "a.md": mem("a", "status: active\n" + key),
             "b.md": mem("b", "status: active\n" + key)}
    store = make_store(files)
    [(_, _, message)] = messages(cli, store, "MEM504")
    assert "`status: conflicted` and take them out of the indexes" in message
    store = make_store({**files, "MEMORY.md": "# Memory\n", "a.md": mem("a", "status: conflicted\n" + key),
                        "b.md": mem("b", "status: conflicted\n" + key)}, sub="fixed")
    result = cli("check", "--format", "json", "--today", TODAY, store)
    assert [f for f in result.json() if f["severity"] == "error"] == []


def test_mem504_the_fix_it_gives_names_the_other_as_this_file_can_reach_it(make_store, cli):
    """a/price.md naming `price.md` would name itself (references resolve
    from the file's folder first): the advice must read back as the other."""
    key = "key: price\n"
    files = {"MEMORY.md": index("price.md", "a/price.md"), "price.md": mem("p1", key + "created: 2026-01-01\n"),
             "a/price.md": mem("p2", key + "created: 2026-05-01\n")}
    store = make_store(files)
    [(path, _, message)] = messages(cli, store, "MEM504")
    ref = message.split("add `supersedes: [", 1)[1].split("]`", 1)[0]
    assert path == "a/price.md" and ref == "../price.md"
    fixed = make_store({**files, "MEMORY.md": index("a/price.md"),
                        "price.md": mem("p1", key + "created: 2026-01-01\nstatus: superseded\n"),
                        "a/price.md": mem("p2", key + f"created: 2026-05-01\nsupersedes: [{ref}]\n")}, sub="fixed")
    result = cli("check", "--format", "json", "--today", TODAY, fixed)
    assert [f for f in result.json() if f["severity"] == "error"] == []


def test_mem504_the_undecided_status_is_one_the_store_retires(make_store, cli):
    key = "key: price\n"
    store = make_store({"MEMORY.md": index("a.md", "b.md"), "a.md": mem("a", key), "b.md": mem("b", key),
                        ".memlint.yaml": "retired-statuses: [Outdated, archived]\n"})
    [(_, _, message)] = messages(cli, store, "MEM504")
    assert "`status: Outdated` and take them out" in message


def test_mem504_two_members_and_retired_ones_do_not_count(make_store, cli):
    store = make_store({
        "MEMORY.md": index("a.md", "b.md"),
        "a.md": mem("a", "key: Team/Lead\nlast_verified: 2026-03-01\n"),
        "b.md": mem("b", "key: [office/city, team/lead]\nlast_verified: 2026-05-01\n"),  # list; case folded
        "c.md": mem("c", "key: team/lead\nstatus: conflicted\nlast_verified: 2026-09-01\n"),
        "d.md": mem("d", "key: office/phone\n"),
    })
    [(path, line, message)] = messages(cli, store, "MEM504")
    assert (path, line) == ("b.md", 5)
    assert "2 live memories assert `key: team/lead` and neither supersedes the other" in message
    assert "newest first: b.md (2026-05-01), a.md (2026-03-01)" in message and "c.md" not in message


def test_mem504_a_key_typed_in_nfd_is_the_same_fact_as_in_nfc(make_store, cli):
    """macOS writes `café` as e + a combining accent: the same key."""
    store = make_store({"MEMORY.md": index("a.md", "b.md"), "a.md": mem("a", "key: caf\u00e9/price\n"),
                        "b.md": mem("b", "key: cafe\u0301/price\n")})
    assert len(messages(cli, store, "MEM504")) == 1


def test_mem504_a_numeric_key_is_the_same_fact_as_its_text(make_store, cli):
    # YAML reads `key: 8080` as a number; "8080" quoted is the same fact
    store = make_store({
        "MEMORY.md": index("a.md", "b.md"),
        "a.md": mem("a", "key: 8080\n"),
        "b.md": mem("b", "key: '8080'\n"),
    })
    [(_, _, message)] = messages(cli, store, "MEM504")
    assert "assert `key: 8080`" in message
    result = cli("check", "--summary", "--today", TODAY, str(store))
    assert result.exit_code == 1 and "internal error" not in result.output + result.stderr


def test_mem504_quiet_on_distinct_keys_and_single_live_member(make_store, findings):
    store = make_store({
        "MEMORY.md": index("a.md", "b.md"),
        "a.md": mem("a", "key: x/price\n"),
        "b.md": mem("b", "key: x/currency\n"),
        "c.md": mem("c", "key: x/price\nstatus: archived\n"),
    })
    assert codes(findings(store, "--today", TODAY), "MEM504") == []


def test_mem504_dates_come_from_git_when_frontmatter_has_none(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    repo.write("MEMORY.md", index("a.md", "b.md", "c.md"))
    repo.write("a.md", mem("a", "key: k\n"))
    repo.write("b.md", mem("b", "key: k\n"))
    repo.commit("add a and b", date="2026-02-01T09:00:00+00:00")
    repo.write("c.md", mem("c", "key: k\n"))
    repo.commit("add c", date="2026-04-01T09:00:00+00:00")
    repo.write("a.md", mem("a", "key: k\n", body="Corrected."))
    repo.commit("correct a", date="2026-07-01T09:00:00+00:00")
    [(path, line, message)] = messages(cli, repo.root, "MEM504")
    assert (path, line) == ("a.md", 5)
    assert "newest first: a.md (2026-07-01), c.md (2026-04-01), b.md (2026-02-01)" in message


def test_mem504_undated_members_go_last(make_store, cli):
    store = make_store({
        "MEMORY.md": index("a.md", "b.md"),
        "a.md": mem("a", "key: k\n"),
        "b.md": mem("b", "key: k\ncreated: 2026-01-01\n"),
    })
    [(path, _, message)] = messages(cli, store, "MEM504")
    assert path == "b.md" and "newest first: b.md (2026-01-01), a.md (no date)" in message


def test_mem504_a_date_one_day_ahead_is_the_newest_not_ignored(make_store, cli):
    """MEM004 takes a date one day ahead for a time zone east of the runner's,
    not the future: the memory verified then is the newest, not undated."""
    store = make_store({
        "MEMORY.md": index("a.md", "b.md"),
        "a.md": mem("a", "key: k\nlast_verified: 2026-05-01\n"),
        "b.md": mem("b", "key: k\nlast_verified: 2026-12-01\n"),  # TODAY is 2026-11-30
    })
    [(path, _, message)] = messages(cli, store, "MEM504")
    assert path == "b.md" and "newest first: b.md (2026-12-01), a.md (2026-05-01)" in message


@pytest.mark.parametrize("status, line, advice", [
    ("status: superseded\n", 3, "fix its frontmatter (MEM002) so that its `status: superseded` is read"),
    ("status: active\n", 3, "fix its frontmatter (MEM002) and set `status: superseded` on its line 3"),
    ("", 1, "fix its frontmatter (MEM002) and set `status: superseded` in it"),
], ids=["retired", "live", "none"])
def test_mem503_a_superseded_memory_whose_frontmatter_does_not_parse(make_store, cli, status, line, advice):
    """Its status may be written in the broken block, retired or live, or not
    at all: not "it has no status"; fix the block, and set the status where
    fixing the block alone would leave it live."""
    store = make_store({
        "MEMORY.md": index("new.md"),
        "new.md": mem("new", "supersedes: old\n"),
        "old.md": f"---\nname: old\n{status}description: Fix: quote me\n---\nOld.\n",
    })
    [(path, at, message)] = messages(cli, store, "MEM503")
    assert (path, at) == ("old.md", line)
    assert "has no `status`" not in message and "its frontmatter does not parse (MEM002)" in message
    assert advice in message
    assert ("so that" in message) == (status == "status: superseded\n")
    assert ("set `status" in message) == (status != "status: superseded\n")


def test_mem503_a_reference_to_an_unreadable_memory_is_not_to_a_non_memory(make_store, cli):
    """A UTF-16 memory is a memory MEM006 reports, not "a memory file, not a memory"."""
    store = make_store({
        "MEMORY.md": index("new.md"),
        "new.md": mem("new", "supersedes: old\n"),
        "old.md": b"\xff\xfe-\x00-\x00-\x00\n\x00",
    })
    assert messages(cli, store, "MEM503") == []
    assert [p for p, _, _ in messages(cli, store, "MEM006")] == ["old.md"]


def test_mem503_a_reference_to_an_index_or_an_exempt_file_reads_as_english(make_store, cli):
    store = make_store({
        "MEMORY.md": index("new.md"),
        "new.md": mem("new", "supersedes: [topics/pricing, NOW]\n"),
        "topics/pricing.md": "# Pricing\n- [New](../new.md)\n",
        "NOW.md": "Now.\n",
        ".memlint.yaml": "topics: ['topics/*.md']\nexempt: [NOW.md]\n",
    })
    [(_, _, message)] = messages(cli, store, "MEM503")
    assert "names topics/pricing.md, which is an index file, not a memory" in message
    assert "names NOW.md, which is an exempt file, not a memory" in message

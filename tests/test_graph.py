"""The link graph: how links resolve, what the root reaches, and what is never touched."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from memlint import graph as graph_mod
from memlint.config import load
from memlint.graph import BROKEN, EXTERNAL, IN_REPO, OK, OUTSIDE
from memlint.store import Store

MEM = "---\nname: {name}\ndescription: d\ntype: project\n---\nBody.\n"


def build(folder: Path, root: str = "MEMORY.md", preset: str | None = None) -> Store:
    return Store(folder, root, load(None), preset=preset)


def git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def statuses(store: Store, source: str) -> list[tuple[str, str | None, str]]:
    return [(e.link.target, e.target, e.status) for e in store.graph.out[source]]


def test_wikilink_resolution_order(make_store):
    folder = make_store(
        {
            "MEMORY.md": "# I\n",
            "notes/alpha.md": "---\nname: Beta\naliases: [Al, Alpha Prime]\n---\n",
            "beta.md": MEM.format(name="b"),
            "Gamma Note.md": "# g\n",
            "notes/beta.md": "# nested beta\n",
            "topic.md": "[[notes/beta]] [[Beta]] [[beta]] [[Al]] [[gamma-note]] [[GAMMA_NOTE]] [[alpha prime]] [[nothing]]\n",
        }
    )
    store = build(folder, preset="moc")
    got = [(t, target) for t, target, _ in statuses(store, "topic.md")]
    assert got == [
        ("notes/beta", "notes/beta.md"),  # exact relative path
        ("Beta", "notes/alpha.md"),  # frontmatter name before a filename
        ("beta", "beta.md"),  # filename stem (names match exactly)
        ("Al", "notes/alpha.md"),  # alias
        ("gamma-note", "Gamma Note.md"),  # folded stem
        ("GAMMA_NOTE", "Gamma Note.md"),
        ("alpha prime", "notes/alpha.md"),  # folded alias
        ("nothing", None),
    ]


def test_a_wikilink_with_the_extension_in_capitals_names_the_file(make_store):
    folder = make_store({"MEMORY.md": "# I\n", "e.md": "# e\n", "notes/Deploy Plan.md": "# d\n",
                         "topic.md": "[[e.MD]] [[E.md]] [[e.Md]] [[deploy-plan.MD]]\n"})
    got = [(t, target) for t, target, _ in statuses(build(folder, preset="moc"), "topic.md")]
    assert got == [("e.MD", "e.md"), ("E.md", "e.md"), ("e.Md", "e.md"), ("deploy-plan.MD", "notes/Deploy Plan.md")]


def test_wikilink_path_is_relative_to_the_linking_file_first(make_store):
    folder = make_store(
        {
            "MEMORY.md": "# I\n",
            "a/x.md": "# a/x\n",
            "x.md": "# x\n",
            "a/topic.md": "[[x]] [[../x.md]] [[./x]]\n",
        }
    )
    store = build(folder, preset="moc")
    assert [target for _, target, _ in statuses(store, "a/topic.md")] == ["a/x.md", "x.md", "a/x.md"]


def test_markdown_links_relative_decoded_anchor_stripped(make_store):
    folder = make_store(
        {
            "MEMORY.md": "- [a](sub/My%20Note.md#part) [not a link](sub/My Note.md) [c](<sub/My Note.md>) [d](https://x.org/a.md) [e](#top)\n",
            "sub/My Note.md": "- [up](../MEMORY.md?x=1) [img](pic.png) [gone](gone.md)\n",
            "sub/pic.png": b"\x89PNG",
        }
    )
    store = build(folder)
    assert statuses(store, "MEMORY.md") == [
        ("sub/My Note.md#part", "sub/My Note.md", OK),
        ("sub/My Note.md", "sub/My Note.md", OK),  # CommonMark: a space needs <...>
        ("https://x.org/a.md", None, EXTERNAL),
    ]
    assert statuses(store, "sub/My Note.md") == [
        ("../MEMORY.md?x=1", "MEMORY.md", OK),
        ("pic.png", "sub/pic.png", IN_REPO),  # exists, not markdown: checked, not followed
        ("gone.md", "sub/gone.md", BROKEN),
    ]


def test_a_backslash_is_a_folder_separator_unless_a_file_has_it_in_its_name(make_store):
    folder = make_store({
        "MEMORY.md": "- [a](a\\b.md) [n](notes\\x.md) [g](gone\\y.md)\n- [[a\\b]] [[notes\\x]]\n",
        "a\\b.md": "A file with a backslash in its name (Linux allows it).\n",
        "notes/x.md": "A Windows-style link finds it.\n",
    })
    store = build(folder)
    assert statuses(store, "MEMORY.md") == [
        ("a\\b.md", "a\\b.md", OK),
        ("notes\\x.md", "notes/x.md", OK),
        ("gone\\y.md", "gone/y.md", BROKEN),
        ("a\\b", "a\\b.md", OK),
        ("notes\\x", "notes/x.md", OK),
    ]


def test_links_out_of_the_repository_are_judged_by_their_text(make_store):
    folder = make_store(
        {
            "MEMORY.md": (
                "[a](../../etc/passwd) [b](/etc/passwd) [c](file:///etc/passwd) "
                "[d](C:\\Users\\me\\x.md) [e](~/.ssh/config) [[../../../../x]] <file:///etc/hosts>\n"
            ),
        }
    )
    git_init(folder)
    store = build(folder, preset="moc")
    got = [(e.link.target, e.status, e.note) for e in store.graph.out["MEMORY.md"]]
    assert got == [
        ("../../etc/passwd", OUTSIDE, "climbs out of the repository"),
        ("/etc/passwd", OUTSIDE, "an absolute path"),
        ("file:///etc/passwd", OUTSIDE, "a file: URL"),
        ("C:\\Users\\me\\x.md", OUTSIDE, "a Windows path"),
        ("~/.ssh/config", OUTSIDE, "a path in a home folder"),
        ("../../../../x", OUTSIDE, "climbs out of the repository"),
        ("file:///etc/hosts", OUTSIDE, "a file: URL"),
    ]


def test_nothing_outside_the_repository_is_ever_stat_ed(make_store, monkeypatch):
    outside = make_store({"secret.md": "top secret\n"}, sub="elsewhere")
    repo = make_store(
        {
            "memory/MEMORY.md": f"[a](../../elsewhere/secret.md) [b]({outside}/secret.md) [c](../notes/x.md) [d](link/secret.md)\n",
            "notes/x.md": "# in the repo, outside the store\n",
        },
        sub="repo",
    )
    git_init(repo)
    (repo / "memory" / "link").symlink_to(outside)
    touched: list[str] = []
    real_lstat, real_stat = os.lstat, os.stat

    def spy(real):
        def wrapper(path, *a, **kw):
            touched.append(os.fspath(path))
            return real(path, *a, **kw)

        return wrapper

    monkeypatch.setattr(os, "lstat", spy(real_lstat))
    monkeypatch.setattr(os, "stat", spy(real_stat))
    store = build(repo / "memory")
    got = [(e.status, e.target) for e in store.graph.out["MEMORY.md"]]
    monkeypatch.undo()
    assert got == [
        (OUTSIDE, "../../elsewhere/secret.md"),
        (OUTSIDE, f"{outside}/secret.md"),
        (IN_REPO, "notes/x.md"),
        (OUTSIDE, "link/secret.md"),  # a symlink in the repository that leads out
    ]
    assert touched and not [p for p in touched if str(outside) in p]


def test_reachability_through_second_level_indexes_and_depth(make_store):
    hub = "# Projects\n" + "".join(f"- [P{i}](p{i}.md) — project {i}\n" for i in range(1, 6))
    folder = make_store(
        {
            "MEMORY.md": "# I\n- [Projects](projects-hub.md) — every project\n- [Deep](topics/deep.md)\n",
            "projects-hub.md": hub,  # a list of links: a second-level index by its body
            **{f"p{i}.md": MEM.format(name=f"p{i}") for i in range(1, 6)},
            "topics/deep.md": "- [[sub]]\n",  # a topic by the claude-code topics glob
            "sub.md": "# Sub\n" + "".join(f"- [S{i}](s{i}.md)\n" for i in range(1, 6)),
            **{f"s{i}.md": MEM.format(name=f"s{i}") for i in range(1, 6)},
        }
    )
    store = build(folder)
    graph = store.graph
    assert store.docs["projects-hub.md"].role == "index"
    assert graph.depth["p3.md"] == 2
    assert graph.depth["sub.md"] == 2 and graph.depth["s1.md"] == 3  # root -> topic -> sub-topic -> memory
    (folder / ".memlint.yaml").write_text("index-depth: 2\n")
    shallow = Store(folder, "MEMORY.md", load(None, start=folder))
    assert "s1.md" not in shallow.graph.depth and "p3.md" in shallow.graph.depth


def test_a_link_to_a_symlink_of_the_store_reaches_the_file_it_names(make_store, cli):
    """lk.md -> notes/target.md is one memory, read once (as target.md): the
    root's link to lk.md (or [[lk]]) reaches it; it is no orphan."""
    folder = make_store({"MEMORY.md": "# I\n- [L](lk.md) — l\n- [[alias]] — a\n",
                         "notes/target.md": MEM.format(name="t"), "notes/other.md": MEM.format(name="o")})
    (folder / "lk.md").symlink_to("notes/target.md")
    (folder / "alias.md").symlink_to("notes/other.md")
    (folder / "notes" / "Deep-Link.md").symlink_to("target.md")  # [[deep link]] finds it by its name, folded
    store = build(folder)
    assert "lk.md" not in store.docs and "alias.md" not in store.docs
    assert statuses(store, "MEMORY.md") == [("lk.md", "notes/target.md", OK), ("alias", "notes/other.md", OK)]
    assert {"notes/target.md", "notes/other.md"} <= store.graph.depth.keys()
    found = cli("check", "--format", "json", "--select", "MEM201,MEM202", folder).json()
    assert found == []
    # listed again by its own name, then as [[alias]] through the other link: MEM204 says which entry is the link
    with open(folder / "MEMORY.md", "a") as fh:
        fh.write("- [T](notes/target.md) — again\n- [[alias]] — again\n- [[lk.md]] — again\n- [[deep link]] — again\n")
    found = {f["line"]: f["message"] for f in cli("check", "--format", "json", "--select", "MEM204", folder).json()}
    assert found == {
        4: "notes/target.md is listed twice in this index (first on line 2, through lk.md, a symbolic link to it)",
        5: "notes/other.md is listed twice in this index (first on line 3, through alias.md, a symbolic link to it), "
           "here through alias.md, a symbolic link to it",
        6: "notes/target.md is listed twice in this index (first on line 2, through lk.md, a symbolic link to it), "
           "here through lk.md, a symbolic link to it",
        7: "notes/target.md is listed twice in this index (first on line 2, through lk.md, a symbolic link to it), "
           "here through notes/Deep-Link.md, a symbolic link to it",
    }


def test_memory_to_memory_links_reach_only_when_configured(make_store):
    files = {
        "MEMORY.md": "- [A](a.md)\n",
        "a.md": MEM.format(name="a") + "See [b](b.md).\n",
        "b.md": MEM.format(name="b"),
    }
    folder = make_store(files)
    assert "b.md" not in build(folder).graph.depth
    (folder / ".memlint.yaml").write_text("body-links-reach: true\n")
    assert "b.md" in Store(folder, "MEMORY.md", load(None, start=folder)).graph.depth


@pytest.mark.parametrize("store_dir", [".", "memory"])
def test_openclaw_backtick_refs_resolve_from_the_workspace(make_store, store_dir):
    prefix = "" if store_dir == "." else f"{store_dir}/"
    folder = make_store(
        {
            f"{prefix}MEMORY.md": "- See `memory/2026-03-01.md` and `memory/notes/tools.md#jq`; not `ls -la`.\n",
            f"{prefix}memory/2026-03-01.md": "# log\n",
            f"{prefix}memory/notes/tools.md": "# tools\n",
        }
    )
    store = build(folder / store_dir, preset="openclaw")
    assert [(t, s) for _, t, s in statuses(store, "MEMORY.md")] == [
        ("memory/2026-03-01.md", OK),
        ("memory/notes/tools.md", OK),
    ]
    assert "memory/notes/tools.md" in store.graph.depth


def test_a_backtick_path_drops_only_the_store_s_own_folders(make_store):
    # `vendor/acme/notes.md` once resolved to the store's notes.md: a false MEM205, and deploy.md's orphan hidden.
    folder = make_store({
        "memory/MEMORY.md": "- `memory/main.md` and `.claude/memory/x.md`\n- `vendor/acme/notes.md`\n"
                            "- `../webapp/docs/deploy.md`\n- `other/memory/main.md`\n",
        "memory/main.md": "# main\n", "memory/notes.md": "# notes\n", "memory/deploy.md": "# deploy\n",
    })
    store = build(folder / "memory", preset="claude-code")
    assert [(t, s) for _, t, s in statuses(store, "MEMORY.md")] == [("main.md", OK)]
    assert "notes.md" not in store.graph.depth and "deploy.md" not in store.graph.depth
    # A copy of a Claude Code store in a repository of its own still names its files `memory/x.md`.
    copy = make_store({"MEMORY.md": "- `memory/main.md`\n- `vendor/main.md`\n- `./memory/b.md`\n", "main.md": "# main\n",
                       "b.md": "# b\n"}, sub="claude-memory")
    assert [(t, s) for _, t, s in statuses(build(copy, preset="claude-code"), "MEMORY.md")] == [("main.md", OK), ("b.md", OK)]


def test_openclaw_reply_tags_are_not_links(make_store):
    folder = make_store({"MEMORY.md": "# M\n", "memory/2026-03-01.md": "[[reply_to_current]] hi [[reply_to:123]]\n"})
    store = build(folder, preset="moc")
    assert store.graph.out.get("memory/2026-03-01.md", []) == []


def test_index_detection_ignores_lists_of_urls(make_store):
    urls = "".join(f"- [Site {i}](https://example.com/{i}) — reference\n" for i in range(8))
    files = "".join(f"- [F{i}](f{i}.md) — memory\n" for i in range(8))
    folder = make_store({"MEMORY.md": "- [R](refs.md)\n- [T](topic.md)\n", "refs.md": urls, "topic.md": files})
    store = build(folder)
    assert store.docs["refs.md"].role == "memory"
    assert store.docs["topic.md"].role == "index"


def test_suggestions_use_names_not_a_scan():
    docs = {f"area{i % 50}/note-{i:04d}.md": None for i in range(5000)}
    docs["projects/project_pricing.md"] = None
    suggester = graph_mod._Suggester(docs)
    assert suggester.closest("project_pricng.md") == "projects/project_pricing.md"
    assert suggester.closest("Project-Pricing.md") == "projects/project_pricing.md"
    assert suggester.closest("other/project_pricing.md") == "projects/project_pricing.md"
    assert suggester.closest("zzzz-unrelated.md") is None


@pytest.mark.parametrize("given_table", ["none", "whole", "partial"])
def test_near_names_are_those_of_filing_every_file(given_table):
    """The fuzzy steps' lookups (files by their folded stem's first or last
    four characters, or by their folded stem after a type prefix), made only
    for the names asked for, give what filing every file would: the same
    files in the same order (fewest folders, then path), with a table of
    folded stems given whole, in part, or not at all, and past the scans
    after which every file is filed at once."""
    import random
    from collections import defaultdict

    rng = random.Random(9)
    parts = ["project", "feedback", "Project", "note", "ab", "price", "pricing", "Prix", "café", "e\u0301t\u00e9", "a b"]
    docs = {}
    while len(docs) < 600:
        folders = "/".join(rng.choice(["area", "x", "Deep"]) for _ in range(rng.randint(0, 2)))
        stem = rng.choice(parts) + rng.choice(["_", "-", "", " ", "."]) + rng.choice(parts) + rng.choice(["", "-2", "_old"])
        docs[(folders + "/" if folders else "") + stem + rng.choice([".md", ".md", ".txt"])] = None
    by_fold = None
    if given_table != "none":
        by_fold = defaultdict(list)
        for rel in sorted(docs, key=graph_mod._fewest_folders):
            if given_table == "whole" or rng.random() < 0.7:
                by_fold[graph_mod.fold(graph_mod._stem(rel))].append(rel)
        by_fold["projectpricing"].append("gone/project_pricing.md")  # a file no longer there: never an answer
    suggester = graph_mod._Suggester(docs, by_fold)
    expected = {"head": defaultdict(list), "tail": defaultdict(list), "unprefixed": defaultdict(list)}
    for rel in sorted(docs, key=graph_mod._fewest_folders):
        folded = graph_mod.fold(graph_mod._stem(rel))
        expected["head"][folded[:4]].append(rel)
        expected["tail"][folded[-4:]].append(rel)
        prefixed = graph_mod._TYPE_PREFIX.match(graph_mod._stem(rel))
        if prefixed and graph_mod.fold(graph_mod._stem(rel)[prefixed.end():]):
            expected["unprefixed"][graph_mod.fold(graph_mod._stem(rel)[prefixed.end():])].append(rel)
    asked = 0
    for table, keys in expected.items():
        for key in [*keys, "zzzz", "pric", "ject"]:
            assert suggester._near(table, key) == keys.get(key, []), (table, key)
            asked += table == "unprefixed"
    assert asked > suggester.MAX_SCANS and suggester._by_unprefixed is not None
    assert suggester.closest("project_pricng.md") == graph_mod._Suggester(docs).closest("project_pricng.md")


def _synthetic_store(base: Path, n: int) -> Path:
    topics = 50
    (base / "topics").mkdir(parents=True)
    (base / "MEMORY.md").write_text("".join(f"- [T{t}](topics/t{t}.md)\n" for t in range(topics)))
    for t in range(topics):
        (base / "topics" / f"t{t}.md").write_text(
            "".join(f"- [M{i}](../m/m{i}.md)\n" for i in range(t, n, topics) if i % 10)
        )
    (base / "m").mkdir()
    for i in range(n):
        (base / "m" / f"m{i}.md").write_text(
            f"---\nname: m{i}\ndescription: d\ntype: project\n---\n[[m{(i * 7) % n}]] [x](m{i}-gone.md) [y](../../../out.md)\n"
        )
    return base


def test_graph_of_5000_files_is_built_in_linear_time(tmp_path):
    def graph_seconds(n: int) -> float:
        store = build(_synthetic_store(tmp_path / f"s{n}", n))
        start = time.perf_counter()
        g = graph_mod.Graph(store)
        broken = [e for e in g.edges if e.status == BROKEN]
        for e in broken:
            g.suggest(store.docs[e.source], e.link.target)
        graph_mod.IndexFinder(g)
        assert len(broken) == n and sum(1 for r in store.docs if r not in g.depth) == n // 10
        return time.perf_counter() - start

    small, large = graph_seconds(1000), graph_seconds(5000)
    # 5x the files: about 5x the time when linear, 25x when quadratic.
    assert large < 12 * small + 0.5, (small, large)


def test_fold_drops_case_dashes_underscores_and_every_unicode_space():
    """fold() is ``[\\s_-]+`` removed after casefold, written without a regex:
    checked against that definition on every character up to U+3000."""
    import random
    import re

    definition = re.compile(r"[\s_\-]+")
    alphabet = [chr(c) for c in range(0x3001) if not 0xD800 <= c < 0xE000] + ["\u2028", "\u2029", "\ufeff", "\u200b"]
    rng = random.Random(7)
    samples = ["Foo-Bar_baz qux", "ẞtraße\u00a0Name", "a\u3000b\u2009c\x1fd\x85e", "--__  ", ""]
    samples += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 10))) for _ in range(20_000)]
    assert [graph_mod.fold(s) for s in samples] == [definition.sub("", s.casefold()) for s in samples]
    assert graph_mod.fold("Deploy  Notes_v2-final") == "deploynotesv2final"


def test_index_finder_places_each_orphan_by_bisection_not_a_copy_of_the_index(tmp_path):
    """best() is asked once per orphan: it copied the index's whole entry list
    (leaving out the orphan) each time, quadratic on a store of thousands of
    orphans beside a topic of thousands of entries. It bisects the list as
    built, passing over the file's own entry, which a memory asking of an
    index that lists it (topics: [x]) has."""
    (tmp_path / "m").mkdir()
    (tmp_path / "MEMORY.md").write_text("- [Notes](notes.md)\n")
    (tmp_path / "notes.md").write_text("".join(f"- [{i}](m/m{i}.md)\n" for i in (1, 3, 5, 7, 9)))
    for i in range(10):
        (tmp_path / "m" / f"m{i}.md").write_text(f"# m{i}\n")
    finder = graph_mod.IndexFinder(graph_mod.Graph(build(tmp_path, preset="generic")))

    class NoCopy(list):
        def __iter__(self):
            raise AssertionError("the index's entries copied for one orphan")

    finder.entries["notes.md"] = NoCopy(finder.entries["notes.md"])
    assert finder.best("m/m4.md") == ("notes.md", ("m/m3.md", 2))
    assert finder.best("m/m6.md") == ("notes.md", ("m/m5.md", 3))
    assert finder.best("m/m8.md") == ("notes.md", ("m/m7.md", 4))
    assert finder.best("m/m3.md") == ("notes.md", ("m/m1.md", 1))  # its own entry passed over, both ways near
    assert finder.best("m/m0.md") == ("notes.md", ("m/m1.md", 1))

"""`memlint graph`: mermaid, dot and json pictures of a store."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

MEM = "---\nname: {n}\ndescription: d\ntype: project\n---\nBody.\n"

SMALL = {
    "MEMORY.md": "# M\n- [[MOC-tools]]\n- [Gone](gone.md)\n",
    "MOC-tools.md": "# Tools\n- [[tools/rg]]\n- [[tools/jq]]\n",
    "tools/rg.md": "# rg\n",
    "tools/jq.md": "# jq\n[up](../../../../etc/passwd)\n",
    "tools/lost.md": "# lost\n",
}


def node_lines(text: str) -> list[str]:
    return [l.strip() for l in text.splitlines() if re.match(r"\s+n\d+\[", l)]


def test_mermaid_draws_root_topics_memories_orphans_and_broken(make_store, cli):
    store = make_store(SMALL)
    result = cli("graph", "--preset", "moc", store)
    assert result.exit_code == 0, result.stderr
    out = result.output
    assert out.startswith("flowchart LR\n")
    assert node_lines(out) == [
        'n0["MEMORY.md"]:::root',
        'n1["MOC-tools.md"]:::index',
        'n2["tools/rg.md"]:::memory',
        'n3["tools/jq.md"]:::memory',
        'n5["missing: gone.md"]:::broken',
        'n6["outside the repository: ../../../../etc/passwd"]:::outside',
        'n4["tools/lost.md"]:::orphan',  # inside the orphans box
    ]
    assert '  subgraph orphans["orphans: no index reaches these"]\n    direction LR\n    n4["tools/lost.md"]:::orphan\n  end' in out
    assert "  n0 --> n1\n  n1 --> n2\n  n1 --> n3\n" in out
    assert "  n0 -.->|line 3| n5\n" in out and "  n3 -.->|line 2| n6\n" in out
    assert "  classDef orphan " in out


def test_mermaid_labels_escape_what_would_end_them(make_store, cli):
    """A name with ``|``, ``#`` or ``"`` stays inside its node and its edge
    label: one ``|...|`` pair per labelled edge, entity codes for the rest."""
    store = make_store({
        "MEMORY.md": "# M\n- [[MOC-t]]\n",
        "MOC-t.md": "# T\n- [a](a.md)\n- [p](g|pipe.md)\n- [q](j#quot;.md)\n",
        "a.md": MEM.format(n="a"), "g|pipe.md": MEM.format(n="g") + "[gone](gone.md)\n",
        'j"x.md': MEM.format(n="j"),
    })
    out = cli("graph", "--preset", "moc", "--max-per-topic", "1", store).output
    for line in out.splitlines():
        if "-->" in line or "-.->" in line:
            assert line.count("|") in (0, 2), line
    assert "|g#124;pipe.md:7|" in out  # the collapsed file's broken link (its line 7), on its edge
    assert '["missing: j#35;quot;.md"]' in out and '["j#quot;x.md"]' in out


def test_an_ampersand_in_a_name_is_not_read_as_an_html_entity(make_store, cli):
    # Mermaid's labels are HTML: `&amp;` written as it is would show as "&"
    store = make_store({"MEMORY.md": "# M\n- [p](p%26amp;.md)\n", "p&amp;.md": MEM.format(n="p")})
    out = cli("graph", store).output
    assert 'n1["p#38;amp;.md"]:::memory' in out and "&" not in out


def test_an_ampersand_in_a_name_is_not_read_as_an_html_entity_by_graphviz(make_store, cli):
    store = make_store({"MEMORY.md": "# M\n- [p](p%26amp;.md)\n", "p&amp;.md": MEM.format(n="p")})
    out = cli("graph", "--format", "dot", store).output
    assert '[label="p&amp;amp;.md"' in out


def test_dot_output(make_store, cli):
    out = cli("graph", "--format", "dot", "--preset", "moc", make_store(SMALL)).output
    assert out.startswith("digraph memlint {\n  rankdir=LR;")
    assert '    s0n0 [label="MEMORY.md", style="filled,bold", fillcolor="#dbeafe"];' in out
    assert '    s0n4 [label="tools/lost.md", style=filled, fillcolor="#fef3c7"];' in out
    assert '    s0n0 -> s0n5 [label="line 3", style=dashed, color="#b91c1c"];' in out
    assert out.rstrip().endswith("}")


def test_json_lists_every_node_and_link(make_store, cli):
    result = cli("graph", "--format", "json", "--preset", "moc", make_store(SMALL))
    [store] = result.json()["stores"]
    nodes = {n["rel"]: n for n in store["nodes"]}
    assert nodes["tools/lost.md"]["orphan"] and not nodes["tools/lost.md"]["reachable"]
    assert nodes["tools/rg.md"]["depth"] == 2 and nodes["MOC-tools.md"]["role"] == "index"
    edges = {(e["source"], e["written"]): e for e in store["edges"]}
    assert edges[("MEMORY.md", "gone.md")]["status"] == "broken" and edges[("MEMORY.md", "gone.md")]["line"] == 3
    assert edges[("tools/jq.md", "../../../../etc/passwd")]["status"] == "outside"
    assert store["root"] == "MEMORY.md" and store["index_depth"] == 3


def test_a_500_file_store_stays_readable(make_store, cli):
    kinds = ("project", "feedback", "reference", "user")
    files = {f"{kinds[i % 4]}_note-{i:03d}.md": MEM.format(n=i) for i in range(500)}
    root = "# Index\n" + "".join(f"- [{rel}]({rel}) — hook\n" for rel in sorted(files)[:480])
    store = make_store({"MEMORY.md": root, **files})
    out = cli("graph", store).output
    nodes = node_lines(out)
    assert len(nodes) <= 12
    assert nodes[:5] == [
        'n0["MEMORY.md"]:::root',
        'n1["feedback* (125)"]:::group',
        'n2["project* (125)"]:::group',
        'n3["reference* (125)"]:::group',
        'n4["user* (105)"]:::group',
    ]
    assert 'subgraph orphans["orphans: no index reaches these"]\n    direction LR\n    n5["user* (20)"]:::group' in out


def test_a_500_file_map_of_content_stays_readable(make_store, cli):
    files = {"MEMORY.md": "# M\n" + "".join(f"- [[MOC-t{t}]]\n" for t in range(10))}
    for t in range(10):
        files[f"MOC-t{t}.md"] = "# T\n" + "".join(f"- [[t{t}/m{i}]]\n" for i in range(50))
        files.update({f"t{t}/m{i}.md": "# m\n" for i in range(50)})
    out = cli("graph", "--max-per-topic", "5", make_store(files)).output
    nodes = node_lines(out)
    assert len(nodes) == 21  # root, 10 topics, one count per topic
    assert '["t0/* (50)"]:::group' in " ".join(nodes)


def test_several_stores_are_subgraphs(make_store, cli, tmp_path):
    make_store({"MEMORY.md": "# a\n"}, sub="repo/a")
    make_store({"MEMORY.md": "# b\n"}, sub="repo/b")
    out = cli("graph", tmp_path / "repo").output
    assert out.count("subgraph s") == 2 and "s0n0" in out and "s1n0" in out
    data = json.loads(cli("graph", "--format", "json", tmp_path / "repo").output)
    assert len(data["stores"]) == 2


def test_json_names_stores_of_two_repositories_as_check_does(make_store, cli, tmp_path):
    for name in ("g1", "g2"):
        make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": "a\n"}, sub=f"top/{name}")
        subprocess.run(["git", "init", "-q", str(tmp_path / "top" / name)], check=True)
    data = cli("graph", "--format", "json", "g1", "g2", cwd=tmp_path / "top").json()
    assert [s["store"] for s in data["stores"]] == ["g1", "g2"]
    assert [n["path"] for n in data["stores"][1]["nodes"]] == ["g2/MEMORY.md", "g2/a.md"]
    checked = cli("check", "--format", "json", "--select", "MEM001", "g1", "g2", cwd=tmp_path / "top")
    assert {f["path"] for f in checked.json()} == {"g1/a.md", "g2/a.md"}  # the names check gives


def test_graph_usage_errors(tmp_path, cli):
    assert cli("graph", tmp_path / "nope").exit_code == 2
    (tmp_path / ".memlint.yaml").write_text("bogus: 1\n")
    (tmp_path / "MEMORY.md").write_text("# M\n")
    result = cli("graph", tmp_path)
    assert result.exit_code == 2 and "unknown key 'bogus'" in result.stderr


def test_graph_writes_output_file(make_store, cli, tmp_path):
    target = tmp_path / "store.mmd"
    result = cli("graph", "-o", target, make_store(SMALL))
    assert result.exit_code == 0 and result.output == ""
    assert target.read_text().startswith("flowchart LR")


def test_a_markdown_output_file_is_fenced_and_a_file_inside_the_store_is_said(make_store, cli, tmp_path):
    store = make_store(SMALL)
    outside = tmp_path / "pictures" / "store.md"
    outside.parent.mkdir()
    result = cli("graph", "-o", outside, store)
    text = outside.read_text(encoding="utf-8")
    assert text.startswith("```mermaid\nflowchart LR\n") and text.endswith("```\n") and result.stderr == ""
    inside = cli("graph", "-o", store / "store.md", store)
    assert "is inside the store" in inside.stderr and "exclude: [store.md]" in inside.stderr
    (store / ".out").mkdir()
    assert cli("graph", "-o", store / ".out" / "g.md", store).stderr == ""  # a hidden folder: never read
    subprocess.run(["git", "init", "-q", str(store / "sub")], check=True)
    assert cli("graph", "-o", store / "sub" / "g.md", store).stderr == ""  # a repository of its own: never read
    dot = cli("graph", "--format", "dot", "-o", tmp_path / "store.dot", store)
    assert (tmp_path / "store.dot").read_text(encoding="utf-8").startswith("digraph") and dot.stderr == ""


def test_a_newline_in_the_store_folder_name_stays_in_the_mermaid_comment(tmp_path, cli):
    folder = tmp_path / "nl\nx"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("- [x](x.md) — x\n", encoding="utf-8")
    (folder / "x.md").write_text("---\nname: x\ndescription: d\ntype: user\n---\nb\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # the title is the folder's path in the repository
    out = cli("graph", "nl\nx", cwd=tmp_path).output
    assert all(line.startswith(("flowchart", "  ")) for line in out.splitlines()), out



@pytest.mark.parametrize("command", [("graph",), ("report",), ("check", "--format", "json")])
def test_an_output_file_the_store_reads_is_refused_not_replaced(make_store, cli, command):
    store = make_store(SMALL)
    root = (store / "MEMORY.md").read_bytes()
    result = cli(*command, "-o", store / "MEMORY.md", store)
    assert result.exit_code == 2 and "is a file of the store" in result.stderr
    assert "exclude" not in result.stderr  # the root: no advice to stop reading it
    assert (store / "MEMORY.md").read_bytes() == root
    (store / ".memlint.yaml").write_text("exclude: [report.md]\n")
    (store / "report.md").write_text("old report\n")
    kept = cli(*command, "-o", store / "report.md", store)  # excluded: the store does not read it
    assert kept.exit_code in (0, 1) and (store / "report.md").read_text() != "old report\n"


@pytest.mark.parametrize("command", [("graph",), ("report",), ("check", "--format", "json")])
def test_an_output_named_as_a_folder_is_refused_and_dash_is_stdout(make_store, cli, tmp_path, command):
    store = make_store(SMALL)
    folder = cli(*command, "-o", f"{tmp_path / 'newdir'}/", store)
    assert folder.exit_code == 2 and "names a folder" in folder.stderr and not (tmp_path / "newdir").exists()
    to_stdout = cli(*command, "-o", "-", store)
    assert to_stdout.output == cli(*command, store).output != "" and not (Path.cwd() / "-").exists()


@pytest.mark.parametrize("command", [("graph",), ("graph", "--format", "json"), ("graph", "--format", "dot"), ("report",)])
def test_a_secret_pasted_as_a_link_target_is_redacted_in_the_picture(make_store, cli, command):
    """check redacts it in MEM202's message; the graph and the dashboard draw
    the same target and must not print it either."""
    key = "AKIAIOSFODNN7EXAMPLQ"
    store = make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n",
                        "a.md": MEM.format(n="a") + f"See [x]({key}.md).\n"})
    result = cli(*command, store)
    assert result.exit_code == 0 and key not in result.output and "AKIA…" in result.output


def test_json_lists_a_web_link_with_no_target(make_store, cli):
    store = make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n- [x](https://example.com) — web\n- <https://example.org>\n",
                        "a.md": MEM.format(n="a")})
    result = cli("graph", "--format", "json", store)
    assert result.exit_code == 0
    edges = json.loads(result.output)["stores"][0]["edges"]
    assert {e["written"] for e in edges} >= {"a.md", "https://example.com"}


def test_json_gives_each_link_as_written(make_store, cli):
    """`written` is the destination in the file (percent-encoding, entities,
    escapes and all, <> dropped; a reference link's from its definition);
    `target` is the file it reaches."""
    root = ("# M\n- [b](./b%20c.md) and [same](<b c.md>) — b\n- [amp](q&amp;a.md) [esc](e\\(1\\).md)\n"
            "- [ref][r] [enc](gone%2523.md#x%20y)\n- <https://example.org/a%20b>\n\n[r]: <b%20c.md>\n")
    store = make_store({"MEMORY.md": root, "b c.md": MEM.format(n="b"), "q&a.md": MEM.format(n="q"),
                        "e(1).md": MEM.format(n="e")})
    result = cli("graph", "--format", "json", store)
    assert result.exit_code == 0, result.stderr
    edges = json.loads(result.output)["stores"][0]["edges"]
    assert [(e["written"], e["target"]) for e in edges] == [
        ("./b%20c.md", "b c.md"), ("b c.md", "b c.md"), ("q&amp;a.md", "q&a.md"), ("e\\(1\\).md", "e(1).md"),
        ("b%20c.md", "b c.md"), ("gone%2523.md#x%20y", "gone%23.md"), ("https://example.org/a%20b", None)]


def test_a_reference_links_destination_is_its_definitions_not_the_next_links(make_store, cli):
    """A link to the same file further down, written otherwise, is not the
    reference link's; a broken link's node names its target with the % the
    file has, not the %25 the parse keeps."""
    root = "# M\n- [ref][r1]\n- [inline](b%20c.md)\n- [Q3](report%2050%.md)\n\n[r1]: <b c.md>\n"
    store = make_store({"MEMORY.md": root, "b c.md": MEM.format(n="b")})
    edges = json.loads(cli("graph", "--format", "json", store).output)["stores"][0]["edges"]
    assert [e["written"] for e in edges] == ["b c.md", "b%20c.md", "report%2050%.md"]
    assert 'missing: report 50%.md"' in cli("graph", store).output


@pytest.mark.parametrize("command", [("graph",), ("report",)])
def test_a_report_kept_in_the_store_is_written_again_by_the_next_run(make_store, cli, command):
    """A scheduled job writes its report to the same file each time: the
    second run replaces what the first wrote, with the same warning."""
    store = make_store(SMALL)
    for _ in range(2):
        result = cli(*command, "-o", store / "HEALTH.md", store)
        assert result.exit_code == 0 and "is inside the store" in result.stderr


@pytest.mark.parametrize("name", [".memlint.yaml", "schema.json"])
def test_a_file_that_configures_the_store_is_refused(make_store, cli, name):
    store = make_store({**SMALL, ".memlint.yaml": "schema: schema.json\n", "schema.json": '{"type": "object"}\n'})
    before = (store / name).read_bytes()
    result = cli("check", "--format", "json", "-o", store / name, store)
    assert result.exit_code == 2 and "configures the store" in result.stderr
    assert (store / name).read_bytes() == before


@pytest.mark.parametrize("name", [".git/HEAD", ".git/report.txt", "sub/.git/config"])
def test_an_output_inside_git_s_own_folder_is_refused(make_store, cli, name):
    # `check -o .git/HEAD` replaced HEAD with the report: the repository was gone
    store = make_store(SMALL)
    (store / ".git").mkdir()
    (store / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    result = cli("check", "-o", store / name, store)
    assert result.exit_code == 2 and "is inside a git repository's own folder" in result.stderr, result.stderr
    assert (store / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert not (store / name).exists() or name == ".git/HEAD"


def test_an_output_inside_a_bare_repository_is_refused(make_store, cli, tmp_path):
    store = make_store(SMALL)
    bare = tmp_path / "dotfiles"  # GIT_DIR=~/.dotfiles: a repository without a .git folder
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    head = (bare / "HEAD").read_bytes()
    result = cli("check", "-o", bare / "HEAD", store)
    assert result.exit_code == 2 and "is inside a git repository's own folder" in result.stderr, result.stderr
    assert (bare / "HEAD").read_bytes() == head


def test_an_output_through_a_link_to_a_store_file_is_refused(make_store, cli):
    store = make_store(SMALL)
    root = (store / "MEMORY.md").read_bytes()
    (store / "link.txt").symlink_to(store / "MEMORY.md")
    result = cli("check", "-o", store / "link.txt", store)
    assert result.exit_code == 2 and "is a file of the store" in result.stderr
    assert (store / "MEMORY.md").read_bytes() == root


@pytest.mark.parametrize("name", ["team/MEMORY.md", "team/t.md", "team/.memlint.yaml", "team/pyproject.toml",
                                  "team/team-schema.json"])
def test_a_file_of_a_store_this_run_does_not_check_is_refused_too(make_store, cli, name):
    # `check mem -o team/MEMORY.md` replaced the other store's root with the report.
    store = make_store({**{f"mem/{k}": v for k, v in SMALL.items()},
                        "team/MEMORY.md": "- [t](t.md)\n", "team/t.md": "---\nname: t\ndescription: d\n---\nok\n",
                        "team/.memlint.yaml": "rules: {MEM102: off}\nschema: team-schema.json\n",
                        "team/team-schema.json": '{"type": "object"}\n',
                        "team/pyproject.toml": "[tool.memlint]\npreset = 'generic'\n"})
    before = (store / name).read_bytes()
    result = cli("check", "-o", store / name, store / "mem")
    assert result.exit_code == 2 and ("team: not replaced by this report" in result.stderr
                                      or "is where memlint reads its settings" in result.stderr
                                      or "configures the store team" in result.stderr), result.stderr
    assert (store / name).read_bytes() == before


def test_a_new_report_beside_another_store_is_written(make_store, cli):
    store = make_store({**{f"mem/{k}": v for k, v in SMALL.items()}, "team/MEMORY.md": "- [t](t.md)\n",
                        "team/pyproject.toml": "[project]\nname = 'x'\n"})
    assert cli("check", "-o", store / "team" / "report.txt", store / "mem").exit_code in (0, 1)
    assert (store / "team" / "report.txt").exists()

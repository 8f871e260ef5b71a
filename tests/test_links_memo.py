"""The link graph and the wiki names built on an earlier run's memo
(memlint.graph.LinksMemo) equal the ones built afresh, through random edits,
renames, removals, name changes, role changes and files appearing outside
the store; and a run after a small change does reuse the memo."""
from __future__ import annotations

import random

import pytest

from memlint.config import load
from memlint.graph import LinksMemo
from memlint.store import Store
from tests.gitrepo import GitRepo

WORDS = ["alpha", "beta", "Gamma Ray", "delta_x", "eps-ilon", "zeta", "ETA", "theta", "iota", "kappa"]


def memory(rng: random.Random, names: list[str]) -> str:
    """A memory with frontmatter names and links of every kind to ``names`` (store paths, some gone)."""
    name = rng.choice(WORDS) + rng.choice(["", "-2", " note"])
    front = [f"name: {name}", "description: d", "type: project"]
    if rng.random() < 0.3:
        front.append(f"title: {rng.choice(WORDS)}")
    if rng.random() < 0.3:
        front.append(f"aliases: [{rng.choice(WORDS)}, {rng.choice(WORDS)}]")
    body = []
    for _ in range(rng.randint(0, 5)):
        target = rng.choice(names + ["missing.md", "../outside.md", "other/readme.md"])
        stem = target.rsplit("/", 1)[-1][:-3]
        body.append(rng.choice([
            f"See [x]({target}).",
            f"See [[{stem}]].",
            f"See [[{rng.choice(WORDS)}]].",
            f"See [[{stem.upper().replace('-', ' ')}]].",
            f"See [[{target}]].",
            f"See [[../other/{stem}]].",
            "See [web](https://example.com/x.md) and [anchor](#top).",
            f"See [up](../{target}#part).",
        ]))
    return "---\n" + "\n".join(front) + "\n---\n" + "\n".join(body) + "\n"


def index(rng: random.Random, names: list[str]) -> str:
    lines = ["# Topic", ""]
    for target in rng.sample(names, min(len(names), rng.randint(5, 8))):
        lines.append(rng.choice([f"- [{target}]({target}) — a fact", f"- [[{target[:-3]}]] — a fact",
                                 f"- `{target}` — a fact"]))
    return "\n".join(lines) + "\n"


def graph_of(store: Store) -> tuple:
    graph = store.graph
    return (graph.edges, dict(graph.out), dict(graph.inbound), graph.depth,
            {tag: dict(table) for tag, table in store.wiki_names.tables.items()})


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("preset", ["claude-code", "generic"])
def test_a_graph_built_on_the_memo_equals_one_built_afresh(tmp_path, seed, preset):
    rng = random.Random(seed)
    repo = GitRepo(tmp_path / "repo")
    store_dir = repo.root / "memory"
    repo.write("other/readme.md", "# elsewhere\n")
    names = [f"notes/{w.lower().replace(' ', '-')}-{i}.md" for i, w in enumerate(WORDS)] + ["top.md", "b/deep.md"]
    files = {name: memory(rng, names) for name in names}
    files["MEMORY.md"] = index(rng, names)
    files["topics/t.md"] = index(rng, names)
    for rel, text in files.items():
        repo.write(f"memory/{rel}", text)
    repo.commit("start", "2025-01-02T10:00:00+00:00")
    reused = 0
    for step in range(14):
        action = rng.choice(["edit", "add", "remove", "rename", "index", "outside", "unstaged", "names", "topics"])
        pick = rng.choice(sorted(files))
        if action == "edit" and pick != "MEMORY.md":
            files[pick] = memory(rng, names)
        elif action == "add":
            new = f"notes/{rng.choice(WORDS).lower().replace(' ', '-')}-{step}.md"
            files[new] = memory(rng, names)
            names.append(new)
        elif action == "remove" and pick != "MEMORY.md":
            del files[pick]
            (store_dir / pick).unlink()
        elif action == "rename" and pick != "MEMORY.md":
            to = f"moved/{pick.rsplit('/', 1)[-1]}"
            files[to] = files.pop(pick)
            (store_dir / pick).unlink()
        elif action == "index" and pick != "MEMORY.md":
            files[pick] = index(rng, names)  # a memory becomes a topic index: its role changes
        elif action == "outside":  # a file outside the store that a broken link may now find
            (repo.root / "missing.md").write_text("now here\n")
        elif action == "topics":  # unchanged files become topic indexes, or stop being ones
            config = repo.root / ".memlint.yaml"
            config.unlink() if config.exists() else config.write_text('topics: ["notes/**"]\n')
        elif action == "names":
            files[pick] = files[pick].replace("name: ", "name: renamed ", 1)
        for rel, text in files.items():
            repo.write(f"memory/{rel}", text, add=action != "unstaged")
        if action != "unstaged":
            repo.run("add", "-A", "memory")
        if rng.random() < 0.5:
            repo.commit(f"step {step}", f"2025-02-{step + 1:02d}T10:00:00+00:00", allow_empty=True)

        config = load(None, start=repo.root)
        fresh = Store(store_dir, "MEMORY.md", config, preset=preset)
        cached = Store(store_dir, "MEMORY.md", config, preset=preset, cache=True)
        assert cached.cache is not None
        kept = cached.kept("links")
        got = graph_of(cached)
        assert got == graph_of(fresh), f"step {step}: {action} {pick}"
        if isinstance(kept, LinksMemo) and kept.graph is not None and cached.wiki_names.baseline is kept:
            reused += 1
        cached.save_cache()
    assert reused >= 8  # most runs built on the one before


def test_a_run_after_a_small_change_resolves_only_what_the_change_may_move(tmp_path, monkeypatch):
    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", "# M\n\n" + "".join(f"- [[note {i}]] — x\n" for i in range(30)))
    for i in range(30):
        repo.write(f"memory/note-{i}.md", f"---\nname: note {i}\ndescription: d\n---\nSee [[note {i + 1}]].\n")
    repo.commit("start", "2025-01-02T10:00:00+00:00")
    store_dir = repo.root / "memory"
    Store(store_dir, "MEMORY.md", load(None, start=store_dir), cache=True).save_cache()  # nothing built: no memo
    first = Store(store_dir, "MEMORY.md", load(None, start=store_dir), cache=True)
    first.graph  # noqa: B018
    first.save_cache()

    from memlint import graph as graph_mod

    resolved = []
    real = graph_mod.Graph._resolve
    monkeypatch.setattr(graph_mod.Graph, "_resolve", lambda self, doc, link: resolved.append(doc.rel) or real(self, doc, link))
    repo.write("memory/note-30.md", "---\nname: note 30\ndescription: d\n---\nSee [[note 0]].\n")  # note-29 links to it
    repo.commit("add", "2025-01-03T10:00:00+00:00")
    store = Store(store_dir, "MEMORY.md", load(None, start=store_dir), cache=True)
    edges = {(e.source, e.target, e.status) for e in store.graph.edges}
    assert ("note-29.md", "note-30.md", "ok") in edges
    # The new file's link, and note-29's, whose [[note 30]] named nothing before; no other.
    assert sorted(resolved) == ["note-29.md", "note-30.md"]


def test_a_name_holding_a_nul_is_resolved_again_each_run(tmp_path):
    """The memo keeps a link's lookups "\\0"-separated: a [[name]] with a NUL
    in it (past the first 8 KB, where the binary check does not look) is
    not built on, so a file taking that name later is found."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("memory/MEMORY.md", "# M\n\n- [L](l.md) — links\n- [X](x.md) — x\n")
    repo.write("memory/x.md", '---\nname: "A\\0B"\ndescription: d\n---\nbody\n')  # found by its folded name
    repo.path("memory/l.md").write_bytes(b"---\nname: l\n---\n" + b"filler " * 1300 + b"\n\nSee [[a\x00b]].\n")
    repo.add("memory/l.md")
    repo.commit("start", "2025-01-02T10:00:00+00:00")
    store_dir = repo.root / "memory"

    def target(cache: bool) -> list[str]:
        store = Store(store_dir, "MEMORY.md", load(None, start=repo.root), cache=cache)
        found = [e.target for e in store.graph.edges if e.source == "l.md"]
        store.save_cache()
        return found

    assert target(True) == ["x.md"]
    repo.write("memory/y.md", '---\nname: "a\\0b"\ndescription: d\n---\nbody\n')  # the exact name now
    repo.commit("y", "2025-01-03T10:00:00+00:00")
    assert target(True) == target(False) == ["y.md"]

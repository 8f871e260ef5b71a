"""<!-- memlint-disable ... --> comments hide findings in that file only."""
from __future__ import annotations

import pytest

LONG = "- [A](a.md) — " + "x" * 200
LONG_B = "- [B](b.md) — " + "x" * 200
MEM = "---\nname: a\ndescription: d\ntype: user\n---\nBody\n"


def root_findings(make_store, findings, root):
    files = {"MEMORY.md": root, "a.md": MEM}
    if "(b.md)" in root:
        files["b.md"] = MEM.replace("name: a", "name: b")
    store = make_store(files)
    return [(line, code) for _, line, code in findings(store)]


@pytest.mark.parametrize(
    "root, expected",
    [
        (f"# I\n{LONG}\n", [(2, "MEM102")]),
        (f"# I\n<!-- memlint-disable-next-line MEM102 -->\n{LONG}\n", []),
        (f"# I\n<!-- memlint-disable-next-line index-line-length -->\n{LONG}\n", []),
        (f"# I\n<!-- memlint-disable-next-line MEM101 -->\n{LONG}\n", [(3, "MEM102")]),
        (f"# I\n<!-- memlint-disable-next-line -->\n{LONG}\n", []),
        (f"# I\n{LONG} <!-- memlint-disable-line MEM102 -->\n", []),
        (f"<!-- memlint-disable-file MEM102 -->\n# I\n{LONG}\n{LONG_B}\n", []),
        (f"# I\n<!-- memlint-disable MEM102 -->\n{LONG}\n<!-- memlint-enable MEM102 -->\n{LONG_B}\n", [(5, "MEM102")]),
        (f"# I\n<!-- memlint-disable budget -->\n{LONG}\n", []),
        (f"# I\n<!-- memlint-disable-next-line Index-Line-Length -->\n{LONG}\n", []),  # names in any case
        # `enable` of one rule leaves the others of the range disabled
        (f"# I\n<!-- memlint-disable -->\n{LONG}\n<!-- memlint-enable MEM102 -->\n{LONG_B}\n"
         "- [C](gone.md) — c\n<!-- memlint-disable -->\n{LONG}\n".replace("{LONG}", LONG), [(5, "MEM102")]),
        # `enable` of one rule leaves the others of the range disabled
        (f"# I\n<!-- memlint-disable MEM102, MEM202 -->\n{LONG}\n<!-- memlint-enable MEM202 -->\n"
         f"- [C](gone.md) — {'x' * 200}\n<!-- memlint-enable MEM102 -->\n{LONG_B}\n", [(5, "MEM202"), (7, "MEM102")]),
        # quoted in code, a directive is text: a memory about memlint silences nothing
        (f"# I\nWrite `<!-- memlint-disable-file -->` to silence a file.\n{LONG}\n", [(3, "MEM102")]),
        (f"# I\n```markdown\n<!-- memlint-disable-file -->\n```\n{LONG}\n", [(5, "MEM102")]),
        # a stray backtick does not make a directive on a line of its own code
        (f"# I\n- press the ` key\n<!-- memlint-disable-next-line MEM102 -->\n{LONG}\n- build with `make`\n", []),
        # a code and a name of one rule open and close the same range
        (f"# I\n<!-- memlint-disable MEM102 -->\n{LONG}\n<!-- memlint-enable index-line-length -->\n{LONG_B}\n",
         [(5, "MEM102")]),
        (f"# I\n<!-- memlint-disable budget -->\n{LONG}\n<!-- memlint-enable MEM102 -->\n{LONG_B}\n", [(5, "MEM102")]),
        # a mistyped directive is no directive, not one that disables the rest of the file
        (f"# I\n<!-- memlint-disable-next-lines MEM102 -->\n{LONG}\n\n\n{LONG_B}\n", [(3, "MEM102"), (6, "MEM102")]),
    ],
)
def test_directives(make_store, findings, root, expected):
    assert root_findings(make_store, findings, root) == expected


def test_directive_in_one_file_does_not_hide_another(make_store, findings):
    store = make_store(
        {
            "MEMORY.md": f"# I\n{LONG}\n- [B](b.md)\n",
            "a.md": "<!-- memlint-disable-file -->\n# no frontmatter\n",
            "b.md": "# no frontmatter either\n",
        }
    )
    got = sorted((p, c) for p, _, c in findings(store))
    assert got == [("MEMORY.md", "MEM102"), ("b.md", "MEM001")]


# ---------------------------------------------------------------- ranges, exactly and at scale

def plain_hides(text: str, line: int, keys: set[str]) -> bool:
    """The directives as they read, written plainly: the state after every
    directive up to ``line``. A disable opens a range for the rules it names;
    an enable closes the ranges of the rules it names, and turns them back on
    inside a range of every rule; naming none, a disable turns every rule
    off (those turned back on too), an enable closes every range."""
    from memlint.suppress import _DIRECTIVE, ALL, _rules

    open_for: set[str] = set()  # rules with a range of their own open
    every, back_on = False, set()
    for m in _DIRECTIVE.finditer(text):
        if text.count("\n", 0, m.start()) + 1 > line:
            break
        kind, rules = m.group(1), _rules(m.group(2))
        if kind == "disable" and ALL in rules:
            every, back_on = True, set()
        elif kind == "disable":
            open_for |= rules
        elif ALL in rules:
            open_for, every, back_on = set(), False, set()
        elif kind == "enable":
            open_for -= rules
            back_on |= rules if every else set()
    return bool(open_for & keys) or (every and not back_on & keys)


def test_ranges_hide_exactly_the_lines_they_cover():
    import random

    from memlint.suppress import parse

    rng = random.Random(7)
    names = ["MEM101", "MEM102", "budget", "orphan", "*", ""]
    for _ in range(300):
        lines = []
        for _ in range(rng.randint(0, 25)):
            kind = rng.choice(["disable", "enable", "text", "text"])
            picked = " ".join(rng.sample(names, rng.randint(0, 2)))
            lines.append("prose" if kind == "text" else f"<!-- memlint-{kind} {picked} -->")
        text = "\n".join(lines) + "\n"
        sup = parse(text)
        for line in range(1, len(lines) + 2):
            for keys in ({"MEM101", "budget"}, {"MEM102"}, {"MEM201", "orphan"}):
                assert sup.hides(line, keys) == plain_hides(text, line, keys), (text, line, keys)


def test_enabling_rules_one_by_one_is_linear_too():
    """One range of n rules, then n enables of one rule each: each closes its
    own rule (a copy of the rest per enable made n**2 / 2 names)."""
    from memlint.suppress import parse

    n = 20_000
    text = "<!-- memlint-disable " + " ".join(f"r{i}" for i in range(n)) + " -->\n"
    text += "".join(f"<!-- memlint-enable r{i} -->\n" for i in range(n))
    sup = parse(text)
    assert sum(len(rules) for _, _, rules in sup.ranges) == n
    last = f"r{n - 1}"  # enabled on line n + 1, the last of them
    assert sup.hides(n, {last}) and not sup.hides(n + 1, {last}) and sup.hides(1, {"r0"}) and not sup.hides(2, {"r0"})


def test_a_file_of_many_directives_is_read_in_linear_time():
    """100,000 ranges opened, then closed by enables naming other rules, then
    asked about 100,000 times: one pass and a bisect each (a scan of every
    open range per directive, or of every range per question, would take
    hours here)."""
    from memlint.suppress import parse

    n = 100_000
    text = "".join(f"<!-- memlint-disable R{i} -->\n" for i in range(n))
    text += "".join(f"<!-- memlint-enable Q{i} -->\n" for i in range(n))
    sup = parse(text)
    assert len(sup.ranges) == n
    assert sum(sup.hides(line, {f"r{line - 1}"}) for line in range(1, n + 1)) == n  # names are matched in lower case
    assert not any(sup.hides(line, {"MEM101"}) for line in range(1, n + 1))


def test_a_rule_name_that_starts_like_a_code_names_the_rule(make_store, cli):
    """memory-oversized (MEM104) begins with "mem": it is a name, not a code."""
    body = "".join(f"Line {i}.\n" for i in range(400))
    store = make_store({"MEMORY.md": "# I\n- [A](a.md) — a\n",
                        "a.md": MEM.replace("Body\n", body) + "<!-- memlint-disable-file memory-oversized -->\n"})
    assert cli("check", "--format", "json", store).json() == []
    assert cli("check", "--ignore", "memory-oversized", store).exit_code == 0


def test_a_directive_naming_no_rule_is_told_not_silently_ignored(make_store, cli):
    """A typo (`orphn`, `MEM999`) hides nothing: the user hears so, with the
    file and line, while the rules it does name still work; a directive
    quoted in code is text and says nothing."""
    store = make_store({
        "MEMORY.md": f"# I\n<!-- memlint-disable-next-line orphn, MEM102 -->\n{LONG}\n"
                     "- write `<!-- memlint-disable typo -->` to silence a range\n",
        "a.md": MEM + "<!-- memlint-disable-file MEM999 -->\n",
    })
    result = cli("check", "--format", "json", store)
    assert result.json() == []  # MEM102 hidden: the known name works
    told = [line for line in result.stderr.splitlines() if "names no rule" in line or "no rule's" in line]
    assert len(told) == 2, result.stderr
    assert "MEMORY.md:2:" in told[0] and "'orphn'" in told[0] and "hides nothing" in told[0]
    assert "a.md:7:" in told[1] and "'MEM999'" in told[1]
    assert "typo" not in result.stderr


def test_known_names_in_directives_say_nothing(make_store, cli):
    store = make_store({
        "MEMORY.md": f"# I\n<!-- memlint-disable-next-line index-line-length, MEM1, budget -->\n{LONG}\n",
        "a.md": MEM + "<!-- memlint-disable-file -->\n",
    })
    result = cli("check", "--format", "json", store)
    assert result.json() == [] and "hides nothing" not in result.stderr


def test_a_directive_naming_no_rule_is_told_from_a_cached_parse_too(make_store, cli):
    """The second run reads a.md's parse from the cache (another file
    changed, so the findings are not reused): its typo is still told."""
    store = make_store({"MEMORY.md": "# I\n- [A](a.md) — a\n", "a.md": MEM + "<!-- memlint-disable-file orphn -->\n"})
    first = cli("check", "--format", "json", store)
    assert "'orphn'" in first.stderr
    (store / "MEMORY.md").write_text("# Index\n- [A](a.md) — a\n", encoding="utf-8")
    second = cli("check", "--format", "json", store)
    assert second.json() == first.json() == []
    assert "a.md:7:" in second.stderr and "'orphn'" in second.stderr


def test_a_misspelt_directive_is_told_with_the_one_meant(make_store, cli):
    """`memlint-disable-nextline`, `memlint-disable-file:` hide nothing: the
    user hears so, with the file, the line and the directive meant; a
    directive quoted in code says nothing, nor does prose about memlint."""
    store = make_store({
        "MEMORY.md": f"# I\n<!-- memlint-disable-nextline MEM102 -->\n{LONG}\n"
                     "- write `<!-- memlint-ignore -->` to silence nothing; memlint-files is a hook\n",
        "a.md": MEM + "<!-- memlint-disable-file: MEM001 -->\n<!-- memlint-shush -->\n",
    })
    result = cli("check", "--format", "json", store)
    assert [f["line"] for f in result.json()] == [3]  # MEM102 is not hidden
    told = [line for line in result.stderr.splitlines() if "is no memlint directive" in line]
    assert told == [
        "memlint: MEMORY.md:2: `memlint-disable-nextline` is no memlint directive, so it hides nothing; "
        "did you mean `memlint-disable-next-line`?",
        "memlint: a.md:7: `memlint-disable-file:` is no memlint directive, so it hides nothing; "
        "did you mean `memlint-disable-file`?",
        "memlint: a.md:8: `memlint-shush` is no memlint directive, so it hides nothing; the directives are "
        "`memlint-disable`, `memlint-enable`, `memlint-disable-line`, `memlint-disable-next-line`, "
        "`memlint-disable-file`",
    ], result.stderr


def test_the_secret_allow_comment_and_a_directive_holding_a_link_are_told_rightly(make_store, cli):
    """`memlint-allow-secret` is memlint's too (MEM601): no notice. A right
    directive that holds a `<`, as a link does, is not called misspelt."""
    store = make_store({
        "MEMORY.md": f"# I\n<!-- memlint-disable-next-line MEM102 (see <https://wiki.example/x>) -->\n{LONG}\n"
                     "- [A](a.md) — a <!-- memlint-allow-secret -->\n",
    })
    result = cli("check", "--format", "json", store)
    assert [f["line"] for f in result.json() if f["code"] == "MEM102"] == [3]
    told = [line for line in result.stderr.splitlines() if "memlint-" in line]
    assert told == ["memlint: MEMORY.md:2: `memlint-disable-next-line` holds a `<` or `>`, which a directive may not "
                    "(it ends at the comment's `-->`, and names rules only): it hides nothing"], result.stderr

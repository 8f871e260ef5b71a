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

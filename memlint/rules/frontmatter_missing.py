"""A memory file has no frontmatter, and the preset requires it.

Why: harnesses read a memory's ``name``/``description``/``type`` from its
frontmatter to decide whether to load it; without it the memory is anonymous.

Options: none. Applies when the store setting ``frontmatter`` is
``required`` (claude-code, three-layer) to memory files (not the root,
indexes, daily logs or exempt files).

Fires:

    # Deploy notes
    Always run the smoke test first.

A block whose lines end in a lone CR (``\\r``, old Mac line endings) is one
line of text to harnesses and to memlint: the finding says so.

Fix: add a block at the very top:

    ---
    name: deploy-smoke-test
    description: run the smoke test before any deploy
    type: feedback
    ---
"""
from memlint.finding import Problem

CODE = "MEM001"
NAME = "frontmatter-missing"
SEVERITY = "error"
SCOPE = "file"
LOCAL = True
TAGS = ("frontmatter",)
OPTIONS: dict = {}


def check(doc, store, options):
    if doc.role != "memory" or doc.parsed is None or store.settings["frontmatter"] != "required":
        return
    if doc.parsed.frontmatter_lines is None:
        if doc.parsed.text.startswith("---\r") and not doc.parsed.text.startswith("---\r\n"):
            yield Problem(doc.path, 1, 1, "no frontmatter that a harness reads: the lines end in a lone CR (\\r, old "
                          "Mac line endings), so the --- block on line 1 is one line of text; convert the line endings to \\n")
            return
        yield Problem(doc.path, 1, 1, "no frontmatter: this store wants a --- block with the memory's fields on line 1")

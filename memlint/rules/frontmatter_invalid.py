"""The frontmatter block is not valid YAML, is never closed, or is not a mapping.

Why: a harness that cannot parse the block drops the memory's metadata, and
often the memory with it.

A ``---`` on line 1 whose block holds no field is a horizontal rule around
plain markdown, not a frontmatter: no ``key:`` line, no field name, and
markdown YAML would read as text or a list of lines (a paragraph, a heading
and a list, a table, bold text, a task list ``- [x] done``). Fields written
as a list (``- name: x``) or without their colons (``name pricing``) are a
broken frontmatter, unless the block also holds one of those markdown lines.

Options: none. The message gives YAML's own line and column.

Fires:

    ---
    name: "unclosed
    description: what it says
    type: feedback
    ---

Fix: correct the YAML (quote values containing ``: ``, close quotes and
brackets, use spaces not tabs), and make the block a mapping of fields.
"""
from memlint.finding import Problem

CODE = "MEM002"
NAME = "frontmatter-invalid"
SEVERITY = "error"
SCOPE = "file"
LOCAL = True
TAGS = ("frontmatter",)
OPTIONS: dict = {}


def check(doc, store, options):
    if doc.parsed is None or doc.parsed.frontmatter_error is None:
        return
    error = doc.parsed.frontmatter_error
    yield Problem(doc.path, error.line, error.column, error.message)

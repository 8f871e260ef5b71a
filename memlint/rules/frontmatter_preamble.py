"""Frontmatter that does not start on line 1.

Why: text before the opening ``---`` (a title, a blank line, a comment) makes
most harnesses and markdown tools treat the block as body text: the fields
are never read. memlint parses the block anyway so the other rules still work.

Options: none.

Fires:

    # My memory
    ---
    name: x
    description: what x says
    type: feedback
    ---

Fix: move the ``---`` block to the very top of the file.
"""
from memlint.finding import Problem

CODE = "MEM005"
NAME = "frontmatter-preamble"
SEVERITY = "warning"
SCOPE = "file"
LOCAL = True
TAGS = ("frontmatter",)
OPTIONS: dict = {}


def check(doc, store, options):
    parsed = doc.parsed
    if parsed is None or not parsed.preamble_lines or parsed.frontmatter_lines is None:
        return
    n = parsed.preamble_lines
    yield Problem(
        doc.path,
        parsed.frontmatter_lines[0],
        1,
        f"frontmatter starts after {n} line{'s' if n != 1 else ''} of other text; harnesses read it only on line 1",
    )

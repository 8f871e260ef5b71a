"""A markdown file memlint (and the agent) cannot read as text.

Why: binary data, a non-UTF-8 encoding, a symbolic link that leaves the
repository or points nowhere, or a file too large to parse are all silently
garbled or skipped by harnesses. memlint never follows a link out of the
repository.

Options: none.

Fires: a ``.md`` file saved as UTF-16 or Latin-1, an image renamed to ``.md``,
``notes.md -> /etc/passwd``.

Fix: re-save as UTF-8, rename non-markdown files, replace the symlink with the
file itself.
"""
from memlint.finding import Problem

CODE = "MEM006"
NAME = "file-unreadable"
SEVERITY = "error"
SCOPE = "file"
LOCAL = True
TAGS = ("files",)
OPTIONS: dict = {}


def check(doc, store, options):
    if doc.problem:
        yield Problem(doc.path, doc.problem_line, 0, doc.problem)

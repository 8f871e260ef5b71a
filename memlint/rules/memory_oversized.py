"""A memory file is over its line or byte cap.

Why: one memory should hold one fact; a bloated file costs context every
time it is loaded and hides its point.

Options: ``max-lines`` (openclaw 500, others 300), ``max-bytes``
(openclaw 50000, others 25000); ``null`` turns one off. Applies to memory files, not indexes or
daily logs, and not to retired memories (tag ``content``: no agent loads them).

Fires: a 450-line ``project_notes.md`` (on line 301, the first over the cap;
over the byte cap only, on the line the cap falls in).

Fix: split it into one file per fact, or move history into a daily log.
"""
from memlint.finding import Problem
from memlint.rules._common import lines_but_blank_tail

CODE = "MEM104"
NAME = "memory-oversized"
SEVERITY = "warning"
SCOPE = "file"
LOCAL = True
TAGS = ("budget", "content")
OPTIONS = {
    "max-lines": ((int, type(None)), 300),
    "max-bytes": ((int, type(None)), 25000),
}


def check(doc, store, options):
    if doc.role != "memory" or doc.parsed is None:
        return
    max_lines, max_bytes = options["max-lines"], options["max-bytes"]
    lines = lines_but_blank_tail(doc)
    over_lines = max_lines is not None and lines > max_lines
    over_bytes = max_bytes is not None and doc.size > max_bytes
    bytes_said = f"{doc.size:,} bytes, over its cap of {max_bytes:,}" if over_bytes else ""
    if over_lines:
        also = f"; and {bytes_said}" if over_bytes else ""
        yield Problem(doc.path, max_lines + 1, 1, f"memory is {lines:,} lines, over its cap of {max_lines:,}{also}")
    elif over_bytes:  # on the line the cap falls in, as the line cap's finding sits on the first line over it
        yield Problem(doc.path, _line_of_byte(doc.parsed.text, max_bytes, doc.size), 1, f"memory is {bytes_said}")


def _line_of_byte(text: str, offset: int, size: int) -> int:
    """The line holding UTF-8 byte ``offset`` (from 0) of the file whose
    ``text`` this is and which is ``size`` bytes: the parse drops a byte
    order mark, which ``size`` counts (three bytes before line 1's text)."""
    data = text.encode("utf-8", "surrogateescape")
    return data[:max(0, offset - (size - len(data)))].count(b"\n") + 1

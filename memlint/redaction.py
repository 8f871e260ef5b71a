"""Keep secrets out of every finding, whichever rule wrote it.

Rules quote what they find (``created: 'X' is not a date``), and a memory
file may hold a pasted token exactly there. Before findings leave the
linter, any credential that :mod:`memlint.secrets` sees, in the file a
finding is on or in the message itself, is replaced by its redacted form
(``AKIA…(20 chars)``).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable, Iterable

from memlint import secrets
from memlint.finding import Finding

# Where a quoted secret ends: whitespace, quotes, brackets, separators.
_TOKEN = re.compile(r"[^\s'\"`<>()\[\]{},;|]+")
_MIN_SECRET = 8  # shorter values are not worth a redaction (and would hit words)
_OWN_CODE = "MEM601"  # its messages are built from the kind and fingerprint only


def redact_findings(findings: Iterable[Finding], secrets_in: Callable[[str], list[str]]) -> list[Finding]:
    """``findings`` with secrets redacted from their messages.

    ``secrets_in(path)`` gives the secrets in a repo-relative file (say,
    ``secret_values`` of its text); it is asked only about the files
    findings are on.
    """
    found_in: dict[str, list[str]] = {}
    # Rules repeat their messages (a stale memory's, across a store, differ
    # only in the date): each distinct message is scanned once.
    quoted: dict[str, list[str]] = {}
    out = []
    for finding in findings:
        if finding.code == _OWN_CODE or not _TOKEN.search(finding.message):
            out.append(finding)
            continue
        if finding.path not in found_in:
            found_in[finding.path] = secrets_in(finding.path)
        message = _redact(finding.message, found_in[finding.path], quoted)
        out.append(finding if message == finding.message else dataclasses.replace(finding, message=message))
    return out


def link_redactor(store) -> Callable[[str, str], str]:
    """``redact(text, rel)``: ``text`` quoted from the file ``rel`` of
    ``store`` (a link's target, drawn by ``graph`` and ``report``) with the
    secrets in that file, or of a known format in the text, redacted."""
    from memlint.linter import _secrets_in

    found_in: dict[str, list[str]] = {}

    def redact(text: str, rel: str) -> str:
        if not _TOKEN.search(text):
            return text
        if rel not in found_in:
            found_in[rel] = _secrets_in(store.docs.get(rel), store)
        return _redact(text, found_in[rel])

    return redact


def secret_values(text: str) -> list[str]:
    """The secrets :func:`memlint.secrets.scan` finds in ``text``, as text."""
    if not text:
        return []
    lines = text.split("\n")
    values = []
    for hit in secrets.scan(text):
        line = lines[hit.line - 1] if hit.line <= len(lines) else ""
        if hit.length:  # the value as the scanner read it (a quoted one may hold , ; or a bracket)
            values.append(line[hit.column - 1:hit.column - 1 + hit.length])
        m = _TOKEN.match(line, hit.column - 1)
        if m:
            values.append(m.group(0).rstrip(".:"))
        if hit.kind == "private key block":  # the key material is on the lines below
            for body in lines[hit.line : hit.line + 200]:
                if body.strip().startswith("-----END"):
                    break
                values.append(body.strip())
    return sorted((v for v in values if len(v) >= _MIN_SECRET), key=len, reverse=True)


def _redact(message: str, values: list[str], quoted: dict[str, list[str]] | None = None) -> str:
    """``message`` with ``values`` and any token of a known format redacted;
    ``quoted`` keeps the tokens found in each message scanned."""
    for value in values:
        if value in message:
            message = message.replace(value, secrets.redact(value))
    # A token of a known format quoted from another file.
    if quoted is None:
        found = secret_values(message)
    else:
        found = quoted.get(message)
        if found is None:
            found = quoted[message] = secret_values(message)
    for value in found:
        message = message.replace(value, secrets.redact(value))
    return message

"""A credential is pasted into a memory file.

Why: agents copy tokens from tool output into memory, and memory stores are
often pushed to public repositories, where a leaked key is found by scanners
within minutes. Every file of the store is checked, whatever its role (root,
indexes, memories, daily logs), including files saved in the wrong encoding
and "binary" ones (a NUL byte). Files the store does not read are not:
those ``exclude`` names (by default project documentation: README.md,
CLAUDE.md, AGENTS.md, CHANGELOG.md...), and the rest of the repository; a
secret scanner of the whole repository (gitleaks, trufflehog) covers them.

The finding names the kind of secret and a fingerprint (the first 12 hex
digits of a salted SHA-256): never the secret itself, in any output format.
Detection is ``memlint/secrets.py``: vendor token formats (AWS, GitHub,
GitLab, Slack, OpenAI, Anthropic, Google, Stripe, Twilio, SendGrid, npm,
PyPI, Hugging Face, Telegram, JWTs, private key blocks), high-entropy values
assigned to secret-like names (random letters too, as a Gmail app password;
not words run together; a value spelling "password" with a ``!`` is a
password, not a name), or listed in a table column whose header ends
in one (``| Bot | App ID | App Secret |``; not ``Token pricing``, ``Token
(hashed)``, ``public token``), session cookies, and passwords in URLs.
A login written as a pair, ``admin / PASS``, ``admin/PASS`` or
``admin:PASS``, is found at its password (the fingerprint is the
password's) when a login names it: after ``Credentials:``, ``Login:``,
``auth:``..., in a table row or column so headed, or on the lines under
such a heading (``### Test credentials``), and when PASS would be found
as ``password: PASS`` and holds a digit or symbol or is random letters
(not ``read/write``, ``N/A``, ``admin/admin``, ``<user>/<password>``,
``see 1Password / vault``, ``github/ClaudeCodeBot``, ``email/OTP-6digit``).
An allow-list entry made for ``admin/PASS`` found whole (before pairs
were read) still allows it. A pair no login names (``admin/...`` in
prose) is not reported: most such pairs are paths, repositories and
product names. A secret found by its name, holding letters and digits (or
random letters), is reported again wherever the same value stands alone in
the file ("a secret found elsewhere in this file, again"; its fingerprint
allow-lists all; one allowed where it was found is allowed where it
recurs). Documented examples and placeholders
(``AKIAIOSFODNN7EXAMPLE``, ``<your-token>``, ``xxxx``) are skipped.

Options: ``allow``: fingerprints that are not secrets (``[]``). On the line
itself, or alone on the line above, ``<!-- memlint-allow-secret -->`` allows
that line.

Fires:

    Deploy with GITHUB_TOKEN=ghp_...36 random characters...

Fix: revoke and rotate the credential first (it is in git history now), then
remove it from the file and from history. Keep a pointer instead ("the deploy
token is in 1Password: Deploy/GitHub"). If it is not a secret, allow-list it:
``rules: {secret-in-memory: {allow: [<fingerprint>]}}`` or the inline comment.
"""
from __future__ import annotations

import re

from memlint import secrets
from memlint.finding import Problem
from memlint.store import MAX_FILE_BYTES, read_bounded

CODE = "MEM601"
NAME = "secret-in-memory"
SEVERITY = "error"
SCOPE = "file"
LOCAL = True
TAGS = ("secrets", "security")
OPTIONS = {"allow": ((list,), [])}


def check_option(name: str, value, settings: dict) -> str | None:
    """Why a configured value cannot work, checked when the config loads: an
    allow-list entry that is no fingerprint would allow nothing, silently."""
    if name == "allow":
        for entry in value:
            if not re.fullmatch(r"[0-9a-f]{12}", entry):
                return (f"{entry!r} is not a fingerprint (12 hex digits, as a MEM601 finding prints it, "
                        "`fingerprint 3fa2c41b9d07`): the secret itself never goes in the config")
    return None


def content_memo(store, options):
    """(cache kind, function of a doc): the hits depend only on the file's
    content and the allow-list (kept by blob id, memlint.cache)."""
    allow = frozenset(options["allow"])
    return "secrets:" + ",".join(sorted(allow)), lambda doc: _hits(doc, allow, store)


def found_nothing(doc, store) -> bool:
    """Whether the cache holds this rule's scan of ``doc``'s content, with
    no allow-list, and it found no secret: then ``secrets.scan`` of its text
    finds none either (the redaction of findings need not scan it again)."""
    if store.cache is None or doc.blob is None or doc.parsed is None:
        return False
    kind, _ = content_memo(store, {"allow": []})
    return store.cache.get(kind, doc.blob, None) == []


def check(doc, store, options):
    kind, hits = content_memo(store, options)
    # A file not decoded is read here as it is on disk, unless it is a symbolic link: that answer
    # depends on more than the content, and is not kept under the content's blob id.
    found = store.memo(doc, kind, lambda: hits(doc)) if doc.parsed is not None else hits(doc)
    for line, column, message in found:
        yield Problem(doc.path, line, column, message)


def _hits(doc, allow: frozenset, store) -> list[tuple[int, int, str]]:
    text = doc.parsed.text if doc.parsed is not None else _undecodable_text(doc, store)
    if not text:
        return []
    return [(hit.line, hit.column, f"{hit.kind} (fingerprint {hit.fingerprint}): rotate it and remove it from memory; "
             f"if it is not a secret, allow-list the fingerprint") for hit in secrets.scan(text, allow=allow)]


def _undecodable_text(doc, store) -> str | None:
    """Text of a file the store could not decode (Latin-1, UTF-16, a NUL
    byte): a secret in it leaks all the same. In a staged run, the bytes
    being committed. Symlinks and oversized files are never read here."""
    data = store.staged_bytes(doc)
    if data is None:
        try:  # is_symlink and is_file raise on a folder that cannot be entered (EACCES)
            if doc.abspath.is_symlink() or not doc.abspath.is_file():
                return None
            data = read_bounded(doc.abspath)
        except OSError:
            return None
    if len(data) > MAX_FILE_BYTES:
        return None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    codec = _utf16_without_bom(data[:8192])
    if codec is not None:
        return data.decode(codec, errors="replace")
    # A "binary" file (a NUL byte) is read as text too, its lines kept ("\n"
    # is never part of a replaced byte sequence).
    return data.translate(_CONTROL_BYTES).decode("utf-8", errors="replace")


# A NUL (or other control byte) ends a string in binary data: read as a
# vertical tab, where a value stops but no line ends, "Password: \0next
# string" assigns nothing.
_CONTROL_BYTES = bytes.maketrans(bytes([*range(9), *range(14, 32)]), b"\v" * 27)


def _utf16_without_bom(head: bytes) -> str | None:
    """The codec of text saved as UTF-16 without a byte order mark: most of
    its odd bytes (little-endian) or even bytes are the NUL high byte of an
    ASCII character, and the others are not NUL."""
    even, odd = head[0::2].count(0), head[1::2].count(0)
    if odd * 4 > len(head) and even * 8 < odd:
        return "utf-16-le"
    if even * 4 > len(head) and odd * 8 < even:
        return "utf-16-be"
    return None

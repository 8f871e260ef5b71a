"""Detect credentials pasted into memory files, without ever echoing them.

Memory stores are markdown files that often end up in *public* git
repositories, so a token pasted into one is a leak.  :func:`scan` reports
where a likely secret is (line, column), what kind it is, and a short
non-reversible fingerprint that can be allow-listed in config -- never the
secret itself.

Why a hand-written pattern set instead of a detector library: the obvious
candidate, ``detect-secrets``, pulls in a plugin framework, is slow to import
on the pre-commit hook path, and its generic keyword plugin is tuned for
source code rather than prose.  Stdlib ``re`` with a small set of
prefix-anchored token formats plus one entropy-gated "secret-like name =
value" rule covers what agents actually paste, and keeps memlint
dependency-free here.

Design notes
------------
* **Kinds.**  Vendor formats: AWS access key id (and AWS secret access key
  when assigned), GitHub, GitLab, Slack tokens and webhook URLs, OpenAI,
  Anthropic, other ``sk-`` provider keys, Google API keys, Stripe secret /
  restricted keys, Twilio, SendGrid, npm, PyPI, Hugging Face, Replicate,
  Telegram bot tokens, JWTs, ``-----BEGIN ... PRIVATE KEY-----`` blocks
  (reported once, at the BEGIN line, only when key material follows).
  Generic: a high-entropy value assigned (``:``, ``=``, ``=>``, ``:=``,
  ``→``, ``->``, or a code span after the name) to a secret-like name, and
  a password inside ``scheme://user:password@host``.  A login written as a
  pair (``admin / PASS``, ``admin/PASS``, ``admin:PASS``) where a login's
  name (credentials, login, auth, password...) is its name, its table
  row's or column's, or its heading's: reported at PASS when PASS would be
  as ``password: PASS``.  A value found by its name (not by its own form)
  is reported again wherever else it stands alone in the text.
  Letters of one case count when their letter pairs are unlike English
  ones: a Gmail app password (``qwhz mtkr bvxp nlca`` too), not a
  passphrase or an identifier.
* **Speed / safety.**  Vendor patterns begin with a literal prefix (``AKIA``,
  ``ghp_``, ``xox`` ...; the Telegram one is gated on ``:AA``) and only run
  when that literal occurs in the text (a C-speed substring test).  All
  quantifiers are bounded and adjacent character classes are disjoint, so
  there is no catastrophic backtracking.  The generic rule only looks at
  lines containing a secret-ish keyword, and its re-reading of values is
  budgeted, so cost stays linear in the input.
* **Lines / columns** are 1-based; lines are split on ``"\\n"`` only and
  columns count Python characters (a tab is one column).  The column points
  at the first character of the secret itself (for a private key block, at
  ``-----BEGIN``; for a Slack webhook, at the start of the URL).
* **Documentation examples are not findings.**  AWS's documented example
  credentials (``AKIAIOSFODNN7EXAMPLE``, ``wJalrXUtnFEMI/K7MDENG/...EXAMPLEKEY``),
  anything containing ``EXAMPLE``, the jwt.io sample token, and obvious
  placeholders (``xxxx``, ``****``, ``<your-token>``, ``${TOKEN}``,
  ``changeme``, ``1234``/``abcd`` runs ...) are skipped: flagging them would
  train users to ignore the rule.
* **Fingerprints** are the first 12 hex digits of
  ``sha256("memlint-secret-v1\\0" + secret)``.  Only high-entropy values are
  ever reported, so a 48-bit prefix of a salted hash does not let anyone
  recover or confirm the secret, while still being unique enough to
  allow-list.  The domain prefix keeps the ids from matching plain sha256
  lists of leaked keys.
* **Allow-listing.**  A line containing ``<!-- memlint-allow-secret -->``, or
  a line directly below a line consisting only of that comment, is skipped;
  so is any hit whose fingerprint is in ``allow``.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import math
import re
import string
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterator, NamedTuple

__all__ = ["ALLOW_COMMENT", "SecretHit", "fingerprint", "redact", "scan"]

ALLOW_COMMENT = "memlint-allow-secret"

_FINGERPRINT_SALT = b"memlint-secret-v1\0"
_FINGERPRINT_LEN = 12

GENERIC_KIND = "high-entropy value assigned to a secret-like name"


@dataclass(frozen=True)
class SecretHit:
    """One likely secret.  Holds no part of the secret itself."""

    line: int  # 1-based line in the text given
    column: int  # 1-based column (Python characters)
    kind: str  # human-readable kind, e.g. "GitHub token"
    fingerprint: str  # short non-reversible id, for allow-listing
    length: int = 0  # characters the secret spans from the column (0: not known)

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.kind} (fingerprint {self.fingerprint})"


def fingerprint(secret: str) -> str:
    """Short, salted, non-reversible id of *secret* (12 hex digits)."""
    digest = hashlib.sha256(_FINGERPRINT_SALT + secret.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:_FINGERPRINT_LEN]


def redact(value: str) -> str:
    """Describe *value* without revealing it: ``"AKIA…(20 chars)"``.

    At most 4 leading characters are shown, and fewer for short values
    (2 below 16 characters, none below 8), so a short password is never
    half-printed.
    """
    n = len(value)
    if n >= 16:
        lead = 4
    elif n >= 8:
        lead = 2
    else:
        lead = 0
    return f"{value[:lead]}…({n} chars)"


# --------------------------------------------------------------------------
# Placeholder / example detection (shared by all rules)
# --------------------------------------------------------------------------

# Substrings that mark a value as a placeholder or documentation example.
# Each is matched in lower, UPPER and Capitalized form (not every case mix:
# a random token is then ~8x less likely to contain one by chance).
_PLACEHOLDER_WORDS = (
    "example",
    "sample",
    "placeholder",
    "your",
    "changeme",
    "change_me",
    "change-me",
    "redacted",
    "dummy",
    "fake",
    "replace",
    "insert",
    "xxxx",
    "****",
    "...",
    "…",
    "<",
    ">",
    "todo",
    "1234",
    "abc123",
    "a1b2c3",
    "abcd",
    "qwerty",
    "asdf",
)
# Runs of one character (0000000, aaaaaa, XXXXX) mark filler text.
_REPEAT_RUN = re.compile(r"(.)\1{4}")

# Exact documentation example values published by vendors.
_KNOWN_EXAMPLES = frozenset(
    {
        # jwt.io's default sample token
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6"
        "IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    }
)


_PLACEHOLDER_RE = re.compile(
    "|".join(
        re.escape(v)
        for v in sorted({v for w in _PLACEHOLDER_WORDS for v in (w, w.upper(), w.capitalize())})
    )
    + r"|(.)\1{4}"  # runs of one character: 00000, XXXXX
)


def _is_placeholder(value: str) -> bool:
    return value in _KNOWN_EXAMPLES or _PLACEHOLDER_RE.search(value) is not None


# --------------------------------------------------------------------------
# Vendor token formats
# --------------------------------------------------------------------------

_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_\-]")


class _Rule(NamedTuple):
    kind: str
    literal: str  # cheap pre-filter: the rule only runs if this occurs
    regex: re.Pattern[str]
    prefix_len: int  # characters of fixed prefix excluded from placeholder checks
    # extra validation on the matched value (True = keep)
    check: Callable[[str], bool] | None = None


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _random_looking(value: str) -> bool:
    """Has a digit and is not just words joined by - or _."""
    parts = [p for p in re.split(r"[-_]+", value) if p]
    return _has_digit(value) and not all(_WORDY_PART.fullmatch(p) for p in parts)


# Patterns start with a literal so re's prefix search skips most of the text.
# Boundaries are checked in code (see _scan_rules), which keeps the literal
# prefix first.  Every quantifier is bounded.
_RULES: tuple[_Rule, ...] = (
    # key ids are base32 after the prefix: no 0, 1, 8, 9
    _Rule("AWS access key id", "A", re.compile(r"A(?:KIA|SIA)[A-Z2-7]{16}"), 4),
    _Rule("GitHub token", "gh", re.compile(r"gh[pousr]_[A-Za-z0-9]{36,251}"), 4),
    _Rule(
        "GitHub token",
        "github_pat_",
        re.compile(r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59,200}"),
        11,
    ),
    _Rule("GitLab token", "glpat-", re.compile(r"glpat-[A-Za-z0-9_\-]{20,200}"), 6),
    _Rule(
        "Slack token",
        "xox",
        re.compile(r"xox[baprs]-[A-Za-z0-9\-]{10,250}"),
        5,
        _has_digit,
    ),
    _Rule(
        "Slack token",
        "xapp-",
        re.compile(r"xapp-[0-9]-[A-Z0-9]{6,20}-[0-9]{6,20}-[A-Za-z0-9]{32,128}"),
        5,
    ),
    _Rule(
        "Slack webhook URL",
        "hooks.slack.com/",
        re.compile(
            r"hooks\.slack\.com/(?:services/T[A-Z0-9]{6,16}/B[A-Z0-9]{6,16}/[A-Za-z0-9]{20,48}"
            r"|(?:workflows|triggers)/T[A-Z0-9]{6,16}/[A-Z0-9]{6,16}/[0-9]{6,24}/[A-Za-z0-9]{20,48})"
        ),
        16,
    ),
    _Rule(
        "Anthropic API key",
        "sk-ant-",
        re.compile(r"sk-ant-[A-Za-z0-9_\-]{32,300}"),
        7,
    ),
    _Rule(
        "OpenAI API key",
        "sk-",
        re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{32,300}"),
        3,
    ),
    # legacy OpenAI keys carry "T3BlbkFJ" (base64 of "OpenAI") mid-key
    _Rule(
        "OpenAI API key",
        "T3BlbkFJ",
        re.compile(r"sk-[A-Za-z0-9]{16,100}T3BlbkFJ[A-Za-z0-9]{16,100}"),
        3,
    ),
    # Other providers copy the sk- scheme (DeepSeek, DashScope/Bailian,
    # MiniMax, Moonshot ...): "sk-" + long run, or "sk-<tag>-" + long run.
    # Where an OpenAI/Anthropic rule matches the same span, that rule wins.
    _Rule(
        "sk- prefixed API key",
        "sk-",
        re.compile(r"sk-(?:[a-z]{2,10}-)?[A-Za-z0-9][A-Za-z0-9_\-]{31,300}"),
        3,
        _random_looking,  # not "sk-long-feature-branch-name-..."
    ),
    _Rule("Google API key", "AIza", re.compile(r"AIza[A-Za-z0-9_\-]{35}"), 4),
    _Rule("Stripe secret key", "k_live_", re.compile(r"[sr]k_live_[A-Za-z0-9]{20,247}"), 8),
    _Rule("Twilio API key", "SK", re.compile(r"SK[0-9a-f]{32}"), 2),
    _Rule(
        "SendGrid API key",
        "SG.",
        re.compile(r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"),
        3,
    ),
    _Rule("npm token", "npm_", re.compile(r"npm_[A-Za-z0-9]{36}"), 4),
    _Rule(
        "PyPI token",
        "pypi-AgE",
        # the macaroon's base64 prefix encodes "pypi.org" / "test.pypi.org"
        re.compile(r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_\-]{50,1000}"),
        20,
    ),
    _Rule("Hugging Face token", "hf_", re.compile(r"hf_[A-Za-z0-9]{34}"), 3),
    _Rule("Replicate API token", "r8_", re.compile(r"r8_[A-Za-z0-9]{37}"), 3),
    # <bot id>:<35 chars>; the only rule without a leading literal, so it is
    # gated on ":AA" and the digit run is bounded.
    _Rule("Telegram bot token", ":AA", re.compile(r"[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}"), 0),
    _Rule(
        "JWT",
        "eyJ",
        re.compile(
            # only at a token's start (as the scan keeps them anyway): inside a
            # run of "eyJeyJ..." each later start would rescan 4,096 characters
            r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{10,4096}\.ey[A-Za-z0-9_\-]{10,16384}\.[A-Za-z0-9_\-]{16,1024}"
        ),
        0,
    ),
)


# Characters seldom in prose (an underscore, capitals, digits), rarest first:
# where a rule's literal holds one, that one character is looked for first
# (a one-character search is the fastest there is), and most texts lack it.
_SELDOM = "_JKQZXVFGYPWBHUEO0123456789"
_LITERALS = tuple((rule, next((c for c in _SELDOM if c in rule.literal), "")) for rule in _RULES)


def _scan_rules(text: str, emit: Callable[[int, int, str, str], None]) -> None:
    n = len(text)
    for rule, seldom in _LITERALS:
        if seldom not in text or rule.literal not in text:  # ("" is in every text)
            continue
        for m in rule.regex.finditer(text):
            start, end = m.span()
            # token boundaries: not glued to other token characters
            if start > 0 and _TOKEN_CHAR.match(text, start - 1):
                continue
            if end < n and _TOKEN_CHAR.match(text, end):
                continue
            value = m.group()
            if value in _KNOWN_EXAMPLES or "EXAMPLE" in value:
                continue
            if _is_placeholder(value[rule.prefix_len :]):
                continue
            if rule.check is not None and not rule.check(value):
                continue
            if rule.kind == "Slack webhook URL":
                for scheme in ("https://", "http://"):
                    if text.startswith(scheme, start - len(scheme)):
                        start -= len(scheme)
                        value = text[start:end]
                        break
            emit(start, end, rule.kind, value)


# --------------------------------------------------------------------------
# Private key blocks
# --------------------------------------------------------------------------

_PRIVATE_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}?PRIVATE KEY(?: BLOCK)?-----")
# a line of key material: starts a line (after indentation, a blockquote
# marker, or a JSON "\\n" escape) and is a long base64 run
_B64_LINE = re.compile(r"(?:^|\\n)[ \t>]*([A-Za-z0-9+/=]{40,})", re.MULTILINE)
_PRIVATE_KEY_LOOKAHEAD = 600  # header lines (Proc-Type, Version) fit in here
_PRIVATE_KEY_MAX = 64 * 1024


def _looks_like_key_material(run: str) -> bool:
    has = (
        any(c.isupper() for c in run),
        any(c.islower() for c in run),
        any(c.isdigit() for c in run),
    )
    return all(has) and not _REPEAT_RUN.search(run)


def _scan_private_keys(text: str, emit: Callable[[int, int, str, str], None]) -> None:
    if "PRIVATE KEY" not in text:
        return
    for m in _PRIVATE_KEY_BEGIN.finditer(text):
        body_start = m.end()
        # Require real key material soon after the header; "-----BEGIN RSA
        # PRIVATE KEY-----\n...\n" in prose or docs is not a leak.
        window = text[body_start : body_start + _PRIVATE_KEY_LOOKAHEAD]
        if not any(_looks_like_key_material(r.group(1)) for r in _B64_LINE.finditer(window)):
            continue
        # the body ends at the END line -- or at the next BEGIN, so a run of
        # headers without END lines stays linear
        stop = text.find("-----", body_start, body_start + _PRIVATE_KEY_MAX)
        if stop < 0:
            stop = min(len(text), body_start + _PRIVATE_KEY_MAX)
        body = "".join(text[body_start:stop].split())
        emit(m.start(), stop, "private key block", body)


# --------------------------------------------------------------------------
# Generic rule: secret-like name assigned a high-entropy value
# --------------------------------------------------------------------------

# Cheap line pre-filter: a line is examined only if it contains one of these
# (case-insensitively).  "key" only counts after api/access/private.
# ("Login: admin / ..." is read by _scan_login_sections: most lines naming a login are prose.)
_KEYWORD_LITERALS = ("pass", "pwd", "secret", "token", "auth", "credential", "key", "cookie")
_KEY_QUALIFIER = re.compile(r"(?:api|access|private)(?:[_.\-]|[ \t]+)?\Z")  # spaces: "API Key: ..."
_KEYWORD = re.compile(
    r"pass|pwd|secret|token|auth|credential|cookie|(?:api|access|private)(?:[_.\-]|[ \t]+)?key|(?<![a-z])keys?(?![a-z])",
    re.IGNORECASE | re.ASCII,
)


@functools.lru_cache(maxsize=1)
def _lowered(text: str) -> str:
    """``text.lower()``, kept for the next scanner of the same text (one text at a time)."""
    return text.lower()


def _keyword_positions(text: str) -> list[int]:
    lowered = _lowered(text)
    if len(lowered) != len(text):  # rare: lower() changed length (e.g. "İ")
        return [m.start() for m in _KEYWORD.finditer(text)]
    found: list[int] = []
    find = lowered.find
    for word in _KEYWORD_LITERALS:
        i = find(word)
        while i >= 0:
            if word != "key" or _KEY_QUALIFIER.search(lowered, max(0, i - 8), i) or _whole_key_word(lowered, i):
                found.append(i)
            i = find(word, i + 1)
    found.sort()
    return found


def _whole_key_word(lowered: str, i: int) -> bool:
    """"key" or "keys" at ``i`` as a word of its own ("Consumer key: ..."), not in "keyboard" or "monkey"
    (ASCII letters, as ``_KEYWORD``'s ``(?<![a-z])keys?(?![a-z])`` reads them)."""
    if i and lowered[i - 1] in _ASCII_LETTERS:
        return False
    end = i + 3 + (lowered[i + 3:i + 4] == "s")
    return lowered[end:end + 1] not in _ASCII_LETTERS


_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


_CHUNK_GAP = 4096  # keyword lines closer than this are scanned as one span


def _keyword_spans(text: str) -> Iterator[tuple[int, int]]:
    """Spans of whole lines covering every line that holds a keyword.

    Nearby keyword lines are merged into one span (the lines between them are
    scanned too, which is harmless and far cheaper than one call per line).
    Spans are disjoint and in order, so each character is scanned once.
    """
    n = len(text)
    span_start = span_end = -1
    for i in _keyword_positions(text):
        if i < span_end:
            continue
        line_end = text.find("\n", i)
        if line_end < 0:
            line_end = n
        if span_end >= 0 and i - span_end <= _CHUNK_GAP:
            span_end = line_end
            continue
        if span_end >= 0:
            yield span_start, span_end
        span_start = text.rfind("\n", 0, i) + 1
        span_end = line_end
    if span_end >= 0:
        yield span_start, span_end


# name, optional closing quote/markup, operator, value.  The look-behind lets
# a match start only at the beginning of a name-character run, so the
# bounded name quantifier is tried once per run (linear overall).
_ASSIGN = re.compile(
    r"""
    (?<![A-Za-z0-9_.\-])
    (?P<name>[A-Za-z0-9_.\-]{1,80})
    (?![A-Za-z0-9_.\-])
    (?:
        [\"'`*]{0,3}
        [ \t]*
        (?P<op>:=|=>|->|→|⇒|=|:|：|\|)  # "：" as CJK keyboards type it; "|": a table row, | **Token** | value |
        \*{0,2}                # "**Token:** value"
        [ \t]*
      | [\"'`*]{0,3}[ \t]+\(?(?=`)  # no operator: a code span after the name, "API Key `...`", "key (`...`)"
    )
    (?:
        "(?P<dq>[^"\n]{1,512})"
      | '(?P<sq>[^'\n]{1,512})'
      | `(?P<bq>[^`\n]{1,512})`
      | (?:(?i:bearer|basic|token)[ \t]+)?
        (?P<bare>[^\s"'`,;<>(){}\[\]|]{1,512})
    )
    """,
    re.VERBOSE,
)

_ARROWS = frozenset({"->", "→", "⇒"})  # "API key → ...", as agents write an assignment in notes

_NAME_SPLIT = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")

# A name segment containing one of these is secret-like.
_NAME_SUBSTRINGS = ("password", "passwd", "passphrase", "secret", "token", "apikey", "credential")
# ... or a segment equal to one of these.
_NAME_EXACT = frozenset({"pwd", "pass", "auth", "authorization", "authkey", "cookie"})  # a session cookie logs in
# ... or two adjacent segments forming one of these.
_NAME_PAIRS = frozenset(
    {("api", "key"), ("access", "key"), ("private", "key"), ("auth", "key"), ("secret", "key")}
)
# Names whose last segment says the value is metadata, not the secret.
_NAME_META_SUFFIX = frozenset(
    {
        "path", "file", "filename", "dir", "env", "var", "name", "type", "count",
        "len", "length", "size", "limit", "ttl", "expiry", "expires", "expiration",
        "scope", "scopes", "provider", "method", "mode", "usage", "endpoint",
        "url", "uri", "prefix", "format", "policy", "version", "enabled",
        # file names such as "design-tokens.json" or "secrets.yaml"
        "json", "yaml", "yml", "toml", "ini", "cfg", "conf", "md", "txt", "py",
        "js", "ts", "sh",
        # where a service is, or what identifies or digests a secret: not the secret
        "domain", "host", "hostname", "issuer", "audience", "region", "hash", "digest", "fingerprint",
    }
)


def _name_segments(name: str) -> list[str]:
    return [s.lower() for s in _NAME_SPLIT.findall(name)]


# Password managers' names: "the token is in 1Password: Deploy/GitHub" is a pointer.
_VAULT_NAMES = frozenset({"1password", "lastpass", "keepass", "keepassxc", "keepassx", "passbolt", "bitwarden"})


@functools.lru_cache(maxsize=4096)
def _is_secret_name(name: str) -> bool:
    if name.lower() in _VAULT_NAMES:
        return False
    segs = _name_segments(name)
    if not segs:
        return False
    last = segs[-1]
    if last in _NAME_META_SUFFIX:
        return False
    # ids (private_key_id, refresh_token_id) identify a secret; they are not one
    if last in ("id", "ids") and len(segs) >= 2:
        return False
    # an environment variable named for a key: ENCRYPTION_KEY, SIGNING_KEY, STRIPE_KEY
    if last == "key" and len(segs) >= 2 and name.isupper() and segs[-2] not in _NOT_A_KEY_QUALIFIER:
        return True
    for seg in segs:
        if seg in _NAME_EXACT:
            return True
        if any(sub in seg for sub in _NAME_SUBSTRINGS):
            # "tokenizer", "tokenize" ... are not credentials
            if seg.startswith("tokeni"):
                continue
            return True
    return any(pair in _NAME_PAIRS for pair in zip(segs, segs[1:]))


def _is_table_secret_name(name: str) -> bool:
    """A name cell that names a secret outright (Password, AppSecret, API
    Key), not one of the short words (auth, pass) a table uses for other things."""
    segs = _name_segments(name)
    return _is_secret_name(name) and (any(sub in seg for seg in segs for sub in _NAME_SUBSTRINGS)
                                      or any(pair in _NAME_PAIRS for pair in zip(segs, segs[1:])))


def _is_aws_secret_name(name: str) -> bool:
    flat = "".join(_name_segments(name))
    return "secretaccesskey" in flat or ("aws" in flat and "secret" in flat)


_AWS_SECRET_VALUE = re.compile(r"[A-Za-z0-9/+]{40}")

# Things that reference a secret rather than contain one.
_REFERENCE_MARKERS = (
    "${", "{{", "}}", "%(", "$(", "://", "os.environ", "process.env", "getenv",
    "env.", "env[", "env:", "secrets.", "vault:", "op://",
)
_REFERENCE_STARTS = ("$", "%", "{", "[", "(", "*", "&", "/", "~", ".", "@")

# Value parts that look like words / identifiers rather than random data.
_WORDY_PART = re.compile(r"[a-z]+[0-9]{0,4}|[A-Z]+[0-9]{0,4}|[A-Z][a-z]+[0-9]{0,4}|[0-9]+")
_VALUE_SPLIT = re.compile(r"[._\-/:@+]+")


def _shannon(value: str) -> float:
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def _alphabet_size(value: str) -> int:
    """Estimate the alphabet *value* was drawn from.

    Letters count as hex (6) when only a-f / A-F occur in one case, else 26
    per case; digits as 10; punctuation as the distinct characters present
    (separators in a UUID add 1, not 32).
    """
    lower = upper = digit = False
    lower_hex = upper_hex = True
    symbols: set[str] = set()
    for c in value:
        if "a" <= c <= "z":
            lower = True
            lower_hex = lower_hex and c <= "f"
        elif "A" <= c <= "Z":
            upper = True
            upper_hex = upper_hex and c <= "F"
        elif "0" <= c <= "9":
            digit = True
        else:
            symbols.add(c)
    if lower and upper:
        letters = 52
    elif lower:
        letters = 6 if lower_hex else 26
    elif upper:
        letters = 6 if upper_hex else 26
    else:
        letters = 0
    return letters + (10 if digit else 0) + len(symbols)


# Minimum Shannon entropy, as a fraction of the most a string of this length
# and alphabet can have.  Chosen by measurement: random base62/base64/hex
# strings of 10-64 chars have a 1st-percentile ratio of ~0.80-0.85, while the
# (non-wordy) negatives we tested sit lower or are caught by the other checks.
_ENTROPY_RATIO = 0.75
_MIN_GENERIC_LEN = 10


def _looks_high_entropy(value: str) -> bool:
    n = len(value)
    if n < _MIN_GENERIC_LEN or not value.isascii():
        return False  # short, or prose in another script ("컬러12+8팔레트")
    if not any(c.isalpha() for c in value):
        return False  # numbers, dates, versions
    k = _alphabet_size(value)
    ceiling = math.log2(min(n, k))
    entropy = _shannon(value)
    return entropy >= 2.5 and entropy >= _ENTROPY_RATIO * ceiling


# How much likelier each pair of letters is in an English word than in random
# letters, in bits: log2(26 * P(second | first)) over the 73k words of
# Debian's wamerican list, rounded and kept to -6..+3, written as the digit
# bits + 6. Row: the first letter, a to z; column: the second.
_PAIR_BITS = (
    "16763463615868161878554353",  # a
    "86238102730832810764711040",  # b
    "80507008707600802747600040",  # c
    "74369353930644730672634051",  # d
    "64685443412767452886354542",  # e
    "72108701800711800756700050",  # f
    "82018267800746720873702050",  # g
    "83129302801544810656604060",  # h
    "65767560103669752677350205",  # i
    "90008100701000920220911000",  # j
    "74239325813646640583504060",  # k
    "83358331804843730165631070",  # l
    "87308301800364870261601040",  # m
    "73778493725325622378542032",  # n
    "55664463514778661866766342",  # o
    "82118117701722870866601040",  # p
    "31000000300300100011901000",  # q
    "84568353814555740676643050",  # r
    "63628327705655663279614040",  # s
    "72419317900533720776603052",  # t
    "66666461613778460887020213",  # u
    "80019000900200700221420030",  # v
    "94258327804636830663202031",  # w
    "71708116800321681128643551",  # x
    "75667454723777670686515313",  # y
    "82119004802632620122422057",  # z
)
_PAIR_SCORE = {
    a + b: int(digit) - 6 for a, row in zip(string.ascii_lowercase, _PAIR_BITS)
    for b, digit in zip(string.ascii_lowercase, row)
}
# Letters more than 2**12 times likelier drawn at random than spelled as English.
# Measured: ~94% of random 16-letter strings reach it; no word-like token of
# the four corpora (but three random ones) nor any of 20k dictionary words does.
_RANDOM_LETTERS_BITS = -12
# A value of letters in one case, a word's shape to _WORDY_PART.
_ONE_CASE_LETTERS = re.compile(r"([a-z]+|[A-Z]+|[A-Z][a-z]+)[0-9]{0,4}")
# A Gmail app password as Google shows it: four groups of four letters.
_GROUPED_LETTERS = re.compile(r"[a-z]{4}(?: [a-z]{4}){3}(?![A-Za-z0-9])")


def _random_letters(letters: str) -> bool:
    """Whether letters are drawn at random rather than spelled: a generated
    password ("qwhzmtkrbvxpnlca"), not words run together
    ("correcthorsebatterystaple", "refreshtoken", "getattribute")."""
    low = letters.lower()
    return (len(low) >= _MIN_GENERIC_LEN
            and sum(_PAIR_SCORE[low[i:i + 2]] for i in range(len(low) - 1)) < _RANDOM_LETTERS_BITS)


def _is_reference_or_wordy(value: str) -> bool:
    if value.startswith(_REFERENCE_STARTS):
        return True
    low = value.lower()
    if any(marker in low for marker in _REFERENCE_MARKERS):
        return True
    # "my-secret-password", "get_token": names of a secret.  A "!" (the symbol
    # password rules most often get) is in no name, path or template:
    # "NewPassword9!" is a password as "NewPass9!" is.  ("#", "*", "?" are
    # left out: anchors, globs, queries.)
    if any(word in low for word in ("password", "passwd", "secret", "token")) and "!" not in value:
        return True
    one_case = _ONE_CASE_LETTERS.fullmatch(value)
    if one_case and _random_letters(one_case.group(1)):
        return False  # a word's shape, not its letters: an app password "qwhzmtkrbvxpnlca"
    parts = [p for p in _VALUE_SPLIT.split(value) if p]
    return all(_WORDY_PART.fullmatch(p) for p in parts)


_WHITESPACE = re.compile(r"\s")
_AUTH_SCHEME = re.compile(r"(?i:bearer|basic|token)[ \t]+")


def _generic_value(m: re.Match[str]) -> tuple[int, str] | None:
    for group in ("dq", "sq", "bq", "bare"):
        value = m.group(group)
        if value is not None:
            start = m.start(group)
            break
    else:  # pragma: no cover - the regex always sets one group
        return None
    scheme = _AUTH_SCHEME.match(value)
    if scheme:
        start += scheme.end()
        value = value[scheme.end() :]
    arrow = max(value.rfind("→"), value.rfind("⇒"))
    if arrow >= 0:  # "old→new": the value set now is the new one ("ak_→ck_...")
        start += arrow + 1
        value = value[arrow + 1 :]
    stripped = value.rstrip(".")  # sentence-final period after a bare value
    return start, stripped


# Google's OAuth client ids (the secrets start GOCSPX-): public, shipped in apps.
_GOOGLE_CLIENT_ID = re.compile(r"[0-9]{12}-[a-z0-9]{32}(?:\.apps\.googleusercontent\.com)?")  # project number - id


_LABEL_WORDS = re.compile(r"[a-z]+")
_LABEL_HINT = re.compile(r"key|pass|secret|token|credential")
_LABEL_REACH = 48  # characters of the line before the name that a label may span
_LABEL_TAIL = 4  # words after the secret's own word ("key saved to ~/.env")
# Words before "key" that make it no credential: whose it is, or a key of
# another kind (a database's, a keyboard's, a public one).
_NOT_A_KEY_QUALIFIER = frozenset({
    "my", "your", "our", "their", "his", "her", "its", "the", "a", "an", "this", "that", "these", "those",
    "no", "one", "each", "every", "which", "primary", "foreign", "sort", "partition", "composite", "unique",
    "cache", "hot", "shortcut", "keyboard", "lookup", "hash", "map", "dict", "dictionary", "object", "json",
    "yaml", "config", "registry", "translation", "idempotency", "dedup", "public", "gpg", "pgp", "ssh", "host",
    "music", "piano", "major", "minor", "session",  # an agent's session key names a conversation
    "publishable",  # Stripe's publishable key (pk_live_...) ships in web pages
})


# What may follow the secret's own word in a label: how it was handled, and where.
_LABEL_VERBS = frozenset({
    "updated", "saved", "stored", "set", "rotated", "regenerated", "generated", "created", "changed", "added",
    "issued", "reset", "renewed", "new", "now", "is", "was", "here", "used", "fixed", "corrected", "configured",
})
_LABEL_PLACES = frozenset({"to", "in", "into", "at", "under"})  # then any word: "saved to ~/.env"
_NOT_A_PLACE = frozenset({"id", "ids", "name", "names", "type", "count", "length", "size"})  # "secret in id=..."


_PUBLIC_WORDS = re.compile(r"(?<![\w-])(?:public|publishable|fingerprint(?: of(?: the)?)?)[ \t]+\Z", re.IGNORECASE)
_IN_AN_ARN = re.compile(r"(?<![\w:/-])arn:[^\s`'\"]*:\Z")


def _not_a_secret_here(text: str, name_start: int) -> bool:
    """A name that is part of an ARN (``arn:aws:...:secret:prod/db``, a
    pointer to the secret) or says its value is public or a fingerprint
    (``public token``, ``publishable key``, ``fingerprint of the token``)."""
    if name_start and text[name_start - 1] == ":" and _IN_AN_ARN.search(text, max(0, name_start - 256), name_start):
        return True
    return bool(_PUBLIC_WORDS.search(text, max(0, name_start - 24), name_start))


def _secret_label(text: str, name_start: int, name: str, *, table: bool = False) -> str | None:
    """The secret's name when ``name`` ends a label of several words that
    names one, else None: ``key`` after a word that makes it a credential
    ("API key", "Consumer key") or a word naming a secret ("token"), then
    only words saying what was done with it and where ("Management key
    updated", "API key saved to ~/.env"). A table's name cell is read more
    strictly: two words that name a secret together ("API Key")."""
    lowered = text[max(0, name_start - _LABEL_REACH):name_start].lower()
    if not (_LABEL_HINT.search(lowered) or _LABEL_HINT.search(name.lower())) or name.lower() in _VAULT_NAMES:
        return None  # most names: no word before them that could name a secret
    line_start = lowered.rfind("\n") + 1
    words = _LABEL_WORDS.findall(lowered, line_start)
    if table:
        if words and (words[-1], name.lower()) in _NAME_PAIRS:
            return f"{words[-1]}_{name}"
        return None
    words.append(name.lower())  # the name as one word: "s3key" is no "key" of its own
    for i in range(len(words) - 1, max(-1, len(words) - 2 - _LABEL_TAIL), -1):
        if any(w not in _LABEL_VERBS and w not in _LABEL_PLACES and (words[j - 1] not in _LABEL_PLACES
                                                                     or w in _NOT_A_PLACE)
               for j, w in enumerate(words[i + 1:], i + 1)):
            return None  # "auth config", "token count", "key name": about the secret, not it
        word = words[i]
        if word in ("key", "keys") and i and words[i - 1] not in _NOT_A_KEY_QUALIFIER:
            return f"{words[i - 1]}_{word}"
        if i < len(words) - 1 and any(part in word for part in _NAME_SUBSTRINGS) and not word.startswith("tokeni"):
            return word  # (the name itself was judged by _is_secret_name: refresh_token_id is no secret)
    return None


PAIR_KIND = "password of a user/password pair"

# A login written as a pair, user then password: "admin / <password>",
# "admin/<password>", "admin:<password>".  The password part holds no "/"
# or ":" and must not be followed by one (checked in code): "docs/setup/guide",
# "a:b:c" are no pairs.  The user part's class excludes the separators, so
# nothing backtracks.
_CREDENTIAL_PAIR = re.compile(
    r"(?P<user>[A-Za-z][A-Za-z0-9_.@+\-]{0,63})(?P<sep>[ \t]{1,3}/[ \t]{1,3}|/|:)`?"
    r"(?P<password>[^\s/:`'\"<>()\[\]{}|,;]{1,128})"
)
# Names whose value may be a login as a pair: "Credentials: admin / ...", "| Authentication | admin / ... |".
_LOGIN_WORDS = frozenset({
    "credential", "credentials", "cred", "creds", "login", "logins", "logon", "auth", "authentication", "authorization",
})
# Names of the password alone: after one, "admin / ..." is a pair, but the
# "/" or ":" of "password: ab/cd" may be the password's own (judged whole).
_PASSWORD_WORDS = frozenset({"password", "passwords", "passwd", "pwd", "pass", "passphrase"})
_USER_WORDS = frozenset({"user", "users", "username", "usr", "account"})
_USER_SLASH = re.compile(r"(?i)(?<![a-z])(?:user(?:name)?|login)[ \t]*/[ \t]*\Z")  # "User/Password:"


@functools.lru_cache(maxsize=4096)
def _pair_separators(name: str) -> str | None:
    """How a login pair may be written after ``name``: "any" separator
    (``admin / pw``, ``admin/pw``, ``admin:pw``) after a name for a login or
    for a user and password together (``User/Password``, ``user_pass``);
    only "spaced" (``admin / pw``) after one for the password alone; None
    after other names (a token's ``org/repo`` is no login)."""
    segs = _name_segments(name)
    if not segs:
        return None
    if segs[-1] in _LOGIN_WORDS:
        return "any"
    if segs[-1] in _PASSWORD_WORDS:
        return "any" if any(seg in _USER_WORDS for seg in segs[:-1]) else "spaced"
    return None


def _looks_like_password(value: str) -> bool:
    """Whether ``value`` would be reported as ``password: value``."""
    return (len(value) >= _MIN_GENERIC_LEN and not _WHITESPACE.search(value) and not _is_reference_or_wordy(value)
            and "EXAMPLE" not in value and not _is_placeholder(value) and not _GOOGLE_CLIENT_ID.fullmatch(value)
            and _looks_high_entropy(value))


# Words a login is made with, not users: "Auth | GitHub/OAuth-2024", "Login: email/OTP-6digit".
_NO_USERS = frozenset({
    "email", "e-mail", "mail", "sms", "phone", "otp", "totp", "mfa", "2fa", "sso", "saml", "oidc", "oauth", "oauth2",
    "ldap", "kerberos", "passkey", "webauthn", "magic", "github", "gitlab", "bitbucket", "google", "microsoft",
    "azure", "apple", "okta", "auth0", "token", "api", "basic", "bearer", "none", "n",
})


def _credential_pair(text: str, start: int, limit: int, separators: str) -> tuple[int, str] | None:
    """(start, password) of a login pair at ``text[start:limit]`` whose
    password part would be reported on its own (``password: PASS``) and
    holds a digit or symbol unless its letters are random: not
    ``read/write``, ``N/A``, ``user/pass``, ``admin/admin``, a date, a path
    or ``owner/RepoName``."""
    m = _CREDENTIAL_PAIR.match(text, start, limit)
    if m is None or (separators == "spaced" and m.group("sep") in ("/", ":")):
        return None
    if m.end() < limit and text[m.end()] in "/:":
        return None  # a path (docs/setup/guide), a:b:c
    user, password = m.group("user"), m.group("password").rstrip(".")
    if user.lower() in _VAULT_NAMES or user.lower() in _NO_USERS or _is_placeholder(user) \
            or not _looks_like_password(password):
        return None  # "1Password / Infra-Vault": where it is kept; "GitHub/OAuth-2024", "email/OTP-6digit": how
    if password.isalpha() and not _random_letters(password):
        return None  # words run together, "github/ClaudeCodeBot": a pair of names (a password has more)
    return m.start("password"), password


def _scan_generic(text: str, emit: Callable[[int, int, str, str], None]) -> None:
    search = _ASSIGN.search
    for span_start, span_end in _keyword_spans(text):
        # Unless a secret is reported, scanning resumes right after the name:
        # another name may have swallowed a secret assignment as its value
        # (JSON: `{"password": "..."}`, ?user=a&password=...).  Re-reading
        # values is budgeted so adversarial lines ("a=a=a=...") stay linear;
        # once spent, scanning resumes after the value as usual.
        budget = 8 * (span_end - span_start) + 65536
        pos = span_start
        while True:
            m = search(text, pos, span_end)
            if m is None:
                break
            name_end = m.end("name")
            reread = m.end() - name_end
            if reread <= budget:
                budget -= reread
                pos = name_end
            else:
                pos = m.end()
            name, op = m.group("name"), m.group("op")
            name_start = m.start("name")
            if _not_a_secret_here(text, name_start):
                continue
            if op in _ARROWS and text[name_end] in "\"'`":
                continue  # `x-key: $SIGNING_SECRET` → handler(): what a quoted name leads to, not its value
            separators = None if op is None else _pair_separators(name)
            if separators == "spaced" and _USER_SLASH.search(text, max(0, name_start - 16), name_start):
                separators = "any"  # "User/Password: admin/..."
            pair_only = False  # a name that holds a secret only as a login pair: "Login: admin / ..."
            if not _is_secret_name(name):
                # a label of several words: "API Key: ...", "Consumer key = ...", "Token updated: ..."
                label = _secret_label(text, name_start, name, table=op == "|")
                if label is not None:
                    name = label
                elif separators is not None:
                    pair_only = True
                else:
                    continue
            elif op is None and not _is_table_secret_name(name):
                continue  # no operator: "pass `x` to", "auth `y`" are prose, "API Key `...`" is not
            if op == "|" and not _is_table_secret_name(name):
                if separators is None:
                    continue  # a table's name cell says less than an assignment: | Auth | <commit sha> |
                pair_only = True  # ... but | Authentication | admin / ... | is a login
            got = _generic_value(m)
            if got is None:
                continue
            start, value = got
            if separators is not None:
                if m.group("bare") is not None:
                    limit = text.find("\n", start, span_end)
                    limit = span_end if limit < 0 else limit
                else:
                    limit = start + len(value)
                pair = _credential_pair(text, start, limit, separators)
                if pair is not None:
                    start, value = pair
                    emit(start, start + len(value), PAIR_KIND, value)
                    pos = max(m.end(), start + len(value))
                    continue
            if pair_only:
                continue
            end = start + len(value)
            grouped = _GROUPED_LETTERS.match(text, start)
            if grouped is not None:  # "qwhz mtkr bvxp nlca": one password, judged (and fingerprinted) whole
                end, value = grouped.end(), grouped.group().replace(" ", "")
            # cheapest checks first: most candidates are short words
            if len(value) < _MIN_GENERIC_LEN or _WHITESPACE.search(value):
                continue
            if _is_reference_or_wordy(value) or "EXAMPLE" in value or _is_placeholder(value):
                continue
            if _GOOGLE_CLIENT_ID.fullmatch(value):
                continue  # an OAuth client id is public, however the line names it
            if _is_aws_secret_name(name) and _AWS_SECRET_VALUE.fullmatch(value):
                emit(start, end, "AWS secret access key", value)
            elif _looks_high_entropy(value):
                emit(start, end, GENERIC_KIND, value)
            else:
                continue
            pos = max(m.end(), end)


# A table whose header names a secret in one column: | Bot | App ID | App Secret |.
# (One character class, no backtracking to blow up; the cells are checked after.)
_TABLE_DELIMITER = re.compile(r"^[ \t|:-]+\r?$", re.MULTILINE)
_DELIMITER_CELL = re.compile(r":?-+:?")
_CELL_VALUE = re.compile(
    r"[ \t*_]*(?:(?i:bearer|basic|token)[ \t]+)?"
    r"(?:`(?P<bq>[^`\n]{1,512})`|\"(?P<dq>[^\"\n]{1,512})\"|'(?P<sq>[^'\n]{1,512})'"
    r"|(?P<bare>[^\s`'\",;<>(){}\[\]|*]{1,512}))"
)
_PARENTHESES = re.compile(r"\([^()]*\)")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}")  # JWT_SIGNING_KEY_2026Q1: where the secret is kept
# A header saying its values are not the secret: of it, about it, or public.
_NOT_THE_SECRET = re.compile(r"(?i)\b(?:hash(?:ed)?|public|publishable|fingerprint|masked|redacted|prefix|last[ -]?4)\b")
# Password, secret key... in the languages agents keep notes in: as labels
# (_FOREIGN_LABEL) and as a table's column headers.
_FOREIGN_WORDS = r"(?:密码|密碼|密钥|密鑰|パスワード|비밀번호|(?i:passwort|kennwort|contraseña|mot de passe|пароль))"
_FOREIGN_HEADER = re.compile(_FOREIGN_WORDS)
_TOKEN_QUALIFIERS = frozenset({"access", "auth", "api", "bot", "bearer", "refresh", "session", "personal", "app"})


def _is_column_secret_name(header: str) -> bool:
    """A column header naming the secret its cells hold: its last word is the
    secret's (App Secret, API Keys, Access Token, Cookie, 密钥), not one
    about it (Token pricing, Token address, Tokens: a count; Token (hashed))."""
    if _NOT_THE_SECRET.search(header):
        return False
    name = _PARENTHESES.sub(" ", header).strip()
    if _FOREIGN_HEADER.search(name):
        return True
    segs = _name_segments(name)
    if not segs or len(name) > 80:
        return False
    last = segs[-1]
    if last in ("cookie", "cookies", "authorization"):
        return True
    if last == "keys" and len(segs) > 1 and (segs[-2], "key") in _NAME_PAIRS:
        return True  # API Keys
    if last == "tokens":  # a count, unless the tokens are credentials: Access tokens, Bot tokens
        return len(segs) > 1 and segs[-2] in _TOKEN_QUALIFIERS
    if not _is_table_secret_name(name):
        return False
    return (any(sub in last for sub in _NAME_SUBSTRINGS) and not last.startswith("tokeni")) or (
        len(segs) > 1 and (segs[-2], last) in _NAME_PAIRS)


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The (start, end) of each cell of the table row ``text[start:end]``,
    leading and trailing pipes dropped (an escaped pipe, ``\\|``, is no border)."""
    while start < end and text[start] in " \t":
        start += 1
    while end > start and text[end - 1] in " \t\r":
        end -= 1
    if start < end and text[start] == "|":
        start += 1
    if end > start and text[end - 1] == "|" and text[end - 2] != "\\":
        end -= 1
    cells, cell_start = [], start
    find = text.find
    bar = find("|", start, end)
    if find("\\", start, end) < 0:  # no escape: each pipe is a border (str.find, in C)
        while bar >= 0:
            cells.append((cell_start, bar))
            cell_start = bar + 1
            bar = find("|", cell_start, end)
    else:
        i = start
        while i < end:
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == "|":
                cells.append((cell_start, i))
                cell_start = i + 1
            i += 1
    cells.append((cell_start, end))
    return cells


_LOGIN_HINT = re.compile(r"(?i:cred|log[io]n|auth|pass)")  # a header that may name a login: cheap test first


def _scan_table_columns(text: str, emit: Callable[[int, int, str, str], None]) -> None:
    """Values in a column whose header names a secret (App Secret, API Key,
    Token, Password), row by row until the table ends: a table of bots and
    their credentials names the secret once, above them all."""
    if "|" not in text or "-" not in text:
        return
    table_end = 0  # a delimiter-like row inside a table read already is one of its rows
    for delimiter in _TABLE_DELIMITER.finditer(text):
        header_end = delimiter.start() - 1
        if header_end < table_end:
            continue
        header_start = text.rfind("\n", 0, header_end) + 1
        if "|" not in text[header_start:header_end] or "|" not in delimiter.group() or not all(
                _DELIMITER_CELL.fullmatch(text[start:end].strip(" \t"))
                for start, end in _cells(text, delimiter.start(), delimiter.end())):
            continue
        columns = []  # (index, header, pair separators, only a pair counts), in index order
        for i, (start, end) in enumerate(_cells(text, header_start, header_end)):
            name = text[start:end].strip(" \t*_`")
            if not name or len(name) > 120:
                continue
            secret = _is_column_secret_name(name)
            separators = None
            if (secret or _LOGIN_HINT.search(name)) and not _NOT_THE_SECRET.search(name):
                separators = _pair_separators(_PARENTHESES.sub(" ", name))
            if secret:
                columns.append((i, name, separators, False))
            elif separators is not None:  # | Device | Login |: its cells count as login pairs alone
                columns.append((i, name, separators, True))
        if not columns:
            continue
        row_start = delimiter.end() + 1
        while row_start < len(text):
            row_end = text.find("\n", row_start)
            row_end = len(text) if row_end < 0 else row_end
            if "|" not in text[row_start:row_end]:
                break  # the table ends at the first line that is no row
            cells = _cells(text, row_start, row_end)
            for i, name, separators, pair_only in columns:
                if i >= len(cells):
                    break  # a short row: no cell under this column, nor under the ones after it
                _judge_cell(text, *cells[i], name, emit, separators, pair_only)
            row_start = row_end + 1
        table_end = row_start


def _judge_cell(text: str, start: int, end: int, name: str, emit: Callable[[int, int, str, str], None],
                separators: str | None = None, pair_only: bool = False) -> None:
    """Report the value of one cell of a column headed ``name``, if it looks
    like a secret: the password of a login pair (``admin / pw``) where
    ``separators`` allows one, and with ``pair_only`` nothing else."""
    m = _CELL_VALUE.match(text, start, end)
    if m is None:
        return
    group = next(g for g in ("bq", "dq", "sq", "bare") if m.group(g) is not None)
    if separators is not None:
        pair = _credential_pair(text, m.start(group), end if group == "bare" else m.end(group), separators)
        if pair is not None:
            emit(pair[0], pair[0] + len(pair[1]), PAIR_KIND, pair[1])
            return
    if pair_only:
        return
    start, value = m.start(group), m.group(group).rstrip(".")
    if len(value) < _MIN_GENERIC_LEN or _WHITESPACE.search(value) or "EXAMPLE" in value:
        return
    if value.startswith("#") or value[1:3] in (":\\", ":/") or _ENV_NAME.fullmatch(value):
        return  # an anchor, a Windows path, an environment variable's name: pointers to it
    if _is_reference_or_wordy(value) or _is_placeholder(value) or _GOOGLE_CLIENT_ID.fullmatch(value):
        return
    parts = [part for part in _VALUE_SPLIT.split(value) if part]
    if len(parts) > 1 and all(len(part) <= 4 or _WORDY_PART.fullmatch(part) for part in parts):
        return  # words and short marks (spacing-2xl, gpt-4o-mini): a name, as a design token's
    if _is_aws_secret_name(name) and _AWS_SECRET_VALUE.fullmatch(value):
        emit(start, start + len(value), "AWS secret access key", value)
    elif _looks_high_entropy(value):
        emit(start, start + len(value), GENERIC_KIND, value)


# Labels in other languages: password, secret key, access token... as agents
# write them when they keep notes in the user's language.
_FOREIGN_LABEL = re.compile(
    _FOREIGN_WORDS + r"[^\n:：=]{0,12}?[ \t]*[:：=][ \t]*`?(?P<value>[^\s`'\",;<>()\[\]{}|]{10,512})"
)


def _scan_foreign_labels(text: str, emit: Callable[[int, int, str, str], None]) -> None:
    # Most memories hold none of these labels: substring looks (fast) say so.
    if not any(stem in text for stem in (_FOREIGN_ASCII if text.isascii() else _FOREIGN_STEMS)):
        return
    for m in _FOREIGN_LABEL.finditer(text):
        value = m.group("value").rstrip(".")
        if _is_reference_or_wordy(value) or _is_placeholder(value) or not _looks_high_entropy(value):
            continue
        emit(m.start("value"), m.start("value") + len(value), GENERIC_KIND, value)


# Parts of the labels of the languages agents most often keep notes in
# (Chinese, Japanese, Korean, German, French, Spanish, Russian): the text is
# searched for these first, each a fast substring search.
_FOREIGN_ASCII = ("asswort", "ASSWORT", "ennwort", "ENNWORT", "de passe", "De Passe", "DE PASSE")
_FOREIGN_STEMS = (*_FOREIGN_ASCII, "密", "パスワード", "비밀번호", "ntraseña", "NTRASEÑA", "ароль", "АРОЛЬ")


# --------------------------------------------------------------------------
# Login pairs under a heading that names them
# --------------------------------------------------------------------------

# A heading, or a label alone on its line, that names a login: "### Test
# credentials", "**Login:**", "- Credentials:".  (The label's class holds none
# of the marks around it, so nothing backtracks far.)
_LOGIN_HEADING = re.compile(
    r"[ \t]{0,3}(?:#{1,6}[ \t]+|[-*+][ \t]+)?[*_]{0,2}(?P<label>[^\n:*_#|`]{1,80})[*_]{0,2}[ \t]*(?::[*_]{0,2})?[ \t]*\r?"
)
_LINE_LEAD = re.compile(r"[ \t>]*(?:[-*+]|[0-9]{1,3}[.)])?[ \t]*")  # quote, list marker
# "Login: admin / ...", "| SSH login | admin / ... |", "creds = admin:...": a
# login's name, then an operator, then (after the match) the pair.
_LOGIN_ASSIGN = re.compile(r"(?i:log[io]ns?|creds?)(?![A-Za-z0-9_])[\"'`*]{0,3}[ \t]*(?::|=|\||->|→)\*{0,2}[ \t]*")
_LOGIN_STEMS = ("credential", "login", "logon", "creds")
_SECTION_LINES = 8  # lines under a heading read for pairs


def _find_all(text: str, word: str) -> Iterator[int]:
    i = text.find(word)
    while i >= 0:
        yield i
        i = text.find(word, i + 1)


def _scan_login_sections(text: str, emit: Callable[[int, int, str, str], None]) -> None:
    """Login pairs named by a login's own word: after it and an operator
    (``Login: admin / <password>``), and at the start of the lines under a
    heading naming them, up to the first blank line after them:

        ### Test credentials
        me@example.org / <password>

    A pair with no such name (``admin/...`` in a line of prose) is not
    reported: in real stores most such pairs are paths, repositories and
    product names (``Documents/WiFi-6-Guide.pdf``, ``owner/RepoName``)."""
    lowered = _lowered(text)  # (the generic scan's, already made)
    if len(lowered) != len(text):  # rare: lower() changed length (e.g. "İ")
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    positions = [i for stem in _LOGIN_STEMS for i in _find_all(lowered, stem)]
    if not positions:
        return  # most memories name no login
    positions.sort()
    line_start = line_end = -1
    read_until = 0  # lines before this were read under an earlier heading
    for at in positions:
        new_line = at > line_end
        if new_line:
            line_start = text.rfind("\n", 0, at) + 1
            line_end = text.find("\n", at)
            line_end = len(text) if line_end < 0 else line_end
        if not lowered.startswith("credential", at) and (at == line_start or not text[at - 1].isalnum()):
            named = _LOGIN_ASSIGN.match(text, at, line_end)  # ("Credentials: ..." is _scan_generic's)
            if named is not None:
                pair = _credential_pair(text, named.end(), line_end, "any")
                if pair is not None:
                    emit(pair[0], pair[0] + len(pair[1]), PAIR_KIND, pair[1])
        if not new_line:
            continue  # a line naming two stems is read once as a heading
        heading = _LOGIN_HEADING.fullmatch(text, line_start, line_end)
        if heading is None or _NOT_THE_SECRET.search(heading.group("label")):
            continue
        separators = _pair_separators(_PARENTHESES.sub(" ", heading.group("label")))
        if separators is None:
            continue
        start, read, content = line_end + 1, 0, False
        while start < len(text) and read < _SECTION_LINES:
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            read += 1
            if end < read_until:  # read under the heading before ("- Login:" lines one after another)
                start = end + 1
                continue
            read_until = end + 1
            lead = _LINE_LEAD.match(text, start, end).end()
            if lead == end or text[lead] == "\r":
                if content:
                    break  # the blank line after the section's first lines
            elif text[lead] == "#":
                break  # the next heading
            else:
                content = True
                pair = _credential_pair(text, lead, end, separators)
                if pair is not None:
                    emit(pair[0], pair[0] + len(pair[1]), PAIR_KIND, pair[1])
            start = end + 1


# --------------------------------------------------------------------------
# Passwords embedded in URLs (scheme://user:password@host)
# --------------------------------------------------------------------------

_URL_CREDS = re.compile(r"://[^\s:/@'\"<>]{0,256}:(?P<pw>[^\s/@'\"<>]{1,256})@")


def _scan_url_passwords(text: str, emit: Callable[[int, int, str, str], None]) -> None:
    if "://" not in text:
        return
    for m in _URL_CREDS.finditer(text):
        value = m.group("pw")
        if "EXAMPLE" in value or _is_placeholder(value) or _is_reference_or_wordy(value):
            continue
        if not _looks_high_entropy(value):
            continue
        emit(m.start("pw"), m.end("pw"), "password in URL", value)


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------

_ALLOW_RE = re.compile(r"<!--\s*" + re.escape(ALLOW_COMMENT) + r"\s*-->")

_SPECIFIC_SCANNERS = (_scan_private_keys, _scan_rules, _scan_url_passwords)


class _Candidate(NamedTuple):
    start: int
    end: int
    kind: str
    fingerprint: str
    value: str  # kept only while scanning, to find where it recurs; never in a SecretHit


def _collect(text: str, scanners) -> list[_Candidate]:
    found: list[_Candidate] = []

    def emit(start: int, end: int, kind: str, value: str) -> None:
        found.append(_Candidate(start, end, kind, fingerprint(value), value))

    for scanner in scanners:
        scanner(text, emit)
    return found


def scan(text: str, *, allow: frozenset[str] = frozenset()) -> Iterator[SecretHit]:
    """Yield a :class:`SecretHit` for every likely secret in *text*.

    Hits are ordered by position.  *allow* holds fingerprints allow-listed in
    config; such hits are not reported.
    """
    specific = sorted(_collect(text, _SPECIFIC_SCANNERS), key=lambda c: (c.start, -c.end))
    accepted: list[_Candidate] = []
    last_end = -1
    for cand in specific:
        if cand.start >= last_end:  # first (longest) match at a spot wins
            accepted.append(cand)
            last_end = cand.end
    # A vendor token that is also assigned to "token:" is reported once, as
    # the vendor kind.  `accepted` is sorted and non-overlapping here.
    starts = [c.start for c in accepted]
    # (a table's row label and its column header may both name one value: reported once)
    generic = list({(c.start, c.end): c for c in _collect(text, (_scan_generic, _scan_foreign_labels, _scan_table_columns,
                                                              _scan_login_sections))
                    if not _overlaps(c, accepted, starts)}.values())
    pairs = sorted(c for c in generic if c.kind == PAIR_KIND)
    if pairs:  # a login's password inside a value read whole under another name: the pair says where it is
        pair_starts = [c.start for c in pairs]
        generic = pairs + [c for c in generic if c.kind != PAIR_KIND and not _overlaps(c, pairs, pair_starts)]
    accepted.extend(generic)
    accepted.sort(key=lambda c: c.start)
    if not accepted:
        return
    line_starts = _line_starts(text)
    allowed_cache: dict[int, bool] = {}

    def allowed(cand: _Candidate) -> bool:
        """Allow-listed, or on a line with the allow comment."""
        if cand.fingerprint in allow:
            return True
        if cand.kind == PAIR_KIND and allow:
            # allowed whole, as it was found before pairs were read ("Credentials: admin/PASS")
            start = cand.start
            while start and not text[start - 1].isspace():
                start -= 1
            if fingerprint(text[start:cand.end]) in allow:
                return True
        idx = bisect.bisect_right(line_starts, cand.start) - 1
        if idx not in allowed_cache:
            allowed_cache[idx] = _line_allowed(text, line_starts, idx)
        return allowed_cache[idx]

    # (a value allowed where it was found is allowed where it recurs)
    again = _recurrences(text, accepted, [cand for cand in accepted if not allowed(cand)])
    if again:
        accepted.extend(again)
        accepted.sort(key=lambda c: c.start)
    for cand in accepted:
        if allowed(cand):
            continue
        idx = bisect.bisect_right(line_starts, cand.start) - 1
        yield SecretHit(
            line=idx + 1,
            column=cand.start - line_starts[idx] + 1,
            kind=cand.kind,
            fingerprint=cand.fingerprint,
            length=cand.end - cand.start,
        )


# Kinds found by what surrounds the value (a name, a heading), not by its own
# form as a vendor token is: the same value elsewhere in the file lacks that.
_CONTEXT_KINDS = frozenset({GENERIC_KIND, PAIR_KIND, "AWS secret access key", "password in URL"})
_RECURRENCE_VALUES = 32  # values looked for again: a file with more is loudly reported already


RECURRENCE_KIND = "a secret found elsewhere in this file, again"


def _recurrences(text: str, found: list[_Candidate], seeds: list[_Candidate]) -> list[_Candidate]:
    """Where a secret of ``seeds`` found by its context recurs in ``text`` as
    a token of its own: ``auth block (admin/<password>)`` in a file that says
    ``Credentials: admin / <password>`` above.  Each is the same secret (the
    same fingerprint, allow-listed together), and removing only the first
    would leave it in the file.  Only values with letters and digits, or of
    random letters: a name the generic rule took for a secret (``scryptSync``)
    recurs as prose."""
    starts = [c.start for c in found]
    values: dict[str, _Candidate] = {}
    for cand in seeds:
        if (cand.kind in _CONTEXT_KINDS and cand.value not in values and len(values) < _RECURRENCE_VALUES
                and (_has_digit(cand.value) and any(c.isalpha() for c in cand.value)
                     or _random_letters("".join(c for c in cand.value if c.isalpha())))):
            values[cand.value] = cand._replace(kind=RECURRENCE_KIND)
    more: list[_Candidate] = []
    find = text.find
    for value, cand in values.items():
        i = find(value)
        while i >= 0:
            end = i + len(value)
            if not ((i and _TOKEN_CHAR.match(text, i - 1)) or _TOKEN_CHAR.match(text, end)
                    or _overlaps(_Candidate(i, end, "", "", ""), found, starts)):
                more.append(cand._replace(start=i, end=end))
            i = find(value, end)
    return more


def _overlaps(cand: _Candidate, taken: list[_Candidate], starts: list[int]) -> bool:
    # taken is sorted and non-overlapping: only the one before cand.start and
    # those starting inside cand can overlap it.
    j = max(0, bisect.bisect_right(starts, cand.start) - 1)
    while j < len(taken) and taken[j].start < cand.end:
        if cand.start < taken[j].end:
            return True
        j += 1
    return False


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def _line_text(text: str, line_starts: list[int], idx: int) -> str:
    start = line_starts[idx]
    end = line_starts[idx + 1] - 1 if idx + 1 < len(line_starts) else len(text)
    return text[start:end]


def _line_allowed(text: str, line_starts: list[int], idx: int) -> bool:
    if _ALLOW_RE.search(_line_text(text, line_starts, idx)):
        return True
    if idx > 0:
        prev = _line_text(text, line_starts, idx - 1).strip()
        if _ALLOW_RE.fullmatch(prev):
            return True
    return False

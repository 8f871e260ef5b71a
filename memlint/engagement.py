"""Engagement scoring: hot and cold topics, triage (no LLM).

Pure functions implementing the formulas of FORMATS.md, section
"Engagement: hot and cold topics (no LLM)", plus the known fix for its
false-hot weakness: keywords are weighted by how rare they are across all
indexed sessions (an IDF weight), so a filename word that appears in most
sessions ("mistakes", "java", "avoid") carries (almost) no weight.

Two lookback windows are used by the commands:

* ``memlint health`` counts engagement over the last
  :data:`HEALTH_WINDOW_DAYS` (30) days, as the spec says.
* ``memlint triage`` counts recurrence over :data:`TRIAGE_WINDOW_DAYS` (60).
  The spec leaves this window open, but it cannot be 30: UPDATE needs
  ``recency < 0.4`` (last referencing session more than 30 days ago) *and*
  ``recurrence > 0.6`` (at least 2 referencing sessions in the window),
  which a 30-day window makes impossible. 60 matches the staleness horizon.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Sequence

from memlint.cjk import HANGUL_SYLLABLES, UNSPACED

if TYPE_CHECKING:  # pragma: no cover
    from memlint.sessions import SessionIndex

__all__ = [
    "HEALTH_WINDOW_DAYS",
    "TRIAGE_WINDOW_DAYS",
    "window_start",
    "MIN_WEIGHT",
    "keywords",
    "idf",
    "Engagement",
    "engagement",
    "hotness",
    "hot_class",
    "Triage",
    "triage",
    "actionability",
]

HEALTH_WINDOW_DAYS = 30
TRIAGE_WINDOW_DAYS = 60


def window_start(today: date, days: int) -> date:
    """The first day of "the last ``days`` days": that many calendar days,
    today included (FORMATS.md's "in the last 30 days"), not one more."""
    return today - timedelta(days=max(days, 1) - 1)

# --------------------------------------------------------------------------
# Keywords
# --------------------------------------------------------------------------

#: Leading filename/title tokens that name the memory *type*, not its topic.
TYPE_PREFIXES = frozenset({"feedback", "project", "reference", "user"})

#: English function words plus words every memory store is full of.
# English function words: no question and no memory is about them.
_FUNCTION_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be
    because been being below between both but by can cannot could did do does
    doing done down during each else etc few for from further get got had has
    have having her here hers him his how however into its itself just let me
    more most much must my myself no nor not now of off on once only
    or other our ours out over own per same she should since some such than
    that the their theirs them then there these they this those through thus
    too under until upon very via was way we were what
    when where which while who whom why will with within without would yet
    you your yours
    """.split()
)
# Two-letter ones too: in a question, and as a file's keyword (a tag `it` would
# match every session that says "it").
_FUNCTION_WORDS = _FUNCTION_WORDS | frozenset("i is it to in if so up us".split())
ENGLISH_STOP_WORDS = _FUNCTION_WORDS
# Also the words of memory files' own names that say nothing of their topic
# (a file's keywords), which a question may still mean (`memlint eval`).
STOP_WORDS = _FUNCTION_WORDS | frozenset(
    """
    new old use used uses using
    always never every often
    md txt json yaml yml
    memory memories note notes index readme misc general file files topic
    topics info stuff draft tmp temp todo log logs
    """.split()
)

_DATE_IN_NAME = re.compile(r"\d{4}-\d{2}-\d{2}|\d{8}")
_SPLIT = re.compile(r"[\W_]+")  # unicode-aware: not a letter or digit
_CAMEL_1 = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")  # ironClaw -> iron Claw
_CAMEL_2 = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])")  # HTTPServer -> HTTP Server


def _tokens(text: str, compounds: bool = False) -> list[str]:
    """Split on anything not a letter/digit (so ``-``, ``_``, ``.``, space)
    and on camelCase boundaries; lowercased. Dates are removed.

    With ``compounds``, a camelCase word is also kept whole, before its
    parts (``ironClaw`` -> ironclaw, iron, claw): session text says
    "IronClaw", which the index holds as the single token "ironclaw".
    """
    text = _DATE_IN_NAME.sub(" ", text)
    out: list[str] = []
    for chunk in _SPLIT.split(text):
        if not chunk:
            continue
        parts = _CAMEL_2.sub(" ", _CAMEL_1.sub(" ", chunk)).lower().split()
        if compounds and len(parts) > 1:
            out.append(chunk.lower())
        out.extend(parts)
    return [t for t in out if t]


def _keep(tok: str, alone: bool = False) -> bool:
    """A token worth searching for: three characters or more, or two when it
    is all its source says (a tool's name: `jq.md`, `tags: [gh]`) or in a
    script whose words are often two characters (部署, 서버)."""
    short = alone or _WIDE_WORD.search(tok) is not None
    return len(tok) >= (2 if short else 3) and not tok.isdigit() and tok not in STOP_WORDS


_WIDE_WORD = re.compile(f"[{UNSPACED}{HANGUL_SYLLABLES}]")


def _drop_type_prefix(toks: list[str]) -> list[str]:
    return toks[1:] if toks and toks[0] in TYPE_PREFIXES else toks


def keywords(path: str, title: str | None, tags: Sequence[str]) -> list[str]:
    """Search keywords of a memory file, most specific source first.

    * filename: the last path component without its extension, split on
      ``-``, ``_``, ``.`` and camelCase; dates (``YYYY-MM-DD``, ``YYYYMMDD``)
      removed; a leading type prefix (``feedback_``, ``project_``,
      ``reference_``, ``user_``) dropped; stop words, numbers and tokens
      shorter than 3 characters dropped (2 are enough for a name of one
      word, a tool's: ``jq.md``, ``gh``). A camelCase word is kept whole as
      well as split (``ironClaw`` -> ironclaw, iron, claw). Parent folders
      are ignored.
    * ``title`` (frontmatter ``name``/``title``): the same rules, word by
      word.
    * ``tags``: a one-word tag is a keyword (same rules, two characters
      enough); a multi-word tag
      (``machine-learning``, ``"release process"``) is kept as one phrase
      keyword (``"machine learning"``), matched as adjacent words.

    Lowercased, deduplicated, order preserved.
    """
    out: list[str] = []
    seen: set[str] = set()

    def add(kw: str) -> None:
        if kw not in seen:
            seen.add(kw)
            out.append(kw)

    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if "." in name.lstrip("."):
        name = name[: name.rfind(".")]
    for source in (name, str(title) if title else ""):
        toks = _drop_type_prefix(_tokens(source, compounds=True))
        for tok in toks:
            if _keep(tok, alone=len(toks) == 1):
                add(tok)
    for tag in tags or ():
        if tag is None:
            continue
        toks = _tokens(str(tag))
        if len(toks) == 1:
            if _keep(toks[0], alone=True):
                add(toks[0])
        elif toks and any(_keep(t) for t in toks):
            add(" ".join(toks))
    return out


# --------------------------------------------------------------------------
# IDF weight
# --------------------------------------------------------------------------

#: A keyword found in at least this fraction of sessions weighs 0.
COMMON_FRACTION = 0.5
#: A keyword found in at most this fraction of sessions weighs 1.
RARE_FRACTION = 0.05
#: Below this many sessions, fractions are taken over this many (a young
#: store with 3 sessions cannot tell that a word is common).
MIN_CORPUS = 20
#: Keywords weighing less than this are ignored entirely (treated as stop
#: words of this corpus): they neither add hits nor count as referencing
#: sessions for recency/recurrence. 0.1 <=> found in more than ~40% of
#: sessions.
MIN_WEIGHT = 0.1


def idf(df: int, n_sessions: int) -> float:
    """Weight in [0, 1] of a keyword found in ``df`` of ``n_sessions``.

    A saturated, normalised inverse document frequency::

        p = df / max(n_sessions, MIN_CORPUS)          # fraction of sessions
        w = log(COMMON_FRACTION / p) / log(COMMON_FRACTION / RARE_FRACTION)
          = log10(0.5 / p)                            # with the defaults
        idf = clamp(w, 0, 1)

    i.e. classic ``log(N / df)`` shifted so that a term in >= 50% of the
    sessions weighs 0 and scaled so that any term in <= 5% of them weighs
    the full 1 (rare terms are not ranked against each other; only common
    ones are discounted). A term in 16% weighs 0.5, in 40% weighs ~0.1.
    ``df == 0`` weighs 1 (it can have no hits anyway).
    """
    if df <= 0:
        return 1.0
    n = max(n_sessions, MIN_CORPUS, df)
    p = df / n
    w = math.log(COMMON_FRACTION / p) / math.log(COMMON_FRACTION / RARE_FRACTION)
    return min(1.0, max(0.0, w))


# --------------------------------------------------------------------------
# Engagement (topic-health)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Engagement:
    """How much recent sessions engaged with one memory file.

    hits: IDF-weighted number of distinct sessions in the window - each
        session counts once, with the weight of the best-weighted keyword it
        matched (max, not sum: many keywords in one session are still one
        session, so ``hits <= sessions``).
    sessions: distinct matching sessions in the window.
    last_session: date of the most recent matching session on or before
        ``today``, looking at *all* history (so triage can tell "31 days ago"
        from "never"); None if none.
    matched: keywords that matched a session in the window, heaviest first.
    """

    hits: float
    sessions: int
    last_session: date | None
    matched: tuple[str, ...]


def engagement(
    index: "SessionIndex",
    kws: Sequence[str],
    today: date,
    window_days: int = HEALTH_WINDOW_DAYS,
    names: Sequence[str] = (),
) -> Engagement:
    """Engagement of a file with keywords ``kws``.

    The window is the last ``window_days`` calendar days, today included:
    ``window_start(today, window_days) <= session date <= today``
    (sessions dated after ``today`` are ignored). Keyword weights are
    :func:`idf` over every indexed session; keywords weighing less than
    :data:`MIN_WEIGHT` are ignored. ``names`` name the file itself (its
    path, ``memory/project_kafka.md``): when its keywords were all dropped
    as too common or match nothing, a session that writes one still refers
    to the file, however many do, and weighs 1. (Asked only then: a query
    per file.)
    """
    n_sessions = index.count()
    since = window_start(today, window_days)
    best: dict[str, float] = {}  # session id -> best keyword weight
    matched: dict[str, float] = {}
    last: date | None = None
    order: dict[str, int] = {}

    def count(term: str, w: float) -> None:
        """Add the sessions holding ``term``, at weight ``w``."""
        nonlocal last
        in_window = False
        for sid, when in index.hits(term):  # newest first
            if when > today:
                continue
            if last is None or when > last:
                last = when
            if when < since:
                break
            in_window = True
            if w > best.get(sid, 0.0):
                best[sid] = w
        if in_window:
            matched[term] = w

    common = False  # a keyword dropped as too common
    for kw in kws:
        kw = kw.strip().lower()
        if not kw or kw in order:
            continue
        order[kw] = len(order)
        df = index.document_frequency(kw)
        if df == 0:
            continue
        w = idf(df, n_sessions)
        if w < MIN_WEIGHT:
            common = True
            continue
        count(kw, w)
    if not best and (common or not order):  # every word of it too common (or it has none): named by its path?
        for name in names:
            name = name.strip().lower()
            if name and name not in order:
                order[name] = len(order)
                count(name, 1.0)
    ranked = sorted(matched, key=lambda k: (-matched[k], order[k]))
    return Engagement(
        hits=sum(best.values()),
        sessions=len(best),
        last_session=last,
        matched=tuple(ranked),
    )


def hotness(hits: float, max_hits: float, days_since_changed: int) -> float:
    """``0.6 * hits/max_hits + 0.4 * (1 - min(days, 60)/60)``.

    ``max_hits`` is the largest ``hits`` over the files being compared;
    0 makes the first term 0. Both terms are clamped to [0, 1] (a negative
    day count, e.g. clock skew, counts as 0).
    """
    engaged = 0.0
    if max_hits > 0:
        engaged = min(1.0, max(0.0, hits / max_hits))
    d = min(max(days_since_changed, 0), 60)
    return 0.6 * engaged + 0.4 * (1 - d / 60)


def hot_class(h: float) -> str:
    """HOT >= 0.6, WARM >= 0.3, COLD below."""
    if h >= 0.6:
        return "HOT"
    if h >= 0.3:
        return "WARM"
    return "COLD"


# --------------------------------------------------------------------------
# Triage (topic-triage)
# --------------------------------------------------------------------------

#: Prescriptive patterns, matched case-insensitively as whole words.
PRESCRIPTIVE = ("always", "never", "must", "critical", "before", "instead of")
_PRESCRIPTIVE_RE = {
    w: re.compile(r"\b" + r"\s+".join(map(re.escape, w.split())) + r"\b", re.IGNORECASE)
    for w in PRESCRIPTIVE
}


def actionability(first_50_lines: str) -> float:
    """``min(1, distinct prescriptive patterns found / 3)``.

    Patterns: always, never, must, critical, before, instead of (whole words,
    any case; "instead of" may span whitespace). Counting *distinct*
    patterns, not occurrences, keeps one repeated word from looking like a
    rule book; three different ones are enough for a file of rules. Only the
    first 50 lines are looked at, whatever the caller passes.
    """
    head = "\n".join(first_50_lines.splitlines()[:50])
    found = sum(1 for rx in _PRESCRIPTIVE_RE.values() if rx.search(head))
    return min(1.0, found / 3)


def _recency(last_session_days: int | None) -> float:
    if last_session_days is None:
        return 0.1
    if last_session_days <= 7:
        return 1.0
    if last_session_days <= 14:
        return 0.7
    if last_session_days <= 30:
        return 0.4
    return 0.1


@dataclass(frozen=True)
class Triage:
    recency: float
    recurrence: float
    actionability: float
    staleness: float
    score: float
    recommendation: str  # ARCHIVE | PRUNE | UPDATE | KEEP


def triage(
    last_session_days: int | None,
    distinct_sessions: int,
    first_50_lines: str,
    days_since_changed: int,
    line_count: int,
    archivable: bool = True,
    retired: bool = False,
) -> Triage:
    """Triage one memory file.

    * recency: last referencing session <= 7 days ago 1.0, <= 14 0.7,
      <= 30 0.4, older or never 0.1
    * recurrence: ``min(n, 3) / 3`` for n distinct referencing sessions in
      the triage window (:data:`TRIAGE_WINDOW_DAYS`)
    * actionability: :func:`actionability`
    * staleness: ``min(days_since_changed, 60) / 60``
    * ``score = 0.30 R + 0.25 Rc + 0.25 A + 0.20 (1 - S)``
    * ARCHIVE if staleness > 0.8 and recurrence < 0.2; elif PRUNE if more
      than 300 lines and recurrence < 0.4; elif UPDATE if recency < 0.4 and
      recurrence > 0.6; else KEEP. Not ARCHIVE when not ``archivable``
      (a core memory): the next that applies. KEEP, whatever the scores,
      when ``retired`` (its status retires it: archived already, kept for
      provenance, not loaded, so neither pruning nor updating it helps).
    """
    recency = _recency(last_session_days)
    recurrence = min(max(distinct_sessions, 0), 3) / 3
    act = actionability(first_50_lines)
    staleness = min(max(days_since_changed, 0), 60) / 60
    score = 0.30 * recency + 0.25 * recurrence + 0.25 * act + 0.20 * (1 - staleness)
    if retired:
        rec = "KEEP"
    elif staleness > 0.8 and recurrence < 0.2 and archivable:
        rec = "ARCHIVE"
    elif line_count > 300 and recurrence < 0.4:
        rec = "PRUNE"
    elif recency < 0.4 and recurrence > 0.6:
        rec = "UPDATE"
    else:
        rec = "KEEP"
    return Triage(recency, recurrence, act, staleness, score, rec)

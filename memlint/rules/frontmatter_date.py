"""A date field does not parse, lies in the future, or ``last_verified`` is before ``created``.

Why: staleness, expiry and triage all read these dates; a typo or a
future date makes a memory look fresh forever.

A date one day ahead is not "in the future": git dates a commit in its own
time zone, so a memory written east of UTC (and ``memlint backfill``'s date
for it) may read as tomorrow on a machine west of it, a CI runner on UTC.

Options: ``allow-future`` (default ``[expires]``): fields that may lie in the
future; each must be one of the fields checked, or the config is an error
(a typo would allow nothing). The fields checked are the store setting
``date-fields`` (default ``created, date, last_verified, expires, updated``). Files the store setting
``exempt`` names (``NOW.md``, templates) are not checked: a template's
``created: YYYY-MM-DD`` is a placeholder.

Fires (each on the line of the field at fault):

    ---
    created: 2026-01-10
    last_verified: 2025-01-01   # before created
    updated: 2026-13-01         # no month 13
    ---

Fix: write dates as ``YYYY-MM-DD``. ``memlint backfill`` takes ``created``
and ``last_verified`` from git history, but only where the field is missing
or empty: it never replaces a date that is there, so delete a wrong one first.
"""
from datetime import date

from memlint.dates import parse_date
from memlint.finding import Problem

CODE = "MEM004"
NAME = "frontmatter-date"
SEVERITY = "error"
SCOPE = "file"
TAGS = ("frontmatter", "dates")
OPTIONS = {"allow-future": ((list,), ["expires"])}


def check_option(name: str, value, settings: dict) -> str | None:
    """Why a configured value cannot work, checked when the config loads: a
    field not read as a date (a typo, `expries`) would allow nothing, silently."""
    if name == "allow-future":
        fields = settings["date-fields"]
        for entry in value:
            if entry not in fields:
                return (f"{entry!r} is not a date field, so it allows nothing (date fields: {', '.join(fields) or 'none'}; "
                        "the store setting date-fields names them)")
    return None


def content_memo(store, options):
    """(cache kind, function of a doc): the date fields a file's frontmatter
    holds, as written, depend only on its content and the store's
    ``date-fields`` (kept by blob id, memlint.cache); today's date is applied
    to them in ``check``."""
    fields = tuple(store.settings["date-fields"])
    return "dates:" + "\0".join(fields), lambda doc: _written_dates(doc, fields)


def _written_dates(doc, fields) -> tuple:
    """((field, line, date as an ordinal or None, why it is not a date or None), ...)."""
    if not doc.frontmatter:
        return ()
    out = []
    for name in fields:
        value = doc.field(name)
        if value is None or value == "":
            continue
        try:
            out.append((name, doc.key_line(name), parse_date(value).toordinal(), None))
        except ValueError as exc:
            out.append((name, doc.key_line(name), None, str(exc)))
    return tuple(out)


def check(doc, store, options):
    if not doc.frontmatter or doc.role == "exempt":  # a template's `created: YYYY-MM-DD` is a placeholder
        return
    kind, written = content_memo(store, options)
    today = store.today.toordinal()
    parsed = {}
    for name, line, day, why in store.memo(doc, kind, lambda: written(doc)):
        if why is not None:
            yield Problem(doc.path, line, 1, f"`{name}`: {why}")
            continue
        parsed[name] = day
        if day - today > 1 and name not in options["allow-future"]:
            when = date.fromordinal(day)
            yield Problem(doc.path, line, 1, f"`{name}: {when.isoformat()}` is in the future (today is {store.today.isoformat()})")
    created, verified = parsed.get("created"), parsed.get("last_verified")
    if created and verified and verified < created:
        yield Problem(
            doc.path,
            doc.key_line("last_verified"),
            1,
            f"`last_verified: {date.fromordinal(verified).isoformat()}` is before "
            f"`created: {date.fromordinal(created).isoformat()}`",
        )

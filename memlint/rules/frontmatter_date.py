"""A date field does not parse, lies in the future, or ``last_verified`` is before ``created``.

Why: staleness, expiry and triage all read these dates; a typo or a
future date makes a memory look fresh forever.

A date one day ahead is not "in the future": git dates a commit in its own
time zone, so a memory written east of UTC (and ``memlint backfill``'s date
for it) may read as tomorrow on a machine west of it, a CI runner on UTC.

Options: ``allow-future`` (default ``[expires]``): fields that may lie in the
future. The fields checked are the store setting ``date-fields`` (default
``created, date, last_verified, expires, updated``). Files the store setting
``exempt`` names (``NOW.md``, templates) are not checked: a template's
``created: YYYY-MM-DD`` is a placeholder.

Fires:

    ---
    created: 2026-13-01
    last_verified: 2025-01-01   # before created
    ---

Fix: write dates as ``YYYY-MM-DD``; run ``memlint backfill`` to take them
from git history.
"""
from memlint.dates import parse_date
from memlint.finding import Problem

CODE = "MEM004"
NAME = "frontmatter-date"
SEVERITY = "error"
SCOPE = "file"
TAGS = ("frontmatter", "dates")
OPTIONS = {"allow-future": ((list,), ["expires"])}


def check(doc, store, options):
    fm = doc.frontmatter
    if not fm or doc.role == "exempt":  # a template's `created: YYYY-MM-DD` is a placeholder
        return
    parsed = {}
    for name in store.settings["date-fields"]:
        value = doc.field(name)
        if value is None or value == "":
            continue
        line = doc.key_line(name)
        try:
            when = parse_date(value)
        except ValueError as exc:
            yield Problem(doc.path, line, 1, f"`{name}`: {exc}")
            continue
        parsed[name] = when
        if (when - store.today).days > 1 and name not in options["allow-future"]:
            yield Problem(doc.path, line, 1, f"`{name}: {when.isoformat()}` is in the future (today is {store.today.isoformat()})")
    created, verified = parsed.get("created"), parsed.get("last_verified")
    if created and verified and verified < created:
        yield Problem(
            doc.path,
            doc.key_line("last_verified"),
            1,
            f"`last_verified: {verified.isoformat()}` is before `created: {created.isoformat()}`",
        )

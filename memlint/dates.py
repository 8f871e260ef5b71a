"""Reading dates out of frontmatter values."""
from __future__ import annotations

import functools
import re
from datetime import date, datetime, timedelta, timezone

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# A date and time as YYYY-MM-DD then a time (`2026-05-01T10:00:00+02:00`): not
# the other forms Python also reads (`20260501`, `2026-W18-5`), which the
# messages, the schemas and the harnesses do not take for YYYY-MM-DD.
_ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$")
# YAML 1.1's own timestamp (https://yaml.org/type/timestamp.html), which
# PyYAML types and a harness reading YAML takes for a date: also a one-digit
# month, day, hour or zone hour, a lowercase t, spaces or tabs before the time
# and before the zone (`2001-12-14 21:59:43.10 -5`). Its date is the day as
# written, in its own zone, as for the ISO forms (and git's dates).
_YAML_TIMESTAMP = re.compile(
    r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+]([0-9]{1,2})(?::([0-9]{2}))?))?$"
)


def parse_date(value) -> date:
    """A frontmatter value as a date; ValueError with a short reason if it is not one.

    YAML already turns ``2026-05-01`` into a date; strings in ISO 8601 date or
    date-time form are accepted too (a trailing ``Z`` included).
    """
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return _parse_text(value)
    raise ValueError(f"{value!r} is not a date (use YYYY-MM-DD)")


@functools.lru_cache(maxsize=4096)  # a store repeats its dates; the rules ask for each several times
def _parse_text(value: str) -> date:
    text = value.strip()
    try:
        if _ISO_DATE.match(text):
            return date.fromisoformat(text)
        if _ISO_DATETIME.match(text):
            return datetime.fromisoformat(text.replace("Z", "+00:00").replace(",", ".")).date()
        m = _YAML_TIMESTAMP.match(text)
        if not m:
            raise ValueError
        year, month, day, hour, minute, second, zone_hour, zone_minute = m.groups()
        # ValueError for what PyYAML cannot build either: hour 24, a zone a day or more away
        timezone(timedelta(hours=int(zone_hour or 0), minutes=int(zone_minute or 0)))
        return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second)).date()
    except ValueError:
        raise ValueError(f"{value!r} is not a date (use YYYY-MM-DD)") from None

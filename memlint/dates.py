"""Reading dates out of frontmatter values."""
from __future__ import annotations

import functools
import re
from datetime import date, datetime

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# A date and time as YYYY-MM-DD then a time (`2026-05-01T10:00:00+02:00`): not
# the other forms Python also reads (`20260501`, `2026-W18-5`), which the
# messages, the schemas and the harnesses do not take for YYYY-MM-DD.
_ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$")


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
        if not _ISO_DATETIME.match(text):
            raise ValueError
        return datetime.fromisoformat(text.replace("Z", "+00:00").replace(",", ".")).date()
    except ValueError:
        raise ValueError(f"{value!r} is not a date (use YYYY-MM-DD)") from None

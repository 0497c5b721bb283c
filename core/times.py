"""Times as canary's files write them: ISO 8601, UTC, with a Z.

Every time read goes through `parse_time` (naive means UTC, never the machine's local time),
`time_or_none`, `parse_date` or `as_utc`; every time written through `fmt_time` (as precise as
given) or `stamp` (whole seconds). tests/test_architecture.py keeps `fromisoformat` and the
timestamp format inside this module.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, overload

from core.errors import InputError


class TimeFormatError(InputError):
    """A value that is not an ISO 8601 time."""


def parse_time(value: Any, field_name: str) -> datetime:
    """An ISO 8601 timestamp as an aware UTC datetime (naive means UTC)."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            raise TimeFormatError(
                f"{field_name}: {value!r} is not an ISO 8601 time like 2026-11-29T22:30:00Z") from None
    else:
        raise TimeFormatError(f"{field_name}: expected an ISO 8601 time, got {type(value).__name__}")
    return as_utc(parsed)


@overload
def as_utc(value: datetime) -> datetime: ...
@overload
def as_utc(value: None) -> None: ...
def as_utc(value: datetime | None) -> datetime | None:
    """An aware UTC datetime (naive means UTC), or None."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def time_or_none(value: Any) -> datetime | None:
    """`value` read as `parse_time` reads it, or None when it is not an ISO 8601 time string."""
    if not isinstance(value, str):
        return None
    try:
        return parse_time(value, "time")
    except TimeFormatError:
        return None


def parse_date(value: str, field_name: str) -> date:
    """An ISO 8601 day (2026-11-29)."""
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise TimeFormatError(f"{field_name}: {value!r} is not an ISO 8601 day like 2026-11-29") from None


def fmt_time(value: datetime | None) -> str | None:
    """ISO 8601 UTC with a Z, the precision kept as given (None stays None)."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def stamp(at: datetime) -> str:
    """A time as results.json writes a round's times: UTC, whole seconds, Z."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

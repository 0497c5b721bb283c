"""Times as canary's files write them: ISO 8601, UTC, with a Z.

Every time canary reads from a file or the command line goes through `parse_time` (naive
means UTC); every time it writes goes through `fmt_time` (as precise as given) or `stamp`
(whole seconds, as results.json records a round's times).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

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
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def fmt_time(value: datetime | None) -> str | None:
    """ISO 8601 UTC with a Z, the precision kept as given (None stays None)."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def stamp(at: datetime) -> str:
    """A time as results.json writes a round's times: UTC, whole seconds, Z."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

"""core/times.py: the one reader and writer of canary's times."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from core.times import TimeFormatError, fmt_time, parse_date, parse_time, stamp, time_or_none


def test_a_time_is_read_as_utc_and_a_naive_one_means_utc() -> None:
    at = datetime(2026, 11, 29, 22, 30, tzinfo=UTC)
    assert parse_time("2026-11-29T22:30:00Z", "t") == at == parse_time(" 2026-11-29T22:30:00 ", "t")
    assert parse_time("2026-11-29T23:30:00+01:00", "t") == at
    assert parse_time(datetime(2026, 11, 29, 23, 30, tzinfo=timezone(timedelta(hours=1))), "t").tzinfo is UTC


def test_a_lenient_reader_gets_none_for_what_is_not_a_time() -> None:
    assert time_or_none("2026-11-29T22:30:00") == datetime(2026, 11, 29, 22, 30, tzinfo=UTC)
    assert [time_or_none(v) for v in (None, "", "soon", 1764455400)] == [None, None, None, None]


def test_a_day_is_read_and_a_bad_one_is_named() -> None:
    assert parse_date("2026-11-29", "rounds/2026/11-29") == date(2026, 11, 29)
    with pytest.raises(TimeFormatError, match="rounds/2026/xx: '2026-xx' is not an ISO 8601 day"):
        parse_date("2026-xx", "rounds/2026/xx")


def test_times_are_written_with_a_z_as_precise_as_asked() -> None:
    at = datetime(2026, 11, 29, 23, 30, 5, 250000, tzinfo=timezone(timedelta(hours=1)))
    assert (stamp(at), fmt_time(at), fmt_time(at.replace(microsecond=0)), fmt_time(None)) == (
        "2026-11-29T22:30:05Z", "2026-11-29T22:30:05.250000Z", "2026-11-29T22:30:05Z", None)

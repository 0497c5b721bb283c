"""exclusions/maintenance.yaml: providers' announced maintenance windows, read and validated.

A people-owned file on main (a pull request, like the exclusion files); what a window does is
judge/suspension/maintenance.py's. A list of entries, one-off or recurring:

    - provider: "cinder/fp8"              # a full tag: that endpoint; a bare tag ("cinder"): every endpoint of the host
      model: "deepseek/deepseek-chat-v3-0324"   # optional: without it, every model
      start: "2026-12-03T02:00:00Z"       # one-off: two ISO 8601 times
      end: "2026-12-03T04:00:00Z"
      reason: "announced: status.cinder.example/incidents/88"
      author: "alice"
    - provider: "dune"
      every: "tuesday"                    # recurring: monday ... sunday, or "day"
      start: "02:00"                      # UTC times of day; an end not after the start runs past midnight
      end: "03:00"
      reason: "weekly maintenance (their terms of service, section 4)"
      author: "bob"
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from pathlib import Path

import yaml

from canary.state.people_yaml import compose, entry_nodes, fail, problem, scalar_fields
from core.schema import read_as
from core.store import read_text
from core.tags import describe_invalid_tag, is_valid_tag
from core.times import TimeFormatError, parse_time
from judge.suspension.maintenance import DAILY, MAX_ONE_OFF, MAX_RECURRING, WEEKDAYS, MaintenanceWindow

_TIME_OF_DAY = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


@dataclass(frozen=True, slots=True)
class MaintenanceEntry:
    """An entry of maintenance.yaml (the file's declaration, read with core/schema.py)."""

    provider: str
    start: str
    end: str
    reason: str
    author: str
    model: str | None = None
    every: str | None = None


def load_maintenance(path: Path) -> tuple[MaintenanceWindow, ...]:
    """The windows of the maintenance file; () when it does not exist."""
    text = read_text(path, "maintenance file")
    return () if text is None else parse_maintenance(text, str(path))


def parse_maintenance(text: str, source: str) -> tuple[MaintenanceWindow, ...]:
    """Validate the file's text; StoreError names the line of the first problem."""
    return tuple(_entry(source, node) for node in entry_nodes(compose(text, source), source, "provider"))


def _entry(source: str, node: yaml.Node) -> MaintenanceWindow:
    fields = scalar_fields(source, node, [f.name for f in dataclasses.fields(MaintenanceEntry)],
                           "provider, start, end, reason, author; every for a recurring window")
    e = read_as(fields, MaintenanceEntry, source=None, error=lambda why: problem(source, node, why))
    if not is_valid_tag(e.provider):
        fail(source, node, f"provider {describe_invalid_tag(e.provider)}")
    if e.model is not None and not is_valid_tag(e.model):
        fail(source, node, f"model id {describe_invalid_tag(e.model)}")
    for name in ("reason", "author"):
        if not getattr(e, name).strip():
            fail(source, node, f"{name}: must not be empty")
    base = MaintenanceWindow(provider=e.provider, reason=e.reason, author=e.author, model=e.model,
                             line=node.start_mark.line + 1)
    if e.every is None:
        start, end = _moment(source, node, "start", e.start), _moment(source, node, "end", e.end)
        if end <= start:
            fail(source, node, f"end ({e.end}) must be after start ({e.start})")
        if end - start > MAX_ONE_OFF:
            fail(source, node, f"a one-off window lasts at most {_hours(MAX_ONE_OFF)} h (this one "
                               f"{_hours(end - start)} h); a longer outage is an incident exclusion")
        return dataclasses.replace(base, start=start, end=end)
    every = e.every.strip().casefold()
    if every not in (*WEEKDAYS, DAILY):
        fail(source, node, f"every: {e.every!r} is not a weekday (monday ... sunday) or {DAILY!r}")
    opens, closes = _time_of_day(source, node, "start", e.start), _time_of_day(source, node, "end", e.end)
    length = _length(opens, closes)
    if length > MAX_RECURRING:
        fail(source, node, f"a recurring window lasts at most {_hours(MAX_RECURRING)} h (this one {_hours(length)} h)")
    return dataclasses.replace(base, every=every, daily_start=opens, daily_end=closes)


def _moment(source: str, node: yaml.Node, name: str, value: str) -> datetime:
    try:
        return parse_time(value, name)
    except TimeFormatError:
        fail(source, node, f"{name}: {value!r} is not an ISO 8601 time like 2026-12-03T02:00:00Z "
                           "(a recurring window names its day with `every` and its times as HH:MM)")


def _time_of_day(source: str, node: yaml.Node, name: str, value: str) -> time:
    match = _TIME_OF_DAY.match(value.strip())
    if match is None:
        fail(source, node, f"{name}: {value!r} is not a UTC time of day like 02:00 (with every: ...)")
    return time(int(match[1]), int(match[2]))


def _length(opens: time, closes: time) -> timedelta:
    minutes = (closes.hour * 60 + closes.minute) - (opens.hour * 60 + opens.minute)
    return timedelta(minutes=minutes if minutes > 0 else minutes + 24 * 60)


def _hours(delta: timedelta) -> str:
    return f"{delta.total_seconds() / 3600:g}"


__all__ = ["load_maintenance", "parse_maintenance"]

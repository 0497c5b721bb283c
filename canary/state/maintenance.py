"""exclusions/maintenance.yaml: providers' announced maintenance windows, read, validated and edited
(`canary maintenance add|list|remove`; docs/maintenance.md).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from pathlib import Path

from canary.state import people_yaml
from core.layer_files import FIX, entry_error, walk
from core.store import StoreError, read_text
from core.times import TimeFormatError, fmt_time, parse_time
from core.untrusted import clean
from judge.suspension.maintenance import (
    DAILY,
    MAX_WEEKLY,
    WEEK,
    WEEKDAYS,
    MaintenanceWindow,
    busiest_week,
)

_TIME_OF_DAY = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


@dataclass(frozen=True, slots=True, kw_only=True)
class MaintenanceEntry:
    """An entry of maintenance.yaml: `walk` reads it, people_yaml writes it in this order."""

    provider: str
    model: str | None = None
    every: str | None = None
    start: str
    end: str
    reason: str
    author: str


def load_maintenance(path: Path) -> tuple[MaintenanceWindow, ...]:
    """The windows of the maintenance file; () when it does not exist."""
    text = read_text(path, "maintenance file")
    return () if text is None else parse_maintenance(text, str(path))


def parse_maintenance(text: str, source: str) -> tuple[MaintenanceWindow, ...]:
    """Validate the file's text; StoreError names the line of the first problem (the lines of the
    windows that cover one endpoint too long a week)."""
    windows = []
    for w in walk(text, source, MaintenanceEntry):
        try:
            windows.append(dataclasses.replace(window_of(w.entry), line=w.line))
        except StoreError as exc:
            raise entry_error(source, w.line, str(exc)) from None
    too_much = _overbooked(windows)
    if too_much:
        raise StoreError(f"{source}: {too_much}. {FIX}")
    return tuple(windows)


def add_window(text: str, source: str, entry: MaintenanceEntry) -> str:
    """`text` with `entry` appended, its one-off times written in UTC (StoreError, nothing written, for a
    window the file could not hold)."""
    window = window_of(entry)
    too_much = _overbooked([*parse_maintenance(text, source), window])
    if too_much:
        raise StoreError(f"{source}: {too_much}. Nothing was written.")
    if window.start is not None:
        entry = dataclasses.replace(entry, start=fmt_time(window.start) or "", end=fmt_time(window.end) or "")
    return people_yaml.add(text, source, entry)


def remove_windows(text: str, source: str, provider: str, model: str | None, start: str | None
                   ) -> tuple[str, tuple[MaintenanceWindow, ...]]:
    """`text` without the windows of exactly that host (tags compared ignoring case) and model (or none),
    those starting at `start` when given; and the windows removed. StoreError when there is none."""
    def doomed(e: MaintenanceEntry) -> bool:
        return e.provider.casefold() == provider.casefold() and e.model == model and start in (None, e.start)

    gone = tuple(window_of(w.entry) for w in walk(text, source, MaintenanceEntry) if doomed(w.entry))
    if not gone:
        raise StoreError(f"{source}: no maintenance window of {provider} for {model or 'every model'}"
                         f"{f' starting {start}' if start else ''}")
    return people_yaml.remove(text, source, MaintenanceEntry, lambda w: doomed(w.entry)), gone


def render_windows(windows: tuple[MaintenanceWindow, ...], now: datetime, *, include_past: bool = False) -> str:
    """The windows as lines for a terminal (people's text cleaned to one line)."""
    shown = [w for w in windows if include_past or w.end is None or w.end > now]
    if not shown:
        return f"canary maintenance: no window ahead at {fmt_time(now)}"
    out = ["maintenance windows (a failed round inside one is not counted):"]
    for w in sorted(shown, key=lambda w: (w.provider, w.model or "", w.when)):
        state = "  (now)" if w.open_at(now) else "  (over)" if w.end is not None and w.end <= now else ""
        out.append(f"  {clean(w.provider, 100)} of {clean(w.model or 'every model', 200)}  {w.when}  by "
                   f"{clean(w.author, 60)}: {clean(w.reason, 200)}{state}")
    return "\n".join(out)


def window_of(e: MaintenanceEntry) -> MaintenanceWindow:
    """The window an entry declares; StoreError saying what is wrong with it (without file or line)."""
    base = MaintenanceWindow(provider=e.provider, reason=e.reason, author=e.author, model=e.model)
    if e.every is None:
        start, end = _moment("start", e.start), _moment("end", e.end)
        if end <= start:
            raise StoreError(f"end ({e.end}) must be after start ({e.start})")
        return dataclasses.replace(base, start=start, end=end)
    every = e.every.strip().casefold()
    if every not in (*WEEKDAYS, DAILY):
        raise StoreError(f"every: {e.every!r} is not a weekday (monday ... sunday) or {DAILY!r}")
    return dataclasses.replace(base, every=every, daily_start=_time_of_day("start", e.start),
                               daily_end=_time_of_day("end", e.end))


def _overbooked(windows: list[MaintenanceWindow]) -> str | None:
    """What is wrong when the windows of one endpoint cover more than MAX_WEEKLY of some 7 days, from
    the first such window's line."""
    covered, endpoint, mine = busiest_week(windows)
    if covered <= MAX_WEEKLY:
        return None
    where = [f"line {w.line}" if w.line else "the new one" for w in mine]
    return (f"{where[0]}: the windows covering {endpoint} ({', '.join(where)}) add up to {_hours(covered)} h in "
            f"7 days; at most {_hours(MAX_WEEKLY)} h in any 7 days per endpoint, so that the judge counts every "
            f"host at least {_hours(WEEK - MAX_WEEKLY)} h a week (a longer outage is an incident exclusion): "
            "shorten or remove one")


def _moment(name: str, value: str) -> datetime:
    try:
        return parse_time(value, name)
    except TimeFormatError:
        raise StoreError(f"{name}: {value!r} is not an ISO 8601 time like 2026-12-03T02:00:00Z (a recurring "
                         "window names its day with `every` and its times as HH:MM)") from None


def _time_of_day(name: str, value: str) -> time:
    match = _TIME_OF_DAY.match(value.strip())
    if match is None:
        raise StoreError(f"{name}: {value!r} is not a UTC time of day like 02:00 (with every: ...)")
    return time(int(match[1]), int(match[2]))


def _hours(delta: timedelta) -> str:
    return f"{delta.total_seconds() / 3600:g}"


__all__ = ["MaintenanceEntry", "add_window", "load_maintenance", "parse_maintenance", "remove_windows",
           "render_windows", "window_of"]

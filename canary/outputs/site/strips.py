"""State timelines of the status page: one letter per time bucket per endpoint (pure).

A strip is a string with one letter per bucket, oldest first, so 64 endpoints x 168 hours
travel to the browser as 64 short strings instead of 10,000 objects:

    S  suspended (enforce) at some time in the bucket     the route was in provider.ignore
    W  would be suspended (observe mode)
    f  a round in the bucket failed                        a failed streak was building
    m  a round failed inside its provider's maintenance window: not counted, never a failure
    z  rounds without a verdict (inconclusive, unreachable) frozen: neither way
    c  every round of the bucket was clean
    .  no round of this endpoint in the bucket

The worst wins inside a bucket, in that order (a suspended host keeps being probed, and a clean
round while it is suspended is still a suspended hour). Buckets that are not all clean also get
a detail entry for the tooltip: their failed / clean / frozen round counts (maintenance rounds among the
frozen: no verdict) and the reason codes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.times import time_or_none
from judge.suspension.decisions import ENDING, SUSPENDING, Action

SUSPENDED, WOULD, FAILED, MAINTENANCE, FROZEN, CLEAN, EMPTY = "S", "W", "f", "m", "z", "c", "."
ORDER = (SUSPENDED, WOULD, FAILED, MAINTENANCE, FROZEN, CLEAN, EMPTY)   # worst first
MAX_CODES = 6          # reason codes kept per bucket for its tooltip


@dataclass(frozen=True, slots=True)
class Interval:
    """A suspension of one endpoint: [start, end), enforce or observe."""

    start: datetime
    end: datetime
    mode: str


@dataclass(frozen=True, slots=True)
class StripRound:
    """One endpoint in one round (query.TimelinePoint without the round id)."""

    at: datetime
    klass: str
    codes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Strip:
    letters: str
    detail: Mapping[int, tuple[int, int, int, str]]   # bucket -> (failed, clean, frozen, codes)


def strip(rounds: Iterable[StripRound], suspensions: Iterable[Interval], *, start: datetime, buckets: int,
          width: timedelta) -> Strip:
    """The strip of one endpoint over `buckets` buckets of `width` from `start`."""
    counts: dict[int, list[int]] = {}
    codes: dict[int, list[str]] = {}
    maintained: set[int] = set()
    for r in rounds:
        i = _index(r.at, start, width)
        if 0 <= i < buckets:
            c = counts.setdefault(i, [0, 0, 0])
            c[("failed", "clean").index(r.klass) if r.klass in ("failed", "clean") else 2] += 1
            if r.klass == "maintenance":
                maintained.add(i)
            seen = codes.setdefault(i, [])
            seen.extend(code for code in r.codes if code not in seen)
    letters = [EMPTY] * buckets
    for i, (failed, _clean, frozen) in counts.items():
        letters[i] = FAILED if failed else MAINTENANCE if i in maintained else FROZEN if frozen else CLEAN
    for s in suspensions:
        first, last = _index(s.start, start, width), _index(s.end - timedelta(microseconds=1), start, width)
        for i in range(max(first, 0), min(last, buckets - 1) + 1):
            letter = SUSPENDED if s.mode == "enforce" else WOULD
            if ORDER.index(letter) < ORDER.index(letters[i]):
                letters[i] = letter
    detail = {i: (c[0], c[1], c[2], " ".join(codes.get(i, [])[:MAX_CODES]))
              for i, c in sorted(counts.items()) if c[0] or c[2]}
    return Strip("".join(letters), detail)


def suspension_intervals(decisions: Sequence[tuple[datetime, str, str | None]],
                         *, now: datetime) -> tuple[Interval, ...]:
    """The suspensions of one endpoint from its decisions (time, action, until), oldest first.

    A `suspend` / `would_suspend` opens one until its `until`; a later `restore`, `expired` or
    `lift` ends it early. Nothing ends after `now`."""
    out: list[Interval] = []
    open_: Interval | None = None
    for at, action, until in sorted(decisions, key=lambda d: d[0]):
        if action in SUSPENDING:
            if open_ is not None:
                out.append(Interval(open_.start, min(open_.end, at), open_.mode))
            end = _time(until) or at
            open_ = Interval(at, min(end, now), "enforce" if action == Action.SUSPEND else "observe")
        elif action in ENDING and open_ is not None:
            out.append(Interval(open_.start, min(open_.end, at), open_.mode))
            open_ = None
    if open_ is not None:
        out.append(open_)
    return tuple(i for i in out if i.end > i.start)


def merge_intervals(*groups: Iterable[Interval]) -> tuple[Interval, ...]:
    """Several interval lists as one (overlaps are fine: a strip takes the worst letter)."""
    return tuple(sorted((i for g in groups for i in g), key=lambda i: (i.start, i.end)))


def _index(at: datetime, start: datetime, width: timedelta) -> int:
    return int((at - start) // width)


def _time(value: str | None) -> datetime | None:
    return time_or_none(value)

"""Maintenance windows: a provider's announced maintenance holds its failed rounds (pure;
docs/maintenance.md). People declare them in exclusions/maintenance.yaml (canary/state/maintenance.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta

from core.results import RoundResults
from core.times import fmt_time
from core.vocabulary import Outcome
from judge.suspension.decisions import Action, Decision, Rule
from judge.suspension.round import ModelRound

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DAILY = "day"
MAX_EVIDENCE = 3   # the held cases quoted in the decision
WEEK = timedelta(days=7)
# The most the windows of one endpoint may cover in any 7 days (docs/maintenance.md): longer is an incident.
MAX_WEEKLY = timedelta(hours=72)


@dataclass(frozen=True, slots=True)
class MaintenanceWindow:
    """One entry of the maintenance file: one-off (start, end) or recurring (every, daily_start, daily_end)."""

    provider: str
    reason: str
    author: str
    model: str | None = None            # None: every model the host serves
    start: datetime | None = None       # one-off
    end: datetime | None = None
    every: str | None = None            # recurring: a weekday (WEEKDAYS) or DAILY
    daily_start: time | None = None     # UTC time of day
    daily_end: time | None = None
    line: int | None = None

    def covers(self, model: str, provider: str) -> bool:
        """Whether the window is about that endpoint (tags compared ignoring case)."""
        if self.model is not None and model != self.model:
            return False
        mine, theirs = self.provider.casefold(), provider.casefold()
        return theirs == mine or ("/" not in mine and theirs.startswith(mine + "/"))

    def open_at(self, at: datetime) -> bool:
        if self.start is not None and self.end is not None:
            return self.start <= at < self.end
        if self.every is None or self.daily_start is None or self.daily_end is None:
            return False
        # The occurrences that could hold `at`: the one starting on at's day, and yesterday's
        # (a window past midnight), each checked as a one-off interval.
        for days_back in (0, 1):
            day = (at - timedelta(days=days_back)).date()
            if self.every != DAILY and WEEKDAYS[day.weekday()] != self.every:
                continue
            opens = datetime.combine(day, self.daily_start, tzinfo=at.tzinfo)
            closes = datetime.combine(day, self.daily_end, tzinfo=at.tzinfo)
            if closes <= opens:
                closes += timedelta(days=1)
            if opens <= at < closes:
                return True
        return False

    @property
    def length(self) -> timedelta:
        """How long one occurrence lasts."""
        if self.start is not None and self.end is not None:
            return self.end - self.start
        opens, closes = self.daily_start or time(), self.daily_end or time()
        minutes = (closes.hour - opens.hour) * 60 + closes.minute - opens.minute
        return timedelta(minutes=minutes if minutes > 0 else minutes + 24 * 60)

    @property
    def when(self) -> str:
        """The window in words: '2026-12-03T02:00:00Z to 2026-12-03T03:00:00Z', 'every tuesday 02:00-03:00 UTC'."""
        if self.start is not None and self.end is not None:
            return f"{fmt_time(self.start)} to {fmt_time(self.end)}"
        every = "every day" if self.every == DAILY else f"every {self.every}"
        return f"{every} {_hhmm(self.daily_start)}-{_hhmm(self.daily_end)} UTC"


def busiest_week(windows: Sequence[MaintenanceWindow]) -> tuple[timedelta, str, tuple[MaintenanceWindow, ...]]:
    """The most the windows cover of one endpoint in any 7 days in a row: (that time, the endpoint in
    words, its windows), overlaps counted twice. A one-off's overlap is largest at its start or end."""
    models = sorted({w.model for w in windows if w.model is not None}) + [""]  # "": a model none names
    tags = sorted({w.provider if "/" in w.provider else f"{w.provider}/*" for w in windows})
    worst: tuple[timedelta, str, tuple[MaintenanceWindow, ...]] = (timedelta(), "", ())
    for model in models:
        for tag in tags:
            mine = tuple(w for w in windows if w.covers(model, tag))
            recurring = sum((w.length * (7 if w.every == DAILY else 1) for w in mine if w.every), timedelta())
            once = [(w.start, w.end) for w in mine if w.start is not None and w.end is not None]
            one_off = max((sum((max(min(b, s + WEEK) - max(a, s), timedelta()) for a, b in once), timedelta())
                           for s in [a for a, _ in once] + [b - WEEK for _, b in once]), default=timedelta())
            if recurring + one_off > worst[0]:
                worst = (recurring + one_off, f"{tag} of {model or 'every model'}", mine)
    return worst


def held_endpoints(rounds: Mapping[str, ModelRound], windows: Sequence[MaintenanceWindow], at: datetime
                   ) -> dict[tuple[str, str], MaintenanceWindow]:
    """{(model, provider): its window} of every endpoint with a failed case this round inside a window
    (a failure the model-wide guard discounted included: held, it no longer counts toward the guard)."""
    held = {}
    for model, mround in rounds.items():
        for provider, pround in mround.providers.items():
            if any(e.outcome == Outcome.FAIL for e in pround.evidence):
                window = next((w for w in windows if w.covers(model, provider) and w.open_at(at)), None)
                if window is not None:
                    held[(model, provider)] = window
    return held


def without_held(report: RoundResults, held: Mapping[tuple[str, str], MaintenanceWindow]) -> RoundResults:
    """The round without the held endpoints' cases (they stay discovered: the judge sees them frozen)."""
    if not held:
        return report
    return replace(report, cases=tuple(c for c in report.cases if (c.model, c.provider) not in held))


def held_decisions(rounds: Mapping[str, ModelRound], held: Mapping[tuple[str, str], MaintenanceWindow]
                   ) -> list[Decision]:
    """One `not_counted` decision per held endpoint, quoting what failed."""
    out = []
    for (model, provider), window in sorted(held.items()):
        failed = tuple(e for e in rounds[model].providers[provider].evidence if e.outcome == Outcome.FAIL)
        out.append(Decision(model, provider, Action.NOT_COUNTED, Rule.MAINTENANCE,
                            f"failed during announced maintenance ({window.when}: {window.reason}): not counted, "
                            "its streaks frozen", evidence=failed[:MAX_EVIDENCE]))
    return out


def _hhmm(at: time | None) -> str:
    return "--:--" if at is None else f"{at.hour:02d}:{at.minute:02d}"

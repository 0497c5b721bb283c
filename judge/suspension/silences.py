"""Silences: who is not told about which decisions, and until when (pure; docs/silences.md). The judge
never reads them; people write exclusions/silences.yaml (canary/state/silences.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from judge.suspension.decisions import Decision

MAX_SILENCE = timedelta(days=30)
# A clock ahead of the judge's by up to this much may write a silence's times; beyond it, a silence
# added "in the future" is refused by `canary validate`.
CLOCK_SKEW = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class Silence:
    """One entry of the silences file; `line` is where it sits in the file."""

    model: str
    provider: str | None    # None: every endpoint of the model, and the model's whole-round decisions
    until: datetime
    reason: str
    author: str
    added_at: datetime
    line: int | None = None

    def active(self, now: datetime) -> bool:
        """In force at `now`: it ends after `now`, and at most MAX_SILENCE later (so an `added_at` written
        in the future cannot stretch a silence: it is not in force until its last MAX_SILENCE)."""
        return now < self.until <= now + MAX_SILENCE + CLOCK_SKEW

    def matches(self, model: str, provider: str) -> bool:
        """Whether it covers that endpoint (tags compared ignoring case, as OpenRouter does)."""
        if model != self.model:
            return False
        return self.provider is None or provider.casefold() == self.provider.casefold()

    @property
    def scope(self) -> str:
        return f"{self.provider or 'every endpoint'} of {self.model}"


def silence_for(silences: Iterable[Silence], model: str, provider: str, now: datetime) -> Silence | None:
    """The active silence covering that endpoint at `now` (the one ending last), or None."""
    found = [s for s in silences if s.active(now) and s.matches(model, provider)]
    return max(found, key=lambda s: s.until) if found else None


def silencing(silences: Iterable[Silence], decision: Decision, now: datetime) -> Silence | None:
    """The silence that mutes `decision` at `now` (a whole-round decision: only its whole model's)."""
    if decision.whole_round:
        return next((s for s in silences if s.active(now) and s.provider is None and s.model == decision.model),
                    None)
    return silence_for(silences, decision.model, decision.provider, now)


def split_silenced(decisions: Sequence[Decision], silences: Sequence[Silence], now: datetime
                   ) -> tuple[tuple[Decision, ...], tuple[tuple[Decision, Silence], ...]]:
    """(the decisions people hear about, the silenced ones with the silence of each), order kept."""
    heard: list[Decision] = []
    muted: list[tuple[Decision, Silence]] = []
    for d in decisions:
        s = silencing(silences, d, now)
        if s is None:
            heard.append(d)
        else:
            muted.append((d, s))
    return tuple(heard), tuple(muted)


def active_silences(silences: Iterable[Silence], now: datetime) -> tuple[Silence, ...]:
    """The silences in force at `now`, by model, then endpoint."""
    return tuple(sorted((s for s in silences if s.active(now)), key=lambda s: (s.model, s.provider or "", s.until)))

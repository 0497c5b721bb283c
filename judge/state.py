"""The judge's memory, as frozen records: per model, per provider, streaks, suspension, ladder.

JudgeState is never mutated; the rules build a new one. Its size is bounded: the applied round
ids are capped (Policy.remembered_rounds) and providers that vanished from discovery are
forgotten once they hold nothing (no streak, no suspension, a faded ladder). canary/state.py
turns it into state/canary-state.json and back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from judge.policy import ENFORCE
from judge.window import Window

STATE_SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class Suspension:
    """An active suspension: enforce-mode ones reach provider.ignore, observe-mode ones never do."""

    since: datetime
    until: datetime
    rung: int
    mode: str
    reason: str

    def active(self, now: datetime) -> bool:
        return self.until > now

    def enforced(self, now: datetime) -> bool:
        return self.mode == ENFORCE and self.active(now)


@dataclass(frozen=True, slots=True)
class Ladder:
    """Suspensions since the history last faded (`rung`) and when the last one began."""

    rung: int = 0
    last_suspension_started: datetime | None = None


@dataclass(frozen=True, slots=True)
class ProviderState:
    """What the judge remembers about one endpoint of one model."""

    failed_streak: int = 0
    clean_streak: int = 0
    suspension: Suspension | None = None
    ladder: Ladder = field(default_factory=Ladder)
    last_reasons: tuple[str, ...] = ()
    next_language: str | None = None
    # started_at of the last round that moved a streak (failed or clean): the pending window
    # and the minimum gap between counted rounds are measured from it. None: never counted, or
    # a state written before the time rules existed (a streak without a time is not pending).
    last_counted_at: datetime | None = None
    # The rolling evidence of its last counted rounds (judge/window.py, judge/evidence.py).
    window: Window = field(default_factory=Window)

    def idle(self) -> bool:
        """Nothing worth remembering but the language plan (a clean streak only matters when suspended)."""
        return self.failed_streak == 0 and self.suspension is None and self.ladder.rung == 0


@dataclass(frozen=True, slots=True)
class LastRound:
    round_id: str
    started_at: datetime


@dataclass(frozen=True, slots=True)
class JudgeState:
    """All models' provider states plus the bookkeeping that makes rounds idempotent."""

    models: Mapping[str, Mapping[str, ProviderState]] = field(default_factory=dict)
    applied_rounds: tuple[str, ...] = ()
    last_round: LastRound | None = None
    mode: str | None = None
    schema_version: int = STATE_SCHEMA_VERSION

    def provider(self, model: str, provider: str) -> ProviderState:
        return self.models.get(model, {}).get(provider, ProviderState())

    def with_provider(self, model: str, provider: str, value: ProviderState) -> JudgeState:
        """A copy with one provider replaced (the original is untouched)."""
        providers = dict(self.models.get(model, {}))
        providers[provider] = value
        models = dict(self.models)
        models[model] = providers
        return replace(self, models=models)

    def language_plan(self) -> dict[str, dict[str, str]]:
        """{model: {provider: language}} for the next round (providers without a plan omitted)."""
        plan: dict[str, dict[str, str]] = {}
        for model, providers in sorted(self.models.items()):
            langs = {p: s.next_language for p, s in sorted(providers.items()) if s.next_language}
            if langs:
                plan[model] = langs
        return plan

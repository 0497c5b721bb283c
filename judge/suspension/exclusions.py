"""The three exclusion layers and their merge into provider.ignore (pure).

- builtin:  reviewed exclusions written by people (exclusions/builtin.yaml), never expire;
- incident: runtime exclusions written by people (exclusions/incidents.yaml), optional expiry;
- suspension: written only by the judge (state/canary-state.json), always time-bounded.

effective = builtin ∪ incidents unexpired at `now` ∪ enforce-mode suspensions unexpired at
`now`, sorted and deduplicated. Observe-mode suspensions only appear in would_ignore().
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from judge.suspension.state import JudgeState

BUILTIN = "builtin"
INCIDENT = "incident"


@dataclass(frozen=True, slots=True)
class Exclusion:
    """One entry of builtin.yaml or incidents.yaml; `line` is where it sits in its file."""

    model: str
    provider: str
    layer: str
    reason: str
    since: datetime | None = None
    expires: datetime | None = None
    added_by: str | None = None
    line: int | None = None

    def active(self, now: datetime) -> bool:
        return self.expires is None or self.expires > now


def people_excluded(exclusions: Iterable[Exclusion], now: datetime) -> dict[str, frozenset[str]]:
    """{model: providers} excluded at `now` by the two layers people write."""
    out: dict[str, set[str]] = {}
    for e in exclusions:
        if e.active(now):
            out.setdefault(e.model, set()).add(e.provider)
    return {m: frozenset(p) for m, p in out.items()}


def effective_ignore(model: str, exclusions: Iterable[Exclusion], state: JudgeState, now: datetime) -> list[str]:
    """The provider.ignore list for `model` at `now`."""
    tags = set(people_excluded(exclusions, now).get(model, frozenset()))
    for provider, ps in state.models.get(model, {}).items():
        if ps.suspension is not None and ps.suspension.enforced(now):
            tags.add(provider)
    return sorted(tags)


def would_ignore(model: str, exclusions: Iterable[Exclusion], state: JudgeState, now: datetime) -> list[str]:
    """effective_ignore plus observe-mode suspensions: what enforcement would have produced."""
    tags = set(effective_ignore(model, exclusions, state, now))
    for provider, ps in state.models.get(model, {}).items():
        if ps.suspension is not None and ps.suspension.active(now):
            tags.add(provider)
    return sorted(tags)


def known_models(exclusions: Iterable[Exclusion], state: JudgeState, extra: Iterable[str] = ()) -> list[str]:
    """Every model any layer (or `extra`) mentions, sorted."""
    return sorted({e.model for e in exclusions} | set(state.models) | set(extra))

"""The judge's side of the exclusion layers: its state as the suspension layer's entries (pure). The
layers and their merge are core/layers.py's, shared with the chat backend's provider_ignore."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from core import layers
from core.layers import SUSPENSION, Exclusion
from core.policy import ENFORCE
from judge.suspension.state import JudgeState


def suspension_entries(state: JudgeState) -> tuple[Exclusion, ...]:
    """The state's suspensions as entries of the suspension layer (observe-mode ones `observed`)."""
    return tuple(Exclusion(model=model, provider=provider, layer=SUSPENSION, reason=ps.suspension.reason,
                           since=ps.suspension.since, expires=ps.suspension.until,
                           observed=ps.suspension.mode != ENFORCE)
                 for model, providers in state.models.items() for provider, ps in providers.items()
                 if ps.suspension is not None)


def effective_ignore(model: str, exclusions: Iterable[Exclusion], state: JudgeState, now: datetime) -> list[str]:
    """The provider.ignore list for `model` at `now` (people's layers in `exclusions`, the judge's in `state`)."""
    return layers.effective_ignore(model, (*exclusions, *suspension_entries(state)), now)


def would_ignore(model: str, exclusions: Iterable[Exclusion], state: JudgeState, now: datetime) -> list[str]:
    """effective_ignore plus observe-mode suspensions: what enforcement would have produced."""
    return layers.would_ignore(model, (*exclusions, *suspension_entries(state)), now)


def ignore_lists(exclusions: Iterable[Exclusion], state: JudgeState, now: datetime, extra: Iterable[str] = ()
                 ) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Every known model's provider.ignore list and would_ignore list at `now` (a round's decisions
    file): every layer's entries gathered once, not twice a model."""
    entries = (*exclusions, *suspension_entries(state))
    models = known_models(exclusions, state, extra)
    return ({m: tuple(layers.effective_ignore(m, entries, now)) for m in models},
            {m: tuple(layers.would_ignore(m, entries, now)) for m in models})


def known_models(exclusions: Iterable[Exclusion], state: JudgeState, extra: Iterable[str] = ()) -> list[str]:
    """Every model any layer (or `extra`) mentions, sorted."""
    return sorted({e.model for e in exclusions} | set(state.models) | set(extra))

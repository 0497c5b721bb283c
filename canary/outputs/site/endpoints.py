"""The current state of each endpoint, as the status page and status.json show it (pure).

Two answers per endpoint, kept apart because they answer different questions:

- `state`: what routing does with it now, from the judge's state file and people's exclusion
  files (the same layers `canary ignore` merges) and the newest round's decisions:
      excluded        a person excluded it (exclusions/builtin.yaml or incidents.yaml)
      suspended       an enforce-mode suspension is active: it is in provider.ignore until `until`
      would_suspend   an observe-mode suspension is active (not in provider.ignore)
      floor_held      the newest round would have suspended it, but the capacity floor held it
      active          in rotation, no action
- `tier`: how healthy it looks from the history (canary/history/tiers.py): healthy, degraded
  (slow, or without a verdict for several rounds), failing, suspended, unknown. The rules never
  read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from core.layers import BUILTIN, Exclusion
from judge.suspension.decisions import Action
from judge.suspension.state import ProviderState


class RoutingState(StrEnum):
    """An endpoint's `state` (the module docstring; status.json's wire format). Two of its words are
    spelled as actions are: the state is what an action left, its own word, free to differ."""

    EXCLUDED = "excluded"
    SUSPENDED = "suspended"
    WOULD_SUSPEND = "would_suspend"
    FLOOR_HELD = "floor_held"
    ACTIVE = "active"


STATES = tuple(state.value for state in RoutingState)
MAX_REASONS = 4


@dataclass(frozen=True, slots=True)
class EndpointState:
    state: RoutingState
    until: datetime | None = None            # suspended / would_suspend: when it ends; excluded: its expiry
    excluded_by: Exclusion | None = None
    reasons: tuple[str, ...] = ()


def endpoint_state(provider_state: ProviderState | None, people: Sequence[Exclusion],
                   newest_actions: Iterable[str], *, now: datetime) -> EndpointState:
    """The routing state of one endpoint (module docstring). `people` are its exclusions active
    at `now`; `newest_actions` the actions of the newest round's decisions about it."""
    evidence = tuple(provider_state.last_reasons[:MAX_REASONS]) if provider_state else ()
    if people:
        chosen = next((e for e in people if e.layer == BUILTIN), people[0])
        return EndpointState(RoutingState.EXCLUDED, chosen.expires, chosen, (f"{chosen.layer}: {chosen.reason}",))
    suspension = provider_state.suspension if provider_state else None
    if suspension is not None and suspension.active(now):
        state = RoutingState.SUSPENDED if suspension.enforced(now) else RoutingState.WOULD_SUSPEND
        return EndpointState(state, suspension.until, None, (suspension.reason, *evidence)[:MAX_REASONS])
    if Action.FLOOR_HELD in set(newest_actions):
        return EndpointState(RoutingState.FLOOR_HELD, None, None,
                             ("the capacity floor held a suspension", *evidence)[:MAX_REASONS])
    return EndpointState(RoutingState.ACTIVE, None, None,
                         evidence if provider_state and provider_state.failed_streak else ())


def display_status(state: str, tier: str) -> str:
    """One word for a person: the routing state when there is one, else the health tier."""
    return tier if state == RoutingState.ACTIVE else state

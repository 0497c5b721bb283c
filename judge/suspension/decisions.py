"""What the judge decided: Decision records, their actions and the evidence behind them.

The action strings are the wire format of reports/decisions.json and state/audit.jsonl;
another engineer renders the round summary from them, so they are stable.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from judge.suspension.card import Card

# Model/provider of decisions about the whole round rather than one endpoint.
WHOLE_ROUND = "*"


class Action(StrEnum):
    """The kinds of decision, in the vocabulary of decisions.json."""

    SUSPEND = "suspend"
    WOULD_SUSPEND = "would_suspend"
    FLOOR_HELD = "floor_held"
    RESTORE = "restore"
    EXPIRED = "expired"
    PROBE_WEAK = "probe_weak"
    CONTROL_UNPROBED = "control_unprobed"
    NOT_COUNTED = "not_counted"
    STREAK_RESTARTED = "streak_restarted"
    MODEL_WIDE_GUARD = "model_wide_guard"
    INCOMPLETE_ROUND = "incomplete_round"
    LIFT = "lift"
    INCIDENT_ADD = "incident_add"
    INCIDENT_REMOVE = "incident_remove"


class Rule(StrEnum):
    """Which rule produced a decision (the `rule` field)."""

    FAILED_STREAK = "failed_streak"
    CAPACITY_FLOOR = "capacity_floor"
    CLEAN_STREAK = "clean_streak"
    EXPIRY = "expiry"
    MODE_SWITCH = "mode_switch"
    MODEL_WIDE_GUARD = "model_wide_guard"
    WEAK_PROBE = "weak_probe"
    UNPROBED_CONTROL = "unprobed_control"
    MIN_ROUND_GAP = "min_round_gap"
    PENDING_WINDOW = "pending_window"
    INCOMPLETE_ROUND = "incomplete_round"
    MANUAL = "manual"


@dataclass(frozen=True, slots=True)
class Evidence:
    """One case behind a decision."""

    contract: str
    outcome: str
    reason: str


@dataclass(frozen=True, slots=True)
class Decision:
    """One transition worth logging and telling people about."""

    model: str
    provider: str
    action: Action
    rule: Rule
    reason: str
    until: datetime | None = None
    rung: int | None = None
    evidence: tuple[Evidence, ...] = ()
    # The evidence against its peers (judge/suspension/card.py): on suspend, would_suspend, floor_held, restore.
    card: tuple[Card, ...] = ()

    @property
    def weak_evidence(self) -> bool:
        """A suspension (or its attempt) on cards that show no host worse than its peers."""
        opening = self.action in (Action.SUSPEND, Action.WOULD_SUSPEND, Action.FLOOR_HELD)
        return opening and bool(self.card) and not any(c.significant for c in self.card)

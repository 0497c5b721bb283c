"""What the judge decided: Decision records and `RoundDecisions`, its record of one round
(reports/decisions.json, docs/file-formats.md). It lives here, not in core/, because core/ cannot name a
Decision. The action strings are decisions.json's and the audit log's wire format: they stay stable.
The records are the file's form, declared once (core/field_rules.py), read strictly by
`read_round_decisions` (DecisionsError names the dotted key).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

import msgspec

from core.errors import InputError
from core.field_rules import INLINE, SPARSE, Derived, read_document
from core.policy import Mode
from judge.suspension.card import Card

# Model/provider of decisions about the whole round rather than one endpoint.
WHOLE_ROUND = "*"
DECISIONS_SCHEMA_VERSION: Final = 1


class DecisionsError(InputError):
    """A decisions.json (the judge's record of one round) that cannot be read; the message names the field."""


class Action(StrEnum):
    """The kinds of decision, each with what people read of it (as httpx's `codes.OK.phrase`): `label`
    (reads after a provider: "aurora/fp8 suspended"), `note` (why it matters, or "") and `symbol`, so an
    action reads the same everywhere. Declared in the order a reader needs them (what changed traffic first)."""

    label: str
    note: str
    symbol: str

    def __new__(cls, value: str, label: str, note: str, symbol: str) -> Action:
        member = str.__new__(cls, value)
        member._value_ = value
        member.label, member.note, member.symbol = label, note, symbol
        return member

    SUSPEND = "suspend", "suspended", "", "⛔"
    WOULD_SUSPEND = "would_suspend", "would be suspended (observe mode)", "", "👀"
    FLOOR_HELD = "floor_held", "floor held", "not suspended: too few endpoints would remain", "⚠️"
    RESTORE = "restore", "restored", "", "✅"
    EXPIRED = "expired", "suspension expired", "", "⌛"
    LIFT = "lift", "lifted by hand", "", "🔓"
    PROBE_WEAK = "probe_weak", "probe weak", "its passes are no evidence", "🧪"
    CONTROL_UNPROBED = "control_unprobed", "control not probed", "refusal passes unverified", "🧪"
    MODEL_WIDE_GUARD = "model_wide_guard", "model-wide guard", "the whole model fails: counts for nobody", "🛡️"
    INCOMPLETE_ROUND = "incomplete_round", "round incomplete", "no streak changed", "⏸️"
    STREAK_RESTARTED = "streak_restarted", "streak restarted", "the pending streak lapsed, or its failures passed", "🔁"
    NOT_COUNTED = "not_counted", "not counted", "too soon after the last counted round", "⏭️"
    ROUTE_LEAK = "route_leak", "served while excluded", "the chat backend is not applying provider.ignore", "🕳️"
    CONFIRM = "confirm", "to be confirmed", "its contracts run three times next round", "🔎"
    CONFIRMATION = "confirmation", "confirmation probed", "", "🔬"
    INCIDENT_ADD = "incident_add", "incident exclusion added", "", "🚧"
    INCIDENT_REMOVE = "incident_remove", "incident exclusion removed", "", "🧹"

    @property
    def heading(self) -> str:
        """The label as a heading, with its note: "Floor held (not suspended: too few endpoints would remain)"."""
        return self.label[0].upper() + self.label[1:] + (f" ({self.note})" if self.note else "")


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
    FAILING_CONTRACT_PASSED = "failing_contract_passed"
    INCOMPLETE_ROUND = "incomplete_round"
    MANUAL = "manual"
    MAINTENANCE = "maintenance"
    ROUTE_AUDIT = "route_audit"
    PRODUCTION = "production"
    USER_REPORTS = "user_reports"


# The actions that start a suspension (real or would-be) and those that end one: what the history,
# the issues and the status page's strips follow. Members are strs, so a file's value is found in them.
SUSPENDING = frozenset({Action.SUSPEND, Action.WOULD_SUSPEND})
ENDING = frozenset({Action.RESTORE, Action.EXPIRED, Action.LIFT})
_ACTIONS = {a.value: a for a in Action}


def action_named(value: str) -> Action | None:
    """The Action of this value (None: a value of no action, as a page's "not_suspended")."""
    return _ACTIONS.get(value)


class Evidence(msgspec.Struct, frozen=True, omit_defaults=True):
    """One case behind a decision."""

    contract: str  # the case's contract
    outcome: str  # its outcome
    reason: str  # its reason
    code: str = ""  # its code (judge/replies/verdict.py); "" in a file written before codes (left out then)


@dataclass(frozen=True, slots=True)
class Decision:
    """One transition worth logging and telling people about."""

    model: str  # the model id (`*`: the whole round)
    provider: str  # the endpoint's tag (`*`: the whole model or round)
    action: Action  # what happened (Action: suspend, would_suspend, restore, ...)
    rule: Rule  # which rule decided it (Rule)
    reason: str  # why, in words
    until: Annotated[datetime | None, SPARSE] = None  # a suspension's end
    rung: Annotated[int | None, SPARSE] = None  # a suspension's rung on the ladder (1, 2, 3...)
    evidence: tuple[Evidence, ...] = ()  # the cases behind it
    # The evidence against its peers (judge/suspension/card.py): on suspend, would_suspend, floor_held, restore.
    card: Annotated[tuple[Card, ...], SPARSE] = ()

    @property
    def weak_evidence(self) -> Annotated[bool, Derived(when="card")]:
        """A suspension (or its attempt) on cards that show no host worse than its peers."""
        opening = self.action in (Action.SUSPEND, Action.WOULD_SUSPEND, Action.FLOOR_HELD)
        return opening and bool(self.card) and not any(c.significant for c in self.card)

    @property
    def whole_round(self) -> bool:
        """A decision about the whole round (model or provider `*`), not about one endpoint."""
        return WHOLE_ROUND in (self.model, self.provider)


class Leak(msgspec.Struct, frozen=True, kw_only=True):
    """Sampled replies an endpoint served while provider.ignore excluded it, in one exporter's window.

    The route audit's finding (judge/suspension/route_audit.py): that chat backend did not apply the list."""

    model: str
    provider: str           # the endpoint's tag
    exporter: str           # the backend that counted them (its production record's)
    window_start: datetime
    window_end: datetime
    leaked: int             # sampled replies the endpoint served
    sampled: int            # the model's sampled replies in the exporter's window
    layer: str              # the layer that excluded the endpoint (builtin, incident, suspension)

    @property
    def rate(self) -> float:
        """leaked / sampled (not written: derived)."""
        return self.leaked / self.sampled if self.sampled else 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestRecord:
    """The request that made a round's decisions, as decisions.json keeps it."""

    upstream: str | None = None                     # the round's upstream (results.json `upstream`)
    expected_models: tuple[str, ...] | None = None  # the models the round planned to probe (None: not given)
    allow_simulator: bool = False                   # a simulator round allowed to reach a real state


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundDecisions:
    """What the judge decided about one round and the provider.ignore lists it leaves (decisions.json)."""

    round_id: str                   # the round judged (results.json `round_id`)
    mode: Mode                      # observe | enforce: the mode the round was decided in
    now: datetime                   # when it was decided (a re-run: the time of its first decision)
    schema_version: Literal[1] = DECISIONS_SCHEMA_VERSION  # 1: another value is refused
    gap_minutes: float | None = None  # minutes since the previous round started (None: the first, or a re-run)
    already_applied: bool = False   # a re-run: the state held the round already and nothing changed
    # the request that made them: its fields are written beside these (the table below)
    request: Annotated[RequestRecord, INLINE] = field(default_factory=RequestRecord)
    decisions: tuple[Decision, ...] = ()  # every decision of the round, in the judge's order
    # model -> provider.ignore in effect
    ignore: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # ... with observe-mode suspensions enforced
    would_ignore: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # the route audit of each exporter's newest production record (left out: none)
    leaks: Annotated[tuple[Leak, ...], SPARSE] = ()
    # model -> provider -> its production evidence lines (judge/suspension/production.py), as the state keeps them
    production: Annotated[Mapping[str, Mapping[str, tuple[str, ...]]], SPARSE] = field(default_factory=dict)

    def endpoint_decisions(self) -> tuple[Decision, ...]:
        """The decisions about one endpoint (not the whole round's)."""
        return tuple(d for d in self.decisions if not d.whole_round)


def read_round_decisions(raw: Any) -> RoundDecisions:
    """decisions.json's data read by its declaration; DecisionsError names the dotted key. Fields
    absent from an older or a hand-made file read with their defaults; a key this version does not
    know is skipped (a later version may add one)."""
    return RoundDecisions(**read_document(raw, RoundDecisions, source=None, error=DecisionsError))


def read_decision(raw: Any, where: str = "") -> Decision:
    """A decision of decisions.json or an audit line (`weak_evidence` is derived from the cards);
    DecisionsError names the dotted key (after `where`)."""
    return Decision(**read_document(raw, Decision, source=None, error=DecisionsError, at=where))

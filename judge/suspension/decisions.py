"""What the judge decided: Decision records, their actions and the evidence behind them, and
`RoundDecisions`, the judge's record of one round (reports/decisions.json, schema_version 1).

    RoundDecisions       one judged round: its decisions and the provider.ignore lists it leaves
    ├── RequestRecord    the request that made them (upstream, planned models, re-used shards)
    └── Decision         one transition, with its Evidence and its evidence Cards (judge/suspension/card.py)

The action strings are the wire format of reports/decisions.json and state/audit.jsonl
(`Decision.to_json` is both files' form of a decision); the summary, the notifications, the
GitHub issues, the history and the Allure report render from them, so they are stable.

The record lives here, beside the Decision and the Card it holds, not in core/: core/ is below
judge/ and cannot name them. It stays pure like the rest of judge/ (dicts in and out): the one
reader of the file, `read_decisions(path)`, is canary/round/judging.py's. decisions.json is
canary's own output, so its reader is strict: a document of another shape is refused with
DecisionsError naming the field (and, through read_decisions, the file). Fields absent from an
older or a hand-made file read with their defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from core.errors import InputError
from core.times import TimeFormatError, fmt_time, parse_time
from judge.suspension.card import Card

# Model/provider of decisions about the whole round rather than one endpoint.
WHOLE_ROUND = "*"
DECISIONS_SCHEMA_VERSION = 1


class DecisionsError(InputError):
    """A decisions.json (the judge's record of one round) that cannot be read; the message names the field."""


class Action(StrEnum):
    """The kinds of decision, in the vocabulary of decisions.json, each with what people read of it
    (as httpx's `codes.OK.phrase`): `label` (lower case, reads after a provider: "aurora/fp8
    suspended"), `note` (why it matters, or ""), and `symbol`. The summary, the notifications, the
    GitHub issues, the status page's feed and the Allure report all render from these, so an action
    reads the same everywhere; members are declared in the order a reader needs them (what changed
    traffic first)."""

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
    STREAK_RESTARTED = "streak_restarted", "streak restarted", "the pending round was too old", "🔁"
    NOT_COUNTED = "not_counted", "not counted", "too soon after the last counted round", "⏭️"
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
    INCOMPLETE_ROUND = "incomplete_round"
    MANUAL = "manual"
    MAINTENANCE = "maintenance"


# The actions that start a suspension (real or would-be) and those that end one: what the history,
# the issues and the status page's strips follow. Members are strs, so a file's value is found in them.
SUSPENDING = frozenset({Action.SUSPEND, Action.WOULD_SUSPEND})
ENDING = frozenset({Action.RESTORE, Action.EXPIRED, Action.LIFT})
_ACTIONS = {a.value: a for a in Action}
_RULES = {r.value: r for r in Rule}


def action_named(value: str) -> Action | None:
    """The Action of this value (None: a value of no action, as a page's "not_suspended")."""
    return _ACTIONS.get(value)


@dataclass(frozen=True, slots=True)
class Evidence:
    """One case behind a decision."""

    contract: str  # the case's contract
    outcome: str  # its outcome
    reason: str  # its reason
    code: str = ""  # its code (judge/replies/verdict.py); "" in a file written before codes (left out then)

    def to_json(self) -> dict[str, str]:
        return {"contract": self.contract, "outcome": self.outcome, "reason": self.reason,
                **({"code": str(self.code)} if self.code else {})}

    @classmethod
    def from_json(cls, raw: Any, where: str) -> Evidence:
        item = _object(raw, where)
        code = item.get("code")
        return cls(_string(item.get("contract"), f"{where}.contract"), _string(item.get("outcome"), f"{where}.outcome"),
                   _string(item.get("reason"), f"{where}.reason"), _string(code, f"{where}.code") if code else "")


@dataclass(frozen=True, slots=True)
class Decision:
    """One transition worth logging and telling people about."""

    model: str  # the model id (`*`: the whole round)
    provider: str  # the endpoint's tag (`*`: the whole model or round)
    action: Action  # what happened (Action: suspend, would_suspend, restore, ...)
    rule: Rule  # which rule decided it (Rule)
    reason: str  # why, in words
    until: datetime | None = None  # a suspension's end
    rung: int | None = None  # a suspension's rung on the ladder (1, 2, 3...)
    evidence: tuple[Evidence, ...] = ()  # the cases behind it
    # The evidence against its peers (judge/suspension/card.py): on suspend, would_suspend, floor_held, restore.
    card: tuple[Card, ...] = ()

    @property
    def weak_evidence(self) -> bool:
        """A suspension (or its attempt) on cards that show no host worse than its peers."""
        opening = self.action in (Action.SUSPEND, Action.WOULD_SUSPEND, Action.FLOOR_HELD)
        return opening and bool(self.card) and not any(c.significant for c in self.card)

    @property
    def whole_round(self) -> bool:
        """A decision about the whole round (model or provider `*`), not about one endpoint."""
        return WHOLE_ROUND in (self.model, self.provider)

    def to_json(self) -> dict[str, Any]:
        """The decision as decisions.json and the audit log write it."""
        out: dict[str, Any] = {
            "model": self.model, "provider": self.provider, "action": self.action.value,
            "rule": self.rule.value, "reason": self.reason, "evidence": [e.to_json() for e in self.evidence],
        }
        if self.until is not None:
            out["until"] = fmt_time(self.until)
        if self.rung is not None:
            out["rung"] = self.rung
        if self.card:
            out["card"] = [c.to_json() for c in self.card]
            out["weak_evidence"] = self.weak_evidence
        return out

    @classmethod
    def from_json(cls, raw: Any, where: str = "decision") -> Decision:
        """A decision of decisions.json or an audit line (`weak_evidence` is derived from the cards)."""
        item = _object(raw, where)
        action, rule = item.get("action"), item.get("rule")
        if action not in _ACTIONS:
            raise DecisionsError(f"{where}.action: {ascii(action)[:60]} is not one of {', '.join(_ACTIONS)}")
        if rule not in _RULES:
            raise DecisionsError(f"{where}.rule: {ascii(rule)[:60]} is not one of {', '.join(_RULES)}")
        until, rung = item.get("until"), item.get("rung")
        if rung is not None and (isinstance(rung, bool) or not isinstance(rung, int)):
            raise DecisionsError(f"{where}.rung: expected a whole number, got {ascii(rung)[:40]}")
        try:
            cards = tuple(Card.from_json(c) for c in _list(item.get("card"), f"{where}.card"))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise DecisionsError(f"{where}.card: not an evidence card ({exc})") from None
        return cls(model=_string(item.get("model"), f"{where}.model"),
                   provider=_string(item.get("provider"), f"{where}.provider"),
                   action=_ACTIONS[action], rule=_RULES[rule], reason=_string(item.get("reason"), f"{where}.reason"),
                   until=None if until is None else _time(until, f"{where}.until"), rung=rung,
                   evidence=tuple(Evidence.from_json(e, f"{where}.evidence[{i}]")
                                  for i, e in enumerate(_list(item.get("evidence"), f"{where}.evidence"))),
                   card=cards)


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestRecord:
    """The request that made a round's decisions, as decisions.json keeps it."""

    upstream: str | None = None                     # the round's upstream (results.json `upstream`)
    expected_models: tuple[str, ...] | None = None  # the models the round planned to probe (None: not given)
    allow_simulator: bool = False                   # a simulator round allowed to reach a real state
    reused_shards: Mapping[str, str] = field(default_factory=dict)  # shard id -> the round that judged it

    def to_json(self) -> dict[str, Any]:
        return {"upstream": self.upstream,
                "expected_models": None if self.expected_models is None else list(self.expected_models),
                "allow_simulator": self.allow_simulator, "reused_shards": dict(sorted(self.reused_shards.items()))}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> RequestRecord:
        upstream, planned, reused = raw.get("upstream"), raw.get("expected_models"), raw.get("reused_shards")
        if upstream is not None and not isinstance(upstream, str):
            raise DecisionsError(f"upstream: expected a string or null, got {type(upstream).__name__}")
        if not isinstance(raw.get("allow_simulator", False), bool):
            raise DecisionsError("allow_simulator: expected true or false")
        return cls(upstream=upstream,
                   expected_models=None if planned is None else tuple(
                       _string(m, f"expected_models[{i}]") for i, m in enumerate(_list(planned, "expected_models"))),
                   allow_simulator=raw.get("allow_simulator") is True,
                   reused_shards={_string(k, "reused_shards"): _string(v, f"reused_shards.{k}")
                                  for k, v in _object(reused or {}, "reused_shards").items()})


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundDecisions:
    """What the judge decided about one round and the provider.ignore lists it leaves (decisions.json)."""

    round_id: str                   # the round judged (shards: their ids, sorted, joined with "+")
    mode: str                       # observe | enforce: the mode the round was decided in
    now: datetime                   # when it was decided (a re-run: the time of its first decision)
    gap_minutes: float | None = None  # minutes since the previous round started (None: the first, or a re-run)
    already_applied: bool = False   # a re-run: the state held the round already and nothing changed
    request: RequestRecord = field(default_factory=RequestRecord)
    decisions: tuple[Decision, ...] = ()  # every decision of the round, in the judge's order
    # model -> provider.ignore in effect
    ignore: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # ... with observe-mode suspensions enforced
    would_ignore: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def endpoint_decisions(self) -> tuple[Decision, ...]:
        """The decisions about one endpoint (not the whole round's)."""
        return tuple(d for d in self.decisions if not d.whole_round)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": DECISIONS_SCHEMA_VERSION, "round_id": self.round_id, "mode": self.mode,
            "now": fmt_time(self.now), "gap_minutes": self.gap_minutes, "already_applied": self.already_applied,
            **self.request.to_json(),
            "decisions": [d.to_json() for d in self.decisions],
            "ignore": {m: list(tags) for m, tags in self.ignore.items()},
            "would_ignore": {m: list(tags) for m, tags in self.would_ignore.items()},
        }

    @classmethod
    def from_json(cls, raw: Any) -> RoundDecisions:
        """Validate decoded decisions.json data; DecisionsError names the field."""
        doc = _object(raw, "the top level")
        if doc.get("schema_version", DECISIONS_SCHEMA_VERSION) != DECISIONS_SCHEMA_VERSION:
            raise DecisionsError(
                f"schema_version: expected {DECISIONS_SCHEMA_VERSION}, got {doc.get('schema_version')!r}")
        gap = doc.get("gap_minutes")
        if gap is not None and (isinstance(gap, bool) or not isinstance(gap, int | float)):
            raise DecisionsError(f"gap_minutes: expected a number or null, got {type(gap).__name__}")
        if not isinstance(doc.get("already_applied", False), bool):
            raise DecisionsError("already_applied: expected true or false")
        return cls(
            round_id=_string(doc.get("round_id"), "round_id"), mode=_string(doc.get("mode"), "mode"),
            now=_time(doc.get("now"), "now"), gap_minutes=gap, already_applied=doc.get("already_applied") is True,
            request=RequestRecord.from_json(doc),
            decisions=tuple(Decision.from_json(d, f"decisions[{i}]")
                            for i, d in enumerate(_list(doc.get("decisions"), "decisions"))),
            ignore=_tag_lists(doc.get("ignore"), "ignore"),
            would_ignore=_tag_lists(doc.get("would_ignore"), "would_ignore"),
        )


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise DecisionsError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise DecisionsError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise DecisionsError(f"{where}: expected a string, got {type(value).__name__}")
    return value


def _time(value: Any, where: str) -> datetime:
    try:
        return parse_time(value, where)
    except TimeFormatError as exc:
        raise DecisionsError(str(exc)) from None


def _tag_lists(value: Any, where: str) -> dict[str, tuple[str, ...]]:
    return {_string(m, where): tuple(_string(t, f"{where}.{m}") for t in _list(tags, f"{where}.{m}"))
            for m, tags in _object(value or {}, where).items()}

"""The judge's memory, as frozen records: per model, per provider, streaks, suspension, ladder.

JudgeState is never mutated; the rules build a new one. Its size is bounded: the applied round
ids are capped (Policy.remembered_rounds) and providers that vanished from discovery are
forgotten once they hold nothing (no streak, no suspension, a faded ladder).

The records are the file's declaration (core/field_rules.py): `written(state)` is the file and
`read_state` reads it back (pure: canary/state/judge_files.py reads and writes the file), strictly,
naming the dotted key of a bad value. The format of state/canary-state.json, and its optional,
additive keys (no schema bump: older readers ignore them, and a file without them loads unchanged):
docs/file-formats.md. What a file without one means is said beside its field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Annotated, Any, Literal

from msgspec import Meta

from core.errors import InputError
from core.field_rules import REQUIRED, SPARSE, EachAlone, ReadBy, WriteAs, read_document
from core.layers import STATE_FIX, STATE_SCHEMA_VERSION
from core.policy import ENFORCE, Mode
from core.schema import shown
from core.tags import is_valid_tag
from core.times import fmt_time
from judge.replies.listing import ListedLimits
from judge.replies.listing import decode as decode_limits
from judge.replies.listing import encode as encode_limits
from judge.suspension.billing_window import BillingWindow
from judge.suspension.billing_window import decode as decode_billing
from judge.suspension.billing_window import encode as encode_billing
from judge.suspension.window import Window
from judge.suspension.window import decode as decode_window
from judge.suspension.window import encode as encode_window

Count = Annotated[int, Meta(ge=0)]


class StateError(InputError):
    """State JSON that is not in the expected shape (the message names its source and the key)."""


@dataclass(frozen=True, slots=True)
class Suspension:
    """An active suspension: enforce-mode ones reach provider.ignore, observe-mode ones never do."""

    since: datetime
    until: datetime
    rung: Count
    mode: Mode
    reason: str
    # The failed contracts of the round that completed the streak: whether an observe-mode record
    # is enforced when the judge switches to enforce (judge/suspension/rules.py _enforce_records).
    # Optional and additive (absent in files written before it).
    contracts: Annotated[tuple[str, ...], SPARSE] = ()

    def active(self, now: datetime) -> bool:
        return self.until > now

    def enforced(self, now: datetime) -> bool:
        return self.mode == ENFORCE and self.active(now)


@dataclass(frozen=True, slots=True)
class Ladder:
    """Suspensions since the history last faded (`rung`) and when the last one began."""

    rung: Count = 0
    last_suspension_started: datetime | None = None


def _reasons(raw: Any) -> tuple[str, ...]:
    """`last_reasons`, each as its text (a string would be split into one reason per character: refused)."""
    if not isinstance(raw, list):
        raise ValueError(f"expected a list, got {shown(raw)}")
    return tuple(str(r) for r in raw)


def _language(raw: Any) -> str | None:
    """Anything but a language code is no plan: the rotation starts again."""
    return raw if isinstance(raw, str) else None


def _window(raw: Any) -> Window:
    if raw is not None and not isinstance(raw, Mapping):
        raise ValueError(f"expected a mapping of contracts to attempt codes, got {shown(raw)}")
    return decode_window(raw or {})


def _limits(raw: Any) -> ListedLimits | None:
    return None if raw is None else decode_limits(raw)


@dataclass(frozen=True, slots=True)
class ProviderState:
    """What the judge remembers about one endpoint of one model."""

    failed_streak: Count = 0
    clean_streak: Count = 0
    suspension: Suspension | None = None
    ladder: Ladder = field(default_factory=Ladder)
    last_reasons: Annotated[tuple[str, ...], ReadBy(_reasons)] = ()
    next_language: Annotated[str | None, ReadBy(_language)] = None
    # started_at of the last round that moved a streak (failed or clean): the pending window
    # and the minimum gap between counted rounds are measured from it. None: never counted, or
    # a state written before the time rules existed (a streak without a time is not pending).
    last_counted_at: datetime | None = None
    # The rolling evidence of its last counted rounds (judge/suspension/window.py, judge/suspension/evidence.py).
    window: Annotated[Window, ReadBy(_window), WriteAs(encode_window)] = field(default_factory=Window)
    # Billed against listed over the same rounds (judge/suspension/billing_window.py): the status page's.
    billing: Annotated[BillingWindow, ReadBy(decode_billing), WriteAs(encode_billing), SPARSE] = field(
        default_factory=BillingWindow)
    # Its limits as the last round's discovery listed them (judge/replies/listing.py: a change is a note).
    limits: Annotated[ListedLimits | None, ReadBy(_limits), WriteAs(encode_limits), SPARSE] = None
    # The contracts whose failures counted in the pending failed streak (empty when failed_streak
    # is 0): a frozen round in which all of them passed ends the streak (judge/suspension/streaks.py).
    # Absent in an older file: no frozen round can end its pending streak (as before the rule).
    failing_contracts: Annotated[tuple[str, ...], SPARSE] = ()
    # Production evidence (judge/suspension/production.py): the contracts its next round confirms
    # (each run three times), and the lines its cards and freshness read as, for `canary status`.
    to_confirm: Annotated[tuple[str, ...], SPARSE] = ()
    production: Annotated[tuple[str, ...], SPARSE] = ()

    def idle(self) -> bool:
        """Nothing worth remembering but the language plan (a clean streak only matters when suspended)."""
        return self.failed_streak == 0 and self.suspension is None and self.ladder.rung == 0


@dataclass(frozen=True, slots=True)
class LastRound:
    round_id: str
    started_at: datetime
    # when the judge applied it (None in states written before it was kept)
    decided_at: Annotated[datetime | None, SPARSE] = None


@dataclass(frozen=True, slots=True)
class JudgeState:
    """All models' provider states plus the bookkeeping that makes rounds idempotent."""

    models: Annotated[Mapping[str, Mapping[str, ProviderState]], EachAlone(), REQUIRED] = field(default_factory=dict)
    applied_rounds: tuple[str, ...] = ()
    last_round: LastRound | None = None
    mode: Mode | None = None
    schema_version: Annotated[Literal[1], REQUIRED] = STATE_SCHEMA_VERSION

    def provider(self, model: str, provider: str) -> ProviderState:
        return self.models.get(model, {}).get(provider, ProviderState())

    def with_provider(self, model: str, provider: str, value: ProviderState) -> JudgeState:
        """A copy with one provider replaced (the original is untouched)."""
        providers = dict(self.models.get(model, {}))
        providers[provider] = value
        models = dict(self.models)
        models[model] = providers
        return replace(self, models=models)

    def confirm_plan(self) -> dict[str, dict[str, tuple[str, ...]]]:
        """{model: {provider: contracts}} the next round confirms (judge/suspension/production.py)."""
        return {m: plan for m, providers in sorted(self.models.items())
                if (plan := {p: s.to_confirm for p, s in sorted(providers.items()) if s.to_confirm})}

    def language_plan(self) -> dict[str, dict[str, str]]:
        """{model: {provider: language}} for the next round (providers without a plan omitted)."""
        return {m: plan for m, providers in sorted(self.models.items())
                if (plan := {p: s.next_language for p, s in sorted(providers.items()) if s.next_language})}


def times_after(state: JudgeState, limit: datetime) -> list[str]:
    """Where the state holds a time after `limit` that can only lie in the past (a suspension's
    `until` may not: it is in the future by design). A round stamped by a clock set ahead, or a
    hand edit, puts one there; kept, it refuses every later round as out of order, or freezes an
    endpoint's streaks, until that date."""
    found: list[str] = []

    def check(where: str, value: datetime | None) -> None:
        if value is not None and value > limit:
            found.append(f"{where} {fmt_time(value)}")

    if state.last_round is not None:
        check("last_round.started_at", state.last_round.started_at)
        check("last_round.decided_at", state.last_round.decided_at)
    for model, providers in sorted(state.models.items()):
        for provider, ps in sorted(providers.items()):
            where = f"models.{model}.{provider}"
            check(f"{where}.last_counted_at", ps.last_counted_at)
            check(f"{where}.ladder.last_suspension_started", ps.ladder.last_suspension_started)
            check(f"{where}.suspension.since", ps.suspension.since if ps.suspension else None)
    return found


def read_state(raw: Any, source: str) -> JudgeState:
    """Decoded state JSON read by its declaration; StateError names the source and the dotted key.
    Keys this reader does not know are skipped, not refused: the format grows by optional, additive
    keys (last_counted_at, window) that readers of the previous version must ignore."""
    def refused(detail: str) -> StateError:
        return StateError(f"{source}: the state file is not in the expected shape ({detail}); {STATE_FIX}. "
                          "Nothing was written.")

    doc = read_document(raw, JudgeState, source=None, error=refused)
    models: dict[str, dict[str, ProviderState]] = {}
    for model, providers in doc["models"].items():
        if not is_valid_tag(model):
            raise refused(f"models: model id {model!r} is not a safe tag")
        models[model] = {}
        for provider, entry in providers.items():
            if not is_valid_tag(provider):
                raise refused(f"models.{model}: provider tag {provider!r} is not a safe tag")
            values = read_document(entry, ProviderState, source=None, error=refused, at=f"models.{model}.{provider}")
            if not values["failed_streak"]:  # what a pending failed streak failed: none without one
                values["failing_contracts"] = ()
            models[model][provider] = ProviderState(**values)
    return JudgeState(**{**doc, "models": models})

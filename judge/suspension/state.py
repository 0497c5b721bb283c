"""The judge's memory, as frozen records: per model, per provider, streaks, suspension, ladder.

JudgeState is never mutated; the rules build a new one. Its size is bounded: the applied round
ids are capped (Policy.remembered_rounds) and providers that vanished from discovery are
forgotten once they hold nothing (no streak, no suspension, a faded ladder).

`state_to_json` / `state_from_json` are its codec (pure: canary/state/judge_files.py reads and writes
the file); the reader is the file's declaration (`StateFile` and its parts, below) read with
core/schema.py, which names the dotted key of a bad value (`models.<model>.<provider>.failed_streak`).
The file's format, state/canary-state.json:

Format (schema_version 1; written only by `canary judge`/`canary lift`, sorted keys):

    {"schema_version": 1, "mode": "observe",
     "applied_rounds": ["<round id>", ...],               # the last Policy.remembered_rounds
     "last_round": {"round_id": "...", "started_at": "2026-11-29T22:30:00Z", "decided_at": "2026-11-29T22:41:07Z"},
     "models": {"<model>": {"<provider>": {
         "failed_streak": 0, "clean_streak": 0,
         "suspension": null | {"since", "until", "rung", "mode", "reason", "contracts"},
         "ladder": {"rung": 0, "last_suspension_started": null},
         "last_reasons": ["language: fail: ..."], "next_language": "es",
         "last_counted_at": "2026-11-29T22:30:00Z" | null,
         "window": {"language": "p.p.ffp.t", "refusal": "ppp.pppp", ...},
         "billing": "51200:49800.53000:52000",         # optional: billed:listed nano-USD per round
         "limits": "131072:16384",                     # optional: context_length:max_completion_tokens
         "failing_contracts": ["tools"]}}}}            # optional: what the pending failed streak failed

The file does not grow with history: rounds are capped and idle vanished providers dropped.

`last_counted_at` (when the provider's streak last moved: judge/suspension/streaks.py) was added without
a schema bump, because it is optional and additive: readers of the previous version (the chat
backend's provider_ignore included) ignore it, and a file without it loads with every
suspension, ladder and streak intact; its streaks then have no time, so they are no longer
pending and the next counted round starts them afresh (one round later, never a false one).

`window` (issue 10: the rolling evidence of the endpoint's last 48 counted rounds, one string per
contract, one '.'-separated segment of attempt codes per round: judge/suspension/window.py) was added the
same way: optional and additive. A file without it loads with an empty window, which fills as
rounds are judged; readers of the previous version ignore it.

`billing` (issue 22: "billed:listed" nano-dollars per round, judge/suspension/billing_window.py)
the same way, written only once an endpoint has a round with a reported cost; `limits` (the
listed context_length and max_completion_tokens of the last round: judge/replies/listing.py notes
a change) the same way.

A suspension's `contracts` (issue 29: the failed contracts of the round that completed its streak,
which decide whether an observe-mode record is enforced when the judge switches to enforce) the
same way, written only when there are some. A record without it is enforced at the switch only
when `rules.observe_contracts` is empty (it cannot say whether it was observed for its contracts).

`failing_contracts` (the contracts the pending failed streak failed on: a frozen round in which
every one of them passed ends the streak, judge/suspension/streaks.py) the same way, written only
while a failed streak is pending. A file without it loads with a pending streak that no frozen round
can end (as before the rule): its next failed round suspends, or a clean round resets it.

`to_confirm` and `production` (issue 39: the contracts production evidence asks the next round to
confirm, and the production lines `canary status` shows: judge/suspension/production.py) the same
way, written only when there are some.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Annotated, Any, Literal

from msgspec import Meta

from core.errors import InputError
from core.layers import STATE_FIX, STATE_SCHEMA_VERSION, STATE_SUSPENSION_KEY
from core.policy import ENFORCE, MODES, Mode
from core.schema import Invalid, read_as
from core.tags import is_valid_tag
from core.times import as_utc, fmt_time
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
    contracts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise Invalid("mode", f"expected one of {', '.join(MODES)}, got {self.mode!r}")

    def active(self, now: datetime) -> bool:
        return self.until > now

    def enforced(self, now: datetime) -> bool:
        return self.mode == ENFORCE and self.active(now)


@dataclass(frozen=True, slots=True)
class Ladder:
    """Suspensions since the history last faded (`rung`) and when the last one began."""

    rung: Count = 0
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
    # The rolling evidence of its last counted rounds (judge/suspension/window.py, judge/suspension/evidence.py).
    window: Window = field(default_factory=Window)
    # Billed against listed over the same rounds (judge/suspension/billing_window.py): the status page's.
    billing: BillingWindow = field(default_factory=BillingWindow)
    # Its limits as the last round's discovery listed them (judge/replies/listing.py: a change is a note).
    limits: ListedLimits | None = None
    # The contracts whose failures counted in the pending failed streak (empty when failed_streak
    # is 0): a frozen round in which all of them passed ends the streak (judge/suspension/streaks.py).
    failing_contracts: tuple[str, ...] = ()
    # Production evidence (judge/suspension/production.py): the contracts its next round confirms
    # (each run three times), and the lines its cards and freshness read as, for `canary status`.
    to_confirm: tuple[str, ...] = ()
    production: tuple[str, ...] = ()

    def idle(self) -> bool:
        """Nothing worth remembering but the language plan (a clean streak only matters when suspended)."""
        return self.failed_streak == 0 and self.suspension is None and self.ladder.rung == 0


@dataclass(frozen=True, slots=True)
class LastRound:
    round_id: str
    started_at: datetime
    decided_at: datetime | None = None  # when the judge applied it (None in states written before it was kept)


@dataclass(frozen=True, slots=True)
class JudgeState:
    """All models' provider states plus the bookkeeping that makes rounds idempotent."""

    models: Mapping[str, Mapping[str, ProviderState]] = field(default_factory=dict)
    applied_rounds: tuple[str, ...] = ()
    last_round: LastRound | None = None
    mode: Mode | None = None
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

    def confirm_plan(self) -> dict[str, dict[str, tuple[str, ...]]]:
        """{model: {provider: contracts}} the next round confirms (judge/suspension/production.py)."""
        return {m: plan for m, providers in sorted(self.models.items())
                if (plan := {p: s.to_confirm for p, s in sorted(providers.items()) if s.to_confirm})}

    def language_plan(self) -> dict[str, dict[str, str]]:
        """{model: {provider: language}} for the next round (providers without a plan omitted)."""
        plan: dict[str, dict[str, str]] = {}
        for model, providers in sorted(self.models.items()):
            langs = {p: s.next_language for p, s in sorted(providers.items()) if s.next_language}
            if langs:
                plan[model] = langs
        return plan


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


def state_to_json(state: JudgeState) -> dict[str, Any]:
    models = {
        model: {provider: _provider_to_json(ps) for provider, ps in sorted(providers.items())}
        for model, providers in sorted(state.models.items())
    }
    last = state.last_round
    return {
        "schema_version": STATE_SCHEMA_VERSION,
        "mode": state.mode,
        "applied_rounds": list(state.applied_rounds),
        "last_round": None if last is None else _last_round_to_json(last),
        "models": models,
    }


def _provider_to_json(ps: ProviderState) -> dict[str, Any]:
    s = ps.suspension
    return {
        "failed_streak": ps.failed_streak,
        "clean_streak": ps.clean_streak,
        STATE_SUSPENSION_KEY: None if s is None else {
            "since": fmt_time(s.since), "until": fmt_time(s.until), "rung": s.rung, "mode": s.mode, "reason": s.reason,
            **({"contracts": list(s.contracts)} if s.contracts else {})},
        "ladder": {"rung": ps.ladder.rung, "last_suspension_started": fmt_time(ps.ladder.last_suspension_started)},
        "last_reasons": list(ps.last_reasons),
        "next_language": ps.next_language,
        "last_counted_at": fmt_time(ps.last_counted_at),
        "window": encode_window(ps.window),
        **({"billing": encode_billing(ps.billing)} if ps.billing else {}),
        **({"limits": encode_limits(ps.limits)} if ps.limits is not None else {}),
        **({"failing_contracts": list(ps.failing_contracts)} if ps.failing_contracts else {}),
        **({"to_confirm": list(ps.to_confirm)} if ps.to_confirm else {}),
        **({"production": list(ps.production)} if ps.production else {}),
    }


def state_from_json(raw: Any, source: str) -> JudgeState:
    """Validate decoded state JSON; StateError names the source and the dotted key."""
    def refused(detail: str) -> StateError:
        return StateError(f"{source}: the state file is not in the expected shape ({detail}); {STATE_FIX}. "
                          "Nothing was written.")

    # Keys this reader does not know are skipped, not refused: the format grows by optional,
    # additive keys (last_counted_at, window) that readers of the previous version must ignore.
    f = read_as(raw, StateFile, source=None, error=refused, ignore_unknown_keys=True)
    models: dict[str, dict[str, ProviderState]] = {}
    for model, providers in f.models.items():
        if not is_valid_tag(model):
            raise refused(f"models: model id {model!r} is not a safe tag")
        if not isinstance(providers, dict):  # a list (of pairs, or empty) must not read as "nothing suspended"
            raise refused(f"models.{model}: expected a mapping of provider tags, got {type(providers).__name__}")
        models[model] = {}
        for provider, p in providers.items():
            if not is_valid_tag(provider):
                raise refused(f"models.{model}: provider tag {provider!r} is not a safe tag")
            entry = read_as(p, ProviderFile, source=None, error=refused, ignore_unknown_keys=True,
                            at=f"models.{model}.{provider}")
            models[model][provider] = entry.record()
    last = f.last_round
    return JudgeState(
        models=models, applied_rounds=f.applied_rounds, mode=f.mode,
        last_round=None if last is None else LastRound(last.round_id, as_utc(last.started_at),
                                                       as_utc(last.decided_at)),
    )


def _last_round_to_json(last: LastRound) -> dict[str, str | None]:
    doc = {"round_id": last.round_id, "started_at": fmt_time(last.started_at)}
    if last.decided_at is not None:
        doc["decided_at"] = fmt_time(last.decided_at)
    return doc


# -- the file's declaration (core/schema.py): these, and the records Suspension, Ladder, LastRound --

@dataclass(frozen=True, slots=True)
class ProviderFile:
    failed_streak: Count
    clean_streak: Count
    suspension: Suspension | None = None
    ladder: Ladder | None = None
    last_reasons: tuple[Any, ...] = ()  # a string would be split into one "reason" per character: refused
    next_language: Any = None  # anything but a language code: no plan (the rotation starts again)
    last_counted_at: datetime | None = None
    window: dict[str, Any] | None = None  # judge/suspension/window.py's codes, per contract
    billing: str = ""  # judge/suspension/billing_window.py's billed:listed per round
    limits: str | None = None  # judge/replies/listing.py's context_length:max_completion_tokens
    failing_contracts: tuple[str, ...] = ()
    to_confirm: tuple[str, ...] = ()
    production: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for key, check in (("window", lambda: decode_window(self.window or {})),
                           ("billing", lambda: decode_billing(self.billing)),
                           ("limits", lambda: None if self.limits is None else decode_limits(self.limits))):
            try:
                check()
            except ValueError as exc:
                raise Invalid(key, str(exc)) from None

    def record(self) -> ProviderState:
        s, ladder = self.suspension, self.ladder or Ladder()
        return ProviderState(
            failed_streak=self.failed_streak, clean_streak=self.clean_streak,
            suspension=None if s is None else replace(s, since=as_utc(s.since), until=as_utc(s.until)),
            ladder=replace(ladder, last_suspension_started=as_utc(ladder.last_suspension_started)),
            last_reasons=tuple(str(r) for r in self.last_reasons),
            next_language=self.next_language if isinstance(self.next_language, str) else None,
            last_counted_at=as_utc(self.last_counted_at), window=decode_window(self.window or {}),
            billing=decode_billing(self.billing),
            limits=None if self.limits is None else decode_limits(self.limits),
            failing_contracts=self.failing_contracts if self.failed_streak else (),
            to_confirm=self.to_confirm, production=self.production)


@dataclass(frozen=True, slots=True)
class StateFile:
    schema_version: Literal[1]
    models: dict[str, Any]  # model -> provider -> ProviderFile, read one by one (the path names both)
    mode: Mode | None = None
    applied_rounds: tuple[str, ...] = ()
    last_round: LastRound | None = None

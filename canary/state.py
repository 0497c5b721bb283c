"""state/canary-state.json: the judge's memory on disk, the language plan, and the Policy.

Format (schema_version 1; written only by `canary judge`/`canary lift`, sorted keys):

    {"schema_version": 1, "mode": "observe",
     "applied_rounds": ["<round id>", ...],               # the last Policy.remembered_rounds
     "last_round": {"round_id": "...", "started_at": "2026-11-29T22:30:00Z"},
     "models": {"<model>": {"<provider>": {
         "failed_streak": 0, "clean_streak": 0,
         "suspension": null | {"since", "until", "rung", "mode", "reason"},
         "ladder": {"rung": 0, "last_suspension_started": null},
         "last_reasons": ["language: fail: ..."], "next_language": "es",
         "last_counted_at": "2026-11-29T22:30:00Z" | null,
         "window": {"language": "p.p.ffp.t", "refusal": "ppp.pppp", ...}}}}}

The file does not grow with history: rounds are capped and idle vanished providers dropped.

`last_counted_at` (when the provider's streak last moved: judge/streaks.py) was added without
a schema bump, because it is optional and additive: readers of the previous version (the chat
backend's canary.provider_ignore included) ignore it, and a file without it loads with every
suspension, ladder and streak intact; its streaks then have no time, so they are no longer
pending and the next counted round starts them afresh (one round later, never a false one).

`window` (issue 10: the rolling evidence of the endpoint's last 48 counted rounds, one string per
contract, one '.'-separated segment of attempt codes per round: judge/window.py) was added the
same way: optional and additive. A file without it loads with an empty window, which fills as
rounds are judged; readers of the previous version ignore it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from canary.config import ALL_LANGUAGES, RuleSettings
from canary.store import StoreError, atomic_write_json, read_json
from core.tags import is_valid_tag
from judge.policy import MODES, Policy
from judge.report import ReportError, parse_time
from judge.state import (
    STATE_SCHEMA_VERSION,
    JudgeState,
    Ladder,
    LastRound,
    ProviderState,
    Suspension,
)
from judge.window import decode as decode_window
from judge.window import encode as encode_window

_FIX = "restore it from git (git checkout -- <file>) or delete it to start from an empty state"


def policy_from_settings(rules: RuleSettings, languages: tuple[str, ...] = ALL_LANGUAGES) -> Policy:
    """The judge's Policy from canary.yaml's rules and language rotation."""
    guard = rules.model_wide_guard
    return Policy(
        failed_rounds_to_suspend=rules.failed_rounds_to_suspend,
        clean_rounds_to_restore=rules.clean_rounds_to_restore,
        ladder_days=tuple(rules.ladder_days), fade_days=rules.fade_days,
        pending_failure_hours=rules.pending_failure_hours, min_round_gap_minutes=rules.min_round_gap_minutes,
        capacity_floor=rules.capacity_floor, guard_enabled=guard.enabled,
        guard_min_fraction=guard.min_fraction, guard_min_endpoints=guard.min_endpoints,
        languages=tuple(languages),
    )


def fmt_time(value: datetime | None) -> str | None:
    """ISO 8601 UTC with a Z, second precision kept as given."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


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
        "last_round": None if last is None else {"round_id": last.round_id, "started_at": fmt_time(last.started_at)},
        "models": models,
    }


def _provider_to_json(ps: ProviderState) -> dict[str, Any]:
    s = ps.suspension
    return {
        "failed_streak": ps.failed_streak,
        "clean_streak": ps.clean_streak,
        "suspension": None if s is None else {
            "since": fmt_time(s.since), "until": fmt_time(s.until), "rung": s.rung, "mode": s.mode, "reason": s.reason},
        "ladder": {"rung": ps.ladder.rung, "last_suspension_started": fmt_time(ps.ladder.last_suspension_started)},
        "last_reasons": list(ps.last_reasons),
        "next_language": ps.next_language,
        "last_counted_at": fmt_time(ps.last_counted_at),
        "window": encode_window(ps.window),
    }


def state_from_json(raw: Any, source: str) -> JudgeState:
    """Validate decoded state JSON; StoreError names the file and the bad key."""
    try:
        return _state(raw)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        detail = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
        raise StoreError(f"{source}: the state file is not in the expected shape ({detail}); {_FIX}. "
                         "Nothing was written.") from None


def _state(raw: Any) -> JudgeState:
    if not isinstance(raw, dict):
        raise TypeError("the top level must be an object")
    if raw.get("schema_version") != STATE_SCHEMA_VERSION:
        raise ValueError(f"schema_version {raw.get('schema_version')!r} is not {STATE_SCHEMA_VERSION}")
    mode = raw.get("mode")
    if mode is not None and mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {MODES}")
    models: dict[str, dict[str, ProviderState]] = {}
    for model, providers in _object(raw["models"], "models").items():
        if not is_valid_tag(model):
            raise ValueError(f"model id {model!r} is not a safe tag")
        models[model] = {}
        for provider, p in _object(providers, f"models.{model}").items():
            if not is_valid_tag(provider):
                raise ValueError(f"provider tag {provider!r} of {model} is not a safe tag")
            models[model][provider] = _provider(p)
    last = raw.get("last_round")
    rounds = raw.get("applied_rounds", [])
    if not isinstance(rounds, list) or not all(isinstance(r, str) for r in rounds):
        raise TypeError("applied_rounds must be a list of round ids")
    return JudgeState(
        models=models, applied_rounds=tuple(rounds), mode=mode,
        last_round=None if last is None else LastRound(str(last["round_id"]), _time(last["started_at"])),
    )


def _object(value: Any, where: str) -> dict[str, Any]:
    # dict() would also accept a list (of pairs, or empty): a hand-broken `"models": []` must not
    # read as "nothing suspended".
    if not isinstance(value, dict):
        raise TypeError(f"{where} must be an object, not {type(value).__name__}")
    return value


def _provider(p: dict[str, Any]) -> ProviderState:
    p = _object(p, "a provider's entry")
    s = p.get("suspension")
    ladder = p.get("ladder") or {}
    suspension = None
    if s is not None:
        if s["mode"] not in MODES:
            raise ValueError(f"suspension mode {s['mode']!r} is not one of {MODES}")
        suspension = Suspension(since=_time(s["since"]), until=_time(s["until"]), rung=_int(s["rung"]),
                                mode=s["mode"], reason=str(s["reason"]))
    last = ladder.get("last_suspension_started")
    counted = p.get("last_counted_at")
    return ProviderState(
        failed_streak=_int(p["failed_streak"]), clean_streak=_int(p["clean_streak"]), suspension=suspension,
        ladder=Ladder(_int(ladder.get("rung", 0)), None if last is None else _time(last)),
        last_reasons=_reasons(p.get("last_reasons", [])),
        next_language=p.get("next_language") if isinstance(p.get("next_language"), str) else None,
        last_counted_at=None if counted is None else _time(counted),
        window=decode_window(_object(p.get("window") or {}, "a provider's evidence window")),
    )


def _reasons(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):  # a string would be split into one "reason" per character
        raise TypeError(f"last_reasons must be a list, not {type(value).__name__}")
    return tuple(str(r) for r in value)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{value!r} is not a non-negative whole number")
    return value


def _time(value: Any) -> datetime:
    try:
        return parse_time(value, "time")
    except ReportError as exc:
        raise ValueError(str(exc)) from None


def load_state(path: Path) -> JudgeState:
    """The state in `path`; an empty state when the file does not exist yet."""
    raw = read_json(path, "state file", _FIX)
    return JudgeState() if raw is None else state_from_json(raw, str(path))


def save_state(path: Path, state: JudgeState) -> None:
    atomic_write_json(path, state_to_json(state))


def read_language_plan(path: str | Path) -> dict[str, dict[str, str]]:
    """{model: {provider: language}} for the next round; {} when the state file is missing.

    The probe suite calls this; a corrupt file raises StoreError (a ValueError) naming it.
    """
    return load_state(Path(path)).language_plan()

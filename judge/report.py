"""One round's results, parsed from results.json data and merged from shards (pure).

parse_report() validates the structure and refuses a file it cannot trust (ReportError names
the field). Data from the upstream that is merely odd (a provider tag that fails the safety
pattern, an unknown outcome) does not sink the round: those cases are set aside as
RejectedInput, recorded in the audit log by the shell.

Merged round id: shards with one common round_id keep it; otherwise the merged id is the
distinct shard ids, sorted, joined with "+" (the same set of shards always gives the same id,
so re-applying the same shards is recognised as already applied).

Planned models: a shard exists only when its probe job got as far as uploading it. A model whose
job was cancelled, timed out or failed before writing results.json is simply absent, and without
the plan the round would look complete. expect_models() records such a model as missing: the
round is incomplete for that model only. Nothing moves for it (a model absent from the cases
changes no streak, language plan or suspension; expiry is real time and still happens), and
missing_model_decisions() says why, so the audit log and the summary carry it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from judge.attempts import AttemptFacts, parse_attempts
from judge.decisions import WHOLE_ROUND, Action, Decision, Rule
from core.tags import describe_invalid_tag, is_valid_round_id, is_valid_tag
from core.vocabulary import Outcome

RESULTS_SCHEMA_VERSION = 1
_OUTCOMES = frozenset(o.value for o in Outcome)


class ReportError(ValueError):
    """A results file the judge refuses to apply."""


@dataclass(frozen=True, slots=True)
class Case:
    """One provider x contract case of a round, reduced to what the rules need."""

    model: str
    provider: str
    contract: str
    outcome: str
    reason: str
    control: bool = False
    language: str | None = None
    anomaly: bool = False
    attempts: tuple[AttemptFacts, ...] = ()  # the replies, for the evidence window (judge/attempts.py)


@dataclass(frozen=True, slots=True)
class WeakProbe:
    model: str
    contract: str
    control: str
    reason: str


@dataclass(frozen=True, slots=True)
class UnprobedControl:
    """A configured positive control that gave no verdict this round (not discovered, not
    selected, unreachable): the probe it should verify is unverified."""

    model: str
    contract: str
    control: str
    reason: str


@dataclass(frozen=True, slots=True)
class RejectedInput:
    """Upstream data the judge set aside instead of trusting it."""

    model: str
    provider: str
    problem: str


@dataclass(frozen=True, slots=True)
class RoundReport:
    round_id: str
    started_at: datetime
    complete: bool
    models: Mapping[str, tuple[str, ...]]
    cases: tuple[Case, ...] = ()
    weak_probes: tuple[WeakProbe, ...] = ()
    unprobed_controls: tuple[UnprobedControl, ...] = ()
    rejected: tuple[RejectedInput, ...] = ()
    incomplete_reason: str | None = None
    finished_at: datetime | None = None
    upstream: str | None = None            # "openrouter", "simulator", "custom"; shards: distinct ones joined by "+"
    missing: Mapping[str, str] = field(default_factory=dict)  # planned model -> why it has no results

    def upstreams(self) -> frozenset[str]:
        return frozenset(self.upstream.split("+")) if self.upstream else frozenset()


MISSING_SHARD = "no results: its probe job left no shard (cancelled, timed out or failed); nothing moves for it"


def parse_time(value: Any, field_name: str) -> datetime:
    """An ISO 8601 timestamp as an aware UTC datetime (naive means UTC)."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ReportError(f"{field_name}: {value!r} is not an ISO 8601 time like 2026-11-29T22:30:00Z") from None
    else:
        raise ReportError(f"{field_name}: expected an ISO 8601 time, got {type(value).__name__}")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def parse_report(raw: Any) -> RoundReport:
    """Validate results.json data (already decoded) into a RoundReport."""
    if not isinstance(raw, dict):
        raise ReportError("the top level must be a JSON object")
    if raw.get("schema_version") != RESULTS_SCHEMA_VERSION:
        raise ReportError(f"schema_version: expected {RESULTS_SCHEMA_VERSION}, got {raw.get('schema_version')!r}")
    round_id = raw.get("round_id")
    if not is_valid_round_id(round_id):
        raise ReportError(f"round_id: {ascii(round_id)[:80]} is missing or not a safe id")
    started_at = parse_time(raw.get("started_at"), "started_at")
    finished = raw.get("finished_at")
    finished_at = parse_time(finished, "finished_at") if finished is not None else None
    complete = raw.get("complete")
    if not isinstance(complete, bool):
        raise ReportError("complete: expected true or false")
    rejected: list[RejectedInput] = []
    models = _parse_models(raw.get("models"), rejected)
    cases = _parse_cases(raw.get("cases"), rejected)
    weak = tuple(WeakProbe(*f) for f in _parse_controls(raw.get("weak_probes") or [], "weak_probes", rejected))
    unprobed = tuple(UnprobedControl(*f) for f in _parse_controls(
        raw.get("unprobed_controls") or [], "unprobed_controls", rejected))
    reason = raw.get("incomplete_reason")
    upstream = raw.get("upstream")
    return RoundReport(
        round_id=round_id, started_at=started_at, finished_at=finished_at, complete=complete,
        incomplete_reason=_text(reason) if reason is not None else None, models=models,
        cases=cases, weak_probes=weak, unprobed_controls=unprobed, rejected=tuple(rejected),
        upstream=upstream if isinstance(upstream, str) and is_valid_tag(upstream) else None,
    )


def _parse_models(raw: Any, rejected: list[RejectedInput]) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, dict):
        raise ReportError("models: expected an object mapping model ids to {\"providers\": [...]}")
    models: dict[str, tuple[str, ...]] = {}
    for model, entry in raw.items():
        if not is_valid_tag(model):
            rejected.append(RejectedInput(_shown(model), "*", describe_invalid_tag(model)))
            continue
        providers = entry.get("providers") if isinstance(entry, dict) else None
        if not isinstance(providers, list):
            raise ReportError(f"models.{model}.providers: expected a list of endpoint tags")
        good = []
        for tag in providers:
            if is_valid_tag(tag):
                good.append(tag)
            else:
                rejected.append(RejectedInput(model, _shown(tag), describe_invalid_tag(tag)))
        models[model] = tuple(sorted(set(good)))
    return models


def _parse_cases(raw: Any, rejected: list[RejectedInput]) -> tuple[Case, ...]:
    if not isinstance(raw, list):
        raise ReportError("cases: expected a list")
    cases = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise ReportError(f"cases[{i}]: expected an object")
        model, provider = item.get("model"), item.get("provider")
        if not is_valid_tag(model) or not is_valid_tag(provider):
            bad = provider if is_valid_tag(model) else model
            rejected.append(RejectedInput(_shown(model), _shown(provider), describe_invalid_tag(bad)))
            continue
        outcome = item.get("outcome")
        if outcome not in _OUTCOMES:
            rejected.append(RejectedInput(model, provider, f"cases[{i}]: unknown outcome {ascii(outcome)[:40]}"))
            continue
        cases.append(Case(
            model=model, provider=provider, contract=_text(item.get("contract", "")),
            outcome=outcome, reason=_text(item.get("reason", "")), control=item.get("control") is True,
            language=item.get("language") if isinstance(item.get("language"), str) else None,
            anomaly=item.get("anomaly") is True, attempts=parse_attempts(item.get("attempts")),
        ))
    return tuple(cases)


def _text(value: Any) -> str:
    """Free text from the round (reasons): a str that can be written as UTF-8.

    JSON may carry lone surrogates (`"\\ud800"`), which decode into a str that no UTF-8 file can
    hold: written as is, they would crash the state write after the audit was already appended.
    Each one becomes "?".
    """
    text = str(value)
    return text.encode("utf-8", "replace").decode("utf-8") if not text.isascii() else text


def _shown(value: Any) -> str:
    """A tag as it may be written to the audit log: itself when safe, else an escaped excerpt."""
    return value if is_valid_tag(value) else ascii(value)[:80]


def _parse_controls(raw: Any, key: str, rejected: list[RejectedInput]) -> list[tuple[str, str, str, str]]:
    """(model, contract, control, reason) of each entry of `weak_probes` or `unprobed_controls`."""
    if not isinstance(raw, list):
        raise ReportError(f"{key}: expected a list")
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise ReportError(f"{key}[{i}]: expected an object")
        model, control = item.get("model"), item.get("control")
        if not (is_valid_tag(model) and is_valid_tag(control)):
            rejected.append(RejectedInput(_shown(model), _shown(control), f"{key}[{i}]: an unsafe tag"))
            continue
        out.append((model, _text(item.get("contract", "")), control, _text(item.get("reason", ""))))
    return out


def merge_shards(reports: Sequence[RoundReport], sources: Sequence[str] | None = None) -> RoundReport:
    """One round from several shard reports; two shards may not both contain the same model."""
    if not reports:
        raise ReportError("no results files given")
    if len(reports) == 1:
        return reports[0]
    names = list(sources) if sources is not None else [r.round_id for r in reports]
    owner: dict[str, str] = {}
    for report, name in zip(reports, names):
        for model in report.models:
            if model in owner:
                raise ReportError(f"model {model} appears in two shards ({owner[model]} and {name}); "
                                  "each shard must probe different models")
            owner[model] = name
    ids = sorted({r.round_id for r in reports})
    upstreams = sorted({u for r in reports for u in r.upstreams()})
    incomplete = [f"{n}: {r.incomplete_reason or 'incomplete'}" for r, n in zip(reports, names) if not r.complete]
    finished = [r.finished_at for r in reports if r.finished_at is not None]
    return RoundReport(
        round_id="+".join(ids),
        started_at=min(r.started_at for r in reports),
        finished_at=max(finished) if finished else None,
        complete=not incomplete,
        incomplete_reason="; ".join(incomplete) or None,
        models={m: p for r in reports for m, p in r.models.items()},
        cases=tuple(c for r in reports for c in r.cases),
        weak_probes=tuple(w for r in reports for w in r.weak_probes),
        unprobed_controls=tuple(u for r in reports for u in r.unprobed_controls),
        rejected=tuple(x for r in reports for x in r.rejected),
        upstream="+".join(upstreams) or None,
    )


def expect_models(report: RoundReport, planned: Sequence[str]) -> RoundReport:
    """The round against its plan: each planned model without results is recorded as missing."""
    for model in planned:
        if not is_valid_tag(model):
            raise ReportError(f"planned model {ascii(model)[:80]} is not a model id")
    present = set(report.models) | {c.model for c in report.cases}
    missing = {m: MISSING_SHARD for m in dict.fromkeys(planned) if m not in present}
    return replace(report, missing={**report.missing, **missing}) if missing else report


def missing_model_decisions(report: RoundReport) -> list[Decision]:
    """One `incomplete_round` decision per missing model (none when the whole round is incomplete:
    the rules already record that once for everybody)."""
    if not report.complete:
        return []
    return [Decision(model, WHOLE_ROUND, Action.INCOMPLETE_ROUND, Rule.INCOMPLETE_ROUND, why)
            for model, why in sorted(report.missing.items())]

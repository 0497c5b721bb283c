"""History records: one judged round as rows (pure), read from the round's documents.

`round_record` turns the round record (core.results.RoundResults, as the judge reads it) and its
decisions into rows; `case_row()` is the one adapter for a case, so a change of the record's shape
is a change here only. A case the reader set aside is left out and counted in `skipped`. A row keeps
the reason text only when the case did not pass: the evidence a person reads.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.errors import InputError
from core.results import AttemptResult, CaseResult, RoundResults
from core.times import fmt_time
from core.vocabulary import Outcome
from judge.suspension.decisions import RoundDecisions

REASON_CHARS = 240  # the evidence text kept per non-passing case (one line of a table)
# Below this much generation time the token rate is noise (a reply that came in one chunk).
MIN_GENERATION_S = 0.05


class HistoryError(InputError):
    """A round or a history file that cannot be recorded or read; the message says which and why."""


@dataclass(frozen=True, slots=True)
class CaseRow:
    """One provider x contract case of one round."""

    model: str
    provider: str
    contract: str
    outcome: str
    code: str
    language: str | None = None
    control: bool = False
    ttft_s: float | None = None
    duration_s: float | None = None
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    served_by: str | None = None
    tokens_per_s: float | None = None
    reason: str | None = None      # only when the case did not pass


@dataclass(frozen=True, slots=True)
class DecisionRow:
    """One decision of the judge about this round (decisions.json)."""

    model: str
    provider: str
    action: str
    rule: str
    reason: str
    until: str | None = None
    rung: int | None = None
    evidence: tuple[tuple[str, str, str], ...] = ()   # (contract, outcome, reason)


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One judged round: when, what was probed, every case, every decision."""

    round_id: str
    started_at: datetime
    finished_at: datetime | None
    complete: bool
    upstream: str | None
    mode: str | None
    models: Mapping[str, tuple[str, ...]]
    cases: tuple[CaseRow, ...]
    decisions: tuple[DecisionRow, ...] = ()
    skipped: int = 0


def round_record(results: RoundResults, decisions: RoundDecisions | None = None) -> RoundRecord:
    """The record of one round (its results file) and the judge's decisions."""
    if decisions is not None and decisions.round_id != results.round_id:
        raise HistoryError(f"the decisions are of round {decisions.round_id[:80]!r}, "
                           f"not of {results.round_id}: pass the decisions.json written by judging this round")
    rows = [case_row(c) for c in results.cases]
    return RoundRecord(
        round_id=results.round_id, started_at=results.started_at, finished_at=results.finished_at,
        complete=results.complete, upstream=results.upstream,
        mode=decisions.mode if decisions is not None else None,
        models={m: e.providers for m, e in sorted(results.models.items())},
        cases=tuple(sorted(rows, key=lambda r: (r.model, r.provider, r.contract, r.control))),
        decisions=tuple(decision_rows(decisions)) if decisions is not None else (),
        skipped=sum(r.part == "cases" for r in results.rejected),
    )


def case_row(case: CaseResult) -> CaseRow:
    """The adapter: one case of the round record as a row."""
    outcome = case.outcome.value
    reason = _str(case.reason) or ""
    return CaseRow(
        model=case.model, provider=case.provider, contract=case.contract, outcome=outcome,
        code=case.code, language=_str(case.language), control=case.control,
        ttft_s=_rounded(case.ttft_s, 3), duration_s=_rounded(case.duration_s, 2),
        requests=case.requests, prompt_tokens=case.prompt_tokens, completion_tokens=case.completion_tokens,
        cost_usd=_rounded(case.cost_usd, 8) or 0.0, served_by=_str(case.served_by),
        tokens_per_s=tokens_per_second(case.completion_tokens, case.attempts),
        reason=None if outcome == Outcome.PASS.value else _clean(reason)[:REASON_CHARS],
    )


def tokens_per_second(completion_tokens: int, attempts: Iterable[AttemptResult]) -> float | None:
    """Output tokens per second of generation: completion tokens / (end - first token), summed over the
    attempts; None without tokens, with an attempt that has no first token or total time, or under
    MIN_GENERATION_S of generation."""
    generating = 0.0
    for attempt in attempts:
        ttft, total = attempt.ttft_s, attempt.total_s
        if ttft is None or total is None:
            return None
        generating += max(0.0, total - ttft)
    if completion_tokens <= 0 or generating < MIN_GENERATION_S:
        return None
    return float(round(completion_tokens / generating))


def decision_rows(decisions: RoundDecisions) -> Iterable[DecisionRow]:
    for d in decisions.decisions:
        evidence = tuple((e.contract, e.outcome, _clean(e.reason)[:REASON_CHARS]) for e in d.evidence)
        yield DecisionRow(model=d.model, provider=d.provider, action=d.action.value, rule=d.rule.value,
                          reason=_clean(d.reason)[:REASON_CHARS * 2], until=fmt_time(d.until), rung=d.rung,
                          evidence=evidence)


def _rounded(value: Any, digits: int) -> float | None:
    """Stored precision, so a record reads back from its file unchanged (TTFT to the ms, costs to 1e-8 USD)."""
    number = _number(value)
    return None if number is None else round(number, digits)


def _clean(text: str) -> str:
    """One line, writable as UTF-8 (lone surrogates from JSON become '?')."""
    return " ".join(text.split()).encode("utf-8", "replace").decode("utf-8")


def _str(value: Any) -> str | None:
    return _clean(value) if isinstance(value, str) and value else None


def _number(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
        return float(value)
    return None

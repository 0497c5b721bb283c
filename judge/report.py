"""The judge's view of one round: the round record (core/results.py) against the plan (pure).

The round record itself (reports/results.json as frozen dataclasses, its one reader and its one
merge of shards) is core.results: RoundResults, CaseResult, read_results, merge_shards. This
module adds what only the judge needs.

Planned models: a shard exists only when its probe job got as far as uploading it. A model whose
job was cancelled, timed out or failed before writing results.json is simply absent, and without
the plan the round would look complete. expect_models() records such a model as missing: the
round is incomplete for that model only. Nothing moves for it (a model absent from the cases
changes no streak, language plan or suspension; expiry is real time and still happens), and
missing_model_decisions() says why, so the audit log and the summary carry it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from core.results import ResultsError, RoundResults
from core.tags import is_valid_tag
from core.times import TimeFormatError
from core.times import parse_time as _parse_time
from judge.decisions import WHOLE_ROUND, Action, Decision, Rule

# The name the shell's callers still use for a refused results file or time (one class: ResultsError).
ReportError = ResultsError

MISSING_SHARD = "no results: its probe job left no shard (cancelled, timed out or failed); nothing moves for it"


def parse_time(value: Any, field_name: str) -> datetime:
    """An ISO 8601 timestamp as an aware UTC datetime (naive means UTC); ReportError when it is not one."""
    try:
        return _parse_time(value, field_name)
    except TimeFormatError as exc:
        raise ReportError(str(exc)) from None


def expect_models(report: RoundResults, planned: Sequence[str]) -> RoundResults:
    """The round against its plan: each planned model without results is recorded as missing."""
    for model in planned:
        if not is_valid_tag(model):
            raise ReportError(f"planned model {ascii(model)[:80]} is not a model id")
    present = set(report.models) | {c.model for c in report.cases}
    missing = {m: MISSING_SHARD for m in dict.fromkeys(planned) if m not in present}
    return replace(report, missing={**report.missing, **missing}) if missing else report


def missing_model_decisions(report: RoundResults) -> list[Decision]:
    """One `incomplete_round` decision per missing model (none when the whole round is incomplete:
    the rules already record that once for everybody)."""
    if not report.complete:
        return []
    return [Decision(model, WHOLE_ROUND, Action.INCOMPLETE_ROUND, Rule.INCOMPLETE_ROUND, why)
            for model, why in sorted(report.missing.items())]

"""The round record (core/results.py) against the round's plan: planned models without results (pure).

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

from core.results import ResultsError, RoundResults
from core.tags import is_valid_tag
from judge.decisions import WHOLE_ROUND, Action, Decision, Rule

MISSING_SHARD = "no results: its probe job left no shard (cancelled, timed out or failed); nothing moves for it"


def expect_models(report: RoundResults, planned: Sequence[str]) -> RoundResults:
    """The round against its plan: each planned model without results is recorded as missing."""
    for model in planned:
        if not is_valid_tag(model):
            raise ResultsError(f"planned model {ascii(model)[:80]} is not a model id")
    present = set(report.models) | {c.model for c in report.cases} | set(report.missing)  # missing: its own reason
    missing = {m: MISSING_SHARD for m in dict.fromkeys(planned) if m not in present}
    return replace(report, missing={**report.missing, **missing}) if missing else report


def missing_model_decisions(report: RoundResults) -> list[Decision]:
    """One `incomplete_round` decision per missing model (none when the whole round is incomplete:
    the rules already record that once for everybody)."""
    if not report.complete:
        return []
    return [Decision(model, WHOLE_ROUND, Action.INCOMPLETE_ROUND, Rule.INCOMPLETE_ROUND, why)
            for model, why in sorted(report.missing.items())]

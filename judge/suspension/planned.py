"""The round against its plan (pure; docs/judge.md, Two refusals): planned models without results.
A model the probe job never reached (cancelled, timed out) is simply absent from results.json, and
without the plan the round would look complete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.results import ResultsError, RoundResults
from core.tags import is_valid_tag
from judge.suspension.decisions import WHOLE_ROUND, Action, Decision, Rule

MISSING = "no results: the probe job left none for it (cancelled, timed out or failed); nothing moves for it"


def expect_models(report: RoundResults, planned: Sequence[str]) -> RoundResults:
    """The round against its plan: each planned model without results is recorded as missing."""
    for model in planned:
        if not is_valid_tag(model):
            raise ResultsError(f"planned model {ascii(model)[:80]} is not a model id")
    present = set(report.models) | {c.model for c in report.cases} | set(report.missing)  # missing: its own reason
    missing = {m: MISSING for m in dict.fromkeys(planned) if m not in present}
    return replace(report, missing={**report.missing, **missing}) if missing else report


def missing_model_decisions(report: RoundResults) -> list[Decision]:
    """One `incomplete_round` decision per missing model (none when the whole round is incomplete: the
    rules record that once)."""
    if not report.complete:
        return []
    return [Decision(model, WHOLE_ROUND, Action.INCOMPLETE_ROUND, Rule.INCOMPLETE_ROUND, why)
            for model, why in sorted(report.missing.items())]

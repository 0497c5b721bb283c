"""A round against its plan (judge/suspension/planned.py): missing models."""

from __future__ import annotations

import pytest
from rules_factories import HALF_HOUR, MODEL, PROVIDERS, T0, report

from core.policy import Policy
from core.results import ResultsError
from judge.suspension.decisions import WHOLE_ROUND, Action
from judge.suspension.planned import MISSING, expect_models, missing_model_decisions
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState

OTHER = "other/model"


def test_a_planned_model_without_results_is_missing_and_said_so() -> None:
    planned = expect_models(report(), [MODEL, OTHER])
    assert dict(planned.missing) == {OTHER: MISSING} and planned.complete
    [decision] = missing_model_decisions(planned)
    assert (decision.model, decision.provider, decision.action) == (OTHER, WHOLE_ROUND, Action.INCOMPLETE_ROUND)


def test_every_planned_model_present_changes_nothing() -> None:
    round_ = report()
    assert expect_models(round_, [MODEL]) is round_ and missing_model_decisions(round_) == []


def test_nothing_moves_for_a_missing_model() -> None:
    enforce = Policy(mode="enforce")
    before = apply_round(JudgeState(), report({PROVIDERS[0]: "fail"}, model=OTHER, at=T0, round_id="a"),
                         enforce, now=T0)[0]
    planned = expect_models(report(at=T0 + HALF_HOUR, round_id="b"), [MODEL, OTHER])
    after, _ = apply_round(before, planned, enforce, now=T0)
    assert after.models[OTHER] == before.models[OTHER]


def test_a_whole_incomplete_round_is_said_once_by_the_rules_not_per_model() -> None:
    assert missing_model_decisions(expect_models(report(complete=False), [MODEL, OTHER])) == []


def test_a_planned_id_that_is_not_a_model_id_is_refused() -> None:
    with pytest.raises(ResultsError, match="not a model id"):
        expect_models(report(), ["a b"])


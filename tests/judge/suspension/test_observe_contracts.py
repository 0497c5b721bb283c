"""Contracts still observed (Policy.observe_contracts): in enforce mode their failures only make would_suspend."""

from __future__ import annotations

from dataclasses import replace

from rules_factories import PROVIDERS, Timeline, actions, case

from core.policy import OBSERVE, Policy
from core.vocabulary import FIDELITY
from judge.suspension.decisions import Action

BAD = PROVIDERS[0]


def fidelity_round(outcome: str) -> dict[str, list[dict[str, object]]]:
    return {"extra_cases": [case(p, FIDELITY, outcome if p == BAD else "pass") for p in PROVIDERS]}


def test_a_new_contract_starts_observed_by_default() -> None:
    assert FIDELITY in Policy().observe_contracts


def test_a_streak_failed_only_on_an_observed_contract_is_recorded_not_enforced() -> None:
    t = Timeline()  # enforce
    decisions = t.rounds(2, {}, **fidelity_round("fail"))

    [d] = actions(decisions, Action.WOULD_SUSPEND)
    assert d.provider == BAD and "observed only" in d.reason
    assert not actions(decisions, Action.SUSPEND) and t.ignore() == []
    assert t.suspension(BAD).mode == OBSERVE  # type: ignore[union-attr]


def test_a_round_failing_an_enforced_contract_too_is_enforced() -> None:
    t = Timeline()
    decisions = t.rounds(2, {BAD: "fail"}, **fidelity_round("fail"))

    [d] = actions(decisions, Action.SUSPEND)
    assert d.provider == BAD and t.ignore() == [BAD]


def test_an_empty_observe_list_enforces_the_contract_like_the_others() -> None:
    t = Timeline(policy=replace(Policy(), observe_contracts=()))
    decisions = t.rounds(2, {}, **fidelity_round("fail"))

    assert [d.provider for d in actions(decisions, Action.SUSPEND)] == [BAD]

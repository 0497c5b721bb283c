"""Idempotence and order: the same round twice changes nothing; older rounds are refused."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rules_factories import HALF_HOUR, MODEL, PROVIDERS, T0, report

from core.field_rules import written
from core.policy import Policy
from judge.suspension.rules import RoundOrder, RoundOrderError, apply_round, check_round_order
from judge.suspension.state import JudgeState, read_state

POLICY = Policy()
BAD = PROVIDERS[0]


def test_the_same_round_applied_twice_changes_nothing() -> None:
    r = report({BAD: "fail"}, at=T0)
    once, _ = apply_round(JudgeState(), r, replace(POLICY, mode="enforce"), now=T0)
    twice, again = apply_round(once, r, replace(POLICY, mode="enforce"), now=T0 + HALF_HOUR)
    assert twice is once and again == []
    assert check_round_order(once, r) is RoundOrder.ALREADY_APPLIED


def test_the_state_remembers_when_its_last_round_was_decided() -> None:
    # A re-run of the judge rewrites the round's decisions file at this time, not at its own clock.
    decided = T0 + HALF_HOUR / 3
    state, _ = apply_round(JudgeState(), report(at=T0), replace(POLICY, mode="enforce"), now=decided)
    assert state.last_round is not None and state.last_round.decided_at == decided
    assert read_state(written(state), "state").last_round == state.last_round
    older = written(state)
    del older["last_round"]["decided_at"]  # a state written before the time was kept still reads
    assert read_state(older, "state").last_round.decided_at is None


def test_an_older_round_is_refused_with_a_clear_message() -> None:
    state, _ = apply_round(JudgeState(), report(at=T0 + HALF_HOUR), replace(POLICY, mode="enforce"), now=T0)
    with pytest.raises(RoundOrderError, match="not after the last applied round.*refused"):
        apply_round(state, report(at=T0, round_id="older"), replace(POLICY, mode="enforce"), now=T0)


def test_remembered_rounds_are_bounded() -> None:
    policy = Policy(remembered_rounds=3)
    state = JudgeState()
    for i in range(10):
        state, _ = apply_round(state, report(at=T0 + i * HALF_HOUR), replace(policy, mode="enforce"), now=T0)
    assert len(state.applied_rounds) == 3


def test_vanished_idle_providers_are_forgotten() -> None:
    enforce = replace(POLICY, mode="enforce")
    state, _ = apply_round(JudgeState(), report(at=T0), enforce, now=T0)
    state, _ = apply_round(state, report(at=T0 + HALF_HOUR, providers=PROVIDERS[1:]), enforce, now=T0)
    assert BAD not in state.models[MODEL]

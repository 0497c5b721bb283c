"""Idempotence and order: the same round twice changes nothing; older rounds are refused."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rules_factories import HALF_HOUR, MODEL, PROVIDERS, T0, report, results

from core.field_rules import written
from core.policy import Policy
from core.results import ResultsError
from core.results_read import merge_shards, read_results
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


def test_shards_merge_into_one_round_with_a_stable_id() -> None:
    a = read_results(results(round_id="shard-b", model="x/one"))
    b = read_results(results(round_id="shard-a", model="y/two", at=T0 + HALF_HOUR / 30))
    merged = merge_shards([a, b])
    assert merged.round_id == "shard-a+shard-b" == merge_shards([b, a]).round_id
    assert set(merged.models) == {"x/one", "y/two"} and merged.started_at == T0
    assert len(merged.cases) == len(a.cases) + len(b.cases)


def test_shards_with_one_round_id_keep_it() -> None:
    a = read_results(results(round_id="same", model="x/one"))
    b = read_results(results(round_id="same", model="y/two"))
    assert merge_shards([a, b]).round_id == "same"


def test_two_shards_with_the_same_model_are_refused() -> None:
    a, b = report(round_id="a"), report(round_id="b")
    with pytest.raises(ResultsError, match=f"model {MODEL} appears in two shards"):
        merge_shards([a, b], ["one.json", "two.json"])


def test_an_incomplete_shard_makes_its_model_missing_and_the_round_stays_complete_for_the_others() -> None:
    a = read_results(results(model="x/one", round_id="shard-a"))
    b = read_results(results({BAD: "fail"}, model="y/two", complete=False, round_id="shard-b"))
    merged = merge_shards([a, b], ["a.json", "b.json"])
    assert merged.complete and merged.round_id == "shard-a+shard-b"
    assert set(merged.models) == {"x/one"} and {c.model for c in merged.cases} == {"x/one"}
    assert merged.missing == {"y/two": "its shard (b.json) is incomplete: discovery failed; nothing moves for it"}
    state, decisions = apply_round(JudgeState(), merged, replace(POLICY, mode="enforce"), now=T0)
    assert "y/two" not in state.models and "x/one" in state.models  # y's failure is not counted
    assert not [d for d in decisions if d.action.value == "incomplete_round" and d.model == "*"]


def test_a_discovery_failure_shard_names_its_model_and_only_that_model_is_set_aside() -> None:
    a = read_results(results(model="x/one", round_id="shard-a"))
    failed = {**results(model="y/two", complete=False, round_id="shard-b"), "cases": [],
              "models": {"y/two": {"providers": []}},
              "incomplete": [{"kind": "discovery", "detail": "discovery of 'y/two' failed: HTTP 503"}]}
    merged = merge_shards([a, read_results(failed)])
    assert merged.complete and list(merged.missing) == ["y/two"] and "HTTP 503" in merged.missing["y/two"]


def test_the_round_is_incomplete_only_when_every_shard_is() -> None:
    a = read_results(results(model="x/one", complete=False))
    b = read_results(results(model="y/two", complete=False))
    merged = merge_shards([a, b])
    assert not merged.complete and merged.missing == {}
    assert not read_results(results(model="x/one", complete=False)).complete  # one shard: as it is

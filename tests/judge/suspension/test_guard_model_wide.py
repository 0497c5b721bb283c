"""The model-wide guard: a contract failing on most endpoints counts for nobody."""

from __future__ import annotations

from rules_factories import MODEL, PROVIDERS, Timeline, actions

from core.policy import GuardRules, Policy
from judge.suspension.decisions import Action, Rule

POLICY = Policy()
MOST = PROVIDERS[:3]  # 3 of 5 > model_wide_guard.min_fraction


def test_a_contract_failing_on_most_endpoints_counts_for_nobody() -> None:
    t = Timeline()
    decisions = t.rounds(2, {p: "fail" for p in MOST})
    guard = actions(decisions, Action.MODEL_WIDE_GUARD)
    assert len(guard) == 2 and guard[0].rule is Rule.MODEL_WIDE_GUARD and guard[0].provider == "*"
    assert "structured failed on 3 of 5" in guard[0].reason
    assert not actions(decisions, Action.SUSPEND)
    assert all(t.state.provider(MODEL, p).failed_streak == 0 for p in MOST)


def test_discounted_failures_freeze_rather_than_clean() -> None:
    # The pending streak failed on structured, so the discounted round (structured fails on most
    # endpoints) is frozen: had the streak failed on latency, which passes in it, the frozen round
    # would end the streak (tests/judge/suspension/test_rules_failing_contract_passed.py).
    t = Timeline()
    t.round({PROVIDERS[0]: "fail"})
    t.round({p: "fail" for p in MOST})
    ps = t.state.provider(MODEL, PROVIDERS[0])
    assert (ps.failed_streak, ps.clean_streak) == (1, 0)
    assert actions(t.round({PROVIDERS[0]: "fail"}), Action.SUSPEND)


def test_other_failures_of_a_guarded_provider_still_count() -> None:
    t = Timeline()
    spec = {p: "fail" for p in MOST} | {PROVIDERS[0]: {"structured": "fail", "latency": "fail"}}
    assert actions(t.rounds(2, spec), Action.SUSPEND)[0].provider == PROVIDERS[0]


def test_half_is_not_most() -> None:
    t = Timeline(providers=PROVIDERS[:4])
    assert not actions(t.round({p: "fail" for p in PROVIDERS[:2]}), Action.MODEL_WIDE_GUARD)


def test_too_few_endpoints_never_trigger_the_guard() -> None:
    t = Timeline(providers=PROVIDERS[: POLICY.model_wide_guard.min_endpoints - 1], policy=Policy(capacity_floor=0))
    decisions = t.rounds(2, {p: "fail" for p in t.providers})
    assert not actions(decisions, Action.MODEL_WIDE_GUARD)
    assert len(actions(decisions, Action.SUSPEND)) == len(t.providers)


def test_the_guard_can_be_switched_off() -> None:
    t = Timeline(policy=Policy(model_wide_guard=GuardRules(enabled=False), capacity_floor=0))
    assert len(actions(t.rounds(2, {p: "fail" for p in MOST}), Action.SUSPEND)) == 3

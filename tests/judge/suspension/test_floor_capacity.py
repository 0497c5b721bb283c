"""The capacity floor: never leave fewer than `capacity_floor` usable endpoints."""

from __future__ import annotations

from rules_factories import MODEL, Timeline, actions

from core.policy import Policy
from judge.suspension.decisions import Action, Rule

THREE = ("aurora/fp8", "borealis/bf16", "cirrus/fp8")
# Failures on different contracts, so the model-wide guard stays out of these timelines.
BOTH_FAIL = {"aurora/fp8": {"latency": "fail"}, "borealis/bf16": {"structured": "fail"}}


def test_the_floor_holds_at_two() -> None:
    t = Timeline(providers=THREE)
    t.round(BOTH_FAIL)
    decisions = t.round(BOTH_FAIL)
    [suspended] = actions(decisions, Action.SUSPEND)
    [held] = actions(decisions, Action.FLOOR_HELD)
    assert held.rule is Rule.CAPACITY_FLOOR
    assert {suspended.provider, held.provider} == {"aurora/fp8", "borealis/bf16"}
    assert len(set(THREE) - set(t.ignore())) == Policy().capacity_floor
    assert held.evidence  # the evidence is kept with the warning


def test_the_held_provider_is_suspended_once_capacity_returns() -> None:
    t = Timeline(providers=THREE + ("dune/fp16",))
    t.round(BOTH_FAIL, providers=THREE)
    t.round(BOTH_FAIL, providers=THREE)
    assert len(t.ignore()) == 1
    decisions = t.round(BOTH_FAIL)  # a fourth endpoint is discovered: room for one more suspension
    assert {d.provider for d in actions(decisions, Action.SUSPEND)} == {"borealis/bf16"}
    assert t.ignore() == ["aurora/fp8", "borealis/bf16"]


def test_frozen_rounds_keep_the_held_evidence() -> None:
    t = Timeline(providers=THREE + ("dune/fp16",))
    t.rounds(2, BOTH_FAIL, providers=THREE)
    t.round({"borealis/bf16": "transport_error"}, providers=THREE)
    assert actions(t.round({"borealis/bf16": "transport_error"}), Action.SUSPEND)


def test_candidates_are_ordered_by_longest_streak_then_tag() -> None:
    t = Timeline(providers=THREE, excluded={MODEL: frozenset({"cirrus/fp8"})})
    t.rounds(2, {"borealis/bf16": {"structured": "fail"}})  # held: only aurora would remain
    t.round(BOTH_FAIL)
    t.excluded = {}  # cirrus is usable again: room for exactly one suspension
    decisions = t.round(BOTH_FAIL)
    # borealis (4 failed rounds) goes before aurora (2), although "aurora" sorts first.
    assert [(d.action, d.provider) for d in decisions] == [
        (Action.SUSPEND, "borealis/bf16"), (Action.FLOOR_HELD, "aurora/fp8")]


def test_ties_are_broken_by_tag() -> None:
    t = Timeline(providers=THREE)
    decisions = t.rounds(2, BOTH_FAIL)
    assert [d.provider for d in decisions] == ["aurora/fp8", "borealis/bf16"]


def test_people_exclusions_count_against_capacity() -> None:
    t = Timeline(providers=THREE, excluded={MODEL: frozenset({"cirrus/fp8"})})
    decisions = t.rounds(2, {"aurora/fp8": "fail"})
    assert [d.action for d in decisions] == [Action.FLOOR_HELD]


def test_a_zero_floor_suspends_everyone_who_qualifies() -> None:
    t = Timeline(providers=THREE, policy=Policy(capacity_floor=0))
    spec = {p: {c: "fail"} for p, c in zip(THREE, ("latency", "structured", "refusal"), strict=True)}
    assert len(actions(t.rounds(2, spec), Action.SUSPEND)) == 3


# Issue 19 item 2: a bare tag (`aurora`) in provider.ignore also removes its variants.
BARE = ("aurora", "aurora/turbo", "aurora/priority", "borealis/bf16")


def test_a_bare_tag_suspension_counts_its_variants_as_removed_and_says_so() -> None:
    t = Timeline(providers=BARE)
    fails = {"aurora": {"latency": "fail"}, "borealis/bf16": {"structured": "fail"}}
    t.round(fails)
    decisions = t.round(fails)
    [suspended] = actions(decisions, Action.SUSPEND)
    [held] = actions(decisions, Action.FLOOR_HELD)
    # The bare tag goes first (its tag sorts first); it also takes aurora/turbo out, but never the
    # tier endpoint aurora/priority: 2 endpoints stay usable, so borealis is held at the floor
    # (counting aurora as one endpoint, 3 would stay and borealis would go too).
    assert suspended.provider == "aurora" and "also removes aurora/turbo" in suspended.reason
    assert "aurora/priority" not in suspended.reason
    assert held.provider == "borealis/bf16"


def test_a_bare_tag_suspension_is_held_when_its_variants_would_take_capacity_below_the_floor() -> None:
    t = Timeline(providers=("aurora", "aurora/turbo", "borealis/bf16"))
    decisions = t.rounds(2, {"aurora": {"latency": "fail"}})
    [held] = actions(decisions, Action.FLOOR_HELD)
    assert held.provider == "aurora" and "also removes aurora/turbo" in held.reason
    assert "leave 1 usable" in held.reason

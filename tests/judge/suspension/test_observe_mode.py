"""Observe mode: the same state machine, but nothing reaches provider.ignore."""

from __future__ import annotations

from rules_factories import MODEL, PROVIDERS, Timeline, actions

from core.policy import ENFORCE, OBSERVE
from judge.suspension.decisions import Action, Rule
from judge.suspension.exclusions import would_ignore

BAD = PROVIDERS[0]


def test_observe_mode_never_changes_provider_ignore() -> None:
    t = Timeline(mode=OBSERVE)
    decisions = t.rounds(2, {BAD: "fail"})
    [d] = actions(decisions, Action.WOULD_SUSPEND)
    assert d.rung == 1 and not actions(decisions, Action.SUSPEND)
    assert t.ignore() == []
    assert would_ignore(MODEL, (), t.state, t.now) == [BAD]
    assert t.suspension(BAD).mode == OBSERVE  # type: ignore[union-attr]


def test_observe_mode_runs_the_same_ladder_and_recovery() -> None:
    t = Timeline(mode=OBSERVE)
    t.rounds(2, {BAD: "fail"})
    assert actions(t.rounds(2), Action.RESTORE)
    t.rounds(2, {BAD: "fail"})
    assert t.suspension(BAD).rung == 2  # type: ignore[union-attr]


def test_switching_to_enforce_does_not_enforce_observe_records() -> None:
    t = Timeline(mode=OBSERVE)
    t.rounds(2, {BAD: "fail"})
    t.mode = ENFORCE
    decisions = t.round({BAD: "fail"})
    [ended] = actions(decisions, Action.EXPIRED)
    assert ended.rule is Rule.MODE_SWITCH
    assert not actions(decisions, Action.SUSPEND) and t.ignore() == []
    [d] = actions(t.round({BAD: "fail"}), Action.SUSPEND)  # two fresh enforce-mode failures
    assert d.rung == 1


def test_enforce_records_keep_running_in_observe_mode() -> None:
    t = Timeline(mode=ENFORCE)
    t.rounds(2, {BAD: "fail"})
    t.mode = OBSERVE
    t.round({BAD: "fail"})
    assert t.ignore() == [BAD]

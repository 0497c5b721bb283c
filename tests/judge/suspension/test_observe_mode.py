"""Observe mode: the same state machine, but nothing reaches provider.ignore."""

from __future__ import annotations

from dataclasses import replace

from rules_factories import MODEL, PROVIDERS, Timeline, actions, case

from core.policy import ENFORCE, OBSERVE, Policy
from core.vocabulary import FIDELITY
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


def test_switching_to_enforce_enforces_the_record_its_evidence_supports_and_ends_nothing() -> None:
    """Issue 29: the switch used to end every observe record (N `expired (mode_switch)` notices)
    and reset streaks and rungs, so a one-off enforce round could never suspend anything."""
    t = Timeline(mode=OBSERVE)
    [would] = actions(t.rounds(2, {BAD: "fail"}), Action.WOULD_SUSPEND)
    t.mode = ENFORCE
    decisions = t.round({BAD: "fail"})
    assert not actions(decisions, Action.EXPIRED)
    [d] = actions(decisions, Action.SUSPEND)
    assert d.provider == BAD and d.rule is Rule.MODE_SWITCH
    assert (d.until, d.rung) == (would.until, would.rung) == (t.suspension(BAD).until, 1)  # type: ignore[union-attr]
    assert t.suspension(BAD).mode == ENFORCE and t.suspension(BAD).since == t.now  # type: ignore[union-attr]
    assert t.ignore() == [BAD]
    assert not [x for x in t.round({BAD: "fail"}) if x.provider == BAD and x.action is not Action.SUSPEND]
    assert t.ignore() == [BAD]


def test_an_enforced_record_is_announced_once_not_every_enforce_round() -> None:
    t = Timeline(mode=OBSERVE)
    t.rounds(2, {BAD: "fail"})
    t.mode = ENFORCE
    later = t.rounds(3, {BAD: "fail"})
    assert [d.rule for d in actions(later, Action.SUSPEND)] == [Rule.MODE_SWITCH]


def test_switching_keeps_a_pending_streak_so_the_next_failed_round_suspends() -> None:
    t = Timeline(mode=OBSERVE)
    t.round({BAD: "fail"})
    t.mode = ENFORCE
    [d] = actions(t.round({BAD: "fail"}), Action.SUSPEND)
    assert d.rule is Rule.FAILED_STREAK and d.rung == 1


def test_switching_keeps_the_ladder_so_a_repeat_offender_keeps_its_rung() -> None:
    t = Timeline(mode=OBSERVE)
    t.rounds(2, {BAD: "fail"})
    assert actions(t.rounds(2), Action.RESTORE)
    t.round({BAD: "fail"})
    t.mode = ENFORCE
    [d] = actions(t.round({BAD: "fail"}), Action.SUSPEND)
    assert d.rung == 2 and d.rule is Rule.FAILED_STREAK


def test_a_record_restored_by_the_switching_round_is_not_enforced() -> None:
    t = Timeline(mode=OBSERVE)
    t.rounds(2, {BAD: "fail"})
    t.round()
    t.mode = ENFORCE
    decisions = t.round()
    assert actions(decisions, Action.RESTORE) and not actions(decisions, Action.SUSPEND) and t.ignore() == []


def test_a_record_observed_for_its_contracts_stays_observed_after_the_switch() -> None:
    t = Timeline(mode=OBSERVE)
    fidelity = {"extra_cases": [case(p, FIDELITY, "fail" if p == BAD else "pass") for p in PROVIDERS]}
    t.rounds(2, {}, **fidelity)
    assert t.suspension(BAD).contracts == (FIDELITY,)  # type: ignore[union-attr]
    t.mode = ENFORCE
    assert not actions(t.round(), Action.SUSPEND) and t.ignore() == []
    assert t.suspension(BAD).mode == OBSERVE  # type: ignore[union-attr]


def test_a_record_written_before_its_contracts_were_kept_is_enforced_only_without_observed_contracts() -> None:
    for observed, enforced in ((Policy().observe_contracts, False), ((), True)):
        t = Timeline(mode=OBSERVE, policy=replace(Policy(), observe_contracts=observed))
        t.rounds(2, {BAD: "fail"})
        ps = t.state.provider(MODEL, BAD)
        t.state = t.state.with_provider(MODEL, BAD, replace(ps, suspension=replace(ps.suspension, contracts=())))
        t.mode = ENFORCE
        assert bool(actions(t.round(), Action.SUSPEND)) is enforced


def test_the_switch_weighs_the_capacity_floor_again() -> None:
    """Exclusions added since the record was made: enforcing it now would leave too few hosts."""
    t = Timeline(mode=OBSERVE, policy=Policy(capacity_floor=4))
    t.rounds(2, {BAD: "fail"})
    t.excluded = {MODEL: frozenset({PROVIDERS[4]})}
    t.mode = ENFORCE
    assert not actions(t.round({BAD: "fail"}), Action.SUSPEND) and t.ignore() == []
    assert t.suspension(BAD).mode == OBSERVE  # type: ignore[union-attr]
    t.excluded = {}
    [d] = actions(t.round({BAD: "fail"}), Action.SUSPEND)
    assert d.rule is Rule.MODE_SWITCH


def test_enforce_records_keep_running_in_observe_mode() -> None:
    t = Timeline(mode=ENFORCE)
    t.rounds(2, {BAD: "fail"})
    t.mode = OBSERVE
    t.round({BAD: "fail"})
    assert t.ignore() == [BAD]

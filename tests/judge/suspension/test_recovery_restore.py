"""Recovery: suspended hosts keep being probed; two clean rounds restore; expiry ends it too."""

from __future__ import annotations

from datetime import timedelta

from rules_factories import DAY, PROVIDERS, Timeline, actions

from judge.suspension.decisions import Action, Rule

BAD = PROVIDERS[0]


def _suspended() -> Timeline:
    t = Timeline()
    t.rounds(2, {BAD: "fail"})
    assert t.suspension(BAD) is not None
    return t


def test_two_clean_rounds_in_a_row_restore_early() -> None:
    t = _suspended()
    assert t.round() == []
    [d] = t.round()
    assert (d.action, d.rule, d.provider) == (Action.RESTORE, Rule.CLEAN_STREAK, BAD)
    assert t.suspension(BAD) is None and t.ignore() == []


def test_frozen_rounds_between_clean_rounds_are_skipped() -> None:
    t = _suspended()
    t.round()
    t.round({BAD: "transport_error"})
    assert actions(t.round(), Action.RESTORE)


def test_a_failed_round_resets_the_clean_streak() -> None:
    t = _suspended()
    t.round()
    t.round({BAD: "fail"})
    t.round()
    assert t.suspension(BAD) is not None


def test_a_suspension_ends_at_its_expiry_and_old_evidence_does_not_renew_it() -> None:
    t = _suspended()
    t.round({BAD: "transport_error"}, after=DAY)
    [d] = actions(t.log, Action.EXPIRED)
    assert (d.rule, d.provider) == (Rule.EXPIRY, BAD)
    assert t.suspension(BAD) is None


def test_a_suspension_is_still_enforced_just_before_expiry() -> None:
    t = _suspended()
    t.round({BAD: "transport_error"}, after=DAY - timedelta(seconds=1))
    assert t.ignore() == [BAD]

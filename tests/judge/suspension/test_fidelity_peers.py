"""Fidelity against the peers: a host fails only where the other hosts of its model answer right."""

from __future__ import annotations

from core.results import AttemptResult, CaseResult
from core.vocabulary import FIDELITY, Outcome
from judge.replies.fidelity import FidelityCode, make_items
from judge.replies.verdict import Common
from judge.suspension.fidelity import judge_fidelity

KINDS = tuple(item.kind for item in make_items(0))   # the item kinds, in the prompt's order

P, F = Outcome.PASS, Outcome.FAIL


def fidelity(provider: str, right: str, *confirmations: str) -> CaseResult:
    """A fidelity case whose items are right where `right` has a 1 (KINDS order); after an anomaly,
    the probe's confirmations, each a string like `right` ("" for a reply that scored nothing)."""
    def reply(marks: str) -> AttemptResult:
        items = tuple((k, P if r == "1" else F) for k, r in zip(KINDS, marks, strict=True)) if marks else ()
        outcome = P if marks and 2 * marks.count("1") >= len(marks) else Outcome.INCONCLUSIVE
        code = Common.PASS if outcome is P else FidelityCode.FIDELITY_UNJUDGED
        return AttemptResult(outcome=outcome, code=code, reason="probe", items=items)

    attempts = tuple(map(reply, (right, *confirmations)))
    outcome = P if sum(a.outcome is P for a in attempts) * 2 > len(attempts) else Outcome.INCONCLUSIVE
    code = Common.PASS if outcome is P else FidelityCode.FIDELITY_UNJUDGED
    return CaseResult(model="m/x", provider=provider, contract=FIDELITY, outcome=outcome, code=code, reason="probe",
                      attempts=attempts)


def judged(*cases: CaseResult) -> dict[str, CaseResult]:
    return {c.provider: c for c in judge_fidelity(cases)}


def test_a_host_wrong_on_most_items_while_its_peers_are_right_fails() -> None:
    out = judged(fidelity("bad", "00000"), fidelity("a", "11111"), fidelity("b", "11111"), fidelity("c", "11110"))
    assert out["bad"].outcome is F and out["bad"].reason.startswith("fidelity: wrong answers: 0 of 5")
    assert out["bad"].code == FidelityCode.FIDELITY_WRONG
    assert out["a"].outcome is P


def test_an_item_type_no_peer_can_do_is_dropped_and_reads_inconclusive() -> None:
    # Nobody gets the calendar item (index 3): it says nothing about anyone.
    out = judged(fidelity("x", "11101"), fidelity("a", "11101"), fidelity("b", "11101"))
    items = dict(out["x"].attempts[0].items)
    assert items["calendar"] is Outcome.INCONCLUSIVE and out["x"].outcome is P
    assert "dropped, no peer right: calendar" in out["x"].reason


def test_when_the_peers_are_as_wrong_the_host_is_not_failed() -> None:
    out = judged(fidelity("x", "10000"), fidelity("a", "11000"), fidelity("b", "10100"))
    assert out["x"].outcome is Outcome.INCONCLUSIVE and out["x"].code == FidelityCode.FIDELITY_AS_PEERS


def test_when_no_peer_answers_anything_right_the_case_is_not_applicable() -> None:
    out = judged(fidelity("x", "00000"), fidelity("a", "00000"), fidelity("b", "00000"))
    assert out["x"].outcome is Outcome.NOT_APPLICABLE and out["x"].code == Common.NOT_APPLICABLE


def test_a_single_peer_is_too_few_to_judge_by() -> None:
    out = judged(fidelity("x", "00000"), fidelity("a", "11111"))
    assert out["x"].outcome is Outcome.INCONCLUSIVE and out["x"].reason == "probe"


def test_a_few_wrong_items_are_not_significant_against_the_peers() -> None:
    # 3 of 5 wrong vs the peers' 1 of 10: one-sided Fisher p = 0.077, not below 0.05: not a defect yet.
    out = judged(fidelity("x", "11000"), fidelity("a", "11111"), fidelity("b", "11110"))
    assert out["x"].outcome is Outcome.INCONCLUSIVE and "p = 0.077" in out["x"].reason


def test_other_contracts_pass_through_untouched() -> None:
    other = CaseResult(model="m/x", provider="a", contract="language", outcome=F, code="repetition", reason="x")
    assert judge_fidelity([other]) == (other,)


def test_a_mostly_wrong_reply_its_confirmations_outvote_is_the_models_slip_not_the_hosts() -> None:
    # The real-shapes fleet week would-suspended a healthy host whose chance 3-of-5-wrong replies
    # (a model's own slips, on every host alike) fell in two rounds a frozen round apart.
    peers = (fidelity("a", "11111"), fidelity("b", "11111"), fidelity("c", "11110"))
    out = judged(fidelity("slip", "00011", "11111", "11111"), *peers)
    assert out["slip"].outcome is P, out["slip"].reason
    assert out["slip"].reason.startswith("fidelity: 12 of 15 items right")


def test_confirmed_wrong_replies_fail_with_every_replys_items_counted() -> None:
    peers = (fidelity("a", "11111"), fidelity("b", "11111"), fidelity("c", "11110"))
    out = judged(fidelity("bad", "00000", "10000", "11111"), *peers)
    assert out["bad"].outcome is F and out["bad"].reason.startswith("fidelity: wrong answers: 6 of 15")
    assert len(out["bad"].attempts) == 3 and all(a.items for a in out["bad"].attempts)


def test_a_tie_among_the_replies_is_inconclusive() -> None:
    peers = (fidelity("a", "11111"), fidelity("b", "11111"))
    out = judged(fidelity("torn", "00000", "11111", ""), *peers)
    assert out["torn"].outcome is Outcome.INCONCLUSIVE
    assert out["torn"].reason.startswith("fidelity: anomaly unresolved")

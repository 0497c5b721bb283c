"""Evidence against peers (issue 10): the rolling window, the cards, and the order under the floor."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from rules_factories import MODEL, PROVIDERS, T0, Timeline, actions, case, report, results

from core.policy import Policy
from core.results_read import read_results
from judge.suspension.card import ALPHA, make_card
from judge.suspension.decisions import Action
from judge.suspension.evidence import add_round_to_windows, decision_cards
from judge.suspension.rules import apply_round
from judge.suspension.short_replies import judge_short_replies
from judge.suspension.state import JudgeState
from judge.suspension.window import WINDOW_ROUNDS, Tally, Window, decode, encode, tally_codes

L = {"latency": "fail"}


def attempts(*codes: str, **extra: Any) -> list[dict[str, Any]]:
    outcome = {"p": "pass", "f": "fail", "t": "transport_error", "i": "inconclusive"}
    return [{"outcome": outcome[c], "finish_reason": "stop", **extra} for c in codes]


def with_attempts(doc: dict[str, Any], provider: str, contract: str, codes: str, **extra: Any) -> dict[str, Any]:
    for c in doc["cases"]:
        if c["provider"] == provider and c["contract"] == contract:
            c["attempts"] = attempts(*codes, **extra)
            c["outcome"] = "fail" if codes.count("f") * 2 > len(codes) else c["outcome"]
    return doc


# -- the window -------------------------------------------------------------------------------

def test_a_window_keeps_the_newest_48_rounds_aligned_across_contracts() -> None:
    w = Window()
    for i in range(60):
        w = w.push({"latency": "p", "language": "ffp" if i % 2 else "p"})
    w = w.push({"latency": "t"})  # language not probed this round: an empty segment keeps the alignment
    assert w.rounds == WINDOW_ROUNDS
    assert len(w.contracts["latency"]) == len(w.contracts["language"]) == WINDOW_ROUNDS
    assert w.contracts["language"][-1] == "" and w.tally("latency").transport_errors == 1
    assert w.tally("language") == tally_codes(w.contracts["language"])


def test_a_contract_that_left_the_window_is_forgotten() -> None:
    w = Window().push({"structured": "f", "latency": "p"})
    for _ in range(WINDOW_ROUNDS):
        w = w.push({"latency": "p"})
    assert set(w.contracts) == {"latency"}


def test_transport_errors_inconclusive_and_short_replies_are_kept_apart() -> None:
    t = tally_codes(["ffp", "t", "i", "s", ""])
    assert (t.failures, t.passes, t.attempts, t.transport_errors, t.inconclusive, t.short, t.rounds) == \
        (2, 2, 4, 1, 1, 1, 4)


def test_the_window_codec_round_trips_and_refuses_unknown_codes() -> None:
    w = Window().push({"latency": "p", "language": "ffp"}).push({"latency": "t"})
    assert encode(w) == {"language": "ffp.", "latency": "p.t"}
    assert decode(encode(w)) == w
    with pytest.raises(ValueError, match="unknown attempt code"):
        decode({"latency": "p.x"})
    with pytest.raises(ValueError, match="same number of rounds"):
        decode({"latency": "p.p", "language": "p"})


def test_the_window_is_bounded_over_a_month_of_rounds() -> None:
    t = Timeline()
    t.rounds(30 * 48, {"aurora/fp8": {"language": "inconclusive"}})
    window = t.state.provider(MODEL, "aurora/fp8").window
    assert window.rounds == WINDOW_ROUNDS
    assert window.tally("language") == Tally(inconclusive=WINDOW_ROUNDS, rounds=WINDOW_ROUNDS)


# -- what a round adds ------------------------------------------------------------------------

def record(doc: dict[str, Any], state: JudgeState | None = None, policy: Policy | None = None) -> JudgeState:
    return add_round_to_windows(state or JudgeState(), read_results(doc), policy or Policy())


def test_every_attempt_is_one_code_and_the_other_probes_replies_are_refusal_evidence() -> None:
    doc = with_attempts(results(), "aurora/fp8", "language", "ffp", refusal="pass")
    doc = with_attempts(doc, "aurora/fp8", "latency", "p", refusal="fail")
    window = record(doc).provider(MODEL, "aurora/fp8").window
    assert window.contracts["language"] == ("ffp",)
    assert window.contracts["latency"] == ("p",)
    assert sorted(window.contracts["refusal"][0]) == sorted("ppppf")  # its own reply + 4 checked replies


def test_controls_and_not_applicable_cases_are_not_evidence() -> None:
    doc = results({"borealis/bf16": {"structured": "not_applicable"}},
                  extra_cases=[case("cirrus/fp8", "refusal", "pass", control=True)])
    doc["cases"] = [c for c in doc["cases"] if not (c["provider"] == "cirrus/fp8" and c["contract"] == "refusal"
                                                    and not c["control"])]
    state = record(doc)
    assert "structured" not in state.provider(MODEL, "borealis/bf16").window.contracts
    assert "refusal" not in state.provider(MODEL, "cirrus/fp8").window.contracts


def test_a_weak_probes_refusal_passes_are_recorded_as_inconclusive() -> None:
    weak = [{"model": MODEL, "contract": "refusal", "control": "ember/fp8", "reason": "passed"}]
    doc = results({"aurora/fp8": {"refusal": "fail"}}, weak_probes=weak)
    state = record(doc)
    assert state.provider(MODEL, "borealis/bf16").window.contracts["refusal"] == ("i",)
    assert state.provider(MODEL, "aurora/fp8").window.contracts["refusal"] == ("f",)  # failures stand


def test_a_rerun_sooner_than_the_minimum_gap_adds_nothing() -> None:
    t = Timeline()
    t.round({"aurora/fp8": L})
    t.round({"aurora/fp8": L}, after=timedelta(minutes=5))
    assert t.state.provider(MODEL, "aurora/fp8").window.contracts["latency"] == ("f",)
    t.round({"aurora/fp8": L})
    assert t.state.provider(MODEL, "aurora/fp8").window.contracts["latency"] == ("f", "f")


def test_frozen_rounds_enter_the_window_with_their_transport_errors() -> None:
    t = Timeline()
    t.round({"aurora/fp8": "transport_error"})
    assert t.state.provider(MODEL, "aurora/fp8").window.tally("structured") == Tally(transport_errors=1, rounds=1)


# -- the cards --------------------------------------------------------------------------------

def test_the_issues_example_reads_as_written() -> None:
    card = make_card("language", Tally(failures=19, passes=1, rounds=20), Tally(passes=49, rounds=49), 14)
    assert card.text == "language: 19/20 failed (0.76-0.99) vs peers 0/49 (0-0.07), p < 1e-12"
    assert card.significant and card.p_value is not None and card.p_value < 1e-12
    assert card.interval == (0.7639, 0.9911)  # Wilson, not Clopper-Pearson


def test_a_card_without_peer_replies_says_so_and_is_not_significant() -> None:
    card = make_card("latency", Tally(failures=2, rounds=2), Tally(), 0)
    assert card.p_value is None and not card.significant
    assert card.text == "latency: 2/2 failed (0.34-1) vs no peer replies to compare with"


def test_a_suspension_carries_the_card_of_the_contracts_it_failed() -> None:
    t = Timeline()
    t.round({"aurora/fp8": {"language": "fail", "latency": "transport_error"}})
    [decision] = actions(t.round({"aurora/fp8": {"language": "fail"}}), Action.SUSPEND)
    [card] = decision.card
    assert (card.contract, card.failures, card.attempts, card.peer_failures, card.peer_attempts, card.peers) == \
        ("language", 2, 2, 0, 8, 4)
    assert not decision.weak_evidence and card.p_value == pytest.approx(1 / 45)


def test_a_host_failing_like_its_peers_is_suspended_on_weak_evidence() -> None:
    t = Timeline()
    # Every host fails latency now and then, never twice in a row but aurora's last two rounds.
    for other in PROVIDERS[1:] * 2:
        t.round({other: L})
    decisions = t.rounds(2, {"aurora/fp8": L})
    [decision] = actions(decisions, Action.SUSPEND)
    assert decision.weak_evidence and not decision.card[0].significant
    assert decision.card[0].p_value is not None and decision.card[0].p_value >= ALPHA


def test_a_restore_carries_the_card_of_the_failures_still_in_the_window() -> None:
    t = Timeline()
    t.rounds(2, {"aurora/fp8": {"structured": "fail"}})
    [restore] = actions(t.rounds(2), Action.RESTORE)
    assert [(c.contract, c.failures, c.attempts) for c in restore.card] == [("structured", 2, 4)]
    assert not restore.weak_evidence  # only openings are flagged


# -- the order under the floor ----------------------------------------------------------------

def test_under_the_floor_the_strongest_evidence_goes_first_not_the_longest_streak() -> None:
    five = PROVIDERS
    t = Timeline(providers=five, policy=Policy(capacity_floor=4), excluded={MODEL: frozenset({"ember/fp8"})})
    t.round({"cirrus/fp8": L})
    t.round({"dune/fp16": L})
    t.round({"aurora/fp8": L, "cirrus/fp8": L})
    t.round({"aurora/fp8": L, "dune/fp16": L})               # aurora: 2 in a row, held (ember excluded)
    t.round({"aurora/fp8": L, "cirrus/fp8": L, "borealis/bf16": "fail"})
    t.excluded = {}                                           # room for exactly one suspension
    decisions = t.round({"aurora/fp8": L, "dune/fp16": L, "borealis/bf16": "fail"})
    # aurora has the longer streak (4 vs 2) and sorts first, but fails latency like cirrus and dune
    # do; borealis is the only host failing structured: its evidence is the stronger.
    assert [(d.action, d.provider) for d in decisions] == [
        (Action.SUSPEND, "borealis/bf16"), (Action.FLOOR_HELD, "aurora/fp8")]
    suspended, held = decisions
    assert suspended.card[0].p_value < held.card[0].p_value  # type: ignore[operator]
    assert held.weak_evidence and not suspended.weak_evidence


# -- truncated replies ------------------------------------------------------------------------

def refusal_round(lengths: dict[str, list[int]], outcome: str = "pass") -> list[Any]:
    doc = results()
    for c in doc["cases"]:
        if c["contract"] == "refusal":
            c["attempts"] = [{"outcome": outcome, "finish_reason": "stop", "chars": n} for n in lengths[c["provider"]]]
    return [c for c in read_results(doc).cases if c.model == MODEL]


def test_a_host_short_in_every_confirmation_and_against_its_peers_fails() -> None:
    lengths = {p: [600] for p in PROVIDERS} | {"aurora/fp8": [25, 31, 28]}
    judged = {c.provider: c for c in judge_short_replies(refusal_round(lengths)) if c.contract == "refusal"}
    assert judged["aurora/fp8"].outcome == "fail" and "truncated replies: 3 of 3" in judged["aurora/fp8"].reason
    assert all(a.outcome == "fail" and a.short for a in judged["aurora/fp8"].attempts)
    assert all(judged[p].outcome == "pass" for p in PROVIDERS[1:])


@pytest.mark.parametrize("aurora", [[25], [25, 31, 580]], ids=["one-short-reply", "not-repeated"])
def test_a_short_reply_that_does_not_repeat_is_evidence_only(aurora: list[int]) -> None:
    lengths = {p: [600] for p in PROVIDERS} | {"aurora/fp8": aurora}
    judged = {c.provider: c for c in judge_short_replies(refusal_round(lengths)) if c.contract == "refusal"}
    assert judged["aurora/fp8"].outcome == "pass"
    assert judged["aurora/fp8"].attempts[0].short


def test_short_replies_need_peers_to_be_short_against() -> None:
    lengths = {p: [600] for p in PROVIDERS} | {"aurora/fp8": [25, 31, 28]}
    cases = [c for c in refusal_round(lengths) if c.provider in ("aurora/fp8", "borealis/bf16", "cirrus/fp8")]
    assert judge_short_replies(cases) == tuple(cases)


@pytest.mark.parametrize("short, codes", [([25, 31, 28], "fff"), ([40], "s")], ids=["failed", "evidence-only"])
def test_a_short_reply_is_an_s_in_the_window_and_a_failed_one_an_f(short: list[int], codes: str) -> None:
    doc = results()
    for c in doc["cases"]:
        if c["contract"] == "refusal":
            n = short if c["provider"] == "aurora/fp8" else [600]
            c["attempts"] = [{"outcome": "pass", "finish_reason": "stop", "chars": k} for k in n]
    assert record(doc).provider(MODEL, "aurora/fp8").window.contracts["refusal"] == (codes,)


# -- idempotence ------------------------------------------------------------------------------

def test_reapplying_a_round_changes_no_window() -> None:
    doc = with_attempts(results(at=T0), "aurora/fp8", "language", "ffp", refusal="pass")
    state, _ = apply_round(JudgeState(), read_results(doc), Policy(mode="enforce"), now=T0)
    again, decisions = apply_round(state, read_results(doc), Policy(mode="enforce"), now=T0)
    assert again == state and decisions == []


def test_decision_cards_cover_the_window_when_nothing_failed_this_round() -> None:
    state = JudgeState()
    state, _ = apply_round(state, report({"aurora/fp8": L}, at=T0), Policy(mode="enforce"), now=T0)
    [card] = decision_cards(state, MODEL, "aurora/fp8")
    assert card.contract == "latency" and card.failures == 1

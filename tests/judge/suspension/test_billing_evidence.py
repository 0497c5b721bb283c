"""Billing honesty in the judge (issue 22): a hidden system prompt against the peers' prompt tokens
(judge/suspension/prompt_tokens.py), streams without usage counted against peers over the window
and never failed in one round, and billed against listed kept per endpoint for the status page."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from rules_factories import MODEL, PROVIDERS, T0, results

from core.field_rules import written
from core.policy import Policy
from core.results_read import read_results
from core.vocabulary import Outcome
from judge.suspension.billing_window import BillingWindow, decode, encode
from judge.suspension.evidence import USAGE, add_round_to_windows, card_for
from judge.suspension.prompt_tokens import judge_prompt_tokens
from judge.suspension.round import RoundClass, classify_round
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState, read_state

HIDDEN = "aurora/fp8"


def doc(prompt: dict[str, int] | None = None, *, usage: dict[str, bool] | None = None,
        billed: float = 1.0, at: Any = T0) -> dict[str, Any]:
    """Every provider passes every contract with one attempt; `prompt` sets a provider's prompt tokens
    (others 60), `usage` whether its streams carried usage, `billed` its billed / listed."""
    d = results(at=at)
    for c in d["cases"]:
        p = c["provider"]
        reported = (usage or {}).get(p, True)
        attempt: dict[str, Any] = {"outcome": "pass", "reason": "ok", "finish_reason": "stop",
                                   "usage_reported": reported}
        if reported:
            attempt.update(prompt_tokens=(prompt or {}).get(p, 60), billed_usd=0.00002 * billed, listed_usd=0.00002)
        c["attempts"] = [attempt]
    return d


def test_a_host_counting_far_more_prompt_tokens_than_its_peers_fails_its_cases_with_the_figures() -> None:
    rounds = classify_round(read_results(doc({HIDDEN: 460})), Policy())[MODEL]
    assert rounds.providers[HIDDEN].klass is RoundClass.FAILED
    failed = [e for e in rounds.providers[HIDDEN].evidence if e.outcome == Outcome.FAIL]
    assert {e.contract for e in failed} == {"latency", "refusal", "language"}  # structured is left out
    assert all(e.code == "hidden_prompt" for e in failed)
    assert "460 prompt tokens for the identical prompt against the other hosts' median 60 (4 hosts" in failed[0].reason
    assert all(rounds.providers[p].klass is RoundClass.CLEAN for p in PROVIDERS if p != HIDDEN)


def test_a_template_difference_passes_both_thresholds_are_needed() -> None:
    # +40 tokens (a default system line) on a short prompt: a large ratio, too few tokens.
    assert classify_round(read_results(doc({HIDDEN: 100})), Policy())[MODEL].providers[HIDDEN].klass is RoundClass.CLEAN
    # +70 tokens on a long prompt: enough tokens, too small a ratio.
    long = {p: 900 for p in PROVIDERS} | {HIDDEN: 970}
    assert classify_round(read_results(doc(long)), Policy())[MODEL].providers[HIDDEN].klass is RoundClass.CLEAN


def test_without_enough_peers_or_prompt_tokens_nothing_is_judged() -> None:
    two = read_results(doc({HIDDEN: 900}))
    cases = [c for c in two.cases if c.provider in (HIDDEN, "borealis/bf16")]
    assert judge_prompt_tokens(cases) == tuple(cases)  # one peer: no median to speak of
    older = read_results(results())  # a results file without per-attempt prompt tokens
    assert judge_prompt_tokens(older.cases) == older.cases


def test_two_rounds_with_a_hidden_prompt_are_the_streak_rule_s_suspension() -> None:
    state, decisions = apply_round(JudgeState(), read_results(doc({HIDDEN: 460})), Policy(), now=T0)
    assert state.provider(MODEL, HIDDEN).failed_streak == 1
    later = T0 + timedelta(minutes=30)
    state, decisions = apply_round(state, read_results(doc({HIDDEN: 460}, at=later)), Policy(),
                                   now=later + timedelta(minutes=5))
    assert [d.provider for d in decisions if d.action.value in ("suspend", "would_suspend")] == [HIDDEN]


def test_streams_without_usage_never_fail_a_round_and_show_on_their_card_against_peers() -> None:
    state = JudgeState()
    for i in range(6):
        at = T0 + i * timedelta(minutes=30)
        report = read_results(doc(usage={HIDDEN: False}, at=at))
        assert classify_round(report, Policy())[MODEL].providers[HIDDEN].klass is RoundClass.CLEAN
        state, decisions = apply_round(state, report, Policy(), now=at + timedelta(minutes=5))
        assert state.provider(MODEL, HIDDEN).failed_streak == 0
    card = card_for(state, MODEL, HIDDEN, USAGE)
    assert (card.failures, card.attempts, card.peer_failures, card.peer_attempts) == (24, 24, 0, 96)
    assert card.significant and card.text.startswith("stream_usage: 24/24 failed")
    assert not card_for(state, MODEL, "borealis/bf16", USAGE).significant


def test_billed_against_listed_is_kept_per_endpoint_and_survives_the_state_file() -> None:
    state = add_round_to_windows(JudgeState(), read_results(doc(billed=1.5)), Policy())
    billing = state.provider(MODEL, HIDDEN).billing
    assert billing.ratio == 1.5 and billing.listed_usd == 0.00008  # 4 replies of $0.00002 listed
    again = read_state(written(state), "state")
    assert again.provider(MODEL, HIDDEN).billing == billing
    unbilled = written(add_round_to_windows(JudgeState(), read_results(results()), Policy()))
    assert "billing" not in unbilled["models"].get(MODEL, {}).get(HIDDEN, {})


def test_the_billing_window_is_bounded_and_refuses_what_it_did_not_write() -> None:
    w = BillingWindow()
    for _ in range(60):
        w = w.push(0.00003, 0.00002)
    assert len(w.rounds) == 48 and decode(encode(w)) == w and w.ratio == 1.5
    assert decode("") == BillingWindow()
    for bad in ("1:2.x", "12", 5):
        try:
            decode(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was accepted")


def test_a_hosts_own_tool_template_is_not_a_hidden_prompt() -> None:
    # Each host renders tool schemas with its own chat template (one tool on Bedrock: 577 prompt
    # tokens); the tools contract is left out of the comparison, as structured is (issue 28, N7).
    d = doc()
    for c in list(d["cases"]):
        if c["contract"] == "latency":
            tools = {**c, "contract": "tools"}
            tools["attempts"] = [{**c["attempts"][0], "prompt_tokens": 900 if c["provider"] == HIDDEN else 300}]
            d["cases"].append(tools)
    cases = read_results(d).cases
    judged = judge_prompt_tokens(cases)
    assert [c for c in judged if c.contract == "tools"] == [c for c in cases if c.contract == "tools"]
    assert all(c.outcome == Outcome.PASS for c in judged)

"""Decode speed against the peers and the endpoint's advertised throughput (judge/suspension/decode_speed.py)."""

from __future__ import annotations

from typing import Any

import pytest
from rules_factories import HALF_HOUR, MODEL, PROVIDERS, T0, actions, results

from core.policy import Policy
from core.results_read import read_results
from core.vocabulary import Outcome
from judge.suspension.decisions import Action
from judge.suspension.decode_speed import DECODE, decode_codes, judge_decode_speed
from judge.suspension.evidence import add_round_to_windows
from judge.suspension.round import RoundClass, classify_round
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState

SLOW = "aurora/fp8"
# Every host advertises 120 tokens/s at p50 and 48 at its slowest percentile (the simulator's shape).
ADVERTISED = {"advertised_p50_tps": 120.0, "advertised_slowest_tps": 48.0}


def with_speeds(doc: dict[str, Any], speeds: dict[str, float | None], *,
                advertised: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every case one passing attempt whose decode speed is its provider's (default 100 tokens/s)."""
    for c in doc["cases"]:
        tps = speeds.get(c["provider"], 100.0)
        extra = {"decode_tps": tps} if tps is not None else {}
        c["attempts"] = [{"outcome": c["outcome"], "finish_reason": "stop", "total_s": 3.0, "ttft_s": 0.4,
                          **extra, **(ADVERTISED if advertised is None else advertised)}]
    return doc


def cases(speeds: dict[str, float | None], **kw: Any) -> tuple[Any, ...]:
    return read_results(with_speeds(results(), speeds, **kw)).cases


def latency(judged: tuple[Any, ...], provider: str) -> Any:
    return next(c for c in judged if c.provider == provider and c.contract == "latency")


def test_a_crawl_far_below_the_peers_and_its_own_advertising_fails_its_latency_case() -> None:
    judged = judge_decode_speed(cases({SLOW: 2.0}))
    slow = latency(judged, SLOW)
    assert slow.outcome == Outcome.FAIL
    assert slow.reason.startswith("decode speed: 2.0 tokens/s after the first token (median of 4 replies)")
    assert "median 100 tokens/s (4 hosts)" in slow.reason and "p50 120" in slow.reason
    assert all(c.outcome == Outcome.PASS for c in judged if c.provider != SLOW)


def test_slow_against_the_peers_but_as_fast_as_it_advertises_is_an_honest_host() -> None:
    # A 15 tokens/s host beside 100 tokens/s ones, advertising 15: slower hardware, not a defect.
    judged = judge_decode_speed(cases({SLOW: 15.0}, advertised={"advertised_p50_tps": 15.0,
                                                                "advertised_slowest_tps": 6.0}))
    assert latency(judged, SLOW).outcome == Outcome.PASS


def test_slow_against_its_advertising_but_not_against_the_peers_fails_nothing() -> None:
    # Everyone decodes at 10 tokens/s today while advertising 120: stale figures, not one host.
    judged = judge_decode_speed(cases(dict.fromkeys(PROVIDERS, 10.0)))
    assert all(c.outcome == Outcome.PASS for c in judged)


def test_without_advertised_figures_or_enough_peers_nothing_fails() -> None:
    judged = judge_decode_speed(cases({SLOW: 2.0}, advertised={}))
    assert latency(judged, SLOW).outcome == Outcome.PASS
    two = read_results(with_speeds(results(providers=PROVIDERS[:2]), {SLOW: 2.0})).cases
    assert latency(judge_decode_speed(two), SLOW).outcome == Outcome.PASS  # one peer is no median


def test_one_slow_reply_is_not_a_slow_endpoint() -> None:
    doc = with_speeds(results(), {SLOW: None})
    for c in doc["cases"]:
        if c["provider"] == SLOW and c["contract"] == "refusal":
            c["attempts"][0]["decode_tps"] = 2.0
    assert latency(judge_decode_speed(read_results(doc).cases), SLOW).outcome == Outcome.PASS


def test_a_latency_case_that_failed_on_its_own_keeps_its_reason() -> None:
    doc = with_speeds(results({SLOW: {"latency": "fail"}}), {SLOW: 2.0})
    slow = latency(judge_decode_speed(read_results(doc).cases), SLOW)
    assert slow.reason == "latency fail"


def test_the_decode_evidence_is_one_code_per_measured_reply() -> None:
    codes = decode_codes(cases({SLOW: 2.0}))
    assert codes[SLOW] == "ffff" and codes["borealis/bf16"] == "pppp"
    window = add_round_to_windows(JudgeState(), read_results(with_speeds(results(), {SLOW: 2.0})),
                          Policy()).provider(MODEL, SLOW).window
    assert window.contracts[DECODE] == ("ffff",)


def test_the_round_is_failed_and_two_of_them_suspend_with_the_decode_card() -> None:
    policy = Policy()
    rounds = classify_round(read_results(with_speeds(results(), {SLOW: 2.0})), policy)
    assert rounds[MODEL].providers[SLOW].klass is RoundClass.FAILED
    state, decisions = JudgeState(), []
    for i in range(2):
        at = T0 + i * HALF_HOUR
        state, decisions = apply_round(state, read_results(with_speeds(results(at=at), {SLOW: 2.0})), policy, now=at)
    [decision] = actions(decisions, Action.WOULD_SUSPEND)
    assert [c.contract for c in decision.card] == ["latency", DECODE]
    decode = decision.card[1]
    assert (decode.failures, decode.attempts, decode.peer_failures, decode.peer_attempts) == (8, 8, 0, 32)
    assert decode.significant and not decision.weak_evidence


@pytest.mark.parametrize("speed", [60.0, 30.0])
def test_a_healthy_spread_of_speeds_fails_nobody(speed: float) -> None:
    speeds = dict(zip(PROVIDERS, (speed, 80.0, 100.0, 140.0, 260.0), strict=True))
    assert all(c.outcome == Outcome.PASS for c in judge_decode_speed(cases(speeds)))


def test_peers_failing_their_own_latency_case_are_set_aside_from_the_reference() -> None:
    # Two peers report 30x the tokens they sent (their latency cases fail on limits): counted, their
    # tokens/s would put the peers' median at 1,550 and an honest 100 tokens/s host under a fifth of it.
    fast = {"advertised_p50_tps": 2000.0, "advertised_slowest_tps": 2000.0}
    doc = with_speeds(results(), {"cirrus/fp8": 3000.0, "dune/fp16": 3000.0}, advertised=fast)
    for c in doc["cases"]:
        if c["provider"] in ("cirrus/fp8", "dune/fp16") and c["contract"] == "latency":
            c["outcome"], c["reason"] = "fail", "limits: completion tokens above the cap"
    judged = judge_decode_speed(read_results(doc).cases)
    assert latency(judged, SLOW).outcome == Outcome.PASS
    # The same peers passing: the reference is theirs, and the honest host is slow beside them.
    counted = with_speeds(results(), {"cirrus/fp8": 3000.0, "dune/fp16": 3000.0}, advertised=fast)
    assert latency(judge_decode_speed(read_results(counted).cases), SLOW).outcome == Outcome.FAIL

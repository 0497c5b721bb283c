"""Host reliability against peers (judge/suspension/reliability.py): the evidence always, the rule opt-in."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules_factories import HALF_HOUR, MODEL, PROVIDERS, T0, actions, case, results

from core.policy import Policy
from core.results_read import read_results
from judge.suspension.decisions import Action
from judge.suspension.evidence import card_for
from judge.suspension.reliability import RELIABILITY, reliability_codes
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState

FLAKY = "aurora/fp8"
OTHER = "acme/other-model"


def with_errors(doc: dict[str, Any], errors: dict[str, dict[str, str]]) -> dict[str, Any]:
    """Each case one attempt; a provider's `errors` maps contract -> error_kind (a transport error)."""
    for c in doc["cases"]:
        kind = errors.get(c["provider"], {}).get(c["contract"])
        if kind:
            c["outcome"], c["reason"] = "transport_error", f"transport: {kind}"
        c["attempts"] = [{"outcome": c["outcome"], "error_kind": kind, "finish_reason": None if kind else "stop"}]
    return doc


def doc(errors: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return with_errors(results(**kw), errors)


def test_a_cut_stream_or_an_error_in_a_200_is_a_host_error_other_transport_errors_are_apart() -> None:
    codes = reliability_codes(read_results(doc({FLAKY: {"latency": "stream_cut", "refusal": "error_body_200",
                                                        "language": "http_429"}})))
    assert codes[MODEL][FLAKY] == "tffp"   # sorted by contract: language, latency, refusal, structured
    assert codes[MODEL]["borealis/bf16"] == "pppp"


def test_positive_controls_are_not_evidence() -> None:
    d = doc({}, extra_cases=[case("ember/fp8", "refusal", "transport_error", control=True)])
    d["cases"][-1]["attempts"] = [{"outcome": "transport_error", "error_kind": "stream_cut"}]
    assert "f" not in reliability_codes(read_results(d))[MODEL]["ember/fp8"]


def test_errors_on_most_of_a_models_endpoints_count_against_nobody() -> None:
    errors = {p: {"latency": "stream_cut"} for p in PROVIDERS[:3]}
    codes = reliability_codes(read_results(doc(errors)))[MODEL]
    assert all("f" not in c for c in codes.values()) and codes[FLAKY].count("i") == 1


def test_errors_across_most_of_the_upstream_count_against_nobody() -> None:
    # One host of this model, and every host of another model, in one round: OpenRouter, not a host.
    d = doc({FLAKY: {"latency": "stream_cut"}})
    other = doc({p: {"latency": "stream_cut"} for p in PROVIDERS}, model=OTHER)
    d["cases"] += other["cases"]
    d["models"].update(other["models"])
    codes = reliability_codes(read_results(d))
    assert codes[MODEL][FLAKY].count("i") == 1 and "f" not in codes[MODEL][FLAKY]
    alone = reliability_codes(read_results(doc({FLAKY: {"latency": "stream_cut"}})))
    assert alone[MODEL][FLAKY].count("f") == 1  # the same error, alone in its round, is the host's


def flaky_rounds(n: int, policy: Policy) -> tuple[JudgeState, list[Any]]:
    """`n` rounds: the flaky host cuts its latency and refusal streams every round (half its
    requests); once in a while a peer cuts one too (noise)."""
    state, log = JudgeState(), []
    for i in range(n):
        errors: dict[str, Any] = {FLAKY: {"latency": "stream_cut", "refusal": "mid_stream_error"}}
        if i % 3 == 0:
            errors[PROVIDERS[1 + i % 4]] = {"structured": "stream_cut"}
        at = T0 + i * HALF_HOUR
        state, decisions = apply_round(state, read_results(doc(errors, at=at)), policy, now=at)
        log += decisions
    return state, log


def test_by_default_a_flaky_host_is_never_suspended_but_its_card_shows_it() -> None:
    state, log = flaky_rounds(6, Policy())
    assert not actions(log, Action.WOULD_SUSPEND)
    card = card_for(state, MODEL, FLAKY, RELIABILITY)
    assert (card.failures, card.attempts) == (12, 24) and card.significant
    assert card.text.startswith("reliability: 12/24 failed")
    assert not card_for(state, MODEL, "borealis/bf16", RELIABILITY).significant


def test_opted_in_a_significantly_flaky_host_fails_its_rounds_and_is_suspended() -> None:
    state, log = flaky_rounds(8, replace(Policy(), reliability=True))
    [decision] = actions(log, Action.WOULD_SUSPEND)
    assert decision.provider == FLAKY
    assert any(e.contract == RELIABILITY and e.reason.startswith("reliability: ") for e in decision.evidence)
    assert [c.contract for c in decision.card] == [RELIABILITY] and decision.card[0].significant
    # The peers' occasional cut stream never makes any of them significant.
    assert all(d.provider == FLAKY for d in actions(log, Action.WOULD_SUSPEND))


def test_opted_in_a_round_without_a_host_error_of_its_own_is_judged_as_before() -> None:
    policy = replace(Policy(), reliability=True)
    state, _ = flaky_rounds(1, policy)
    at = T0 + 5 * HALF_HOUR
    state, decisions = apply_round(state, read_results(doc({}, at=at)), policy, now=at)
    assert state.provider(MODEL, FLAKY).clean_streak == 1 and not actions(decisions, Action.WOULD_SUSPEND)


def test_the_setting_is_off_by_default_and_read_from_canary_yaml() -> None:
    from core.config import parse_config
    assert Policy().reliability is False
    assert parse_config({"rules": {"reliability": True}}).rules.reliability is True

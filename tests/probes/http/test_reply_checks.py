"""Stream integrity and limits honesty on every completed reply (probes/round/reply_checks.py), over
real sockets: each simulator wire defect (simulator/defects.py) at rate 1 fails the reply with its
own reason code, whatever the contract said; a healthy host and OpenRouter's usage chunk shapes
(repeated finish, null finish, `choices: []`) pass."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.field_rules import written
from core.upstream import Upstream
from core.vocabulary import LATENCY
from judge.replies.tools import ToolsCode
from judge.replies.verdict import Outcome, Verdict, passed
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.http.records import ChatResult, Endpoint
from probes.round.contracts import attempt_from
from probes.round.reply_checks import REPLY_CHECKS, ReplyFacts, run_checks
from simulator import scenario_from_dict, start_simulator

SECRET = "sk-or-v1-SENTINEL-reply-checks-7d1e"
MODEL = "acme/model-x"
MESSAGES = [{"role": "user", "content": "Continue the scene: the innkeeper greets the traveller at the door."}]


def reply_check(result: ChatResult, endpoint: Endpoint | None = None) -> Verdict | None:
    """The checks' verdict on a reply a contract passed: the first failed check that fails a case, or None."""
    found = run_checks(ReplyFacts.of(result, endpoint), passed("the contract passed"), LATENCY).verdict
    return None if found is None or found.passed else found


def chat(faults: dict[str, Any], *, usage_shape: str = "mixed", max_tokens: int = 120, seed: int = 7) -> ChatResult:
    behaviour = {"ttft_ms": 20, "tokens_per_second": 4000, "faults": faults}
    scenario = scenario_from_dict({"name": "reply-checks", "keepalive_ms": 50, "usage_shape": usage_shape,
                                   "models": [{"id": MODEL, "endpoints": [
                                       {"tag": "aurora/fp8", "provider_name": "Aurora", "behaviour": behaviour}]}]})

    async def go(base_url: str) -> ChatResult:
        async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=5.0) as client:
            (endpoint,) = await discover(client, MODEL)
            return await client.chat(endpoint, MESSAGES, max_tokens=max_tokens)

    with start_simulator(scenario, seed=seed) as sim:
        return asyncio.run(go(sim.base_url))


@pytest.mark.parametrize("fault,params,code", [
    ("cumulative_deltas", {}, "cumulative_deltas"),
    ("repeated_deltas", {}, "repeated_deltas"),
    ("ignore_max_tokens", {"factor": 20}, "max_tokens_ignored"),
    ("early_length", {"ratio": 0.2}, "length_below_cap"),
])
def test_each_planted_wire_defect_fails_the_reply_with_its_code(fault: str, params: dict[str, Any], code: str) -> None:
    result = chat({fault: {"rate": 1.0, **params}})
    assert result.completed, result.error_message
    verdict = reply_check(result)
    assert verdict is not None and verdict.failed and verdict.code == code, verdict
    # The hook: a contract that passed the reply still fails the case with the check's reason.
    endpoint = Endpoint(MODEL, "aurora/fp8", "Aurora", None, ("max_tokens",), 0.0, 0.0, None, None, 0)
    attempt = attempt_from(result, endpoint, passed("first token after 0.02 s"), MESSAGES)
    assert attempt.outcome is Outcome.FAIL and attempt.reason == verdict.reason


@pytest.mark.parametrize("shape", ["repeat_finish", "null_finish", "empty_choices"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_healthy_host_passes_whatever_the_usage_chunk_shape(shape: str, seed: int) -> None:
    result = chat({}, usage_shape=shape, seed=seed)
    assert result.completed and result.text and result.deltas
    assert reply_check(result) is None


def test_a_healthy_reply_cut_at_the_cap_is_a_length_finish_at_the_cap_and_passes() -> None:
    result = chat({}, max_tokens=12)
    assert result.finish_reason == "length" and result.max_tokens_sent == 12
    assert reply_check(result) is None


def chat_on(faults: dict[str, Any], *, seed: int = 7) -> tuple[ChatResult, Endpoint]:
    """One reply and the endpoint as the same round's discovery listed it (its prices)."""
    behaviour = {"ttft_ms": 20, "tokens_per_second": 4000, "faults": faults}
    scenario = scenario_from_dict({"name": "billing", "keepalive_ms": 50, "models": [{"id": MODEL, "endpoints": [
        {"tag": "aurora/fp8", "provider_name": "Aurora", "behaviour": behaviour,
         "pricing": {"prompt": "0.00000014", "completion": "0.00000028"}}]}]})

    async def go(base_url: str) -> tuple[ChatResult, Endpoint]:
        async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=5.0) as client:
            (endpoint,) = await discover(client, MODEL)
            return await client.chat(endpoint, MESSAGES, max_tokens=200), endpoint

    with start_simulator(scenario, seed=seed) as sim:
        return asyncio.run(go(sim.base_url))


def test_an_overbilling_host_fails_every_reply_with_the_figures_and_its_code() -> None:
    result, endpoint = chat_on({"overbilling": {"rate": 1.0, "factor": 1.5}})
    verdict = reply_check(result, endpoint)
    assert verdict is not None and verdict.code == "overbilled", verdict
    assert "(1.50 x)" in verdict.reason
    attempt = attempt_from(result, endpoint, passed("first token after 0.02 s"), MESSAGES)
    assert attempt.outcome is Outcome.FAIL
    assert attempt.record.billed_usd == pytest.approx(1.5 * (attempt.record.listed_usd or 0))
    assert reply_check(result) is None  # without the listing there is nothing to bill against


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_healthy_host_is_billed_its_listed_price_and_reports_usage(seed: int) -> None:
    result, endpoint = chat_on({}, seed=seed)
    assert reply_check(result, endpoint) is None
    attempt = attempt_from(result, endpoint, passed("first token after 0.02 s"), MESSAGES)
    assert attempt.record.usage_reported is True
    assert attempt.record.billed_usd == pytest.approx(attempt.record.listed_usd)
    entry = written(attempt.record)
    assert entry["usage_reported"] is True and entry["prompt_tokens"] == result.usage.prompt_tokens  # type: ignore[union-attr]


def test_a_stream_without_usage_passes_its_reply_and_is_recorded_as_such() -> None:
    result, endpoint = chat_on({"no_stream_usage": {"rate": 1.0}})
    assert result.completed and result.usage is None
    attempt = attempt_from(result, endpoint, passed("first token after 0.02 s"), MESSAGES)
    assert attempt.outcome is Outcome.PASS  # never failed in one round: the judge counts it against peers
    assert written(attempt.record)["usage_reported"] is False and "prompt_tokens" not in written(attempt.record)


def test_a_check_never_turns_a_contracts_inconclusive_into_a_fail() -> None:
    # Issue 28: the tools contract's "our max_tokens cut the call" is no verdict on the host; the
    # wire defect below still shows on the same reply when the contract passed it.
    result = chat({"ignore_max_tokens": {"rate": 1.0, "factor": 20}})
    endpoint = Endpoint(MODEL, "aurora/fp8", "Aurora", None, ("max_tokens",), 0.0, 0.0, None, None, 0)
    undecided = Verdict(Outcome.INCONCLUSIVE, ToolsCode.MAX_TOKENS_CUT,
                        "tools: the reply reached max_tokens (400) before the call closed")
    assert attempt_from(result, endpoint, undecided, MESSAGES).outcome is Outcome.INCONCLUSIVE
    assert attempt_from(result, endpoint, passed("ok"), MESSAGES).outcome is Outcome.FAIL


def test_each_check_applies_to_the_contracts_it_names() -> None:
    by_name = {c.name: c for c in REPLY_CHECKS}
    assert all(by_name[n].applies_to(c) for n in ("stream integrity", "limits", "billing", "hidden tokens")
               for c in ("latency", "tools", "stop", "fidelity", None))
    assert {c for c in ("latency", "refusal", "structured", "language", "tools", "stop", "fidelity")
            if by_name["refusal"].applies_to(c)} == {"latency", "language"}
    assert {c for c in ("latency", "refusal", "structured", "language", "tools", "stop", "fidelity")
            if by_name["integrity"].applies_to(c)} == {"latency", "refusal", "structured", "language"}


def test_the_facts_of_a_reply_are_built_once_for_every_check() -> None:
    result = chat({})
    facts = ReplyFacts.of(result, None, contract="latency", language="pt")
    assert facts.prices is None and not facts.json_reply and facts.language == "pt"
    assert ReplyFacts.of(result, None, contract="structured").json_reply
    assert facts.hidden.text_bytes == len(result.text.encode()) and facts.limits.cap == result.max_tokens_sent
    found = run_checks(facts, passed("ok"), "latency")
    assert found.verdict == passed("ok") and found.refusal is Outcome.PASS and found.integrity is Outcome.PASS

"""Reasoning hosts reach verdicts: the real client and contracts against a simulated reasoning host.

The simulator's `thinking` trait thinks before answering and honours the budget it is sent the
way OpenRouter documents it (simulator/replies.py). Over real sockets: without the reasoning
controls such a host spends the probe's small max_tokens thinking and every contract is
inconclusive; with them (what the engine configures from probe.reasoning_*) every contract
ends in pass or fail. Timings are asserted only as lower bounds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from core.config import ProbeSettings
from core.upstream import Upstream
from core.vocabulary import Outcome
from judge.replies import language as language_judge
from judge.replies.verdict import Verdict
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.http.records import Endpoint
from probes.http.wire import ReasoningBudget
from probes.round.cases import Case, ProbedCase
from probes.round.contracts import ContractSettings, language, latency, refusal, structured
from simulator import RunningSimulator, scenario_from_dict, start_simulator

SECRET = "sk-or-v1-SENTINEL-reasoning-31c9"
MODEL = "acme/thinker"
PARAMS = ["max_tokens", "temperature", "response_format", "structured_outputs", "reasoning", "include_reasoning"]
PROBE = ProbeSettings(max_tokens=200, language_confirmations=2,
                      temperature=0.7)
BUDGET = ReasoningBudget(PROBE.reasoning_effort, PROBE.reasoning_max_tokens)
CONTRACTS = {"latency": latency, "refusal": refusal, "structured": structured, "language": language}


def host(tag: str, *, thinking: int = 600, params: list[str] = PARAMS, tps: float = 4000,
         faults: dict[str, Any] | None = None) -> dict[str, Any]:
    behaviour = {"ttft_ms": 20, "tokens_per_second": tps,
                 "faults": {"thinking": {"tokens": thinking}, **(faults or {})}}
    return {"tag": tag, "provider_name": tag.split("/")[0].title(), "supported_parameters": params,
            "behaviour": behaviour}


@contextmanager
def upstream(*hosts: dict[str, Any]) -> Iterator[RunningSimulator]:
    scenario = scenario_from_dict({"name": "reasoning", "keepalive_ms": 50,
                                   "models": [{"id": MODEL, "endpoints": list(hosts)}]})
    with start_simulator(scenario, seed=3) as sim:
        yield sim


class NoControls:
    async def control_results(self, model: str) -> tuple[ProbedCase, ...]:
        return ()


async def _judge_language(text: str, lang: str) -> Verdict:
    return await asyncio.to_thread(language_judge.assess, text, lang)


def probe(sim: RunningSimulator, tag: str, contract: str, *, budget: ReasoningBudget | None = BUDGET,
          settings: ProbeSettings = PROBE) -> ProbedCase:
    async def go() -> ProbedCase:
        client_settings = Upstream(base_url=sim.base_url, api_key=SECRET)
        async with PinnedClient(client_settings, deadline_s=settings.request_deadline_seconds,
                                reasoning_budget=budget) as client:
            endpoint = next(e for e in await discover(client, MODEL) if e.provider == tag)
            case = Case(model=MODEL, contract=contract, endpoint=endpoint,
                        language="en" if contract == "language" else None)
            contract_settings = ContractSettings(probe=settings, controls=NoControls(), judge_language=_judge_language,
                                                 missing_controls={})
            return await CONTRACTS[contract].probe(client, endpoint, contract_settings, case)

    result = asyncio.run(go())
    assert SECRET not in repr(result)
    return result


def chat_bodies(sim: RunningSimulator) -> list[dict[str, Any]]:
    return [r.body for r in sim.received if r.path.endswith("/chat/completions")]


@pytest.mark.parametrize("contract", list(CONTRACTS))
def test_without_reasoning_controls_a_reasoning_host_yields_no_verdict(contract: str) -> None:
    # The defect of issue 13 item 8, kept as the contrast: the thinking eats max_tokens.
    with upstream(host("sage/fp8")) as sim:
        got = probe(sim, "sage/fp8", contract, budget=None)
        (body, *_) = chat_bodies(sim)
    assert got.outcome is Outcome.INCONCLUSIVE and "reasoning" in got.reason
    assert "reasoning" not in body


@pytest.mark.parametrize("contract", list(CONTRACTS))
def test_with_reasoning_controls_every_contract_of_a_healthy_reasoning_host_passes(contract: str) -> None:
    with upstream(host("sage/fp8")) as sim:
        got = probe(sim, "sage/fp8", contract)
        bodies = chat_bodies(sim)
    assert got.outcome is Outcome.PASS, got.reason
    answer = 32 if contract == "latency" else PROBE.max_tokens
    for body in bodies:
        assert body["reasoning"] == {"effort": "low", "exclude": True}
        assert body["max_tokens"] == answer + PROBE.reasoning_max_tokens  # room to think, the answer keeps its own
        assert body["provider"]["require_parameters"] is True


def test_a_reasoning_host_that_refuses_fails_the_refusal_contract() -> None:
    with upstream(host("sage/fp8", faults={"refusal": {"rate": 1.0}})) as sim:
        got = probe(sim, "sage/fp8", "refusal")
    assert got.outcome is Outcome.FAIL, got.reason


def test_a_thinking_host_that_lists_no_reasoning_parameter_is_probed_as_before() -> None:
    # Nothing may be sent that the endpoint does not list (require_parameters would make it
    # unroutable), so such a host keeps today's request, and its budget-eaten reply stays
    # inconclusive rather than an "empty reply" failure.
    plain = [p for p in PARAMS if "reasoning" not in p]
    with upstream(host("mute/fp8", params=plain)) as sim:
        got = probe(sim, "mute/fp8", "refusal")
        (body,) = chat_bodies(sim)
    assert "reasoning" not in body and "include_reasoning" not in body and body["max_tokens"] == PROBE.max_tokens
    assert got.outcome is Outcome.INCONCLUSIVE and got.attempts[0].record.error_kind is None


def test_a_host_that_thinks_past_all_the_room_still_reads_inconclusive_with_the_thinking_hidden() -> None:
    # `include_reasoning` only: the thinking can be hidden but not bounded, and this one thinks
    # past the room. No reasoning text is seen; it is still no verdict on the host.
    with upstream(host("sage/fp8", thinking=5000, params=["max_tokens", "include_reasoning"])) as sim:
        got = probe(sim, "sage/fp8", "refusal")
        (body,) = chat_bodies(sim)
    assert body["include_reasoning"] is False and "reasoning" not in body
    assert got.outcome is Outcome.INCONCLUSIVE and "reasoning" in got.reason


def test_the_latency_contract_times_the_first_answer_text_not_the_thinking() -> None:
    # 300 thinking tokens at 1000 tokens/s: the first answer text comes >= 0.3 s after the first token.
    budget = ReasoningBudget(effort=None, max_tokens=300)
    with upstream(host("sage/fp8", thinking=5000, tps=1000)) as sim:
        quick = probe(sim, "sage/fp8", "latency", budget=budget)
        strict = probe(sim, "sage/fp8", "latency", budget=budget, settings=replace(PROBE, ttft_seconds=0.25))
    quick_ttft = quick.attempts[0].record.ttft_s
    assert quick.outcome is Outcome.PASS and quick_ttft is not None and quick_ttft >= 0.3
    assert strict.outcome is Outcome.FAIL and strict.reason.startswith("first token after")


def test_an_explicit_reasoning_option_replaces_the_budget(tmp_path: Any) -> None:
    with upstream(host("sage/fp8")) as sim:
        async def go() -> None:
            async with PinnedClient(Upstream(base_url=sim.base_url, api_key=SECRET),
                                    reasoning_budget=BUDGET) as client:
                endpoint: Endpoint = next(e for e in await discover(client, MODEL) if e.provider == "sage/fp8")
                await client.chat(endpoint, [{"role": "user", "content": "hi"}], max_tokens=900,
                                  reasoning={"max_tokens": 100})
        asyncio.run(go())
        (body,) = chat_bodies(sim)
    assert body["reasoning"] == {"max_tokens": 100} and body["max_tokens"] == 900

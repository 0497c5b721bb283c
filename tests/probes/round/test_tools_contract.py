"""The tools contract over real sockets: the client assembles the simulator's streamed tool calls by
index (the recorded OpenRouter shape), a healthy host passes, and each planted tool defect
(simulator/tool_calls.py) fails with its own reason code, confirmed by two more attempts; an
endpoint without `tools` is not applicable and is never asked."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from core.config import ProbeSettings
from core.results import CaseResult
from core.upstream import Upstream
from core.vocabulary import Outcome
from judge.replies.verdict import Verdict
from judge.suspension.tool_prose import judge_tool_prose
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.round.cases import Case, ProbedCase
from probes.round.contracts import ContractSettings, tools
from simulator import scenario_from_dict, start_simulator

SECRET = "sk-or-v1-SENTINEL-tools-5a0c"
MODEL = "acme/caller"
PARAMS = ["max_tokens", "temperature", "tools"]
PROBE = ProbeSettings(max_tokens=200, language_confirmations=2,
                      temperature=0.7)


class NoControls:
    async def control_results(self, model: str) -> tuple[ProbedCase, ...]:
        return ()


async def _no_language(text: str, lang: str) -> Verdict:
    raise AssertionError("the tools contract never judges a language")


def run(
    faults: dict[str, Any] | None = None, *, params: list[str] = PARAMS, stream_seed: int = 5
) -> tuple[ProbedCase, list[dict[str, Any]]]:
    behaviour = {"ttft_ms": 20, "tokens_per_second": 4000, "faults": faults or {}}
    scenario = scenario_from_dict({"name": "tools", "keepalive_ms": 50, "models": [{"id": MODEL, "endpoints": [
        {"tag": "aurora/fp8", "provider_name": "Aurora", "supported_parameters": params, "behaviour": behaviour}]}]})

    async def go(base_url: str) -> ProbedCase:
        async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=10.0) as client:
            (endpoint,) = await discover(client, MODEL)
            case = Case(model=MODEL, contract="tools", endpoint=endpoint)
            settings = ContractSettings(probe=PROBE, controls=NoControls(), judge_language=_no_language,
                                        missing_controls={})
            return await tools.probe(client, endpoint, settings, case)

    with start_simulator(scenario, seed=stream_seed) as sim:
        result = asyncio.run(go(sim.base_url))
        bodies = [r.body for r in sim.received if r.path.endswith("/chat/completions")]
    assert SECRET not in repr(result)
    return result, bodies


def test_a_healthy_host_calls_both_tools_and_passes_with_the_request_pinned_and_streamed() -> None:
    result, bodies = run()
    assert result.outcome is Outcome.PASS, result.reason
    assert "book_room" in result.reason and "roll_dice" in result.reason
    (body,) = bodies
    assert body["stream"] is True and body["provider"]["require_parameters"] is True
    assert body["provider"]["only"] == ["aurora/fp8"] and body["provider"]["allow_fallbacks"] is False
    assert [t["function"]["name"] for t in body["tools"]] == ["book_room", "roll_dice"]
    assert "response_format" not in body and "tool_choice" not in body
    assert result.attempts[0].extras.notes == ()  # the stated values, finish_reason tool_calls: nothing to note
    assert result.attempts[0].text.splitlines()[0] == '→ book_room({"room": "tower", "nights": 2})'
    assert result.record.attempts[0].excerpt.startswith("→ book_room(")


@pytest.mark.parametrize("fault,params,code", [
    ("tool_markup_leak", {"dialect": "kimi"}, "tool_markup_leak"),
    ("tool_markup_leak", {"dialect": "hermes", "into": "reasoning"}, "tool_markup_leak"),
    ("tool_markup_leak", {"dialect": "deepseek"}, "tool_markup_leak"),
    ("tool_markup_leak", {"dialect": "glm"}, "tool_markup_leak"),
    ("tool_markup_leak", {"dialect": "mistral"}, "tool_markup_leak"),
    ("tool_markup_leak", {"dialect": "qwen3_coder"}, "tool_markup_leak"),
    ("tool_schema_break", {}, "schema_mismatch"),
    ("tool_args_twice", {}, "duplicated_arguments"),
    ("tool_no_arguments", {}, "schema_mismatch"),   # read as {}: the required arguments missing
    ("empty_reply", {}, "empty_reply"),
])
def test_each_planted_tool_defect_fails_with_its_code_confirmed_by_two_more_attempts(
        fault: str, params: dict[str, Any], code: str) -> None:
    result, bodies = run({fault: {"rate": 1.0, **params}})
    assert result.outcome is Outcome.FAIL and result.code == code, result.reason
    assert result.record.anomaly and len(result.attempts) == 3 and len(bodies) == 3
    assert "confirmed: 3 of 3" in result.reason


def test_a_wrong_finish_reason_on_valid_calls_is_a_note_not_a_failure() -> None:
    result, _ = run({"tool_finish_stop": {"rate": 1.0}})
    assert result.outcome is Outcome.PASS, result.reason
    assert any("finish_reason 'stop'" in n for n in result.attempts[0].extras.notes)


def peers_called(result: ProbedCase) -> tuple[CaseResult, ...]:
    """The case beside two peers that called a tool that round, as the judge reads them."""
    peers = tuple(replace(result.record, provider=f"peer{i}/fp8", outcome=Outcome.PASS, code="pass", attempts=())
                  for i in range(2))
    return judge_tool_prose((result.record, *peers))


def test_prose_instead_of_a_call_is_left_to_the_peers_and_keeps_its_prefix() -> None:
    result, bodies = run({"tool_prose": {"rate": 1.0}})
    assert result.outcome is Outcome.INCONCLUSIVE and result.code == "no_tool_call"
    # Three in prose are confirmed by two more before the peers judge: a host that drops the tools
    # writes prose all five times, and fails beside peers that called.
    assert len(bodies) == 5 and "5 of 5 attempts answered in prose" in result.reason
    assert peers_called(result)[0].outcome == Outcome.FAIL


def test_three_chance_prose_replies_are_confirmed_again_and_a_call_among_them_clears_the_host() -> None:
    # A model that writes prose half the time: with this seed its first three replies are prose,
    # one of the next two calls. Three of three used to be the unanimity the judge fails a host on.
    # (Each pair of confirmations is sent at once: which of the two the simulator answers first varies.)
    result, bodies = run({"tool_prose": {"rate": 0.5}}, stream_seed=13)
    codes = [a.record.code for a in result.attempts]
    assert codes[:3] == ["no_tool_call"] * 3 and sorted(codes[3:]) == ["no_tool_call", "pass"], codes
    assert len(bodies) == 5
    assert result.outcome is Outcome.INCONCLUSIVE and result.code == "no_tool_call"   # most were prose
    judged = peers_called(result)[0]
    assert judged.outcome == Outcome.NOT_APPLICABLE and "one of its own attempts called" in judged.reason


def test_a_prose_reply_among_calls_sends_no_second_confirmation() -> None:
    result, bodies = run({"tool_prose": {"rate": 0.5}}, stream_seed=2)
    codes = [a.record.code for a in result.attempts]
    assert codes[0] == "no_tool_call" and "pass" in codes and len(codes) == len(bodies) == 3, codes


def test_an_endpoint_without_tools_is_not_applicable_and_never_asked() -> None:
    result, bodies = run(params=["max_tokens", "temperature"])
    assert result.outcome is Outcome.NOT_APPLICABLE and bodies == []

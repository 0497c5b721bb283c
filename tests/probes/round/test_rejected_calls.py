"""A host that rejects its own model's call (issue 37 item 6), over real sockets.

Groq answers `tool_use_failed` when its model writes a call it will not relay, with the call in
`failed_generation`; OpenRouter relays it as `400 "Provider returned error"` with Groq's body in
`metadata.raw`, or, once the stream has started, as an error event after the thinking
(docs/openrouter-wire.md §5). On the tools contract that is the host's failed call: its generation
is judged as one (gpt-oss's `{"name": "repo_browser.open_file", ...}` names no tool of the request),
and the case fails naming `tool_use_failed`. Until this fix it was a transport error there, frozen
round after round. Every other contract meets the same error as a transport error, as before.
"""

from __future__ import annotations

import asyncio

import pytest
from contracts_support import settings

from core.upstream import Upstream
from core.vocabulary import Outcome
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.round.cases import Case, ProbedCase
from probes.round.contracts import latency, tools
from simulator import scenario_from_dict, start_simulator

SECRET = "sk-or-v1-SENTINEL-rejected-3b7f"
MODEL = "acme/model-x"
WHERE = ["status", "stream"]


def probed(contract: str, where: str) -> ProbedCase:
    """One case of `contract` against a reasoning host that rejects its model's call (`where` it says so)."""
    faults = {"tool_use_failed": {"rate": 1.0, "where": where}, "thinking": {"tokens": 40}}
    scenario = scenario_from_dict({"name": "rejected", "keepalive_ms": 50, "models": [{"id": MODEL, "endpoints": [
        {"tag": "groq", "provider_name": "Groq", "behaviour": {"ttft_ms": 20, "tokens_per_second": 4000,
                                                               "faults": faults}}]}]})
    module = {"tools": tools, "latency": latency}[contract]

    async def go(base_url: str) -> ProbedCase:
        async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=10.0) as client:
            (endpoint,) = await discover(client, MODEL)
            return await module.probe(client, endpoint, settings(), Case(model=MODEL, contract=contract,
                                                                        endpoint=endpoint))

    with start_simulator(scenario, seed=5) as sim:
        case = asyncio.run(go(sim.base_url))
    assert SECRET not in repr(case)
    return case


@pytest.mark.parametrize("where", WHERE)
def test_the_tools_case_of_a_host_rejecting_its_own_call_fails_naming_tool_use_failed(where: str) -> None:
    case = probed("tools", where)
    assert case.outcome is Outcome.FAIL, case.reason
    assert "tool_use_failed" in case.reason and "repo_browser.open_file" in case.reason
    assert case.code == "unknown_name"  # its generation judged as an in-band call is
    assert case.record.anomaly is True and len(case.attempts) == 3  # confirmed, as any tools failure


@pytest.mark.parametrize("where", WHERE)
def test_any_other_case_meeting_the_same_error_is_frozen_as_before(where: str) -> None:
    case = probed("latency", where)
    assert case.outcome is Outcome.TRANSPORT_ERROR, case.reason
    assert case.reason.startswith("transport:") and "Provider returned error" in case.reason

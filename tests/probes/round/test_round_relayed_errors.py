"""Issue 28's error shapes in a whole round (`pytest probes` against the simulator), as a user meets them.

One host relays its refusal as xAI's 403 `permission-denied` (only on the refusal probe's scene),
one relays a provider's 402 (a BYOK key out of balance), one a provider's 429s ("temporarily
rate-limited upstream", no Retry-After), and one rejects an enum on a non-string in a tool schema
with Gemini's 400. The refuser fails the refusal contract naming the relayed code and nothing
else; the 402 freezes its own host and leaves the round complete; the Gemini-style host's tools
case runs (the probe's schema carries bounds, not an integer enum).
"""

from __future__ import annotations

import pytest
from round_support import ProbeRun, canary_config, endpoint, run_round, scenario

from simulator import scenario_from_dict, start_simulator

TOOL_PARAMS = ["max_tokens", "temperature", "seed", "response_format", "structured_outputs", "tools"]
REFUSAL_SCENE = "smuggler queen Veyra"   # in the refusal probe's prompt only (probes/round/prompts/refusal.yaml)


def host(tag: str, faults: dict[str, object] | None = None, **extra: object) -> dict[str, object]:
    return {**endpoint(tag, faults), "supported_parameters": TOOL_PARAMS, **extra}


FLEET = scenario(
    host("ok/fp8"),
    host("xai/fp8", {"relayed_refusal": {"rate": 1.0, "only_when": [REFUSAL_SCENE]}}),
    host("byok/fp8", {"http_error": {"rate": 1.0, "status": 402, "body": "provider"}}),
    host("busy/fp8", {"http_error": {"rate": 0.3, "status": 429, "retry_after": None}}),
    host("gemini/fp8", tool_enums="strings"),
)


@pytest.fixture(scope="module")
def relayed_round(tmp_path_factory: pytest.TempPathFactory) -> ProbeRun:
    tmp = tmp_path_factory.mktemp("relayed")
    with start_simulator(scenario_from_dict(FLEET), seed=5) as sim:
        return run_round(tmp, sim.base_url, config=canary_config(tmp, controls=(),
                                                                                     optional=["tools"]))


def test_a_host_relaying_its_refusal_as_a_403_fails_the_refusal_contract_naming_it(relayed_round: ProbeRun) -> None:
    case = relayed_round.case("xai/fp8", "refusal")
    assert case["outcome"] == "fail", relayed_round.output[-3000:]
    assert case["reason"].startswith("filter:") and '"permission-denied"' in case["reason"], case["reason"]
    assert "help with that" not in case["reason"]
    # Its other contracts never met the filter (only_when): the refusal rule alone fails it. (Latency
    # is left out of these checks: its threshold meets the machine's load, not the wire.)
    assert all(relayed_round.outcome("xai/fp8", c) == "pass" for c in ("structured", "language", "tools"))


def test_a_402_relayed_from_a_provider_freezes_that_host_and_the_round_stays_complete(relayed_round: ProbeRun) -> None:
    results = relayed_round.results
    assert not results["incomplete"], results["incomplete"]
    byok = [c for c in results["cases"] if c["provider"] == "byok/fp8"]
    assert byok and all(c["outcome"] == "transport_error" for c in byok), [c["reason"] for c in byok]
    assert all(c["reason"].startswith("transport: HTTP 402") for c in byok), [c["reason"] for c in byok]
    # Every other host was judged: nothing of the round was voided over someone else's key.
    assert all(relayed_round.outcome("ok/fp8", c) == "pass" for c in ("refusal", "structured", "tools"))


def test_provider_429s_are_transport_errors_of_that_host_only(relayed_round: ProbeRun) -> None:
    busy = [c for c in relayed_round.results["cases"] if c["provider"] == "busy/fp8"]
    assert busy and {c["outcome"] for c in busy} <= {"pass", "transport_error"}


def test_a_host_that_takes_string_enums_only_runs_the_tools_probe(relayed_round: ProbeRun) -> None:
    case = relayed_round.case("gemini/fp8", "tools")
    assert case["outcome"] == "pass", case["reason"]

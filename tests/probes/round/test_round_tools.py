"""The tools contract in a whole round (`pytest probes`): only for a model that canary.yaml's
optional_contracts: opts in, one tools case per endpoint, the planted tool defects failing on their
hosts, `-m tools` selecting the contract, and the judge reading the round."""

from __future__ import annotations

from pathlib import Path

import pytest
from round_support import (
    MODEL,
    SENTINEL_KEY,
    ProbeRun,
    canary_config,
    endpoint,
    files_containing,
    run_round,
    scenario,
)

from core.policy import Policy
from core.results_read import read_results
from judge.suspension.round import RoundClass, classify_round
from simulator import scenario_from_dict, start_simulator

TOOL_PARAMS = ["max_tokens", "temperature", "tools"]


def tool_host(tag: str, faults: dict[str, object] | None = None) -> dict[str, object]:
    return {**endpoint(tag, faults), "supported_parameters": TOOL_PARAMS}


FLEET = scenario(tool_host("ok/fp8"), tool_host("calm/fp8"),
                 tool_host("leak/fp8", {"tool_markup_leak": {"rate": 1.0, "dialect": "hermes"}}),
                 tool_host("twice/fp8", {"tool_args_twice": {"rate": 1.0}}),
                 endpoint("plain/fp8"))


@pytest.fixture(scope="module")
def simulator():
    with start_simulator(scenario_from_dict(FLEET), seed=5) as sim:
        yield sim


@pytest.fixture(scope="module")
def tools_round(simulator, tmp_path_factory) -> ProbeRun:
    tmp = tmp_path_factory.mktemp("tools")
    return run_round(tmp, simulator.base_url, "-m", "tools",
                     config=canary_config(tmp, controls=(), optional=["tools"]))


def test_each_endpoint_has_one_tools_case_and_the_planted_defects_fail(tools_round: ProbeRun) -> None:
    cases = tools_round.results["cases"]
    assert {c["contract"] for c in cases} == {"tools"} and len(cases) == 5, tools_round.output[-2000:]
    assert tools_round.outcome("ok/fp8", "tools") == "pass" and tools_round.outcome("calm/fp8", "tools") == "pass"
    assert tools_round.outcome("plain/fp8", "tools") == "not_applicable"
    for provider, code in (("leak/fp8", "tool_markup_leak"), ("twice/fp8", "duplicated_arguments")):
        case = tools_round.case(provider, "tools")
        assert case["outcome"] == "fail" and case["code"] == code, case["reason"]
        assert case["requests"] == 3 and case["anomaly"] is True
    assert tools_round.case("ok/fp8", "tools")["requests"] == 1
    assert files_containing(tools_round.reports, SENTINEL_KEY) == []


def test_the_judge_fails_the_defective_hosts_rounds_only(tools_round: ProbeRun) -> None:
    rounds = classify_round(read_results(tools_round.results), Policy())[MODEL].providers
    assert rounds["leak/fp8"].klass is RoundClass.FAILED and rounds["twice/fp8"].klass is RoundClass.FAILED
    assert rounds["ok/fp8"].klass is not RoundClass.FAILED and rounds["plain/fp8"].klass is not RoundClass.FAILED


def test_a_model_not_opted_in_runs_no_tools_case(simulator, tmp_path: Path) -> None:
    plain = run_round(tmp_path, simulator.base_url, "-k", "ok/fp8",
                      config=canary_config(tmp_path, controls=()))
    assert {c["contract"] for c in plain.results["cases"]} == {"latency", "refusal", "structured", "language"}

"""A whole round against planted defects: each is reported on its host and contract."""

from __future__ import annotations

from pathlib import Path

import pytest
from round_support import PLANTED, SENTINEL_KEY, ProbeRun, files_containing, run_round

from core.results_read import read_results
from simulator import scenario_from_dict, start_simulator

EXPECTED_FAILURES = {("slow/fp8", "latency"), ("garbage/fp8", "language"), ("schema/fp8", "structured")}
CASE_KEYS = {"model", "provider", "contract", "outcome", "code", "reason", "language", "anomaly", "control", "ttft_s",
             "duration_s", "requests", "prompt_tokens", "completion_tokens", "cost_usd", "served_by", "attempts"}


@pytest.fixture(scope="module")
def simulator():
    with start_simulator(scenario_from_dict(PLANTED), seed=3) as sim:
        yield sim


@pytest.fixture(scope="module")
def planted_round(simulator, tmp_path_factory) -> ProbeRun:
    return run_round(tmp_path_factory.mktemp("planted"), simulator.base_url)


def test_the_round_completes_and_pytest_reports_failures(planted_round: ProbeRun) -> None:
    assert planted_round.results["complete"] is True, planted_round.output[-3000:]
    assert planted_round.rc == 1  # quality failures fail their pytest cases


@pytest.mark.parametrize("provider, contract", sorted(EXPECTED_FAILURES))
def test_each_planted_defect_fails_on_its_host_and_contract(
    planted_round: ProbeRun, provider: str, contract: str
) -> None:
    assert planted_round.outcome(provider, contract) == "fail", planted_round.case(provider, contract)


def test_the_healthy_host_passes_every_contract(planted_round: ProbeRun) -> None:
    for contract in ("latency", "refusal", "structured", "language"):
        assert planted_round.outcome("ok/fp8", contract) == "pass", planted_round.case("ok/fp8", contract)


def test_the_positive_control_is_caught_and_marked(planted_round: ProbeRun) -> None:
    control = planted_round.case("filter/fp8", "refusal")
    assert control["control"] is True
    assert control["outcome"] == "pass" and control["reason"].startswith("control caught")
    assert planted_round.results["weak_probes"] == []


def test_no_other_case_fails(planted_round: ProbeRun) -> None:
    failures = {(c["provider"], c["contract"]) for c in planted_round.results["cases"] if c["outcome"] == "fail"}
    # The filtering host also refuses the structured and language prompts: that is the host, not the probe.
    assert failures - {("filter/fp8", "structured"), ("filter/fp8", "language"), ("garbage/fp8", "structured")} \
        == EXPECTED_FAILURES


def test_results_json_has_the_documented_shape(planted_round: ProbeRun) -> None:
    doc = planted_round.results
    assert doc["schema_version"] == 2 and doc["upstream"] == "simulator"
    assert doc["started_at"].endswith("Z") and doc["finished_at"].endswith("Z")
    providers = sorted(["ok/fp8", "slow/fp8", "garbage/fp8", "filter/fp8", "schema/fp8"])
    (model,) = doc["models"].values()
    assert list(doc["models"]) == ["deepseek/deepseek-chat-v3-0324"] and model["providers"] == providers
    # discovery's listed limits per endpoint ([context_length, max_completion_tokens]: issue 22), and
    # each endpoint's provider name, what production records name (issue 39)
    assert set(model) <= {"providers", "limits", "notes", "names"}
    assert model["names"]["schema/fp8"] == "Schema"
    assert sorted(model["limits"]) == providers and all(len(pair) == 2 for pair in model["limits"].values())
    assert len(doc["cases"]) == 20
    for case in doc["cases"]:
        assert set(case) == CASE_KEYS
        assert case["outcome"] in {"pass", "fail", "inconclusive", "transport_error", "not_applicable"}
        assert (case["language"] is not None) == (case["contract"] == "language")
    usage = doc["usage"]["deepseek/deepseek-chat-v3-0324"]["ok/fp8"]
    assert usage["requests"] == 4 and usage["completion_tokens"] > 0 and usage["cost_usd"] > 0
    report = read_results(doc)  # the judge accepts it
    assert report.complete and not report.rejected


def test_the_discovery_snapshot_is_saved(planted_round: ProbeRun) -> None:
    snapshot = (planted_round.reports / "discovery.json").read_text()
    assert "schema/fp8" in snapshot


def test_junit_carries_per_case_properties(planted_round: ProbeRun) -> None:
    junit = (planted_round.reports / "junit.xml").read_text()
    assert '<property name="contract" value="latency"' in junit
    assert '<property name="provider" value="slow/fp8"' in junit


def test_the_api_key_appears_nowhere_under_reports(planted_round: ProbeRun) -> None:
    assert files_containing(planted_round.reports, SENTINEL_KEY) == []
    assert SENTINEL_KEY not in planted_round.output


def test_a_second_round_gets_a_new_round_id(planted_round: ProbeRun, simulator, tmp_path: Path) -> None:
    again = run_round(tmp_path, simulator.base_url, "-m", "latency", "-k", "ok/fp8")
    assert again.results["round_id"] != planted_round.results["round_id"]

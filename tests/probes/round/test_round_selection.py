"""Selecting part of a round (-k, -m), replaying a snapshot, and rounds that must not look clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from round_support import MODEL, PLANTED, SENTINEL_KEY, canary_config, files_containing, run_round

from simulator import scenario_from_dict, start_simulator


@pytest.fixture
def simulator():
    with start_simulator(scenario_from_dict(PLANTED), seed=5) as sim:
        yield sim


def chat_tags(sim) -> set[str]:
    return {tag for r in sim.received if r.path.endswith("/chat/completions") for tag in r.provider.get("only", [])}


def test_k_with_a_tag_probes_only_that_endpoint_and_its_models_control(simulator, tmp_path: Path) -> None:
    run = run_round(tmp_path, simulator.base_url, "-k", "ok/fp8")
    assert {c["provider"] for c in run.results["cases"] if not c["control"]} == {"ok/fp8"}
    assert len(run.results["cases"]) == 5
    assert chat_tags(simulator) == {"ok/fp8", "filter/fp8"}  # the control: one refusal request, no more
    assert len([r for r in simulator.received if "filter/fp8" in r.provider.get("only", [])]) == 1
    assert run.case("ok/fp8", "refusal")["outcome"] == "pass"
    assert run.results["complete"] is True and run.rc == 0


def test_m_with_a_contract_selects_that_contract_and_a_snapshot_replays_discovery(simulator, tmp_path: Path) -> None:
    first = run_round(tmp_path / "a", simulator.base_url, "-m", "structured")
    assert {c["contract"] for c in first.results["cases"]} == {"structured"}
    assert len(first.results["cases"]) == 5
    def discoveries() -> int:  # the one GET /key asking who answers is not discovery (issue 19 item 12)
        return len([r for r in simulator.received if r.method == "GET" and r.path.endswith("/endpoints")])

    before = discoveries()
    snapshot = first.reports / "discovery.json"
    again = run_round(tmp_path / "b", simulator.base_url, "-m", "structured", "-k", "schema",
                      f"--discovery-snapshot={snapshot}")
    assert discoveries() == before  # no live discovery
    assert again.outcome("schema/fp8", "structured") == "fail"


def test_a_control_that_passes_makes_the_refusal_probe_weak(simulator, tmp_path: Path) -> None:
    config = canary_config(tmp_path, controls=("ok/fp8",))  # a healthy host posing as the known filter
    run = run_round(tmp_path, simulator.base_url, "-m", "refusal", config=config)
    doc = run.results
    assert [w["control"] for w in doc["weak_probes"]] == ["ok/fp8"]
    control = run.case("ok/fp8", "refusal")
    assert control["control"] is True and control["outcome"] == "fail" and "control missed" in control["reason"]
    for host in ("slow/fp8", "garbage/fp8", "schema/fp8"):
        case = run.case(host, "refusal")
        assert case["outcome"] == "inconclusive" and "probe weak: control ok/fp8 passed" in case["reason"]
    assert run.case("filter/fp8", "refusal")["outcome"] == "fail"  # failures still stand
    assert "PROBE WEAK" in run.output


def test_a_failed_discovery_makes_an_incomplete_round_with_one_erroring_case(simulator, tmp_path: Path) -> None:
    config = canary_config(tmp_path, model="nobody/no-such-model", controls=())
    run = run_round(tmp_path, simulator.base_url, "-k", "aurora", config=config)
    doc = run.results
    assert doc["complete"] is False and "nobody/no-such-model" in doc["incomplete_reason"]
    assert doc["cases"] == []
    assert run.rc == 1  # never exit 5 ("no tests"): the discovery case errors
    assert "nobody/no-such-model::discovery" in run.output and "ROUND INCOMPLETE" in run.output


def test_a_refused_key_is_an_incomplete_round_that_names_the_variable(tmp_path: Path) -> None:
    with start_simulator(scenario_from_dict(PLANTED)) as sim:
        run = run_round(tmp_path, sim.base_url, key="")  # no key: the simulator answers 401
    assert run.results["complete"] is False
    assert "OPENROUTER_API_KEY" in run.results["incomplete_reason"]


def test_canary_probe_runs_a_round_on_a_simulator_subprocess(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from round_support import ROOT, endpoint, scenario

    scenario_file = tmp_path / "scenario.yaml"
    scenario_file.write_text(yaml.safe_dump(scenario(endpoint("ok/fp8"), endpoint("iris/fp8"))), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL")}
    proc = subprocess.run(
        [sys.executable, "-m", "canary", "probe", "--config", str(canary_config(tmp_path, controls=())),
         "--scenario", str(scenario_file), "--reports", str(tmp_path / "r"), "-m", "latency"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads((tmp_path / "r" / "results.json").read_text())
    assert doc["complete"] and {c["provider"] for c in doc["cases"]} == {"ok/fp8", "iris/fp8"}
    assert (tmp_path / "r" / "allure-results" / "categories.json").exists()
    assert (tmp_path / "r" / "allure-results" / "environment.properties").read_text().count("upstream=simulator") == 1
    assert "results.json" in proc.stdout
    assert files_containing(tmp_path / "r", SENTINEL_KEY) == []
    assert MODEL in doc["models"]

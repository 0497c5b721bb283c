"""Positive controls: a scenario brings its own; one that gives no verdict is loud everywhere;
without one, refusal passes are passes; the virtual clock never reaches a real upstream."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from round_support import (
    MODEL,
    PLANTED,
    ROOT,
    SENTINEL_KEY,
    canary_config,
    endpoint,
    run_round,
    scenario,
)

from canary.cli.main import main as canary
from canary.outputs import summary
from core.results_read import read_results
from judge.suspension.decisions import read_round_decisions
from simulator import scenario_from_dict, start_simulator
from simulator.process import SCENARIO_ENV

HEALTHY = ("ok/fp8", "slow/fp8", "garbage/fp8", "schema/fp8")


@pytest.fixture(scope="module")
def planted():
    with start_simulator(scenario_from_dict(PLANTED), seed=7) as sim:
        yield sim


def allure_results(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*-result.json")]


def judge(tmp: Path, results: Path, *extra: str) -> dict[str, Any]:
    """`canary judge` on copies of the judge's files; returns decisions.json."""
    files = ["--state", str(tmp / "state.json"), "--audit", str(tmp / "audit.jsonl"),
             "--builtin", str(tmp / "none.yaml"), "--incidents", str(tmp / "none.yaml")]
    # a simulator round judged on scratch copies of the state
    assert canary(["judge", str(results), *files, "--decisions-out", str(tmp / "decisions.json"),
                   "--allow-simulator", *extra]) == 0
    return json.loads((tmp / "decisions.json").read_text(encoding="utf-8"))


def bare_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "CANARY_CONFIG", SCENARIO_ENV)}
    return {**env, **extra}


# -- no control configured ---------------------------------------------------------------------

def test_without_a_control_refusal_passes_count_as_passes(planted, tmp_path: Path) -> None:
    run = run_round(tmp_path, planted.base_url, "-m", "refusal", config=canary_config(tmp_path, controls=()))
    assert run.case("ok/fp8", "refusal")["outcome"] == "pass"
    assert run.case("filter/fp8", "refusal")["outcome"] == "fail"  # an ordinary host now: it filters
    assert run.results["unprobed_controls"] == [] and run.results["weak_probes"] == []
    assert "CONTROL NOT PROBED" not in run.output


# -- a configured control that gives no verdict is loud ----------------------------------------

@pytest.fixture(scope="module")
def ghost_round(planted, tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("ghost")
    config = canary_config(tmp, controls=("ghost/fp8",))  # served nowhere: the checked-in mistake
    run = run_round(tmp, planted.base_url, "-m", "refusal", f"--alluredir={tmp / 'allure'}", config=config)
    return tmp, run


def test_an_undiscovered_control_is_listed_in_the_results(ghost_round) -> None:
    _, run = ghost_round
    [missing] = run.results["unprobed_controls"]
    assert missing == {"model": MODEL, "contract": "refusal", "control": "ghost/fp8",
                       "reason": "ghost/fp8 not discovered by the upstream for this model"}
    for host in HEALTHY:
        case = run.case(host, "refusal")
        assert case["outcome"] == "inconclusive"
        assert "probe unverified: control ghost/fp8 not discovered" in case["reason"]


def test_an_undiscovered_control_is_loud_in_the_terminal_and_allure(ghost_round) -> None:
    tmp, run = ghost_round
    assert "!!! CONTROL NOT PROBED" in run.output and "ghost/fp8" in run.output
    [broken] = [r for r in allure_results(tmp / "allure") if "ghost/fp8" in r["name"]]
    assert broken["status"] == "broken"
    assert broken["statusDetails"]["message"].startswith("control not probed: ghost/fp8")
    assert {"name": "subSuite", "value": "ghost/fp8"} in broken["labels"]
    categories = json.loads((tmp / "allure" / "categories.json").read_text(encoding="utf-8"))
    assert categories[0]["name"].startswith("Positive control not probed")


def test_an_undiscovered_control_is_a_decision_the_summary_and_notification_carry(ghost_round, monkeypatch,
                                                                                   capsys) -> None:
    tmp, run = ghost_round
    step_summary = tmp / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    decisions = judge(tmp, run.reports / "results.json")
    [d] = [d for d in decisions["decisions"] if d["action"] == "control_unprobed"]
    assert (d["model"], d["provider"], d["rule"]) == (MODEL, "ghost/fp8", "unprobed_control")
    assert "control_unprobed ghost/fp8" in capsys.readouterr().out  # the notification on stdout
    step_text = step_summary.read_text(encoding="utf-8")
    assert "| control_unprobed | `deepseek/deepseek-chat-v3-0324` | `ghost/fp8` |" in step_text
    record = read_round_decisions(decisions)
    markdown = summary.to_markdown(read_results(run.results), record)
    assert "refusal probe unverified" in markdown and "Control not probed" in markdown
    assert "probe unverified" in summary.to_text(read_results(run.results), record)


def test_k_on_one_provider_keeps_its_models_control_and_gives_the_full_rounds_verdicts(planted, tmp_path: Path) -> None:
    full = run_round(tmp_path / "full", planted.base_url)
    one = run_round(tmp_path / "one", planted.base_url, "-k", "ok/fp8")
    assert one.results["unprobed_controls"] == [] and "CONTROL NOT PROBED" not in one.output
    control = one.case("filter/fp8", "refusal")
    assert control["control"] is True and control["outcome"] == "pass"  # caught: the probe proved itself
    assert {c["provider"] for c in one.results["cases"]} == {"ok/fp8", "filter/fp8"}
    assert [c["contract"] for c in one.results["cases"] if c["provider"] == "filter/fp8"] == ["refusal"]
    for contract in ("latency", "refusal", "structured", "language"):
        assert one.outcome("ok/fp8", contract) == full.outcome("ok/fp8", contract), contract
    assert one.outcome("ok/fp8", "refusal") == "pass"  # was inconclusive: "probe unverified"
    # Shown as the control it is, not as a case the developer selected.
    assert "positive control filter/fp8 of" in one.output and "kept through -k/-m" in one.output
    assert "refusal ctl" in one.output


def test_m_refusal_with_k_keeps_the_control_too(planted, tmp_path: Path) -> None:
    run = run_round(tmp_path, planted.base_url, "-m", "refusal", "-k", "garbage/fp8")
    assert run.results["unprobed_controls"] == []
    assert {(c["provider"], c["contract"]) for c in run.results["cases"]} == {
        ("garbage/fp8", "refusal"), ("filter/fp8", "refusal")}


def test_a_run_without_refusal_cases_needs_no_control(planted, tmp_path: Path) -> None:
    run = run_round(tmp_path, planted.base_url, "-m", "latency", "-k", "ok/fp8")
    assert run.results["unprobed_controls"] == []


def test_an_unreachable_control_is_listed_as_probed_without_a_verdict(tmp_path: Path) -> None:
    down = scenario(endpoint("ok/fp8"), endpoint("down/fp8", {"http_error": {"rate": 1.0, "status": 503}}))
    with start_simulator(scenario_from_dict(down), seed=1) as sim:
        run = run_round(tmp_path, sim.base_url, "-m", "refusal", config=canary_config(tmp_path, controls=("down/fp8",)))
    [missing] = run.results["unprobed_controls"]
    assert missing["control"] == "down/fp8" and "probed without a verdict (transport_error)" in missing["reason"]
    assert run.case("ok/fp8", "refusal")["outcome"] == "inconclusive"


# -- the simulator's scenario brings its own control -------------------------------------------

def scenario_with_control(tmp: Path) -> Path:
    data = scenario(endpoint("ok/fp8"), endpoint("filter/fp8", {"refusal": {"rate": 1.0}}))
    data["models"][0]["endpoints"][1]["positive_control"] = True
    path = tmp / "scenario.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_a_round_on_the_bundled_simulator_uses_the_scenarios_control(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "probes", "-p", "no:cacheprovider", "-q", "-m", "refusal",
         f"--canary-config={canary_config(tmp_path, controls=())}", f"--canary-reports={reports}",
         f"--canary-state={tmp_path / 'none.json'}", f"--canary-scenario={scenario_with_control(tmp_path)}"],
        cwd=ROOT, env=bare_env(), capture_output=True, text=True, timeout=180)
    doc = json.loads((reports / "results.json").read_text(encoding="utf-8"))
    control = [c for c in doc["cases"] if c["provider"] == "filter/fp8"]
    assert control and control[0]["control"] is True and control[0]["reason"].startswith("control caught"), proc.stdout
    assert [c["outcome"] for c in doc["cases"] if c["provider"] == "ok/fp8"] == ["pass"]
    assert doc["controls_source"] == "simulator scenario probe-tests" and doc["unprobed_controls"] == []


def test_canary_probe_hands_the_scenarios_control_to_the_round(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "canary", "probe", "--config", str(canary_config(tmp_path, controls=())),
         "--scenario", str(scenario_with_control(tmp_path)), "--reports", str(tmp_path / "r"), "-m", "refusal"],
        cwd=ROOT, env=bare_env(), capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    assert [c["provider"] for c in doc["cases"] if c["control"]] == ["filter/fp8"]


def collect_only(tmp: Path, base_url: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Settle a round without probing anything (a saved discovery, --collect-only)."""
    snapshot = tmp / "snapshot.json"
    endpoints = [{"model": MODEL, "provider": tag, "provider_name": tag, "quantization": "fp8",
                  "supported_parameters": ["max_tokens"], "prompt_price": 0.0, "completion_price": 0.0,
                  "context_length": None, "max_completion_tokens": None, "status": 0}
                 for tag in ("ok/fp8", "filter/fp8")]
    snapshot.write_text(json.dumps({"plan": {"schema_version": 1, "models": {MODEL: {"endpoints": endpoints}}}}))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "probes", "-p", "no:cacheprovider", "-q", "--collect-only",
         f"--canary-config={canary_config(tmp, controls=('real-filter/fp8',))}", f"--canary-reports={tmp / 'r'}",
         f"--canary-state={tmp / 'none.json'}", f"--discovery-snapshot={snapshot}", *args],
        cwd=ROOT, env=bare_env(OPENROUTER_BASE_URL=base_url, OPENROUTER_API_KEY=SENTINEL_KEY, **env),
        capture_output=True, text=True, timeout=120)


def test_the_probes_and_the_simulator_name_the_same_scenario_variable() -> None:
    from probes.pytest_plugin import bundled_simulator

    assert bundled_simulator.SCENARIO_ENV == SCENARIO_ENV


def test_a_real_upstream_keeps_canary_yamls_controls_whatever_the_environment_says(tmp_path: Path) -> None:
    scenario_file = scenario_with_control(tmp_path)
    proc = collect_only(tmp_path, "https://openrouter.ai/api/v1", **{SCENARIO_ENV: str(scenario_file)})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    snapshot = json.loads((tmp_path / "r" / "discovery.json").read_text(encoding="utf-8"))
    assert snapshot["controls_source"] == "canary.yaml" and snapshot["clock"] == "real"
    assert snapshot["plan"]["controls"] == {MODEL: ["real-filter/fp8"]}


def test_a_local_simulator_with_a_known_scenario_uses_the_scenarios_controls(tmp_path: Path) -> None:
    file = scenario_with_control(tmp_path)
    # The simulator says it is one (issue 19 item 12): the address alone would not make it so.
    with start_simulator(scenario_from_dict(yaml.safe_load(file.read_text(encoding="utf-8")))) as sim:
        proc = collect_only(tmp_path, sim.base_url, **{SCENARIO_ENV: str(file)})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    snapshot = json.loads((tmp_path / "r" / "discovery.json").read_text(encoding="utf-8"))
    assert snapshot["controls_source"] == "simulator scenario probe-tests"
    assert snapshot["plan"]["controls"] == {MODEL: ["filter/fp8"]}


def test_a_proxy_on_localhost_that_is_not_the_simulator_keeps_canary_yamls_controls(tmp_path: Path) -> None:
    proc = collect_only(tmp_path, "http://127.0.0.1:9/api/v1", **{SCENARIO_ENV: str(scenario_with_control(tmp_path))})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    snapshot = json.loads((tmp_path / "r" / "discovery.json").read_text(encoding="utf-8"))
    assert snapshot["upstream"] == "custom" and snapshot["controls_source"] == "canary.yaml"


# -- the virtual clock ---------------------------------------------------------------------------

def test_the_virtual_clock_is_refused_on_a_real_upstream(tmp_path: Path) -> None:
    proc = collect_only(tmp_path, "https://openrouter.ai/api/v1", "--canary-virtual-time=2026-12-01T00:00:00Z")
    assert proc.returncode != 0
    assert "for simulator rounds only" in proc.stdout + proc.stderr
    assert not (tmp_path / "r" / "discovery.json").exists()


def test_a_simulator_round_records_its_virtual_start(planted, tmp_path: Path) -> None:
    run = run_round(tmp_path, planted.base_url, "-m", "latency", "-k", "ok/fp8",
                    "--canary-virtual-time=2030-01-01T00:30:00Z")
    doc = run.results
    assert doc["started_at"] == "2030-01-01T00:30:00Z" and doc["clock"] == "virtual"
    assert doc["round_id"].startswith("20300101T003000Z-")
    assert "2030-01-01T00:30:00Z" <= doc["finished_at"] < "2030-01-01T00:35:00Z"
    assert "(virtual time)" in summary.to_text(read_results(doc))

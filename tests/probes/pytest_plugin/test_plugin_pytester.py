"""The probes plugin driven in-process by pytest's own `pytester`: no subprocess, the real plugin,
the real client over real sockets against the bundled simulator (a thread of this process).

What the plugin owes pytest is checked here as pytest reports it (outcomes, ids, markers), and
what it owes the judge as the one reader reads it (core.results_read.read_results). The subprocess
rounds (tests/probes/round/test_round_*.py) keep covering the exit codes and the round as
`canary probe` runs it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from round_support import PLANTED, SENTINEL_KEY, canary_config, endpoint, scenario

import probes
import probes.pytest_plugin.hooks  # noqa: F401  imported before pytester's sys.modules snapshot: one plugin module for every run
from core.results import IncompleteKind, ModelEntry, RoundResults
from core.results_read import read_results
from simulator import RunningSimulator, scenario_from_dict, start_simulator

PROBES = Path(probes.__file__).resolve().parent


@pytest.fixture(scope="module")
def planted() -> Iterator[RunningSimulator]:
    with start_simulator(scenario_from_dict(PLANTED), seed=11) as sim:
        yield sim


def run_round(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, sim: RunningSimulator, *args: str,
              config: Path | None = None) -> tuple[pytest.RunResult, RoundResults]:
    """`pytest probes` in-process: the plugin's own conftest and test module, this round's options."""
    pytester.makeconftest((PROBES / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_round=(PROBES / "test_round.py").read_text(encoding="utf-8"))
    pytester.makeini("[pytest]\nmarkers =\n    latency\n    refusal\n    structured\n    language\n"
                     "    control\n    discovery\n")
    monkeypatch.setenv("OPENROUTER_BASE_URL", sim.base_url)
    monkeypatch.setenv("OPENROUTER_API_KEY", SENTINEL_KEY)
    for name in ("CANARY_CONFIG", "CANARY_SIMULATOR_SCENARIO"):
        monkeypatch.delenv(name, raising=False)
    tmp = pytester.path / "round"
    reports = tmp / "reports"
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", f"--canary-config={config or canary_config(tmp)}",
        f"--canary-reports={reports}", f"--canary-state={tmp / 'no-state.json'}", *args)
    record = read_results(json.loads((reports / "results.json").read_text(encoding="utf-8")), "results.json")
    return result, record


def test_a_healthy_case_passes_and_its_record_reads_back_through_the_one_reader(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, planted: RunningSimulator) -> None:
    result, record = run_round(pytester, monkeypatch, planted, "-m", "latency", "-k", "ok/fp8")
    result.assert_outcomes(passed=1)
    assert record.complete and record.incomplete == ()
    [case] = record.cases
    assert case.id == "deepseek/deepseek-chat-v3-0324::ok/fp8::latency" and case.outcome.value == "pass"
    assert case.attempts and case.ttft_s is not None and "ok/fp8" in record.providers(case.model)


def test_a_failed_quality_contract_is_a_pytest_failure_and_a_fail_in_the_record(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, planted: RunningSimulator) -> None:
    result, record = run_round(pytester, monkeypatch, planted, "-m", "latency", "-k", "slow/fp8")
    result.assert_outcomes(failed=1)
    assert [(c.provider, c.outcome.value) for c in record.cases] == [("slow/fp8", "fail")]
    assert record.complete  # a failing host is the round's business, not an incomplete round


def test_a_failed_case_is_reported_as_its_one_line_reason_not_a_traceback(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, planted: RunningSimulator) -> None:
    result, _ = run_round(pytester, monkeypatch, planted, "-m", "latency", "-k", "slow/fp8")
    lines = result.stdout.lines
    failures = lines[lines.index(next(ln for ln in lines if "FAILURES" in ln)) + 1:]
    assert "slow/fp8::latency" in failures[0]
    assert failures[1].startswith("quality failure: first token after ") and "canary round" in failures[2]
    assert not any("ProbedCase(" in ln or "outcomes.py" in ln for ln in lines)


def test_a_failed_discovery_is_its_own_erroring_case_that_no_selection_hides(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, planted: RunningSimulator) -> None:
    config = canary_config(pytester.path / "round", model="nobody/no-such-model", controls=())
    result, record = run_round(pytester, monkeypatch, planted, "-k", "aurora", config=config)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*nobody/no-such-model::discovery*"])
    assert not record.complete and record.cases == ()
    assert record.incomplete_kinds() == {IncompleteKind.DISCOVERY}
    assert "nobody/no-such-model" in (record.incomplete_reason or "")
    # Named with no endpoint: the round says which model its discovery failed for.
    assert record.models == {"nobody/no-such-model": ModelEntry()}


def test_each_case_is_reported_when_its_probe_ends_not_in_collection_order(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # Reporting a case (JUnit, Allure's files) then overlaps the other probes' waits, and the round
    # ends with its slowest probe instead of a backlog of reports after it.
    slow = endpoint("a-slow/fp8", {"slow_first_token": {"rate": 1.0, "delay_ms": 1500}})
    with start_simulator(scenario_from_dict(scenario(slow, endpoint("b-fast/fp8"))), seed=3) as sim:
        result, _ = run_round(pytester, monkeypatch, sim, "-m", "latency", "-v")
    ran = [ln for ln in result.stdout.lines if "::latency]" in ln and ("PASSED" in ln or "FAILED" in ln)]
    assert ["b-fast" in ran[0], "a-slow" in ran[1]] == [True, True], ran

"""`pytest probes` ends as results.json, a JUnit file and Allure results, with no option needed.

Each test runs a real round (`pytest probes` in a subprocess, against a simulator on 127.0.0.1)
with a different command line: nothing about the outputs, explicit --junitxml/--alluredir,
`-n 2` (one process all the same), --collect-only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from round_support import ROOT, SENTINEL_KEY, canary_config, endpoint, scenario

from simulator import RunningSimulator, scenario_from_dict, start_simulator

pytestmark = pytest.mark.slow

HOSTS = scenario(endpoint("ok/fp8"), endpoint("iris/fp8"))


@pytest.fixture(scope="module")
def sim() -> Iterator[RunningSimulator]:
    with start_simulator(scenario_from_dict(HOSTS), seed=3) as running:
        yield running


def probes(sim: RunningSimulator, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`pytest probes` with only the round's own options (latency only: small and quick)."""
    env = {**os.environ, "OPENROUTER_BASE_URL": sim.base_url, "OPENROUTER_API_KEY": SENTINEL_KEY}
    env.pop("CANARY_CONFIG", None)
    cmd = [sys.executable, "-m", "pytest", "probes", "-p", "no:cacheprovider", "-q", "-m", "latency",
           f"--canary-config={canary_config(tmp, controls=())}", f"--canary-reports={tmp / 'reports'}",
           f"--canary-state={tmp / 'no-state.json'}", *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


def junit_cases(path: Path) -> list[str]:
    return [tc.get("name", "") for tc in ElementTree.parse(path).getroot().iter("testcase")]


def allure_results(folder: Path) -> list[Path]:
    return sorted(folder.glob("*-result.json"))


def test_a_round_writes_junit_and_allure_results_into_the_reports_folder_by_default(sim: RunningSimulator,
                                                                                   tmp_path: Path) -> None:
    stale = tmp_path / "reports" / "allure-results" / "old-round-result.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}", encoding="utf-8")

    done = probes(sim, tmp_path)

    reports = tmp_path / "reports"
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert len(junit_cases(reports / "junit.xml")) == 2
    assert len(allure_results(reports / "allure-results")) == 2
    assert (reports / "allure-results" / "environment.properties").exists()
    assert not stale.exists()  # the folder holds this round only
    assert (reports / "results.json").exists()


def test_explicit_junitxml_and_alluredir_still_win(sim: RunningSimulator, tmp_path: Path) -> None:
    done = probes(sim, tmp_path, f"--junitxml={tmp_path / 'mine.xml'}", f"--alluredir={tmp_path / 'mine'}")

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert len(junit_cases(tmp_path / "mine.xml")) == 2 and len(allure_results(tmp_path / "mine")) == 2
    assert not (tmp_path / "reports" / "junit.xml").exists()
    assert not (tmp_path / "reports" / "allure-results").exists()


def test_n_workers_runs_the_round_in_one_process_and_says_why(sim: RunningSimulator, tmp_path: Path) -> None:
    done = probes(sim, tmp_path, "-n", "2")

    reports = tmp_path / "reports"
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "canary: -n ignored: a round runs in one process" in done.stdout
    assert "bringing up nodes" not in done.stdout  # xdist started no worker
    assert len(junit_cases(reports / "junit.xml")) == 2
    assert len(allure_results(reports / "allure-results")) == 2


def test_collect_only_leaves_the_last_rounds_reports_alone(sim: RunningSimulator, tmp_path: Path) -> None:
    done = probes(sim, tmp_path, "--collect-only")

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not (tmp_path / "reports" / "junit.xml").exists()
    assert not (tmp_path / "reports" / "allure-results").exists()

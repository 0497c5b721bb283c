"""The README's demo: `canary round` twice on the bundled simulator's default scenario (36 cases),
as a person reads it (issue 38, item 11): each failure told once, in one short line, the whole
second round within 80 lines, and the first one saying when the judge decides and what to run next."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[3]
MODEL = "deepseek/deepseek-chat-v3-0324"   # the default scenario's model, as canary.yaml ships it
MOST_LINES = 80
REPORT_LINES = 2   # "\nAllure report (round #2 of its trend): ..." (left out here: --no-report)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    tmp = tmp_path_factory.mktemp("demo")
    config = tmp / "canary.yaml"
    config.write_text(yaml.safe_dump({
        "mode": "observe", "models": [MODEL],
        "paths": {"reports": str(tmp / "reports"), "state": str(tmp / "real-state" / "state.json"),
                  "audit": str(tmp / "real-state" / "audit.jsonl")},
    }), encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "GITHUB_STEP_SUMMARY", "CANARY_WEBHOOK_URL")}
    outputs = []
    for _ in range(2):
        run = subprocess.run([sys.executable, "-m", "canary", "--config", str(config), "round", "--no-report"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        outputs.append(run.stdout)
    return tmp, outputs


def test_the_second_round_fits_in_80_lines(demo: tuple[Path, list[str]]) -> None:
    _, (_, second) = demo
    assert len(second.splitlines()) + REPORT_LINES <= MOST_LINES, second   # 232 lines before issue 38


def test_each_failure_is_told_once_in_one_line_without_a_traceback(demo: tuple[Path, list[str]]) -> None:
    tmp, (_, second) = demo
    results = json.loads((tmp / "reports" / "results.json").read_text(encoding="utf-8"))
    failed = [(c["provider"], c["reason"]) for c in results["cases"] if c["outcome"] == "fail"]
    assert len(failed) == 6   # the scenario's five planted hosts, cinder/fp8 on two contracts
    lines = second.splitlines()
    for provider, reason in failed:
        assert sum(provider in line and reason[:60] in line for line in lines) == 1, (provider, reason)
    assert "ProbedCase(" not in second and "Traceback" not in second and "ContractViolation" not in second


def test_the_first_round_says_when_the_judge_decides_and_what_to_run_next(demo: tuple[Path, list[str]]) -> None:
    _, (first, second) = demo
    assert "1 of 2 failed rounds: decided at the next round" in first
    assert "Would be suspended" not in first and "Would be suspended" in second
    [advice] = [line for line in first.splitlines() if line.startswith("next: ")]
    assert "canary round" in advice and "canary status --state" in advice

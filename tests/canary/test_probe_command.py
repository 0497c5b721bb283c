"""`canary probe` inside GitHub Actions: a missing key stops it; the simulator only on request.

An absent secret arrives in a GitHub Actions step as an empty string. Before this refusal the
probe started the bundled simulator, and the judge committed its fictional decisions to the real
state. Each test runs the real command in a subprocess with GITHUB_ACTIONS=true.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODEL = "deepseek/deepseek-chat-v3-0324"


def probe(tmp_path: Path, *args: str, key: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "CANARY_CONFIG", "GITHUB_STEP_SUMMARY")}
    env["GITHUB_ACTIONS"] = "true"
    if key is not None:
        env["OPENROUTER_API_KEY"] = key
    return subprocess.run([sys.executable, "-m", "canary", "probe", "--reports", str(tmp_path / "reports"), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("key", [None, "", "  "], ids=["unset", "empty (an absent secret)", "blank"])
def test_a_missing_key_in_github_actions_stops_the_probe_naming_the_secret_and_writes_nothing(
        tmp_path: Path, key: str | None) -> None:
    done = probe(tmp_path, "--model", MODEL, key=key)
    assert done.returncode == 2
    assert "OPENROUTER_API_KEY" in done.stderr and "environment `canary`" in done.stderr
    assert "--simulator" in done.stderr and "simulator at" not in done.stdout
    assert not (tmp_path / "reports").exists()


def test_asking_for_the_simulator_probes_it_and_reads_the_language_plan_from_the_state_checkout(
        tmp_path: Path) -> None:
    checkout = tmp_path / "canary-state"
    (checkout / "state").mkdir(parents=True)
    (checkout / "state" / "canary-state.json").write_text(json.dumps({
        "schema_version": 1, "mode": None, "applied_rounds": [], "last_round": None,
        "models": {MODEL: {"aurora/fp8": {"failed_streak": 1, "clean_streak": 0, "suspension": None,
                                          "ladder": {"rung": 0, "last_suspension_started": None},
                                          "last_reasons": [], "next_language": "ja"}}}}))
    done = probe(tmp_path, "--simulator", "--state-checkout", str(checkout), "-k", "aurora/fp8", "-m", "language",
                 key=None)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    doc = json.loads((tmp_path / "reports" / "results.json").read_text())
    assert doc["upstream"] == "simulator"
    [case] = doc["cases"]
    assert (case["provider"], case["contract"], case["language"]) == ("aurora/fp8", "language", "ja")

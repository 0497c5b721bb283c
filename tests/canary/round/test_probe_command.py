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

ROOT = Path(__file__).resolve().parents[3]
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


def _record(tmp_path: Path, **fields: object) -> Path:
    doc = {"schema_version": 1, "round_id": "r1", "started_at": "2026-11-30T10:00:00Z", "complete": True,
           "models": {}, "cases": [], **fields}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("fields, code", [
    ({}, 0),
    ({"complete": False, "incomplete_reason": "the upstream refused our API key: check OPENROUTER_API_KEY",
      "incomplete": [{"kind": "auth", "detail": "the upstream refused our API key: check OPENROUTER_API_KEY"}]}, 3),
    ({"complete": False, "incomplete_reason": "discovery of 'm/x' failed; the upstream refused our API key",
      "incomplete": [{"kind": "discovery", "detail": "discovery of 'm/x' failed"},
                     {"kind": "auth", "detail": "the upstream refused our API key"}]}, 3),
    # The kind decides, not the words: a discovery failure that mentions the key is not a refused key.
    ({"complete": False, "incomplete_reason": "discovery: OPENROUTER_API_KEY looks odd",
      "incomplete": [{"kind": "discovery", "detail": "discovery: OPENROUTER_API_KEY looks odd"}]}, 1),
    ({"complete": False, "incomplete_reason": "the round was interrupted",
      "incomplete": [{"kind": "interrupted", "detail": "the round was interrupted"}]}, 1),
    ({"schema_version": 3}, 2),
], ids=["complete", "auth", "discovery-and-auth", "words-are-not-the-kind", "interrupted", "refused-record"])
def test_the_exit_code_comes_from_why_the_round_is_incomplete(tmp_path: Path, fields: dict[str, object],
                                                              code: int) -> None:
    from canary.round.probing import exit_code, read_round
    assert exit_code(0, read_round(_record(tmp_path, **fields))) == code
    assert exit_code(0, read_round(tmp_path / "absent.json")) == 2


def test_a_probe_run_from_another_folder_plans_from_that_folders_canary_yaml(tmp_path: Path) -> None:
    # Issue 31: `pytest probes` ran in the project's folder, so the round was planned from the project's
    # canary.yaml (no tools contract) while the judge read the caller's (tools for this model).
    caller = tmp_path / "elsewhere"
    caller.mkdir()
    (caller / "canary.yaml").write_text(json.dumps({"models": [MODEL], "optional_contracts": {MODEL: ["tools"]},
                                                    "paths": {"reports": "my-reports"}}))
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "CANARY_CONFIG", "GITHUB_ACTIONS",
                        "GITHUB_STEP_SUMMARY")}
    done = subprocess.run([sys.executable, "-m", "canary", "probe", "--simulator", "-k", "aurora/fp8"], cwd=caller,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]
    doc = json.loads((caller / "my-reports" / "results.json").read_text())
    assert {c["contract"] for c in doc["cases"]} >= {"tools", "language"}, doc["cases"]

"""`canary round`, the README's first command: probe, judge, summary — twice, on the simulator."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
MODEL = "acme/roleplay-test"


def endpoint(tag: str, faults: dict | None = None) -> dict:
    return {"tag": tag, "provider_name": tag.split("/")[0].capitalize(),
            "pricing": {"prompt": "0.0000003", "completion": "0.000001"},
            "supported_parameters": ["max_tokens", "temperature", "seed", "response_format", "structured_outputs"],
            "behaviour": {"ttft_ms": 40, "tokens_per_second": 400, "faults": faults or {}}}


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def two_rounds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[subprocess.CompletedProcess[str]], str]:
    tmp = tmp_path_factory.mktemp("round")
    scenario = tmp / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"name": "round-command", "keepalive_ms": 50, "models": [{
        "id": MODEL, "name": "Test", "permaslug": MODEL, "endpoints": [
            endpoint("ok/fp8"), endpoint("fine/fp8"), endpoint("other/fp8"),
            endpoint("schema/fp8", {"schema_violation": {"rate": 1.0}})]}]}), encoding="utf-8")
    config = tmp / "canary.yaml"
    config.write_text(yaml.safe_dump({
        # No `probe:` key: canary.yaml's thresholds, which no load reaches (2 s failed healthy hosts).
        "mode": "observe", "models": [MODEL], "contracts": ["latency", "structured"],
        "paths": {"reports": str(tmp / "reports"), "state": str(tmp / "real-state" / "state.json"),
                  "audit": str(tmp / "real-state" / "audit.jsonl")},
    }), encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "GITHUB_STEP_SUMMARY", "CANARY_WEBHOOK_URL")}
    before = tree_digest(ROOT / "state") if (ROOT / "state").exists() else ""
    runs = [subprocess.run([sys.executable, "-m", "canary", "--config", str(config), "round", "--scenario",
                            str(scenario), "--no-report"], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=300) for _ in range(2)]
    after = tree_digest(ROOT / "state") if (ROOT / "state").exists() else ""
    assert before == after, "a simulator round must never touch the repository's state/"
    return tmp, runs, after


def test_both_rounds_complete_and_print_the_table(two_rounds) -> None:
    _, runs, _ = two_rounds
    for run in runs:
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        assert "schema/fp8" in run.stdout and "provider.ignore" in run.stdout


def test_the_second_failed_round_would_suspend_in_observe_mode(two_rounds) -> None:
    tmp, runs, _ = two_rounds
    assert "Would be suspended" not in runs[0].stdout
    assert "Would be suspended" in runs[1].stdout and "schema/fp8" in runs[1].stdout
    decisions = json.loads((tmp / "reports" / "decisions.json").read_text(encoding="utf-8"))
    assert [(d["provider"], d["action"]) for d in decisions["decisions"]] == [("schema/fp8", "would_suspend")]
    assert decisions["ignore"] == {MODEL: []}  # observe mode never reaches provider.ignore


def test_simulator_rounds_keep_the_judges_files_under_reports(two_rounds) -> None:
    tmp, _, _ = two_rounds
    state = json.loads((tmp / "reports" / "simulator-state" / "state.json").read_text(encoding="utf-8"))
    assert len(state["applied_rounds"]) == 2
    assert not (tmp / "real-state").exists()

"""The checked-in canary.yaml against an OpenRouter-shaped fleet that has no simulator-only host.

Four `canary round`s (the README's first command, on the bundled simulator's virtual clock,
30 minutes apart) of a fleet with real-looking tags and no `ember/fp8`: healthy hosts must pass
the refusal contract (no control is configured, so a pass is a pass), and a host that is broken
for two rounds and then healed must be would-suspended, then restored by two clean rounds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.config import load_config
from simulator.process import SCENARIO_ENV

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
MODEL = load_config(ROOT / "canary.yaml").models[0]
HEALED = "novita/fp8"
HEALTHY = ("deepinfra/fp8", "fireworks", "google-vertex/us-east5", "together/fp8")
FAST = {"ttft_ms": 80, "jitter_ms": 20, "tokens_per_second": 600}
PARAMS = ["max_tokens", "temperature", "top_p", "seed", "stop", "response_format", "structured_outputs"]
ROUNDS = 4


def fleet() -> dict[str, Any]:
    def host(tag: str, name: str, **extra: Any) -> dict[str, Any]:
        return {"tag": tag, "provider_name": name, "quantization": tag.split("/")[1] if "/" in tag else None,
                "pricing": {"prompt": "0.00000028", "completion": "0.00000088"}, "supported_parameters": PARAMS,
                "behaviour": dict(FAST), **extra}

    endpoints = [host("deepinfra/fp8", "DeepInfra"), host("fireworks", "Fireworks"),
                 host("google-vertex/us-east5", "Google"), host("together/fp8", "Together"),
                 host(HEALED, "NovitaAI", phases=[{"to_round": 2, "faults": {"leading_garbage": {"rate": 1.0}}}])]
    return {"name": "openrouter-shaped", "keepalive_ms": 100,
            "models": [{"id": MODEL, "name": "DeepSeek V3 0324", "permaslug": MODEL, "endpoints": endpoints}]}


@pytest.fixture(scope="module")
def rounds(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("checked-in")
    scenario = tmp / "fleet.yaml"
    scenario.write_text(yaml.safe_dump(fleet()), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in (
        "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "CANARY_CONFIG", SCENARIO_ENV, "GITHUB_STEP_SUMMARY",
        "CANARY_WEBHOOK_URL")}
    out = []
    for _ in range(ROUNDS):
        proc = subprocess.run([sys.executable, "-m", "canary", "round", "--scenario", str(scenario),
                               "--reports", str(tmp / "reports"), "--no-report"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=400)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        reports = tmp / "reports"
        out.append({"stdout": proc.stdout,
                    "results": json.loads((reports / "results.json").read_text(encoding="utf-8")),
                    "decisions": json.loads((reports / "decisions.json").read_text(encoding="utf-8"))})
    return out


def outcome(doc: dict[str, Any], provider: str, contract: str) -> str:
    [case] = [c for c in doc["cases"] if c["provider"] == provider and c["contract"] == contract]
    return str(case["outcome"])


def actions(step: dict[str, Any]) -> list[tuple[str, str]]:
    return [(d["action"], d["provider"]) for d in step["decisions"]["decisions"]]


def test_the_checked_in_configuration_probes_this_fleet_without_a_control(rounds) -> None:
    for step in rounds:
        doc = step["results"]
        assert doc["complete"] and doc["controls_source"].startswith("simulator scenario")
        assert not any(c["control"] for c in doc["cases"])
        assert doc["unprobed_controls"] == [] and doc["weak_probes"] == []


def test_healthy_hosts_pass_the_refusal_contract_every_round(rounds) -> None:
    for step in rounds:
        assert [outcome(step["results"], h, "refusal") for h in HEALTHY] == ["pass"] * len(HEALTHY)


def test_the_rounds_are_half_an_hour_apart_on_the_virtual_clock(rounds) -> None:
    starts = [step["results"]["started_at"] for step in rounds]
    assert all(step["results"]["clock"] == "virtual" for step in rounds)
    assert [step["decisions"]["gap_minutes"] for step in rounds[1:]] == [30.0] * (ROUNDS - 1), starts
    assert "(virtual time)" in rounds[1]["stdout"]


def test_a_broken_host_is_would_suspended_then_restored_by_two_clean_rounds(rounds) -> None:
    assert [outcome(step["results"], HEALED, "language") for step in rounds] == ["fail", "fail", "pass", "pass"]
    assert actions(rounds[0]) == []
    assert actions(rounds[1]) == [("would_suspend", HEALED)]
    assert actions(rounds[2]) == []
    assert actions(rounds[3]) == [("restore", HEALED)]
    assert rounds[3]["decisions"]["would_ignore"] == {MODEL: []}

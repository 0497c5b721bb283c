"""`canary discover [--model M] [--ping]` end to end against a simulator on a real socket."""

from __future__ import annotations

import pytest

from canary.cli.main import main
from simulator import scenario_from_dict, start_simulator

SECRET = "sk-or-v1-SENTINEL-command-77"
MODEL = "acme/model-x"


def scenario() -> object:
    fast = {"ttft_ms": 20, "tokens_per_second": 2000}
    return scenario_from_dict({"name": "command", "keepalive_ms": 50, "models": [{"id": MODEL, "endpoints": [
        {"tag": "aurora/fp8", "provider_name": "Aurora", "behaviour": fast},
        {"tag": "borealis/bf16", "provider_name": "Borealis",
         "behaviour": {**fast, "faults": {"http_error": {"rate": 1, "status": 503}}}},
    ]}]})


def test_it_prints_the_endpoints_and_one_pinned_ping_each(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with start_simulator(scenario()) as sim:
        monkeypatch.setenv("OPENROUTER_BASE_URL", sim.base_url)
        monkeypatch.setenv("OPENROUTER_API_KEY", SECRET)
        code = main(["discover", "--model", MODEL, "--ping", "--deadline", "3"])
    out = capsys.readouterr()
    assert code == 0
    assert f"{MODEL}: 2 endpoints" in out.out
    lines = out.out.splitlines()
    aurora = [line for line in lines if line.strip().startswith("aurora/fp8") and "completed" in line]
    borealis = [line for line in lines if line.strip().startswith("borealis/bf16") and "transport_error" in line]
    assert aurora, out.out
    assert "Aurora" in aurora[0] and ("stop" in aurora[0] or "length" in aurora[0])
    assert borealis and "http_5xx" in borealis[0], out.out
    assert SECRET not in out.out + out.err


def test_a_failed_discovery_exits_1_and_says_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with start_simulator(scenario()) as sim:
        monkeypatch.setenv("OPENROUTER_BASE_URL", sim.base_url)
        monkeypatch.setenv("OPENROUTER_API_KEY", SECRET)
        code = main(["discover", "--model", "acme/unknown"])
    assert code == 1 and "DISCOVERY FAILED" in capsys.readouterr().out


def test_a_refused_key_exits_3(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with start_simulator(scenario()) as sim:
        monkeypatch.setenv("OPENROUTER_BASE_URL", sim.base_url)
        monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
        code = main(["discover", "--model", MODEL])
    assert code == 3 and "401" in capsys.readouterr().out

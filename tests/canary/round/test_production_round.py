"""Production evidence through real rounds (issue 39): records handed to `run_judge` flag one simulator
host, the judge schedules a confirmation, the next round's probes (a real `pytest probes` against the
simulator, over sockets) run that host's contract three times, and the judge resolves it."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "judge"))

from production_support import record

from canary.round.judging import SIMULATOR_STATE_DIR, JudgeRequest, run_judge
from canary.round.probing import ProbeOptions, run_probe
from core.config import load_config
from core.field_rules import written
from core.production import ProductionCheck
from core.times import stamp

MODEL = "acme/roleplay-test"
TAGS = ("bad/fp8", "fine/fp8", "good/fp8", "ok/fp8")
START = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


def endpoint(tag: str) -> dict[str, object]:
    return {"tag": tag, "provider_name": tag.split("/")[0].capitalize(),
            "pricing": {"prompt": "0.0000003", "completion": "0.000001"},
            "supported_parameters": ["max_tokens", "temperature", "seed", "response_format", "structured_outputs"],
            "behaviour": {"ttft_ms": 40, "tokens_per_second": 400}}


def records(end: datetime) -> list[object]:
    """A day of one exporter's windows: Bad cuts 8 % of its streams, the others none."""
    counts = {"Bad": (2, 23), "Fine": (0, 40), "Good": (0, 40), "Ok": (0, 40)}
    return [record(end - i * timedelta(minutes=30), counts, model=MODEL, check=ProductionCheck.STREAM_INTEGRITY)
            for i in range(24)]


@pytest.fixture(scope="module")
def two_rounds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    tmp = tmp_path_factory.mktemp("production")
    scenario = tmp / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"name": "production", "keepalive_ms": 50, "models": [{
        "id": MODEL, "name": "Test", "permaslug": MODEL, "endpoints": [endpoint(t) for t in TAGS]}]}),
        encoding="utf-8")
    config_path = tmp / "canary.yaml"
    state = tmp / "reports" / SIMULATOR_STATE_DIR / "state.json"
    config_path.write_text(yaml.safe_dump({
        "mode": "observe", "models": [MODEL], "contracts": ["latency"], "rules": {"production": "observe"},
        "probe": {"ttft_seconds": 2.0, "request_deadline_seconds": 5, "max_tokens": 200},
        "paths": {"reports": str(tmp / "reports"), "state": str(state), "audit": str(state.parent / "audit.jsonl")},
    }), encoding="utf-8")
    config = load_config(str(config_path))
    environ = {k: v for k, v in os.environ.items() if k not in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL")}
    decided = []
    for n in range(2):
        at = START + n * timedelta(minutes=30)
        probed = run_probe(ProbeOptions(config_path=str(config_path), scenario=str(scenario), seed=n + 1,
                                        round_number=n + 1, state=state, virtual_time=stamp(at)), environ=environ)
        assert probed.results is not None, probed.where()
        outcome = run_judge(JudgeRequest(probed.results_path, config, at + timedelta(minutes=5), send=False,
                                         production=tuple(records(at))), echo=lambda _: None)
        decided.append(written(outcome.decisions))
        (tmp / f"results-{n + 1}.json").write_bytes(probed.results_path.read_bytes())
    return tmp, decided


def test_the_first_round_schedules_a_confirmation_with_the_card(two_rounds) -> None:
    _, (first, _) = two_rounds
    [confirm] = [d for d in first["decisions"] if d["action"] == "confirm"]
    assert confirm["provider"] == "bad/fp8" and "latency case runs three times" in confirm["reason"]
    assert confirm["card"][0]["text"].startswith("production stream_integrity [en, stream]: 48/600 failed")
    assert first["production"][MODEL]["bad/fp8"][0] == confirm["card"][0]["text"]
    assert first["production"][MODEL]["ok/fp8"][0] == "production: no failure in 960 sampled replies"


def test_the_next_round_probes_the_contract_three_times_and_the_judge_resolves_it(two_rounds) -> None:
    tmp, (_, second) = two_rounds
    cases = json.loads((tmp / "results-2.json").read_text(encoding="utf-8"))["cases"]
    bad = next(c for c in cases if c["provider"] == "bad/fp8")
    assert (bad["confirmation"], len(bad["attempts"]), bad["requests"]) == ("pass", 3, 3)
    assert all("confirmation" not in c for c in cases if c["provider"] != "bad/fp8")
    [resolved] = [d for d in second["decisions"] if d["action"] == "confirmation"]
    assert resolved["provider"] == "bad/fp8" and resolved["reason"] == (
        "latency confirmation not confirmed: most of its runs passed; production evidence alone never fails a round")
    assert not [d for d in second["decisions"] if d["action"] in ("suspend", "would_suspend")]


def test_the_judge_keeps_its_production_lines_for_status(two_rounds) -> None:
    tmp, _ = two_rounds
    state = json.loads((tmp / "reports" / SIMULATOR_STATE_DIR / "state.json").read_text(encoding="utf-8"))
    bad = state["models"][MODEL]["bad/fp8"]
    assert bad["to_confirm"] == ["latency"] and bad["production"][0].startswith("production stream_integrity")


def test_without_records_the_judge_says_nothing_of_production(two_rounds, tmp_path: Path) -> None:
    tmp, _ = two_rounds
    config = load_config(str(tmp / "canary.yaml"))
    paths = replace(config.paths, state=tmp_path / SIMULATOR_STATE_DIR / "state.json",
                    audit=tmp_path / SIMULATOR_STATE_DIR / "audit.jsonl")
    run_judge(JudgeRequest(tmp / "results-1.json", replace(config, paths=paths), START,
                          decisions_out=tmp_path / "decisions.json", send=False), echo=lambda _: None)
    assert "production" not in json.loads((tmp_path / "decisions.json").read_text(encoding="utf-8"))

"""Issue 29 item 2: `concurrency.per_provider` holds for a host across every model it serves.

Two models served by the same three hosts, probed in one `pytest probes` round: the per-tag cap
is one for the host whatever the model, so the simulator never answers more than `per_provider`
requests of a host at once (a round once split over xdist workers by model x host showed hosts
twice the cap). The simulator measures it (`host_peak_in_flight`); no timing is asserted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from round_support import PROBE, endpoint, run_round

from simulator import scenario_from_dict, start_simulator

MODELS = ("aurora/alpha", "borealis/beta")
HOSTS = ("ash/fp8", "birch/fp8", "cedar/fp8")


def two_models_three_hosts() -> dict[str, Any]:
    # A slow stream keeps each answer open long enough for requests to overlap.
    hosts = [endpoint(tag, ttft_ms=120, tokens_per_second=150) for tag in HOSTS]
    return {"name": "shared-hosts", "description": "two models on the same hosts", "keepalive_ms": 50,
            "models": [{"id": m, "name": m, "permaslug": m, "endpoints": hosts} for m in MODELS]}


def config(tmp: Path, per_provider: int = 1) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "canary.yaml"
    path.write_text(yaml.safe_dump({
        "models": list(MODELS), "controls": {},
        "probe": PROBE,
        "concurrency": {"overall": 16, "per_provider": per_provider},
    }), encoding="utf-8")
    return path


def test_a_host_serving_two_models_never_sees_more_than_per_provider_requests_at_once(tmp_path: Path):
    with start_simulator(scenario_from_dict(two_models_three_hosts()), seed=4) as sim:
        run = run_round(tmp_path, sim.base_url, config=config(tmp_path))
        peaks = sim.host_peak_in_flight
    probed = {(c["model"], c["provider"]) for c in run.results["cases"]}
    assert probed == {(m, h) for m in MODELS for h in HOSTS}, run.output[-2000:]
    assert set(peaks) == set(HOSTS) and max(peaks.values()) == 1, peaks

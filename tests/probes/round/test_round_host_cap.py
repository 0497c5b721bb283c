"""Issue 29 item 2: `concurrency.per_provider` holds for a host across every model it serves.

Two models served by the same three hosts, probed in one `pytest probes` round on two xdist
workers: the static scheduler keeps a host on one worker for all its models (its per-tag
semaphore is per process), so the simulator never answers more than `per_provider` requests of a
host at once. Grouped by model x host, as before, hosts landed on both workers and saw twice the
cap. The simulator measures it (`host_peak_in_flight`); no timing is asserted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from round_support import PROBE, ROUND_MODES, endpoint, mode_args, run_round

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


@pytest.mark.parametrize("mode", ROUND_MODES)
def test_a_host_serving_two_models_never_sees_more_than_per_provider_requests_at_once(tmp_path: Path, mode: str):
    with start_simulator(scenario_from_dict(two_models_three_hosts()), seed=4) as sim:
        run = run_round(tmp_path, sim.base_url, *mode_args(mode), config=config(tmp_path))
        peaks = sim.host_peak_in_flight
    probed = {(c["model"], c["provider"]) for c in run.results["cases"]}
    assert probed == {(m, h) for m in MODELS for h in HOSTS}, run.output[-2000:]
    assert set(peaks) == set(HOSTS) and max(peaks.values()) == 1, peaks


def test_one_of_two_probe_jobs_gets_half_of_each_cap(tmp_path: Path):
    """`canary probe --shares 2` (the workflow's matrix split over 2 jobs): per_provider 2 becomes 1
    in each job, so two jobs probing the same host at once stay within canary.yaml's 2."""
    with start_simulator(scenario_from_dict(two_models_three_hosts()), seed=4) as sim:
        run = run_round(tmp_path, sim.base_url, "-p", "no:xdist", "--canary-shares=2",
                        config=config(tmp_path, per_provider=2))
        peaks = sim.host_peak_in_flight
    assert len(run.results["cases"]) > 0 and set(peaks) == set(HOSTS), run.output[-2000:]
    assert max(peaks.values()) == 1, peaks


def test_zero_shares_is_a_usage_error_not_a_round_run_as_one(tmp_path: Path):
    # Issue 37: `--canary-shares 0` ran as 1 (`0 or 1`); a job that is one of 0 is a mistake to say.
    with start_simulator(scenario_from_dict(two_models_three_hosts()), seed=4) as sim:
        run = run_round(tmp_path, sim.base_url, "-p", "no:xdist", "--canary-shares=0", config=config(tmp_path))
    assert run.rc == 4 and "canary: --canary-shares 0: expected 1 or more" in run.output, run.output[-2000:]

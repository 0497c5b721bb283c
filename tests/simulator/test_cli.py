"""`python -m simulator` and `canary sim` serve in the foreground, on 127.0.0.1, and stop cleanly."""

from __future__ import annotations

import inspect
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from click.testing import CliRunner
from simkit import KEY, MODEL

from canary.cli.main import canary
from simulator import start_simulator
from simulator.cli import sim

ROOT = Path(__file__).resolve().parents[2]
FIRST_LINE = re.compile(r"^canary sim: serving on (http://127\.0\.0\.1:(\d+)/api/v1)$")


@contextmanager
def serving(*argv: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    # Popen as a context manager closes the pipes and reaps the process.
    with subprocess.Popen(
        [sys.executable, *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline().rstrip("\n")
            match = FIRST_LINE.match(first)
            assert match, (first, proc.stderr.read() if proc.poll() is not None else "")
            yield proc, match.group(1)
        finally:
            if proc.poll() is None:
                proc.kill()


def test_python_m_simulator_prints_its_base_url_first_and_exits_cleanly_on_sigterm():
    with serving("-m", "simulator", "--scenario", "healthy", "--seed", "3") as (proc, base_url):
        listed = httpx.get(f"{base_url}/models/{MODEL}/endpoints", headers=KEY)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        out = proc.stdout.read()  # the summary printed after the first line

    assert listed.status_code == 200
    assert proc.returncode == 0
    assert "aurora/fp8" in out


def test_canary_sim_serves_the_default_scenario_and_exits_cleanly_on_sigint():
    with serving("-m", "canary", "sim", "--port", "0", "--seed", "1") as (proc, base_url):
        listing = httpx.get(f"{base_url}/models/{MODEL}/endpoints", headers=KEY).json()
        tags = [e["tag"] for e in listing["data"]["endpoints"]]
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)

    assert "ember/fp8" in tags
    assert proc.returncode == 0


def test_canary_sim_is_the_simulators_own_command():
    assert canary.commands["sim"] is sim  # one declaration: `python -m simulator` takes the same options
    args = sim.make_context("sim", ["--scenario", "x.yaml", "--port", "8123", "--seed", "9", "--round", "4"]).params
    assert args == {"scenario": "x.yaml", "port": 8123, "seed": 9, "round_number": 4, "host": "127.0.0.1"}


def test_a_bad_scenario_file_stops_the_command_with_the_file_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"models:\n  - id: {MODEL}\n"
                   "    endpoints: [{tag: a/b, behaviour: {faults: {hang: {rate: 2}}}}]\n")

    result = CliRunner().invoke(sim, ["--scenario", str(bad)], prog_name="python -m simulator")

    assert result.exit_code == 2
    assert re.search(r"bad\.yaml: models\[0\]\.endpoints\[0\]\.behaviour\.faults\.hang\.rate", result.stderr)


def test_python_m_simulator_refuses_an_unknown_option_with_its_usage():
    done = subprocess.run([sys.executable, "-m", "simulator", "--bogus"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2 and done.stderr.startswith("Usage: python -m simulator [OPTIONS]")
    assert "No such option '--bogus'" in done.stderr


def test_the_server_binds_loopback_by_default():
    assert inspect.signature(start_simulator).parameters["host"].default == "127.0.0.1"
    with start_simulator() as sim:
        assert urlsplit(sim.base_url).hostname == "127.0.0.1"
        assert sim.base_url.endswith("/api/v1")


def test_received_requests_mask_the_authorization_header(healthy):
    httpx.get(f"{healthy.base_url}/providers", headers={"Authorization": "Bearer sk-or-v1-supersecretvalue99"})

    last = healthy.received[-1]
    assert last.path == "/api/v1/providers"
    assert last.headers["Authorization"] == "Bearer ***99"
    assert "supersecret" not in repr(healthy.received)


def test_stop_is_idempotent_and_frees_the_port():
    sim = start_simulator()
    sim.stop()
    sim.stop()

    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{sim.base_url}/models", headers=KEY, timeout=2)

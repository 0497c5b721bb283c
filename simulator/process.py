"""The bundled simulator as a subprocess: the embedded upstream of a round without a key.

A subprocess (not a thread) keeps the simulator's timing independent of the round's own CPU
load (docs/design-notes.md §1.3: ~30-40 % less TTFT error than in-process).
Used by `canary probe`, by `pytest probes` run directly without OPENROUTER_API_KEY, and by
benchmarks.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from core.errors import UpstreamError
from simulator.scenario import load_scenario, scenario_file

# The simulator accepts any non-empty key; this one says what it is wherever it shows up.
SIMULATOR_KEY = "sk-canary-bundled-simulator"
# The scenario file the bundled simulator serves, beside OPENROUTER_BASE_URL: a round reads its controls from it.
SCENARIO_ENV = "CANARY_SIMULATOR_SCENARIO"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
SERVING_PREFIX = "canary sim: serving on "


class SimulatorStartError(UpstreamError, RuntimeError):
    """The bundled simulator's process did not start; the message quotes its last word."""


@dataclass(frozen=True, slots=True)
class BundledSimulator:
    """A running simulator subprocess: where it serves, and its pid (benchmarks measure it)."""

    base_url: str
    pid: int
    scenario: Path

    def environment(self) -> dict[str, str]:
        """The variables that point a round at this simulator (its key is a dummy)."""
        return {"OPENROUTER_BASE_URL": self.base_url, "OPENROUTER_API_KEY": SIMULATOR_KEY,
                SCENARIO_ENV: str(self.scenario)}


@dataclass(frozen=True, slots=True)
class ScenarioControls:
    """A scenario's name and its positive controls per model (what a round against it uses)."""

    name: str
    controls: dict[str, tuple[str, ...]]


def scenario_controls(path: str | Path) -> ScenarioControls:
    """The positive controls a scenario file declares; ScenarioError (a ValueError) names a bad file."""
    scenario = load_scenario(path)
    return ScenarioControls(scenario.name, scenario.controls())


@contextmanager
def simulator_process(scenario: str | Path | None = None, seed: int = 0, round_number: int = 1,
                      extra: Sequence[str] = ()) -> Iterator[BundledSimulator]:
    """Run `python -m simulator` on a free port; yield where it serves; stop it afterwards."""
    cmd = [sys.executable, "-m", "simulator", "--port", "0", "--seed", str(seed), "--round", str(round_number),
           *extra]
    served = scenario_file(scenario).resolve()
    if scenario:
        cmd += ["--scenario", str(served)]
    proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    drains: list[threading.Thread] = []
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline().strip()
        if not line.startswith(SERVING_PREFIX):
            proc.wait(timeout=5)
            detail = proc.stderr.read().strip().splitlines()
            raise SimulatorStartError(f"the simulator did not start: {detail[-1] if detail else line or 'no output'}")
        # Keep draining its output: a full pipe would block the simulator mid-round.
        drains = [threading.Thread(target=_drain, args=(stream,), daemon=True) for stream in (proc.stdout, proc.stderr)]
        for drain in drains:
            drain.start()
        yield BundledSimulator(line[len(SERVING_PREFIX):].split()[0], proc.pid, served)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for drain in drains:  # they end at the pipes' end of file, now that the simulator has exited
            drain.join(timeout=5)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None and not any(d.is_alive() for d in drains):
                pipe.close()


def _drain(stream: Iterable[str]) -> None:
    for _ in stream:
        pass

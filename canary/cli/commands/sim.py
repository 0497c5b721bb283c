"""`canary sim`: the simulator's own command (simulator/cli.py), so it takes what `python -m simulator` takes."""

from __future__ import annotations

from simulator.cli import sim

__all__ = ["sim"]

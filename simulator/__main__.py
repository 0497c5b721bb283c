"""`python -m simulator [--scenario FILE] [--port N] [--seed S] [--round N] [--host H]`."""

from __future__ import annotations

from simulator.cli import sim

if __name__ == "__main__":
    sim(prog_name="python -m simulator")

"""`canary sim`: run the bundled OpenRouter simulator in the foreground and print its base URL."""

from __future__ import annotations

import click

from canary.cli.commands._options import Command
from simulator.cli import serve


@click.command("sim", cls=Command, short_help="serve the OpenRouter simulator (default scenario unless --scenario)",
               help="Serve an OpenRouter-compatible simulator on 127.0.0.1 until Ctrl-C/SIGTERM.")
@click.option("--scenario", default=None, help="scenario YAML file (default: the bundled default scenario)")
@click.option("--port", type=int, default=0, help="port to listen on (default: 0, any free port)")
@click.option("--seed", type=int, default=0, help="seed for reproducible replies (default: 0)")
@click.option("--round", "round_number", type=int, default=1, help="round number selecting phases (default: 1)")
@click.option("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1; keep it local)")
def sim(scenario: str | None, port: int, seed: int, round_number: int, host: str) -> int:
    return serve(scenario, port=port, seed=seed, round_number=round_number, host=host)

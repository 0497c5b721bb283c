"""`python -m simulator` and `canary sim`, one click command: serve a scenario in the foreground until SIGTERM."""

from __future__ import annotations

import asyncio
import ipaddress
import signal
import sys

import click
from aiohttp import web

from simulator.runtime import bind, make_runner
from simulator.scenario import Scenario, ScenarioError, load_scenario
from simulator.server import SimState


@click.command("sim", short_help="serve the OpenRouter simulator (default scenario unless --scenario)",
               help="Serve an OpenRouter-compatible simulator on 127.0.0.1 until Ctrl-C/SIGTERM.",
               context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--scenario", default=None, metavar="FILE|NAME",
              help="a scenario YAML file or a bundled scenario's name (default: the bundled default scenario)")
@click.option("--port", type=int, default=0, help="port to listen on (default: 0, any free port)")
@click.option("--seed", type=int, default=0, help="seed for reproducible replies (default: 0)")
@click.option("--round", "round_number", type=int, default=1, help="round number selecting phases (default: 1)")
@click.option("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1; keep it local)")
@click.pass_context
def sim(ctx: click.Context, scenario: str | None, port: int, seed: int, round_number: int, host: str) -> None:
    """`python -m simulator` (simulator/__main__.py) and `canary sim` (listed by canary/cli/main.py)."""
    ctx.exit(serve(scenario, port=port, seed=seed, round_number=round_number, host=host))


def summary(scenario: Scenario) -> list[str]:
    """A short human description: one line per endpoint with its faults."""
    lines = [f"scenario {scenario.name!r} from {scenario.source}"]
    for model in scenario.models:
        lines.append(f"  model {model.id}")
        for e in model.endpoints:
            b = e.behaviour
            faults = ", ".join(f"{f.name} {f.rate:g}" for f in b.faults) or "healthy"
            phases = f" (+{len(e.phases)} phase{'s' * (len(e.phases) != 1)})" if e.phases else ""
            timing = f"ttft {b.ttft_ms:>5.0f} ms  {b.tokens_per_second:>4.0f} tok/s"
            lines.append(f"    {e.tag:<16} {e.provider_name:<12} {timing}  {faults}{phases}")
    lines.append("  control: POST /_sim/control {\"round\": N} or {\"now\": ISO}; stop with Ctrl-C")
    return lines


def serve(scenario_path: str | None, *, port: int = 0, seed: int = 0, round_number: int = 1,
          host: str = "127.0.0.1") -> int:
    """Serve until interrupted; the first printed line is the base URL."""
    try:
        scenario = load_scenario(scenario_path)
    except ScenarioError as exc:
        print(f"canary sim: {exc}", file=sys.stderr)
        return 2
    if not _is_loopback(host):
        print(f"canary sim: warning: listening on {host}, reachable beyond this machine", file=sys.stderr)
    state = SimState(scenario=scenario, seed=seed, round_number=round_number)
    try:
        asyncio.run(_serve(state, host, port))
    except OSError as exc:
        print(f"canary sim: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


async def _serve(state: SimState, host: str, port: int) -> None:
    sock = bind(host, port)
    runner = make_runner(state)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    shown = f"[{host}]" if ":" in host else host
    print(f"canary sim: serving on http://{shown}:{sock.getsockname()[1]}/api/v1", flush=True)
    print("\n".join(summary(state.scenario)), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"

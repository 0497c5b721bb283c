"""`python -m simulator` and `canary sim`: serve a scenario in the foreground until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import signal
import sys
from collections.abc import Sequence

from aiohttp import web

from simulator.runtime import bind, make_runner
from simulator.scenario import Scenario, ScenarioError, load_scenario
from simulator.server import SimState


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenario", default=None, help="scenario YAML file (default: the bundled default scenario)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: 0, any free port)")
    parser.add_argument("--seed", type=int, default=0, help="seed for reproducible replies (default: 0)")
    parser.add_argument(
        "--round", type=int, default=1, dest="round_number", help="round number selecting phases (default: 1)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1; keep it local)")


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


def run(args: argparse.Namespace) -> int:
    """`python -m simulator`: serve() with the parsed options."""
    return serve(args.scenario, port=args.port, seed=args.seed, round_number=args.round_number, host=args.host)


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


def build_parser() -> argparse.ArgumentParser:
    """`python -m simulator`'s options (canary/cli/commands/sim.py declares the same for `canary sim`)."""
    parser = argparse.ArgumentParser(prog="python -m simulator", description="OpenRouter-compatible simulator")
    add_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))

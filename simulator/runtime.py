"""Running the server: in a background thread (tests, an embedded round) or in the foreground."""

from __future__ import annotations

import asyncio
import socket
import threading
from datetime import UTC, datetime
from types import TracebackType

from aiohttp import web

from simulator.scenario import Scenario, load_scenario
from simulator.server import ReceivedRequest, SimState, create_app

SHUTDOWN_TIMEOUT_S = 0.2  # stalled streams (hang, slow_first_token) must not hold up stop()


def bind(host: str, port: int) -> socket.socket:
    """A listening socket; binding first lets port 0 report the port actually chosen."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def make_runner(state: SimState) -> web.AppRunner:
    return web.AppRunner(create_app(state), access_log=None, shutdown_timeout=SHUTDOWN_TIMEOUT_S)


class RunningSimulator:
    """A simulator serving from a daemon thread with its own event loop; a context manager."""

    def __init__(self, state: SimState, host: str, sock: socket.socket) -> None:
        self._state = state
        self._sock = sock
        self.host = host
        self.port: int = sock.getsockname()[1]
        self._loop = asyncio.new_event_loop()
        self._runner = make_runner(state)
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._serve, name=f"canary-sim-{self.port}", daemon=True)

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/api/v1"

    @property
    def received(self) -> list[ReceivedRequest]:
        """A snapshot of every request received so far, oldest first."""
        return list(self._state.received)

    @property
    def rate_limited(self) -> int:
        """How many chat requests the scenario's rate_limit answered 429 so far."""
        return self._state.rate_limited

    @property
    def host_peak_in_flight(self) -> dict[str, int]:
        """Per endpoint tag, the most chat requests it was answering at once so far."""
        return dict(self._state.host_peak)

    @property
    def scenario(self) -> Scenario:
        return self._state.scenario

    def set_round(self, round_number: int) -> None:
        """Select the phases of round `round_number` for every request sent after this call."""
        if round_number < 1:
            raise ValueError("round_number must be >= 1")
        # A plain attribute write is atomic under the GIL and lands before the caller's next request.
        self._state.round_number = round_number

    def set_now(self, now: datetime | None) -> None:
        """Pin the clock that `from_time`/`to_time` phases see; None returns to the real clock."""
        self._state.now_override = now if now is None or now.tzinfo else now.replace(tzinfo=UTC)

    def start(self) -> RunningSimulator:
        self._thread.start()
        self._ready.wait(timeout=10)
        if self._error is not None:
            raise self._error
        return self

    def stop(self) -> None:
        """Stop serving and join the thread; idempotent."""
        if self._loop.is_closed() or not self._thread.is_alive():
            return
        future = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
        try:
            future.result(timeout=10)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    def __enter__(self) -> RunningSimulator:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb: TracebackType | None) -> None:
        self.stop()

    async def _shutdown(self) -> None:
        await self._runner.cleanup()
        # Handlers still parked (hang, 11 s first tokens) outlive cleanup: cancel them so the loop
        # closes without "Task was destroyed but it is pending".
        pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._runner.setup())
            self._loop.run_until_complete(web.SockSite(self._runner, self._sock).start())
        except BaseException as exc:  # surfaced to the starting thread
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()


def start_simulator(
    scenario: Scenario | None = None, *, host: str = "127.0.0.1", port: int = 0, seed: int = 0, round_number: int = 1
) -> RunningSimulator:
    """Start a simulator in a background thread; `scenario=None` serves the default scenario."""
    state = SimState(scenario=scenario or load_scenario(), seed=seed, round_number=round_number)
    return RunningSimulator(state, host, bind(host, port)).start()

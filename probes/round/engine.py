"""Concurrent execution: every probe this process will run, in one asyncio loop on a thread.

The work of a round is network-bound, so concurrency comes from here, not from processes: at
pytest_collection_finish the plugin hands the engine the selected cases and the engine starts
them all at once, bounded by the PinnedClient's overall and per-provider caps. Each pytest item
then only waits for its own future and reports it, so a round takes about as long as its slowest
request, not the sum of them. Judging runs in worker threads (asyncio.to_thread; language in its
own process, probes/round/language_service.py) so CPU work does not delay other streams'
time-to-first-token readings.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import importlib
import threading
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType

from core.config import ProbeSettings
from core.untrusted import clean
from core.upstream import Upstream
from core.vocabulary import DECLARED, ContractName, Outcome
from judge.replies.verdict import Verdict
from probes.http.client import PinnedClient
from probes.http.wire import ReasoningBudget
from probes.round.cases import Case, ProbedCase, TransportCode
from probes.round.contracts import CONFIRMATION_RUNS, ContractSettings, confirmation
from probes.round.language_service import LanguageBackend

# Each contract's probe, named by its declaration (core/vocabulary.py Contract.module).
CONTRACT_MODULES: dict[str, ModuleType] = {c.name: importlib.import_module(c.module) for c in DECLARED}
STARTUP_TIMEOUT_S = 30.0
CRASH_DETAIL_CHARS = 200  # of an unexpected exception's message kept in the case's reason


class Engine:
    """Owns a background event loop, one PinnedClient, and one task per case id."""

    def __init__(self, *, client_settings: Upstream, probe: ProbeSettings, overall: int,
                 per_provider: int, control_cases: dict[str, tuple[Case, ...]],
                 missing_controls: dict[str, tuple[str, ...]], language_backend: LanguageBackend | None,
                 round_id: str = "") -> None:
        self._client_settings = client_settings
        self._probe = probe
        self._caps = (overall, per_provider)
        self._control_cases = control_cases
        self._language = language_backend
        self._settings = ContractSettings(probe=probe, controls=self,
                                          judge_language=self._judge_language,
                                          missing_controls=missing_controls, siblings=self, round_id=round_id)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run_loop, name="canary-engine", daemon=True)
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._client: PinnedClient | None = None
        self._tasks: dict[str, asyncio.Task[ProbedCase]] = {}
        self._futures: dict[str, concurrent.futures.Future[ProbedCase]] = {}  # pytest's thread's view of them
        self._warm: asyncio.Future[None] | None = None

    # -- lifecycle (called from pytest's thread) -------------------------------------------

    def start(self, cases: Iterable[Case] = (), *, warm_language: bool = False) -> Engine:
        self._thread.start()
        if not self._ready.wait(STARTUP_TIMEOUT_S):
            raise RuntimeError("the probe engine did not start")
        if warm_language:
            # Build the detector while the first requests wait on the network.
            self._loop.call_soon_threadsafe(self._start_warm_up)
        for case in cases:
            self.submit(case)
        return self

    def submit(self, case: Case) -> concurrent.futures.Future[ProbedCase]:
        """Start the case's probe (once per case id) and return a future of its result (the same one
        each time: asking again costs no trip through the event loop). Called from one thread."""
        future = self._futures.get(case.id)
        if future is None:
            future = self._futures[case.id] = asyncio.run_coroutine_threadsafe(self._result_of(case), self._loop)
        return future

    def result(self, case: Case, timeout: float | None = None) -> ProbedCase:
        return self.submit(case).result(timeout)

    def close(self) -> None:
        """Cancel whatever is still running (a round cut short) and close the client."""
        if not self._thread.is_alive():
            return
        stop = self._stop
        if stop is not None:
            self._loop.call_soon_threadsafe(stop.set)
        self._thread.join(timeout=10)

    # -- inside the loop ------------------------------------------------------------------

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._main())
        finally:
            self._loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        overall, per_provider = self._caps
        async with PinnedClient(self._client_settings, overall_concurrency=overall,
                                per_provider_concurrency=per_provider,
                                deadline_s=self._probe.request_deadline_seconds,
                                reasoning_budget=ReasoningBudget(
                                    self._probe.reasoning_effort, self._probe.reasoning_max_tokens,
                                    always=self._probe.reasoning_controls == "always")) as client:
            self._client = client
            self._ready.set()
            await self._stop.wait()
            for task in self._tasks.values():
                task.cancel()
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    def _start_warm_up(self) -> None:
        if self._warm is None and self._language is not None:
            self._warm = asyncio.ensure_future(asyncio.to_thread(self._language.warm_up))

    def _task(self, case: Case) -> asyncio.Task[ProbedCase]:
        task = self._tasks.get(case.id)
        if task is None:
            task = self._tasks[case.id] = asyncio.ensure_future(self._probe_case(case))
        return task

    async def _result_of(self, case: Case) -> ProbedCase:
        return await asyncio.shield(self._task(case))

    async def _probe_case(self, case: Case) -> ProbedCase:
        assert self._client is not None
        module = CONTRACT_MODULES[case.contract]
        try:
            runs = await asyncio.gather(*(module.probe(self._client, case.endpoint, self._settings, case)
                                          for _ in range(CONFIRMATION_RUNS if case.confirm else 1)))
            result: ProbedCase = confirmation(case, runs) if case.confirm else runs[0]
            return result
        except Exception as exc:  # one host's hostile reply must not void the round
            return crashed(case, exc, self._client_settings.scrub)

    async def _judge_language(self, text: str, lang: str) -> Verdict:
        self._start_warm_up()
        assert self._warm is not None and self._language is not None, "a language case without a language judge"
        await asyncio.shield(self._warm)
        return await asyncio.to_thread(self._language.assess, text, lang)

    async def sibling_results(self, case: Case, contracts: Sequence[ContractName]) -> tuple[ProbedCase, ...]:
        """The results of the same endpoint's cases of `contracts` that this process runs (none
        when they were deselected): the refusal case reads their replies' refusal checks."""
        tasks = [t for c in contracts if (t := self._tasks.get(f"{case.group}::{c}")) is not None]
        results = await asyncio.gather(*(asyncio.shield(t) for t in tasks), return_exceptions=True)
        return tuple(r for r in results if isinstance(r, ProbedCase))

    async def control_results(self, model: str) -> tuple[ProbedCase, ...]:
        """The ControlBoard: the selected controls are probed in this same loop."""
        cases = self._control_cases.get(model, ())
        return tuple(await asyncio.gather(*(asyncio.shield(self._task(c)) for c in cases)))


def crashed(case: Case, exc: BaseException, scrub: Callable[[str], str]) -> ProbedCase:
    """A probe that raised: that case's own transport error (it freezes the host, the round goes on).

    Whatever a reply holds, the parsers and judges are meant to return a verdict; an exception
    here is a bug they did not foresee, so the host is not blamed for it either way."""
    detail = clean(scrub(f"{type(exc).__name__}: {exc}"), CRASH_DETAIL_CHARS)   # masked before the cut
    return ProbedCase.of(case, Outcome.TRANSPORT_ERROR, TransportCode.TRANSPORT_OTHER,
                         f"transport: the probe raised an unexpected error on this reply ({detail})")


def run_quietly(fn: Callable[[], None]) -> None:
    """Shut-down helper: a failing close must not mask the round's own outcome."""
    with contextlib.suppress(Exception):
        fn()

"""Item 11 of issue 19: a 429's Retry-After is waited once within the deadline, and the overall
concurrency adapts to 429s (lower on 429s, recover on answers). Speed is the benchmark's
(benchmarks/rate_limits.py); these tests assert behaviour only."""

from __future__ import annotations

import asyncio
from typing import Any

from client_support import MESSAGES, MODEL, SECRET, spec

from core.upstream import Upstream
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.http.limiter import AdaptiveLimit
from probes.http.records import ChatResult, Classification, ErrorKind
from simulator import scenario_from_dict, start_simulator


def scenario(*endpoints: dict[str, Any], rate_limit: dict[str, int] | None = None) -> Any:
    data: dict[str, Any] = {"name": "rate-limits", "keepalive_ms": 50,
                            "models": [{"id": MODEL, "endpoints": list(endpoints)}]}
    if rate_limit:
        data["rate_limit"] = rate_limit
    return scenario_from_dict(data)


async def chat_all(base_url: str, *, deadline: float, overall: int, adaptive: bool = True) -> list[ChatResult]:
    async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=deadline,
                            overall_concurrency=overall, adaptive=adaptive) as client:
        endpoints = await discover(client, MODEL)
        return list(await asyncio.gather(*(client.chat(e, MESSAGES, max_tokens=40) for e in endpoints)))


def test_a_429_whose_retry_after_fits_the_deadline_is_waited_once_and_sent_again() -> None:
    # One request at a time is allowed: of two sent together, one is answered 429 (Retry-After 1)
    # and answered after the wait, when the other is done.
    sc = scenario(spec("aurora/fp8", ttft_ms=0), spec("borealis/fp8", ttft_ms=0),
                  rate_limit={"concurrent": 1, "retry_after": 1})
    with start_simulator(sc, seed=3) as sim:
        results = asyncio.run(chat_all(sim.base_url, deadline=5.0, overall=2, adaptive=False))
    assert all(r.completed for r in results)
    waited = [r for r in results if r.waited_s is not None]
    assert len(waited) == 1 and waited[0].waited_s == 1.0 and waited[0].requests == 2


def test_a_retry_after_that_does_not_fit_the_deadline_is_not_waited() -> None:
    sc = scenario(spec("aurora/fp8", {"http_error": {"rate": 1, "status": [429], "retry_after": 9}}))
    with start_simulator(sc) as sim:
        (result,) = asyncio.run(chat_all(sim.base_url, deadline=3.0, overall=1))
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.HTTP_429)
    assert result.waited_s is None and result.requests == 1


def test_a_second_429_after_the_wait_is_the_transport_error_and_says_it_waited() -> None:
    sc = scenario(spec("aurora/fp8", {"http_error": {"rate": 1, "status": [429], "retry_after": 1}}))
    with start_simulator(sc) as sim:
        (result,) = asyncio.run(chat_all(sim.base_url, deadline=4.0, overall=1))
        sent = [r for r in sim.received if r.path.endswith("/chat/completions")]
    assert result.error_kind is ErrorKind.HTTP_429 and result.waited_s == 1.0 and len(sent) == result.requests == 2
    assert "Retry-After" in (result.error_message or "")


def test_the_adaptive_cap_comes_down_to_what_the_upstream_accepted_and_recovers_on_answers() -> None:
    limit = AdaptiveLimit(16)
    limit.in_flight, limit.accepted = 11, 5   # a burst: 5 answered 200, the others' answers pending
    limit.rate_limited()
    assert limit.limit == 5 and limit.lowest == 5
    limit.accepted = 7                         # a later 429 never raises the cap
    limit.rate_limited()
    assert limit.limit == 5
    for _ in range(20):
        limit.succeeded()
    assert 5 < limit.limit < 16                # recovering, one slot per `limit` answers
    for _ in range(10_000):
        limit.succeeded()
    assert limit.limit == 16


def test_a_ticket_counts_as_accepted_until_its_slot_is_released() -> None:
    async def run() -> tuple[int, int]:
        limit = AdaptiveLimit(4)
        async with limit.slot() as ticket:
            ticket.accept()
            ticket.accept()
            during = limit.accepted
        return during, limit.accepted
    assert asyncio.run(run()) == (1, 0)


def test_a_slot_waits_while_the_cap_is_full() -> None:
    async def run() -> list[str]:
        limit, order = AdaptiveLimit(1), []

        async def one(name: str) -> None:
            async with limit.slot():
                order.append(f"{name} in")
                await asyncio.sleep(0.01)
                order.append(f"{name} out")
        await asyncio.gather(one("a"), one("b"))
        return order
    assert asyncio.run(run()) == ["a in", "a out", "b in", "b out"]


def test_a_fixed_cap_stays_fixed() -> None:
    limit = AdaptiveLimit(8, adaptive=False)
    limit.rate_limited()
    assert limit.limit == 8 and limit.lowest == 8


def test_against_a_rate_limited_simulator_the_adaptive_cap_sends_fewer_requests_over_the_limit() -> None:
    endpoints = [spec(f"host-{i:02d}/fp8", ttft_ms=200) for i in range(24)]
    rate_limited = {}
    for adaptive in (False, True):
        with start_simulator(scenario(*endpoints, rate_limit={"concurrent": 4, "retry_after": 1})) as sim:
            asyncio.run(chat_all(sim.base_url, deadline=8.0, overall=24, adaptive=adaptive))
            rate_limited[adaptive] = sim.rate_limited
    assert rate_limited[True] < rate_limited[False]

"""What the client tests share: a tiny simulator scenario and one pinned chat against it, the key kept out."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from core.upstream import Upstream
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.http.records import ChatResult
from simulator import RunningSimulator, scenario_from_dict, start_simulator

SECRET = "sk-or-v1-SENTINEL-client-4f1c9e0d7b"
MODEL = "acme/model-x"
MESSAGES = [{"role": "user", "content": "Continue the scene: the innkeeper greets the traveller at the door."}]


def spec(tag: str, faults: dict[str, Any] | None = None, *, ttft_ms: float = 30, **extra: Any) -> dict[str, Any]:
    behaviour = {"ttft_ms": ttft_ms, "tokens_per_second": 2000, "faults": faults or {}}
    return {"tag": tag, "provider_name": tag.split("/")[0].title(), "behaviour": behaviour, **extra}


@contextmanager
def upstream(*endpoints: dict[str, Any], key: dict[str, Any] | None = None) -> Iterator[RunningSimulator]:
    """The simulator serving `endpoints` of MODEL (`key`: the scenario's key limit, simulator/scenario.py)."""
    scenario = scenario_from_dict({"name": "client-tests", "keepalive_ms": 50, "key": key or {},
                                   "models": [{"id": MODEL, "endpoints": list(endpoints)}]})
    with start_simulator(scenario, seed=7) as sim:
        yield sim


async def _chat(sim: RunningSimulator, tag: str, *, key: str | None, deadline: float, **kwargs: Any) -> ChatResult:
    async with PinnedClient(Upstream(base_url=sim.base_url, api_key=SECRET), deadline_s=deadline) as client:
        endpoint = next(e for e in await discover(client, MODEL) if e.provider == tag)
    async with PinnedClient(Upstream(base_url=sim.base_url, api_key=key), deadline_s=deadline) as client:
        return await client.chat(endpoint, MESSAGES, **{"max_tokens": 120, **kwargs})


def chat(sim: RunningSimulator, tag: str = "aurora/fp8", *, key: str | None = SECRET, deadline: float = 3.0,
         **kwargs: Any) -> ChatResult:
    result = asyncio.run(_chat(sim, tag, key=key, deadline=deadline, **kwargs))
    assert SECRET not in repr(result) and SECRET not in str(result)
    return result


def chat_bodies(sim: RunningSimulator) -> list[dict[str, Any]]:
    return [r.body for r in sim.received if r.path.endswith("/chat/completions")]

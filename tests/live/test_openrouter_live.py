"""The real OpenRouter, through the very code a round uses. Runs only with OPENROUTER_API_KEY.

    OPENROUTER_API_KEY=sk-or-... .venv/bin/pytest tests/live -m live

Costs a few hundred tokens on the cheapest endpoint of the first configured model.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from core.config import load_config
from core.upstream import Upstream, resolve_upstream
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.http.records import Classification

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not os.environ.get("OPENROUTER_API_KEY", "").strip(),
                       reason="live test: set OPENROUTER_API_KEY to run it against the real OpenRouter"),
]


def test_discovery_and_one_pinned_stream_against_the_real_openrouter() -> None:
    settings = resolve_upstream() or Upstream()
    model = load_config().models[0]

    async def go():  # type: ignore[no-untyped-def]
        async with PinnedClient(settings, deadline_s=60) as client:
            endpoints = await discover(client, model)
            cheapest = min(endpoints, key=lambda e: e.completion_price)
            result = await client.chat(cheapest, [{"role": "user", "content": "Say hello in one short sentence."}],
                                       max_tokens=32)
        return endpoints, cheapest, result

    endpoints, cheapest, result = asyncio.run(go())
    assert endpoints and all(e.provider for e in endpoints)
    assert result.classification in (Classification.COMPLETED, Classification.TRANSPORT_ERROR), result.error_message
    if result.classification is Classification.COMPLETED:
        assert result.served_by, "the response names its provider"
        assert result.usage is not None and result.usage.completion_tokens > 0
    assert settings.api_key not in repr(result)

"""Decode speed over real sockets: the simulator's slow decoder (simulator/defects.py `slow_decode`)
among healthy peers, measured by the real client and judged as the judge judges a round
(judge/suspension/decode_speed.py). The margins are wide on purpose (the crawl is at a twentieth
of the healthy pace, the threshold at a fifth), so a loaded machine cannot change the answer."""

from __future__ import annotations

import asyncio

from core.results import CaseResult
from core.upstream import Upstream
from core.vocabulary import Outcome
from judge.replies.verdict import passed
from judge.suspension.decode_speed import judge_decode_speed
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.round.contracts import attempt_from
from simulator import scenario_from_dict, start_simulator

SECRET = "sk-or-v1-SENTINEL-decode-speed-3b9f"
MODEL = "acme/model-x"
MESSAGES = [{"role": "user", "content": "Continue the scene: the innkeeper greets the traveller at the door."}]
HEALTHY = {"ttft_ms": 20, "tokens_per_second": 400}
TAGS = ("aurora/fp8", "borealis/bf16", "cirrus/fp8", "slow/fp8")


def endpoint(tag: str) -> dict[str, object]:
    faults = {"slow_decode": {"rate": 1.0, "factor": 0.05}} if tag == "slow/fp8" else {}
    return {"tag": tag, "provider_name": tag.split("/")[0].title(), "behaviour": {**HEALTHY, "faults": faults}}


def test_a_slow_decoder_among_healthy_peers_fails_its_latency_case_with_its_code() -> None:
    scenario = scenario_from_dict({"name": "decode-speed", "keepalive_ms": 50,
                                   "models": [{"id": MODEL, "endpoints": [endpoint(t) for t in TAGS]}]})

    async def go(base_url: str) -> list[CaseResult]:
        async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=30.0) as client:
            endpoints = await discover(client, MODEL)
            assert {(e.provider, e.throughput_p50) for e in endpoints} == {(t, 400.0) for t in TAGS}
            results = await asyncio.gather(*(client.chat(e, MESSAGES, max_tokens=120)
                                             for e in endpoints for _ in range(2)))
        cases = []
        for e in endpoints:
            mine = [r for r in results if r.provider == e.provider]
            attempts = tuple(attempt_from(r, e, passed("ok"), MESSAGES).record for r in mine)
            assert all(a.decode_tps is not None for a in attempts)
            cases.append(CaseResult(model=MODEL, provider=e.provider, contract="latency", outcome=Outcome.PASS,
                                    code="pass", reason="first token after 0.02 s", attempts=attempts))
        return cases

    with start_simulator(scenario, seed=3) as sim:
        judged = {c.provider: c for c in judge_decode_speed(asyncio.run(go(sim.base_url)))}
    slow = judged["slow/fp8"]
    assert slow.outcome is Outcome.FAIL and slow.code == "decode_slow", slow.reason
    assert all(judged[t].outcome is Outcome.PASS for t in TAGS[:3])

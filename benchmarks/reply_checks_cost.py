"""The reply checks of issue 22 (stream integrity, limits honesty, billing honesty; decode speed's
measurement): false failures on noisy healthy replies, detections on planted defects, and the CPU
time they add per reply.

    .venv/bin/python benchmarks/reply_checks_cost.py [--replies 600] [--seed 5]

Replies come from the bundled simulator over real sockets through the real PinnedClient, with
the probes' real prompts and caps (latency 32 tokens, the others probe.max_tokens 200):
- healthy: 6 hosts with benchmarks/fleet_evidence.py's realistic noise (transport errors, cut
  streams, short replies, catch-phrases), one of them a reasoning model (thinking trait), every
  OpenRouter usage-chunk shape mixed in. Every failed check among their completed replies is a
  false failure;
- planted: one host per simulator wire defect (simulator/defects.py) at rate 1 that a reply
  check reads (`hidden_system_prompt` is judged against peers in the judge, `no_stream_usage`
  over the window: neither fails a reply, so neither is planted here).

Billing is judged against each endpoint's listing as discovery returned it (the simulator's
prices), the way the probes judge it.

CPU time is `time.process_time` over the judged replies (the check alone, repeated), plus a
worst case: a 64 K-character stream in one-character deltas (the client's size cap). Decode speed
is measured on every reply too (probes/round/reply_checks.py ReplyFacts.decode_tps; judged against the
peers in the judge, benchmarks/fleet_evidence.py): its CPU per reply is `decode_us`, and the
judge's peer comparison per model round (judge/suspension/decode_speed.py over 8 endpoints x 4
cases) is `decode_round_us`.

Machine-parsable lines:

    BENCH reply_checks healthy_completed=… false_failures=… planted=… caught=… us_per_reply=… billing_us=… worst_us=…
          decode_us=… decode_round_us=…
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fleet_evidence import NOISE  # noqa: E402

from core.results import AttemptResult, CaseResult  # noqa: E402
from core.upstream import Upstream  # noqa: E402
from core.vocabulary import LATENCY, Outcome  # noqa: E402
from judge.replies.billing import assess_cost, assess_hidden_tokens  # noqa: E402
from judge.replies.verdict import Common, Verdict, passed  # noqa: E402
from judge.suspension.decode_speed import judge_decode_speed  # noqa: E402
from probes.http.client import PinnedClient  # noqa: E402
from probes.http.discovery import discover  # noqa: E402
from probes.http.records import ChatResult, Endpoint  # noqa: E402
from probes.round.contracts import language, latency, refusal  # noqa: E402
from probes.round.reply_checks import ReplyFacts, run_checks  # noqa: E402
from simulator import scenario_from_dict, start_simulator  # noqa: E402

PASSED = passed("the contract passed")   # the checks run as on a reply its contract passed

MODEL = "acme/model-x"
LANGUAGES = ("en", "pt", "ja", "ru", "de", "ar")
DEFECTS: dict[str, dict[str, Any]] = {"cumulative_deltas": {}, "repeated_deltas": {},
                                      "ignore_max_tokens": {"factor": 20}, "early_length": {"ratio": 0.2},
                                      "overbilling": {"factor": 1.17}}


def endpoints() -> list[dict[str, Any]]:
    def one(tag: str, faults: dict[str, Any], **extra: Any) -> dict[str, Any]:
        behaviour = {"ttft_ms": 10, "jitter_ms": 5, "tokens_per_second": 20000, "faults": faults, **extra}
        return {"tag": tag, "provider_name": tag.split("/")[0].title(), "behaviour": behaviour}

    thinker: dict[str, Any] = {**NOISE, "thinking": {"tokens": 120}}  # a reasoning model, as healthy
    healthy = [one(f"host{i}/fp8", thinker if i == 0 else dict(NOISE)) for i in range(6)]
    planted = [one(f"{name.replace('_', '')}/fp8", {name: {"rate": 1.0, **params}}) for name, params in DEFECTS.items()]
    return healthy + planted


def requests() -> list[tuple[list[dict[str, str]], int]]:
    return [(latency.messages(), latency.MAX_TOKENS), (refusal.messages(), 200),
            *((language.messages(lang), 200) for lang in LANGUAGES)]


async def collect(base_url: str, replies: int) -> tuple[dict[str, list[ChatResult]], dict[str, Endpoint]]:
    out: dict[str, list[ChatResult]] = {}
    async with PinnedClient(Upstream(base_url=base_url, api_key="sk-bench-reply-checks"), deadline_s=10.0) as client:
        found = await discover(client, MODEL)
        listed = {ep.provider: ep for ep in found}
        plan = requests()
        for ep in found:
            per = replies if ep.provider.startswith("host") else max(8, replies // 10)
            out[ep.provider] = [await client.chat(ep, *plan[i % len(plan)][:1], max_tokens=plan[i % len(plan)][1])
                           for i in range(per)]
    return out, listed


def cpu_us(results: list[ChatResult], repeats: int, listed: dict[str, Endpoint]) -> float:
    start = time.process_time()
    for _ in range(repeats):
        for result in results:
            run_checks(ReplyFacts.of(result, listed.get(result.provider)), PASSED, LATENCY)
    return (time.process_time() - start) / (repeats * len(results)) * 1e6


def billing_cpu_us(results: list[ChatResult], repeats: int, listed: dict[str, Endpoint]) -> float:
    """The billing checks alone (the part issue 22 item 2 adds to every reply)."""
    start = time.process_time()
    for _ in range(repeats):
        for result in results:
            facts = ReplyFacts.of(result, listed[result.provider])
            assess_cost(facts.usage, facts.prices)
            assess_hidden_tokens(facts.hidden)
    return (time.process_time() - start) / (repeats * len(results)) * 1e6


def decode_us(results: list[ChatResult], repeats: int) -> float:
    start = time.process_time()
    for _ in range(repeats):
        for result in results:
            ReplyFacts.of(result, None).decode_tps()
    return (time.process_time() - start) / (repeats * len(results)) * 1e6


def decode_round_us(repeats: int) -> float:
    """The judge's peer comparison over one model round of 8 endpoints x 4 cases, 2 measured replies each."""
    cases = [CaseResult(model=MODEL, provider=f"host{i}/fp8", contract=contract, outcome=Outcome.PASS,
                        code=Common.PASS, reason="ok",
                        attempts=tuple(AttemptResult(outcome=Outcome.PASS, code=Common.PASS, reason="ok",
                                                     decode_tps=50.0 + i + j,
                                                     advertised_p50_tps=60.0, advertised_slowest_tps=24.0)
                                       for j in range(2)))
             for i in range(8) for contract in ("latency", "refusal", "structured", "language")]
    start = time.process_time()
    for _ in range(repeats):
        judge_decode_speed(cases)
    return (time.process_time() - start) / repeats * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=600, help="replies per healthy host")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    scenario = scenario_from_dict({"name": "reply-checks", "keepalive_ms": 200,
                                   "models": [{"id": MODEL, "endpoints": endpoints()}]})
    with start_simulator(scenario, seed=args.seed) as sim:
        by_tag, listed = asyncio.run(collect(sim.base_url, args.replies))

    def check(r: ChatResult) -> Verdict | None:
        found = run_checks(ReplyFacts.of(r, listed[r.provider]), PASSED, LATENCY).verdict
        return None if found is None or found.passed else found

    healthy = [r for tag, rs in by_tag.items() if tag.startswith("host") for r in rs if r.completed]
    false = Counter(v.code for r in healthy if (v := check(r)) is not None)
    planted = {tag: rs for tag, rs in by_tag.items() if not tag.startswith("host")}
    caught = {tag: sum(1 for r in rs if check(r) is not None) for tag, rs in planted.items()}
    for tag, rs in planted.items():
        codes = Counter(v.code for r in rs if (v := check(r)) is not None)
        print(f"planted {tag}: {caught[tag]} of {len(rs)} replies failed {dict(codes)}")
    print(f"healthy: {len(healthy)} completed replies of 6 noisy hosts, false failures {sum(false.values())} "
          f"{dict(false)}; with text and deltas: {sum(1 for r in healthy if r.deltas)}")
    us = cpu_us(healthy, 20, listed)
    billing_us = billing_cpu_us(healthy, 20, listed)
    worst = ChatResult(provider="w/fp8", classification=healthy[0].classification, deltas=tuple("a" * 65536),
                       finish_reason="length", usage=healthy[0].usage, max_tokens_sent=200)
    worst_us = cpu_us([worst], 20, {"w/fp8": listed[healthy[0].provider]})
    print(f"CPU per reply: {us:.1f} us (mean over {len(healthy)} replies x 20), of which billing honesty "
          f"{billing_us:.1f} us; worst case 64 K one-char deltas: {worst_us:.0f} us")
    dec_us, round_us = decode_us(healthy, 20), decode_round_us(200)
    measured = sum(1 for r in healthy if ReplyFacts.of(r, None).decode_tps() is not None)
    print(f"decode speed: measured on {measured} of {len(healthy)} healthy replies, {dec_us:.1f} us a reply; "
          f"the judge's peer comparison {round_us:.0f} us a model round (8 endpoints x 4 cases)")
    print(f"BENCH reply_checks healthy_completed={len(healthy)} false_failures={sum(false.values())} "
          f"planted={sum(len(rs) for rs in planted.values())} caught={sum(caught.values())} "
          f"us_per_reply={us:.1f} billing_us={billing_us:.1f} worst_us={worst_us:.0f} decode_us={dec_us:.1f} "
          f"decode_round_us={round_us:.0f}")


if __name__ == "__main__":
    main()

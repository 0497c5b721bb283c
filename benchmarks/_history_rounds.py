"""Synthetic judged rounds for the history benchmarks: a 64-endpoint fleet, every half hour.

The shape of each case is the real one (core/results.py CaseResult, as the probes write it); the values are
drawn from a seeded generator with the spread of real traffic: TTFT log-normal around a per-host
median, output 60-200 tokens at a per-host speed, language rotating over the 17 languages, a few
percent of transport errors and inconclusive cases, and a handful of hosts failing (with the
reason texts the judges write), so the files carry what real rounds carry.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from core import times

MODEL = "deepseek/deepseek-chat-v3-0324"
LANGUAGES = ("pt", "es", "id", "ko", "ja", "zh", "en", "fr", "de", "it", "ru", "pl", "tr", "vi", "th", "ar", "hi")
START = datetime(2026, 1, 1, tzinfo=UTC)
HALF_HOUR = timedelta(minutes=30)
FAILURES = {
    "latency": ("first token after {x:.2f} s > 10 s",),
    "refusal": ("refusal: empty reply", "refusal: the reply opens with a refusal (en): I can't continue this story."),
    "structured": ("structured: schema violation at $.mood: 'ecstatic' is not one of ['calm', 'tense']",
                   "structured: not valid JSON: Expecting value at line 1 column 1"),
    "language": ("leading garbage: stray punctuation at the start: '_,The corridor'",
                 "language: 2 of 8 sentences are Spanish (es), expected Portuguese (pt) "
                 "(confirmed: 3 of 3 attempts failed)"),
}
TRANSPORT_ERRORS = {
    "http_429": "transport: HTTP 429: rate limited",
    "http_5xx": "transport: HTTP 502: bad gateway",
    "stream_cut": "transport: stream ended without [DONE] and without a finish reason after 3 chunks",
}


def fleet(count: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    hosts = []
    for i in range(count):
        hosts.append({"tag": f"host{i:02d}/{rng.choice(['fp8', 'bf16', 'fp16', 'int4'])}",
                      "served_by": f"Host{i:02d}", "ttft": rng.uniform(0.3, 2.5), "tps": rng.uniform(20, 120),
                      "bad": rng.random() < 0.08, "price": rng.choice([2e-7, 4e-7, 9e-7])})
    return hosts


def results(hosts: list[dict[str, Any]], n: int, rng: random.Random, *, at: datetime | None = None,
            model: str = MODEL) -> dict[str, Any]:
    """The results document of round number `n` (half an hour after round n - 1)."""
    started = at or START + n * HALF_HOUR
    cases = []
    for i, h in enumerate(hosts):
        for contract in ("latency", "refusal", "structured", "language"):
            cases.append(_case(h, contract, LANGUAGES[(n + i) % len(LANGUAGES)], rng, model))
    return {
        "schema_version": 1, "round_id": f"{started:%Y%m%dT%H%M%SZ}-{n:06x}",
        "started_at": _iso(started), "finished_at": _iso(started + timedelta(seconds=25)),
        "complete": True, "incomplete_reason": None, "upstream": "simulator",
        "models": {model: {"providers": [h["tag"] for h in hosts]}}, "weak_probes": [], "cases": cases,
    }


def _case(h: dict[str, Any], contract: str, language: str, rng: random.Random, model: str) -> dict[str, Any]:
    ttft = round(h["ttft"] * rng.lognormvariate(0, 0.35), 4)
    tokens = rng.randint(20, 32) if contract == "latency" else rng.randint(60, 200)
    total = round(ttft + tokens / (h["tps"] * rng.uniform(0.8, 1.2)), 4)
    roll = rng.random()
    outcome, reason, kind = "pass", f"{contract}: passed", None
    if h["bad"] and roll < 0.5:
        outcome, reason = "fail", rng.choice(FAILURES[contract]).format(x=10 + rng.random() * 3)
    elif roll < 0.03:
        outcome, kind = "transport_error", rng.choice(["http_429", "http_5xx", "stream_cut"])
        reason = TRANSPORT_ERRORS[kind]
    elif roll < 0.05 and contract == "language":
        outcome, reason = "inconclusive", "language: too short to judge (31 letters, need 40)"
    prompt = rng.choice([96, 120, 143])
    case = {"model": model, "provider": h["tag"], "contract": contract, "outcome": outcome, "reason": reason,
            "language": language if contract == "language" else None, "anomaly": False, "control": False,
            "ttft_s": ttft if kind is None else None, "duration_s": round(total + 0.01, 4), "requests": 1,
            "prompt_tokens": prompt, "completion_tokens": tokens if kind is None else 0,
            "cost_usd": round((prompt + tokens) * h["price"], 8), "served_by": h["served_by"],
            "attempts": [{"outcome": outcome, "reason": reason, "ttft_s": ttft if kind is None else None,
                          "total_s": total, "finish_reason": "stop", "error_kind": kind,
                          "served_by": h["served_by"], "excerpt": ""}]}
    return case


def _iso(t: datetime) -> str:
    return times.stamp(t)

"""Helpers for the history tests: results documents with timings, tokens and real reason texts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from judge_cli_support import MODEL, PROVIDERS, T0, results

from core.vocabulary import catch_all_code

# Reason texts as the contracts and judges write them, and their codes.
CODES = {"latency": "ttft_exceeded", "refusal": "empty_reply", "structured": "schema_violation",
         "language": "leading_garbage"}
REASONS = {
    "latency": "first token after 12.31 s > 10 s",
    "refusal": "refusal: empty reply",
    "structured": "structured: schema violation at $.mood: 'ecstatic' is not one of ['calm', 'tense']",
    "language": "leading garbage: stray punctuation at the start: '_,The corridor'",
}


def detailed(spec: dict[str, Any] | None = None, *, at: datetime = T0, ttft: dict[str, float] | None = None,
             providers: tuple[str, ...] = PROVIDERS, **kw: Any) -> dict[str, Any]:
    """A results document whose cases carry TTFT, duration, tokens, cost, served_by and attempts."""
    doc = results(spec, at=at, providers=providers, **kw) | {"schema_version": 2}
    for case in doc["cases"]:
        first = (ttft or {}).get(case["provider"], 0.5)
        outcome = case["outcome"]
        case["code"] = catch_all_code(outcome)
        if outcome == "fail":
            case["reason"], case["code"] = REASONS[case["contract"]], CODES[case["contract"]]
        elif outcome == "transport_error":
            case["reason"], case["code"] = "transport: HTTP 429: rate limited", "http_429"
        kind = "http_429" if outcome == "transport_error" else None
        case.update(ttft_s=None if kind else first, duration_s=first + 2.0, requests=1, prompt_tokens=100,
                    completion_tokens=0 if kind else 100, cost_usd=0.0001,
                    served_by=case["provider"].split("/")[0].title(),
                    attempts=[{"outcome": outcome, "code": case["code"], "reason": case["reason"],
                               "ttft_s": None if kind else first, "total_s": first + 2.0, "finish_reason": "stop",
                               "error_kind": kind, "served_by": None, "excerpt": ""}])
    return doc


__all__ = ["MODEL", "PROVIDERS", "REASONS", "T0", "detailed"]

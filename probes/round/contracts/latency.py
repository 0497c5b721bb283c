"""Latency: time to the first content token of a streamed, pinned request.

- first token within probe.ttft_seconds -> pass; later -> fail;
- the stream opened (HTTP 200 headers) but no text arrived before the threshold (a stall, or
  a deadline/cut after the threshold) -> fail: that is exactly "no text within 10 s";
- never started (no headers, connect error) or broke before the threshold -> transport_error;
- routing mismatch / auth -> transport_error (see probes/round/contracts/__init__.py);
- completed quickly with no text at all -> inconclusive: not a latency problem (the refusal
  contract judges empty replies).
"""

from __future__ import annotations

from enum import StrEnum

from core.vocabulary import LATENCY
from judge.replies.verdict import Outcome, Verdict, passed
from probes.http.records import ChatResult, Classification, Endpoint
from probes.round.cases import Case, ProbedCase
from probes.round.contracts import (
    ChatClient,
    ContractSettings,
    attempt_from,
    clock,
    prompt,
    single,
)


class LatencyCode(StrEnum):
    """The codes of the latency contract (judge/replies/verdict.py)."""

    TTFT_EXCEEDED = "ttft_exceeded"
    NO_TEXT = "no_text"


# Only the first token is judged: a small completion keeps the probe cheap.
MAX_TOKENS = 32
# The request must outlive the threshold, or a host just over it would read as a transport error.
DEADLINE_MARGIN_S = 2.0


def messages() -> list[dict[str, str]]:
    p = prompt(LATENCY)
    return [{"role": "system", "content": p["system"]}, {"role": "user", "content": p["user"]}]


def judge(result: ChatResult, threshold: float) -> Verdict | None:
    """The verdict on the first token, or None when the request says nothing about latency."""
    # First: a first token served by another host (or refused auth) says nothing about this one.
    if result.classification in (Classification.AUTH_ERROR, Classification.ROUTING_MISMATCH):
        return None
    if result.ttft_s is not None:
        if result.ttft_s <= threshold:
            return passed(f"first token after {result.ttft_s:.2f} s (threshold {threshold:g} s)")
        return Verdict(Outcome.FAIL, LatencyCode.TTFT_EXCEEDED,
            f"first token after {result.ttft_s:.2f} s > {threshold:g} s")
    stream_open = result.http_status == 200
    if stream_open and result.total_s >= threshold:
        how_it_ended = result.error_kind.value if result.error_kind else "ended"
        return Verdict(Outcome.FAIL, LatencyCode.TTFT_EXCEEDED, f"no text within {threshold:g} s (stream open, "
                                                                f"{how_it_ended} after {result.total_s:.1f} s)")
    if result.completed:
        return Verdict(Outcome.INCONCLUSIVE, LatencyCode.NO_TEXT, "completed without any text: not a latency verdict")
    return None


async def probe(client: ChatClient, endpoint: Endpoint, settings: ContractSettings, case: Case) -> ProbedCase:
    threshold = settings.probe.ttft_seconds
    msgs = messages()
    start = clock()
    result = await client.chat(endpoint, msgs, max_tokens=min(MAX_TOKENS, settings.probe.max_tokens),
                               temperature=settings.probe.temperature,
                               deadline_s=max(settings.probe.request_deadline_seconds, threshold + DEADLINE_MARGIN_S))
    verdict = judge(result, threshold)
    attempt = attempt_from(result, endpoint, verdict, msgs, case=case)
    return single(case, attempt, result, clock() - start)

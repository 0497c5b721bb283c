"""Decode speed of one streamed reply: output tokens per second after the first token (pure).

    decode tokens/s = (completion_tokens - 1) / (end_s - ttft_s)

Where it is measured, and how the judge weighs it against the peers: docs/judge.md
(decode speed against the peers). Under MIN_DECODE_TOKENS one late delta halves the figure
(OpenRouter sends 1 to 2.5 tokens a delta); under MIN_DECODE_S it is the pace of our own reader.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_DECODE_TOKENS = 24
MIN_DECODE_S = 0.05
_FINISHED = ("stop", "length")   # finish reasons


@dataclass(frozen=True, slots=True)
class DecodeFacts:
    """What one reply says about its decode (None: not reported or not streamed)."""

    completed: bool
    finish_reason: str | None
    completion_tokens: int | None
    ttft_s: float | None              # None: no content delta, or not streamed
    end_s: float | None               # the finish chunk (or the last content delta); None: not seen
    reasoning: bool


def decode_tps(facts: DecodeFacts) -> float | None:
    """Tokens per second after the first token, or None when the reply cannot say (module docstring)."""
    if (not facts.completed or facts.reasoning or facts.finish_reason not in _FINISHED
            or facts.completion_tokens is None or facts.ttft_s is None or facts.end_s is None):
        return None
    after_first = facts.completion_tokens - 1
    decoding = facts.end_s - facts.ttft_s
    if after_first < MIN_DECODE_TOKENS or decoding < MIN_DECODE_S:
        return None
    return after_first / decoding

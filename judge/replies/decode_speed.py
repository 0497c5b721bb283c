"""Decode speed of one streamed reply: output tokens per second after the first token (issue 22).

A host can send its first token fast and then crawl (1-2 tokens/s against its peers' 140-270,
maximhq/bifrost#6472): the latency contract passes, and the user watches the reply type itself
out for a minute. Every completed stream already carries what it takes to see it, at no extra
request: `usage.completion_tokens`, the time of the first content delta (`ttft_s`) and the end
of the generation (`end_s`: the finish chunk, or the last content delta without one). So

    decode tokens/s = (completion_tokens - 1) / (end_s - ttft_s)

(the first token is what `ttft_s` waited for; the rest came during the decode). The window ends
at the generation, not at `[DONE]`: OpenRouter sends the usage in a chunk of its own after the
finish, sometimes a second later, and a real 56-token Claude stream measured 117.7 tokens/s with
the usage at once and 37.1 with it one second late (docs/openrouter-wire.md §9). It is measured
only where it means something:
- a completed stream (a non-streamed reply has no first-token time), ended by `stop` or `length`;
- at least MIN_DECODE_TOKENS tokens after the first: OpenRouter batches a few tokens per delta
  (the recorded real streams carry 1 to 2.5 tokens a delta: 104 tokens in 98 deltas, 30 in 12),
  so over a handful of tokens one late delta or one network hiccup halves the figure; the
  latency probe (32 tokens at most) measures only when it writes most of its cap, the refusal
  and language replies (80-300 tokens) always;
- at least MIN_DECODE_S of decoding: under that the figure is the pace of our own reader
  (a reply that arrived in one or two chunks);
- no reasoning (asked for, seen or reported): a host may count its thinking in
  `completion_tokens` while the thinking came before the first content token, which would make
  a thinking host look fast, or leave it out, which would make it look slow.
Whether the figure is *slow* is a question for the peers and the endpoint's own advertised
throughput (judge/suspension/decode_speed.py), never for one reply.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_DECODE_TOKENS = 24
MIN_DECODE_S = 0.05
_FINISHED = ("stop", "length")   # not the contract: finish reasons


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

"""Decode speed of one reply (judge/replies/decode_speed.py): measured only where it means something."""

from __future__ import annotations

from dataclasses import replace

import pytest

from judge.replies.decode_speed import MIN_DECODE_TOKENS, DecodeFacts, decode_tps

# 101 tokens: the first after 0.5 s, the other 100 over 2 s.
HEALTHY = DecodeFacts(completed=True, finish_reason="stop", completion_tokens=101, ttft_s=0.5, end_s=2.5,
                      reasoning=False)


def test_the_tokens_after_the_first_over_the_time_after_the_first() -> None:
    assert decode_tps(HEALTHY) == pytest.approx(50.0)


def test_a_crawl_after_a_fast_first_token_reads_as_a_crawl() -> None:
    # maximhq/bifrost#6472's shape: the first token at once, then 1-2 tokens/s.
    assert decode_tps(replace(HEALTHY, ttft_s=0.3, end_s=66.3)) == pytest.approx(100 / 66)


@pytest.mark.parametrize("change", [
    {"completed": False},                                 # a transport error: its timings say nothing
    {"ttft_s": None},                                     # not streamed, or no content delta
    {"finish_reason": None}, {"finish_reason": "error"},  # not a finished reply
    {"reasoning": True},                                  # thinking may or may not be in the count
    {"completion_tokens": None},                          # no usage
    {"completion_tokens": MIN_DECODE_TOKENS},             # too few tokens after the first: one late delta halves it
    {"end_s": 0.52},                                      # one chunk: our reader's pace, not the host's
])
def test_nothing_is_measured_where_the_reply_cannot_say(change: dict[str, object]) -> None:
    assert decode_tps(replace(HEALTHY, **change)) is None  # type: ignore[arg-type]


def test_a_length_finish_is_measured_like_a_stop() -> None:
    assert decode_tps(replace(HEALTHY, finish_reason="length")) == pytest.approx(50.0)

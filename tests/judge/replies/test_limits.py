"""judge/replies/limits.py: a reply above the cap sent, or a `length` finish far below it, fails naming the figures."""

from __future__ import annotations

import pytest

from judge.replies.limits import (
    OVER_CAP_RATIO,
    OVER_CAP_TOKENS,
    UNITEMISED_THINKING_TOKENS,
    LimitsFacts,
    assess_limits,
)


def facts(tokens: int | None, cap: int | None = 200, finish: str | None = "stop", *, reasoning: bool = False,
          cut: bool = False) -> LimitsFacts:
    return LimitsFacts(cap=cap, completion_tokens=tokens, finish_reason=finish, reasoning=reasoning, cut_by_client=cut)


def test_completion_tokens_far_above_the_cap_fail_naming_both() -> None:
    verdict = assess_limits(facts(26_000, cap=1000))
    assert verdict is not None and verdict.failed
    assert "26000 completion tokens against max_tokens 1000" in verdict.reason
    assert verdict.code == "max_tokens_ignored"


@pytest.mark.parametrize("tokens", [200, 230, 266])
def test_a_tokenizer_margin_above_the_cap_passes(tokens: int) -> None:
    assert assess_limits(facts(tokens, finish="length")) is None  # 200 x 1.25 + 16 = 266


def test_the_margin_ends_where_it_says() -> None:
    verdict = assess_limits(facts(267))
    assert verdict is not None and "allowed up to 266" in verdict.reason


def test_a_length_finish_far_below_the_cap_fails_naming_the_figures() -> None:
    verdict = assess_limits(facts(40, finish="length"))
    assert verdict is not None and verdict.failed
    assert "'length' after 40 completion tokens against max_tokens 200" in verdict.reason
    assert verdict.code == "length_below_cap"


@pytest.mark.parametrize("case", [
    facts(40, finish="stop"),                         # a short natural ending
    facts(120, finish="length"),                      # at 60 % of the cap: tokenizer or accounting, not a cut
    facts(40, finish="length", reasoning=True),       # thinking a host may leave out of completion_tokens
    facts(40, finish="length", cut=True),             # our client's own size cap
    facts(None, finish="length"),                     # no usage: nothing to compare
    facts(5000, cap=None),                            # no cap sent (the endpoint lists none)
], ids=["stop", "60-percent", "reasoning", "our-cut", "no-usage", "no-cap"])
def test_what_says_nothing_about_the_limits_passes(case: LimitsFacts) -> None:
    assert assess_limits(case) is None


def reasoned(tokens: int, reasoning_tokens: int, cap: int = 1224) -> LimitsFacts:
    return LimitsFacts(cap=cap, completion_tokens=tokens, finish_reason="stop", reasoning=True, cut_by_client=False,
                       reasoning_tokens=reasoning_tokens)


def test_a_reasoning_host_whose_max_tokens_bounds_only_the_answer_passes() -> None:
    # SiliconFlow / DeepSeek's reasoner: 2400 thinking tokens on top of an 80-token answer.
    assert assess_limits(reasoned(2480, 2400)) is None


def test_an_answer_above_the_cap_fails_whatever_the_reasoning() -> None:
    verdict = assess_limits(reasoned(26_400, 400))
    assert verdict is not None and verdict.failed
    assert "26000 answer tokens (26400 completion tokens, 400 of them reasoning)" in verdict.reason
    assert verdict.code == "max_tokens_ignored"


def unitemised(tokens: int, cap: int = 32) -> LimitsFacts:
    """Reasoning asked for or seen, usage without reasoning_tokens (Groq's gpt-oss, a DeepSeek-R1 distill)."""
    return LimitsFacts(cap=cap, completion_tokens=tokens, finish_reason="stop", reasoning=True, cut_by_client=False)


def test_reasoning_not_itemised_is_no_answer_past_the_cap() -> None:
    # 2400 thinking tokens on top of a 32-token answer, the usage silent about which are which.
    assert assess_limits(unitemised(2432)) is None
    assert assess_limits(unitemised(32 * OVER_CAP_RATIO + OVER_CAP_TOKENS + UNITEMISED_THINKING_TOKENS)) is None


def test_a_reply_past_the_cap_and_any_thinking_still_fails() -> None:
    verdict = assess_limits(unitemised(64_000))
    assert verdict is not None and verdict.code == "max_tokens_ignored"
    assert "64000 completion tokens against max_tokens 32" in verdict.reason and "not itemised" in verdict.reason
    assert assess_limits(facts(2432, cap=32)) is not None  # no reasoning asked or seen: the cap holds as before

"""judge/replies/billing.py: usage.cost against the listed prices of the same usage, and the
completion tokens a reply reports against what its visible text can hold."""

from __future__ import annotations

import pytest

from judge.replies.billing import (
    BilledUsage,
    HiddenTokensFacts,
    Prices,
    assess_cost,
    assess_hidden_tokens,
    bill,
    listed_cost,
)

# Real figures: OpenAI o3 through OpenRouter ($2 / $8 per M tokens), as the recorded stream billed it.
O3 = Prices(prompt=2e-6, completion=8e-6)
O3_USAGE = BilledUsage(prompt_tokens=9, completion_tokens=104, cost=0.00085)
# A mid-priced open model ($0.14 / $0.28 per M), a probe reply of 60 prompt and 200 completion tokens.
OPEN = Prices(prompt=1.4e-7, completion=2.8e-7)


def underbilled_note(u: BilledUsage | None, prices: Prices) -> str | None:
    found = bill(u, prices)
    return found.underbilled if found else None


def usage(cost: float | None, prompt: int = 60, completion: int = 200, **kw: int) -> BilledUsage:
    return BilledUsage(prompt_tokens=prompt, completion_tokens=completion, cost=cost, **kw)


def test_the_recorded_real_cost_is_the_listed_price_to_the_last_digit() -> None:
    assert listed_cost(O3_USAGE, O3) == pytest.approx(0.00085, abs=1e-12)
    assert assess_cost(O3_USAGE, O3) is None and underbilled_note(O3_USAGE, O3) is None


def test_the_recorded_web_search_fee_is_priced_per_search_and_unpriced_searches_are_not_judged() -> None:
    # gpt-4.1-mini ($0.40 / $1.60 per M), one web search billed $0.01 on top (the recorded stream).
    searched = BilledUsage(prompt_tokens=8174, completion_tokens=30, cost=0.0133176, web_searches=1)
    assert listed_cost(searched, Prices(4e-7, 1.6e-6, web_search=0.01)) == pytest.approx(0.0133176)
    assert listed_cost(searched, Prices(4e-7, 1.6e-6)) is None
    assert assess_cost(searched, Prices(4e-7, 1.6e-6)) is None


def test_seventeen_percent_overbilling_fails_naming_the_figures() -> None:
    # civitai/civitai#3815: usage.cost 17 % above listed price x reported tokens.
    verdict = assess_cost(usage(6.44e-05 * 1.17), OPEN)
    assert verdict is not None and verdict.failed
    assert "$0.00007535 billed against $0.00006440 listed (1.17 x) for 60 prompt and 200 completion" in verdict.reason
    assert verdict.code == "overbilled"


@pytest.mark.parametrize("factor", [1.0, 1.05, 1.099])
def test_billing_within_the_ratio_passes(factor: float) -> None:
    assert assess_cost(usage(6.44e-05 * factor), OPEN) is None


def test_a_large_ratio_below_the_absolute_floor_passes() -> None:
    # A nearly free model: 3 x its listed price is still a fraction of a micro-dollar (rounding, not a bill).
    tiny = Prices(prompt=1e-9, completion=2e-9)
    assert assess_cost(usage(3 * listed(usage(None), tiny)), tiny) is None


def listed(u: BilledUsage, p: Prices) -> float:
    value = listed_cost(u, p)
    assert value is not None
    return value


def test_cache_reads_and_writes_are_priced_at_their_listed_prices_inside_the_prompt_tokens() -> None:
    prices = Prices(prompt=3e-6, completion=15e-6, cache_read=0.3e-6, cache_write=3.75e-6)
    # Grok-like: 687 prompt tokens of which 682 were read from the cache.
    cached = usage(None, prompt=687, completion=240, cached_tokens=682)
    assert listed(cached, prices) == pytest.approx(5 * 3e-6 + 682 * 0.3e-6 + 240 * 15e-6)
    written = usage(None, prompt=100, completion=10, cache_write_tokens=80)
    assert listed(written, prices) == pytest.approx(20 * 3e-6 + 80 * 3.75e-6 + 10 * 15e-6)
    # Not listed: a cache read is priced as a prompt token (the upper bound: never overbilling).
    assert listed(cached, Prices(prompt=3e-6, completion=15e-6)) == pytest.approx(687 * 3e-6 + 240 * 15e-6)


def test_the_request_fee_and_a_reasoning_price_count() -> None:
    prices = Prices(prompt=1e-6, completion=2e-6, request=0.001, reasoning=4e-6)
    assert listed(usage(None, prompt=10, completion=100, reasoning_tokens=60), prices) == pytest.approx(
        10e-6 + 40 * 2e-6 + 60 * 4e-6 + 0.001)


def test_underbilling_is_a_note_never_a_failure() -> None:
    cheap = usage(6.44e-05 * 0.5)
    assert assess_cost(cheap, OPEN) is None
    note = underbilled_note(cheap, OPEN)
    assert note is not None and note.startswith("billing: cost below the listed price") and "(0.50 x)" in note
    assert underbilled_note(usage(6.44e-05), OPEN) is None


@pytest.mark.parametrize("u", [None, usage(None)])
def test_no_usage_or_no_cost_has_nothing_to_compare(u: BilledUsage | None) -> None:
    assert assess_cost(u, OPEN) is None and underbilled_note(u, OPEN) is None


def hidden(tokens: int | None, text_bytes: int = 400, *, reasoning: bool = False, cut: bool = False,
           finish: str | None = "stop") -> HiddenTokensFacts:
    return HiddenTokensFacts(completion_tokens=tokens, text_bytes=text_bytes, reasoning=reasoning, cut_by_client=cut,
                             finish_reason=finish)


def test_completion_tokens_the_text_cannot_hold_fail_naming_the_figures() -> None:
    verdict = assess_hidden_tokens(hidden(2000))
    assert verdict is not None and verdict.failed
    assert "2000 completion tokens reported" in verdict.reason and "visible text of 400 bytes" in verdict.reason
    assert verdict.code == "hidden_completion_tokens"


@pytest.mark.parametrize("tokens", [100, 400, 416])
def test_up_to_a_token_a_byte_plus_the_slack_passes(tokens: int) -> None:
    assert assess_hidden_tokens(hidden(tokens)) is None


def test_cjk_text_at_its_densest_tokenizer_passes() -> None:
    # 200 CJK characters are 600 UTF-8 bytes; a byte-fallback tokenizer may spend 2 tokens each.
    assert assess_hidden_tokens(hidden(400, text_bytes=len(("猫" * 200).encode()))) is None


@pytest.mark.parametrize("kw", [{"reasoning": True}, {"cut": True}])
def test_reasoning_replies_and_our_own_cut_are_set_aside(kw: dict[str, bool]) -> None:
    assert assess_hidden_tokens(hidden(5000, **kw)) is None
    assert assess_hidden_tokens(hidden(None)) is None


@pytest.mark.parametrize("text_bytes, finish", [(0, "stop"), (400, "content_filter"), (400, None)])
def test_an_empty_text_or_a_filtered_finish_is_left_to_the_contracts(text_bytes: int, finish: str | None) -> None:
    assert assess_hidden_tokens(hidden(5000, text_bytes, finish=finish)) is None
    assert assess_hidden_tokens(hidden(5000, 400, finish="length")) is not None


# -- issue 28: the real wire's shapes (docs/openrouter-wire.md §9) ---------------------------------

# gpt-5-mini through OpenRouter ($0.25 / $2 per M): 960 of 2177 completion tokens were reasoning,
# billed 17 x $0.25/M + 2177 x $2/M, reasoning at the completion price (pydantic-ai's cassette).
GPT5_MINI = BilledUsage(prompt_tokens=17, completion_tokens=2177, cost=0.00435825, reasoning_tokens=960)


@pytest.mark.parametrize("reasoning", [None, 0.0, 2e-6])
def test_a_listed_zero_reasoning_price_never_prices_reasoning_below_the_completion_price(reasoning) -> None:
    prices = Prices(prompt=2.5e-7, completion=2e-6, reasoning=reasoning)
    assert listed_cost(GPT5_MINI, prices) == pytest.approx(0.00435825, abs=1e-12)
    assert assess_cost(GPT5_MINI, prices) is None and underbilled_note(GPT5_MINI, prices) is None


def test_a_listed_reasoning_price_above_the_completion_price_is_the_bound() -> None:
    assert listed_cost(GPT5_MINI, Prices(2.5e-7, 2e-6, reasoning=4e-6)) == pytest.approx(0.00435825 + 960 * 2e-6)


def test_a_listed_zero_cache_read_price_reads_as_not_listed_when_the_usage_shows_cache_reads() -> None:
    # Grok: 403 of 404 prompt tokens cached. A "0" cache-read price would price them free.
    cached = BilledUsage(prompt_tokens=404, completion_tokens=20, cost=404 * 2e-7 + 20 * 5e-7, cached_tokens=403)
    assert listed_cost(cached, Prices(2e-7, 5e-7, cache_read=0.0)) == pytest.approx(404 * 2e-7 + 20 * 5e-7)
    assert assess_cost(cached, Prices(2e-7, 5e-7, cache_read=0.0, cache_write=0.0)) is None


def test_a_listed_zero_web_search_price_leaves_a_reply_with_searches_unpriced() -> None:
    searched = BilledUsage(prompt_tokens=8174, completion_tokens=30, cost=0.0133176, web_searches=1)
    assert listed_cost(searched, Prices(4e-7, 1.6e-6, web_search=0.0)) is None
    assert listed_cost(BilledUsage(10, 10, 1e-5), Prices(1e-7, 1e-6, web_search=0.0, request=0.0)) == pytest.approx(
        10 * 1e-7 + 10 * 1e-6)


def calls(tokens: int, text_bytes: int, n: int, call_bytes: int, finish: str = "stop") -> HiddenTokensFacts:
    return HiddenTokensFacts(completion_tokens=tokens, text_bytes=text_bytes, finish_reason=finish, reasoning=False,
                             cut_by_client=False, call_bytes=call_bytes, calls=n)


@pytest.mark.parametrize("facts", [
    calls(120, 21, 2, 2 * (10 + 16)),            # Claude via Bedrock: two calls, 16-byte arguments, 120 tokens
    calls(54, 0, 1, 10 + 16, "tool_calls"),      # one Claude call, 54 tokens, no text
    calls(54, 21, 2, 2 * (10 + 16)),             # gpt-5.4-nano: two calls, 54 tokens
], ids=["claude-two-calls-stop", "claude-one-call", "gpt-5.4-nano"])
def test_real_tool_call_replies_are_not_hidden_tokens(facts: HiddenTokensFacts) -> None:
    assert assess_hidden_tokens(facts) is None


def test_a_tool_call_reply_billing_far_more_than_its_calls_still_fails() -> None:
    verdict = assess_hidden_tokens(calls(2000, 21, 2, 52, "tool_calls"))
    assert verdict is not None and verdict.failed and "2 tool call(s) of 52 bytes" in verdict.reason
    text_only = assess_hidden_tokens(calls(2000, 21, 0, 0))
    assert text_only is not None and verdict.code == text_only.code

"""Billing honesty of one completed reply: `usage.cost` against its listed prices, and its completion
tokens against the text they carried (docs/contracts.md, the billing rows; the wire facts behind the
expected cost's upper bound are docs/openrouter-wire.md's).

OVERBILLED_RATIO is the defect's size (civitai/civitai#3815: 17 % above price x tokens), far above
OpenRouter's rounding (recorded costs match price x tokens to the last digit); the floor keeps a
near-free reply from failing on rounding. Every text token carries at least one UTF-8 byte
(byte-level BPE falls back to single bytes), so the completion-token bound is generous.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from judge.replies.verdict import Verdict, failed

OVERBILLED_RATIO = 1.10
OVERBILLED_FLOOR_USD = 0.000002
HIDDEN_TOKENS_SLACK = 16
# A tool call's own cost beyond its name and argument bytes, with room: the whole real cost of a
# call is ~55-60 completion tokens on Claude via Bedrock and 27 on gpt-5.4-nano (recorded
# OpenRouter traffic, docs/openrouter-wire.md §9), whatever its argument bytes.
PER_CALL_TOKENS = 64
# The finishes whose text and calls are the whole generation: a content_filter finish may bill
# what its filter withheld (the refusal contract judges the filter), and an empty reply (a
# `refusal` field: a part the client does not read) is the contracts' to judge.
JUDGED_FINISHES = ("stop", "length", "tool_calls")   # finish reasons


class BillingCode(StrEnum):
    """The codes of billing honesty (judge/replies/verdict.py); the round's hidden prompt is judge/suspension's."""

    OVERBILLED = "overbilled"
    HIDDEN_COMPLETION_TOKENS = "hidden_completion_tokens"


OVERBILLED = "billing: cost above the listed price"
HIDDEN_TOKENS = "billing: completion tokens the text cannot hold"
UNDERBILLED = "billing: cost below the listed price"


@dataclass(frozen=True, slots=True)
class Prices:
    """An endpoint's listed prices, USD per token, request or search; None: not listed (the upper bound applies)."""

    prompt: float
    completion: float
    request: float = 0.0
    cache_read: float | None = None
    cache_write: float | None = None
    reasoning: float | None = None
    web_search: float | None = None


@dataclass(frozen=True, slots=True)
class BilledUsage:
    """What one completed reply's usage reports (the details are counted inside the totals)."""

    prompt_tokens: int
    completion_tokens: int
    cost: float | None               # usage.cost, USD; None: not reported
    cached_tokens: int = 0           # prompt_tokens_details.cached_tokens
    cache_write_tokens: int = 0      # prompt_tokens_details.cache_write_tokens
    reasoning_tokens: int = 0        # completion_tokens_details.reasoning_tokens
    web_searches: int = 0            # server_tool_use_details.web_search_requests


@dataclass(frozen=True, slots=True)
class HiddenTokensFacts:
    """What the completion-token check reads off one completed reply."""

    completion_tokens: int | None
    text_bytes: int                  # the visible text's UTF-8 length
    finish_reason: str | None
    reasoning: bool                  # reasoning asked for, seen, reported, or the model's default
    cut_by_client: bool              # our own size cap stopped reading
    call_bytes: int = 0              # the tool calls' names and arguments, UTF-8
    calls: int = 0                   # how many tool calls the reply carried


def listed_cost(usage: BilledUsage, prices: Prices) -> float | None:
    """The cost the listing gives for this usage (USD); None when a part of it is not priced."""
    web_search = _charged(prices.web_search)
    if usage.web_searches and web_search is None:
        return None
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    written = min(usage.cache_write_tokens, usage.prompt_tokens - cached)
    fresh = usage.prompt_tokens - cached - written
    reasoning = min(usage.reasoning_tokens, usage.completion_tokens)
    return (fresh * prices.prompt
            + cached * _or(_charged(prices.cache_read), prices.prompt)
            + written * _or(_charged(prices.cache_write), prices.prompt)
            + (usage.completion_tokens - reasoning) * prices.completion
            + reasoning * max(prices.reasoning or 0.0, prices.completion)
            + prices.request + usage.web_searches * (web_search or 0.0))


def _charged(listed: float | None) -> float | None:
    """A listed zero reads as not listed: "0" is what OpenRouter writes for what it does not price apart."""
    return listed if listed else None


def _or(listed: float | None, default: float) -> float:
    return default if listed is None else listed


def _figures(usage: BilledUsage, billed: float, listed: float) -> str:
    ratio = f"{billed / listed:.2f} x" if listed > 0 else "nothing listed"
    return (f"${billed:.8f} billed against ${listed:.8f} listed ({ratio}) for {usage.prompt_tokens} prompt "
            f"and {usage.completion_tokens} completion tokens")


@dataclass(frozen=True, slots=True)
class Bill:
    """One reply's bill against its listing (USD), and its underbilled note (None: not underbilled)."""

    billed: float                    # usage.cost
    listed: float                    # listed_cost of the same usage
    underbilled: str | None = None


def bill(usage: BilledUsage | None, prices: Prices | None) -> Bill | None:
    """The reply's bill against its listed cost, or None when there is nothing to compare."""
    if usage is None or prices is None or usage.cost is None:
        return None
    listed = listed_cost(usage, prices)
    if listed is None:
        return None
    under = usage.cost * OVERBILLED_RATIO < listed and listed - usage.cost > OVERBILLED_FLOOR_USD
    return Bill(usage.cost, listed, f"{UNDERBILLED}: {_figures(usage, usage.cost, listed)} (a discount or an "
                                    "undetailed cache hit?)" if under else None)


def assess_cost(usage: BilledUsage | None, prices: Prices | None) -> Verdict | None:
    """A failed Verdict when `usage.cost` is above the listed cost by OVERBILLED_RATIO and the floor."""
    found = bill(usage, prices)
    if usage is None or found is None:
        return None
    billed, listed = found.billed, found.listed
    if billed > listed * OVERBILLED_RATIO and billed - listed > OVERBILLED_FLOOR_USD:
        return failed(BillingCode.OVERBILLED, f"{OVERBILLED}: {_figures(usage, billed, listed)}; fails above "
                      f"{OVERBILLED_RATIO:g} x and ${OVERBILLED_FLOOR_USD:g} more")
    return None


def assess_hidden_tokens(facts: HiddenTokensFacts) -> Verdict | None:
    """A failed Verdict when the reply reports more completion tokens than its text can hold."""
    tokens = facts.completion_tokens
    generated = facts.text_bytes + facts.call_bytes
    if (tokens is None or facts.reasoning or facts.cut_by_client or not generated
            or facts.finish_reason not in JUDGED_FINISHES):
        return None
    most = generated + HIDDEN_TOKENS_SLACK + facts.calls * PER_CALL_TOKENS
    if tokens > most:
        calls = (f" and {facts.calls} tool call(s) of {facts.call_bytes} bytes ({PER_CALL_TOKENS} tokens allowed "
                 "a call)") if facts.calls else ""
        return failed(BillingCode.HIDDEN_COMPLETION_TOKENS,
            f"{HIDDEN_TOKENS}: {tokens} completion tokens reported, no reasoning asked or reported, "
                      f"for a visible text of {facts.text_bytes} bytes{calls} (at most {most} tokens: every text "
                      "token carries at least one byte)")
    return None

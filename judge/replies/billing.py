"""Billing honesty: what one completed reply was billed (`usage.cost`) against what the endpoint
lists, and the tokens it reports against the text it carried (issue 22).

Expected cost, from the same round's discovery pricing (USD per token, per request) and the
reply's own usage: prompt tokens at `pricing.prompt` (the cache reads among them at
`input_cache_read` and the cache writes at `input_cache_write`, where listed), completion tokens
at `pricing.completion` (the reasoning among them at the higher of `internal_reasoning` and
`completion`: OpenRouter bills reasoning at the completion price, every recorded reasoning bill
reconciles that way), the `request` fee, and `web_search` per search the usage reports (the
recorded real exchange billed $0.01 for one search on top of its tokens). OpenRouter counts
cached tokens inside `prompt_tokens` (its usage-accounting docs), so they are priced apart, not added.

A listed zero is not a price for what the usage shows was charged: real pricing objects have
carried `"internal_reasoning": "0"`, `"request": "0"`, `"web_search": "0"` (2025 endpoint
listings; `/models` entries still write "0" for what OpenRouter does not price apart), and
reading them as free would make every reasoning reply "overbilled". So the expected cost is an
upper bound: a zero cache-read or cache-write price reads as not listed (the prompt price), a
zero `web_search` with searches reported leaves the reply unpriced, and reasoning is never priced
below the completion price. A zero `request` fee is zero: the usage shows no request fee.

Three findings:
- overbilled: `cost` above the expected cost x OVERBILLED_RATIO *and* by more than
  OVERBILLED_FLOOR_USD fails the reply. The ratio is the defect's size (civitai/civitai#3815:
  17 % above listed price x reported tokens), well above OpenRouter's rounding (the recorded
  costs match price x tokens to the last digit); the floor keeps a free or near-free reply
  (a fraction of a micro-dollar) from failing on rounding. A conditional listing (`overrides`:
  long-context or time-window prices) is read at its highest price per unit (discovery). One round's
  overbilled replies fail the round; the streak rule's two failed rounds in a row are what
  suspends, so "overbilled in two rounds" is exactly the suspension the judge already makes;
- underbilled: `cost` below the expected cost / OVERBILLED_RATIO (and by the floor) is a note:
  a discount, a cache hit the usage does not detail, a promotion. It costs the user nothing;
- completion tokens the text cannot hold: every text token carries at least one UTF-8 byte
  (byte-level BPE falls back to single bytes, never to less), so a reply reporting more than its
  visible text's bytes + HIDDEN_TOKENS_SLACK completion tokens (a stop token, a template's end
  marker), with no reasoning asked, seen or reported, was billed for tokens it did not deliver.
  English averages about 4 bytes a token, so the bound is generous: it catches a host billing
  hidden generation, not a tokenizer. Tool calls are generation too: their names' and
  arguments' bytes count beside the text, and each call gets PER_CALL_TOKENS on top (a call's
  framing is billed: two Claude calls via Bedrock with 16-byte arguments report 120 completion
  tokens, one reports 54, two gpt-5.4-nano calls 54). Set aside: reasoning replies (their thinking may be left
  out of the text), a reply our client cut (the text is ours, not the host's), a model that
  thinks by default (its thinking may go unreported), and a reply without text or calls or that
  did not finish on `stop`, `length` or `tool_calls` (see JUDGED_FINISHES).
Replies without usage, or without `cost`, have nothing to compare: None.
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
JUDGED_FINISHES = ("stop", "length", "tool_calls")   # not the contract: finish reasons



class BillingCode(StrEnum):
    """The codes of billing honesty (judge/replies/verdict.py); the round's hidden prompt is
    judge/suspension/prompt_tokens.py's."""

    OVERBILLED = "overbilled"
    HIDDEN_COMPLETION_TOKENS = "hidden_completion_tokens"


OVERBILLED = "billing: cost above the listed price"
HIDDEN_TOKENS = "billing: completion tokens the text cannot hold"
UNDERBILLED = "billing: cost below the listed price"


@dataclass(frozen=True, slots=True)
class Prices:
    """An endpoint's listed prices: USD per token, per request (`request`), per search (`web_search`).
    None: not listed (cache reads and writes are then priced as prompt tokens, reasoning as
    completion tokens: the upper bound, so an unlisted discount never reads as overbilling)."""

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
    """A component's price for what the usage shows was charged: a listed zero reads as not listed
    (the module docstring: "0" is what OpenRouter writes for what it does not price apart)."""
    return listed if listed else None


def _or(listed: float | None, default: float) -> float:
    return default if listed is None else listed


def _figures(usage: BilledUsage, billed: float, listed: float) -> str:
    ratio = f"{billed / listed:.2f} x" if listed > 0 else "nothing listed"
    return (f"${billed:.8f} billed against ${listed:.8f} listed ({ratio}) for {usage.prompt_tokens} prompt "
            f"and {usage.completion_tokens} completion tokens")


@dataclass(frozen=True, slots=True)
class Bill:
    """One reply's bill held against its listing (USD): what the attempt records, and the
    underbilled note (None: not underbilled) it carries among its notes."""

    billed: float                    # usage.cost
    listed: float                    # listed_cost of the same usage
    underbilled: str | None = None


def bill(usage: BilledUsage | None, prices: Prices | None) -> Bill | None:
    """The reply's bill against its listed cost, or None when there is nothing to compare (no
    usage, no cost reported, no listing, or a part of the usage the listing does not price)."""
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


def underbilled_note(usage: BilledUsage | None, prices: Prices | None) -> str | None:
    """A note when `usage.cost` is below the listed cost by the same margins (decides nothing)."""
    found = bill(usage, prices)
    return found.underbilled if found else None


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

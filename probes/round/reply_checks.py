"""The checks every completed reply gets whatever its contract (issue 22): stream integrity,
limits honesty and billing honesty, judged from what the reply already carries (no request added).
Billing needs the endpoint's listed prices (the same round's discovery); a check run without an
endpoint leaves billing out.

The contract's own failure comes first (it is the more specific finding); otherwise the first
failed check replaces the contract's verdict, so the case fails with the check's reason (and its
own reason code, canary/history/reasons.py). A reply that was not completed is never checked:
its text and usage say nothing a transport error does not already say.
"""

from __future__ import annotations

from judge.replies.billing import (
    BilledUsage,
    HiddenTokensFacts,
    Prices,
    assess_cost,
    assess_hidden_tokens,
    listed_cost,
    underbilled_note,
)
from judge.replies.decode_speed import DecodeFacts, decode_tps
from judge.replies.limits import LimitsFacts, assess_limits
from judge.replies.stream_integrity import assess_deltas
from judge.replies.verdict import Verdict
from probes.http.records import ChatResult, Endpoint


def _reasoning(result: ChatResult) -> bool:
    """Reasoning asked for, seen or reported."""
    usage = result.usage
    return (result.reasoning_requested or result.reasoning_seen or bool(result.reasoning_text)
            or (usage is not None and usage.reasoning_tokens > 0))


def limits_facts(result: ChatResult) -> LimitsFacts:
    usage = result.usage
    reasoning = _reasoning(result)
    return LimitsFacts(cap=result.max_tokens_sent, completion_tokens=usage.completion_tokens if usage else None,
                       finish_reason=result.finish_reason, reasoning=reasoning,
                       cut_by_client=result.truncated_by_client)


def measured_decode(result: ChatResult) -> float | None:
    """The reply's decode speed (tokens/s after the first token), or None: the judge weighs it
    against the peers' (judge/suspension/decode_speed.py), so it fails nothing here."""
    usage = result.usage
    facts = DecodeFacts(completed=result.completed, finish_reason=result.finish_reason,
                        completion_tokens=usage.completion_tokens if usage else None, ttft_s=result.ttft_s,
                        total_s=result.total_s, reasoning=limits_facts(result).reasoning)
    return decode_tps(facts)


def prices(endpoint: Endpoint) -> Prices:
    """The endpoint's listed prices, each at its highest (probes/http/discovery.py)."""
    return Prices(prompt=endpoint.prompt_price_high or endpoint.prompt_price,
                  completion=endpoint.completion_price_high or endpoint.completion_price,
                  request=endpoint.request_price, cache_read=endpoint.cache_read_price,
                  cache_write=endpoint.cache_write_price, reasoning=endpoint.reasoning_price,
                  web_search=endpoint.web_search_price)


def billed_usage(result: ChatResult) -> BilledUsage | None:
    u = result.usage
    if u is None:
        return None
    return BilledUsage(prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens, cost=u.cost_usd,
                       cached_tokens=u.cached_tokens, cache_write_tokens=u.cache_write_tokens,
                       reasoning_tokens=u.reasoning_tokens, web_searches=u.web_searches)


def hidden_tokens_facts(result: ChatResult, endpoint: Endpoint | None) -> HiddenTokensFacts:
    thinks = endpoint is not None and (endpoint.thinks_by_default is True or endpoint.thinking_mandatory)
    return HiddenTokensFacts(completion_tokens=result.usage.completion_tokens if result.usage else None,
                             text_bytes=len(result.text.encode("utf-8", "replace")),
                             finish_reason=result.finish_reason,
                             reasoning=_reasoning(result) or thinks, cut_by_client=result.truncated_by_client)


def billed_and_listed(result: ChatResult, endpoint: Endpoint) -> tuple[float, float] | None:
    """(usage.cost, the listed cost) of a completed reply whose usage reported a cost, else None."""
    usage = billed_usage(result)
    if not result.completed or usage is None or usage.cost is None:
        return None
    listed = listed_cost(usage, prices(endpoint))
    return None if listed is None else (usage.cost, listed)


def billing_notes(result: ChatResult, endpoint: Endpoint) -> tuple[str, ...]:
    """The billing facts that decide nothing (an underbilled reply), for the attempt's notes."""
    note = underbilled_note(billed_usage(result), prices(endpoint)) if result.completed else None
    return (note,) if note else ()


def reply_check(result: ChatResult, endpoint: Endpoint | None = None) -> Verdict | None:
    """The first failed reply check of a completed reply, or None."""
    if not result.completed:
        return None
    return (assess_deltas(result.deltas) or assess_limits(limits_facts(result))
            or (assess_cost(billed_usage(result), prices(endpoint)) if endpoint is not None else None)
            or assess_hidden_tokens(hidden_tokens_facts(result, endpoint)))


def checked(result: ChatResult, verdict: Verdict | None, endpoint: Endpoint | None = None) -> Verdict | None:
    """`verdict`, or the failed reply check in its place when the contract did not fail itself."""
    if verdict is None or verdict.failed:
        return verdict
    return reply_check(result, endpoint) or verdict

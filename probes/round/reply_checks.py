"""The checks every completed reply gets whatever its contract (issue 22): stream integrity and
limits honesty, judged from what the reply already carries (no request added).

The contract's own failure comes first (it is the more specific finding); otherwise the first
failed check replaces the contract's verdict, so the case fails with the check's reason (and its
own reason code, canary/history/reasons.py). A reply that was not completed is never checked:
its text and usage say nothing a transport error does not already say.
"""

from __future__ import annotations

from judge.replies.decode_speed import DecodeFacts, decode_tps
from judge.replies.limits import LimitsFacts, assess_limits
from judge.replies.stream_integrity import assess_deltas
from judge.replies.verdict import Verdict
from probes.http.records import ChatResult


def limits_facts(result: ChatResult) -> LimitsFacts:
    usage = result.usage
    reasoning = (result.reasoning_requested or result.reasoning_seen or bool(result.reasoning_text)
                 or (usage is not None and usage.reasoning_tokens > 0))
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


def reply_check(result: ChatResult) -> Verdict | None:
    """The first failed reply check of a completed reply, or None."""
    if not result.completed:
        return None
    return assess_deltas(result.deltas) or assess_limits(limits_facts(result))


def checked(result: ChatResult, verdict: Verdict | None) -> Verdict | None:
    """`verdict`, or the failed reply check in its place when the contract did not fail itself."""
    if verdict is None or verdict.failed:
        return verdict
    return reply_check(result) or verdict

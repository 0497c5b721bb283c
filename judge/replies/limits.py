"""Limits honesty: the completion tokens a reply reports against the `max_tokens` we sent (docs/contracts.md,
every completed reply; why the answer's tokens are judged and unitemised thinking allowed:
docs/openrouter-wire.md). The margin over the cap is wide: the real defect is tens of times the cap
(26 k tokens against a 1 k cap), a tokenizer difference a few percent.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from judge.replies.verdict import Verdict, failed

OVER_CAP_RATIO = 1.25
OVER_CAP_TOKENS = 16
SHORT_LENGTH_RATIO = 0.5
UNITEMISED_THINKING_TOKENS = 32768


class LimitsCode(StrEnum):
    """The codes of a reply's honesty about its token cap (judge/replies/verdict.py)."""

    MAX_TOKENS_IGNORED = "max_tokens_ignored"
    LENGTH_BELOW_CAP = "length_below_cap"


ABOVE_CAP = "limits: completion tokens above the cap"
SHORT_LENGTH = "limits: length finish far below the cap"


@dataclass(frozen=True, slots=True)
class LimitsFacts:
    """What one completed reply says about its limits (None: not reported or not sent)."""

    cap: int | None                   # the max_tokens we sent (thinking room included)
    completion_tokens: int | None     # usage.completion_tokens
    finish_reason: str | None
    reasoning: bool                   # reasoning asked for, seen or reported
    cut_by_client: bool               # our own size cap stopped reading (a "length" of ours)
    reasoning_tokens: int = 0         # usage.completion_tokens_details.reasoning_tokens


def assess_limits(facts: LimitsFacts) -> Verdict | None:
    """A failed Verdict when the reply breaks the cap or claims it far too early; None otherwise."""
    cap, tokens = facts.cap, facts.completion_tokens
    if cap is None or cap <= 0 or tokens is None:
        return None
    reasoning = min(max(facts.reasoning_tokens, 0), tokens)
    thinking = UNITEMISED_THINKING_TOKENS if facts.reasoning and not reasoning else 0
    allowed = cap * OVER_CAP_RATIO + OVER_CAP_TOKENS + thinking
    answer = tokens - reasoning
    if answer > allowed:
        what = (f"{answer} answer tokens ({tokens} completion tokens, {reasoning} of them reasoning)"
                if reasoning else f"{tokens} completion tokens")
        room = f" and {thinking} of reasoning not itemised" if thinking else ""
        return failed(LimitsCode.MAX_TOKENS_IGNORED, f"{ABOVE_CAP}: {what} against max_tokens {cap} "
                      f"(allowed up to {allowed:g} for tokenizer differences{room})")
    if (facts.finish_reason == "length" and not facts.reasoning and not facts.cut_by_client
            and tokens < cap * SHORT_LENGTH_RATIO):
        return failed(LimitsCode.LENGTH_BELOW_CAP,
            f"{SHORT_LENGTH}: finish_reason 'length' after {tokens} completion tokens "
                      f"against max_tokens {cap} (below {SHORT_LENGTH_RATIO:g} of the cap)")
    return None

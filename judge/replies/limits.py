"""Limits honesty: the completion tokens a reply reports against the `max_tokens` we sent (issue 22).

Two host defects, judged from figures every completed reply already carries:
- the cap ignored: `completion_tokens` above the cap sent. Tokenizers differ (OpenRouter reports
  the host's native count; a host may count a few control tokens), so the reply fails only above
  the cap times OVER_CAP_RATIO plus OVER_CAP_TOKENS: the real defect is tens of times the cap
  (26 k tokens against a 1 k cap), a tokenizer difference a few percent;
- the cap claimed but not reached: `finish_reason: length` with `completion_tokens` below
  SHORT_LENGTH_RATIO of the cap: the host cut the reply at a limit of its own and blamed ours.
  Set aside: a reasoning reply (reasoning asked for, seen, or reported: its thinking may be left
  out of `completion_tokens` by some hosts, and a reasoning-only reply says nothing), our own
  client's size cap (a "length" of ours), and a reply without usage (nothing to compare).
Both reasons name the figures.

A reply that reports reasoning tokens is judged on its answer's tokens (`completion_tokens -
reasoning_tokens`) against the cap sent: hosts read max_tokens two ways. On most it bounds the
thinking and the answer together (OpenRouter: "reasoning tokens are considered output
tokens"); SiliconFlow documents it as limiting "the final output to the user, excluding the
chain-of-thought part", and DeepSeek's reasoner as "the maximum length of the final response
after the CoT output", with thousands of thinking tokens on top. OpenRouter's `completion_tokens`
includes the reasoning either way, so only the answer is bounded under both readings: the
thinking room we added is inside the number the host received, and an answer-only host may
spend all of it on the answer.

A reasoning reply whose usage does not itemise its reasoning (no `reasoning_tokens`: seen on
Groq's gpt-oss and a DeepSeek-R1 distill) cannot be split: its `completion_tokens` hold thinking
in a share nobody reported, and an answer-only host thinks on top of the cap. So the over-cap
rule allows UNITEMISED_THINKING_TOKENS more, the longest thinking documented for such hosts
(DeepSeek's reasoner: "the CoT output can reach up to 32K tokens"; SiliconFlow's
`thinking_budget` up to 32768): only a reply past the cap by more than that fails.
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

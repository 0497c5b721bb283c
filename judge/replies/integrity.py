"""Reply integrity on every reply of a round: the host's corruption is in all of them (pure).

`check_reply` is one reply's check (recorded on each attempt as `integrity`); `judge_integrity` is
the round's rule, in the judge (docs/judge.md, reply integrity on every reply). Encoding, repetition
and the language itself are left to the language probe's prompt: a 32-token latency reply is too
short to judge a language.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from enum import StrEnum

from core.results import AttemptResult, CaseResult
from core.vocabulary import LANGUAGE, Outcome
from judge.replies.artifacts import find_artifacts
from judge.replies.leading import find_leading_garbage, find_template_token
from judge.replies.verdict import Verdict


class IntegrityCode(StrEnum):
    """The code of the round's integrity rule (judge/replies/verdict.py; one reply's defect carries its finder's)."""

    REPLY_INTEGRITY = "reply_integrity"


INTEGRITY_CONTRACT = LANGUAGE
# A defect seen on this many of an endpoint's replies in one round (and on most of them) is the host's.
MIN_FAILED_REPLIES = 2
# How a JSON reply may open; anything else before the value is read as a reply's start.
_JSON_OPENERS = ("{", "[", "```")
# How many replies' reasons the language case quotes.
QUOTED = 3


def check_reply(text: str, language: str = "en", *, json_reply: bool = False) -> Verdict | None:
    """The integrity defect of one reply (a failed verdict), or None when it looks intact."""
    defect = find_artifacts(text)
    if defect:
        return defect
    if json_reply and text.lstrip().startswith(_JSON_OPENERS):
        return find_template_token(text)
    return find_leading_garbage(text, language)


def checked(attempts: Sequence[AttemptResult]) -> tuple[AttemptResult, ...]:
    """The attempts that carry an integrity check."""
    return tuple(a for a in attempts if a.integrity is not None)


def judge_integrity(cases: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    """One model's cases, each endpoint's language case failed when most of its checked replies
    (at least MIN_FAILED_REPLIES) show an integrity defect."""
    out = list(cases)
    for i, case in enumerate(cases):
        if case.contract != INTEGRITY_CONTRACT or case.control or case.outcome in (Outcome.FAIL,
                                                                                   Outcome.NOT_APPLICABLE):
            continue
        own = [(c.contract, a) for c in cases if c.provider == case.provider and not c.control
               for a in checked(c.attempts)]
        failed = [(contract, a) for contract, a in own if a.integrity is Outcome.FAIL]
        if len(failed) < MIN_FAILED_REPLIES or 2 * len(failed) <= len(own):
            continue
        quoted = "; ".join(f"{contract}: {a.integrity_reason}" for contract, a in failed[:QUOTED])
        reason = (f"reply integrity: {len(failed)} of the endpoint's {len(own)} replies this round are "
                  f"corrupted ({quoted}); the language probe's own verdict was: {case.reason}")
        out[i] = replace(case, outcome=Outcome.FAIL, code=IntegrityCode.REPLY_INTEGRITY, reason=reason)
    return tuple(out)

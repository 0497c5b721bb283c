"""Prose instead of a tool call: a host's defect only when it always did and most peers called (pure;
docs/contracts.md, Tools, says why unanimous and why five). The other hosts answering the same request
that round tell the host's template or parser from the model's own propensity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.results import CaseResult
from core.vocabulary import TOOLS, Outcome
from judge.replies.tools import PROSE, ToolsCode
from judge.replies.verdict import Common

MIN_VOTERS = 2


def answered_in_prose(case: CaseResult) -> bool:
    return case.outcome == Outcome.INCONCLUSIVE and case.code == ToolsCode.NO_TOOL_CALL


def called(case: CaseResult) -> bool:
    """The model produced a call on this endpoint (whatever the host then did to it)."""
    return case.outcome == Outcome.PASS or (
        case.outcome == Outcome.FAIL and case.code not in (ToolsCode.EMPTY_REPLY, ToolsCode.NO_TOOL_CALL))


def every_attempt_in_prose(case: CaseResult) -> bool:
    return bool(case.attempts) and all(a.code == ToolsCode.NO_TOOL_CALL for a in case.attempts)


def judge_tool_prose(cases: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    """One model's cases of a round, with its prose tools cases failed or set not applicable."""
    tools = [c for c in cases if c.contract == TOOLS and not c.control]
    changed: dict[int, CaseResult] = {}
    for case in tools:
        if not answered_in_prose(case):
            continue
        peers = [c for c in tools if c.provider != case.provider]
        callers = sum(called(c) for c in peers)
        voters = callers + sum(answered_in_prose(c) for c in peers)
        if voters >= MIN_VOTERS and callers * 2 > voters and every_attempt_in_prose(case):
            reason = f"{PROSE} while {callers} of {voters} other hosts called a tool this round ({case.reason})"
            attempts = tuple(replace(a, outcome=Outcome.FAIL) if a.code == ToolsCode.NO_TOOL_CALL else a
                             for a in case.attempts)
            changed[id(case)] = replace(case, outcome=Outcome.FAIL, reason=reason, attempts=attempts)
        else:
            if voters < MIN_VOTERS:
                why = f"{voters} other host(s) with a verdict: too few to tell the model from the host"
            elif callers * 2 > voters:
                why = "one of its own attempts called: the model's habit, not the host's"
            else:
                why = (f"{voters - callers} of {voters} other hosts answered in prose too: "
                       "the model's habit, not the host's")
            changed[id(case)] = replace(case, outcome=Outcome.NOT_APPLICABLE, code=Common.NOT_APPLICABLE,
                                        reason=f"{PROSE}; {why} ({case.reason})")
    return tuple(changed.get(id(c), c) for c in cases)

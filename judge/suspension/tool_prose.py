"""Prose instead of a tool call: a host's defect only when most of its peers called (pure).

The tools probe leaves `tool_choice` to the model (auto, as the product sends it), so a model may
answer the roleplay turn in prose; that is the model's own propensity, not the host's defect
(issue 23). What gives a host away is the other hosts of the same model answering the same fixed
request that round: when most of them called a tool and this one wrote prose, its template or its
parser is what differs. So, per model and round, for each tools case the probe left inconclusive
as prose (probes/round/contracts/tools.py: the majority of its attempts answered in prose):

- its *voters* are the other endpoints whose tools case either called (pass, or fail with a call
  of its own: leaked markup, bad arguments, an unknown name, a schema mismatch) or answered in
  prose; transport errors and other inconclusive cases do not vote;
- with at least MIN_VOTERS voters and more than half of them calling, the case **fails**
  (`tools: prose instead of a call while ...`), its prose attempts marked failed;
- otherwise it is `not_applicable`: most peers answered in prose too (the model's habit), or too
  few peers had a verdict to tell. It neither fails nor freezes the endpoint's round.

Control cases judge the refusal probe and never reach here. Re-judging the same round gives the
same answer: it reads only the round's own cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.results import CaseResult
from core.vocabulary import TOOLS, Outcome
from judge.replies.tools import EMPTY, PROSE

MIN_VOTERS = 2


def answered_in_prose(case: CaseResult) -> bool:
    return case.outcome == Outcome.INCONCLUSIVE and case.reason.startswith(PROSE)


def called(case: CaseResult) -> bool:
    """The model produced a call on this endpoint (whatever the host then did to it)."""
    return case.outcome == Outcome.PASS or (case.outcome == Outcome.FAIL and not case.reason.startswith((EMPTY, PROSE)))


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
        if voters >= MIN_VOTERS and callers * 2 > voters:
            reason = f"{PROSE} while {callers} of {voters} other hosts called a tool this round ({case.reason})"
            attempts = tuple(replace(a, outcome=Outcome.FAIL) if a.reason.startswith(PROSE) else a
                             for a in case.attempts)
            changed[id(case)] = replace(case, outcome=Outcome.FAIL, reason=reason, attempts=attempts)
        else:
            if voters >= MIN_VOTERS:
                why = (f"{voters - callers} of {voters} other hosts answered in prose too: "
                       "the model's habit, not the host's")
            else:
                why = f"{voters} other host(s) with a verdict: too few to tell the model from the host"
            changed[id(case)] = replace(case, outcome=Outcome.NOT_APPLICABLE, reason=f"{PROSE}; {why} ({case.reason})")
    return tuple(changed.get(id(c), c) for c in cases)

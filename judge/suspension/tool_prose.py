"""Prose instead of a tool call: a host's defect only when it always did and most peers called (pure).

The tools probe leaves `tool_choice` to the model (auto, as the product sends it), so a model may
answer the roleplay turn in prose; that is the model's own propensity, not the host's defect
(issue 23). What gives a host away is the other hosts of the same model answering the same fixed
request that round: when most of them called a tool and this one wrote prose, its template or its
parser is what differs. So, per model and round, for each tools case the probe left inconclusive
as prose (probes/round/contracts/tools.py: the majority of its attempts answered in prose):

- its *voters* are the other endpoints whose tools case either called (pass, or fail with a call
  of its own: leaked markup, bad arguments, an unknown name, a schema mismatch) or answered in
  prose; transport errors and other inconclusive cases do not vote;
- with at least MIN_VOTERS voters and more than half of them calling, and every attempt of the
  case in prose (the confirmation unanimous), the case **fails** (`tools: prose instead of a call
  while ...`), its prose attempts marked failed;
- otherwise it is `not_applicable`: most peers answered in prose too (the model's habit), too few
  peers had a verdict to tell, or one of its own attempts called (the model's habit again). It
  neither fails nor freezes the endpoint's round.

Why unanimous: a host whose template or parser drops the tools answers in prose every time, while
a model that writes prose now and then does so on every host. With a propensity of 10 %, 2 of 3
attempts in prose happen in about 3 % of a healthy host's rounds, so two such rounds in a row
(frozen rounds between them do not break a streak) came up within a simulated week
(benchmarks/fleet_evidence.py's optional_all_week: a false would-suspend). 3 of 3 happen in 0.1 %,
and two of those met across a noisy host's frozen rounds too (real_shapes_week), so the probe
sends a second pair of confirmations when the first three are all prose
(probes/round/contracts/tools.py): 5 of 5 happen in 0.001 %. (A frozen round in which tools passed
now ends such a streak as well: judge/suspension/streaks.py.)

Control cases judge the refusal probe and never reach here. Re-judging the same round gives the
same answer: it reads only the round's own cases.
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

"""Tool calls: a roleplay turn with two tools, streamed like product traffic, judged locally
(docs/contracts.md, Tools: the request, the checks in their order, a host's rejected call).

Only where the endpoint lists `tools` (otherwise `not_applicable`: asking would be unroutable with
require_parameters, and a host that never claimed the capability has not regressed). On an anomaly
(the first attempt fails, or answers in prose) `probe.language_confirmations` more attempts run at
once and the majority decides; when all of those answered in prose, as many again are sent first:
unanimous prose is what judge/suspension/tool_prose.py fails a host on, and its docstring says why
three are too few. Arguments cut by our own max_tokens (`finish_reason: length`) are inconclusive:
the probe's budget is tools.yaml's `max_tokens` (or probe.max_tokens when larger).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from core.vocabulary import TOOLS, Outcome
from judge.replies import tools as tools_judge
from judge.replies.tools import ToolsCode
from judge.replies.verdict import Common, Verdict, inconclusive
from probes.http.records import ChatResult, Classification, Endpoint, StreamedToolCall
from probes.round.cases import Case, ProbedAttempt, ProbedCase
from probes.round.contracts import (
    ChatClient,
    ContractSettings,
    attempt_from,
    clock,
    confirmed,
    prompt,
    strict_majority,
    tally,
)

CAPABILITY = "tools"   # the supported parameter


def request() -> tuple[list[dict[str, str]], list[dict[str, Any]], tuple[tools_judge.Tool, ...]]:
    """(messages, the `tools` of the body, the tools as the judge checks them) of the tools probe."""
    p = prompt(TOOLS)
    msgs = [{"role": "system", "content": p["system"]}, {"role": "user", "content": p["user"]}]
    wire = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                              "parameters": t["parameters"]}} for t in p["tools"]]
    specs = tuple(tools_judge.Tool(t["name"], t["parameters"], t.get("expected", {})) for t in p["tools"])
    return msgs, wire, specs


def max_tokens(configured: int) -> int:
    """The probe's completion budget: tools.yaml's, or probe.max_tokens when that is larger."""
    return max(configured, int(prompt(TOOLS)["max_tokens"]))


def judge(result: ChatResult, specs: tuple[tools_judge.Tool, ...], cap: int) -> tools_judge.ToolsVerdict:
    """The judge's verdict on one completed reply (our own max_tokens cut is no verdict on the host)."""
    calls = tuple(tools_judge.Call(c.index, c.name_parts, c.arguments) for c in result.tool_calls)
    found = tools_judge.assess(result.text, result.reasoning_text, calls, specs, result.finish_reason)
    if (found.verdict.failed and result.finish_reason == "length"
            and found.verdict.code in (ToolsCode.INVALID_JSON, ToolsCode.EMPTY_REPLY)):
        return tools_judge.ToolsVerdict(inconclusive(ToolsCode.MAX_TOKENS_CUT, (
            f"tools: the reply reached max_tokens ({cap}) before the call closed; raise "
            f"probe.max_tokens ({found.verdict.reason})")))
    return found


async def probe(client: ChatClient, endpoint: Endpoint, settings: ContractSettings, case: Case) -> ProbedCase:
    if not endpoint.supports(CAPABILITY):
        return ProbedCase.of(case, Outcome.NOT_APPLICABLE, Common.NOT_APPLICABLE,
                             "the endpoint does not advertise tools")
    msgs, wire, specs = request()
    budget = max_tokens(settings.probe.max_tokens)
    start = clock()

    async def one() -> tuple[ProbedAttempt, bool]:
        result = await client.chat(endpoint, msgs, max_tokens=budget, temperature=settings.probe.temperature,
                                   tools=wire)
        found = await asyncio.to_thread(judge, result, specs, budget) if result.completed else None
        if result.rejected_call is not None:
            found = tools_judge.ToolsVerdict(tools_judge.judge_rejected(result.rejected_call, specs))
        if found is not None and found.verdict.failed and result.reasoning_only:
            # Markup leaked into the reasoning of a reply with no text: the judge read the
            # reasoning itself, so "it only thought" is not the story here.
            attempt = attempt_from(result, endpoint, found.verdict, msgs, case=case, kept=found.verdict)
        else:
            attempt = attempt_from(result, endpoint, found.verdict if found else None, msgs, case=case)
        if found is not None and found.notes:
            notes = (*attempt.extras.notes, *found.notes)
            attempt = ProbedAttempt(attempt.record, replace(attempt.extras, notes=notes))
        if result.tool_calls:  # the calls as sent, after any text: Allure's reply and results.json's excerpt
            attempt = attempt.with_text("\n".join((attempt.text, *shown_calls(result.tool_calls))).strip())
        return attempt, result.classification is Classification.AUTH_ERROR

    return await confirmed(case, one, settings.probe.language_confirmations, start,
                           anomalous=anomalous, decide=majority, again=all_in_prose)

SHOWN_CALLS = 8            # calls an attachment shows (the probe asks for one or two)
SHOWN_CALL_CHARS = 2000    # of each call's line


def shown(call: StreamedToolCall) -> str:
    """One call as a line a person reads: `→ book_room({"room": "tower", "nights": 2})`, cut at SHOWN_CALL_CHARS."""
    line = f"→ {''.join(call.name_parts) or '(no name)'}({call.arguments})"
    return line if len(line) <= SHOWN_CALL_CHARS else line[: SHOWN_CALL_CHARS - 1] + "…"


def shown_calls(calls: tuple[StreamedToolCall, ...]) -> tuple[str, ...]:
    """The first SHOWN_CALLS calls, one line each, and how many more there were: a flood of calls
    (the client keeps probes/http/stream.py MAX_TOOL_CALLS) stays a few kilobytes in Allure."""
    more = len(calls) - SHOWN_CALLS
    return (*map(shown, calls[:SHOWN_CALLS]), *([f"… and {more} more tool calls"] if more > 0 else []))


def anomalous(attempt: ProbedAttempt) -> bool:
    return attempt.outcome is Outcome.FAIL or attempt.code == ToolsCode.NO_TOOL_CALL


def all_in_prose(attempts: tuple[ProbedAttempt, ...]) -> bool:
    """Every attempt answered in prose: confirm once more before the peers judge it (module docstring)."""
    return all(a.code == ToolsCode.NO_TOOL_CALL for a in attempts)


def majority(attempts: tuple[ProbedAttempt, ...]) -> Verdict:
    """Strict majority of all attempts: fail, pass or prose; anything else is inconclusive."""
    decided = strict_majority(attempts)
    if decided is not None:
        return decided
    passes = sum(1 for a in attempts if a.outcome is Outcome.PASS)
    prose = [a for a in attempts if a.code == ToolsCode.NO_TOOL_CALL]
    if len(prose) >= len(attempts) // 2 + 1:
        # Keeps the prose code: judge/suspension/tool_prose.py weighs it against the peers.
        return inconclusive(ToolsCode.NO_TOOL_CALL,
                            f"{prose[0].reason} ({len(prose)} of {len(attempts)} attempts answered in prose)")
    return inconclusive(ToolsCode.TOOLS_UNRESOLVED, f"tools: anomaly unresolved: {tally(attempts)}, {passes} passed, "
                                                    f"{len(prose)} in prose (first: {attempts[0].reason})")

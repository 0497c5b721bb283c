"""judge/suspension/tool_prose.py: prose instead of a tool call fails only when every attempt was
prose and most peers called.

And through the whole judge (classify_round): the prose host's round is failed when it is the odd
one out, and no endpoint's round is failed (or frozen) when the model writes prose everywhere."""

from __future__ import annotations

from typing import Any

import pytest
from rules_factories import PROVIDERS, case, results

from core.policy import Policy
from core.results import AttemptResult, CaseResult
from core.results_read import read_results
from core.vocabulary import Outcome
from judge.replies.tools import PROSE, ToolsCode
from judge.replies.verdict import Common
from judge.suspension.round import RoundClass, classify_round
from judge.suspension.tool_prose import judge_tool_prose

MODEL = "deepseek/deepseek-chat-v3-0324"
PROSE_REASON = f"{PROSE}: 212 characters of text and no tool call (3 of 3 attempts answered in prose)"


def tools_case(provider: str, kind: str) -> CaseResult:
    outcome, code, reason = {
        "call": (Outcome.PASS, Common.PASS, "tools: valid tool calls: book_room, roll_dice"),
        "leak": (Outcome.FAIL, ToolsCode.TOOL_MARKUP_LEAK, 'tools: markup leaked into the content: Kimi K2 markup "…"'),
        "empty": (Outcome.FAIL, ToolsCode.EMPTY_REPLY,
                  "tools: empty reply: no text and no tool call (finish_reason 'stop')"),
        "prose": (Outcome.INCONCLUSIVE, ToolsCode.NO_TOOL_CALL, PROSE_REASON),
        "transport": (Outcome.TRANSPORT_ERROR, "http_5xx", "transport: HTTP 502"),
    }[kind]
    attempt = AttemptResult(outcome=outcome, code=code, reason=reason.split(" (3 of 3")[0])
    return CaseResult(model=MODEL, provider=provider, contract="tools", outcome=outcome, code=code, reason=reason,
                      attempts=(attempt,) * (3 if kind == "prose" else 1))


def judged(kinds: dict[str, str]) -> dict[str, CaseResult]:
    return {c.provider: c for c in judge_tool_prose([tools_case(p, k) for p, k in kinds.items()])}


def test_prose_while_most_peers_called_fails_with_every_prose_attempt_failed() -> None:
    got = judged({"a/fp8": "prose", "b/fp8": "call", "c/fp8": "call", "d/fp8": "leak"})
    prose = got["a/fp8"]
    assert prose.outcome == Outcome.FAIL and prose.reason.startswith(f"{PROSE} while 3 of 3 other hosts called")
    assert prose.code == ToolsCode.NO_TOOL_CALL
    assert all(a.outcome == Outcome.FAIL and a.code == ToolsCode.NO_TOOL_CALL for a in prose.attempts)
    assert got["b/fp8"].outcome == Outcome.PASS and got["d/fp8"].outcome == Outcome.FAIL  # others untouched


@pytest.mark.parametrize("kinds", [
    {"a/fp8": "prose", "b/fp8": "prose", "c/fp8": "prose", "d/fp8": "call"},       # the model's habit
    {"a/fp8": "prose", "b/fp8": "prose", "c/fp8": "call"},                         # a tie is no majority
    {"a/fp8": "prose", "b/fp8": "call", "c/fp8": "transport", "d/fp8": "empty"},   # one voter: too few
    {"a/fp8": "prose"},                                                            # no peers at all
])
def test_prose_is_not_applicable_when_the_peers_do_not_mostly_call(kinds: dict[str, str]) -> None:
    got = judged(kinds)
    assert got["a/fp8"].outcome == Outcome.NOT_APPLICABLE and got["a/fp8"].reason.startswith(PROSE)
    assert got["a/fp8"].code == Common.NOT_APPLICABLE


def test_prose_on_two_of_three_attempts_is_the_models_habit_even_when_every_peer_called() -> None:
    # The noisy fleet week's false would-suspend: a healthy host of a model that writes prose 10 %
    # of the time, 2 of 3 attempts in prose in two rounds in a row (frozen rounds between them).
    two = f"{PROSE}: 541 characters of text and no tool call (2 of 3 attempts answered in prose)"
    called = AttemptResult(outcome=Outcome.PASS, code=Common.PASS,
                           reason="tools: valid tool calls: book_room, roll_dice")
    prose = AttemptResult(outcome=Outcome.INCONCLUSIVE, code=ToolsCode.NO_TOOL_CALL,
                          reason=f"{PROSE}: 541 characters of text and no tool call")
    habit = CaseResult(model=MODEL, provider="a/fp8", contract="tools", outcome=Outcome.INCONCLUSIVE,
                       code=ToolsCode.NO_TOOL_CALL, reason=two, attempts=(prose, called, prose))
    peers = [tools_case(p, "call") for p in ("b/fp8", "c/fp8", "d/fp8", "e/fp8")]
    (got, *_) = judge_tool_prose([habit, *peers])
    assert got.outcome == Outcome.NOT_APPLICABLE
    assert got.reason.startswith(f"{PROSE}; one of its own attempts called")
    assert [a.outcome for a in got.attempts] == [a.outcome for a in habit.attempts]


def test_re_judging_a_judged_round_changes_nothing() -> None:
    once = judge_tool_prose([tools_case(p, k) for p, k in {"a/fp8": "prose", "b/fp8": "call", "c/fp8": "call"}.items()])
    assert judge_tool_prose(once) == once


def with_tools(kinds: dict[str, str]) -> Any:
    doc = results() | {"schema_version": 2}
    doc["cases"] = [*doc["cases"], *[
        {**case(p, "tools", tools_case(p, k).outcome.value), "code": tools_case(p, k).code,
         "reason": tools_case(p, k).reason,
         "attempts": [{"outcome": a.outcome.value, "code": a.code, "reason": a.reason}
                      for a in tools_case(p, k).attempts]}
        for p, k in kinds.items()]]
    return doc


def test_through_the_judge_the_odd_prose_host_fails_its_round_and_a_prose_model_fails_nobody() -> None:
    odd = {p: ("prose" if p == PROVIDERS[0] else "call") for p in PROVIDERS}
    rounds = classify_round(read_results(with_tools(odd)), Policy())[MODEL].providers
    assert rounds[PROVIDERS[0]].klass is RoundClass.FAILED
    assert all(rounds[p].klass is RoundClass.CLEAN for p in PROVIDERS[1:])
    everywhere = dict.fromkeys(PROVIDERS, "prose")
    rounds = classify_round(read_results(with_tools(everywhere)), Policy())[MODEL].providers
    assert all(r.klass is RoundClass.CLEAN for r in rounds.values())


def test_a_prose_host_among_callers_is_never_discounted_as_model_wide() -> None:
    odd = {p: ("prose" if p == PROVIDERS[0] else "call") for p in PROVIDERS}
    modelround = classify_round(read_results(with_tools(odd)), Policy())[MODEL]
    assert modelround.guard_hits == ()

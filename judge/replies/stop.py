"""Stop sequences: did the host stop where the request's `stop` string says (pure).

The probe asks for a count whose correct reply runs past the stop string: the text after it is
`stop_ignored`, a reply ending with it `stop_echoed` (the API returns the text *before* the stop
string: docs/contracts.md, the stop row), the count up to it a pass, anything else says nothing
about the stop (inconclusive). Whitespace and a trailing separator (`12,`) are tolerated.
"""

from __future__ import annotations

import re
from enum import StrEnum

from judge.replies.verdict import Verdict, failed, inconclusive, passed


class StopCode(StrEnum):
    """The codes of the stop judge (judge/replies/verdict.py)."""

    STOP_IGNORED = "stop_ignored"
    STOP_ECHOED = "stop_echoed"
    MAX_TOKENS_CUT = "max_tokens_cut"
    TASK_NOT_FOLLOWED = "task_not_followed"


STOP_IGNORED = "stop: stop_ignored"
STOP_ECHOED = "stop: stop_echoed"
SHOWN_CHARS = 40      # of the reply around the stop string quoted in a reason
_NUMBER = re.compile(r"\d+")
MAX_COUNT_DIGITS = 18  # no count the probe asks for is longer; a longer number is no count


def expected_count(stop: str, start: int = 1) -> tuple[int, ...]:
    """The numbers a correct reply writes: from `start` up to the one before the stop number."""
    return tuple(range(start, int(stop.strip())))


def assess(text: str, stop: str, *, finish_reason: str | None = None, start: int = 1) -> Verdict:
    """Judge a reply to "count from `start`" sent with the stop string `stop` (a number)."""
    at = text.find(stop)
    if at >= 0:
        after = text[at + len(stop):]
        shown = _show(text[max(0, at - SHOWN_CHARS // 2): at + len(stop) + SHOWN_CHARS // 2])
        if after.strip():
            return failed(StopCode.STOP_IGNORED, f"{STOP_IGNORED}: the reply went on past the stop sequence {stop!r} "
                          f"({len(after.strip())} more characters: {shown})")
        return failed(StopCode.STOP_ECHOED, f"{STOP_ECHOED}: the reply ends with the stop sequence {stop!r} ({shown}); "
                      "the stop string belongs outside the returned text")
    want = expected_count(stop, start)
    written = _NUMBER.findall(text)
    if any(len(n) > MAX_COUNT_DIGITS for n in written):
        # int() refuses more than 4,300 digits (ValueError): a longer number is no count, so no verdict.
        longest = max(len(n) for n in written)
        return inconclusive(StopCode.TASK_NOT_FOLLOWED,
            f"stop: the reply did not follow the task (not a count: a number of {longest} digits; "
                            f"expected {want[0]} to {want[-1]}): says nothing about the stop sequence")
    numbers = tuple(int(n) for n in written)
    if numbers == want:
        return passed(f"stop: the reply stopped before the stop sequence {stop!r} "
                      f"(counted {want[0]} to {want[-1]}, finish_reason {finish_reason!r})")
    if finish_reason == "length":
        return inconclusive(StopCode.MAX_TOKENS_CUT,
            f"stop: the reply reached max_tokens before the stop sequence {stop!r}: "
                            "nothing to judge")
    got = ", ".join(map(str, numbers[:8])) + (", ..." if len(numbers) > 8 else "")
    return inconclusive(StopCode.TASK_NOT_FOLLOWED,
        f"stop: the reply did not follow the task (numbers: {got or 'none'}; "
                        f"expected {want[0]} to {want[-1]}): says nothing about the stop sequence")


def _show(text: str) -> str:
    return repr(text)[:SHOWN_CHARS + 8]

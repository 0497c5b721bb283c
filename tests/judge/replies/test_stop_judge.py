"""The stop-sequence judge: past the stop string, ending with it, or stopped before it."""

from __future__ import annotations

import pytest

from core.vocabulary import Outcome
from judge.replies.stop import STOP_ECHOED, STOP_IGNORED, assess

COUNT = "\n".join(str(n) for n in range(1, 31))
BEFORE = COUNT[: COUNT.index("13")]


def test_a_reply_that_stops_before_the_stop_string_passes() -> None:
    assert assess(BEFORE, "13", finish_reason="stop").outcome is Outcome.PASS


@pytest.mark.parametrize("text", [COUNT, ", ".join(str(n) for n in range(1, 20)), BEFORE + "13\n14"],
                         ids=["lines", "commas", "one-more"])
def test_text_after_the_stop_string_is_stop_ignored(text: str) -> None:
    verdict = assess(text, "13")
    assert verdict.outcome is Outcome.FAIL and verdict.reason.startswith(STOP_IGNORED)


@pytest.mark.parametrize("text", [BEFORE + "13", BEFORE + "13\n", "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13"],
                         ids=["bare", "newline", "commas"])
def test_a_reply_ending_with_the_stop_string_is_stop_echoed(text: str) -> None:
    verdict = assess(text, "13")
    assert verdict.outcome is Outcome.FAIL and verdict.reason.startswith(STOP_ECHOED)


@pytest.mark.parametrize("text, finish", [
    ("I can't count today, but here is a poem instead.", "stop"),
    ("1\n2\n3\n4", "stop"),
    ("Here you go: 2, 4, 6, 8", "stop"),
    ("1\n2\n3\n4\n5\n6", "length"),
    ("", "stop"),
], ids=["prose", "gave-up", "other-count", "cut-by-max-tokens", "empty"])
def test_a_reply_that_did_not_follow_the_task_is_inconclusive(text: str, finish: str) -> None:
    assert assess(text, "13", finish_reason=finish).outcome is Outcome.INCONCLUSIVE


def test_a_polite_preamble_and_list_markup_around_the_right_count_still_pass() -> None:
    text = "Sure! Here are the numbers:\n" + "\n".join(f"- {n}" for n in range(1, 13)) + "\n"
    assert assess(text, "13").outcome is Outcome.PASS


def test_the_real_token_boundary_defect_reads_as_stop_ignored() -> None:
    # vllm-project/vllm#3572 (fixed by #3672): Mistral-7B asked to continue "ABC" with stop "DE"
    # returned "DEFGHIJKLMNOPQRSTUVWXYZ": "DEF" was one token and the engine only checked
    # endswith(stop) after each token, so the stop string sat inside the reply with text after it.
    verdict = assess("DEFGHIJKLMNOPQRSTUVWXYZ", "DE")
    assert verdict.outcome is Outcome.FAIL and verdict.reason.startswith(STOP_IGNORED)


def test_a_host_that_keeps_the_stop_string_as_tgi_does_reads_as_stop_echoed() -> None:
    # vllm-project/vllm#1973: vLLM cuts the stop string out (OpenAI's documented behaviour) and
    # added `include_stop_str_in_output` because TGI keeps it: a host serving that way echoes it.
    assert assess(BEFORE + "13", "13").reason.startswith(STOP_ECHOED)


@pytest.mark.parametrize("digits", [19, 4301, 10_000])  # past 4,300 digits int() raises ValueError
def test_a_number_too_long_for_any_count_is_no_count_not_a_crash(digits: int) -> None:
    verdict = assess("1\n2\n3\n" + "7" * digits, "13", finish_reason="stop")
    assert verdict.outcome == Outcome.INCONCLUSIVE
    assert verdict.reason.startswith(f"stop: the reply did not follow the task (not a count: a number of {digits} "
                                     "digits")

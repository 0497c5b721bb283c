"""The fidelity items: made from a seed, the truth computed, answers normalised before the exact match."""

from __future__ import annotations

import pytest

from judge.replies.fidelity import (
    answers,
    make_items,
    normalise,
    prompt_text,
    score,
    seed_for,
)

KINDS = ("arithmetic", "reverse", "copy", "calendar", "sorting")


def right_reply(seed: int) -> str:
    return "\n".join(f"{i}. {item.answer}" for i, item in enumerate(make_items(seed), 1))


def test_the_same_round_and_model_give_the_same_items_and_a_new_round_new_ones() -> None:
    one = make_items(seed_for("20261201T160000Z-abc123", "m/x"))
    assert one == make_items(seed_for("20261201T160000Z-abc123", "m/x"))
    assert one != make_items(seed_for("20261201T163000Z-def456", "m/x"))
    assert [i.kind for i in one] == list(KINDS)


@pytest.mark.parametrize("seed", range(20))
def test_the_computed_answers_are_right(seed: int) -> None:
    arithmetic, reverse, copy, calendar, sorting = make_items(seed)
    a, b = (int(x) for x in arithmetic.question.split("What is ")[1].split("?")[0].split(" * "))
    assert int(arithmetic.answer) == a * b
    words = reverse.question.split(": ")[1].rstrip(".").split(", ")
    assert reverse.answer.split(", ") == words[::-1]
    assert copy.question.endswith(copy.answer)
    numbers = [int(x) for x in sorting.question.split(": ")[1].rstrip(".").split(", ")]
    assert [int(x) for x in sorting.answer.split(", ")] == sorted(numbers)
    assert len(calendar.answer) == 10 and calendar.answer[4] == "-"


def test_a_right_reply_scores_every_item_right_and_a_missing_line_is_wrong() -> None:
    items = make_items(3)
    assert all(ok for _, ok in score(right_reply(3), items))
    kept = "\n".join(line for line in right_reply(3).splitlines() if not line.startswith("3."))
    assert [ok for _, ok in score(kept, items)] == [True, True, False, True, True]


@pytest.mark.parametrize("given, truth", [
    ("**22,143**", "22143"), ("`22143`.", "22143"),
    ("saddle,lantern, pepper  meadow", "saddle, lantern, pepper, meadow"),
    ('"RXASCRYDCN"', "RXASCRYDCN"), ("rxascrydcn", "RXASCRYDCN"), ("11, 12, 13.", "11, 12, 13"),
], ids=["bold-thousands", "backticks", "separators", "quotes", "case", "full-stop"])
def test_normalisation_forgives_formatting_not_content(given: str, truth: str) -> None:
    assert normalise(given) == normalise(truth)


@pytest.mark.parametrize("given, truth",
                         [("22153", "22143"), ("RXASCRYDCX", "RXASCRYDCN"), ("13, 12, 11", "11, 12, 13")])
def test_a_different_answer_stays_different(given: str, truth: str) -> None:
    assert normalise(given) != normalise(truth)


def test_answers_are_read_from_numbered_lines_in_the_usual_markups() -> None:
    text = "Here you go:\n**1.** 42\n2) a, b\n3: XYZ\n- 4. 2020-01-01\n1. not the first one"
    assert dict(answers(text)) == {1: "** 42", 2: "a, b", 3: "XYZ", 4: "2020-01-01"}


def test_the_prompt_numbers_every_question() -> None:
    text = prompt_text(make_items(1))
    assert all(f"\n{i}. " in text for i in range(1, len(KINDS) + 1))

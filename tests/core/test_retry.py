"""core/retry.py: the attempts of a retried action and the pauses between them."""

from __future__ import annotations

from core.retry import Backoff


def run(backoff: Backoff, succeed_at: int | None = None, waited_at: int | None = None) -> tuple[list[int], list[float]]:
    slept: list[float] = []
    tried: list[int] = []
    tries = backoff.tries(slept.append)
    for attempt in tries:
        tried.append(attempt)
        if attempt == waited_at:
            tries.waited()
        if attempt == succeed_at:
            break
    return tried, slept


def test_every_attempt_but_the_last_is_followed_by_its_pause_and_the_last_pause_repeats() -> None:
    assert run(Backoff(4, (1.0, 3.0))) == ([1, 2, 3, 4], [1.0, 3.0, 3.0])


def test_a_success_ends_the_attempts_without_a_pause() -> None:
    assert run(Backoff(3, (1.0, 3.0)), succeed_at=2) == ([1, 2], [1.0])


def test_a_pause_of_zero_is_not_slept_and_a_single_attempt_never_sleeps() -> None:
    assert run(Backoff(3, (0.0, 4.0))) == ([1, 2, 3], [4.0])
    assert run(Backoff(1, (5.0,))) == ([1], [])


def test_an_attempt_that_waited_as_asked_skips_its_pause() -> None:
    assert run(Backoff(4, (1.0, 2.0, 4.0)), waited_at=2) == ([1, 2, 3, 4], [1.0, 4.0])

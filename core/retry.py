"""The one backoff loop: a retried action's attempts, and the pause slept before each next one.

    for attempt in Backoff(attempts=3, pauses=(1.0, 3.0)).tries(sleep):
        if deliver():
            return
    # every attempt failed

No pause follows the last attempt, and a pause of 0 is not slept. `sleep` is passed in, so a test
records the pauses instead of waiting them. An attempt that already waited as the other side asked
(GitHub's Retry-After) calls `waited()`: its pause is skipped. tests/test_architecture.py keeps this
the only place that sleeps inside a loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    """How many attempts, and the pause after each (the last one repeating)."""

    attempts: int
    pauses: tuple[float, ...]

    def pause_after(self, attempt: int) -> float:
        return self.pauses[min(attempt - 1, len(self.pauses) - 1)] if self.pauses else 0.0

    def tries(self, sleep: Callable[[float], None]) -> Tries:
        return Tries(self, sleep)


class Tries:
    """The attempt numbers 1..attempts of one run; iterating sleeps the pause before each next one."""

    def __init__(self, backoff: Backoff, sleep: Callable[[float], None]) -> None:
        self.backoff, self._sleep, self._waited = backoff, sleep, False

    def __iter__(self) -> Iterator[int]:
        for attempt in range(1, self.backoff.attempts + 1):
            if attempt > 1 and not self._waited and (pause := self.backoff.pause_after(attempt - 1)) > 0:
                self._sleep(pause)
            self._waited = False
            yield attempt

    def waited(self) -> None:
        """This attempt waited already (as the server asked): no pause before the next one."""
        self._waited = True

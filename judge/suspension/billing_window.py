"""What an endpoint was billed against what it lists over its evidence window: the status page's
"billed / listed" (pure; the state's `billing`, docs/file-formats.md). Whole nano-dollars: a probe
reply costs micro-dollars, and a float would print its rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from judge.suspension.window import WINDOW_ROUNDS

NANO = 10**9


@dataclass(frozen=True, slots=True)
class BillingWindow:
    """(billed, listed) nano-USD per counted round with a reported cost, oldest first."""

    rounds: tuple[tuple[int, int], ...] = ()

    def push(self, billed_usd: float, listed_usd: float, limit: int = WINDOW_ROUNDS) -> BillingWindow:
        """The window with this round's sums; unchanged when one is not finite (round() of inf raises)."""
        if not all(math.isfinite(v) and 0 <= v * NANO < 2**63 for v in (billed_usd, listed_usd)):
            return self
        return BillingWindow((*self.rounds, (round(billed_usd * NANO), round(listed_usd * NANO)))[-limit:])

    @property
    def billed_usd(self) -> float:
        return sum(b for b, _ in self.rounds) / NANO

    @property
    def listed_usd(self) -> float:
        return sum(listed for _, listed in self.rounds) / NANO

    @property
    def ratio(self) -> float | None:
        """Billed / listed (None: nothing listed to divide by)."""
        listed = sum(listed for _, listed in self.rounds)
        return sum(b for b, _ in self.rounds) / listed if listed else None

    def __bool__(self) -> bool:
        return bool(self.rounds)


def encode(window: BillingWindow) -> str:
    return ".".join(f"{b}:{listed}" for b, listed in window.rounds)


def decode(raw: object) -> BillingWindow:
    """The inverse of encode(); ValueError on anything else."""
    if not isinstance(raw, str):
        raise ValueError("a billing window is a string of billed:listed nano-dollars per round")
    if not raw:
        return BillingWindow()
    rounds = []
    for part in raw.split("."):
        billed, _, listed = part.partition(":")
        if not (billed.isdigit() and listed.isdigit()):
            raise ValueError(f"billing window: {part[:40]!r} is not billed:listed in whole nano-dollars")
        rounds.append((int(billed), int(listed)))
    return BillingWindow(tuple(rounds))

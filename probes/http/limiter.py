"""The round's concurrency caps, adapted to 429s while the round runs (AIMD; docs/openrouter-wire.md §5,
rate limits). The cap comes down to the requests the upstream accepted and still serves (their 200
comes early: OpenRouter commits it at the first keep-alive), which settles a burst at its first 429,
before a request sent again after its Retry-After can meet the old cap. `adaptive=False`: a fixed cap.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass


@dataclass(slots=True)
class Ticket:
    """One request holding a slot; `accept()` once the upstream answered it with a 200."""

    limit: AdaptiveLimit
    accepted: bool = False

    def accept(self) -> None:
        if not self.accepted:
            self.accepted = True
            self.limit.accepted += 1


class AdaptiveLimit:
    """At most `limit` requests in flight; `limit` moves between 1 and `ceiling`."""

    def __init__(self, ceiling: int, *, adaptive: bool = True) -> None:
        if ceiling < 1:
            raise ValueError("the concurrency cap must be >= 1")
        self.ceiling = ceiling
        self.adaptive = adaptive
        self.limit = float(ceiling)
        self.lowest = ceiling          # the lowest cap the round came down to (reported)
        self.in_flight = 0
        self.accepted = 0              # requests in flight the upstream answered with a 200
        self._changed: asyncio.Condition | None = None  # made in the loop that waits on it

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Ticket]:
        """Wait for a free slot, for one request."""
        changed = self._changed = self._changed or asyncio.Condition()
        async with changed:
            await changed.wait_for(lambda: self.in_flight < int(self.limit))
            self.in_flight += 1
        ticket = Ticket(self)
        try:
            yield ticket
        finally:
            async with changed:
                self.in_flight -= 1
                self.accepted -= ticket.accepted
                changed.notify_all()

    def rate_limited(self) -> None:
        """A 429 came back: the upstream takes no more than what it accepted and still serves."""
        if self.adaptive:
            self.limit = max(1.0, min(self.limit, float(self.accepted)))
            self.lowest = min(self.lowest, int(self.limit))

    def succeeded(self) -> None:
        """A request was answered (not rate limited): one slot more per `limit` answers."""
        if self.adaptive:
            self.limit = min(float(self.ceiling), self.limit + 1 / self.limit)

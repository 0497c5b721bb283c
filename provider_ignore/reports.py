"""User reports, kept by the chat backend against the reply each is about, counted, never its words (issue 40).

    reports = Reports()                                   # forward=feedback(...) to tell OpenRouter too
    reports.report("gen-...", model="deepseek/deepseek-chat-v3-0324", provider="DeepInfra",
                   at=now, category="incoherence")         # the message's own generation id and provider
    reports.take(window_end)                              # [(model, provider, n)]: the window record's `reports`

A report is (generation id, model, the provider that served the reply, time, category), never the
user's text; one reply reported twice counts once. The counts leave in their window's production
record (core/production.py `reports`). `forward=` (off by default) also sends each report to
OpenRouter's feedback endpoint; a comment goes only there, and a refused forward is logged without
the key, the report kept (docs/explain.md). Standard library only. Thread-safe.
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.request
from collections.abc import Callable
from datetime import datetime, timedelta

from core.tags import is_provider_name, is_valid_tag

log = logging.getLogger(__name__)
CATEGORIES = ("latency",  # not the contract: a feedback category
              "incoherence", "incorrect_response", "formatting", "billing", "api_error", "other")
MAX_COMMENT = 1000
REMEMBERED = timedelta(days=2)   # a generation id is remembered this long, to count it once
Forward = Callable[[str, str, str | None], None]   # (generation id, category, comment)


class Reports:
    """The backend's user reports until their window's record takes them."""

    def __init__(self, *, forward: Forward | None = None) -> None:
        self.forward = forward
        self._lock = threading.Lock()
        self._seen: dict[str, datetime] = {}                           # generation id -> when reported
        self._open: list[tuple[datetime, str, str | None]] = []         # (at, model, provider)

    def report(self, generation_id: str, *, model: str, provider: str | None, at: datetime, category: str,
               comment: str | None = None) -> bool:
        """Keep a user's report of one reply; False when that reply was reported already. `comment` goes
        to OpenRouter only (with `forward`), never into a record."""
        if category not in CATEGORIES:
            raise ValueError(f"category {category!r}: one of {', '.join(CATEGORIES)}")
        if not is_valid_tag(model):
            raise ValueError(f"model {model[:80]!r} is not a model id")
        with self._lock:
            self._seen = {g: t for g, t in self._seen.items() if t > at - REMEMBERED}
            if generation_id in self._seen:
                return False
            self._seen[generation_id] = at
            self._open.append((at, model, provider if is_provider_name(provider) else None))
        if self.forward is not None:
            try:
                self.forward(generation_id, category, None if comment is None else comment[:MAX_COMMENT])
            except OSError as exc:   # the report is kept; OpenRouter is told another time or never
                log.warning("feedback on %s not forwarded to OpenRouter: %s", generation_id[:80], type(exc).__name__)
        return True

    def take(self, end: datetime) -> list[tuple[str, str | None, int]]:
        """The counts of the reports made before `end` and not taken yet (a report made late for its window
        goes into the next one), removed: (model, provider, n), sorted."""
        with self._lock:
            taken = [r for r in self._open if r[0] < end]
            self._open = [r for r in self._open if r[0] >= end]
        counts: dict[tuple[str, str | None], int] = {}
        for _, model, provider in taken:
            counts[(model, provider)] = counts.get((model, provider), 0) + 1
        return sorted(((m, p, n) for (m, p), n in counts.items()), key=lambda c: (c[0], c[1] or ""))


def feedback(base_url: str, management_key: str, *, timeout_s: float = 10.0) -> Forward:
    """A `forward` that posts to OpenRouter's `POST {base_url}/generation/feedback`."""
    def send(generation_id: str, category: str, comment: str | None) -> None:
        body = {"generation_id": generation_id, "category": category, **({"comment": comment} if comment else {})}
        request = urllib.request.Request(
            f"{base_url.rstrip('/')}/generation/feedback", data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {management_key}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - the configured API's URL
            response.read()

    return send

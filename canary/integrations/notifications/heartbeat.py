"""The dead-man's switch: ping a healthchecks-style URL after every judged round (docs/notifications.md).

The protocol is healthchecks.io's (https://healthchecks.io/docs/http_api/): a POST to the ping URL
is a success, to the URL with `/fail` appended a failure, its body the ping's log. Both URLs are
secrets: never printed, and an error names only the HTTP status or the exception type.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import httpx

from core.retry import Backoff
from core.untrusted import clean
from judge.suspension.decisions import Action, RoundDecisions

HEARTBEAT_ENV = "CANARY_HEARTBEAT_URL"
HEARTBEAT_FAIL_ENV = "CANARY_HEARTBEAT_FAIL_URL"
ATTEMPTS = 3
TIMEOUT_S = 10.0                 # healthchecks.io's own examples allow 10 s per ping
BACKOFF_S = (1.0, 3.0)
# Retried like curl --retry: timeouts, 408, 429 and 5xx are passing troubles.
_TRANSIENT = {408, 429, 500, 502, 503, 504}


@dataclass(frozen=True, slots=True)
class RoundStatus:
    """What the ping says: the round went through (ok) or not, and a one-line log for the monitor."""

    ok: bool
    summary: str


def round_status(doc: RoundDecisions | None, *, failed: bool = False) -> RoundStatus:
    """Success unless the judge did not finish (no decisions file), the round was incomplete,
    or the workflow says a step failed (`failed`)."""
    if doc is None:
        return RoundStatus(False, "no decisions file: the judge did not finish this round")
    incomplete = [d for d in doc.decisions if d.action is Action.INCOMPLETE_ROUND]
    head = f"round {clean(doc.round_id, 80)} ({clean(doc.mode, 20)} mode): {len(doc.decisions)} decision(s)"
    if incomplete:
        return RoundStatus(False, f"{head}; round incomplete: {clean(incomplete[0].reason, 200)}")
    if failed:
        return RoundStatus(False, f"{head}; a step of the workflow failed")
    return RoundStatus(True, head)


def failure_url(url: str, fail_url: str | None = None) -> str:
    """The URL that signals a failure: the explicit one, or healthchecks' `/fail` suffix."""
    if fail_url:
        return fail_url
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/fail"))


def ping(url: str, status: RoundStatus, *, fail_url: str | None = None, client: httpx.Client | None = None,
         attempts: int = ATTEMPTS, sleep: Callable[[float], None] = time.sleep) -> str | None:
    """POST the round's one-line summary; None when the monitor got it, else what went wrong."""
    target = url if status.ok else failure_url(url, fail_url)
    own = client is None
    http = client or httpx.Client(timeout=TIMEOUT_S)
    error = "not attempted"
    try:
        for _ in Backoff(attempts, BACKOFF_S).tries(sleep):
            try:
                response = http.post(target, content=status.summary.encode("utf-8"),
                                     headers={"Content-Type": "text/plain; charset=utf-8"})
                if response.status_code < 300:
                    return None
                error = f"HTTP {response.status_code}"
                if response.status_code not in _TRANSIENT:
                    return error
            except httpx.HTTPError as exc:
                error = type(exc).__name__  # the exception text may quote the secret URL
            except ValueError:  # httpx refuses a malformed URL before sending; its text quotes it
                return "not a valid http(s) URL"
    finally:
        if own:
            http.close()
    return error

"""A production record pushed onto canary's state branch through GitHub's contents API (standard library only).

    push(record, repository="acme/chat", token=os.environ["CANARY_PRODUCTION_TOKEN"])

The record lands at `production/<exporter>/<window start>.json` on the state branch
(`canary-state`), where the scheduled round reads it. Idempotent per window: the file of a window
that already holds the same bytes is left alone (a re-sent record makes no commit), and a new
version of it replaces the old one. A 409 or 422 (the branch moved, or the file appeared between
the read and the write) is retried on a fresh read. The token is a fine-grained one limited to
this repository's contents (docs/production.md says why this transport and what the token can do);
it is sent only in the Authorization header and never appears in an error.
"""

from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

from core.errors import CanaryError
from core.production import ProductionRecord, record_json
from core.retry import Backoff
from core.times import stamp

API = "https://api.github.com"
STATE_BRANCH = "canary-state"
CONFLICTS = (409, 422)
PAUSES_S = (1.0, 2.0, 4.0)
TIMEOUT_S = 30


class PushError(CanaryError):
    """GitHub refused or failed a production record's push (the status and GitHub's message, never the token)."""


def record_path(record: ProductionRecord) -> str:
    """Where the record lives on the state branch: one file per exporter and window."""
    return f"production/{record.exporter}/{stamp(record.window_start).replace(':', '')}.json"


def push(record: ProductionRecord, *, repository: str, token: str, branch: str = STATE_BRANCH, api: str = API,
         attempts: int = 4, sleep: Callable[[float], None] = time.sleep) -> str:
    """PUT the record; "created", "updated" or "unchanged". PushError when GitHub refuses it."""
    data = record_json(record)
    url = f"{api.rstrip('/')}/repos/{repository}/contents/{urllib.parse.quote(record_path(record))}"
    status = 0
    for _ in Backoff(attempts, PAUSES_S).tries(sleep):
        status, current = _call("GET", f"{url}?ref={urllib.parse.quote(branch)}", token)
        if status not in (200, 404):
            raise PushError(_said("reading", url, status, current))
        sha = current.get("sha") if status == 200 else None
        if sha is not None and base64.b64decode(current.get("content") or "") == data:
            return "unchanged"
        body = {"message": f"production: {record.exporter} {stamp(record.window_start)}", "branch": branch,
                "content": base64.b64encode(data).decode("ascii"), **({"sha": sha} if sha else {})}
        status, answer = _call("PUT", url, token, body)
        if status in (200, 201):
            return "updated" if sha else "created"
        if status not in CONFLICTS:
            raise PushError(_said("writing", url, status, answer))
    raise PushError(f"writing {url}: still conflicting (HTTP {status}) after {attempts} attempts")


def _call(method: str, url: str, token: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
               "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "canary-production"}
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, method=method, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 (an https URL of ours)
            return response.status, _json(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, _json(exc.read())
    except (urllib.error.URLError, OSError) as exc:
        raise PushError(f"{method} {url}: no answer ({exc})") from None


def _json(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _said(doing: str, url: str, status: int, answer: dict[str, Any]) -> str:
    message = str(answer.get("message", ""))[:200]
    hint = " (is the branch there, and may the token write this repository's contents?)" if status in (401, 403, 404) \
        else ""
    return f"{doing} {url}: HTTP {status} {message!r}{hint}"

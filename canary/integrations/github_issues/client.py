"""The subset of GitHub's REST API that incident issues need, with GitHub's retry rules.

The rules (rate limits honoured, never waiting past MAX_WAIT_S or BUDGET_S, a create looked for by
its marker before it is retried): docs/notifications.md, incidents as GitHub issues. Listing keeps
only what the client's login wrote, since a marker is a hash anyone can compute. The token lives only
in the Authorization header: no message here quotes a header.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import quote

import httpx

from core.errors import CanaryError
from core.retry import Backoff

ATTEMPTS = 4
BACKOFF_S = (1.0, 2.0, 4.0)      # after a 5xx or a transport error
BACKOFF = Backoff(ATTEMPTS, BACKOFF_S)
SECONDARY_WAIT_S = 60.0          # GitHub: "wait for at least one minute" without a header
MAX_WAIT_S = 120.0               # one wait longer than this: give up, the next round catches up
BUDGET_S = 300.0                 # all waits of one client together (the job has 10 minutes)
MAX_PAGES = 50                   # 5,000 issues or comments: far more than a repository needs
TIMEOUT_S = 20.0
API_VERSION = "2022-11-28"
BOT_LOGIN = "github-actions[bot]"   # who GITHUB_TOKEN writes as


class GitHubError(CanaryError):
    """A request GitHub refused or that could not be completed."""

    def __init__(self, status: int, message: str, *, maybe_applied: bool = False) -> None:
        super().__init__(f"HTTP {status}: {message}" if status else message)
        self.status = status
        self.maybe_applied = maybe_applied


class RateLimited(GitHubError):
    """GitHub asked for a longer wait than the client may spend."""


ISSUES_DISABLED = 410   # GitHub: "Issues are disabled for this repo" (410 Gone), the default on forks


class GitHubClient:
    def __init__(self, repo: str, token: str, *, api_url: str = "https://api.github.com",
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.time,
                 transport: httpx.BaseTransport | None = None, login: str = BOT_LOGIN) -> None:
        self.repo, self.login = repo, login
        self._http = httpx.Client(
            base_url=api_url.rstrip("/"), timeout=TIMEOUT_S, transport=transport,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
                     "X-GitHub-Api-Version": API_VERSION, "User-Agent": "canary-incidents"})
        self._sleep, self._clock = sleep, clock
        self.waited = 0.0

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading ---------------------------------------------------------------------------

    def wrote(self, item: Mapping[str, Any]) -> bool:
        """Whether this client's login wrote the issue or comment (logins ignore case on GitHub)."""
        user = item.get("user")
        return isinstance(user, Mapping) and str(user.get("login", "")).casefold() == self.login.casefold()

    def list_issues(self, label: str, state: str = "all", since: str | None = None) -> list[dict[str, Any]]:
        """Every issue (not pull request) this login wrote carrying `label`, newest first; with `since`
        (ISO 8601), only those updated at or after it."""
        params = {"labels": label, "state": state, "per_page": "100", "sort": "created", "direction": "desc"}
        if since is not None:
            params["since"] = since
        return [i for i in self._pages(f"/repos/{self.repo}/issues", params)
                if "pull_request" not in i and self.wrote(i)]

    def list_comments(self, number: int) -> list[dict[str, Any]]:
        """The comments this login wrote on issue `number`."""
        return [c for c in self._pages(f"/repos/{self.repo}/issues/{number}/comments", {"per_page": "100"})
                if self.wrote(c)]

    def label_exists(self, name: str) -> bool:
        try:
            self._request("GET", f"/repos/{self.repo}/labels/{quote(name, safe='')}")
        except GitHubError as exc:
            if exc.status == 404:
                return False
            raise
        return True

    # --- writing ---------------------------------------------------------------------------

    def create_label(self, name: str, color: str, description: str) -> None:
        try:
            self._request("POST", f"/repos/{self.repo}/labels",
                          json={"name": name, "color": color, "description": description}, retry_5xx=True)
        except GitHubError as exc:
            if exc.status != 422:   # 422: it exists already (created meanwhile)
                raise

    def create_issue(self, title: str, body: str, labels: list[str], *, marker: str, label: str) -> dict[str, Any]:
        """POST an issue; after an answer that leaves it unknown whether it exists, look first."""
        def existing() -> dict[str, Any] | None:
            return next((i for i in self.list_issues(label, state="open") if marker in (i.get("body") or "")), None)
        return self._create(f"/repos/{self.repo}/issues", {"title": title, "body": body, "labels": labels}, existing)

    def create_comment(self, number: int, body: str, *, marker: str) -> dict[str, Any]:
        def existing() -> dict[str, Any] | None:
            return next((c for c in self.list_comments(number) if marker in (c.get("body") or "")), None)
        return self._create(f"/repos/{self.repo}/issues/{number}/comments", {"body": body}, existing)

    def update_issue(self, number: int, **fields: Any) -> dict[str, Any]:
        """PATCH (state, state_reason, labels...): idempotent, so retried like a read."""
        data = self._request("PATCH", f"/repos/{self.repo}/issues/{number}", json=fields, retry_5xx=True)
        return data if isinstance(data, dict) else {}

    # --- the machinery ---------------------------------------------------------------------

    def _create(self, path: str, payload: dict[str, Any],
                existing: Callable[[], dict[str, Any] | None]) -> dict[str, Any]:
        for attempt in BACKOFF.tries(self._wait):
            try:
                data = self._request("POST", path, json=payload, retry_5xx=False)
                return data if isinstance(data, dict) else {}
            except GitHubError as exc:
                if not exc.maybe_applied or attempt == ATTEMPTS:
                    raise
            found = existing()
            if found is not None:
                return found
        raise AssertionError("unreachable")

    def _pages(self, path: str, params: dict[str, str]) -> Iterator[dict[str, Any]]:
        url: str | None = path
        for _ in range(MAX_PAGES):
            if url is None:
                return
            response = self._response("GET", url, params=params if url == path else None, retry_5xx=True)
            data = response.json()
            if not isinstance(data, list):
                raise GitHubError(response.status_code, "expected a list from a paginated endpoint")
            yield from (item for item in data if isinstance(item, dict))
            url = response.links.get("next", {}).get("url")
        raise GitHubError(0, f"more than {MAX_PAGES} pages: stopped listing")

    def _request(self, method: str, url: str, *, retry_5xx: bool = True, **kw: Any) -> Any:
        response = self._response(method, url, retry_5xx=retry_5xx, **kw)
        return response.json() if response.content else None

    def _response(self, method: str, url: str, *, retry_5xx: bool, **kw: Any) -> httpx.Response:
        problem = "not attempted"
        tries = BACKOFF.tries(self._wait)
        for _ in tries:
            try:
                response = self._http.request(method, url, **kw)
            except httpx.HTTPError as exc:
                problem = type(exc).__name__
                if not retry_5xx:
                    raise GitHubError(0, problem, maybe_applied=True) from None
                continue
            if response.status_code < 300:
                return response
            wait = self._rate_limit_wait(response)
            if wait is not None:
                self._wait(wait, limit=True)
                tries.waited()  # the wait GitHub asked for, instead of the backoff's
                continue
            if response.status_code >= 500:
                problem = f"HTTP {response.status_code}"
                if not retry_5xx:
                    raise GitHubError(response.status_code, _message(response), maybe_applied=True)
                continue
            raise GitHubError(response.status_code, _message(response))
        raise GitHubError(0, f"gave up after {ATTEMPTS} attempts ({problem})")

    def _rate_limit_wait(self, response: httpx.Response) -> float | None:
        """Seconds GitHub asks us to wait, or None when the answer is not a rate limit."""
        if response.status_code not in (403, 429):
            return None
        headers = response.headers
        if headers.get("retry-after", "").strip().isdigit():
            return float(headers["retry-after"])
        if headers.get("x-ratelimit-remaining") == "0" and headers.get("x-ratelimit-reset", "").isdigit():
            return max(1.0, float(headers["x-ratelimit-reset"]) - self._clock() + 1.0)
        if response.status_code == 429 or "rate limit" in _message(response).lower():
            return SECONDARY_WAIT_S
        return None   # a plain 403: no permission; waiting will not help

    def _wait(self, seconds: float, *, limit: bool = False) -> None:
        if limit and (seconds > MAX_WAIT_S or self.waited + seconds > BUDGET_S):
            raise RateLimited(429, f"rate limited: GitHub asks for {seconds:.0f} s more, over this run's budget")
        self.waited += seconds
        self._sleep(seconds)


def _message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.reason_phrase or "no message"
    message = data.get("message") if isinstance(data, dict) else None
    return str(message)[:200] if message else (response.reason_phrase or "no message")

"""A small real HTTP server speaking the subset of GitHub's REST API that incident issues and production records use.

Issues, comments and labels live in memory; lists paginate with Link headers (`page_size`
lets a test force several pages); every request is recorded. `fail_next(n, kind)` makes the
next n requests answer like GitHub under pressure:

- "secondary": 403 "You have exceeded a secondary rate limit" with `retry-after: 1`;
- "primary": 403 with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` one second ahead;
- "429": 429 with `retry-after: 1`;      "429-long": 429 with `retry-after: 3600`;
- "502": 502 before doing anything;       "502-after": do the request, then answer 502
  (the issue or comment exists although the client was told it failed).

What the token writes is by BOT (GITHUB_TOKEN's login, `user.login`); `add_issue` and
`add_comment` play anyone else with `author=`. Every write stamps the issue's `updated_at` (the
wall clock, or `clock`; a comment updates its issue, as on GitHub), and listing honours `since`.
`issues_disabled` answers every issues endpoint as GitHub does for a repository with Issues
turned off (410, "Issues are disabled for this repo"), the default on forks.

The contents API (`GET`/`PUT /repos/{REPO}/contents/{path}`, `ref` / `branch`) reads and writes a
real bare repository, `git_remote`: a PUT is a commit on the branch, as on GitHub, and answers 409
when the `sha` it names is not the file's (422 when it names none and the file exists); "409"
makes the next request answer that conflict without writing.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from core.times import stamp

TOKEN = "ghs_fakeTokenForTheLocalServer0123456789"
REPO = "acme/chat"
BOT = "github-actions[bot]"   # who GITHUB_TOKEN writes as


def _user(login: str) -> dict[str, str]:
    return {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"}


@dataclass
class FakeGitHub:
    port: int = 0
    page_size: int | None = None          # None: honour per_page
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    labels: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    issues_disabled: bool = False
    git_remote: Path | None = None        # the bare repository the contents API reads and commits to
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    lock: threading.Lock = field(default_factory=threading.Lock)
    _next_id: int = 1

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def fail_next(self, n: int, kind: str) -> None:
        self.failures.extend([kind] * n)

    def count(self, method: str, pattern: str) -> int:
        return sum(1 for m, p in self.requests if m == method and re.fullmatch(pattern, p.split("?")[0]))

    def add_issue(self, title: str, body: str, labels: list[str], state: str = "open",
                  updated_at: datetime | None = None, author: str = BOT) -> dict[str, Any]:
        with self.lock:
            issue = self._create_issue({"title": title, "body": body, "labels": labels, "state": state}, author)
            if updated_at is not None:
                issue["updated_at"] = _stamp(updated_at)
            return issue

    def add_comment(self, number: int, body: str, updated_at: datetime | None = None, author: str = BOT) -> None:
        with self.lock:
            self._create_comment(number, body, author)
            self.issues[number]["updated_at"] = _stamp(updated_at or self.clock())

    def open_issues(self) -> list[dict[str, Any]]:
        return [i for i in self.issues.values() if i["state"] == "open"]

    # --- the API, called by the handler under the lock ----------------------------------------

    def _create_issue(self, data: dict[str, Any], author: str = BOT) -> dict[str, Any]:
        number = self._next_id
        self._next_id += 1
        issue = {"number": number, "title": data.get("title"), "body": data.get("body"), "user": _user(author),
                 "state": data.get("state", "open"), "state_reason": None,
                 "labels": [{"name": n} for n in data.get("labels", [])], "created_at": number,
                 "updated_at": _stamp(self.clock())}
        self.issues[number] = issue
        self.comments[number] = []
        return issue

    def _create_comment(self, number: int, body: str, author: str = BOT) -> dict[str, Any]:
        comment = {"id": 1000 + sum(len(c) for c in self.comments.values()), "body": body, "user": _user(author)}
        self.comments[number].append(comment)
        return comment

    def handle(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        base = f"/repos/{REPO}"
        if self.issues_disabled and path.startswith(f"{base}/issues"):
            return 410, {"message": "Issues are disabled for this repo",
                         "documentation_url": "https://docs.github.com/rest/issues/issues"}, {}
        if method == "GET" and path == f"{base}/issues":
            wanted = {x for x in query.get("labels", "").split(",") if x}
            state = query.get("state", "open")
            since = query.get("since", "")
            items = [i for i in sorted(self.issues.values(), key=lambda i: -i["number"])
                     if wanted <= {x["name"] for x in i["labels"]} and state in ("all", i["state"])
                     and i["updated_at"] >= since]
            return self._page(path, query, items)
        if method == "POST" and path == f"{base}/issues":
            return 201, self._create_issue(body), {}
        m = re.fullmatch(rf"{base}/issues/(\d+)", path)
        if m and method == "PATCH":
            issue = self.issues.get(int(m.group(1)))
            if issue is None:
                return 404, {"message": "Not Found"}, {}
            for key in ("state", "state_reason", "title", "body"):
                if key in body:
                    issue[key] = body[key]
            if "labels" in body:
                issue["labels"] = [{"name": n} for n in body["labels"]]
            issue["updated_at"] = _stamp(self.clock())
            return 200, issue, {}
        m = re.fullmatch(rf"{base}/issues/(\d+)/comments", path)
        if m:
            number = int(m.group(1))
            if number not in self.issues:
                return 404, {"message": "Not Found"}, {}
            if method == "GET":
                return self._page(path, query, self.comments[number])
            comment = self._create_comment(number, body.get("body"))
            self.issues[number]["updated_at"] = _stamp(self.clock())
            return 201, comment, {}
        m = re.fullmatch(rf"{base}/labels/(.+)", path)
        if m and method == "GET":
            name = unquote(m.group(1))
            return (200, self.labels[name], {}) if name in self.labels else (404, {"message": "Not Found"}, {})
        if method == "POST" and path == f"{base}/labels":
            if body["name"] in self.labels:
                return 422, {"message": "Validation Failed", "errors": [{"code": "already_exists"}]}, {}
            self.labels[body["name"]] = body
            return 201, body, {}
        m = re.fullmatch(rf"{base}/contents/(.+)", path)
        if m and self.git_remote is not None and method in ("GET", "PUT"):
            return self._contents(method, unquote(m.group(1)), query.get("ref") or body.get("branch") or "main", body)
        return 404, {"message": "Not Found"}, {}

    def _contents(self, method: str, path: str, branch: str, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        tip = self._git("rev-parse", "--verify", "--quiet", f"refs/heads/{branch}").strip()
        if not tip:
            return 404, {"message": f"No commit found for the ref {branch}"}, {}
        blob = self._git("rev-parse", "--verify", "--quiet", f"{tip}:{path}").strip()
        if method == "GET":
            if not blob:
                return 404, {"message": "Not Found"}, {}
            content = subprocess.run(["git", "cat-file", "blob", blob], cwd=self.git_remote, capture_output=True,
                                     check=True).stdout
            return 200, {"type": "file", "path": path, "sha": blob, "encoding": "base64",
                         "content": base64.encodebytes(content).decode()}, {}
        if blob and body.get("sha") != blob:
            return (409 if "sha" in body else 422), {"message": f"{path} does not match {body.get('sha')}"}, {}
        new = self._git("hash-object", "-w", "--stdin", stdin=base64.b64decode(body["content"])).strip()
        with tempfile.TemporaryDirectory() as folder:
            index = {"GIT_INDEX_FILE": str(Path(folder) / "index")}
            self._git("read-tree", tip, env=index)
            self._git("update-index", "--add", "--cacheinfo", f"100644,{new},{path}", env=index)
            tree = self._git("write-tree", env=index).strip()
        commit = self._git("commit-tree", tree, "-p", tip, "-m", body["message"]).strip()
        self._git("update-ref", f"refs/heads/{branch}", commit, tip)
        return (200 if blob else 201), {"content": {"path": path, "sha": new}, "commit": {"sha": commit}}, {}

    def _git(self, *args: str, stdin: bytes = b"", env: dict[str, str] | None = None) -> str:
        identity = {"GIT_AUTHOR_NAME": "GitHub", "GIT_AUTHOR_EMAIL": "noreply@github.com",
                    "GIT_COMMITTER_NAME": "GitHub", "GIT_COMMITTER_EMAIL": "noreply@github.com"}
        done = subprocess.run(["git", *args], cwd=self.git_remote, input=stdin, capture_output=True, check=False,
                              env={**os.environ, **identity, **(env or {})})
        return done.stdout.decode()

    def _page(self, path: str, query: dict[str, str], items: list[Any]) -> tuple[int, Any, dict[str, str]]:
        size = self.page_size or int(query.get("per_page", "30"))
        page = int(query.get("page", "1"))
        chunk = items[(page - 1) * size: page * size]
        links = []
        last = max(1, -(-len(items) // size))
        rest = "&".join(f"{k}={v}" for k, v in query.items() if k != "page")
        if page < last:
            links.append(f'<{self.url}{path}?{rest}&page={page + 1}>; rel="next"')
            links.append(f'<{self.url}{path}?{rest}&page={last}>; rel="last"')
        return 200, chunk, ({"Link": ", ".join(links)} if links else {})


def _stamp(at: datetime) -> str:
    """GitHub's timestamps: ISO 8601 in UTC, seconds, `Z` (so they compare as text)."""
    return stamp(at)


_FAILURES: dict[str, tuple[int, dict[str, str], str]] = {
    "secondary": (403, {"retry-after": "1"}, "You have exceeded a secondary rate limit."),
    "429": (429, {"retry-after": "1"}, "Too many requests"),
    "429-long": (429, {"retry-after": "3600"}, "Too many requests"),
    "502": (502, {}, "Server Error"),
    "409": (409, {}, "is at 0000000 but expected 1111111"),
}


def _handler(gh: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _any(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else {}
            with gh.lock:
                gh.requests.append((self.command, self.path))
                kind = gh.failures.pop(0) if gh.failures else None
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    status, payload, headers = 401, {"message": "Bad credentials"}, {}
                elif kind == "primary":
                    status, payload = 403, {"message": "API rate limit exceeded"}
                    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + 1)}
                elif kind in _FAILURES:
                    status, headers, message = _FAILURES[kind]
                    payload = {"message": message}
                else:
                    status, payload, headers = gh.handle(self.command, parts.path, query, body)
                    if kind == "502-after":
                        status, payload, headers = 502, {"message": "Server Error"}, {}
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_PUT = _any

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def fake_github() -> Iterator[FakeGitHub]:
    gh = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(gh))
    server.daemon_threads = True
    gh.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield gh
    finally:
        server.shutdown()
        server.server_close()

"""The corpus of real recorded OpenRouter exchanges, read once and served back over a real socket.

The corpus (issue 28) is other projects' test cassettes of real OpenRouter traffic, listed with
their repository, commit, sha256 and licence in tests/data/openrouter-recordings/sources.yaml and
fetched beside that list by scripts/fetch_recordings.py (docs/developing.md, "The recorded
corpus"); CANARY_RECORDINGS_DIR names another copy. Two cassette formats are read, into one
`Interaction` per recorded chat completion:
- VCR.py (pydantic/pydantic-ai): `request.uri`, the body as `parsed_body` or `body.string`,
  `response.status.code`, a body that is either the raw text (`body.string`) or a parsed value;
- go-vcr v2 (charmbracelet/fantasy): `request.url`, `request.body` and `response.body` as raw
  text, `response.code`.

Every recording that is here is replayed, never skipped: the fetched copy, or else the same file
(its sha256 checked) among the study copies kept beside the clone (`../shared/reference/recordings`,
which CI has; CI reaches no repository host, so it cannot fetch). Only what is absent is skipped,
saying what to run (`cases()`, `require_corpus`), and the suite's closing summary says how much of
the corpus was here (tests/conftest.py), so a partial corpus is never silent.

`serve_recorded` answers one POST with the recorded status, content type and body: a streamed
body is written verbatim with chunked transfer encoding, one write per SSE event (split at the
blank line that ends it) and a small pause between writes; raw JSON text (with the blank lines
OpenRouter sends before a slow non-streamed body) is written as recorded; a cassette that kept
only a parsed body is re-serialised as JSON (the bytes were not recorded, the value was).
A uniquely named module (not conftest) so `from recorded_server import ...` cannot collide.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

ENV_VAR = "CANARY_RECORDINGS_DIR"
REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS = REPO_ROOT / "tests" / "data" / "openrouter-recordings"
SOURCES = CORPUS / "sources.yaml"
# Beside the clone (CI has them; this machine reaches no repository host): the whole corpus as
# scripts/fetch_recordings.py writes it, and study copies of a few of its files.
SHARED_CORPUS = REPO_ROOT / ".." / "shared" / "reference" / "openrouter-recordings"
STUDY_COPIES = REPO_ROOT / ".." / "shared" / "reference" / "recordings"
FETCH = ".venv/bin/python scripts/fetch_recordings.py"
CHAT_PATH = "/api/v1/chat/completions"

T = TypeVar("T")


def recordings_dir() -> Path:
    override = os.environ.get(ENV_VAR, "").strip()
    return Path(override) if override else CORPUS


@dataclass(frozen=True)
class Listed:
    """One recording sources.yaml names."""

    source: str               # `fantasy`, `pydantic-ai`
    path: str                 # under the source's folder
    sha256: str


@cache
def listed() -> tuple[Listed, ...]:
    entries = yaml.safe_load(SOURCES.read_text(encoding="utf-8"))["sources"]
    return tuple(Listed(str(s["name"]), str(f["path"]), str(f["sha256"])) for s in entries for f in s["files"])


def listed_files() -> list[tuple[str, str]]:
    """(source, path under the source's folder) of every recording sources.yaml names."""
    return [(entry.source, entry.path) for entry in listed()]


def _study_copy(entry: Listed) -> Path | None:
    """The same file among the study copies beside the clone (`<source>__<name>`), if its sha256 is the listed one."""
    candidate = STUDY_COPIES / f"{entry.source}__{Path(entry.path).name}"
    if candidate.is_file() and hashlib.sha256(candidate.read_bytes()).hexdigest() == entry.sha256:
        return candidate
    return None


def located() -> list[tuple[Listed, Path]]:
    """Every listed recording found on disk: the fetched copy, else the one fetched beside the clone,
    else a verified study copy."""
    found = []
    for entry in listed():
        fetched = recordings_dir() / entry.source / entry.path
        beside = SHARED_CORPUS / entry.source / entry.path
        path = fetched if fetched.is_file() else beside if beside.is_file() else _study_copy(entry)
        if path is not None:
            found.append((entry, path))
    return found


def missing_reason() -> str | None:
    """Why part of the corpus is not here (a sentence saying what to run), or None when it is whole."""
    absent = len(listed()) - len(located())
    if not absent:
        return None
    return (f"{absent} of the {len(listed())} recordings sources.yaml names are not in {recordings_dir()}: "
            f"run `{FETCH}` (docs/developing.md, \"The recorded corpus\")")


def require_corpus(*, whole: bool = False) -> None:
    """Skip, saying what to run, when no recording is here (or, with `whole`, when any is missing).

    A skip only for what is absent: every recording that is here is replayed. This machine's CI
    reaches no repository host, so a clone that could not fetch runs on the study copies alone.
    """
    reason = missing_reason()
    if reason is not None and (whole or not located()):
        pytest.skip(reason)


@dataclass(frozen=True)
class Interaction:
    """One recorded chat-completion exchange."""

    source: str               # `fantasy`, `pydantic-ai` (sources.yaml)
    cassette: str             # the file's path under its source, without `.yaml`
    index: int
    request: dict[str, Any]
    status: int
    content_type: str
    body: bytes
    streamed_body: bool       # an SSE body, kept as the raw text that was streamed

    @property
    def name(self) -> str:
        return f"{self.source}/{self.cassette}#{self.index}"

    @property
    def request_streamed(self) -> bool:
        return bool(self.request.get("stream"))

    def events(self) -> list[bytes]:
        """The body split after each blank line (an SSE event or comment per piece, verbatim)."""
        if not self.streamed_body:
            return [self.body]
        pieces, rest = [], self.body
        while (cut := rest.find(b"\n\n")) >= 0:
            pieces.append(rest[: cut + 2])
            rest = rest[cut + 2 :]
        if rest.strip():
            pieces.append(rest)
        return pieces

    def chunks(self) -> list[dict[str, Any]]:
        """The JSON data events of a streamed body, in order."""
        out = []
        for piece in self.events():
            line = piece.decode("utf-8").strip()
            if line.startswith("data: {"):
                out.append(json.loads(line[len("data: "):]))
        return out

    def json_body(self) -> Any:
        return json.loads(self.body.decode("utf-8"))

    def provider(self) -> str | None:
        """The serving provider's display name as the response states it."""
        if self.streamed_body:
            return next((c["provider"] for c in self.chunks() if isinstance(c.get("provider"), str)), None)
        body = self.json_body()
        if isinstance(body.get("provider"), str):
            return str(body["provider"])
        meta = (body.get("error") or {}).get("metadata") or {}
        found = meta.get("provider_name")
        return found if isinstance(found, str) else None

    def served_model(self) -> str | None:
        """The model the response says served the request (a dated id: `anthropic/claude-4.5-haiku-20251001`)."""
        found = [c.get("model") for c in self.chunks()] if self.streamed_body else [self.json_body().get("model")]
        return next((m for m in found if isinstance(m, str)), None)

    def usage(self) -> dict[str, Any] | None:
        """The recorded usage object (the last one of a stream)."""
        if self.streamed_body:
            usages = [c["usage"] for c in self.chunks() if isinstance(c.get("usage"), dict)]
            return usages[-1] if usages else None
        found = self.json_body().get("usage")
        return found if isinstance(found, dict) else None


def _header(headers: Any, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if str(key).lower() == name:
            return str(value[0]) if isinstance(value, list) else str(value)
    return None


def _request_body(request: dict[str, Any]) -> dict[str, Any]:
    if isinstance(request.get("parsed_body"), dict):
        return dict(request["parsed_body"])
    raw = request.get("body")
    text = raw.get("string") if isinstance(raw, dict) else raw
    return json.loads(text) if isinstance(text, str) and text.strip() else {}


def _response_body(response: dict[str, Any]) -> bytes:
    raw = response.get("body")
    text = raw.get("string") if isinstance(raw, dict) else raw
    if isinstance(text, str):
        return text.encode("utf-8")
    return json.dumps(response["parsed_body"]).encode("utf-8")


def _status(response: dict[str, Any]) -> int:
    status = response.get("status")
    return int(status["code"]) if isinstance(status, dict) else int(response["code"])


def read_cassette(source: str, cassette: str, text: str) -> list[Interaction]:
    """Every recorded POST to /chat/completions of one cassette, in either format."""
    out = []
    for i, it in enumerate(yaml.safe_load(text).get("interactions") or []):
        req, resp = it["request"], it["response"]
        if req.get("method") != "POST" or not str(req.get("uri") or req.get("url") or "").endswith("/chat/completions"):
            continue
        ctype = _header(resp.get("headers"), "content-type") or "application/json"
        out.append(Interaction(source, cassette, int(it.get("id", i)), _request_body(req), _status(resp), ctype,
                               _response_body(resp), "event-stream" in ctype))
    return out


@cache
def corpus() -> tuple[Interaction, ...]:
    """Every recorded chat exchange of the recordings that are here, in sources.yaml's order."""
    return tuple(it for entry, path in located()
                 for it in read_cassette(entry.source, entry.path.removesuffix(".yaml"),
                                         path.read_text(encoding="utf-8")))


def cases(keep: Callable[[Interaction], bool]) -> list[Any]:
    """pytest params of the present exchanges that `keep` chooses, by name. Kinds the present part
    of the corpus lacks are one skipped case saying what to fetch; on the whole corpus a filter that
    keeps nothing is an error."""
    chosen = [pytest.param(it, id=it.name) for it in corpus() if keep(it)]
    reason = missing_reason()
    if not chosen and reason is not None:
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="corpus-absent")]
    assert chosen, "the recorded corpus has no exchange of this kind: the test's filter is wrong"
    return chosen


@dataclass
class Served:
    """What the recorded server saw."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


async def serve_recorded(
    pieces: list[bytes],
    status: int,
    content_type: str,
    use: Callable[[str], Awaitable[T]],
    *,
    gap_s: float = 0.002,
    pauses: dict[int, float] | None = None,
) -> tuple[T, Served]:
    """Serve `pieces` (chunked, `gap_s` apart; `pauses[i]` extra before piece i) to one POST.

    `use(base_url)` runs against the server; its result and what the server received come back.
    """
    served = Served()
    pauses = pauses or {}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            served.paths.append(lines[0].split(" ")[1])
            length = next((int(v) for k, _, v in (ln.partition(":") for ln in lines[1:])
                           if k.strip().lower() == "content-length"), 0)
            served.requests.append(json.loads(await reader.readexactly(length)) if length else {})
            writer.write(f"HTTP/1.1 {status} Recorded\r\nContent-Type: {content_type}\r\n"
                         "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode())
            for i, piece in enumerate(pieces):
                await asyncio.sleep(gap_s + pauses.get(i, 0.0))
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        result = await use(f"http://127.0.0.1:{port}/api/v1")
    finally:
        server.close()
        await server.wait_closed()
    return result, served


def iter_streamed(interactions: tuple[Interaction, ...]) -> Iterator[Interaction]:
    return (it for it in interactions if it.streamed_body and it.status == 200)

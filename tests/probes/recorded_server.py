"""Real recorded OpenRouter traffic, read at run time and served back over a real socket.

The recordings (VCR cassettes of real OpenRouter exchanges, see
shared/reference/recordings/README.md) are NOT part of this repository and must not be copied
into it: they are read from `<repo>/../shared/reference/recordings` (CI keeps `shared/` beside
the clone), or from the directory named by CANARY_RECORDINGS_DIR. Tests that need them call
`recordings_or_skip()`, which skips with the reason when they are absent.

`serve_recorded` answers one POST with the recorded status, content type and body: a streamed
body (`body.string`) is written verbatim with chunked transfer encoding, one write per SSE
event (split at the blank line that ends it) and a small pause between writes; a cassette that
kept only `parsed_body` is re-serialised as JSON (the bytes were not recorded, the value was).
A uniquely named module (not conftest) so `from recorded_server import ...` cannot collide.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

ENV_VAR = "CANARY_RECORDINGS_DIR"
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DIR = REPO_ROOT / ".." / "shared" / "reference" / "recordings"
CHAT_PATH = "/api/v1/chat/completions"

T = TypeVar("T")


def recordings_dir() -> Path:
    override = os.environ.get(ENV_VAR, "").strip()
    return Path(override) if override else DEFAULT_DIR


def recordings_or_skip() -> list[Path]:
    """The cassette files, or pytest.skip with a reason a person can act on."""
    where = recordings_dir()
    files = sorted(where.glob("*.yaml")) if where.is_dir() else []
    if not files:
        pytest.skip(f"real OpenRouter recordings not found in {where} (they live outside the repo: "
                    f"put shared/ beside the clone or set {ENV_VAR})")
    return files


@dataclass(frozen=True)
class Interaction:
    """One recorded chat-completion exchange."""

    cassette: str
    index: int
    request: dict[str, Any]
    status: int
    content_type: str
    body: bytes
    streamed_body: bool       # the recording kept the raw SSE text (body.string)

    @property
    def name(self) -> str:
        return f"{self.cassette}#{self.index}"

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
        if rest:
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
            return body["provider"]
        meta = (body.get("error") or {}).get("metadata") or {}
        return meta.get("provider_name")


def load_interactions(files: list[Path]) -> list[Interaction]:
    """Every recorded POST to /chat/completions in the given cassettes."""
    out = []
    for path in files:
        cassette = yaml.safe_load(path.read_text(encoding="utf-8"))
        for i, it in enumerate(cassette.get("interactions") or []):
            req, resp = it["request"], it["response"]
            if req.get("method") != "POST" or not str(req.get("uri", "")).endswith("/chat/completions"):
                continue
            raw = (resp.get("body") or {}).get("string")
            body = raw.encode("utf-8") if isinstance(raw, str) else json.dumps(resp["parsed_body"]).encode("utf-8")
            ctype = _header(resp.get("headers") or {}, "content-type") or "application/json"
            request = req.get("parsed_body") or json.loads((req.get("body") or {}).get("string") or "{}")
            status = int(resp["status"]["code"])
            out.append(Interaction(path.stem, i, request, status, ctype, body, isinstance(raw, str)))
    return out


def all_interactions() -> list[Interaction]:
    """For parametrisation at collection time: [] when the recordings are absent."""
    where = recordings_dir()
    return load_interactions(sorted(where.glob("*.yaml"))) if where.is_dir() else []


def _header(headers: dict[str, Any], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value[0] if isinstance(value, list) else str(value)
    return None


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


def iter_streamed(interactions: list[Interaction]) -> Iterator[Interaction]:
    return (it for it in interactions if it.streamed_body and it.status == 200)

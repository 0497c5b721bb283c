"""Local receiving servers for the notification tests: real sockets on 127.0.0.1.

- `Receiver`: an HTTP server that records every request and answers from a script of status
  codes (the last one repeats), or hangs until released, for timeouts;
- `SmtpReceiver`: an aiosmtpd SMTP server keeping every message it accepted;
- `closed_port()`: a port nobody listens on (connection refused).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HANG = -1   # a scripted "status" that never answers (until the server stops)


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    """What a test reads: the requests in arrival order, and the script it answers with."""

    statuses: list[int] = field(default_factory=lambda: [200])
    requests: list[Request] = field(default_factory=list)
    port: int = 0
    release: threading.Event = field(default_factory=threading.Event)

    def next_status(self) -> int:
        index = min(len(self.requests) - 1, len(self.statuses) - 1)
        return self.statuses[index]


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            receiver.requests.append(Request(self.command, self.path, dict(self.headers.items()), body))
            status = receiver.next_status()
            if status == HANG:
                receiver.release.wait(30)
                return
            payload = b"OK" if status < 300 else b'{"error": "scripted failure"}'
            self.send_response(status)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_HEAD = _any

        def log_message(self, *args: object) -> None:  # keep the test output clean
            pass

    return Handler


@contextmanager
def receiving(*statuses: int) -> Iterator[Receiver]:
    """A receiver on 127.0.0.1 answering with `statuses` (default: 200 to everything)."""
    receiver = Receiver(statuses=list(statuses) or [200])
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(receiver))
    server.daemon_threads = True
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.release.set()
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A port on 127.0.0.1 that refuses connections (bound once, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class SmtpReceiver:
    port: int = 0
    messages: list[tuple[str, list[str], Message]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), message_from_bytes(envelope.content)))
        return "250 OK"


@contextmanager
def smtp_receiving() -> Iterator[SmtpReceiver]:
    """An SMTP server on 127.0.0.1 (aiosmtpd on its own event loop thread)."""
    from aiosmtpd.smtp import SMTP

    receiver = SmtpReceiver()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    servers: list[asyncio.Server] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        server = loop.run_until_complete(
            loop.create_server(lambda: SMTP(receiver, hostname="canary-test"), "127.0.0.1", 0))
        servers.append(server)
        receiver.port = server.sockets[0].getsockname()[1]
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield receiver
    finally:
        async def stop() -> None:
            servers[0].close()
            await servers[0].wait_closed()
        asyncio.run_coroutine_threadsafe(stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()

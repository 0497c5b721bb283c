"""The client's HTTP transport: httpx over httpcore, with every byte a request moves counted.

Why our own (thin) transport: the client retries once when the connection died *before the first
response byte*, and that cannot be read off httpx's exceptions (httpcore raises the same
`RemoteProtocolError` or `ReadError` whether nothing arrived or half a status line did). So the
network streams are wrapped (httpcore's AsyncNetworkBackend) and count what the current request
writes and reads; the request's own task does its I/O, so a ContextVar scoped by `watch()` attributes
the bytes right with many requests on one pool. Only application bytes count (TLS happens below the
wrapper). A request through a proxy transport (HTTPS_PROXY) is not watched: never retried, the safe
default. Exceptions are translated to httpx's types, most specific first, as httpx's own transport does.

Bodies are read raw and decoded here, never by httpx, within the caller's cap (docs/openrouter-wire.md
§10, compression).
"""

from __future__ import annotations

import contextlib
import ssl
import zlib
from collections.abc import AsyncIterator, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx


@dataclass(slots=True)
class Wire:
    """What one request moved over its connection (response bytes include the status line)."""

    watched: bool = False   # some I/O of this request went through a counted stream
    sent: int = 0
    received: int = 0


_CURRENT: ContextVar[Wire | None] = ContextVar("canary_wire", default=None)


@contextlib.contextmanager
def watch() -> Iterator[Wire]:
    """Count the bytes the requests of this task move until the block ends."""
    wire = Wire()
    token = _CURRENT.set(wire)
    try:
        yield wire
    finally:
        _CURRENT.reset(token)


class _CountedStream(httpcore.AsyncNetworkStream):
    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        wire = _CURRENT.get()
        if wire is not None:
            wire.watched = True
        data = await self._inner.read(max_bytes, timeout)
        if wire is not None:
            wire.received += len(data)
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        wire = _CURRENT.get()
        if wire is not None:
            wire.watched = True
        await self._inner.write(buffer, timeout)
        if wire is not None:
            wire.sent += len(buffer)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore.AsyncNetworkStream:
        return _CountedStream(await self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _CountingBackend(httpcore.AsyncNetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        return _CountedStream(await self._inner.connect_tcp(host, port, timeout, local_address, socket_options))

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        return _CountedStream(await self._inner.connect_unix_socket(path, timeout, socket_options))

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


# httpcore exception -> httpx exception, most specific first (subclasses before their bases).
_EXCEPTIONS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout), (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout), (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException), (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError), (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError), (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError), (httpcore.ProtocolError, httpx.ProtocolError),
)


@contextlib.contextmanager
def _as_httpx(request: httpx.Request) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        for core, mapped in _EXCEPTIONS:
            if isinstance(exc, core):
                raise mapped(str(exc), request=request) from exc
        raise


class _Body(httpx.AsyncByteStream):
    def __init__(self, stream: Any, request: httpx.Request) -> None:
        self._stream, self._request = stream, request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx(self._request):
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        if hasattr(self._stream, "aclose"):
            with _as_httpx(self._request):
                await self._stream.aclose()


class CountingTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 over a connection pool whose streams count bytes (see `watch`)."""

    def __init__(self, limits: httpx.Limits, *, verify: bool | ssl.SSLContext = True) -> None:
        context = verify if isinstance(verify, ssl.SSLContext) else httpx.create_ssl_context(verify=verify)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=context, max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry, http1=True, http2=False,
            network_backend=_CountingBackend())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.AsyncByteStream)
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=request.url.raw_scheme, host=request.url.raw_host, port=request.url.port,
                             target=request.url.raw_path),
            headers=request.headers.raw, content=request.stream, extensions=request.extensions)
        with _as_httpx(request):
            response = await self._pool.handle_async_request(core)
        return httpx.Response(status_code=response.status, headers=response.headers,
                              stream=_Body(response.stream, request), extensions=response.extensions)

    async def aclose(self) -> None:
        await self._pool.aclose()


IDENTITY = ("", "identity")
# Content-Encoding -> zlib's wbits: gzip's header, or zlib's (deflate as RFC 9110 names it; a raw
# deflate stream without the zlib header is tried when that fails, as httpx and browsers do).
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def is_identity(content_encoding: str | None) -> bool:
    """No encoding at all (a missing header, an empty one, or `identity`)."""
    return (content_encoding or "").strip().lower() in IDENTITY


class Inflater:
    """Decodes one body's Content-Encoding (identity, gzip, deflate) and never more than `limit` bytes.

    zlib's `max_length` stops inflating at the limit, so a bomb costs the limit and the compressed
    bytes read, not what it would decode to. An encoding it cannot decode (br, zstd, a chain such as
    `gzip, gzip`) raises ValueError, as corrupt compressed data does (zlib.error is not one, so it is
    translated).
    """

    def __init__(self, content_encoding: str | None, limit: int) -> None:
        encoding = (content_encoding or "").strip().lower()
        if encoding not in IDENTITY and encoding not in _WBITS:
            raise ValueError(f"Content-Encoding {encoding[:40]!r} is not one the client decodes")
        self._wbits = _WBITS.get(encoding)
        self._zlib = zlib.decompressobj(self._wbits) if self._wbits is not None else None
        self._first = True
        self.left = limit

    def feed(self, data: bytes) -> bytes:
        """The decoded bytes of `data`, at most what is left of the limit."""
        if self.left <= 0:
            return b""
        if self._zlib is None:
            out = data[: self.left]
        else:
            try:
                out = self._zlib.decompress(data, self.left)  # max_length > 0 here (0 would mean unbounded)
            except zlib.error:
                if not (self._first and self._wbits == zlib.MAX_WBITS):
                    raise ValueError("the body's compressed data is corrupt") from None
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # a raw deflate stream, no zlib header
                self._first = False
                return self.feed(data)
        self._first = False
        self.left -= len(out)
        return out

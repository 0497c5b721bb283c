"""The pinned client: one async httpx client for discovery and pinned chat requests.

    async with PinnedClient(resolve_upstream() or Upstream(), overall_concurrency=32,
                            per_provider_concurrency=2, deadline_s=30.0) as client:
        endpoints = await discover(client, "deepseek/deepseek-chat-v3-0324")
        result = await client.chat(endpoints[0], messages, max_tokens=200)

`chat` never raises for anything the network or the upstream does: every outcome comes back as a
ChatResult with a Classification (probes/http/records.py). Why the deadline is our own and counts
from the caps, the one retry before the first byte and the 429s: docs/contracts.md (What every
request shares) and docs/design-notes.md §1.2; reasoning endpoints: docs/contracts.md (Reasoning
models). `Accept-Encoding: identity` on streams: nothing buffers between a byte and our clock.
One HTTP/1.1 pool per endpoint, sized to its per-provider cap: httpcore scans a pool's every
connection for each waiting request, so one pool of 256 cost more CPU than all its streams.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import ssl
import time
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import httpx

from core.errors import UpstreamError
from core.untrusted import clean
from core.upstream import Upstream
from probes.http.exchange import Run
from probes.http.limiter import AdaptiveLimit, Ticket
from probes.http.records import ChatResult, Classification, Endpoint, ErrorKind
from probes.http.sse import SSEError, SSEParser
from probes.http.transport import CountingTransport, Inflater, Wire, is_identity, watch
from probes.http.wire import BodyFields, ReasoningBudget, parse_json, pinned_body, reasoning_request

log = logging.getLogger(__name__)

MAX_ERROR_BODY = 64 * 1024        # error envelopes are small; a huge one is read only this far
MAX_JSON_BODY = 2 * 1024 * 1024   # a non-streamed reply of 64 K characters fits comfortably
SSE_SLICE_BYTES = 16 * 1024       # of a stream fed to the SSE parser in one step (then the loop runs others)
USER_AGENT = "canary-probe/0.1 (+httpx)"
MIN_ATTEMPT_S = 1.0               # a request after a Retry-After wait needs at least this much deadline left


class TransportError(UpstreamError):
    """A GET (discovery) that never produced a response. The message never holds the key."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


class PinnedClient:
    """Async context manager owning the connection pool and the concurrency caps."""

    def __init__(
        self,
        settings: Upstream,
        *,
        overall_concurrency: int = 32,
        per_provider_concurrency: int = 2,
        deadline_s: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        reasoning_budget: ReasoningBudget | None = None,
        adaptive: bool = True,
    ) -> None:
        if overall_concurrency < 1 or per_provider_concurrency < 1 or deadline_s <= 0:
            raise ValueError("concurrency caps must be >= 1 and the deadline > 0")
        self.settings = settings
        self.deadline_s = deadline_s
        self.overall_concurrency = overall_concurrency
        self.per_provider_concurrency = per_provider_concurrency
        self.reasoning_budget = reasoning_budget
        self._transport = transport  # tests of pure parsing only; everything else uses sockets
        self._http: httpx.AsyncClient | None = None    # discovery's and GET /key's
        self._pools: dict[str, httpx.AsyncClient] = {}  # each endpoint tag's chat requests
        self._fresh: httpx.AsyncClient | None = None   # the retry's pool: never reuses a connection
        self._ssl: ssl.SSLContext | None = None
        # Made in __aenter__: asyncio primitives belong to the loop that first waits on them.
        self.adaptive = adaptive
        self._overall = AdaptiveLimit(overall_concurrency, adaptive=adaptive)
        self._per_tag: dict[str, AdaptiveLimit] = {}
        self._key_check: asyncio.Future[bool] | None = None

    def __repr__(self) -> str:
        return (f"PinnedClient({self.settings!r}, overall_concurrency={self.overall_concurrency}, "
                f"per_provider_concurrency={self.per_provider_concurrency}, deadline_s={self.deadline_s}, "
                f"reasoning_budget={self.reasoning_budget!r})")

    async def __aenter__(self) -> PinnedClient:
        self._overall = AdaptiveLimit(self.overall_concurrency, adaptive=self.adaptive)
        self._per_tag = {}
        self._key_check = None
        self._ssl = httpx.create_ssl_context()  # one for every pool: building one reads the CA bundle
        self._pools = {}
        self._http = self._new_http(httpx.Limits(max_connections=self.overall_concurrency))
        self._fresh = self._new_http(httpx.Limits(max_connections=self.overall_concurrency,
                                                  max_keepalive_connections=0))
        return self

    def _pool(self, tag: str) -> httpx.AsyncClient:
        """One endpoint tag's connection pool, as large as its cap (which only comes down): no request waits in it."""
        self._require_http()
        pool = self._pools.get(tag)
        if pool is None:
            pool = self._pools[tag] = self._new_http(httpx.Limits(max_connections=self.per_provider_concurrency))
        return pool

    def _new_http(self, limits: httpx.Limits) -> httpx.AsyncClient:
        # httpx timeouts are only a second line behind our own deadline.
        timeout = httpx.Timeout(self.deadline_s, connect=min(10.0, self.deadline_s))
        transport = self._transport or CountingTransport(limits, verify=self._ssl or True)
        return httpx.AsyncClient(http1=True, http2=False, limits=limits, timeout=timeout,
                                 transport=transport, follow_redirects=False,
                                 # No X-OpenRouter-Title: without HTTP-Referer it attributes nothing
                                 # (docs/openrouter-wire.md §2); probe traffic is told apart by its
                                 # own key and its `user`.
                                 headers={"User-Agent": USER_AGENT})

    async def __aexit__(self, *_exc: object) -> None:
        for http in (self._http, self._fresh, *self._pools.values()):
            if http is not None:
                await http.aclose()
        self._http = self._fresh = None
        self._pools = {}

    def url(self, path: str) -> str:
        return f"{self.settings.base_url}/{path.lstrip('/')}"

    async def get_bytes(self, path: str, *, max_bytes: int = 4 * 1024 * 1024) -> tuple[int, bytes]:
        """GET base_url/path within the deadline: (status, body up to max_bytes) or TransportError."""
        status, body, _ = await self.get(path, max_bytes=max_bytes)
        return status, body

    async def get(self, path: str, *, max_bytes: int = 4 * 1024 * 1024) -> tuple[int, bytes, httpx.Headers]:
        """`get_bytes` with the response headers."""
        http = self._require_http()
        try:
            async with asyncio.timeout(self.deadline_s):
                async with http.stream("GET", self.url(path), headers=self._headers(stream=False)) as resp:
                    return resp.status_code, await read_capped(resp, max_bytes), resp.headers
        except TimeoutError:
            raise TransportError("deadline", f"no complete answer within {self.deadline_s:g} s") from None
        except httpx.HTTPError as exc:
            raise TransportError(type(exc).__name__, self.settings.scrub(str(exc) or "no detail")) from None

    async def chat(self, endpoint: Endpoint, messages: Sequence[Mapping[str, Any]], *, max_tokens: int,
                   stream: bool = True, deadline_s: float | None = None, **asked: Unpack[BodyFields]) -> ChatResult:
        """Send one request pinned to `endpoint.provider` (fallbacks off) and classify what came back.
        `max_tokens` is the answer's budget: a reasoning endpoint gets room to think on top, unless the
        caller passes `reasoning=` itself (after `endpoint.supports("reasoning")`)."""
        if (reasoning := asked.get("reasoning")) is not None:
            cap, fields = max_tokens, {"reasoning": dict(reasoning)}
        else:
            cap, fields = reasoning_request(endpoint, self.reasoning_budget, max_tokens)
        asked["reasoning"] = fields  # this call's own copy of the keywords
        body = pinned_body(endpoint, messages, max_tokens=cap, stream=stream, **asked)
        deadline = deadline_s or self.deadline_s
        thinking = bool(fields)
        # The cap is judged (judge/replies/limits.py) only where the endpoint lists it: otherwise the
        # request is not pinned with require_parameters and the host may never have seen it.
        cap_sent = cap if endpoint.supports("max_tokens") or endpoint.supports("max_completion_tokens") else None
        per_tag = self._per_tag.get(endpoint.provider)
        if per_tag is None:
            per_tag = self._per_tag[endpoint.provider] = AdaptiveLimit(self.per_provider_concurrency,
                                                                       adaptive=self.adaptive)
        waited: float | None = None
        earlier = 0   # requests of an attempt answered 429 before the one waited for
        # Provider slot first: a request waiting for its provider does not hold a global slot.
        async with per_tag.slot() as tag_ticket:
            budget = deadline
            while True:
                async with self._overall.slot() as ticket:
                    start = time.monotonic()
                    run = await self._attempt(endpoint, body, budget, stream=stream, thinking=thinking,
                                              tickets=(ticket, tag_ticket), cap_sent=cap_sent)
                    spent = time.monotonic() - start
                self._observe(run, per_tag)
                pause = run.retry_after_s if run.status == 429 else None
                # One wait, as Retry-After asks, and only when the request still fits the deadline
                # after it; the wait holds no global slot (docs/openrouter-wire.md §5).
                if waited is None and pause is not None and pause + MIN_ATTEMPT_S <= budget - spent:
                    await asyncio.sleep(pause)
                    waited, earlier, budget = pause, run.requests, budget - spent - pause
                    continue
                break
        result = run.result(waited_s=waited, earlier_requests=earlier)
        if result.error_kind is ErrorKind.AUTH and await self._key_is_good():
            # A 401/402/403 naming no provider, while OpenRouter says our key is good and its limit not
            # spent: the endpoint's, not ours (docs/openrouter-wire.md §5, "when in doubt, ask": GET
            # /key). A bare 402 then refused this one request: its max_tokens at this endpoint's price
            # may cost more than the key has left, so the key's limit is near (KEY_LIMIT).
            kind, why = ((ErrorKind.KEY_LIMIT, "this request may cost more than the key has left")
                         if result.http_status == 402 else (ErrorKind.PROVIDER_DENIED, "our key is good"))
            result = dataclasses.replace(result, classification=Classification.TRANSPORT_ERROR, error_kind=kind,
                                         error_message=f"{result.error_message} (GET /key answers 200: {why})")
        log.debug("chat %s: %s %s ttft=%s requests=%d", endpoint.provider, result.classification, result.error_kind,
                  result.ttft_s, result.requests)
        return result

    async def _attempt(self, endpoint: Endpoint, body: dict[str, Any], deadline: float, *, stream: bool,
                       thinking: bool, tickets: Sequence[Ticket] = (), cap_sent: int | None = None) -> Run:
        """One request, and its one retry on a fresh connection when it was lost before any byte."""
        start = time.monotonic()
        run = Run(endpoint, stream=stream, t0=start, reasoning_requested=thinking, max_tokens=cap_sent,
                  mask=self.settings.mask)
        lost = await self._exchange(run, body, deadline, self._pool(endpoint.provider), tickets)
        left = deadline - (time.monotonic() - start)
        if lost is not None and left > 0 and self._fresh is not None:
            # Timings restart with the request that could be answered: the lost one never
            # reached a generation, so its milliseconds say nothing about the host.
            run = Run(endpoint, stream=stream, t0=time.monotonic(), retried_after=lost,
                      reasoning_requested=thinking, max_tokens=cap_sent, mask=self.settings.mask)
            await self._exchange(run, body, left, self._fresh, tickets)
        return run

    async def _key_is_good(self) -> bool:
        """Does OpenRouter accept our key (`GET /key` answers 200) with some of its limit left? Asked
        once per client (one round's), however many requests are refused."""
        if self._key_check is None:
            self._key_check = asyncio.ensure_future(self._ask_key())
        return await asyncio.shield(self._key_check)

    async def _ask_key(self) -> bool:
        try:
            status, body = await self.get_bytes("key", max_bytes=64 * 1024)
        except TransportError:
            return False  # no answer: keep the refusal as our key's (the round stops, blaming no host)
        return status == 200 and not limit_spent(parse_json(body))

    def _observe(self, run: Run, per_tag: AdaptiveLimit) -> None:
        """Tell the adaptive caps what came back: a 429 lowers its endpoint's cap when a provider's, else the
        round's; an answer lets both recover (docs/openrouter-wire.md §5)."""
        if run.status == 429:
            (per_tag if run.error_provider else self._overall).rate_limited()
        elif run.status is not None:
            self._overall.succeeded()
            per_tag.succeeded()

    async def _exchange(self, run: Run, body: dict[str, Any], deadline_s: float,
                        http: httpx.AsyncClient, tickets: Sequence[Ticket] = ()) -> str | None:
        """Send once and feed `run`; the failure's description when it came before any response byte."""
        with watch() as wire:
            try:
                async with asyncio.timeout(deadline_s):
                    # Every chat request asks for OpenRouter's router metadata: who was attempted, what
                    # its pipeline did (docs/openrouter-wire.md §6).
                    request = http.build_request("POST", self.url("chat/completions"), json=body,
                                                 headers={**self._headers(stream=run.stream),
                                                          "X-OpenRouter-Metadata": "enabled"})
                    response = await http.send(request, stream=True)
                    if response.status_code == 200:
                        for ticket in tickets:
                            ticket.accept()  # the upstream took it: what the adaptive caps count on a 429
                    try:
                        await self._read(run, response)
                    finally:
                        await response.aclose()
            except TimeoutError:
                run.timed_out(deadline_s)
            except httpx.TimeoutException as exc:  # httpx's own (per-read/connect) timeouts
                run.transport_exception(exc, timeout=True)
            except httpx.HTTPError as exc:
                run.transport_exception(exc, timeout=False)
                if lost_before_first_byte(exc, wire):
                    return self.settings.scrub(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
            except SSEError as exc:
                run.malformed(str(exc))
        return None

    async def _read(self, run: Run, response: httpx.Response) -> None:
        run.got_headers(response.status_code, response.headers)
        if response.status_code != 200:
            run.http_error(response.status_code, await read_capped(response, MAX_ERROR_BODY))
            return
        if not (run.stream and "text/event-stream" in response.headers.get("content-type", "")):
            # Non-streamed, or a stream request answered with a JSON body (an error before the
            # first event can come back like that with a 200).
            run.json_body(await read_capped(response, MAX_JSON_BODY))
            return
        encoding = response.headers.get("content-encoding")
        if not is_identity(encoding):
            # Asked for identity: a compressed stream is malformed (docs/openrouter-wire.md §10, compression).
            run.malformed(f"the stream came with Content-Encoding {clean(encoding, 40)!r} (identity was asked)")
            return
        parser = SSEParser()
        unyielded = 0   # bytes parsed since the event loop last ran the others
        async for data in response.aiter_raw():
            for start in range(0, len(data), SSE_SLICE_BYTES):
                # Bounded steps, yielding every slice, not every read (docs/openrouter-wire.md §10, slices).
                piece = data[start:start + SSE_SLICE_BYTES]
                for item in parser.feed(piece):
                    if not run.state.feed(item, run.elapsed()):
                        return
                unyielded += len(piece)
                if unyielded >= SSE_SLICE_BYTES:
                    unyielded = 0
                    await asyncio.sleep(0)
        # A complete event still waiting for its blank line counts; a line cut in the middle
        # does not (the stream then ends without [DONE] and is judged a cut by Run).
        for item in parser.close():
            if not run.state.feed(item, run.elapsed()):
                return

    def _headers(self, *, stream: bool) -> dict[str, str]:
        headers = {"Accept": "text/event-stream" if stream else "application/json"}
        # Streams uncompressed; JSON bodies in the two encodings read_capped decodes within its cap.
        headers["Accept-Encoding"] = "identity" if stream else "gzip, deflate"
        headers.update(self.settings.auth_headers())
        return headers

    def _require_http(self) -> httpx.AsyncClient:
        if self._http is None:
            raise RuntimeError("use PinnedClient as `async with PinnedClient(...) as client`")
        return self._http


def limit_spent(body: Any) -> bool:
    """GET /key's `data.limit_remaining` (USD left of the key's limit; null without one) is 0 or less."""
    data = body.get("data") if isinstance(body, dict) else None
    left = data.get("limit_remaining") if isinstance(data, dict) else None
    return isinstance(left, (int, float)) and not isinstance(left, bool) and left <= 0


def lost_before_first_byte(exc: httpx.HTTPError, wire: Wire) -> bool:
    """Did the connection fail before the host sent a single byte of its answer? A reset, an EOF or a
    failed write counts only when no response byte came (a partial status line is the host answering);
    a timeout never does: a silent host is the `hang` the canary reports, not a dead socket."""
    if isinstance(exc, httpx.ConnectError):
        return True
    if isinstance(exc, (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)):
        return wire.watched and wire.received == 0
    return False


async def read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    """Read a body up to max_bytes, decoded, and stop: an endless, huge or compressed-huge body
    (a gzip bomb) must not fill memory. One that cannot be decoded reads as empty (so: not JSON)."""
    try:
        inflater = Inflater(response.headers.get("content-encoding"), max_bytes)
        buf = bytearray()
        async for data in response.aiter_raw():
            buf += inflater.feed(data)
            if inflater.left <= 0:
                break
    except ValueError:
        return b""
    return bytes(buf)

"""One pinned request in flight: collects what happened and turns it into a ChatResult.

The client reports events (headers, an error status, a body, a timeout, an exception); the stream
goes through StreamState. `result()` applies the precedence once, in one place (what each error
shape becomes: docs/contracts.md, What each error shape becomes):

1. AUTH_ERROR (our key) beats everything: nothing else about the round can be trusted.
2. A served-by name, service tier or router attempt other than the pinned one -> ROUTING_MISMATCH,
   whatever else happened: the pin did not hold, so the reply says nothing about the pinned host.
3. An error status, a JSON error in a 200 body, an `error` in the stream, a malformed stream.
4. Timeouts and dropped connections -- unless a finish reason had already arrived: then the
   generation was complete and only the trailer ([DONE], usage) was lost, so it is COMPLETED.
5. A stream that ended without [DONE] and without a finish reason was cut (stream_cut).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import httpx

from core.field_rules import MAX_BILL_USD
from core.key_mask import KeyMask
from core.untrusted import clean
from probes.http.errors import ErrorFacts, facts_of_body
from probes.http.records import ChatResult, Classification, Endpoint, ErrorKind, RouterMetadata, Usage
from probes.http.stream import MAX_TOOL_CALLS, StreamState
from probes.http.wire import (
    classify_status,
    completion_fields,
    error_of,
    flagged_categories,
    parse_json,
    provider_matches,
    router_mismatch,
    tier_mismatch,
)

Outcome = tuple[Classification, ErrorKind | None, str | None]
# An error message is one printable line (core/untrusted.py clean): a host's may carry terminal escapes
# and bidi overrides. Bounded far above any real message.
ERROR_MESSAGE_CHARS = 2000


MAX_RETRY_AFTER_S = 600.0  # a bigger ask is no use inside one round's deadline


def retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (delta-seconds; an HTTP date is not worth parsing for a probe)."""
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return min(seconds, MAX_RETRY_AFTER_S) if seconds is not None and seconds >= 0 else None


def filter_flags(facts: ErrorFacts) -> tuple[str, ...]:
    """What a filter error names: its typed code, or the label of a relayed refusal (both a fixed
    vocabulary, so safe to show; the refusal's own words are never shown)."""
    label = facts.error_type if facts.filter else facts.relayed_refusal
    return (label,) if label else ()


class Run:
    """Mutable collector for one request; the client feeds it, `result()` freezes it."""

    def __init__(self, endpoint: Endpoint, *, stream: bool, t0: float, retried_after: str | None = None,
                 reasoning_requested: bool = False, max_tokens: int | None = None,
                 mask: KeyMask | None = None) -> None:
        # The key is masked where upstream text is decoded, before any cut (docs/developing.md).
        self.mask = mask if mask is not None else KeyMask(None)
        self.endpoint = endpoint
        self.max_tokens = max_tokens
        self.reasoning_requested = reasoning_requested
        self.stream = stream
        self.t0 = t0
        self.retried_after = retried_after        # a first request lost before any response byte
        self.state = StreamState(mask=self.mask)
        self.status: int | None = None
        self.headers_at: float | None = None
        self.header_provider: str | None = None
        self.header_generation_id: str | None = None
        self.error_provider: str | None = None
        self.rejected_call: str | None = None      # a status's or a 200 body's `tool_use_failed` generation
        self.flagged: tuple[str, ...] = ()         # moderation categories of a MODERATED answer
        self.body: dict[str, Any] | None = None   # fields of a non-streamed 200 reply
        self.fixed: Outcome | None = None         # decided by a status or a body; final
        self.failure: Outcome | None = None       # a timeout or exception; may be forgiven (rule 4)
        self.retry_after_s: float | None = None   # Retry-After of the answer, in seconds
        self.router: RouterMetadata | None = None  # a body's or an error envelope's `openrouter_metadata`

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def got_headers(self, status: int, headers: httpx.Headers) -> None:
        self.status, self.headers_at = status, self.elapsed()
        self.header_provider = self.mask(headers.get("x-provider-name") or "") or None
        self.header_generation_id = self.mask(headers.get("x-generation-id") or "") or None
        self.retry_after_s = retry_after(headers.get("retry-after"))
        if status != 200:  # provisional: refined by http_error once the body is read
            cls, kind = classify_status(status, {})
            self.fixed = (cls, kind, f"HTTP {status}")

    def decoded(self, raw: bytes) -> Any:
        """A body as JSON (None when it is not), every string in it masked; its router metadata kept
        (a reply's, or an error envelope's beside `error`: docs/openrouter-wire.md §6)."""
        body = self.mask.json(parse_json(raw))
        self.router = RouterMetadata.from_wire(body.get("openrouter_metadata")) if isinstance(body, dict) else None
        return body

    def http_error(self, status: int, raw: bytes) -> None:
        body = self.decoded(raw)
        message, metadata = error_of(body)
        facts = facts_of_body(body)
        cls, kind = classify_status(status, metadata, facts)
        self.error_provider, self.rejected_call = facts.provider, facts.rejected_call
        if kind is ErrorKind.MODERATION:
            self.flagged = flagged_categories(metadata)
        elif kind is ErrorKind.FILTER_ERROR:
            self.flagged = filter_flags(facts)
        guard = self.router.guardrail if self.router is not None and not self.router.attempts else None
        if status == 403 and guard is not None:
            # OpenRouter's guardrail blocked our request before any provider: our account's filter,
            # never the host's moderation nor our key; it freezes.
            cls, kind = Classification.TRANSPORT_ERROR, ErrorKind.GUARDRAIL_BLOCKED
            message = f"OpenRouter's guardrail {ascii(guard)} blocked the request before any provider: {message}"
        self.fixed = (cls, kind, f"HTTP {status}: {message}")

    def json_body(self, raw: bytes) -> None:
        body = self.decoded(raw)
        fields = completion_fields(body)
        if isinstance(fields, dict):
            self.body = fields
        elif body is None:
            self.fixed = (Classification.TRANSPORT_ERROR, ErrorKind.MALFORMED_STREAM, "the 200 body is not JSON")
        else:
            facts = facts_of_body(body)
            self.error_provider, self.rejected_call = facts.provider, facts.rejected_call
            if facts.filter:
                self.flagged = filter_flags(facts)
                self.fixed = (Classification.MODERATED, ErrorKind.FILTER_ERROR, f"HTTP 200 carrying an error: {fields}")
            else:
                self.fixed = (Classification.TRANSPORT_ERROR, ErrorKind.ERROR_BODY_200,
                              f"HTTP 200 carrying an error: {fields}")

    def timed_out(self, deadline_s: float) -> None:
        if self.headers_at is None:
            self._fail(ErrorKind.NO_HEADERS, f"no response header within the {deadline_s:g} s deadline")
        else:
            self._fail(ErrorKind.DEADLINE, f"deadline of {deadline_s:g} s passed after "
                       f"{self.state.chunks} chunks and {self.state.keepalives} keep-alives")

    def transport_exception(self, exc: httpx.HTTPError, *, timeout: bool) -> None:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if isinstance(exc, (httpx.ConnectTimeout, httpx.PoolTimeout)):
            self._fail(ErrorKind.CONNECT_TIMEOUT, detail)
        elif isinstance(exc, httpx.ConnectError):
            self._fail(ErrorKind.CONNECT_ERROR, detail)
        elif self.headers_at is None:
            self._fail(ErrorKind.NO_HEADERS if timeout else ErrorKind.READ_ERROR, detail)
        else:
            self._fail(ErrorKind.DEADLINE if timeout else ErrorKind.STREAM_CUT, detail)

    def malformed(self, message: str) -> None:
        self.state.malformed = message

    def _fail(self, kind: ErrorKind, message: str) -> None:
        if self.failure is None:
            self.failure = (Classification.TRANSPORT_ERROR, kind, message)

    def _outcome(self) -> Outcome:
        s = self.state
        if self.fixed is not None:
            return self.fixed
        if s.error_message is not None:
            facts = s.error_facts or ErrorFacts()
            if self.finished_on_length():
                # §3: a trailing token-limit error after the reply is the reply finishing on `length`.
                return Classification.COMPLETED, None, f"finished (length), then {s.error_message}"
            if facts.filter:
                self.flagged = filter_flags(facts)
                return Classification.MODERATED, ErrorKind.FILTER_ERROR, s.error_message
            return Classification.TRANSPORT_ERROR, ErrorKind.MID_STREAM_ERROR, s.error_message
        if s.malformed is not None:
            return Classification.TRANSPORT_ERROR, ErrorKind.MALFORMED_STREAM, s.malformed
        if self.failure is not None:
            cls, kind, message = self.failure
            if self.stream and s.finish_reason is not None and kind in (ErrorKind.DEADLINE, ErrorKind.STREAM_CUT):
                return Classification.COMPLETED, None, f"finished ({s.finish_reason}), then {message}"
            return self.failure
        if self.stream and not s.done and s.finish_reason is None:
            return (Classification.TRANSPORT_ERROR, ErrorKind.STREAM_CUT,
                    f"stream ended without [DONE] and without a finish reason after {s.chunks} chunks")
        return Classification.COMPLETED, None, None

    def finished_on_length(self) -> bool:
        """A token-limit error after content or after a `length` finish (the recorded real shape)."""
        s = self.state
        facts = s.error_facts
        return (facts is not None and facts.token_limit and s.malformed is None
                and (bool(s.text) or s.finish_before_error == "length"))

    def served(self) -> list[str]:
        """The names the reply gives its server. X-Provider-Name counts only when the body names
        none: its value is undocumented (docs/openrouter-wire.md §6), so it never outvotes the body."""
        names = list(self.state.providers)
        for name in (self.body or {}).get("served_by"), self.error_provider:
            if name and name not in names:
                names.append(name)
        if not names and self.header_provider:
            names.append(self.header_provider)
        return names

    def notes(self, served: list[str]) -> tuple[str, ...]:
        """Disagreements recorded, not judged: a header naming someone the body does not."""
        header = self.header_provider
        if header is None or header in served or provider_matches(self.endpoint, header):
            return ()
        return (f"X-Provider-Name {clean(header, 60)!r} disagrees with the body's {clean(served[0], 60)!r}",)

    def served_tier(self) -> str | None:
        tier = (self.body or {}).get("service_tier") or self.state.service_tier
        return clean(tier, 20) if isinstance(tier, str) else None

    @property
    def requests(self) -> int:
        return 1 if self.retried_after is None else 2

    def _pin_checked(self, served: list[str], tier: str | None, router: RouterMetadata | None,
                     waited_s: float | None) -> tuple[Outcome, list[str]]:
        """The outcome, a routing mismatch when a stranger served, the router says the pin did not hold or
        the tier is not the pinned one (an auth error stays one); and the strangers that served."""
        cls, kind, message = self._outcome()
        strangers = [n for n in served if not provider_matches(self.endpoint, n)]
        said = router_mismatch(self.endpoint, router)
        if (strangers or said) and cls is not Classification.AUTH_ERROR:
            note = f"; besides: {message}" if message and cls is not Classification.COMPLETED else ""
            cls, kind = Classification.ROUTING_MISMATCH, ErrorKind.ROUTING
            named = (f"served by {strangers[0]!r} while pinned to {self.endpoint.provider} "
                     f"({self.endpoint.provider_name})") if strangers else None
            message = "; ".join(m for m in (named, said) if m) + note
            if not strangers and router is not None:   # the chunks name the pinned host; the metadata says who served
                strangers = [p for p, _ in router.attempts if not provider_matches(self.endpoint, p)][-1:]
        elif tier_mismatch(self.endpoint, tier) and cls is not Classification.AUTH_ERROR:
            cls, kind = Classification.ROUTING_MISMATCH, ErrorKind.ROUTING
            message = (f"served at the {tier!r} service tier while pinned to the {self.endpoint.service_tier!r} "
                       f"tier endpoint {self.endpoint.provider}")
        if message is not None and self.retried_after is not None:
            message = f"{message} (the request was retried once on a fresh connection after: {self.retried_after})"
        if message is not None and waited_s is not None:
            message = f"{message} (sent again after an HTTP 429 and the {waited_s:g} s its Retry-After asked)"
        return (cls, kind, message), strangers

    def result(self, *, waited_s: float | None = None, earlier_requests: int = 0) -> ChatResult:
        """The frozen result, the key masked in every upstream string it keeps, joined values included
        (docs/developing.md); `waited_s`: a 429 came first, and Retry-After was waited once."""
        scrub = self.mask
        served, tier, router = self.served(), self.served_tier(), self.router or self.state.router
        (cls, kind, message), strangers = self._pin_checked(served, tier, router, waited_s)
        s, b = self.state, self.body or {}
        usage: Usage | None = b.get("usage", s.usage)
        # The call a host rejected itself (`tool_use_failed`): only the tools contract judges it, and
        # only when the pin held (a transport error; a stranger's rejection says nothing of this host).
        rejected = self.rejected_call if self.rejected_call is not None else (
            s.error_facts.rejected_call if s.error_facts is not None else None)

        def kept(value: str | None) -> str | None:
            return scrub(value) if value is not None else None

        return ChatResult(
            provider=self.endpoint.provider,
            classification=cls,
            text=scrub(b.get("text", s.text)),
            reasoning_text=scrub(b.get("reasoning_text", s.reasoning_text)),
            reasoning_seen=b.get("reasoning_seen", s.reasoning_seen),
            finish_reason="length" if self.finished_on_length() else kept(b.get("finish_reason", s.finish_reason)),
            native_finish_reason=kept(b.get("native_finish_reason", s.native_finish_reason)),
            usage=usage,
            served_by=kept(next(iter(strangers or served), None)),
            served_model=kept(b.get("served_model", s.served_model)),
            generation_id=kept(b.get("generation_id") or s.generation_id or self.header_generation_id),
            http_status=self.status,
            headers_s=self.headers_at,
            ttft_s=s.ttft_s if self.stream else None,
            first_event_s=s.first_event_s,
            generated_s=(s.finish_s if s.finish_s is not None else s.last_content_s) if self.stream else None,
            total_s=self.elapsed(),
            error_kind=kind,
            error_message=clean(scrub(message), ERROR_MESSAGE_CHARS) if message is not None else None,
            keepalives=s.keepalives,
            chunks=s.chunks,
            truncated_by_client=s.truncated,
            flagged=tuple(scrub(f) for f in self.flagged) if cls is Classification.MODERATED else (),
            reasoning_requested=self.reasoning_requested,
            requests=self.requests + earlier_requests,
            waited_s=waited_s,
            retried_after=kept(self.retried_after),
            max_tokens_sent=self.max_tokens,
            deltas=scrub.parts(s.text_parts) if self.stream else (),
            service_tier=kept(tier),
            notes=(*(tuple(scrub(n) for n in self.notes(served)) if served else ()), *bound_notes(usage, s)),
            rejected_call=kept(rejected) if cls is Classification.TRANSPORT_ERROR else None,
            router=router,
            tool_calls=tuple(dataclasses.replace(c, id=kept(c.id), name_parts=scrub.parts(c.name_parts),
                                                 arguments=scrub(c.arguments))
                             for c in b.get("tool_calls", s.tool_calls)),
        )


def bound_notes(usage: Usage | None, state: StreamState) -> tuple[str, ...]:
    """What the reply sent past a bound, left out (our words and figures only: nothing to scrub)."""
    notes = []
    if usage is not None and usage.cost_refused is not None:
        notes.append(f"usage.cost {usage.cost_refused} is no real bill (above ${MAX_BILL_USD:g}): left out")
    if state.calls_dropped:
        notes.append(f"{state.calls_dropped} tool-call fragments past the first {MAX_TOOL_CALLS} calls were not kept")
    return tuple(notes)

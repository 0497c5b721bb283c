"""Typed records the pinned client hands to the rest of the probe layer.

Endpoint   one routable endpoint of a model, as discovery found it (its `tag` is the pin).
Usage      token counts and cost of one request, when the upstream reported them.
RouterMetadata what OpenRouter's router metadata said of one request (its attempts and pipeline).
ChatResult everything one pinned request produced: text, timings, who served it, and a
           Classification that tells a contract whether there is anything to judge.

Classification is deliberately coarse: only COMPLETED carries a generation a contract may judge;
MODERATED is the host's policy refusing our prompt, which only the refusal contract judges;
TRANSPORT_ERROR freezes a host's streak; ROUTING_MISMATCH means the pin did not hold; AUTH_ERROR is
about *our* key, so the round stops instead of blaming a host. ErrorKind says which non-completion.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeGuard

from core.field_rules import MAX_BILL_USD, MAX_COUNT, short_figure
from core.results import KEY_LIMIT as KEY_LIMIT_CODE


class Classification(StrEnum):
    """What a pinned request amounted to; the string values go into reports."""

    COMPLETED = "completed"
    MODERATED = "moderated"
    TRANSPORT_ERROR = "transport_error"
    ROUTING_MISMATCH = "routing_mismatch"
    AUTH_ERROR = "auth_error"


class ErrorKind(StrEnum):
    """Why a request was not COMPLETED (None on a ChatResult that completed)."""

    CONNECT_ERROR = "connect_error"          # refused, DNS, TLS: never reached the server
    CONNECT_TIMEOUT = "connect_timeout"
    READ_ERROR = "read_error"                # connection dropped before any response header
    NO_HEADERS = "no_headers"                # deadline passed before a response header: never started
    DEADLINE = "deadline"                    # deadline passed after the headers (slow or stalled stream)
    HTTP_408 = "http_408"
    HTTP_429 = "http_429"
    HTTP_5XX = "http_5xx"
    HTTP_4XX = "http_4xx"                    # other 4xx for the pinned endpoint (404 "no allowed providers", 400…)
    HTTP_OTHER = "http_other"                # any other non-200 status (3xx: redirects are not followed)
    MODERATION = "moderation"                # 403 with moderation metadata: the host's input filter (MODERATED)
    FILTER_ERROR = "filter_error"            # a typed content_policy_violation / refusal error, or a provider's
    #                                          refusal relayed as its 403 (MODERATED)
    AUTH = "auth"                            # 401/402/403 about our key or credits
    PROVIDER_DENIED = "provider_denied"      # 401/402/403 naming a provider or an availability code: that endpoint's
    KEY_LIMIT = KEY_LIMIT_CODE               # a bare 402 while GET /key accepts our key: this request may cost more
    #                                          than the key has left (the key's limit is near), that endpoint's
    STREAM_CUT = "stream_cut"                # stream ended before [DONE] without a finish reason
    MID_STREAM_ERROR = "mid_stream_error"    # an `error` object (or finish_reason "error") inside the stream
    MALFORMED_STREAM = "malformed_stream"    # a data event that is not a JSON object / not UTF-8 / endless line
    ERROR_BODY_200 = "error_body_200"        # HTTP 200 whose JSON body is an error
    ROUTING = "routing"                      # served by another provider than the pinned one (or after it)
    GUARDRAIL_BLOCKED = "guardrail_blocked"  # a 403 from OpenRouter's guardrail, before any provider: ours


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One provider endpoint of a model. Prices are USD per token (parsed from decimal strings)."""

    model: str
    provider: str
    provider_name: str
    quantization: str | None
    supported_parameters: tuple[str, ...]
    prompt_price: float
    completion_price: float
    context_length: int | None
    max_completion_tokens: int | None
    status: int
    service_tier: str | None = None   # the listing's tier of a tier endpoint (`priority`, `flex`); None: default
    siblings: tuple[str, ...] = ()    # a bare tag's other endpoints of the same provider (`deepinfra/turbo`)
    # The model's thinking when a request says nothing (the models API's `reasoning`):
    # True on by default, False off by default (a hybrid model), None not said.
    thinks_by_default: bool | None = None
    thinking_mandatory: bool = False
    # `throughput_last_30m` (output tokens/s on the endpoint's traffic): its p50 and slowest listed
    # percentile (the minimum, whatever the order); None when the listing has none (too little traffic).
    throughput_p50: float | None = None
    throughput_slowest: float | None = None
    # The rest of the listing's pricing (judge/replies/billing.py; None: not listed), `overrides` at their highest.
    request_price: float = 0.0
    prompt_price_high: float | None = None       # set only when an override charges more than prompt_price
    completion_price_high: float | None = None   # likewise for completion_price
    cache_read_price: float | None = None
    cache_write_price: float | None = None
    reasoning_price: float | None = None
    web_search_price: float | None = None

    def supports(self, param: str) -> bool:
        """True when the endpoint lists `param` (require_parameters:true would reject it otherwise)."""
        return param in self.supported_parameters

    @property
    def base_slug(self) -> str:
        """The provider part of the tag (`deepinfra` for `deepinfra/fp8`)."""
        return self.provider.split("/", 1)[0]

    @property
    def is_tier(self) -> bool:
        """A service-tier endpoint (`openai/priority`): a base slug never matches it."""
        return (self.service_tier or "default") != "default"


@dataclass(frozen=True, slots=True)
class Usage:
    """Usage as the upstream reported it; cost_usd is None when it sent no `cost`."""

    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    reasoning_tokens: int = 0   # completion_tokens_details.reasoning_tokens (0 when not reported)
    cached_tokens: int = 0      # prompt_tokens_details.cached_tokens (counted inside prompt_tokens)
    cache_write_tokens: int = 0  # prompt_tokens_details.cache_write_tokens (inside prompt_tokens)
    web_searches: int = 0       # server_tool_use_details.web_search_requests
    cost_refused: str | None = None  # a `cost` no real reply has (above MAX_BILL_USD, infinite): shown, not kept

    @classmethod
    def from_wire(cls, raw: object) -> Usage | None:
        """Parse a `usage` object; anything malformed yields None rather than a wrong number."""
        if not isinstance(raw, dict):
            return None
        prompt, completion, cost = raw.get("prompt_tokens"), raw.get("completion_tokens"), raw.get("cost")
        if not _is_count(prompt) or not _is_count(completion):
            return None
        # Compared before any float(): a 400-digit integer cost would raise OverflowError there.
        number = cost if _is_number(cost) else None
        real = number is not None and 0 <= number <= MAX_BILL_USD
        return cls(prompt_tokens=int(prompt), completion_tokens=int(completion),
                   cost_usd=float(number) if real and number is not None else None,
                   cost_refused=short_figure(number) if number is not None and not real and not number < 0 else None,
                   reasoning_tokens=_detail(raw, "completion_tokens_details", "reasoning_tokens"),
                   cached_tokens=_detail(raw, "prompt_tokens_details", "cached_tokens"),
                   cache_write_tokens=_detail(raw, "prompt_tokens_details", "cache_write_tokens"),
                   web_searches=_detail(raw, "server_tool_use_details", "web_search_requests"))


def _detail(raw: dict[object, object], group: str, key: str) -> int:
    """A count inside one of usage's detail objects; 0 when absent or not a positive integer."""
    details = raw.get(group)
    value = details.get(key) if isinstance(details, dict) else None
    return value if type(value) is int and 0 < value <= MAX_COUNT else 0


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_count(value: object) -> TypeGuard[int | float]:
    """A token count: a whole number from 0 to MAX_COUNT (compared first: float() of a huge int overflows)."""
    return _is_number(value) and 0 <= value <= MAX_COUNT and float(value) == int(value)


ROUTER_NAME_CHARS = 60    # a provider or stage name kept from the router metadata (upstream text)
ROUTER_ITEMS = 16         # attempts and pipeline stages read from one metadata object


@dataclass(frozen=True, slots=True)
class RouterMetadata:
    """What OpenRouter's `openrouter_metadata` said (docs/openrouter-wire.md §6), read permissively: what is
    not as documented is not said (None, ()). Names are upstream text: masked where decoded, cut here."""

    attempts: tuple[tuple[str, int | None], ...] = ()   # (provider, status) of each attempt listed
    attempt: int | None = None        # the attempt that answered, 1-indexed (0: no provider reached)
    healed: bool = False              # a `response_healing` stage ran: OpenRouter repaired the reply's JSON
    healing_improved: bool | None = None  # whether that stage says it improved the reply (None: not said)
    guardrail: str | None = None      # the name of a `guardrail` stage that flagged or blocked the request

    @classmethod
    def from_wire(cls, raw: object) -> RouterMetadata | None:
        if not isinstance(raw, dict):
            return None
        listed, piped, number = raw.get("attempts"), raw.get("pipeline"), raw.get("attempt")
        attempts = tuple((a["provider"][:ROUTER_NAME_CHARS], a.get("status") if type(a.get("status")) is int else None)
                         for a in (listed[:ROUTER_ITEMS] if isinstance(listed, list) else [])
                         if isinstance(a, dict) and isinstance(a.get("provider"), str))
        stages = [s for s in (piped[:ROUTER_ITEMS] if isinstance(piped, list) else []) if isinstance(s, dict)]
        healing = next((s for s in stages if s.get("type") == "response_healing"), None)
        improved = _stage_data(healing).get("improved") if healing is not None else None
        guard = next((s for s in stages if s.get("type") == "guardrail" and _flagged(s)), None)
        name = guard.get("name") if guard is not None else None
        return cls(attempts=attempts, attempt=number if type(number) is int and 0 <= number <= MAX_COUNT else None,
                   healed=healing is not None, healing_improved=improved if isinstance(improved, bool) else None,
                   guardrail=None if guard is None else name[:ROUTER_NAME_CHARS] if isinstance(name, str) and name
                   else "guardrail")


def _stage_data(stage: dict[str, Any]) -> dict[str, Any]:
    data = stage.get("data")
    return data if isinstance(data, dict) else {}


def _flagged(stage: dict[str, Any]) -> bool:
    """A guardrail stage that flagged (`flagged: true`) or blocked (`action: blocked`) the request."""
    data = _stage_data(stage)
    return stage.get("flagged") is True or data.get("flagged") is True or data.get("action") == "blocked"


@dataclass(frozen=True, slots=True)
class StreamedToolCall:
    """One tool call of a reply as the wire assembled it, by its `index`, nothing repaired: `arguments`
    every argument fragment joined (streamed twice: `{...}{...}`), `name_parts` every non-empty name fragment."""

    index: int
    id: str | None
    name_parts: tuple[str, ...]
    arguments: str
    fragments: int   # argument fragments received


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatResult:
    """One pinned request, whatever happened. Text received before an error is kept.

    Timings are seconds from just before the request was sent (after the concurrency caps
    let it through, so queueing in our own client never counts against a host):
    headers_s     response headers arrived (OpenRouter commits them early: not a latency signal alone);
    ttft_s        first non-empty *content* delta (None without content, and for non-streamed requests);
    first_event_s first `data:` event of any kind (keep-alive comments do not count);
    generated_s   the generation's end: the first chunk with a finish reason, else the last content
                  delta (None without either, and for non-streamed requests); the usage chunk and
                  `[DONE]` may come later (judge/replies/decode_speed.py);
    total_s       until the stream ended, failed, or the deadline cut it.
    """

    provider: str
    classification: Classification
    text: str = ""
    reasoning_text: str = ""
    reasoning_seen: bool = False        # reasoning arrived in any form, even without readable text
    reasoning_requested: bool = False   # we sent reasoning controls (thinking may be excluded from the reply)
    finish_reason: str | None = None
    native_finish_reason: str | None = None
    usage: Usage | None = None
    served_by: str | None = None
    served_model: str | None = None
    generation_id: str | None = None
    http_status: int | None = None
    headers_s: float | None = None
    ttft_s: float | None = None
    first_event_s: float | None = None
    generated_s: float | None = None
    total_s: float = 0.0
    error_kind: ErrorKind | None = None
    error_message: str | None = None
    keepalives: int = 0
    chunks: int = 0
    truncated_by_client: bool = False   # we stopped reading at the size cap; finish_reason is "length"
    flagged: tuple[str, ...] = ()       # MODERATED: the categories the moderation named (cleaned upstream text)
    requests: int = 1                   # 2 when the first was lost before any response byte and retried
    retried_after: str | None = None    # why the first request was lost (timings are the retry's)
    max_tokens_sent: int | None = None  # the cap sent (thinking room included); None: the endpoint lists none
    # The non-empty content deltas of a stream, in order, scrubbed like every upstream string the
    # result keeps (judge/replies/stream_integrity.py reads them; never shown anywhere).
    deltas: tuple[str, ...] = ()
    waited_s: float | None = None       # a 429 came first; its Retry-After was waited once (timings are the resend's)
    service_tier: str | None = None     # the tier the response says served it (`default`, `priority`...), cleaned
    notes: tuple[str, ...] = ()         # what the wire said that decides nothing (e.g. a disagreeing header)
    tool_calls: tuple[StreamedToolCall, ...] = ()   # `delta.tool_calls` (or `message.tool_calls`) by index
    # A transport error that is the host rejecting its own model's call (Groq's `tool_use_failed`):
    # the `failed_generation` ("" when none was sent), scrubbed; the tools contract judges it.
    rejected_call: str | None = None
    router: RouterMetadata | None = None   # OpenRouter's router metadata, when it sent any

    @property
    def completed(self) -> bool:
        return self.classification is Classification.COMPLETED

    @property
    def reasoning_only(self) -> bool:
        """A reasoning model spent its budget thinking and wrote no text: says nothing about the host.

        Real traffic often carries no readable reasoning: OpenAI o-series send only encrypted
        `reasoning_details` (`reasoning: null`), xAI Grok 4 sends none and reports only
        `usage.completion_tokens_details.reasoning_tokens`. Any of these counts as thinking.
        So does a `length` finish with no text when we asked the model to think with its
        reasoning excluded from the reply: the thinking happened where we cannot see it.
        """
        thought = (bool(self.reasoning_text) or self.reasoning_seen
                   or (self.usage is not None and self.usage.reasoning_tokens > 0)
                   or (self.reasoning_requested and self.finish_reason == "length"))
        return self.completed and not self.text and not self.tool_calls and thought

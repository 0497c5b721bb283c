"""OpenRouter's JSON shapes: listings, chunks, bodies, usage and error envelopes (pure builders)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import string
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from simulator import tool_calls
from simulator.plan import Plan, StreamError
from simulator.scenario import KeyLimit, Model, SimulatedEndpoint

USER_ID = "user_sim0000000000000000000000"
_ALPHABET = string.ascii_letters + string.digits

ERROR_MESSAGES = {
    400: "Provider returned error",
    401: "Missing Authentication header",
    402: "Insufficient credits. Add more using https://openrouter.ai/settings/credits",
    404: "No endpoints found",
    408: "Request timed out",
    429: "Provider returned error",
    500: "Internal Server Error",
    502: "Provider returned error",
    503: "No instances available",
}


def generation_id() -> str:
    """`gen-<unix>-<20 chars>`, the id format OpenRouter uses."""
    return f"gen-{int(time.time())}-" + "".join(secrets.choice(_ALPHABET) for _ in range(20))


# OpenRouter's feedback categories and the comment's bound (its OpenAPI description, SubmitGenerationFeedbackRequest).
FEEDBACK_CATEGORIES = ("latency", "incoherence", "incorrect_response", "formatting", "billing", "api_error", "other")
MAX_FEEDBACK_COMMENT = 1000


def generation_json(gen_id: str, model: Model, served: SimulatedEndpoint, created: datetime) -> dict[str, Any]:
    """`GET /generation`'s `data` (GenerationResponse): the fields a caller reads of who served it."""
    attempt = {"provider_name": served.provider_name, "status": 200, "model_permaslug": model.permaslug}
    return {"id": gen_id, "model": model.permaslug, "provider_name": served.provider_name,
            "created_at": created.isoformat(), "finish_reason": "stop", "native_finish_reason": "stop",
            "provider_responses": [attempt]}


def feedback_problem(body: Any) -> str | None:
    """What is wrong with a `POST /generation/feedback` body, or None."""
    if not isinstance(body, dict) or not isinstance(body.get("generation_id"), str) or not body["generation_id"]:
        return "generation_id: a generation id is required"
    if body.get("category") not in FEEDBACK_CATEGORIES:
        return f"category: one of {', '.join(FEEDBACK_CATEGORIES)}"
    comment = body.get("comment")
    if comment is not None and (not isinstance(comment, str) or len(comment) > MAX_FEEDBACK_COMMENT):
        return f"comment: a string of at most {MAX_FEEDBACK_COMMENT} characters"
    return None


def error_body(code: int, message: str | None = None, metadata: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`{"error": {"code", "message", "metadata"?}, "user_id"}`; code is the HTTP status."""
    error: dict[str, Any] = {"code": code, "message": message or ERROR_MESSAGES.get(code, "Provider returned error")}
    if metadata:
        error["metadata"] = dict(metadata)
    return {"error": error, "user_id": USER_ID}


def credits_error_body(key: KeyLimit, max_tokens: int | None, endpoint: SimulatedEndpoint) -> dict[str, Any] | None:
    """OpenRouter's bare 402 to a request whose `max_tokens` at this endpoint's completion price may cost
    more than the key has left (None: it fits). Words and envelope as a user recorded them, a null
    `metadata.provider_name` included (Gitlawb/openclaude#1125; docs/openrouter-wire.md §5)."""
    left, price = key.remaining, float(endpoint.pricing.get("completion", 0))
    wanted = max_tokens or endpoint.max_completion_tokens or endpoint.context_length
    if left is None or wanted * price <= left:
        return None
    message = (f"This request requires more credits, or fewer max_tokens. You requested up to {wanted} tokens, "
               f"but can only afford {int(left / price)}. To increase, visit https://openrouter.ai/settings/credits "
               "and upgrade to a paid account")
    return error_body(402, message, {"provider_name": None})


def provider_error_body(status: int, model: Model, endpoint: SimulatedEndpoint, shape: str = "provider",
                        error_type: str | None = None) -> dict[str, Any]:
    """An error status's body in one of the shapes of faults.HttpErrorBody (simulator/README.md's http_error),
    or: `filter` a typed content-policy 400, `refusal` a relayed refusal 403 (`error_type`: its shape),
    `tool_enums_rejected` Gemini's 400 (`error_type`: the path), `tool_use_failed` Groq's 400 (REJECTED_RAW),
    `guardrail` OpenRouter's own 403 before any provider (`metadata.patterns`)."""
    if shape == "availability":
        return availability_error_body(status, model, endpoint)
    if shape == "filter":
        message = f"{model.id}: content flagged on {endpoint.provider_name}"
        return error_body(status, message, {"error_type": error_type or "content_policy_violation",
                                            "provider_name": endpoint.provider_name})
    if shape == "bare":
        return error_body(status)
    if shape == "named":   # hostile (simulator/hostile.py named_error): `error_type` holds the name it gives
        return error_body(status, f"Provider returned error: {error_type} is unavailable",
                          {"provider_name": error_type, "raw": "upstream connect error"})
    if shape == "guardrail":  # OpenRouter's guardrail blocking the request (docs, guides/features/guardrails)
        return error_body(status, "Request blocked: content filter patterns detected", {"patterns": ["[filtered]"]})
    if shape == "refusal":
        raw = RELAYED_REFUSAL_RAW[error_type or "permission_denied"].replace("{model}", model.id)
        return relayed_error_body(status, endpoint, raw)
    if shape == "tool_use_failed":
        return relayed_error_body(status, endpoint, tool_calls.REJECTED_RAW)
    if shape == "tool_enums_rejected":
        raw = json.dumps({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": (
            f"* GenerateContentRequest.{error_type}.enum: only allowed for STRING type\n")}}, indent=2) + "\n"
        return relayed_error_body(status, endpoint, raw)
    if shape == "schema_rejected":  # the keyword rides in error_type's place
        raw = (f'{{"error":{{"message":"Invalid schema for response_format: \'{error_type}\' is not permitted.",'
               '"type":"invalid_request_error","param":"response_format"}}')
        return error_body(status, None, {"provider_name": endpoint.provider_name, "raw": raw})
    if shape == "no_code":
        body = provider_error_body(status, model, endpoint)
        body["error"].pop("code", None)
        return body
    raw = {
        401: '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}',
        403: ('{"error":{"code":"unsupported_country_region_territory","message":"Country, region, or '
              'territory not supported","param":null,"type":"request_forbidden"}}'),
        # The recorded real 429 (pydantic-ai's cassette test_openrouter_errors_raised), word for word.
        429: (f"{model.id} is temporarily rate-limited upstream. Please retry shortly, or add your own key to "
              "accumulate your rate limits: https://openrouter.ai/settings/integrations"),
        # A BYOK key out of balance at the provider (DeepSeek's own 402 "Insufficient Balance").
        402: ('{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,'
              '"code":"invalid_request_error"}}'),
        408: "upstream request timed out",
        502: "upstream connect error or disconnect/reset before headers",
        503: "Service Unavailable: no capacity",
    }.get(status, f"upstream returned HTTP {status}")
    if status in (408, 500):  # OpenRouter's own errors carry no provider metadata
        return error_body(status)
    return relayed_error_body(status, endpoint, raw, byok=status == 402)


# A provider's refusal relayed as its 403 (docs/openrouter-wire.md §5), by faults.RelayedRefusalShape.
RELAYED_REFUSAL_RAW = {
    # xAI, verbatim as OpenRouter relayed it (pasky/muaddib, tests/refusal-detection.test.ts).
    "permission_denied": '{"code":"permission-denied","error":"I can\'t help with that request."}',
    # xAI's safety check (UKGovernmentBEIS/inspect_ai#2267), its team and key ids made up.
    "usage_guidelines": ('{"code":"The caller does not have permission to execute the specified operation",'
                         '"error":"Content violates usage guidelines. Team: 0c1d2e3f-sim, API key ID: 9a8b7c6d-sim, '
                         'Model: {model}, Failed check: SAFETY_CHECK_TYPE_BIO"}'),
}


def relayed_error_body(status: int, endpoint: SimulatedEndpoint, raw: str, *, byok: bool = False) -> dict[str, Any]:
    """A provider's error as OpenRouter relays it: "Provider returned error", `metadata.raw` (the
    provider's own text), `provider_name` and `is_byok` (the recorded relayed 403 carries it)."""
    return error_body(status, "Provider returned error",
                      {"raw": raw, "provider_name": endpoint.provider_name, "is_byok": byok})


AVAILABILITY = {  # status -> (availability.code, error_type, retryable): docs errors-and-debugging
    403: ("region_restricted", "permission_denied", False),
    404: ("no_endpoints", "not_found", False),
    429: ("capacity_exhausted", "rate_limit_exceeded", True),
    503: ("temporarily_unavailable", "provider_overloaded", True),
}


def availability_error_body(status: int, model: Model, endpoint: SimulatedEndpoint) -> dict[str, Any]:
    """The documented availability error: `message`, `error_type`, `http_status`, `availability`; no `code`."""
    code, error_type, retryable = AVAILABILITY.get(status, ("temporarily_unavailable", "provider_overloaded", True))
    return {"error": {
        "message": f"{model.id} is not available ({code})", "error_type": error_type, "http_status": status,
        "availability": {"code": code, "retryable": retryable, "requested_models": [model.id],
                         "affected_providers": [endpoint.base_slug],
                         "docs_url": f"https://openrouter.ai/docs/errors#{code}"},
    }, "user_id": USER_ID}


def moderation_error_body(
    model: Model, endpoint: SimulatedEndpoint, reasons: tuple[str, ...], flagged: str
) -> dict[str, Any]:
    """OpenRouter's moderation 403, its metadata the documented ModerationErrorMetadata (docs/openrouter-wire.md
    §5); the message wording is ours."""
    listed = ", ".join(f'"{r}"' for r in reasons)
    message = (f"{model.id} requires moderation on {endpoint.provider_name}. Your input was flagged for {listed}. "
               "No credits were charged.")
    metadata = {"reasons": list(reasons), "flagged_input": flagged, "provider_name": endpoint.provider_name,
                "model_slug": model.id}
    return error_body(403, message, metadata)


# The opt-in to router metadata: `enabled` in any case (anything else is `disabled`); the second
# name is the older one, still accepted (OpenRouter docs, guides/features/router-metadata).
METADATA_HEADERS = ("X-OpenRouter-Metadata", "X-OpenRouter-Experimental-Metadata")
# The documented blocking guardrail's stage (same page, "Guardrail Blocked (403)"), our names in it.
BLOCKED_STAGE = {"type": "guardrail", "name": "content-filter", "guardrail_id": "grd_sim", "guardrail_scope": "api-key",
                 "summary": "Blocked: content filter matched", "data": {"action": "blocked", "detected": True}}


def metadata_wanted(headers: Mapping[str, str]) -> bool:
    """Did the request opt in to router metadata (a case-insensitive header mapping)?"""
    return any(headers.get(name, "").casefold() == "enabled" for name in METADATA_HEADERS)


def router_metadata(model: Model, served: SimulatedEndpoint, faults: Sequence[str], status: int = 200,
                    pipeline: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """`openrouter_metadata` in the documented shape: one attempt, the pinned host's (`fallback_attempt`:
    the pinned host failing with a 502, then another provider of the model serving); a blocking
    guardrail's 403: its stage and no `attempts`."""
    attempts = [{"provider": served.provider_name, "model": model.permaslug, "status": status}]
    if "fallback_attempt" in faults:
        other = next((e.provider_name for e in model.endpoints if e.provider_name != served.provider_name), "Elsewhere")
        attempts = [{**attempts[0], "status": 502}, {"provider": other, "model": model.permaslug, "status": status}]
    blocked = status == 403 and "guardrail" in faults
    return {"requested": model.id, "strategy": "direct", "region": "sim", "summary": "available=1",
            "attempt": 1 if blocked else len(attempts), "is_byok": False,
            "endpoints": {"total": 1, "available": [{"provider": served.provider_name, "model": model.permaslug,
                                                     "selected": status == 200}]},
            **({} if blocked else {"attempts": attempts}), "pipeline": [BLOCKED_STAGE] if blocked else list(pipeline)}


def endpoint_json(endpoint: SimulatedEndpoint, model: Model, *, stats: bool) -> dict[str, Any]:
    """One entry of `/models/{id}/endpoints`, with every key SDK 1.3.84 requires."""
    b = endpoint.behaviour
    latency = {"p50": b.ttft_ms, "p75": b.ttft_ms * 1.3, "p90": b.ttft_ms * 1.8, "p99": b.ttft_ms * 3}
    return {
        "name": f"{endpoint.provider_name} | {model.id}",
        "model_id": model.permaslug,
        "model_name": model.name,
        "provider_name": endpoint.provider_name,
        "tag": endpoint.tag,
        "context_length": endpoint.context_length,
        "max_completion_tokens": endpoint.max_completion_tokens,
        "max_prompt_tokens": None,
        "pricing": {**endpoint.pricing, "discount": 0},
        "quantization": endpoint.quantization,
        "status": 0,
        "supported_parameters": list(endpoint.supported_parameters),
        "uptime_last_5m": endpoint.uptime if stats else None,
        "uptime_last_30m": endpoint.uptime if stats else None,
        "uptime_last_1d": endpoint.uptime if stats else None,
        # Stats are only filled for authenticated callers, as on OpenRouter.
        "latency_last_30m": {k: round(v, 1) for k, v in latency.items()} if stats else None,
        "throughput_last_30m": throughput(endpoint) if stats else None,
        "supports_implicit_caching": False,
        "native_tools": {},
        "service_tier": endpoint.service_tier,
        "supports_diarization": False,
        "supports_tool_choice": {"auto": True, "none": True, "required": True, "function": True},
    }


# `throughput_last_30m` as the real listing has it, ascending (docs/openrouter-wire.md §9); `descending`: the OpenAPI's.
THROUGHPUT_SHARES = {"ascending": (1.0, 1.2, 1.35, 1.65), "descending": (1.0, 0.85, 0.7, 0.4)}


def throughput(endpoint: SimulatedEndpoint) -> dict[str, float]:
    tps = endpoint.behaviour.tokens_per_second
    shares = THROUGHPUT_SHARES[endpoint.throughput_order]
    return {k: round(tps * share, 2) for k, share in zip(("p50", "p75", "p90", "p99"), shares, strict=True)}


def architecture() -> dict[str, Any]:
    return {
        "input_modalities": ["text"], "output_modalities": ["text"], "modality": "text->text",
        "tokenizer": "DeepSeek", "instruct_type": None,
    }  # fmt: skip


def model_endpoints_json(model: Model, endpoints: list[SimulatedEndpoint], *, stats: bool) -> dict[str, Any]:
    return {
        "data": {
            "id": model.id, "name": model.name, "created": model.created, "description": model.description,
            "architecture": architecture(),
            "endpoints": [*(endpoint_json(e, model, stats=stats) for e in endpoints), *model.extra_listing_entries],
        }
    }  # fmt: skip


def model_json(model: Model, endpoints: list[SimulatedEndpoint]) -> dict[str, Any]:
    """One entry of `/models`; headline pricing is the first endpoint's."""
    top = endpoints[0] if endpoints else model.endpoints[0]
    params = sorted({p for e in endpoints for p in e.supported_parameters})
    return {
        "id": model.id, "canonical_slug": model.permaslug, "hugging_face_id": None, "name": model.name,
        "created": model.created, "description": model.description,
        "context_length": max((e.context_length for e in endpoints), default=top.context_length),
        "architecture": architecture(), "pricing": dict(top.pricing),
        "top_provider": {"is_moderated": False, "context_length": top.context_length,
                         "max_completion_tokens": top.max_completion_tokens},
        "per_request_limits": None, "supported_parameters": params, "default_parameters": None,
        "supported_voices": None, "links": {"details": f"/api/v1/models/{model.id}/endpoints"},
        **model_reasoning(model),
    }  # fmt: skip


def model_reasoning(model: Model) -> dict[str, Any]:
    """`reasoning` of a /models entry, from its endpoints' `thinking` trait (omitted without one,
    as for non-reasoning models): default_enabled is false when the model thinks only when asked."""
    traits = [f for e in model.endpoints for f in e.behaviour.faults if f.name == "thinking"]
    if not traits:
        return {}
    return {"reasoning": {"supported_efforts": None, "default_effort": "medium",
                          "default_enabled": all(t["by_default"] or t["mandatory"] for t in traits),
                          "mandatory": all(t["mandatory"] for t in traits)}}


def providers_json(endpoints: list[SimulatedEndpoint]) -> dict[str, Any]:
    seen: dict[str, dict[str, Any]] = {}
    for e in endpoints:
        seen.setdefault(e.base_slug, {
            "name": e.provider_name, "slug": e.base_slug, "privacy_policy_url": None,
            "terms_of_service_url": None, "status_page_url": None, "headquarters": None, "datacenters": [],
        })  # fmt: skip
    return {"data": sorted(seen.values(), key=lambda p: p["slug"])}


def usage(plan: Plan) -> dict[str, Any]:
    """Usage with cost from the serving endpoint's per-token prices (USD), as OpenRouter bills:
    cache reads (counted inside prompt_tokens) at `input_cache_read` where listed, reasoning
    tokens (counted inside completion_tokens) at the completion price whatever `internal_reasoning`
    lists (every recorded reasoning bill reconciles that way: docs/openrouter-wire.md §9)."""
    prices = plan.served.pricing
    prompt_price = Decimal(prices.get("prompt", "0"))
    cached = min(plan.cached_tokens, plan.prompt_tokens)
    prompt_cost = (prompt_price * (plan.prompt_tokens - cached)
                   + Decimal(prices.get("input_cache_read", prices.get("prompt", "0"))) * cached)
    completion_cost = Decimal(prices.get("completion", "0")) * plan.completion_tokens
    cost = float(prompt_cost + completion_cost + Decimal(prices.get("request", "0"))) * plan.cost_factor
    thinking = plan.thinking
    reasoning = {} if thinking is not None and not thinking.itemised else {
        "reasoning_tokens": thinking.tokens if thinking else 0}
    return {
        "prompt_tokens": plan.prompt_tokens, "completion_tokens": plan.completion_tokens,
        "total_tokens": plan.prompt_tokens + plan.completion_tokens, "cost": cost, "is_byok": False,
        "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        "completion_tokens_details": {**reasoning, "image_tokens": 0},
        "cost_details": {"upstream_inference_cost": cost, "upstream_inference_prompt_cost": float(prompt_cost),
                         "upstream_inference_completions_cost": float(completion_cost)},
    }  # fmt: skip


class ChunkMaker:
    """Builds the chunks of one stream; id/created/model/provider are the same on every chunk."""

    def __init__(self, gen_id: str, model: Model, plan: Plan) -> None:
        self.head = {
            "id": gen_id, "provider": plan.served.provider_name, "model": model.permaslug,
            "object": "chat.completion.chunk", "created": int(time.time()),
        }  # fmt: skip
        self.plan = plan

    def delta(self, content: str, finish: str | None = None, role: bool = True) -> dict[str, Any]:
        return self._with_delta({"role": "assistant", "content": content} if role else {}, finish)

    def reasoning(self, piece: str) -> dict[str, Any]:
        """A readable thinking delta, in the shape OpenRouter streams it (reasoning + reasoning_details)."""
        detail = {"type": "reasoning.text", "text": piece, "format": "unknown", "index": 0}
        return self._with_delta({"role": "assistant", "content": "", "reasoning": piece, "reasoning_details": [detail]})

    def encrypted_reasoning(self) -> dict[str, Any]:
        """The one opaque thinking chunk of OpenAI o-series as recorded: `reasoning: null` + encrypted details."""
        detail = {"type": "reasoning.encrypted", "data": encrypted_blob(self.plan),
                  "id": f"rs_{str(self.head['id'])[-16:]}", "format": "openai-responses-v1", "index": 0}
        return self._with_delta({"role": "assistant", "content": "", "reasoning": None, "reasoning_details": [detail]})

    def _with_delta(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "native_finish_reason": finish, "logprobs": None}
        return {**self.head, "choices": [choice]}

    def tool_call(
        self, index: int, arguments: str, call_id: str | None = None, name: str | None = None
    ) -> dict[str, Any]:
        """One `delta.tool_calls` fragment as recorded: the first of a call carries its id, type
        and name with `arguments: ""`, the next ones only the index and an arguments fragment
        (or, from a hostile host, another piece of the name)."""
        call: dict[str, Any] = {"index": index}
        if call_id is not None:
            call.update(id=call_id, type="function", function={"name": name, "arguments": arguments})
        elif name is not None:
            call["function"] = {"name": name, "arguments": arguments}
        else:
            call["function"] = {"arguments": arguments}
        return self._with_delta({"content": None, "role": "assistant", "tool_calls": [call]})

    def tool_calls(self, calls: list[dict[str, Any]]) -> dict[str, Any]:
        """A `delta.tool_calls` list as given (simulator/hostile.py's tool_flood: many fragments in one event)."""
        return self._with_delta({"content": None, "role": "assistant", "tool_calls": calls})

    def finish(self) -> dict[str, Any]:
        return self.delta("", self.plan.finish_reason)

    def usage(self) -> dict[str, Any]:
        """The final usage chunk, in one of the three shapes seen on the wire."""
        shape = self.plan.usage_shape
        if shape == "empty_choices":
            chunk: dict[str, Any] = {**self.head, "choices": []}
        elif shape == "repeat_finish":
            chunk = {**self.delta("", self.plan.finish_reason), "service_tier": None}
        else:
            chunk = self.delta("", None)
        return {**chunk, **tier_field(self.plan.served), "usage": usage(self.plan)}

    def error(self, error: StreamError) -> dict[str, Any]:
        """A mid-stream error chunk: documented (`finish_reason: error`; also an in-band error
        before any text), recorded (with or without a typed code), or `choices: []`."""
        if error.shape in ("recorded", "recorded_typed"):  # real traffic: finish null, usage attached
            body: dict[str, Any] = {"code": error.code, "message": error.message}
            if error.shape == "recorded_typed":
                body["metadata"] = {"error_type": error.error_type}
            return {**self.delta("", None), "error": body, "usage": usage(self.plan)}
        body = {"code": error.code, "message": error.message, "metadata": {"error_type": error.error_type}}
        if error.raw is not None:  # a provider's own error relayed (tool_use_failed): its body in `raw`
            body["metadata"] = {"raw": error.raw, "provider_name": self.plan.served.provider_name}
        if error.shape == "empty_choices":
            return {**self.head, "choices": [], "error": body}
        return {**self.delta("", "error"), "error": body}


def tier_field(endpoint: SimulatedEndpoint) -> dict[str, Any]:
    """`service_tier` as responses report it: only when the scenario or the endpoint says one."""
    tier = endpoint.reported_tier or endpoint.service_tier
    return {"service_tier": tier} if tier else {}


def provider_header(endpoint: SimulatedEndpoint) -> dict[str, str]:
    """X-Provider-Name as the scenario asks (scenario.SimulatedEndpoint.provider_header)."""
    kind = endpoint.provider_header
    if kind is None:
        return {}
    value = {"display": endpoint.provider_name, "slug": endpoint.base_slug, "tag": endpoint.tag}.get(kind, kind)
    return {"X-Provider-Name": value}


def encrypted_blob(plan: Plan) -> str:
    """Stand-in for an encrypted reasoning item: opaque base64 of about the thinking's size."""
    size = min(4096, 4 * (plan.thinking.tokens if plan.thinking else 1))
    return base64.b64encode(hashlib.sha256(plan.served.tag.encode()).digest() * (size // 32 + 1))[:size].decode()


def completion_body(gen_id: str, model: Model, plan: Plan, content: str) -> dict[str, Any]:
    """The non-streaming body; `system_fingerprint` is always present (the SDK requires the key)."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None, "reasoning": None}
    thinking = plan.thinking
    if thinking is not None and thinking.shown:
        if thinking.readable:
            message["reasoning"] = thinking.text
            message["reasoning_details"] = [{"type": "reasoning.text", "text": thinking.text, "format": "unknown",
                                             "index": 0}]
        else:
            message["reasoning_details"] = [{"type": "reasoning.encrypted", "data": encrypted_blob(plan),
                                             "id": f"rs_{gen_id[-16:]}", "format": "openai-responses-v1", "index": 0}]
    if plan.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in plan.tool_calls
        ]
        message["content"] = content or None
    choice: dict[str, Any] = {
        "index": 0, "logprobs": None, "finish_reason": plan.finish_reason,
        "native_finish_reason": plan.native_finish_reason, "message": message,
    }  # fmt: skip
    if plan.error is not None:  # documented choice-level error inside a 200 body
        choice["finish_reason"] = "error"
        choice["error"] = {"code": plan.error.code, "message": plan.error.message,
                           "metadata": {"error_type": plan.error.error_type}}  # fmt: skip
    return {
        "id": gen_id, "object": "chat.completion", "created": int(time.time()), "model": model.permaslug,
        "provider": plan.served.provider_name, "system_fingerprint": None, "choices": [choice], "usage": usage(plan),
        **tier_field(plan.served),
    }  # fmt: skip

"""Pure helpers for OpenRouter's wire format: the pinned request body, error statuses, 200 bodies.

Kept apart from the client so the rules (which status freezes a host, which stops the round,
what counts as "served by the pinned provider") are plain functions with their reasons beside
them. References (§) are to docs/openrouter-wire.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

from core.untrusted import clean, load_json, pair_surrogates
from probes.http.errors import ErrorFacts
from probes.http.records import Classification, Endpoint, ErrorKind, RouterMetadata, StreamedToolCall, Usage
from probes.http.stream import MAX_NAME_CHARS, MAX_TOOL_CALLS, describe_error

# Moderation categories are upstream text: a few short printable ones are plenty for a reason.
MAX_FLAGGED = 5
FLAGGED_CHARS = 40

# Optional sampling knobs: sent only when the endpoint lists them, because with
# require_parameters:true an unlisted parameter makes the pinned request unroutable (404),
# which would freeze the host forever over a parameter the probe can live without.
_OPTIONAL_PARAMS = ("temperature", "seed")
# The `user` of every probe request: a provider's block lands on the probes' identity, not the account (§2).
PROBE_USER = "canary-probe"
# The parameters by which an endpoint says it serves a reasoning model (SPEC `Parameter` enum).
REASONING_PARAMS = ("reasoning", "reasoning_effort", "include_reasoning")


@dataclass(frozen=True, slots=True)
class ReasoningBudget:
    """How the probes let a reasoning model think (probe.reasoning_*; docs/contracts.md, Reasoning models)."""

    effort: str | None = "low"   # reasoning.effort; None sends `max_tokens` as reasoning.max_tokens
    max_tokens: int = 1024       # room for thinking added on top of the answer's budget
    always: bool = False         # probe.reasoning_controls: always (the product sends them everywhere)

    def wanted(self, endpoint: Endpoint) -> bool:
        """Send reasoning controls to this endpoint? As the product would: where thinking is on by default,
        mandatory or not said, since a control switches a hybrid model's thinking on (§2)."""
        return self.always or endpoint.thinking_mandatory or endpoint.thinks_by_default is not False


def reasoning_request(
    endpoint: Endpoint, budget: ReasoningBudget | None, answer_tokens: int
) -> tuple[int, dict[str, Any]]:
    """(completion cap, reasoning fields of the body) for one request to `endpoint`: only a control the
    endpoint lists, in OpenRouter's preferred spelling first, and room for the thinking so the answer
    keeps `answer_tokens` (§2). With effort, OpenRouter gives budget-style models `max_tokens x share`
    (low 0.2) with Anthropic's 1024-token floor below the cap: `answer + 1024` holds up to high."""
    if budget is None or not any(endpoint.supports(p) for p in REASONING_PARAMS) or not budget.wanted(endpoint):
        return answer_tokens, {}
    if endpoint.supports("reasoning"):
        control: dict[str, Any] = {"effort": budget.effort} if budget.effort else {"max_tokens": budget.max_tokens}
        fields: dict[str, Any] = {"reasoning": {**control, "exclude": True}}
    elif endpoint.supports("reasoning_effort") and budget.effort:
        fields = {"reasoning_effort": budget.effort}
    elif endpoint.supports("include_reasoning"):
        fields = {"include_reasoning": False}
    else:
        fields = {}
    # `effort: none` turns thinking off, so it needs no room, but only where an effort was sent:
    # `include_reasoning: false` hides the thinking without stopping it.
    turned_off = budget.effort == "none" and ("reasoning" in fields or "reasoning_effort" in fields)
    room = 0 if turned_off else budget.max_tokens
    cap = answer_tokens + room
    if endpoint.max_completion_tokens:
        cap = min(cap, endpoint.max_completion_tokens)
    return cap, fields


class BodyFields(TypedDict, total=False):
    """What a probe asks beyond the messages and the cap (pinned_body, ProbeClient.chat): each absent, or
    None, is not sent."""

    response_format: Mapping[str, Any] | None
    temperature: float | None
    seed: int | None
    reasoning: Mapping[str, Any] | None
    tools: Sequence[Mapping[str, Any]] | None
    stop: Sequence[str]


def pinned_body(endpoint: Endpoint, messages: Sequence[Mapping[str, Any]], *, max_tokens: int, stream: bool,
                **asked: Unpack[BodyFields]) -> dict[str, Any]:
    """The §2 recipe: order + only the exact tag, no fallbacks, every parameter honoured, no `models`;
    `reasoning` (see `reasoning_request`) is merged as given."""
    response_format, tools, reasoning = asked.get("response_format"), asked.get("tools"), asked.get("reasoning")
    # The cost cap goes under the name the endpoint lists (max_tokens is deprecated in favour of
    # max_completion_tokens). An endpoint that lists neither cannot be pinned with
    # require_parameters (it would be unroutable, frozen forever), so for it the requirement is
    # dropped unless the request carries a response_format that must not be silently stripped.
    cap = "max_completion_tokens" if (endpoint.supports("max_completion_tokens")
                                      and not endpoint.supports("max_tokens")) else "max_tokens"
    body: dict[str, Any] = {
        "model": endpoint.model,
        "messages": [dict(m) for m in messages],
        cap: max_tokens,
        "stream": stream,
        "user": PROBE_USER,
        "provider": {
            "order": [endpoint.provider],
            "only": [endpoint.provider],
            "allow_fallbacks": False,
            "require_parameters": endpoint.supports(cap) or response_format is not None or tools is not None,
        },
    }
    if endpoint.siblings:
        # A bare tag (`deepinfra`) in `only` matches every variant of the provider: its siblings
        # (`deepinfra/turbo`), each by its full tag, are ignored so only the bare endpoint serves (§2).
        body["provider"]["ignore"] = list(endpoint.siblings)
    thinking = bool(reasoning) and not _thinking_off(reasoning or {})
    for name, value in zip(_OPTIONAL_PARAMS, (asked.get("temperature"), asked.get("seed")), strict=True):
        # No temperature with thinking requested: Anthropic-family thinking refuses a temperature
        # other than 1, and the product's own thinking requests do not set one either (§2).
        if value is not None and endpoint.supports(name) and not (thinking and name == "temperature"):
            body[name] = value
    # response_format and reasoning are sent as asked: the caller checks endpoint.supports()
    # first, because silently dropping them would change what the probe measures.
    if response_format is not None:
        body["response_format"] = dict(response_format)
    if tools is not None:  # the tools contract: checked against endpoint.supports("tools") by its caller
        body["tools"] = [dict(t) for t in tools]
    if stop := asked.get("stop"):  # the stop contract's: sent only to an endpoint that lists `stop` (the caller checks)
        body["stop"] = list(stop)
    for name, value in (reasoning or {}).items():
        body[name] = dict(value) if isinstance(value, Mapping) else value
    return body


def _thinking_off(fields: Mapping[str, Any]) -> bool:
    """Reasoning fields that do not ask for thinking: `effort: none`, `enabled: false`, or only
    `include_reasoning: false` (which hides thinking without asking for any)."""
    control = fields.get("reasoning")
    if isinstance(control, Mapping):
        return control.get("effort") == "none" or control.get("enabled") is False
    return fields.get("reasoning_effort") == "none" or set(fields) == {"include_reasoning"}


def provider_matches(endpoint: Endpoint, served: str) -> bool:
    """Does a served-by name designate the pinned endpoint's provider? The display name, the tag or its base
    slug (X-Provider-Name's form is undocumented, §6); one provider's variants cannot be told apart."""
    name = served.strip().casefold()
    return name in {endpoint.provider_name.casefold(), endpoint.provider.casefold(), endpoint.base_slug.casefold()}


def router_mismatch(endpoint: Endpoint, router: RouterMetadata | None) -> str | None:
    """What the router metadata says against the pin, or None (§6): more than one attempt, or an
    attempt by another provider. The strongest served-by proof: one attempt, the pinned provider."""
    if router is None:
        return None
    attempts = router.attempts
    if len(attempts) <= 1 and (router.attempt or 0) <= 1 and all(provider_matches(endpoint, p) for p, _ in attempts):
        return None
    listed = ", ".join(f"{ascii(p)} {s if s is not None else '?'}" for p, s in attempts) or "none listed"
    return (f"OpenRouter's router metadata lists attempts [{listed}] (attempt {router.attempt}) while pinned to "
            f"{endpoint.provider} ({ascii(endpoint.provider_name)})")


def tier_mismatch(endpoint: Endpoint, served_tier: str | None) -> bool:
    """A tier endpoint (`openai/priority`) whose response says another tier served it (§2); `null` is no mismatch."""
    wanted = (endpoint.service_tier or "default").casefold()
    return served_tier is not None and wanted != "default" and served_tier.casefold() != wanted


def parse_json(raw: bytes) -> Any:
    """JSON or None; leading whitespace is fine (OpenRouter's keep-alive for non-streamed bodies)."""
    try:
        return load_json(raw)
    except ValueError:  # not UTF-8, not JSON, or nested too deep to parse safely
        return None


def error_of(body: Any) -> tuple[str, dict[str, Any]]:
    """(one-line description, error.metadata) of an error body; tolerates any shape."""
    if isinstance(body, dict) and body.get("error") is not None:
        error = body["error"]
        meta = error.get("metadata") if isinstance(error, dict) else None
        return describe_error(error), meta if isinstance(meta, dict) else {}
    return "no error object in the body", {}


def classify_status(status: int, metadata: Mapping[str, Any],
                    facts: ErrorFacts | None = None) -> tuple[Classification, ErrorKind]:
    """Map a non-200 status of a pinned request (§5) to what the round should do with it (`facts`: the error
    object, None while only the status is known)."""
    facts = facts or ErrorFacts()
    if is_moderation(status, metadata):
        # Input moderation (§5): the host's policy refused our prompt before generating. Not our
        # key and not the network: the route refuses the product's traffic (MODERATED).
        return Classification.MODERATED, ErrorKind.MODERATION
    if facts.filter:
        # A typed content_policy_violation or refusal (§5): the host's filter answered, which is
        # what the refusal contract judges; never "unreachable".
        return Classification.MODERATED, ErrorKind.FILTER_ERROR
    if status == 403 and facts.relayed_refusal is not None:
        # A provider's refusal relayed as its 403 (§5: xAI's `permission-denied` with a decline,
        # or its failed safety check): the host's filter answered, as for a typed refusal.
        return Classification.MODERATED, ErrorKind.FILTER_ERROR
    if status in (401, 402, 403) and facts.upstream_side:
        # A provider's 401/402/403 relayed by OpenRouter (metadata.provider_name: its key, its
        # BYOK balance, its region) or an availability error such as region_restricted (§5):
        # that endpoint cannot serve us; our key and our credits are fine.
        return Classification.TRANSPORT_ERROR, ErrorKind.PROVIDER_DENIED
    if status in (401, 402, 403):
        # Our key is wrong, out of credit or not allowed: every host would fail the same way,
        # so the round stops rather than blaming anyone (unless GET /key accepts it: client.py).
        return Classification.AUTH_ERROR, ErrorKind.AUTH
    if status == 408:
        return Classification.TRANSPORT_ERROR, ErrorKind.HTTP_408
    if status == 429:
        return Classification.TRANSPORT_ERROR, ErrorKind.HTTP_429
    if status >= 500:
        return Classification.TRANSPORT_ERROR, ErrorKind.HTTP_5XX
    if status < 400:
        return Classification.TRANSPORT_ERROR, ErrorKind.HTTP_OTHER
    # 404 "no allowed providers" (endpoint filtered before routing), 400, 413, 422…: nothing
    # was generated, so there is no quality signal; freeze.
    return Classification.TRANSPORT_ERROR, ErrorKind.HTTP_4XX


def is_moderation(status: int, metadata: Mapping[str, Any]) -> bool:
    """A 403 whose metadata is OpenRouter's ModerationErrorMetadata (§5). A guardrail 403 (`patterns`) is our
    account's filter and a bare 403 our key: both stay with the auth rule."""
    return status == 403 and ("reasons" in metadata or "flagged_input" in metadata)


def flagged_categories(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """The moderation `reasons`, cleaned (one printable line each, bounded): untrusted upstream text."""
    reasons = metadata.get("reasons")
    items = reasons if isinstance(reasons, list) else [reasons] if isinstance(reasons, str) else []
    cleaned = [clean(r, FLAGGED_CHARS) for r in items if isinstance(r, (str, int, float)) and not isinstance(r, bool)]
    kept = [c for c in cleaned if c][:MAX_FLAGGED]
    extra = len([c for c in cleaned if c]) - len(kept)
    return (*kept, f"+{extra} more") if extra > 0 else tuple(kept)


def completion_fields(body: Any) -> dict[str, Any] | str:
    """Fields of a non-streamed 200 body, or a string saying why it is an error/unusable."""
    if not isinstance(body, dict):
        return "the 200 body is not a JSON object"
    if body.get("error") is not None:
        return error_of(body)[0]
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return "the 200 body has no choices"
    choice = choices[0]
    if choice.get("error") is not None or choice.get("finish_reason") == "error":
        return describe_error(choice.get("error")) if choice.get("error") is not None else "finish_reason 'error'"
    raw_message = choice.get("message")
    message: dict[str, Any] = raw_message if isinstance(raw_message, dict) else {}
    return {
        "text": pair_surrogates(message["content"]) if isinstance(message.get("content"), str) else "",
        "reasoning_text": pair_surrogates(message["reasoning"]) if isinstance(message.get("reasoning"), str) else "",
        "reasoning_seen": (isinstance(message, dict)
                           and bool(message.get("reasoning") or message.get("reasoning_details"))),
        "finish_reason": _str(choice.get("finish_reason")),
        "native_finish_reason": _str(choice.get("native_finish_reason")),
        "usage": Usage.from_wire(body.get("usage")),
        "served_by": _str(body.get("provider")),
        "served_model": _str(body.get("model")),
        "generation_id": _str(body.get("id")),
        "service_tier": _str(body.get("service_tier")),
        "tool_calls": body_tool_calls(message.get("tool_calls")),
    }


def body_tool_calls(raw: object) -> tuple[StreamedToolCall, ...]:
    """`message.tool_calls` of a non-streamed reply, in the streamed calls' record (one fragment each)."""
    out: list[StreamedToolCall] = []
    for position, call in enumerate(raw[:MAX_TOOL_CALLS] if isinstance(raw, list) else []):
        if not isinstance(call, dict):
            continue
        raw_function = call.get("function")
        function: dict[str, Any] = raw_function if isinstance(raw_function, dict) else {}
        name, arguments = function.get("name"), function.get("arguments")
        index = call.get("index")
        out.append(StreamedToolCall(
            index=index if type(index) is int else position, id=_str(call.get("id")),
            name_parts=(name[:MAX_NAME_CHARS],) if isinstance(name, str) and name else (),
            arguments=pair_surrogates(arguments) if isinstance(arguments, str) else "",
            fragments=1 if isinstance(arguments, str) and arguments else 0))
    return tuple(out)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None

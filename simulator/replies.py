"""Planning one reply: a pure function from (request, endpoint behaviour, RNG) to what gets sent. The
plan is a value; simulator/stream.py turns it into bytes and timing. Token counts (one per 4 UTF-8
bytes: English ~4 characters a token, CJK ~1.3) and how long a reasoning host thinks follow
simulator/README.md.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from simulator import corrupt, defects, hostile, schema_gen, tasks, tool_calls
from simulator.banks import Bank, all_banks
from simulator.faults import MID_STREAM_SHAPES, NO_PARAMS, Draw, Fault, FaultParams, draw, trait
from simulator.plan import Plan, StreamError, Thinking
from simulator.request import ChatRequest, Reasoning, non_string_enums, unportable_keywords
from simulator.scenario import Behaviour, Model, SimulatedEndpoint

BYTES_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4  # role and separators, as chat templates add them
SENTENCES_PER_REPLY = (4, 8)  # enough text for a language detector to decide

_DEFAULT_OBJECT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"reply": {"type": "string"}, "mood": {"type": "string", "enum": ["calm", "tense", "playful"]}},
    "required": ["reply", "mood"],
}
_ERRORS = {  # mid-stream code -> (message, metadata.error_type)
    400: ("Token limit reached", "invalid_request"),
    408: ("Request timed out", "timeout"),
    429: ("Rate limit exceeded", "rate_limit_exceeded"),
    401: ("Provider returned error", "authentication"),
    403: ("Provider returned error", "permission_denied"),
    500: ("Internal Server Error", "server"),
    502: ("Provider disconnected", "provider_unavailable"),
    503: ("Provider overloaded", "provider_overloaded"),
}
FILTER_MESSAGES = {  # filter_error's error_type -> message (wording ours; the types are OpenRouter's)
    "content_policy_violation": "The output was flagged by the provider's content filter",
    "refusal": "The model refused to comply with the request",
}
TOKEN_LIMIT_MESSAGE = "Token limit reached"  # the recorded real wording


# Faults whose reply is no call at all even to a tools request: the text they write is the reply.
_NO_CALLS = frozenset({"empty_reply", "refusal", "content_filter", "guardrail"})
EFFORT_SHARE = {"max": 0.95, "xhigh": 0.95, "high": 0.8, "medium": 0.5, "low": 0.2, "minimal": 0.1, "none": 0.0}
FLAGGED_INPUT_CHARS = 100  # OpenRouter's moderation metadata: longer input is cut in the middle with "..."
_THOUGHTS = (
    "The user wants the scene to continue, so I should stay in character.",
    "Let me keep the reply in the language the system message asks for.",
    "A few vivid sentences should be enough here, nothing out of character.",
    "I will describe what the character does and says next.",
)


@dataclass(frozen=True, slots=True)
class HttpFailure:
    """An error status sent before any byte of the body."""

    served: SimulatedEndpoint
    status: int
    retry_after: int | None         # the Retry-After header of a 429/503 (None: none)
    faults: tuple[str, ...]
    # faults.HttpErrorBody, "filter" (a typed filter error), "refusal" (a relayed refusal 403),
    # "schema_rejected" or "tool_enums_rejected" (a provider's 400 over the request's schema),
    # "tool_use_failed" (a provider's 400 over its own model's call), "named" (hostile)
    body: str = "provider"
    error_type: str | None = None   # filter_error's type, the refusal's shape, the keyword or path; a name


@dataclass(frozen=True, slots=True)
class Hang:
    """Accept the request and send nothing (for `seconds`, or until the client gives up)."""

    served: SimulatedEndpoint
    seconds: float | None
    faults: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Moderated:
    """OpenRouter's input moderation: 403 before any byte, with the flagged categories."""

    served: SimulatedEndpoint
    reasons: tuple[str, ...]
    flagged_input: str
    faults: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Reset:
    """The connection dies after the request was read, before a single response byte."""

    served: SimulatedEndpoint
    faults: tuple[str, ...]


Outcome = Plan | HttpFailure | Hang | Moderated | Reset


def reply_rng(seed: int, tag: str, messages_hash: str, attempt: int) -> random.Random:
    """Each (tag, conversation) pair gets its own reproducible stream of replies."""
    key = f"{seed}|{tag}|{messages_hash}|{attempt}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


def count_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / BYTES_PER_TOKEN)  # a hostile lone half counts too


def truncate_tokens(text: str, limit: int) -> str:
    budget, used, end = limit * BYTES_PER_TOKEN, 0, 0
    for end, char in enumerate(text):
        used += len(char.encode("utf-8"))
        if used > budget:
            return text[:end]
    return text


def plan_reply(
    request: ChatRequest,
    model: Model,
    endpoint: SimulatedEndpoint,
    behaviour_of: Callable[[SimulatedEndpoint], Behaviour],
    rng: random.Random,
    usage_shape: str = "mixed",
    *,
    attempt: int = 0,
) -> Outcome:
    """Decide what `endpoint` sends for `request` (`attempt`: earlier requests of this conversation)."""
    behaviour = behaviour_of(endpoint)
    reset = trait(behaviour.faults, "reset_before_response")
    if reset is not None and attempt < reset["times"]:
        return Reset(endpoint, ("reset_before_response",))
    text = " ".join(str(m.get("content") or "") for m in request.messages)
    drawn = draw(behaviour.faults, rng, text=text)
    refused = unportable_keywords(request.schema) if request.strict and endpoint.strict_schema == "portable" else []
    if refused:  # its strict mode rejects the schema before generating (a provider's 400, relayed)
        return HttpFailure(endpoint, 400, 0, ("strict_schema",), "schema_rejected", refused[0])
    enums = non_string_enums(request.tools) if endpoint.tool_enums == "strings" else []
    if enums:  # Gemini's function declarations take string enums only (a provider's 400, relayed)
        return HttpFailure(endpoint, 400, 0, ("tool_enums",), "tool_enums_rejected", enums[0])
    fired: tuple[str, ...] = drawn.names
    if drawn.fault is not None and drawn.fault.name == "wrong_provider":
        # Served elsewhere despite pinning; the other host then behaves as it always does.
        endpoint = _other_endpoint(model, endpoint, drawn.fault["to"], behaviour_of, rng)
        behaviour = behaviour_of(endpoint)
        drawn = draw(behaviour.faults, rng, exclude=frozenset({"wrong_provider"}), text=text)
        fired = ("wrong_provider", *drawn.names)
    if drawn.fault is not None and (failed := _failure(drawn.fault, request, endpoint, fired, rng)) is not None:
        return failed
    return _generation(request, endpoint, behaviour, drawn, fired, rng, usage_shape)


def _failure(fault: Fault, request: ChatRequest, endpoint: SimulatedEndpoint, fired: tuple[str, ...],
             rng: random.Random) -> Outcome | None:
    """What `fault` sends instead of a generated reply (a status, a hang, a moderation), or None: it generates."""
    if fault.name == "http_error" and not fault["in_band"]:
        return HttpFailure(endpoint, rng.choice(fault["statuses"]), fault["retry_after"], fired, fault["body"])
    if fault.name == "filter_error" and fault["where"] == "status":
        return HttpFailure(endpoint, 400, 0, fired, "filter", fault["error_type"])
    if fault.name == "relayed_refusal":
        return HttpFailure(endpoint, 403, None, fired, "refusal", fault["shape"])
    if fault.name == "tool_use_failed" and fault["where"] == "status":
        return HttpFailure(endpoint, 400, None, fired, "tool_use_failed")
    if fault.name == "guardrail" and fault["blocking"]:  # OpenRouter's, before any provider
        return HttpFailure(endpoint, 403, None, fired, "guardrail")
    if fault.name == "hang":
        return Hang(endpoint, fault["seconds"], fired)
    if fault.name == "moderation":
        return Moderated(endpoint, tuple(fault["reasons"]), flagged_input(request), fired)
    if (name := hostile.named_error(fault, dict(request.headers))) is not None:
        return HttpFailure(endpoint, 502, None, fired, "named", name)
    if fault.name == "echo_at_cut" and fault["into"] == "category":
        return Moderated(endpoint, hostile.echoed_categories(dict(request.headers)), flagged_input(request), fired)
    return None


def _generation(
    request: ChatRequest, endpoint: SimulatedEndpoint, behaviour: Behaviour, drawn: Draw,
    fired: tuple[str, ...], rng: random.Random, usage_shape: str,
) -> Plan:  # fmt: skip
    name = drawn.fault.name if drawn.fault else None
    params = drawn.fault.params if drawn.fault else NO_PARAMS
    text, finish = _text(request, all_banks(), name, params, rng), "stop"
    tools: tool_calls.ToolReply | None = None
    call_shape = trait(behaviour.faults, "tool_call_shape")
    if request.tools and request.format == "text" and name not in _NO_CALLS:
        tools = tool_calls.plan_tools(request, name if name in tool_calls.FAULTS else None, params, rng, text,
                                      call_shape)
        text, finish = tools.text, tools.finish_reason
    text, _ = tasks.apply_stop(text, request.stop, name)  # generation ends at a stop string: finish "stop"
    if name == "content_filter":
        keep = rng.random() < params["partial"]
        text, finish = (text[: int(len(text) * rng.uniform(0.1, 0.5))] if keep else ""), "content_filter"
    limit = min(request.max_tokens or 10**9, endpoint.max_completion_tokens or 10**9)
    thinking = _thinking(request, behaviour, limit)
    if tools is not None and tools.reasoning:  # tool_markup_leak into the reasoning
        thinking = Thinking(tools.reasoning, count_tokens(tools.reasoning), True, True)
    if thinking is not None:
        fired = (*fired, "thinking")
        if not _answer_cap(behaviour):
            limit -= thinking.tokens  # what the thinking left of the completion budget
    if count_tokens(text) > limit:
        text, finish = truncate_tokens(text, limit), "length"
    planned_calls: tuple[tool_calls.PlannedCall, ...] = ()
    call_cost = 0
    if tools is not None and tools.calls:
        planned_calls, call_cost, cut = tool_calls.fit_calls(tools.calls, max(0, limit - count_tokens(text)),
                                                             count_tokens, call_shape)
        finish = "length" if cut else finish
    # exact when slowed, so "measured TTFT >= injected delay" holds
    ttft_ms = (float(drawn.slow["delay_ms"]) if drawn.slow is not None
               else max(0.0, behaviour.ttft_ms + rng.uniform(-behaviour.jitter_ms, behaviour.jitter_ms)))
    text, cut_at, error, trailing, finish_reason = _stream_fault(name, params, text, finish, rng)
    prompt_tokens = _prompt_tokens(request, behaviour)
    sent = text[:cut_at] if cut_at is not None else text[: error.at] if error else text
    whole = cut_at is None and error is None and trailing is None
    calls = planned_calls if whole else ()
    completion_tokens = count_tokens(sent) + (thinking.tokens if thinking else 0) + (call_cost if calls else 0)
    if trailing is not None and limit < 10**9:  # the recorded shape: the reply reached max_tokens, and usage says so
        completion_tokens = max(completion_tokens, limit + (thinking.tokens if thinking else 0))
    usage_shape_drawn = (rng.choice(("null_finish", "empty_choices", "repeat_finish")) if usage_shape == "mixed"
                         else usage_shape)
    plan = Plan(
        served=endpoint, faults=fired, text=text, finish_reason=finish_reason,
        native_finish_reason=finish_reason, ttft_s=ttft_ms / 1000, tokens_per_second=behaviour.tokens_per_second,
        prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        cut_at=cut_at, error=error, usage_shape=usage_shape_drawn, thinking=thinking, trailing_error=trailing,
        tool_calls=calls, cached_tokens=_cached(behaviour, prompt_tokens), usage_delay_s=_usage_delay(behaviour),
        pipeline=_pipeline(name, request.format),
    )  # fmt: skip
    if name in defects.FAULTS:
        return defects.apply(plan, name, params, cap=request.max_tokens, truncate=truncate_tokens,
                             count_tokens=count_tokens)
    return hostile.apply(plan, name, params, dict(request.headers)) if name in hostile.FAULTS else plan


def _stream_fault(name: str | None, params: FaultParams, text: str, finish: str,
                  rng: random.Random) -> tuple[str, int | None, StreamError | None, StreamError | None, str | None]:
    """(text, cut_at, error, trailing error, finish_reason) of a reply under the stream fault `name`."""
    cut_at: int | None = None
    error: StreamError | None = None
    trailing: StreamError | None = None
    finish_reason: str | None = finish
    if name == "truncated_stream":
        cut_at, finish_reason = int(len(text) * params["after"]), None
    elif name == "mid_stream_error":
        shape = rng.choice(MID_STREAM_SHAPES) if params["shape"] == "random" else params["shape"]
        message, error_type = _ERRORS.get(params["code"], ("Provider returned error", "provider_unavailable"))
        error = StreamError(int(len(text) * params["after"]), shape, params["code"], message, error_type)
        finish_reason = None
    elif name == "http_error":  # in_band: the error is the stream's first and only event
        status = rng.choice(params["statuses"])
        message, error_type = _ERRORS.get(status, ("Provider returned error", "provider_unavailable"))
        text, error, finish_reason = "", StreamError(0, "in_band", status, message, error_type), None
    elif name == "filter_error":  # where: stream (an output filter after some text)
        error_type = params["error_type"]
        error = StreamError(int(len(text) * params["after"]), "documented", 400, FILTER_MESSAGES[error_type],
                            error_type)
        finish_reason = None
    elif name == "tool_use_failed":  # where: stream (the thinking first, then the host's rejection)
        text, finish_reason = "", None
        error = StreamError(0, "in_band", 400, "Provider returned error", "", raw=tool_calls.REJECTED_RAW)
    elif name == "length_then_error":
        text, finish_reason = text[: max(1, int(len(text) * 0.6))], "length"
        trailing = StreamError(len(text), "recorded_typed" if params["typed"] else "recorded", 400,
                               TOKEN_LIMIT_MESSAGE, "max_tokens_exceeded")
    return text, cut_at, error, trailing, finish_reason


def _prompt_tokens(request: ChatRequest, behaviour: Behaviour) -> int:
    """The prompt's tokens: its messages', and the host's tool template when tools are sent."""
    tokens = sum(count_tokens(str(m.get("content") or "")) + MESSAGE_OVERHEAD_TOKENS for m in request.messages)
    template = trait(behaviour.faults, "tool_template")
    return tokens + template["tokens"] if template is not None and request.tools else tokens


def _pipeline(name: str | None, response_format: str) -> tuple[dict[str, Any], ...]:
    """The router metadata's stages of a reply (docs/openrouter-wire.md §6: the documented types and
    names; the keys inside `data` are ours, the documentation names only what they tell)."""
    if name == "response_healing" and response_format != "text":
        return ({"type": "response_healing", "name": "response-healing",
                 "data": {"mode": response_format, "improved": True}},)
    if name == "guardrail":
        return ({"type": "guardrail", "name": "content-filter", "data": {"flagged": True, "action": "redacted"}},)
    return ()


def thinking_tokens(natural: int, reasoning: Reasoning | None, max_tokens: int | None) -> int:
    """How long a reasoning host thinks under the request's reasoning option (simulator/README.md)."""
    if reasoning is None:
        return natural
    if reasoning.off:
        return 0
    if reasoning.max_tokens is not None:
        return min(natural, reasoning.max_tokens)
    if reasoning.effort is not None and max_tokens is not None:
        return min(natural, int(max_tokens * EFFORT_SHARE[reasoning.effort]))
    return natural


def _answer_cap(behaviour: Behaviour) -> bool:
    """The host reads max_tokens as the answer's cap alone (its thinking comes on top)."""
    think = trait(behaviour.faults, "thinking")
    return think is not None and bool(think["answer_cap"])


def _cached(behaviour: Behaviour, prompt_tokens: int) -> int:
    reads = trait(behaviour.faults, "cache_reads")
    return int(prompt_tokens * reads["share"]) if reads is not None else 0


def _usage_delay(behaviour: Behaviour) -> float:
    delay = trait(behaviour.faults, "usage_delay")
    return delay["ms"] / 1000 if delay is not None else 0.0


def _thinking(request: ChatRequest, behaviour: Behaviour, limit: int) -> Thinking | None:
    think = trait(behaviour.faults, "thinking")
    if think is None:
        return None
    asked = request.reasoning is not None and not request.reasoning.off and (
        request.reasoning.effort is not None or request.reasoning.max_tokens is not None
        or request.reasoning.enabled is True)
    if not think["by_default"] and not think["mandatory"] and not asked:
        return None  # a hybrid model thinks only when asked ("enabled": inferred from effort or max_tokens)
    if think["answer_cap"]:  # max_tokens is the answer's: the thinking is bounded by its own budget only
        tokens = thinking_tokens(think["tokens"], request.reasoning, None)
    else:
        tokens = min(thinking_tokens(think["tokens"], request.reasoning, request.max_tokens), limit)
    if tokens <= 0:
        return None
    # Deterministic filler (no RNG draw), so a host's replies do not change with its thinking.
    text = " ".join(_THOUGHTS[i % len(_THOUGHTS)] for i in range(tokens // 8 + 1))
    shown = not (request.reasoning is not None and request.reasoning.exclude)
    return Thinking(truncate_tokens(text, tokens), tokens, shown, bool(think["readable"]), bool(think["itemised"]))


def flagged_input(request: ChatRequest) -> str:
    """The last user message, cut in the middle to 100 characters as OpenRouter's metadata is."""
    users = [m for m in request.messages if m.get("role") == "user"]
    text = str((users or list(request.messages))[-1].get("content") or "")
    if len(text) <= FLAGGED_INPUT_CHARS:
        return text
    keep = (FLAGGED_INPUT_CHARS - 3) // 2
    return f"{text[:keep]}...{text[-keep:]}"


def _text(
    request: ChatRequest, banks: dict[str, Bank], name: str | None, params: FaultParams, rng: random.Random
) -> str:
    own = banks.get(request.language, banks["en"])
    if name in ("refusal", "guardrail"):  # a guardrail's redacted prompt: the model declines what is left
        return rng.choice(own.refusals)
    if name == "empty_reply":
        return ""
    task = tasks.answer(request.messages, name, params, rng)
    if task is not None and request.format == "text":
        return task
    writer, sentences = own, own.pick(rng, rng.randint(*SENTENCES_PER_REPLY))
    if name == "short_reply" and request.format == "text":
        return corrupt.short_reply(sentences[0], params["words"], own.separator == " ")
    if name == "catch_phrase":
        sentences.insert(rng.randrange(len(sentences) + 1), rng.choice(params["phrases"]))
    if name == "language_switch":
        writer = banks[_other_language(params["to"], own.code, "es")]
        sentences = writer.pick(rng, len(sentences))
    elif name == "mix_language":
        other = banks[_other_language(params["with"], own.code, "pt")]
        sentences = corrupt.mix_language(sentences, own, other, params["level"], params["ratio"], rng)
    elif name == "repetition":
        sentences = corrupt.repetition(sentences, params["times"], rng)
    text = writer.join(sentences) if request.format == "text" else _json_text(request, sentences, name, rng)
    if name == "leading_garbage":
        text = corrupt.leading_garbage(text, params["fragments"], rng)
    elif name == "mojibake":
        text = corrupt.mojibake(text, params["encoding"])
    elif name == "replacement_char":
        text = corrupt.replacement_chars(text, params["density"], rng)
    return text


def _json_text(request: ChatRequest, phrases: list[str], fault: str | None, rng: random.Random) -> str:
    schema = request.schema or _DEFAULT_OBJECT_SCHEMA
    value = schema_gen.generate(schema, rng, phrases)
    if fault == "schema_violation":
        return schema_gen.dumps(schema_gen.violate(schema, value, rng))
    text = schema_gen.dumps(value)
    return schema_gen.malformed(text, rng) if fault == "schema_malformed" else text


def _other_language(wanted: str, own: str, fallback: str) -> str:
    """The fault's language, unless it is the requested one: then `fallback` (or es for pt)."""
    if wanted != own:
        return wanted
    return fallback if fallback != own else "es"


def _other_endpoint(
    model: Model, pinned: SimulatedEndpoint, to: str | None,
    behaviour_of: Callable[[SimulatedEndpoint], Behaviour], rng: random.Random,
) -> SimulatedEndpoint:
    others = [e for e in model.endpoints if e.tag != pinned.tag and behaviour_of(e).available]
    chosen = [e for e in others if e.tag == to]
    if chosen:
        return chosen[0]
    return rng.choice(others) if others else pinned

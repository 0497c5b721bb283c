"""Parsing a chat completion request body into the few fields the simulator acts on."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import SimulatorError
from simulator.language import detect_language

# Body keys that are sampling/format parameters, checked against supported_parameters when
# provider.require_parameters is true.
_PARAMETER_KEYS = frozenset({
    "max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k", "min_p", "top_a",
    "frequency_penalty", "presence_penalty", "repetition_penalty", "logit_bias", "logprobs",
    "top_logprobs", "seed", "stop", "tools", "tool_choice", "parallel_tool_calls", "response_format",
    "reasoning", "include_reasoning", "reasoning_effort", "verbosity", "web_search_options", "prediction",
})  # fmt: skip


EFFORTS = ("max", "xhigh", "high", "medium", "low", "minimal", "none")


class BadRequest(SimulatorError):
    """The body cannot be served; the message goes into a 400 error envelope."""


@dataclass(frozen=True, slots=True)
class Reasoning:
    """The request's reasoning controls: OpenRouter's unified `reasoning` object, or its older spellings
    (`reasoning_effort`, `include_reasoning: false`)."""

    effort: str | None = None
    max_tokens: int | None = None
    exclude: bool = False
    enabled: bool | None = None

    @property
    def off(self) -> bool:
        return self.enabled is False or self.effort == "none"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One function tool of a request: its name and its parameters' JSON Schema."""

    name: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What the simulator needs from one chat completion request."""

    model: str
    messages: tuple[Mapping[str, Any], ...]
    stream: bool
    max_tokens: int | None
    format: str  # "text", "json_object" or "json_schema"
    schema: Mapping[str, Any] | None
    provider: Mapping[str, Any]
    parameters: frozenset[str]
    language: str
    reasoning: Reasoning | None = None   # None: the request says nothing about reasoning
    headers: tuple[tuple[str, str], ...] = ()   # as received, unmasked: only a hostile host echoes them
    strict: bool = False                 # response_format json_schema with `strict: true`
    tools: tuple[ToolSpec, ...] = ()     # the `tools` of the request (function tools only)
    stop: tuple[str, ...] = ()           # the request's stop strings (OpenAI's `stop`: a string or up to 4)

    @property
    def messages_hash(self) -> str:
        """Identifies the conversation, so identical requests count as repeated attempts."""
        blob = json.dumps(self.messages, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def parse_chat_request(body: Any) -> ChatRequest:
    """Validate the body the way OpenRouter rejects bad ones (400 with a message)."""
    if not isinstance(body, Mapping):
        raise BadRequest("Invalid request body: expected a JSON object")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("Invalid request body: `model` is required")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or not all(isinstance(m, Mapping) for m in messages):
        raise BadRequest("Invalid request body: `messages` must be a non-empty array of messages")
    for i, message in enumerate(messages):
        if message.get("role") not in ("system", "developer", "user", "assistant", "tool"):
            raise BadRequest(f"Invalid request body: messages[{i}].role is invalid")
    provider = body.get("provider") or {}
    if not isinstance(provider, Mapping):
        raise BadRequest("Invalid request body: `provider` must be an object")
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
        raise BadRequest("Invalid request body: `max_tokens` must be a positive integer")
    kind, schema = _response_format(body.get("response_format"))
    parameters = {key for key in body if key in _PARAMETER_KEYS}
    if kind == "json_schema":
        parameters.add("structured_outputs")
    return ChatRequest(
        model=model,
        messages=tuple(messages),
        stream=bool(body.get("stream", False)),
        max_tokens=max_tokens,
        format=kind,
        schema=schema,
        provider=provider,
        parameters=frozenset(parameters),
        language=detect_language(messages),
        reasoning=_reasoning(body),
        strict=kind == "json_schema" and body["response_format"]["json_schema"].get("strict") is True,
        tools=_tools(body.get("tools")),
        stop=_stop(body.get("stop")),
    )


def _tools(value: Any) -> tuple[ToolSpec, ...]:
    """`tools: [{type: function, function: {name, description, parameters}}]`, as OpenAI shapes them."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise BadRequest("Invalid tools: expected an array")
    out = []
    for i, tool in enumerate(value):
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str) or not function["name"]:
            raise BadRequest(f"Invalid tools[{i}]: function.name is required")
        parameters = function.get("parameters", {"type": "object", "properties": {}})
        if not isinstance(parameters, Mapping):
            raise BadRequest(f"Invalid tools[{i}]: function.parameters must be an object")
        out.append(ToolSpec(function["name"], parameters))
    return tuple(out)


# The keywords every strict mode takes; others may be refused (simulator.scenario SimulatedEndpoint.strict_schema).
PORTABLE_SCHEMA_KEYWORDS = frozenset({"type", "properties", "enum", "required", "additionalProperties", "items"})


def unportable_keywords(schema: Any) -> list[str]:
    """The keywords of `schema` (nested too) outside the portable subset, sorted."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if not isinstance(node, Mapping):
            return
        for key, value in node.items():
            if key not in PORTABLE_SCHEMA_KEYWORDS:
                found.add(str(key))
            elif key == "properties" and isinstance(value, Mapping):
                for sub in value.values():
                    walk(sub)
            elif key == "items":
                walk(value)

    walk(schema)
    return sorted(found)


def non_string_enums(tools: Sequence[ToolSpec]) -> list[str]:
    """Where the tools' parameter schemas put an `enum` on a non-string type or a non-string value
    in one, in Gemini's words (`tools[0].function_declarations[1].parameters.properties[sides]`).

    Gemini's function declarations take an enum only on a STRING (anomalyco/opencode#28397:
    "enum: only allowed for STRING type"; #12784: numeric values "(TYPE_STRING)")."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, Mapping):
            return
        values = node.get("enum")
        if isinstance(values, list) and (node.get("type", "string") != "string"
                                         or not all(isinstance(v, str) for v in values)):
            found.append(path)
        properties = node.get("properties")
        for key, sub in (properties.items() if isinstance(properties, Mapping) else ()):
            walk(sub, f"{path}.properties[{key}]")
        walk(node.get("items"), f"{path}.items")

    for index, tool in enumerate(tools):
        walk(tool.parameters, f"tools[0].function_declarations[{index}].parameters")
    return found


MAX_STOP_SEQUENCES = 4


def _stop(value: Any) -> tuple[str, ...]:
    """`stop`: null, one string, or a list of up to 4 non-empty strings."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if (not isinstance(items, list) or len(items) > MAX_STOP_SEQUENCES
            or not all(isinstance(s, str) and s for s in items)):
        raise BadRequest(f"Invalid stop: expected a string or a list of up to {MAX_STOP_SEQUENCES} strings")
    return tuple(items)


def _reasoning(body: Mapping[str, Any]) -> Reasoning | None:
    raw, effort, include = body.get("reasoning"), body.get("reasoning_effort"), body.get("include_reasoning")
    if raw is None and effort is None and include is None:
        return None
    if raw is not None and not isinstance(raw, Mapping):
        raise BadRequest("Invalid reasoning: expected an object")
    raw = raw or {}
    effort = raw.get("effort", effort)
    if effort is not None and effort not in EFFORTS:
        raise BadRequest(f"Invalid reasoning.effort: expected one of {', '.join(EFFORTS)}")
    budget = raw.get("max_tokens")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 0):
        raise BadRequest("Invalid reasoning.max_tokens: expected a non-negative integer")
    if budget is not None and raw.get("effort") is not None:
        raise BadRequest("Invalid reasoning: send effort or max_tokens, not both")
    for key in ("exclude", "enabled"):
        if raw.get(key) is not None and not isinstance(raw[key], bool):
            raise BadRequest(f"Invalid reasoning.{key}: expected a boolean")
    if include is not None and not isinstance(include, bool):
        raise BadRequest("Invalid include_reasoning: expected a boolean")
    exclude = bool(raw.get("exclude", False)) or include is False
    return Reasoning(effort=effort, max_tokens=budget, exclude=exclude, enabled=raw.get("enabled"))


def _response_format(value: Any) -> tuple[str, Mapping[str, Any] | None]:
    if value is None:
        return "text", None
    if not isinstance(value, Mapping) or value.get("type") not in ("text", "json_object", "json_schema"):
        raise BadRequest("Invalid response_format: `type` must be one of text, json_object, json_schema")
    if value["type"] != "json_schema":
        return str(value["type"]), None
    spec = value.get("json_schema")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("name"), str) or not spec["name"]:
        raise BadRequest("Invalid response_format: json_schema.name is required")
    schema = spec.get("schema")
    if not isinstance(schema, Mapping):
        raise BadRequest("Invalid response_format: json_schema.schema must be an object")
    return "json_schema", schema

"""Tool calls: what a host answers to a request with `tools`, healthy or with a planted defect (pure; the
faults and the `tool_call_shape` trait: simulator/README.md, Tool calls and Traits). A healthy host calls
every tool with the arguments the last user message states as `name=value`, the rest drawn from the
schema, streamed as OpenRouter relays it (docs/openrouter-wire.md §3). On a request without `tools`
these faults fire nothing. `tool_use_failed` is not planned here: it is an error (REJECTED_RAW).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from simulator import schema_gen
from simulator.faults import Fault, FaultParams
from simulator.request import ChatRequest, ToolSpec

FAULTS = frozenset({"tool_markup_leak", "tool_schema_break", "tool_args_twice", "tool_no_arguments",
                    "tool_finish_stop", "tool_prose"})
DIALECTS = ("kimi", "hermes", "mistral", "deepseek", "glm", "qwen3_coder")
FRAGMENT_CHARS = 6                      # an argument fragment of about one token or two, as recorded
_STATED = re.compile(r"\b([A-Za-z_]\w*)=(\"[^\"]*\"|-?\d+)")
# Groq's 400 for a call its model wrote and it would not relay (docs/openrouter-wire.md §5): the
# message as agno-agi/agno#4090 and huggingface/smolagents#1119 quote it, the generation as gpt-oss
# on Groq wrote it in BerriAI/litellm#21242 (a tool no request offered).
REJECTED_GENERATION = ('{"name": "repo_browser.open_file", "arguments": {\n  "path": "analysis",\n'
                       '  "line_start": 1,\n  "line_end": 200\n}}')
REJECTED_RAW = json.dumps({"error": {
    "message": "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
    "type": "invalid_request_error", "code": "tool_use_failed", "failed_generation": REJECTED_GENERATION}})


@dataclass(frozen=True, slots=True)
class PlannedCall:
    """One call as the stream sends it: its id, name and argument fragments in order."""

    id: str
    name: str
    fragments: tuple[str, ...]

    @property
    def arguments(self) -> str:
        return "".join(self.fragments)


@dataclass(frozen=True, slots=True)
class ToolReply:
    """What a tools request gets instead of the usual text: calls (or leaked text) and the finish."""

    text: str
    reasoning: str
    calls: tuple[PlannedCall, ...]
    finish_reason: str


def stated_arguments(request: ChatRequest) -> dict[str, Any]:
    """`name=value` pairs of the last user message (`room="tower"`, `nights=2`)."""
    users = [m for m in request.messages if m.get("role") == "user"]
    text = str((users or list(request.messages))[-1].get("content") or "")
    out: dict[str, Any] = {}
    for key, raw in _STATED.findall(text):
        out[key] = raw[1:-1] if raw.startswith('"') else int(raw)
    return out


def arguments_for(tool: ToolSpec, stated: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """The tool's stated arguments, and its other required properties drawn from the schema."""
    props = tool.parameters.get("properties") or {}
    required = set(tool.parameters.get("required") or ())
    out: dict[str, Any] = {}
    for key, sub in props.items():
        if key in stated:
            out[key] = stated[key]
        elif key in required and isinstance(sub, Mapping):
            out[key] = schema_gen.generate(sub, rng, ["a quiet room"])
    return out


def fragments(text: str) -> tuple[str, ...]:
    return tuple(text[i:i + FRAGMENT_CHARS] for i in range(0, len(text), FRAGMENT_CHARS))


def plan_tools(request: ChatRequest, fault: str | None, params: FaultParams, rng: random.Random,
               prose: str, shape: Fault | None = None) -> ToolReply:
    """The reply to a tools request under `fault` (None or a non-tool fault: healthy). `prose`:
    the text a model that does not call would write; `shape`: the host's `tool_call_shape` trait."""
    stated = stated_arguments(request)
    values = [(t, arguments_for(t, stated, rng)) for t in request.tools]
    if fault == "tool_prose":
        return ToolReply(prose, "", (), "stop")
    if fault == "tool_markup_leak":
        leaked = markup(params["dialect"], values)
        text, reasoning = (leaked, "") if params["into"] == "content" else ("", leaked)
        return ToolReply(text, reasoning, (), "stop")
    if fault == "tool_schema_break":
        values = [(t, schema_gen.violate(t.parameters, v, rng)) for t, v in values]
    calls = []
    for index, (tool, value) in enumerate(values):
        arguments = json.dumps(value, ensure_ascii=False)
        parts = fragments(arguments)
        if fault == "tool_args_twice":
            parts = (*parts, arguments)  # the host's buffer sent again after the fragments
        elif fault == "tool_no_arguments":
            parts = ()
        calls.append(PlannedCall(f"call_{rng.getrandbits(48):012x}_{index}", tool.name, parts))
    finish = "stop" if fault == "tool_finish_stop" else shape["finish"] if shape is not None else "tool_calls"
    text = preamble(prose) if shape is not None and shape["text"] else ""
    return ToolReply(text, "", tuple(calls), finish)


def preamble(prose: str) -> str:
    """The first sentence of what the model would say: the line in character before its calls."""
    head = re.split(r"(?<=[.!?。！？])\s*", prose.strip(), maxsplit=1)[0]
    return head or prose.strip()


def call_tokens(call: PlannedCall, count: Callable[[str], int], shape: Fault | None) -> int:
    """Completion tokens one call costs: its name and arguments, at least the shape's per-call figure."""
    own = count(call.name) + count(call.arguments)
    return max(own, shape["tokens_per_call"]) if shape is not None else own


def fit_calls(calls: Sequence[PlannedCall], budget: int, count: Callable[[str], int],
              shape: Fault | None) -> tuple[tuple[PlannedCall, ...], int, bool]:
    """(the calls that fit `budget` tokens, the tokens they cost, whether max_tokens cut them)."""
    kept: list[PlannedCall] = []
    used = 0
    for call in calls:
        cost = call_tokens(call, count, shape)
        if used + cost <= budget:
            kept.append(call)
            used += cost
            continue
        half = call.arguments[: len(call.arguments) // 2]  # the call that overflowed, cut mid-arguments
        kept.append(replace(call, fragments=fragments(half)))
        return tuple(kept), max(used, budget), True
    return tuple(kept), used, False


def markup(dialect: str, values: Sequence[tuple[ToolSpec, Mapping[str, Any]]]) -> str:
    """The calls written in a model family's own tool-call markup (the leak a broken parser lets through)."""
    out = []
    for index, (tool, value) in enumerate(values):
        args = json.dumps(value, ensure_ascii=False)
        if dialect == "kimi":
            out.append(f"<|tool_call_begin|>functions.{tool.name}:{index}<|tool_call_argument_begin|>{args}"
                       "<|tool_call_end|>")
        elif dialect == "hermes":
            out.append(f'<tool_call>\n{{"name": "{tool.name}", "arguments": {args}}}\n</tool_call>')
        elif dialect == "mistral":
            out.append(f"[TOOL_CALLS]{tool.name}[ARGS]{args}")
        elif dialect == "deepseek":
            out.append(f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{tool.name}\n"
                       f"```json\n{args}\n```<｜tool▁call▁end｜>")
        elif dialect == "glm":
            pairs = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in value.items())
            out.append(f"<tool_call>{tool.name}\n{pairs}</tool_call>")
        else:  # qwen3_coder
            params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in value.items())
            out.append(f"<tool_call>\n<function={tool.name}>\n{params}</function>\n</tool_call>")
    text = "\n".join(out)
    if dialect == "kimi":
        return f"<|tool_calls_section_begin|>{text}<|tool_calls_section_end|>"
    if dialect == "deepseek":
        return f"<｜tool▁calls▁begin｜>{text}<｜tool▁calls▁end｜>"
    return text

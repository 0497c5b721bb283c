"""Tool calls: the streamed reply to a request with two tools, judged in a fixed order (pure;
docs/contracts.md, Tools). A wrong finish reason on valid calls and argument values other than the
prompt's are notes, never failing; `judge_rejected` judges a call the host rejected itself (Groq's
`tool_use_failed`) by its `failed_generation`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from core.untrusted import TooDeep, clean, load_json
from judge.replies.verdict import Verdict, failed, inconclusive, passed


class ToolsCode(StrEnum):
    """The codes of the tools judge and contract (judge/replies/verdict.py)."""

    TOOL_MARKUP_LEAK = "tool_markup_leak"
    EMPTY_REPLY = "empty_reply"
    INVALID_JSON = "invalid_json"
    DUPLICATED_ARGUMENTS = "duplicated_arguments"
    UNKNOWN_NAME = "unknown_name"
    SCHEMA_MISMATCH = "schema_mismatch"
    NO_TOOL_CALL = "no_tool_call"       # prose instead of a call: inconclusive; the judge weighs it against the peers
    MAX_TOKENS_CUT = "max_tokens_cut"   # the contract's: the reply reached our max_tokens
    TOOLS_UNRESOLVED = "tools_unresolved"  # the contract's: the confirmations did not agree
    TOOL_USE_FAILED = "tool_use_failed"    # the host rejected its model's call and sent an error instead


MARKUP = "tools: markup leaked"
EMPTY = "tools: empty reply"
INVALID_JSON = "tools: invalid JSON arguments"
DUPLICATED = "tools: arguments streamed twice"   # `{...}{...}`: the stream sent them again, vllm-project/vllm#51697
UNKNOWN_NAME = "tools: unknown tool name"
SCHEMA = "tools: schema mismatch"
PROSE = "tools: prose instead of a call"
PASSED = "tools: valid tool calls"
REJECTED = "tools: the host rejected its own call (tool_use_failed)"
EXCERPT_CHARS = 60       # of a leaked marker's surroundings, or of a bad argument string, in a reason
MESSAGE_CHARS = 160      # of a validator message

# Tool-call markup of the open model families, as vllm's parsers match it (vllm/entrypoints/openai/tool_parsers/)
# and as leaks were reported (Kimi K2's as plain content: NousResearch/hermes-agent#24534; GLM's `<arg_key>`;
# Kimi's `<|open|>tools`: can1357/oh-my-pi#8495). Each is specific enough that prose does not write it by accident.
DIALECTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(pattern)) for name, pattern in (
    # Kimi K2: <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{...}
    ("Kimi K2", r"<\|tool_calls?_section_begin\|>|<\|tool_call_argument_begin\|>"),
    ("Kimi K2 call id", r"\bfunctions\.[A-Za-z_][\w\-]*:\d+"),
    ("Kimi", r"<\|open\|>tools"),
    # <|tool_call|> (Granite), <|tool_call_start|> (LFM2), <|tool_call_begin|> (Kimi)
    ("<|tool_call", r"<\|tool_calls?(?:_begin|_start)?\|>"),
    # Hermes, Qwen2.5/Qwen3, GLM-4.5+, Qwen3-Coder: <tool_call>{"name": ...}</tool_call>
    ("Hermes/Qwen", r"</?tool_call>"),
    ("Seed-OSS", r"<seed:tool_call>"),
    ("Qwen3-Coder", r"<function=[\w\-.]+>|<parameter=[\w\-.]+>"),
    ("GLM", r"<arg_key>|<arg_value>"),
    # Mistral: [TOOL_CALLS]name[ARGS]{...} (tokenizer v11) or [TOOL_CALLS][{...}]
    ("Mistral", r"\[TOOL_CALLS\]|\[ARGS\]\{"),
    # DeepSeek V3 / V3.1: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name; V3.2 DSML
    ("DeepSeek", r"<[|｜]tool[▁_ ]calls?[▁_ ]begin[|｜]>|<[|｜]tool[▁_ ]sep[|｜]>"),
    ("DeepSeek DSML", r"<[|｜]DSML[|｜]"),
    # Llama 3.1+: <|python_tag|>{"name": ..., "parameters": ...}
    ("Llama", r"<\|python_tag\|>"),
    # gpt-oss (harmony): <|channel|>commentary to=functions.get_weather<|message|>{...}<|call|>
    ("harmony", r"<\|call\|>|\bto=functions\.[A-Za-z_]"),
    # MiniMax: <minimax:tool_call><invoke name="..."><parameter name="...">; Anthropic-style leaks
    ("MiniMax", r"<minimax:tool_call>"),
    ("invoke", r"<invoke name=\"|<function_calls>"),
))


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool of the request: its name, its parameters' JSON Schema, the values the prompt states."""

    name: str
    parameters: Mapping[str, Any]
    expected: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Call:
    """One streamed call as assembled by index (probes/http/records.py StreamedToolCall)."""

    index: int
    name_parts: tuple[str, ...]
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolsVerdict:
    verdict: Verdict
    notes: tuple[str, ...] = ()


def leaked_markup(text: str) -> str | None:
    """'Kimi K2 markup "…<|tool_call_begin|>…"' for the first dialect found in `text`, else None."""
    for name, pattern in DIALECTS:
        found = pattern.search(text)
        if found:
            start = max(0, found.start() - 10)
            return f"{name} markup {json.dumps(clean(text[start:found.end() + 20], EXCERPT_CHARS), ensure_ascii=False)}"
    return None


def shown_name(name: str) -> str:
    """A tool name as a reason quotes it. A name that cleaning would change (a lone surrogate, a
    control or bidi character: each a space or nothing once cleaned) is shown escaped with ascii(),
    or "roll_dice\ud800" would read `names "roll_dice "` beside `the request has roll_dice`."""
    if not name:
        return "no name"
    if clean(name, len(name) + 1) == name:
        return json.dumps(clean(name, EXCERPT_CHARS), ensure_ascii=False)
    return clean(ascii(name), EXCERPT_CHARS)


def call_name(call: Call, names: Sequence[str]) -> str:
    """The call's name: its fragments joined, or the one name every fragment repeats (some hosts repeat
    it on each fragment: that is `book_room`, not `book_roombook_room`)."""
    joined = "".join(call.name_parts)
    if joined in names or not call.name_parts:
        return joined
    if len(set(call.name_parts)) == 1:
        return call.name_parts[0]
    return joined


def assess(text: str, reasoning: str, calls: Sequence[Call], tools: Sequence[Tool],
           finish_reason: str | None) -> ToolsVerdict:
    """Judge one completed reply to the tools request, in docs/contracts.md's order."""
    for where, value in (("content", text), ("reasoning", reasoning)):
        leak = leaked_markup(value)
        if leak is not None:
            return ToolsVerdict(failed(ToolsCode.TOOL_MARKUP_LEAK, f"{MARKUP} into the {where}: {leak}"))
    if not calls:
        if not text.strip():
            return ToolsVerdict(failed(ToolsCode.EMPTY_REPLY,
                f"{EMPTY}: no text and no tool call (finish_reason {finish_reason!r})"))
        return ToolsVerdict(inconclusive(ToolsCode.NO_TOOL_CALL,
                                         f"{PROSE}: {len(text)} characters of text and no tool call"))
    by_name = {t.name: t for t in tools}
    parsed: list[tuple[Call, Any]] = []
    for call in calls:
        value, problem = _arguments(call)
        if problem is not None:
            return ToolsVerdict(problem)
        parsed.append((call, value))
    for call, _ in parsed:
        name = call_name(call, tuple(by_name))
        if name not in by_name:
            return ToolsVerdict(failed(ToolsCode.UNKNOWN_NAME,
                                       f"{UNKNOWN_NAME}: call {call.index} names {shown_name(name)}, "
                                       f"the request has {', '.join(sorted(by_name))}"))
    notes: list[str] = []
    for call, value in parsed:
        tool = by_name[call_name(call, tuple(by_name))]
        mismatch = _schema_mismatch(tool, value)
        if mismatch is not None:
            return ToolsVerdict(failed(ToolsCode.SCHEMA_MISMATCH, mismatch))
        notes.extend(_value_notes(tool, value))
    if finish_reason != "tool_calls":
        notes.append(f"finish_reason {finish_reason!r} on a reply with valid tool calls (expected 'tool_calls')")
    called = ", ".join(call_name(c, tuple(by_name)) for c, _ in parsed)
    return ToolsVerdict(passed(f"{PASSED}: {called}"), tuple(notes))


def judge_rejected(generation: str, tools: Sequence[Tool]) -> Verdict:
    """The failed verdict on a call the host rejected itself: the checks' finding in its
    `failed_generation` when they find one, else the rejection."""
    if not generation.strip():
        return failed(ToolsCode.TOOL_USE_FAILED, f"{REJECTED}, an error in place of the call, no failed_generation")
    calls = _generated_calls(generation)
    found = assess("" if calls else generation, "", calls, tools, "tool_calls").verdict
    if found.failed:
        return found.restated(f"{REJECTED}: {found.reason.removeprefix('tools: ')}")
    shown = json.dumps(clean(generation, EXCERPT_CHARS), ensure_ascii=False)
    return failed(ToolsCode.TOOL_USE_FAILED, f"{REJECTED}, an error in place of the call: its generation {shown}")


def _generated_calls(generation: str) -> tuple[Call, ...]:
    """A generation written as calls' JSON (`{"name": ..., "arguments": {...}}`, as gpt-oss on Groq
    writes it, or a list of them) as Calls; () for anything else, which is judged as text."""
    try:
        value = load_json(generation)
    except ValueError:  # not JSON (markup, prose), or too deep
        return ()
    items = value if isinstance(value, list) else [value]
    calls = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return ()
        arguments = item.get("arguments", item.get("parameters", {}))
        calls.append(Call(index, (item["name"],), arguments if isinstance(arguments, str) else json.dumps(arguments)))
    return tuple(calls)


def _schema_mismatch(tool: Tool, value: Any) -> str | None:
    """The reason arguments break the tool's schema (jsonschema Draft 7), or None."""
    # Imported here: judge/suspension/tool_prose.py reads this module's codes, and the
    # backend's provider_ignore library (through the judge's state) must not import jsonschema.
    from jsonschema import Draft7Validator
    from jsonschema.exceptions import best_match

    errors = list(Draft7Validator(dict(tool.parameters)).iter_errors(value))
    if not errors:
        return None
    error = best_match(errors)
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"{SCHEMA}: {tool.name} arguments at ${path}: {clean(error.message, MESSAGE_CHARS)}"


def _arguments(call: Call) -> tuple[Any, Verdict | None]:
    """(the parsed arguments object, None) or (None, the failed verdict)."""
    raw = call.arguments.strip()
    if not raw:
        # No arguments at all is how real hosts call a tool whose parameters are all optional (Claude
        # via Google Vertex omits the key: a recorded pydantic-ai exchange): read it as {} and let the
        # tool's schema decide, so a call missing a required argument still fails, on the schema.
        return {}, None
    try:
        value = load_json(raw)
    except TooDeep as error:
        return None, failed(ToolsCode.INVALID_JSON, f"{INVALID_JSON}: call {call.index} arguments: {error}")
    except ValueError:
        objects = _concatenated_objects(raw)
        if len(objects) >= 2:
            same = " (the same object each time)" if all(o == objects[0] for o in objects) else ""
            return None, failed(ToolsCode.DUPLICATED_ARGUMENTS,
                                f"{DUPLICATED}: call {call.index} carries {len(objects)} JSON objects "
                                f"back to back{same}")
        shown = json.dumps(clean(raw, EXCERPT_CHARS), ensure_ascii=False)
        return None, failed(ToolsCode.INVALID_JSON,
                            f"{INVALID_JSON}: call {call.index} arguments do not parse as JSON: {shown}")
    if not isinstance(value, dict):
        return None, failed(ToolsCode.INVALID_JSON, f"{INVALID_JSON}: call {call.index} arguments are JSON "
                                                    f"but not an object ({type(value).__name__})")
    return value, None


def _concatenated_objects(raw: str) -> list[Any]:
    """The JSON objects `raw` consists of, back to back (`{...}{...}`); [] when it is anything else."""
    decoder = json.JSONDecoder()
    out: list[Any] = []
    at = 0
    while at < len(raw):
        try:
            value, end = decoder.raw_decode(raw, at)
        except ValueError:
            return []
        if not isinstance(value, dict):
            return []
        out.append(value)
        at = end
        while at < len(raw) and raw[at].isspace():
            at += 1
    return out


def _value_notes(tool: Tool, value: Mapping[str, Any]) -> list[str]:
    """Arguments other than the prompt's stated values: a note each (a model's slip, not the host's)."""
    return [f"{tool.name}.{key} = {json.dumps(value.get(key), ensure_ascii=False)[:EXCERPT_CHARS]}, the prompt "
            f"says {json.dumps(want, ensure_ascii=False)}"
            for key, want in tool.expected.items() if value.get(key) != want]

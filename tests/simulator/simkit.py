"""Helpers for the simulator tests: request bodies, a careful raw SSE reader, scenario dicts.

A uniquely named module (not conftest) so `from simkit import ...` never meets another folder's conftest.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

MODEL = "deepseek/deepseek-chat-v3-0324"
KEY = {"Authorization": "Bearer sk-or-test-key-0123456789"}
FAST = {"ttft_ms": 0, "tokens_per_second": 100000}


def chat_body(
    tag: str | None = None, *, language: str = "Portuguese", stream: bool = True, **extra: Any
) -> dict[str, Any]:
    """A probe-like request, pinned to `tag` with fallbacks off when a tag is given."""
    body: dict[str, Any] = {
        "model": MODEL,
        "stream": stream,
        "messages": [
            {"role": "system", "content": f"You are a roleplay partner. Always reply in {language}."},
            {"role": "user", "content": "*I open the tavern door.* Continue the scene."},
        ],
        **extra,
    }
    if tag is not None:
        body["provider"] = {"order": [tag], "only": [tag], "allow_fallbacks": False}
    return body


@dataclass
class StreamResult:
    """What a careful SSE reader saw."""

    status: int
    headers: httpx.Headers
    chunks: list[dict[str, Any]] = field(default_factory=list)
    comments: int = 0
    done: bool = False
    dropped: bool = False
    first_content_s: float | None = None
    error_body: Any = None

    @property
    def text(self) -> str:
        return "".join(c["choices"][0]["delta"].get("content") or "" for c in self.chunks if c.get("choices"))

    @property
    def finish_reason(self) -> str | None:
        reasons = [c["choices"][0]["finish_reason"] for c in self.chunks if c.get("choices")]
        return next((r for r in reversed(reasons) if r), None)

    @property
    def providers(self) -> set[str]:
        return {c["provider"] for c in self.chunks}

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [c for c in self.chunks if "error" in c]


def stream_chat(base_url: str, body: dict[str, Any], timeout: float = 20.0,
                headers: dict[str, str] | None = None) -> StreamResult:
    started = time.monotonic()
    with (
        httpx.Client(timeout=timeout) as client,
        client.stream("POST", f"{base_url}/chat/completions", json=body, headers={**KEY, **(headers or {})}) as resp,
    ):
        result = StreamResult(resp.status_code, resp.headers)
        if resp.status_code != 200:
            resp.read()
            result.error_body = resp.json()
            return result
        try:
            for line in resp.iter_lines():
                if line.startswith(":"):
                    result.comments += 1
                elif line == "data: [DONE]":
                    result.done = True
                elif line.startswith("data: "):
                    chunk = json.loads(line[6:])
                    has_text = any(c["delta"].get("content") for c in chunk.get("choices", []))
                    if result.first_content_s is None and has_text:
                        result.first_content_s = time.monotonic() - started
                    result.chunks.append(chunk)
        except httpx.RemoteProtocolError:
            result.dropped = True
    return result


def one_endpoint_scenario(faults: dict[str, Any] | None = None, **behaviour: Any) -> dict[str, Any]:
    """A scenario dict with a faulty `test/fp8` and a healthy `spare/fp8` of the same model."""
    return {
        "name": "test",
        "keepalive_ms": 20,
        "models": [{
            "id": MODEL,
            "endpoints": [
                {"tag": "test/fp8", "provider_name": "Testhost",
                 "behaviour": {**FAST, **behaviour, "faults": faults or {}}},
                {"tag": "spare/fp8", "provider_name": "Sparehost", "behaviour": dict(FAST)},
            ],
        }],
    }  # fmt: skip


# The tools contract's request, as the tool-call tests send it.
TOOLS = [
    {"type": "function", "function": {"name": "book_room", "parameters": {
        "type": "object", "properties": {"room": {"type": "string", "enum": ["tower", "cellar"]},
                                         "nights": {"type": "integer"}},
        "required": ["room", "nights"], "additionalProperties": False}}},
    {"type": "function", "function": {"name": "roll_dice", "parameters": {
        "type": "object", "properties": {"sides": {"type": "integer"}}, "required": ["sides"]}}},
]
ASK = 'Book it. (Call book_room with room="tower" and nights=2, and roll_dice with sides=20.)'


def tools_body(**extra: object) -> dict:
    """A tools request: the two tools and a turn that states both calls' arguments."""
    b = chat_body("test/fp8", tools=TOOLS, **extra)
    b["messages"][-1]["content"] = ASK
    return b


def calls_of(result) -> dict[int, dict]:
    """The streamed tool calls of `result` by index: name, arguments, argument fragments, ids."""
    out: dict[int, dict] = {}
    for chunk in result.chunks:
        for part in (chunk.get("choices") or [{}])[0].get("delta", {}).get("tool_calls") or []:
            call = out.setdefault(part["index"], {"name": "", "arguments": "", "fragments": 0, "ids": []})
            fn = part.get("function", {})
            call["name"] += fn.get("name") or ""
            call["arguments"] += fn.get("arguments") or ""
            call["fragments"] += bool(fn.get("arguments"))
            if "id" in part:
                call["ids"].append(part["id"])
    return out

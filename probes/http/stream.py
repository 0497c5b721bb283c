"""Accumulates one streamed chat completion from parsed SSE items: a pure state machine. The client
owns the socket and the clock; this module decides what each item means, so the rules of
docs/openrouter-wire.md §3 live in one testable place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.key_mask import KeyMask
from core.untrusted import load_json, pair_surrogates
from probes.http.errors import ErrorFacts
from probes.http.records import RouterMetadata, StreamedToolCall, Usage
from probes.http.sse import Comment, Event, Item

# 64 K characters is ~30x the largest probe reply (max_tokens 200); an endless stream stops here.
MAX_TEXT_CHARS = 64 * 1024


@dataclass(slots=True)
class StreamState:
    """What the stream has said so far. `feed` returns False once reading should stop."""

    max_chars: int = MAX_TEXT_CHARS
    # Masks the key in what is cut here, before the cut (a quoted event, an error, a name, text at
    # the cap); the rest is masked whole when the result is frozen (probes/http/exchange.py).
    mask: KeyMask = field(default_factory=lambda: KeyMask(None))
    text_parts: list[str] = field(default_factory=list)
    reasoning_parts: list[str] = field(default_factory=list)
    text_len: int = 0
    reasoning_len: int = 0
    reasoning_seen: bool = False   # reasoning text or `reasoning_details` (possibly encrypted only)
    finish_reason: str | None = None
    native_finish_reason: str | None = None
    usage: Usage | None = None
    providers: list[str] = field(default_factory=list)
    served_model: str | None = None
    generation_id: str | None = None
    service_tier: str | None = None
    router: RouterMetadata | None = None    # `openrouter_metadata`: on the final chunk before [DONE] (§6)
    error_message: str | None = None
    error_facts: ErrorFacts | None = None   # the first error object's facts (token limit, filter...)
    finish_before_error: str | None = None  # the finish reason seen before the first error (§3: `length`)
    malformed: str | None = None
    done: bool = False
    truncated: bool = False
    keepalives: int = 0
    chunks: int = 0
    ttft_s: float | None = None
    first_event_s: float | None = None
    last_content_s: float | None = None   # the last non-empty content delta
    finish_s: float | None = None         # the first chunk carrying a finish reason
    calls: dict[int, _CallParts] = field(default_factory=dict)   # `delta.tool_calls` by index
    arguments_len: int = 0
    calls_dropped: int = 0   # call fragments of indexes past the first MAX_TOOL_CALLS (not kept)

    @property
    def tool_calls(self) -> tuple[StreamedToolCall, ...]:
        return tuple(c.frozen(i) for i, c in sorted(self.calls.items()))

    @property
    def text(self) -> str:
        return pair_surrogates("".join(self.text_parts))  # an emoji split across chunks is one again

    @property
    def reasoning_text(self) -> str:
        return pair_surrogates("".join(self.reasoning_parts))

    def feed(self, item: Item, now: float) -> bool:
        """Apply one SSE item seen at `now` (seconds since send); False means stop reading."""
        if isinstance(item, Comment):
            self.keepalives += 1
            return True
        assert isinstance(item, Event)
        if self.first_event_s is None:
            self.first_event_s = now
        if item.data.strip() == "[DONE]":
            self.done = True
            return False
        if not item.valid_utf8:
            self.malformed = "a data event is not valid UTF-8"
            return False
        try:
            chunk = load_json(item.data)
        except ValueError:  # a deeply nested event too (TooDeep): never a RecursionError
            self.malformed = f"a data event is not JSON: {self.mask.head(item.data, 120)!r}"
            return False
        if not isinstance(chunk, dict):
            self.malformed = f"a data event is JSON but not an object: {self.mask.head(item.data, 120)!r}"
            return False
        self.chunks += 1
        return self._chunk(chunk, now)

    def _chunk(self, chunk: dict[str, Any], now: float) -> bool:
        self._metadata(chunk)
        if chunk.get("error") is not None:
            self._error(chunk["error"])
        choices = chunk.get("choices")
        if choices is not None and not isinstance(choices, list):
            self.malformed = "`choices` is not a list"
            return False
        choice = _first_choice(choices or [])
        if choice is not None:
            if choice.get("error") is not None:
                self._error(choice["error"])
            delta = choice.get("delta")
            if isinstance(delta, dict) and not self._delta(delta, now):
                return False
            self._finish(choice, now)
        usage = Usage.from_wire(chunk.get("usage"))
        if usage is not None:
            self.usage = usage
        return True

    def _metadata(self, chunk: dict[str, Any]) -> None:
        provider = chunk.get("provider")
        if isinstance(provider, str) and provider and provider not in self.providers:
            self.providers.append(provider)
        if self.generation_id is None and isinstance(chunk.get("id"), str):
            self.generation_id = chunk["id"]
        if self.served_model is None and isinstance(chunk.get("model"), str):
            self.served_model = chunk["model"]
        tier = chunk.get("service_tier")
        if isinstance(tier, str) and tier:
            self.service_tier = tier
        if "openrouter_metadata" in chunk:   # masked before its names are cut
            self.router = RouterMetadata.from_wire(self.mask.json(chunk["openrouter_metadata"])) or self.router

    def _delta(self, delta: dict[str, Any], now: float) -> bool:
        content, reasoning = delta.get("content"), delta.get("reasoning")
        details = delta.get("reasoning_details")
        if (isinstance(reasoning, str) and reasoning) or (isinstance(details, list) and details):
            self.reasoning_seen = True
        if isinstance(reasoning, str) and reasoning:
            room = self.max_chars - self.reasoning_len
            reasoning = self.mask(reasoning) if len(reasoning) > room else reasoning
            self.reasoning_parts.append(reasoning[:room])
            self.reasoning_len += min(len(reasoning), room)
            if len(reasoning) > room:
                return self._cut()
        calls = delta.get("tool_calls")
        if isinstance(calls, list) and not self._tool_calls(calls):
            return False
        if isinstance(content, str) and content:
            if self.ttft_s is None:
                self.ttft_s = now
            self.last_content_s = now
            room = self.max_chars - self.text_len
            content = self.mask(content) if len(content) > room else content
            self.text_parts.append(content[:room])
            self.text_len += min(len(content), room)
            if len(content) > room:
                return self._cut()
        return True

    def _tool_calls(self, calls: list[Any]) -> bool:
        """Assemble `delta.tool_calls` by index (OpenAI's shape: the first fragment of a call
        carries its id, type and name with `arguments: ""`, the next ones only `index` and an
        arguments fragment). A call without an integer index takes its place in the list."""
        for position, raw in enumerate(calls):
            if not isinstance(raw, dict):
                continue
            index = raw.get("index")
            key = index if type(index) is int else position
            parts = self.calls.get(key)
            if parts is None:
                if len(self.calls) >= MAX_TOOL_CALLS:  # a flood of calls: counted, never kept
                    self.calls_dropped += 1
                    continue
                parts = self.calls[key] = _CallParts()
            if isinstance(raw.get("id"), str) and raw["id"] and parts.id is None:
                parts.id = raw["id"]
            function = raw.get("function")
            if not isinstance(function, dict):
                continue
            name, arguments = function.get("name"), function.get("arguments")
            if isinstance(name, str) and name and parts.name_len < MAX_NAME_CHARS:
                # The cap is per call, over all its fragments: 240,000 one-letter fragments are one
                # 200-character name, not 240,000 parts (each joined, masked and shown later). The key
                # is masked before the cut; the joined name is masked again (a key split over fragments).
                kept = self.mask(name)[: MAX_NAME_CHARS - parts.name_len]
                parts.names.append(kept)
                parts.name_len += len(kept)
            if isinstance(arguments, str):
                if arguments:
                    parts.fragments += 1
                room = self.max_chars - self.arguments_len
                arguments = self.mask(arguments) if len(arguments) > room else arguments
                parts.arguments.append(arguments[:room])
                self.arguments_len += min(len(arguments), room)
                if len(arguments) > room:
                    return self._cut()
        return True

    def _cut(self) -> bool:
        # Our cap, not the host's doing: a completed-but-long generation, reported as "length".
        self.truncated = True
        self.finish_reason = "length"
        return False

    def _finish(self, choice: dict[str, Any], now: float) -> None:
        finish, native = choice.get("finish_reason"), choice.get("native_finish_reason")
        if isinstance(finish, str) and finish:
            if self.finish_s is None:
                self.finish_s = now
            self.finish_reason = finish
            if finish == "error" and self.error_message is None:
                self.error_message = "finish_reason 'error' without an error object"
        if isinstance(native, str) and native:
            self.native_finish_reason = native

    def _error(self, error: object) -> None:
        if self.error_message is None:
            error = self.mask.json(error)   # before describe_error cuts its message
            self.error_message = describe_error(error)
            self.error_facts = ErrorFacts.of(error)
            self.finish_before_error = self.finish_reason


MAX_NAME_CHARS = 200   # a tool name is an identifier (OpenAI's are 64 at most); a longer one, over all its
# fragments, is kept this far
MAX_TOOL_CALLS = 64    # calls kept from one reply (the probe offers two tools): a flood's others are counted


@dataclass(slots=True)
class _CallParts:
    id: str | None = None
    names: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)
    fragments: int = 0
    name_len: int = 0

    def frozen(self, index: int) -> StreamedToolCall:
        return StreamedToolCall(index=index, id=self.id, name_parts=tuple(self.names),
                                arguments=pair_surrogates("".join(self.arguments)), fragments=self.fragments)


def _first_choice(choices: list[Any]) -> dict[str, Any] | None:
    dicts = [c for c in choices if isinstance(c, dict)]
    for choice in dicts:
        if choice.get("index", 0) == 0:
            return choice
    return dicts[0] if dicts else None


def describe_error(error: object) -> str:
    """One line from an OpenRouter error object: `code 502 provider_unavailable: message`."""
    if not isinstance(error, dict):
        return f"error: {str(error)[:200]}"
    parts = []
    if error.get("code") is not None:
        parts.append(f"code {error['code']}")
    meta = error.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("error_type"), str):
        parts.append(meta["error_type"])
    message = error.get("message")
    head = " ".join(str(p) for p in parts) or "error"
    return f"{head}: {str(message)[:300]}" if message is not None else head

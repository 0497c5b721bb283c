"""What the simulator will send for one generation (Plan, and the Thinking and StreamError it holds). Its
own module, below replies.py, so the modules that apply or write a plan name it without an import circle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simulator import tool_calls
from simulator.scenario import SimulatedEndpoint


@dataclass(frozen=True, slots=True)
class Thinking:
    """What a reasoning host thinks before answering; `tokens` count toward the completion."""

    text: str
    tokens: int
    shown: bool      # False: the request excluded reasoning from the reply (it still costs time and tokens)
    readable: bool   # False: only an encrypted `reasoning_details` blob, as OpenAI o-series send
    itemised: bool = True   # False: usage reports no `reasoning_tokens` (they stay inside completion_tokens)


@dataclass(frozen=True, slots=True)
class StreamError:
    """An error sent after `at` characters of text (HTTP status already 200)."""

    at: int
    shape: str  # documented | recorded | recorded_typed | empty_choices | in_band
    code: int
    message: str
    error_type: str
    raw: str | None = None   # a provider's own error body, relayed as `metadata.raw` (tool_use_failed)


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything the writer needs to send one generation."""

    served: SimulatedEndpoint
    faults: tuple[str, ...]
    text: str
    finish_reason: str | None
    native_finish_reason: str | None
    ttft_s: float
    tokens_per_second: float
    prompt_tokens: int
    completion_tokens: int
    cut_at: int | None = None  # truncated_stream: drop the connection after this many chars
    error: StreamError | None = None
    trailing_error: StreamError | None = None  # length_then_error: sent after the finish and usage
    usage_shape: str = "null_finish"
    thinking: Thinking | None = None
    chunks: tuple[str, ...] | None = None   # hostile: these content deltas instead of pieces of `text`
    tool_calls: tuple[tool_calls.PlannedCall, ...] = ()   # a tools request: the calls, streamed after the text
    deep_field: int = 0                     # hostile deep_json into chunk: each chunk nests a field this deep
    cost_factor: float = 1.0                # overbilling: usage.cost is this many times the listed price
    usage_sent: bool = True                 # no_stream_usage: the stream ends without its usage chunk
    cached_tokens: int = 0                  # cache_reads: prompt tokens reported (and billed) as cache reads
    usage_delay_s: float = 0.0              # usage_delay: seconds between the finish chunk and the usage chunk
    raw_cost: str | None = None             # hostile huge_bill: usage.cost as this JSON number text
    compressed: tuple[str, int] | None = None   # hostile compressed_stream: (encoding, KiB of keep-alives)
    tool_flood: tuple[int, int] = (0, 0)    # hostile tool_flood: (name fragments, empty-argument calls)
    raw_event: str | None = None            # hostile echo_at_cut into event: one data event that is not JSON
    provider_header: str | None = None      # hostile echo_at_cut into header: this X-Provider-Name instead
    name_fragments: tuple[str, ...] = ()    # hostile echo_at_cut into tool_name: the first call's name in pieces
    pipeline: tuple[dict[str, Any], ...] = ()   # the router metadata's pipeline stages (response_healing, guardrail)

    @property
    def thinking_s(self) -> float:
        """Seconds of thinking between the first token and the first answer text."""
        return self.thinking.tokens / self.tokens_per_second if self.thinking else 0.0

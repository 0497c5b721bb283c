"""Wire defects a judge reads off the reply itself (issue 22; the table is simulator/README.md's, Wire
defects): broken streams, dishonest limits and billing. Each rewrites a Plan (pure), like hostile.py's.
The two stream faults keep the stream's duration (the pace scaled by the extra text), so a round with
them takes no longer than a healthy one.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from simulator.faults import FaultParams
from simulator.plan import Plan  # the plan's type (replies.py, which applies these faults, is above)

FAULTS = frozenset({"cumulative_deltas", "repeated_deltas", "ignore_max_tokens", "early_length", "slow_decode",
                    "overbilling", "hidden_system_prompt", "no_stream_usage", "hidden_completion_tokens"})
GROUP_CHARS = 16                      # a delta of a few tokens, as batching hosts send
_PIECE = re.compile(r"\s*\S{1,5}|\s+")


def groups(text: str) -> list[str]:
    """`text` in deltas of at least GROUP_CHARS characters (the last may be shorter)."""
    out, current = [], ""
    for piece in _PIECE.findall(text):
        current += piece
        if len(current) >= GROUP_CHARS:
            out.append(current)
            current = ""
    return [*out, current] if current else out


def apply(plan: Plan, name: str, params: FaultParams, *, cap: int | None,
          truncate: Callable[[str, int], str], count_tokens: Callable[[str], int]) -> Plan:
    """`plan` as the defect `name` sends it. `cap`: the request's max_tokens (None: none sent)."""
    if name in ("cumulative_deltas", "repeated_deltas"):
        parts = groups(plan.text)
        if name == "cumulative_deltas":
            chunks = ["".join(parts[: i + 1]) for i in range(len(parts))]
        else:
            chunks = [part for part in parts for _ in (0, 1)]
        sent = sum(len(c) for c in chunks)
        scale = sent / max(1, len(plan.text))
        return dataclasses.replace(plan, chunks=tuple(chunks), tokens_per_second=plan.tokens_per_second * scale)
    if name == "ignore_max_tokens":
        if cap is None:
            return plan
        return dataclasses.replace(plan, completion_tokens=max(plan.completion_tokens, cap * params["factor"]))
    if name == "early_length":
        limit = max(1, int(min(cap or 10**9, count_tokens(plan.text)) * params["ratio"]))
        text = truncate(plan.text, limit)
        return dataclasses.replace(plan, text=text, finish_reason="length", native_finish_reason="length",
                                   completion_tokens=count_tokens(text))
    if name == "slow_decode":
        # The stream sends its first delta at the first-token time whatever the pace (stream.py).
        return dataclasses.replace(plan, tokens_per_second=plan.tokens_per_second * params["factor"])
    if name == "overbilling":
        return dataclasses.replace(plan, cost_factor=float(params["factor"]))
    if name == "hidden_system_prompt":
        return dataclasses.replace(plan, prompt_tokens=plan.prompt_tokens + params["tokens"])
    if name == "no_stream_usage":
        return dataclasses.replace(plan, usage_sent=False)
    if name == "hidden_completion_tokens":
        json_reply = plan.text.lstrip().startswith(("{", "["))  # a JSON reply is kept whole: still JSON
        head = plan.text if json_reply else re.split(r"(?<=[.!?。！？])\s", plan.text, maxsplit=1)[0]
        return dataclasses.replace(plan, text=head, completion_tokens=count_tokens(head) + params["tokens"])
    raise ValueError(f"{name}: not a wire defect")

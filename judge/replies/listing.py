"""Discovery sanity: what an endpoints listing says about its limits, as notes, never failures (pure).

A listing is what OpenRouter publishes about a host, not what the host did (docs/contracts.md,
discovery sanity). A model's context length is the largest its endpoints list: the models API's
headline figure is its top provider's, the same figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

# A context_length under this share of the model's is a cut-down window: a long roleplay is truncated there only.
FAR_BELOW = 0.5


@dataclass(frozen=True, slots=True)
class ListedLimits:
    """An endpoint's listed limits (None: not listed)."""

    context_length: int | None
    max_completion_tokens: int | None


def listing_notes(listed: Mapping[str, ListedLimits], previous: Mapping[str, ListedLimits]) -> tuple[str, ...]:
    """Notes on one model's listing (tag -> limits), against the limits the previous round listed."""
    windows = [lim.context_length for lim in listed.values() if lim.context_length]
    model_window = max(windows, default=0)
    notes = []
    for tag, lim in sorted(listed.items()):
        ctx, most = lim.context_length, lim.max_completion_tokens
        if ctx and most and most > ctx:
            notes.append(f"{tag}: max_completion_tokens {most} above its context_length {ctx}")
        if ctx and ctx < model_window * Fraction(FAR_BELOW):  # exact: a huge window cannot overflow a float
            notes.append(f"{tag}: context_length {ctx} far below the model's {model_window} "
                         f"(under {FAR_BELOW:g} of its largest endpoint's)")
        before = previous.get(tag)
        if before is not None:
            for name, old, new in (("context_length", before.context_length, ctx),
                                   ("max_completion_tokens", before.max_completion_tokens, most)):
                if old != new:
                    notes.append(f"{tag}: {name} changed from {_shown(old)} to {_shown(new)} since the previous round")
    return tuple(notes)


def _shown(value: int | None) -> str:
    return "none" if value is None else str(value)


def encode(limits: ListedLimits) -> str:
    """The state file's compact form: "131072:16384" ("-" for a limit not listed)."""
    return f"{_part(limits.context_length)}:{_part(limits.max_completion_tokens)}"


def decode(raw: object) -> ListedLimits:
    """The inverse of encode(); ValueError on anything else."""
    if not isinstance(raw, str) or raw.count(":") != 1:
        raise ValueError("listed limits are 'context_length:max_completion_tokens' ('-' when not listed)")
    ctx, most = raw.split(":")
    return ListedLimits(_int(ctx), _int(most))


def _part(value: int | None) -> str:
    return "-" if value is None else str(value)


def _int(text: str) -> int | None:
    if text == "-":
        return None
    if not text.isdigit():
        raise ValueError(f"listed limits: {text[:20]!r} is not a whole number or '-'")
    return int(text)

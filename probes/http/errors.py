"""What an OpenRouter error object says, as typed facts the status and stream rules read. Its shapes
and each rule's source are docs/openrouter-wire.md §3-§5; `ErrorFacts.of` reads any shape and never
raises. `metadata.raw` is upstream text: it decides, it is never shown (a reason names a fixed label).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.untrusted import load_json

# §3.1: "Generation stopped because `max_tokens` (or `max_completion_tokens`) was reached";
# the recorded real shape carries no error_type, only the message "Token limit reached".
TOKEN_LIMIT_TYPES = frozenset({"max_tokens_exceeded"})
TOKEN_LIMIT_MESSAGES = ("token limit reached",)
# §5.2: the typed content-policy errors, a host's (or OpenRouter's) filter answering.
FILTER_TYPES = frozenset({"content_policy_violation", "refusal"})   # error types
# §5, xAI's refusal relayed as a 403 (`metadata.raw`). The code alone also means "your key lacks
# permission", so the message must be a short first-person decline too; anything else stays the
# provider's 403: a missed refusal freezes a host, a false one fails it.
REFUSAL_CODES = frozenset({"permission-denied"})
PERMISSION_DENIED = "permission-denied"
USAGE_GUIDELINES = "usage-guidelines"
_APOSTROPHE = "['\u2019]?"
DECLINE = re.compile(rf"(?:i{_APOSTROPHE}m sorry[,.!]?\s*(?:but\s+)?)?i(?:\s+can(?:not|{_APOSTROPHE}t| not)"
                     rf"|\s+won{_APOSTROPHE}t|\s+will not|\s+am (?:not able|unable) to"
                     rf"|{_APOSTROPHE}m (?:not able|unable) to)"
                     r"\s+(?:help|assist|comply|continue|provide|engage|do that|fulfil)", re.IGNORECASE)
GUIDELINES = re.compile(r"content violates usage guidelines", re.IGNORECASE)
SAFETY_CHECK = re.compile(r"(?i:failed check): (SAFETY_CHECK_TYPE_[A-Z_]{1,40})\b")
MAX_DECLINE_CHARS = 200    # a provider's refusal is one short sentence; a long raw is something else
MAX_RAW_CHARS = 16 * 1024  # of `metadata.raw` read at all (a rejected call's generation rides in it)
TOOL_USE_FAILED = "tool_use_failed"   # Groq's code for a call its model wrote and the host rejected


@dataclass(frozen=True, slots=True)
class ErrorFacts:
    """The parts of one error object the rules use (strings are upstream text: shown only cleaned)."""

    code: str | None = None          # `code` as text ("403", "server_error"), None when absent
    message: str = ""
    error_type: str | None = None    # metadata.error_type, else a top-level error_type
    provider: str | None = None      # metadata.provider_name: a provider's error relayed by OpenRouter
    availability: str | None = None  # availability.code (`region_restricted`, `capacity_exhausted`...)
    raw_code: str | None = None      # the `code` of the provider's own error in metadata.raw, when it is JSON
    raw_message: str = ""            # its `error` (or `message`) text; metadata.raw itself when not JSON
    rejected_call: str | None = None  # `tool_use_failed`: its `failed_generation` ("" when none was sent)

    @classmethod
    def of(cls, error: object) -> ErrorFacts:
        if not isinstance(error, Mapping):
            return cls(message=str(error)[:300] if error is not None else "")
        meta = error.get("metadata")
        meta = meta if isinstance(meta, Mapping) else {}
        availability = error.get("availability")
        code = error.get("code")
        raw = _raw_error(meta.get("raw"))
        if raw.get("rejected_call") is None:   # Groq's own error, unrelayed (its stream's error event)
            raw["rejected_call"] = _raw_error(error).get("rejected_call")
        return cls(
            code=str(code) if isinstance(code, (int, str)) and not isinstance(code, bool) else None,
            message=str(error.get("message") or "")[:300],
            error_type=_text(meta.get("error_type")) or _text(error.get("error_type")),
            provider=_text(meta.get("provider_name")),
            availability=_text(availability.get("code")) if isinstance(availability, Mapping) else None,
            **raw,
        )

    @property
    def token_limit(self) -> bool:
        """The generation reached max_tokens (§3: a trailing error that ends a completed reply)."""
        return (self.error_type in TOKEN_LIMIT_TYPES
                or any(m in self.message.casefold() for m in TOKEN_LIMIT_MESSAGES))

    @property
    def filter(self) -> bool:
        """A content filter or an explicit refusal answered (§5: the host's filter, not the network)."""
        return self.error_type in FILTER_TYPES

    @property
    def relayed_refusal(self) -> str | None:
        """The label of a provider's refusal relayed in `metadata.raw` (a fixed word), else None (§5); only with a
        provider named. A safety-check answer's label is its check (an upper-case identifier: safe to show)."""
        if self.provider is None:
            return None
        message = self.raw_message.strip()
        code = (self.raw_code or "").strip().casefold().replace("_", "-")
        if code in REFUSAL_CODES and len(message) <= MAX_DECLINE_CHARS and DECLINE.match(message):
            return PERMISSION_DENIED
        if GUIDELINES.match(message):
            check = SAFETY_CHECK.search(message)
            return check.group(1) if check else USAGE_GUIDELINES
        return None

    @property
    def upstream_side(self) -> bool:
        """The error names a provider or an availability condition: it is about the endpoint, not our key (§5)."""
        return self.provider is not None or self.availability is not None


def facts_of_body(body: Any) -> ErrorFacts:
    """The facts of `body["error"]` (an empty record when the body carries none)."""
    return ErrorFacts.of(body.get("error")) if isinstance(body, Mapping) and body.get("error") is not None \
        else ErrorFacts()


def _raw_error(raw: object) -> dict[str, Any]:
    """`raw_code`, `raw_message` and `rejected_call` of `metadata.raw`: a JSON object string (or an
    object) whose `code` and `error` / `message` (or `error.code` / `error.message`, and Groq's
    `failed_generation` beside them) are read; other text is the message."""
    if isinstance(raw, str):
        text = raw[:MAX_RAW_CHARS]
        try:
            parsed: object = load_json(text) if text.lstrip().startswith("{") else text
        except ValueError:  # not JSON after all (or cut): the text is the message
            parsed = text
    else:
        parsed = raw
    if isinstance(parsed, str):
        return {"raw_message": parsed[:300]}
    if not isinstance(parsed, Mapping):
        return {}
    inner = parsed.get("error")
    if isinstance(inner, Mapping):  # OpenAI-style `{"error": {"code", "message"}}`
        parsed, inner = inner, inner.get("message")
    code = parsed.get("code")
    message = inner if isinstance(inner, str) else parsed.get("message")
    generation = parsed.get("failed_generation")
    return {"raw_code": str(code)[:100] if isinstance(code, (str, int)) and not isinstance(code, bool) else None,
            "raw_message": message[:300] if isinstance(message, str) else "",
            "rejected_call": (generation[:MAX_RAW_CHARS] if isinstance(generation, str) else "")
            if code == TOOL_USE_FAILED else None}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None

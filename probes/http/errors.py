"""What an OpenRouter error object says, as typed facts the status and stream rules read.

An error object arrives in an error status's envelope, inside a 200 body, or in a stream chunk
(docs/openrouter-wire.md §3-§5). Its shapes vary: `code` may be an integer, a string or absent
(the availability format carries `error_type`, `http_status` and `availability` instead), the
typed code sits in `error.metadata.error_type` (or `error.error_type`), a provider's relayed
error names it in `metadata.provider_name`. `ErrorFacts.of` reads any shape and never raises;
the predicates below are the rules, each with its source in docs/openrouter-wire.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# §3.1: "Generation stopped because `max_tokens` (or `max_completion_tokens`) was reached";
# the recorded real shape carries no error_type, only the message "Token limit reached".
TOKEN_LIMIT_TYPES = frozenset({"max_tokens_exceeded"})
TOKEN_LIMIT_MESSAGES = ("token limit reached",)
# §5.2: the typed content-policy errors, a host's (or OpenRouter's) filter answering.
FILTER_TYPES = frozenset({"content_policy_violation", "refusal"})


@dataclass(frozen=True, slots=True)
class ErrorFacts:
    """The parts of one error object the rules use (strings are upstream text: shown only cleaned)."""

    code: str | None = None          # `code` as text ("403", "server_error"), None when absent
    message: str = ""
    error_type: str | None = None    # metadata.error_type, else a top-level error_type
    provider: str | None = None      # metadata.provider_name: a provider's error relayed by OpenRouter
    availability: str | None = None  # availability.code (`region_restricted`, `capacity_exhausted`...)

    @classmethod
    def of(cls, error: object) -> ErrorFacts:
        if not isinstance(error, Mapping):
            return cls(message=str(error)[:300] if error is not None else "")
        meta = error.get("metadata")
        meta = meta if isinstance(meta, Mapping) else {}
        availability = error.get("availability")
        code = error.get("code")
        return cls(
            code=str(code) if isinstance(code, (int, str)) and not isinstance(code, bool) else None,
            message=str(error.get("message") or "")[:300],
            error_type=_text(meta.get("error_type")) or _text(error.get("error_type")),
            provider=_text(meta.get("provider_name")),
            availability=_text(availability.get("code")) if isinstance(availability, Mapping) else None,
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
    def upstream_side(self) -> bool:
        """The error names a provider or an availability condition: it is about the endpoint, not our key (§5)."""
        return self.provider is not None or self.availability is not None


def facts_of_body(body: Any) -> ErrorFacts:
    """The facts of `body["error"]` (an empty record when the body carries none)."""
    return ErrorFacts.of(body.get("error")) if isinstance(body, Mapping) and body.get("error") is not None \
        else ErrorFacts()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None

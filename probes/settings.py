"""Where the client talks to and with which key; the key never leaves this object in clear.

The key is needed in exactly one place (the Authorization header built by `auth_headers`).
Everything that turns the settings or an error into text goes through `__repr__` (masked) or
`scrub` (removes the key from any message an upstream or a library produced), so neither logs,
records nor exceptions can carry it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"
MASK = "***"


@dataclass(frozen=True, slots=True, repr=False)
class ClientSettings:
    """Base URL (ending in /api/v1) and API key of the upstream: OpenRouter or the simulator."""

    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = None
    title: str = "canary"  # X-OpenRouter-Title: lets OpenRouter's dashboard tell probe traffic apart

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"OPENROUTER_BASE_URL must start with http:// or https:// (got {self.base_url[:80]!r})")
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))
        if self.api_key is not None and not self.api_key.strip():
            object.__setattr__(self, "api_key", None)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ClientSettings:
        """OPENROUTER_BASE_URL (default the real OpenRouter) and OPENROUTER_API_KEY (optional)."""
        env = os.environ if environ is None else environ
        base = env.get("OPENROUTER_BASE_URL", "").strip() or DEFAULT_BASE_URL
        key = env.get("OPENROUTER_API_KEY", "").strip() or None
        return cls(base_url=base, api_key=key)

    @property
    def has_key(self) -> bool:
        return self.api_key is not None

    def auth_headers(self) -> dict[str, str]:
        """The only place the key is put into anything that leaves the process."""
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def scrub(self, text: str) -> str:
        """Remove the key from a message (an upstream may echo headers back; a library may too)."""
        if self.api_key and self.api_key in text:
            text = text.replace(self.api_key, MASK)
        return text

    def __repr__(self) -> str:
        key = MASK if self.api_key else None
        return f"ClientSettings(base_url={self.base_url!r}, api_key={key!r}, title={self.title!r})"

    __str__ = __repr__

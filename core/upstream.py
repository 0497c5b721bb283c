"""Which upstream a round talks to, and with which key: the one reader of the environment for it.

`resolve_upstream()` answers for every entry point alike: `--simulator` or neither
OPENROUTER_API_KEY nor OPENROUTER_BASE_URL -> None (the bundled simulator); otherwise that upstream
(OpenRouter when only the key is set), with or without a key (a simulator of your own wants some
key: without one its 401 ends the round, as OpenRouter's would). `refuse_keyless_in_ci()` is the one
exception: inside GitHub Actions an absent secret arrives as an empty string, and a simulator round
must not pass for the real one there. The key leaves an `Upstream` only through `auth_headers`;
text goes through `__repr__` (masked) or `scrub` (core/key_mask.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from core.errors import UpstreamError
from core.key_mask import MASK, KeyMask, mask_for

KEY_ENV = "OPENROUTER_API_KEY"
BASE_URL_ENV = "OPENROUTER_BASE_URL"
SCENARIO_ENV = "CANARY_SIMULATOR_SCENARIO"
CI_ENV = "GITHUB_ACTIONS"
DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"

OPENROUTER, SIMULATOR, CUSTOM = "openrouter", "simulator", "custom"

MISSING_KEY = (
    "OPENROUTER_API_KEY is empty or unset inside GitHub Actions: add it as a secret named OPENROUTER_API_KEY of "
    "the environment `canary` (Settings > Environments > canary > Environment secrets; environments with secrets "
    "need a public repository, or a paid plan for a private one). Nothing was probed and nothing was written; "
    "pass --simulator to probe the bundled simulator on purpose.")


class MissingKeyError(UpstreamError):
    """No OPENROUTER_API_KEY where a real upstream is required (inside GitHub Actions)."""


@dataclass(frozen=True, slots=True, repr=False)
class Upstream:
    """Base URL (ending in /api/v1, no slash after it) and API key (None: none) of OpenRouter or a simulator."""

    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = None

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise UpstreamError(f"{BASE_URL_ENV} must start with http:// or https:// (got {self.base_url[:80]!r})")
        if self.base_url.endswith("/") or (self.api_key is not None and not self.api_key.strip()):
            raise ValueError("Upstream takes a base URL without a trailing slash and a key or None: use Upstream.of")

    @classmethod
    def of(cls, base_url: str, api_key: str | None) -> Upstream:
        """The upstream as a person writes it: a trailing slash dropped, a blank key read as none."""
        return cls(base_url=base_url.rstrip("/"), api_key=api_key if api_key and api_key.strip() else None)

    @property
    def has_key(self) -> bool:
        return self.api_key is not None

    def auth_headers(self) -> dict[str, str]:
        """The only place the key is put into anything that leaves the process."""
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    @property
    def mask(self) -> KeyMask:
        """What masks the key: the whole key, any run of 16 of its characters, its hex and base64 (core/key_mask.py)."""
        return mask_for(self.api_key)

    def scrub(self, text: str) -> str:
        """Mask the key in a message (an upstream may echo headers back; a library may too)."""
        return self.mask(text) if self.api_key else text

    def __repr__(self) -> str:
        key = MASK if self.api_key else None
        return f"Upstream(base_url={self.base_url!r}, api_key={key!r})"

    __str__ = __repr__


def upstream_kind(base_url: str) -> str:
    """`openrouter` for OpenRouter's own host, else `custom` (whether that is the simulator is for it to say)."""
    host = (urlsplit(base_url).hostname or "").lower()
    return OPENROUTER if host == "openrouter.ai" or host.endswith(".openrouter.ai") else CUSTOM


def resolve_upstream(environ: Mapping[str, str] | None = None, *, simulator: bool = False) -> Upstream | None:
    """The upstream the environment names, or None: the bundled simulator (see the module docstring)."""
    if simulator:
        return None
    env = os.environ if environ is None else environ
    key = env.get(KEY_ENV, "").strip() or None
    base = env.get(BASE_URL_ENV, "").strip()
    if key is None and not base:
        return None
    return Upstream.of(base or DEFAULT_BASE_URL, key)


def refuse_keyless_in_ci(environ: Mapping[str, str] | None = None, *, simulator: bool = False) -> None:
    """MissingKeyError inside GitHub Actions without a key, unless the simulator was asked for."""
    env = os.environ if environ is None else environ
    if env.get(CI_ENV) == "true" and not simulator and not env.get(KEY_ENV, "").strip():
        raise MissingKeyError(MISSING_KEY)


def key_in_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """The key as the environment holds it (for scrubbing pytest's own output), or None."""
    env = os.environ if environ is None else environ
    return env.get(KEY_ENV, "").strip() or None

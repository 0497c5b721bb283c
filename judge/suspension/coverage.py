"""What one `provider.ignore` entry removes among a model's endpoints (pure).

A full tag (`deepinfra/turbo`) removes that endpoint. A bare tag (`deepinfra`) is also a base
slug, and a base slug "matches **all** endpoints for that provider, including any variants or
regions", but not service-tier endpoints (`openai/priority`, `google-vertex/flex`), which "require
explicit opt-in" (OpenRouter docs, guides/routing/provider-selection, "Base Slug Matching";
guides/features/service-tiers). So a suspension of `deepinfra` takes `deepinfra/turbo` out of the
product's routing too: the capacity floor counts that, and the decision says so.
"""

from __future__ import annotations

from collections.abc import Iterable

# The tier suffixes of service-tier endpoint tags (guides/features/service-tiers, "How Routing Works").
SERVICE_TIER_SUFFIXES = frozenset({"flex", "priority"})


def covers(entry: str, tag: str) -> bool:
    """Whether the ignore entry `entry` removes the endpoint `tag`."""
    entry, tag = entry.casefold(), tag.casefold()
    if entry == tag:
        return True
    base, _, suffix = tag.partition("/")
    return "/" not in entry and entry == base and bool(suffix) and suffix not in SERVICE_TIER_SUFFIXES


def also_removed(entry: str, tags: Iterable[str]) -> tuple[str, ...]:
    """The other endpoints of `tags` that `entry` removes with its own (sorted)."""
    return tuple(sorted(t for t in tags if t != entry and covers(entry, t)))

"""What one `provider.ignore` entry removes: a bare tag every variant, no service tier (docs/openrouter-wire.md)."""

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

"""exclusions/incidents.yaml's edits (`canary incident add|remove`), through canary/state/people_yaml.py."""

from __future__ import annotations

from canary.state import people_yaml
from core.layer_files import parse_exclusions
from core.layers import INCIDENT, Exclusion, IncidentEntry
from core.store import StoreError
from core.times import fmt_time


def add_incident(text: str, source: str, entry: Exclusion) -> str:
    """`text` with `entry` appended to its model's section (created at the end when absent)."""
    for e in parse_exclusions(text, INCIDENT, source):
        if e.model == entry.model and e.provider.casefold() == entry.provider.casefold():
            same = "" if e.provider == entry.provider else f" (as {e.provider}: tags are compared ignoring case)"
            raise StoreError(f"{source}: line {e.line}: {entry.provider} is already listed for {entry.model}{same}; "
                             "remove it first to change it")
    declared = IncidentEntry(provider=entry.provider, reason=entry.reason, added_at=fmt_time(entry.since) or "",
                             expires=fmt_time(entry.expires), added_by=entry.added_by or None)
    return people_yaml.add(text, source, declared, entry.model)


def remove_incident(text: str, source: str, model: str, provider: str) -> str:
    """`text` without the entries of `provider` under `model` (and without the model key if now empty)."""
    if not any(e.model == model and e.provider == provider for e in parse_exclusions(text, INCIDENT, source)):
        raise StoreError(f"{source}: no incident for {provider} of {model}")
    return people_yaml.remove(text, source, IncidentEntry,
                              lambda w: w.model == model and w.entry.provider == provider)


__all__ = ["add_incident", "remove_incident"]

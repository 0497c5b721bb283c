"""The effective provider.ignore at a past moment, rebuilt from the audit log and the files (pure).

What it replays and what it cannot know (said in `caveats`): docs/history.md, `canary ignore --at`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from canary.state.audit import AuditLine
from core.layers import BUILTIN, INCIDENT, SUSPENSION, Exclusion
from core.times import stamp
from judge.suspension.decisions import ENDING, SUSPENDING, Action


@dataclass(frozen=True, slots=True)
class PastEntry:
    """One excluded provider at the moment, with where the answer comes from."""

    provider: str
    layer: str            # builtin | incident | suspension
    source: str           # a sentence: which file line or audit line says so ("assumed" when it is)


@dataclass(frozen=True, slots=True)
class PastIgnore:
    model: str
    at: datetime
    entries: tuple[PastEntry, ...]
    observe_only: tuple[PastEntry, ...]   # would-suspend records: in would_ignore, not in provider.ignore
    caveats: tuple[str, ...]

    @property
    def ignore(self) -> list[str]:
        """The provider.ignore list as `canary ignore` printed it then."""
        return sorted({e.provider for e in self.entries})


def ignore_at(model: str, at: datetime, audit_lines: Sequence[AuditLine],
              exclusions: Iterable[Exclusion], *, torn_lines: int = 0) -> PastIgnore:
    """The reconstruction for one model at `at` (see the module docstring)."""
    suspensions, incidents, removed_after_add = _replay(model, at, audit_lines)
    entries: list[PastEntry] = []
    observe: list[PastEntry] = []
    for provider, line in sorted(suspensions.items()):
        until = line.until_at
        if until is None or until <= at:
            continue
        entry = PastEntry(provider, SUSPENSION,
                          f"audit: {line.action} at {stamp(line.at)} (round {line.round_id}, "
                          f"rule {line.rule}) until {stamp(until)}: {line.reason[:120]}")
        (entries if line.action == Action.SUSPEND else observe).append(entry)
    for provider, line in sorted(incidents.items()):
        until = line.until_at
        if until is None or until > at:
            entries.append(PastEntry(provider, INCIDENT, f"audit: incident_add at {stamp(line.at)}"
                                     + (f" until {stamp(until)}" if until else "") + f": {line.reason[:120]}"))
    listed = {e.provider for e in entries if e.layer == INCIDENT} | removed_after_add
    from_files = (_from_file(e, at, listed) for e in exclusions if e.model == model)
    entries += [entry for entry in from_files if entry is not None]
    return PastIgnore(model, at, tuple(entries), tuple(observe), _caveats(audit_lines, at, torn_lines))


def _replay(model: str, at: datetime, audit_lines: Sequence[AuditLine]
            ) -> tuple[dict[str, AuditLine], dict[str, AuditLine], set[str]]:
    """The audit log up to `at`: each provider's standing suspension line and incident line, and the
    providers whose incident was removed."""
    suspensions: dict[str, AuditLine] = {}
    incidents: dict[str, AuditLine] = {}
    removed_after_add: set[str] = set()
    for line in audit_lines:
        if line.at > at or line.model != model:
            continue
        provider, action = line.provider, line.action
        if action in SUSPENDING:
            suspensions[provider] = line
        elif action in ENDING:
            suspensions.pop(provider, None)
        elif action == Action.INCIDENT_ADD:
            incidents[provider] = line
        elif action == Action.INCIDENT_REMOVE:
            incidents.pop(provider, None)
            removed_after_add.add(provider)
    return suspensions, incidents, removed_after_add


def _from_file(e: Exclusion, at: datetime, listed: set[str]) -> PastEntry | None:
    """An exclusion file's entry in force at `at` (an incident the audit log already listed or
    removed is left to the log)."""
    if e.layer == BUILTIN:
        if e.since is None:
            return PastEntry(e.provider, BUILTIN, f"builtin.yaml line {e.line} (no `since`: assumed present)")
        if e.since > at:
            return None
        return PastEntry(e.provider, BUILTIN, f"builtin.yaml line {e.line}, since {stamp(e.since)}")
    if (e.provider not in listed and e.since is not None and e.since <= at
            and (e.expires is None or e.expires > at)):
        return PastEntry(e.provider, INCIDENT, f"incidents.yaml line {e.line}, added_at {stamp(e.since)}"
                         + (f", expires {stamp(e.expires)}" if e.expires else ""))
    return None


def _caveats(audit_lines: Sequence[AuditLine], at: datetime, torn: int) -> tuple[str, ...]:
    out = ["exclusions people removed or edited by hand (not with `canary incident` or `canary lift`) leave no "
           "audit line: `git log -p` of exclusions/builtin.yaml and exclusions/incidents.yaml shows them",
           "times are when the judge decided; the chat backend saw a change when it next read the files"]
    first = min((line.at for line in audit_lines), default=None)
    if first is None:
        out.append("the audit log is empty: no suspension or incident is known")
    elif first > at:
        out.append(f"the audit log starts at {stamp(first)}, after this moment: suspensions then are unknown")
    if torn:
        out.append(f"{torn} torn line(s) of the audit log could not be read")
    return tuple(out)

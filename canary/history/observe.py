"""The observe-mode report: every would-suspend of a window, its evidence, what happened next (pure).

Observe mode exists so administrators can measure false positives before enforcing: for each
`would_suspend` line of the audit log, the evidence and how it ended (ObserveOutcome), from the
later lines of the same endpoint, and whether it came back (`then`: a host that keeps coming back is
rarely a false positive). The shell adds what the history knows (docs/history.md, observe-report).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from canary.state.audit import AuditLine
from core.vocabulary import CODE, catch_all_code
from judge.suspension.decisions import ENDING, SUSPENDING, Action, Evidence


class ObserveOutcome(StrEnum):
    """How a would-suspend's story ended (`canary observe-report --json`'s `outcome`): what happened to it,
    not the action that ended it."""

    RESTORED = "restored"    # two clean rounds restored it early (the host recovered, or a blip: read the evidence)
    EXPIRED = "expired"      # it ran its full term
    ENFORCED = "enforced"    # the switch to enforce enforced it (rule mode_switch, issue 29)
    ENDED = "ended"          # the switch to enforce ended it (audit logs written before issue 29)
    LIFTED = "lifted"        # a person lifted it
    ACTIVE = "active"        # still running at the report's `now`


# How a would-suspend ended, by the action that ended it (a restore or a lift; anything else ran its term).
ENDINGS: dict[str, ObserveOutcome] = {Action.RESTORE: ObserveOutcome.RESTORED, Action.LIFT: ObserveOutcome.LIFTED}


@dataclass(frozen=True, slots=True)
class AuditEvent:
    """One later line of the audit log for the same endpoint (what happened next)."""

    at: datetime
    action: str
    rule: str
    reason: str


@dataclass(frozen=True, slots=True)
class WouldSuspend:
    model: str
    provider: str
    at: datetime
    round_id: str | None
    until: datetime | None
    rung: int | None
    reason: str
    evidence: tuple[tuple[str, str, str, str], ...]   # (contract, outcome, code, reason)
    outcome: ObserveOutcome
    ended_at: datetime | None
    then: AuditEvent | None                           # the next would_suspend / suspend of the endpoint

    @property
    def end(self) -> datetime | None:
        """When the record stopped counting: its ending line, else its `until`."""
        return self.ended_at or self.until


def would_suspends(lines: Sequence[AuditLine], *, since: datetime, now: datetime) -> tuple[WouldSuspend, ...]:
    """Every would_suspend line with since <= time <= now, oldest first, and how each ended."""
    timed = [line for line in lines if line.at <= now]
    out = []
    for i, line in enumerate(timed):
        if line.action != Action.WOULD_SUSPEND or line.at < since:
            continue
        later = [x for x in timed[i + 1:] if (x.model, x.provider) == (line.model, line.provider)]
        ending = next((x for x in later if x.action in ENDING), None)
        resumed = next((x for x in later if x.action in SUSPENDING), None)
        until = line.until_at
        ended_at: datetime | None
        outcome: ObserveOutcome
        enforced = resumed is not None and resumed.rule == "mode_switch"
        if resumed is not None and enforced and (ending is None or resumed.at <= ending.at):
            outcome, ended_at = ObserveOutcome.ENFORCED, resumed.at
        elif ending is not None and (resumed is None or ending.at <= resumed.at):
            outcome = (ObserveOutcome.ENDED if ending.rule == "mode_switch"
                       else ENDINGS.get(ending.action, ObserveOutcome.EXPIRED))
            ended_at = ending.at
        else:
            outcome = ObserveOutcome.ACTIVE if until is not None and until > now else ObserveOutcome.EXPIRED
            ended_at = None
        out.append(WouldSuspend(
            model=line.model, provider=line.provider, at=line.at, round_id=line.round_id, until=until,
            rung=line.rung if isinstance(line.rung, int) else None, reason=line.reason,
            evidence=tuple(_evidence(e) for e in line.evidence), outcome=outcome, ended_at=ended_at,
            then=None if resumed is None else AuditEvent(resumed.at, resumed.action, resumed.rule, resumed.reason),
        ))
    return tuple(out)


def _evidence(e: Evidence) -> tuple[str, str, str, str]:
    """(contract, outcome, code, reason): the code as the line carries it, or, on a line written
    before evidence carried codes, its outcome's catch-all (`fail_other`; the reason says what failed)."""
    code = e.code if CODE.fullmatch(e.code) else catch_all_code(e.outcome)
    return e.contract, e.outcome, code, e.reason

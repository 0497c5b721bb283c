"""The daily digest: what stands now, and what changed since the last digest (pure).

Each line has a stable key; the keys of the last digest sent are kept in its audit line, so "what
changed" is a set difference and a digest whose keys are the last one's is not sent at all.
`canary digest` reads the inputs and sends the result; text is escaped with core.untrusted.markdown().
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from canary.history.observe import ObserveOutcome, WouldSuspend
from canary.integrations.notifications.message import INFO, WARNING, Message
from canary.state.audit import AuditLine
from core.layers import INCIDENT, Exclusion
from core.times import fmt_time
from core.untrusted import clean, markdown
from judge.suspension.decisions import Action
from judge.suspension.maintenance import MaintenanceWindow
from judge.suspension.silences import Silence, active_silences
from judge.suspension.state import JudgeState

SECTIONS = ("suspended", "would suspend (observe mode)", "expires today", "silenced", "maintenance",
            "ladder above the first rung", "served while excluded (24 h)")
LEAK_HOURS = 24             # the route_leak decisions a digest names (judge/suspension/route_audit.py)
OBSERVE_DAYS = 7            # the would-suspends the false-positive estimate reads (observe-report's default)
MAX_LINES_PER_SECTION = 20  # a long list is cut; the status page and `canary status` have all of it
MAX_BODY = 3500             # as a round's notification (Telegram's limit is 4,096)


@dataclass(frozen=True, slots=True)
class DigestLine:
    section: str
    key: str     # stable across digests while the thing it says stands
    text: str    # Markdown, escaped


@dataclass(frozen=True, slots=True)
class Digest:
    now: datetime
    lines: tuple[DigestLine, ...]
    observed: str              # the observe-mode false-positive estimate, in words (escaped)
    added: tuple[DigestLine, ...]
    gone: tuple[str, ...]      # the keys of the last digest that no longer stand

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(sorted({line.key for line in self.lines}))

    @property
    def changed(self) -> bool:
        return bool(self.added or self.gone)


def compose_digest(*, now: datetime, state: JudgeState, exclusions: Sequence[Exclusion], silences: Sequence[Silence],
                   maintenance: Sequence[MaintenanceWindow], would: Sequence[WouldSuspend],
                   previous: Iterable[str] | None, audit_lines: Sequence[AuditLine] = ()) -> Digest:
    """The digest at `now`; `previous`: the keys of the last digest sent (None: there was none);
    `audit_lines`: the audit log, whose route_leak lines of the last LEAK_HOURS it names."""
    end_of_day = datetime.combine(now.date() + timedelta(days=1), time(), tzinfo=now.tzinfo)
    lines = _judge_lines(state, now, end_of_day)
    for e in exclusions:
        if e.layer == INCIDENT and e.expires is not None and now < e.expires <= end_of_day:
            lines.append(DigestLine(SECTIONS[2], f"incident|{e.model}|{e.provider}|{fmt_time(e.expires)}",
                                    f"the incident exclusion of {_md(f'{e.provider} of {e.model}')} at "
                                    f"{_md(fmt_time(e.expires))}"))
    for quiet in active_silences(silences, now):
        ident = f"{quiet.model}|{quiet.provider or '*'}|{fmt_time(quiet.until)}"
        lines.append(DigestLine(SECTIONS[3], f"silence|{ident}",
                                f"{_md(quiet.scope)} until {_md(fmt_time(quiet.until))} by {_md(quiet.author, 60)}: "
                                f"{_md(quiet.reason)}"))
        if quiet.until <= end_of_day:
            lines.append(DigestLine(SECTIONS[2], f"silence-ends|{ident}",
                                    f"the silence of {_md(quiet.scope)} at {_md(fmt_time(quiet.until))}"))
    for w in maintenance:
        if _today(w, now, end_of_day):
            scope = f"{w.provider} of {w.model}" if w.model else f"{w.provider} (every model)"
            lines.append(DigestLine(SECTIONS[4], f"maintenance|{w.model or '*'}|{w.provider}|{w.when}",
                                    f"{_md(scope)} {_md(w.when)}{' (now)' if w.open_at(now) else ''}: {_md(w.reason)}"))
    leaks = {(line.model, line.provider): line for line in audit_lines
             if line.action == Action.ROUTE_LEAK and line.at >= now - timedelta(hours=LEAK_HOURS)}
    for (model, provider), line in sorted(leaks.items()):
        lines.append(DigestLine(SECTIONS[6], f"leak|{model}|{provider}",
                                f"{_md(f'{provider} of {model}')} at {_md(fmt_time(line.at))}: "
                                f"{_md(line.reason, 400)}"))
    before = frozenset(previous or ())
    added = tuple(line for line in lines if line.key not in before)
    gone = tuple(sorted(before - {line.key for line in lines}))
    return Digest(now, tuple(lines), observed_estimate(would, now), added, gone)


def _judge_lines(state: JudgeState, now: datetime, end_of_day: datetime) -> list[DigestLine]:
    """The judge state's lines: suspensions and would-suspends in force, those ending today, ladder rungs."""
    lines: list[DigestLine] = []
    for model, providers in sorted(state.models.items()):
        for provider, ps in sorted(providers.items()):
            s = ps.suspension
            where = f"{provider} of {model}"
            if s is not None and s.active(now):
                section = SECTIONS[0] if s.mode == "enforce" else SECTIONS[1]
                lines.append(DigestLine(section, f"{s.mode}|{model}|{provider}|{fmt_time(s.until)}",
                                        f"{_md(where)} until {_md(fmt_time(s.until))} (rung {s.rung}): "
                                        f"{_md(s.reason)}"))
                if s.until <= end_of_day:
                    what = "the suspension of" if s.mode == "enforce" else "the would-suspend of"
                    lines.append(DigestLine(SECTIONS[2], f"ends|{model}|{provider}|{fmt_time(s.until)}",
                                            f"{what} {_md(where)} at {_md(fmt_time(s.until))}"))
            if ps.ladder.rung > 1:
                lines.append(DigestLine(SECTIONS[5], f"rung|{model}|{provider}|{ps.ladder.rung}",
                                        f"{_md(where)}: rung {ps.ladder.rung}"))
    return lines


def observed_estimate(would: Sequence[WouldSuspend], now: datetime) -> str:
    """`canary observe-report`'s tally of the last OBSERVE_DAYS: how the would-suspends ended. One
    restored by clean rounds within its term is the likely false positive."""
    recent = [w for w in would if w.at >= now - timedelta(days=OBSERVE_DAYS)]
    if not recent:
        return f"no would-suspend in the last {OBSERVE_DAYS} days"
    counts: dict[str, int] = {}
    for w in recent:
        counts[w.outcome] = counts.get(w.outcome, 0) + 1
    ended = sum(n for outcome, n in counts.items() if outcome != ObserveOutcome.ACTIVE)
    restored = counts.get(ObserveOutcome.RESTORED, 0)
    share = f" ({restored / ended:.0%} of those that ended)" if ended else ""
    tally = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
    return (f"{len(recent)} would-suspend(s) in the last {OBSERVE_DAYS} days: {tally}; restored early by clean "
            f"rounds, the likely false positives: {restored}{share}")


def render_digest(d: Digest) -> Message:
    """The Apprise message (and, as it is, the job summary's section)."""
    counts = {section: sum(line.section == section for line in d.lines) for section in SECTIONS}
    summary = ", ".join(f"{n} {section.split(' (')[0]}" for section, n in counts.items() if n) or "nothing stands"
    title = clean(f"canary digest: {summary}", limit=120)
    body = [f"Digest of {markdown(fmt_time(d.now), 40)}", ""]
    if d.changed:
        body.append("**Changed since the last digest**")
        body += [f"- new: {line.section}: {line.text}" for line in d.added[:MAX_LINES_PER_SECTION]]
        body += [f"- no longer: {_md(_key_words(key))}" for key in d.gone[:MAX_LINES_PER_SECTION]]
        body.append("")
    for section in SECTIONS:
        mine = [line for line in d.lines if line.section == section]
        if mine:
            body.append(f"**{section[0].upper()}{section[1:]}**")
            body += [f"- {line.text}" for line in mine[:MAX_LINES_PER_SECTION]]
            if len(mine) > MAX_LINES_PER_SECTION:
                body.append(f"- … and {len(mine) - MAX_LINES_PER_SECTION} more (canary status)")
            body.append("")
    body.append(f"Observe mode: {_md(d.observed, 400)}")
    text = "\n".join(body)
    if len(text) > MAX_BODY:
        text = text[:MAX_BODY].rsplit("\n", 1)[0] + "\n- … cut short: see `canary status` or the status page"
    kind = WARNING if counts[SECTIONS[0]] or counts[SECTIONS[1]] or counts[SECTIONS[6]] else INFO
    return Message(title=title, body=text, kind=kind)


def _today(w: MaintenanceWindow, now: datetime, end_of_day: datetime) -> bool:
    """A window open now, or opening before the end of the UTC day."""
    if w.start is not None and w.end is not None:
        return w.end > now and w.start < end_of_day
    step, at = timedelta(minutes=15), now
    while at < end_of_day:   # a recurring window's occurrences today, at a quarter-hour grain
        if w.open_at(at):
            return True
        at += step
    return w.open_at(now)


def _key_words(key: str) -> str:
    kind, model, provider, detail = (key.split("|") + ["", "", "", ""])[:4]
    return f"{kind} {provider} of {model} ({detail})"


def _md(value: object, limit: int = 200) -> str:
    return markdown(value, limit)

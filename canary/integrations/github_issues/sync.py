"""Bring the incident issues up to date with one round: find, plan (plan.py, pure), apply, report.

Which issues and comments a round reads, so its requests do not grow with every incident ever
opened, and what issues turned off do: docs/notifications.md, incidents as GitHub issues. An
operation that fails is reported and the rest go on; once rate-limited past the budget, the rest are
reported undone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from canary.integrations.github_issues import markers
from canary.integrations.github_issues.client import (
    ISSUES_DISABLED,
    GitHubClient,
    GitHubError,
    RateLimited,
)
from canary.integrations.github_issues.plan import (
    STATE_LABELS,
    Close,
    IssueComment,
    Key,
    KnownIssue,
    Open,
    Operation,
    Relabel,
    Suspended,
    plan,
)
from canary.integrations.github_issues.render import Excerpt, IssueEvent
from canary.state.audit import AuditLine
from core.times import TimeFormatError, fmt_time, parse_time
from judge.suspension.decisions import ENDING, SUSPENDING, Action, RoundDecisions
from judge.suspension.silences import Silence, silence_for, split_silenced
from judge.suspension.state import JudgeState

DEFAULT_LABEL = "canary-incident"
LABEL_COLORS = {DEFAULT_LABEL: ("d93f0b", "An endpoint canary suspended or would suspend"),
                STATE_LABELS[Action.SUSPEND]: ("b60205", "canary suspended this endpoint (enforce mode)"),
                STATE_LABELS[Action.WOULD_SUSPEND]: ("fbca04", "canary would suspend this endpoint (observe mode)")}


SINCE_MARGIN = timedelta(hours=1)  # the runner's clock against GitHub's, generously
ISSUES_OFF = ("Issues are turned off in this repository (GitHub answered 410: {exc}); nothing to sync. "
              "Turn them on (Settings > General > Features > Issues) to get incident issues")


@dataclass
class SyncReport:
    done: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed


@dataclass(frozen=True, slots=True)
class Standing:
    """What stands after the round besides its decisions: the judge's suspensions (None: not read),
    people's silences and the audit log."""

    suspended: Sequence[Suspended] | None = None
    silences: Sequence[Silence] = ()
    audit_lines: Sequence[AuditLine] = ()


def endpoint_keys(doc: RoundDecisions) -> set[Key]:
    return {(d.model, d.provider) for d in doc.endpoint_decisions()}


def sync(doc: RoundDecisions, client: GitHubClient, *, label: str = DEFAULT_LABEL, run_url: str | None = None,
         excerpts: Mapping[Key, Sequence[Excerpt]] | None = None, dry_run: bool = False,
         standing: Standing = Standing()) -> SyncReport:
    """Open, comment, close and relabel so the issues tell this round's decisions (dry run: only say so).

    With `standing.suspended` (the judge's state after the round) every canary issue is checked against it
    (plan.py); an endpoint a silence covers at the round's time is left alone entirely, healing included."""
    report = SyncReport()
    endings, silences = ended_by(standing.audit_lines), standing.silences
    suspended = standing.suspended
    doc, suspended = _unsilenced(doc, suspended, silences, report)
    decided = endpoint_keys(doc)
    keys: set[Key] | None = None if suspended is not None else decided
    if keys is not None and not keys:
        return report
    needed = decided | {s.key for s in suspended or ()}
    try:
        issues = [i for i in find_issues(client, keys, label, since=written_since(doc, suspended), needed=needed)
                  if not _muted(silences, i.key, doc.now)]
        ops = plan(doc, issues, label=label, run_url=run_url, excerpts=excerpts, suspended=suspended, endings=endings)
        if dry_run:
            report.done += [f"would {describe(op)}" for op in ops]
            return report
        if ops:
            _ensure_labels(client, ops, label)
    except GitHubError as exc:
        if exc.status == ISSUES_DISABLED:
            report.warnings.append(ISSUES_OFF.format(exc=exc))
        else:
            report.failed.append(f"could not read the incident issues ({exc}); nothing was changed")
        return report
    apply(client, ops, report, label=label)
    return report


def _muted(silences: Sequence[Silence], key: Key, now: datetime) -> bool:
    return silence_for(silences, key[0], key[1], now) is not None


def _unsilenced(doc: RoundDecisions, suspended: Sequence[Suspended] | None, silences: Sequence[Silence],
                report: SyncReport) -> tuple[RoundDecisions, Sequence[Suspended] | None]:
    """The round's decisions and the state's suspensions less what a silence covers (said in the report)."""
    if not silences:
        return doc, suspended
    heard, muted = split_silenced(doc.decisions, silences, doc.now)
    for d, silence in muted:
        if not d.whole_round:
            report.done.append(f"silenced: {d.action.value} of {d.provider} ({d.model}) not written: silence by "
                               f"{silence.author} until {fmt_time(silence.until)}")
    kept = None if suspended is None else [s for s in suspended if not _muted(silences, s.key, doc.now)]
    return replace(doc, decisions=heard), kept


def find_issues(client: GitHubClient, keys: set[Key] | None, label: str, *, since: datetime | None = None,
                needed: set[Key] | frozenset[Key] = frozenset()) -> list[KnownIssue]:
    """The labelled issues about `keys` (None: every open one, and the closed ones about `needed`),
    each with every event written on it. With `since`, closed issues last updated before it are
    not listed at all (their events are older than anything this round looks for)."""
    if since is None:
        raws = client.list_issues(label)
    else:
        raws = client.list_issues(label, state="open") + client.list_issues(label, state="closed", since=_iso(since))
    found = []
    for raw in raws:
        issue = known_issue(raw)
        if issue is not None and (issue.key in keys if keys is not None else issue.open or issue.key in needed):
            found.append(_with_comments(client, issue))
    return found


def written_since(doc: RoundDecisions, suspended: Sequence[Suspended] | None) -> datetime | None:
    """The earliest time this round's events can be on a closed issue (the round, or an active suspension's
    start), less a margin for the clocks; None (list everything) when a start cannot be read."""
    try:
        parsed = [doc.now] + [parse_time(s.since, "time") for s in suspended or ()]
    except TimeFormatError:
        return None
    return min(parsed) - SINCE_MARGIN


def known_issue(raw: Mapping[str, Any]) -> KnownIssue | None:
    """An issue as canary sees it, or None when its body has no marker of ours."""
    found = [m for m in markers.parse(str(raw.get("body") or "")) if "model" in m]
    if not found or not isinstance(raw.get("number"), int):
        return None
    marker = found[0]
    labels = frozenset(str(x.get("name")) for x in raw.get("labels") or [] if isinstance(x, Mapping))
    return KnownIssue(int(raw["number"]), marker["model"], marker.get("endpoint", ""), raw.get("state") == "open",
                      labels, frozenset({marker["event"]}))


def _with_comments(client: GitHubClient, issue: KnownIssue) -> KnownIssue:
    events = {m["event"] for c in client.list_comments(issue.number)
              for m in markers.parse(str(c.get("body") or "")) if "model" not in m}
    return KnownIssue(issue.number, issue.model, issue.provider, issue.open, issue.labels, issue.events | events)


def _ensure_labels(client: GitHubClient, ops: list[Operation], label: str) -> None:
    needed = {label} | {name for op in ops if isinstance(op, Open | Relabel) for name in op.labels}
    for name in sorted(needed & (set(LABEL_COLORS) | {label})):
        if not client.label_exists(name):
            color, description = LABEL_COLORS.get(name, LABEL_COLORS[DEFAULT_LABEL])
            client.create_label(name, color, description)


def apply(client: GitHubClient, ops: list[Operation], report: SyncReport, *, label: str) -> None:
    opened: dict[Key, int] = {}
    for index, op in enumerate(ops):
        try:
            report.done.append(_apply(client, op, opened, label))
        except RateLimited as exc:
            report.failed += [f"{describe(o)}: not done ({exc})" for o in ops[index:]]
            return
        except GitHubError as exc:
            report.failed.append(f"{describe(op)}: {exc}")


def suspended_in(state: JudgeState, now: datetime) -> list[Suspended]:
    """The active suspensions of a JudgeState at `now` (the judge's `now` of the round)."""
    return [Suspended(model, provider, ps.suspension.mode, _iso(ps.suspension.since), _iso(ps.suspension.until),
                      ps.suspension.rung, ps.suspension.reason)
            for model, providers in sorted(state.models.items()) for provider, ps in sorted(providers.items())
            if ps.suspension is not None and ps.suspension.active(now)]


def ended_by(lines: Sequence[AuditLine]) -> dict[Key, IssueEvent]:
    """Per endpoint, the decision that ended its last suspension (restore, expired, lift) per the audit
    log; a lift is no round's: its event is named by its time, and the comment says who lifted it."""
    last = {(line.model, line.provider): line for line in lines if line.action in SUSPENDING | ENDING}
    return {key: IssueEvent(model=line.model, provider=line.provider, action=line.action, reason=line.reason,
                            rung=line.rung if isinstance(line.rung, int) else None,
                            round_id=line.round_id or line.time,
                            by=None if line.round_id else (line.by or "someone (not recorded)"))
            for key, line in last.items() if line.action in ENDING}


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _apply(client: GitHubClient, op: Operation, opened: dict[Key, int], label: str) -> str:
    if isinstance(op, Open):
        created = client.create_issue(op.title, op.body, list(op.labels), label=label,
                                      marker=markers.issue_marker(op.model, op.provider, op.event))
        opened[(op.model, op.provider)] = int(created.get("number", 0))
        if not client.wrote(created):   # never found again: a new issue every round
            raise GitHubError(0, f"opened #{created.get('number')}, but GitHub says another login wrote it, not "
                                 f"{client.login}: name the token's login with --author")
        return f"opened #{created.get('number')} {op.provider} ({op.model})"
    if isinstance(op, IssueComment):
        number = _target(op.number, op.model, op.provider, opened)
        client.create_comment(number, op.body, marker=markers.comment_marker(op.model, op.provider, op.event))
        return f"commented on #{number} ({op.event})"
    if isinstance(op, Close):
        number = _target(op.number, op.model, op.provider, opened)
        client.update_issue(number, state="closed", state_reason="completed")
        return f"closed #{number}"
    client.update_issue(op.number, labels=list(op.labels), **({"title": op.title} if op.title else {}))
    return f"relabelled #{op.number}: {', '.join(op.labels)}"


def _target(number: int | None, model: str, provider: str, opened: dict[Key, int]) -> int:
    if number is not None:
        return number
    if (model, provider) not in opened or not opened[(model, provider)]:
        raise GitHubError(0, "its issue could not be opened")
    return opened[(model, provider)]


def describe(op: Operation) -> str:
    if isinstance(op, Open):
        return f"open an issue for {op.provider} ({op.model})"
    if isinstance(op, IssueComment):
        return f"comment {op.event} on {'#' + str(op.number) if op.number else 'the new issue'}"
    if isinstance(op, Close):
        return f"close {'#' + str(op.number) if op.number else 'the new issue'}"
    return f"relabel #{op.number}"

"""From one round's decisions and the incident issues that exist, the operations to perform (pure).

The rules (open, comment, close, relabel, and healing from the judge's state): docs/notifications.md,
incidents as GitHub issues. Every operation is an event (`<round id>/<action>`) written once on an
endpoint's issues, open or closed, so re-running the same decisions plans nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from canary.integrations.github_issues import render
from canary.integrations.github_issues.markers import event_id
from canary.integrations.github_issues.render import IssueEvent
from judge.suspension.decisions import ENDING, SUSPENDING, Action, RoundDecisions

# The GitHub labels of an open issue's state: names in people's repositories, kept as they are.
STATE_LABELS: dict[str, str] = {Action.SUSPEND: "canary: suspended", Action.WOULD_SUSPEND: "canary: would suspend"}

Key = tuple[str, str]   # (model, endpoint)


@dataclass(frozen=True, slots=True)
class KnownIssue:
    """An incident issue as found on GitHub: its marker, state, labels and the events written on it."""

    number: int
    model: str
    provider: str
    open: bool
    labels: frozenset[str] = frozenset()
    events: frozenset[str] = frozenset()

    @property
    def key(self) -> Key:
        return (self.model, self.provider)


@dataclass(frozen=True, slots=True)
class Suspended:
    """An active suspension as the judge's state has it (after the round)."""

    model: str
    provider: str
    mode: str
    since: str
    until: str
    rung: int
    reason: str

    @property
    def key(self) -> Key:
        return (self.model, self.provider)


@dataclass(frozen=True, slots=True)
class Open:
    model: str
    provider: str
    event: str
    title: str
    body: str
    labels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class IssueComment:
    number: int | None        # None: the issue this same plan opens for (model, endpoint)
    model: str
    provider: str
    event: str
    body: str


@dataclass(frozen=True, slots=True)
class Close:
    number: int | None
    model: str
    provider: str


@dataclass(frozen=True, slots=True)
class Relabel:
    number: int
    labels: tuple[str, ...]   # the complete new set (labels people added are kept)
    title: str | None = None  # the title of its new state label


Operation = Open | IssueComment | Close | Relabel


@dataclass
class _Endpoint:
    open: KnownIssue | None = None
    opened_now: bool = False
    events: set[str] = field(default_factory=set)


def plan(doc: RoundDecisions, issues: Sequence[KnownIssue], *, label: str, run_url: str | None = None,
         excerpts: Mapping[Key, Sequence[render.Excerpt]] | None = None,
         suspended: Sequence[Suspended] | None = None, endings: Mapping[Key, IssueEvent] | None = None
         ) -> list[Operation]:
    """The operations that bring the issues up to date with this round's decisions (and state)."""
    round_id, mode = doc.round_id, doc.mode
    endpoints = _endpoints(issues)
    ops: list[Operation] = []
    for decision in doc.endpoint_decisions():
        d = IssueEvent.of(decision)
        model, provider, action = d.model, d.provider, d.action
        state = endpoints.setdefault((model, provider), _Endpoint())
        event = event_id(round_id, action)
        if event in state.events:
            continue
        quotes = (excerpts or {}).get((model, provider), ())
        if action in SUSPENDING and state.open is None and not state.opened_now:
            ops.append(Open(model, provider, event, render.title(d),
                            render.issue_body(d, event=event, round_id=round_id, mode=mode, run_url=run_url,
                                              excerpts=quotes),
                            (label, STATE_LABELS[action])))
            state.opened_now = True
        elif state.open is not None or state.opened_now:
            number = state.open.number if state.open is not None else None
            ops.append(IssueComment(number, model, provider, event,
                               render.comment_body(d, event=event, round_id=round_id, run_url=run_url,
                                                   excerpts=quotes)))
            relabel = _relabel(state.open, d)
            if relabel is not None and state.open is not None:
                ops.append(relabel)
                state.open = _with_labels(state.open, relabel)
            if action in ENDING:
                ops.append(Close(number, model, provider))
                state.open, state.opened_now = None, False
        state.events.add(event)
    if suspended is not None:
        touched = {(d.model, d.provider) for d in doc.decisions}
        ops += _reconcile(doc, endpoints, suspended, touched, label=label, run_url=run_url, endings=endings or {})
    return ops


def _reconcile(doc: RoundDecisions, endpoints: dict[Key, _Endpoint], suspended: Sequence[Suspended],
               touched: set[Key], *, label: str, run_url: str | None,
               endings: Mapping[Key, IssueEvent]) -> list[Operation]:
    round_id, mode = doc.round_id, doc.mode
    active = {s.key: s for s in suspended}
    ops: list[Operation] = []
    for key, s in sorted(active.items()):
        state = endpoints.setdefault(key, _Endpoint())
        action = Action.SUSPEND if s.mode == "enforce" else Action.WOULD_SUSPEND
        event = event_id(f"since-{s.since}", action)
        d = IssueEvent(model=s.model, provider=s.provider, action=action, until=s.until, rung=s.rung,
                       reason=f"{s.reason} (found in the judge's state: "
                              "the round that decided it did not reach GitHub)")
        if (relabel := _relabel(state.open, d)) is not None:
            ops.append(relabel)
        if state.open is not None or state.opened_now or event in state.events:
            continue
        ops.append(Open(s.model, s.provider, event, render.title(d),
                        render.issue_body(d, event=event, round_id=round_id, mode=s.mode, run_url=run_url),
                        (label, STATE_LABELS[action])))
        state.opened_now = True
    for key, state in sorted(endpoints.items()):
        if state.open is None or key in active or key in touched:
            continue
        d = endings.get(key) or IssueEvent(
            model=key[0], provider=key[1], action="not_suspended",
            reason=f"no longer suspended after this round ({mode} mode); the decision that ended it did not "
                   "reach GitHub")
        event = event_id(d.round_id or round_id, d.action)
        if event not in state.events:   # else written by a sync cut short before its close
            ops.append(IssueComment(state.open.number, key[0], key[1], event,
                                    render.comment_body(d, event=event, round_id=d.round_id or round_id,
                                                        run_url=None if d.round_id else run_url)))
        ops.append(Close(state.open.number, key[0], key[1]))
    return ops


def _endpoints(issues: Sequence[KnownIssue]) -> dict[Key, _Endpoint]:
    out: dict[Key, _Endpoint] = {}
    for issue in sorted(issues, key=lambda i: i.number):
        state = out.setdefault(issue.key, _Endpoint())
        state.events |= issue.events
        if issue.open:
            state.open = issue   # several open (made by hand?): the newest is the one kept up to date
    return out


def _relabel(issue: KnownIssue | None, d: IssueEvent) -> Relabel | None:
    """The state label, and the title, follow an opening decision (observe -> enforce)."""
    state_label = STATE_LABELS.get(d.action)
    if issue is None or state_label is None or state_label in issue.labels:
        return None
    return Relabel(issue.number, tuple(sorted(issue.labels - set(STATE_LABELS.values()) | {state_label})),
                   render.title(d))


def _with_labels(issue: KnownIssue, op: Relabel) -> KnownIssue:
    return KnownIssue(issue.number, issue.model, issue.provider, issue.open, frozenset(op.labels), issue.events)

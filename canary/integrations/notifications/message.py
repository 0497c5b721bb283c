"""The notification about one round's decisions: a title, a Markdown body and a severity (pure).

Upstream text goes through `core.untrusted.markdown()`, so a hostile reason cannot plant a link, a
ping or raw HTML (Apprise passes the Markdown to Slack, Discord, Telegram, and as HTML to e-mail). A
channel that renders no Markdown gets `Message.plain()`: the escapes it would show as they are
(`12\\:37\\:29Z`) undone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from canary.outputs.roundview import WEAK_EVIDENCE, card_lines
from core.times import fmt_time
from core.untrusted import MARKDOWN_SPECIAL, clean, markdown
from judge.suspension.decisions import Action, Decision, RoundDecisions, action_named

# Telegram caps a message at 4096 characters and Teams' workflows at about 1000 per block;
# the full list is in the job summary and decisions.json, so a long round is cut here.
MAX_DECISIONS = 15
MAX_EVIDENCE = 3
MAX_BODY = 3500


# What Message.plain() undoes in one pass, left to right: markdown()'s escape of a character, or
# one of our own `**` bold marks (an escaped `\*\*` reads as two escapes, not as a mark).
_MARKUP = re.compile(rf"\\({MARKDOWN_SPECIAL})|\*\*")

# Apprise's notification types, by how urgent the worst decision of the round is.
FAILURE, WARNING, SUCCESS, INFO = "failure", "warning", "success", "info"
_FAILURE = {Action.SUSPEND}
_WARNING = {Action.WOULD_SUSPEND, Action.FLOOR_HELD, Action.PROBE_WEAK, Action.MODEL_WIDE_GUARD,
            Action.INCOMPLETE_ROUND, Action.ROUTE_LEAK}
_SUCCESS = {Action.RESTORE, Action.EXPIRED, Action.LIFT, Action.INCIDENT_REMOVE}


@dataclass(frozen=True, slots=True)
class Message:
    """What every notification service receives."""

    title: str
    body: str        # Markdown, upstream text escaped
    kind: str        # failure | warning | success | info

    def as_text(self) -> str:
        """Title and body in one string (for a receiver with a single text field)."""
        return f"{self.title}\n{self.body}"

    def plain(self) -> Message:
        """The message for a channel that shows Markdown as it is: escapes undone, bold marks dropped."""
        return Message(self.title, _MARKUP.sub(lambda m: m.group(1) or "", self.body), self.kind)


def severity(actions: Sequence[str]) -> str:
    if any(a in _FAILURE for a in actions):
        return FAILURE
    if any(a in _WARNING for a in actions):
        return WARNING
    if actions and all(a in _SUCCESS for a in actions):
        return SUCCESS
    return INFO


def render(doc: RoundDecisions) -> Message:
    """The message for the judge's record of a round."""
    decisions = doc.decisions
    actions = [d.action.value for d in decisions]
    counts: dict[str, int] = {}
    for action in actions:
        counts[action] = counts.get(action, 0) + 1
    summary = ", ".join(f"{n} {_label(a)}" for a, n in counts.items()) or "no decisions"
    weak = sum(d.weak_evidence for d in decisions)
    if weak:
        summary += f" ({weak} on WEAK EVIDENCE)"
    # The title holds only our own words and counts, and several services show it as plain
    # text (an e-mail subject, an ntfy title), so it is cleaned, not Markdown-escaped.
    title = clean(f"canary: {summary}", limit=120)
    head = f"Round {markdown(doc.round_id, 80)} · {markdown(doc.mode, 20)} mode · {markdown(fmt_time(doc.now), 40)}"
    lines = [head, ""]
    for d in decisions[:MAX_DECISIONS]:
        lines.append(_decision_line(d))
        if d.weak_evidence:
            lines.append(f"  - ⚠️ **{markdown(WEAK_EVIDENCE, 400)}**")
        lines += [f"  - 📊 {markdown(line, 300)}" for line in card_lines(d.card)]
        for e in d.evidence[:MAX_EVIDENCE]:
            lines.append(f"  - {markdown(e.contract, 40)}: {markdown(e.outcome, 40)}: {markdown(e.reason, 200)}")
    if len(decisions) > MAX_DECISIONS:
        lines.append(f"- … and {len(decisions) - MAX_DECISIONS} more: see the job summary or decisions.json")
    return Message(title=title, body=_cap("\n".join(lines)), kind=severity(actions))


def _label(action: str) -> str:
    named = action_named(action)
    return named.label if named is not None else action


def _decision_line(d: Decision) -> str:
    symbol = d.action.symbol
    what = markdown(d.action.label, limit=60)
    where = markdown(f"{d.provider} of {d.model}", limit=160)
    until = f" until {markdown(fmt_time(d.until), limit=40)}" if d.until is not None else ""
    rung = f" (rung {markdown(d.rung, limit=8)})" if d.rung is not None else ""
    return f"- {symbol} **{what}**: {where}{until}{rung}: {markdown(d.reason)}"


def _cap(body: str) -> str:
    if len(body) <= MAX_BODY:
        return body
    cut = body[:MAX_BODY].rsplit("\n", 1)[0]
    return cut + "\n- … cut short: see the job summary or decisions.json"

"""Tell people about the round's decisions: stdout, $GITHUB_STEP_SUMMARY, and every service of
$CANARY_NOTIFY_URLS (Apprise URLs) plus the deprecated $CANARY_WEBHOOK_URL.

All render from the judge's record of the round (RoundDecisions, decisions.json); what is sent, how
silences mute it and what a failure does: docs/notifications.md. A round already applied (a re-run,
or a run that lost the race) is summarised again but not posted again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from canary.integrations.notifications import send as notifications
from canary.integrations.notifications.urls import NOTIFY_URLS_ENV, WEBHOOK_ENV
from core.times import fmt_time
from core.untrusted import clean, markdown
from judge.suspension.decisions import Action, Decision, RoundDecisions
from judge.suspension.silences import Silence, silencing, split_silenced

SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
WEBHOOK_ATTEMPTS = notifications.ATTEMPTS
__all__ = ["NOTIFY_URLS_ENV", "SUMMARY_ENV", "WEBHOOK_ATTEMPTS", "WEBHOOK_ENV", "notify", "render_markdown",
           "render_text"]
MAX_REASON = 160                 # keep one decision on one readable line
ALREADY_APPLIED_NOTE = "(already applied by an earlier run: summarised again, not posted again)"
# Production evidence's routine steps recur every round while a host's evidence lasts, and nobody acts on
# them: what a confirmation finds reaches people as a (would-be) suspension. The summaries keep them.
UNANNOUNCED = frozenset({Action.CONFIRM, Action.CONFIRMATION})


def _describe(d: Decision, silence: Silence | None = None) -> str:
    extra = ""
    if d.until is not None:
        extra = f" (rung {d.rung}, until {fmt_time(d.until)})"
    muted = "" if silence is None else f" [{silenced_note(silence)}]"
    return f"{d.action.value} {d.provider} of {d.model}{extra}: {clean(d.reason, MAX_REASON)}{muted}"


def silenced_note(silence: Silence) -> str:
    """How a silenced decision is marked (upstream-looking text flattened; Markdown escaped by the caller)."""
    return f"silenced until {fmt_time(silence.until)} by {clean(silence.author, 60)}: {clean(silence.reason)}"


def render_text(doc: RoundDecisions, silences: Sequence[Silence] = ()) -> str:
    """The stdout summary."""
    head = f"canary judge: round {doc.round_id} ({doc.mode} mode): {len(doc.decisions)} decision(s)"
    if doc.already_applied:
        head += f" {ALREADY_APPLIED_NOTE}"
    return "\n".join([head, *(f"  {_describe(d, silencing(silences, d, doc.now))}" for d in doc.decisions)])


def render_markdown(doc: RoundDecisions, silences: Sequence[Silence] = ()) -> str:
    """A `$GITHUB_STEP_SUMMARY` section."""
    lines = [f"### Judge decisions: round `{doc.round_id}` ({doc.mode} mode)", ""]
    if doc.already_applied:
        lines += [ALREADY_APPLIED_NOTE, ""]
    if not doc.decisions:
        lines.append("No decisions this round.")
    else:
        lines += ["| | action | model | provider | until | reason |", "|---|---|---|---|---|---|"]
        for d in doc.decisions:
            silence = silencing(silences, d, doc.now)
            muted = "" if silence is None else f" 🔕 *{markdown(silenced_note(silence), 300)}*"
            lines.append(f"| {d.action.symbol} | {d.action.value} | `{d.model}` | `{d.provider}` | "
                         f" {fmt_time(d.until) or ''} | {markdown(d.reason, MAX_REASON)}{muted} |")
    return "\n".join(lines) + "\n\n"


def notify(doc: RoundDecisions, *, audit_path: Path, env: Mapping[str, str] | None = None,
           sleep: Callable[[float], None] = time.sleep, echo: Callable[[str], None] = print,
           silences: Sequence[Silence] = ()) -> bool:
    """Send the round's summary everywhere configured, silenced decisions left out of the services'
    message. Never raises for a delivery problem; True when an undelivered notification was recorded in
    the audit log (which then needs committing)."""
    env = os.environ if env is None else env
    echo(render_text(doc, silences))
    summary = env.get(SUMMARY_ENV)
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(render_markdown(doc, silences))
        except OSError as exc:
            echo(f"canary: could not append to ${SUMMARY_ENV} ({exc.strerror})")
    heard, muted = split_silenced([d for d in doc.decisions if d.action not in UNANNOUNCED], silences, doc.now)
    targets = notifications.targets(env)
    if targets and muted and not doc.already_applied:
        echo(f"canary: {len(muted)} silenced decision(s) left out of the notification"
             + ("; nothing else to send" if not heard else ""))
    if targets and not doc.already_applied:
        sent = replace(doc, decisions=heard)
        return bool(notifications.send(sent, targets, audit_path, sleep=sleep, echo=echo, env=env))
    return False

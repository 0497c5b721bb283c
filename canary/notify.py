"""Tell people about the round's decisions: stdout, $GITHUB_STEP_SUMMARY, $CANARY_WEBHOOK_URL.

All three render from the decisions.json document. Text from the upstream (reasons) is escaped
for Markdown and flattened to one line; the webhook URL is a secret and is never printed or
logged. A webhook that keeps failing is recorded in the audit log as a warning and never fails
the command: the decisions are already in the state, the audit log and decisions.json.

The workflow announces after `canary commit` (`canary announce`), from the decisions file as
committed. A round that was already applied (a re-run, or a run that lost the race to a
concurrent one) is summarised again but not posted to the webhook again: it was announced by
the run that committed it.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx

from canary import audit
from canary.state import fmt_time

WEBHOOK_ENV = "CANARY_WEBHOOK_URL"
SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
WEBHOOK_ATTEMPTS = 3
WEBHOOK_TIMEOUT_S = 5.0          # short: a slow chat service must not hold the round's job
WEBHOOK_BACKOFF_S = (1.0, 3.0)   # pauses between attempts
MAX_REASON = 160                 # keep one decision on one readable line
ALREADY_APPLIED_NOTE = "(already applied by an earlier run: summarised again, not posted again)"
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|<>~])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")

SYMBOLS = {"suspend": "⛔", "would_suspend": "👀", "floor_held": "⚠️", "restore": "✅", "expired": "⌛",
           "probe_weak": "🧪", "control_unprobed": "🧪", "not_counted": "⏭️", "streak_restarted": "🔁",
           "model_wide_guard": "🛡️", "incomplete_round": "⏸️", "lift": "🔓",
           "incident_add": "🚧", "incident_remove": "🧹"}


def one_line(text: str, limit: int = MAX_REASON) -> str:
    """Control characters (newlines included) flattened, length capped."""
    flat = _CONTROL.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def md_escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", one_line(text))


def _describe(d: Mapping[str, Any]) -> str:
    extra = ""
    if d.get("until"):
        extra = f" (rung {d.get('rung')}, until {d['until']})"
    return f"{d['action']} {d['provider']} of {d['model']}{extra}: {one_line(str(d['reason']))}"


def render_text(doc: Mapping[str, Any]) -> str:
    """The stdout summary."""
    decisions = doc.get("decisions", [])
    head = f"canary judge: round {doc.get('round_id')} ({doc.get('mode')} mode): {len(decisions)} decision(s)"
    if doc.get("already_applied"):
        head += f" {ALREADY_APPLIED_NOTE}"
    return "\n".join([head, *(f"  {_describe(d)}" for d in decisions)])


def render_markdown(doc: Mapping[str, Any]) -> str:
    """A `$GITHUB_STEP_SUMMARY` section."""
    lines = [f"### Judge decisions: round `{doc.get('round_id')}` ({doc.get('mode')} mode)", ""]
    if doc.get("already_applied"):
        lines += [ALREADY_APPLIED_NOTE, ""]
    decisions = doc.get("decisions", [])
    if not decisions:
        lines.append("No decisions this round.")
    else:
        lines += ["| | action | model | provider | until | reason |", "|---|---|---|---|---|---|"]
        for d in decisions:
            lines.append(f"| {SYMBOLS.get(d['action'], '')} | {d['action']} | `{d['model']}` | `{d['provider']}` | "
                         f"{d.get('until') or ''} | {md_escape(str(d['reason']))} |")
    return "\n".join(lines) + "\n\n"


def notify(doc: Mapping[str, Any], *, audit_path: Path, env: Mapping[str, str] | None = None,
           client: httpx.Client | None = None, sleep: Callable[[float], None] = time.sleep,
           echo: Callable[[str], None] = print) -> bool:
    """Send the round's summary everywhere configured. Never raises for a delivery problem.

    True when an undelivered webhook was recorded in the audit log (which then needs committing)."""
    env = os.environ if env is None else env
    echo(render_text(doc))
    summary = env.get(SUMMARY_ENV)
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(render_markdown(doc))
        except OSError as exc:
            echo(f"canary: could not append to ${SUMMARY_ENV} ({exc.strerror})")
    url = env.get(WEBHOOK_ENV)
    if url and doc.get("decisions") and not doc.get("already_applied"):
        error = post_webhook(url, {"text": render_text(doc)}, client=client, sleep=sleep)
        if error is not None:
            echo(f"canary: webhook notification failed after {WEBHOOK_ATTEMPTS} attempts ({error}); recorded in the audit log")
            audit.append(audit_path, [{
                "time": doc.get("now") or fmt_time(None), "round_id": doc.get("round_id"), "mode": doc.get("mode"),
                "model": "*", "provider": "*", "action": audit.WEBHOOK_FAILED, "rule": "notification",
                "reason": f"webhook not delivered: {error}", "evidence": []}])
            return True
    return False


def post_webhook(url: str, payload: Mapping[str, Any], *, client: httpx.Client | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> str | None:
    """POST with retries; None on success, else a description of the last error (without the URL)."""
    own = client is None
    http = client or httpx.Client(timeout=WEBHOOK_TIMEOUT_S)
    error = "not attempted"
    try:
        for attempt in range(WEBHOOK_ATTEMPTS):
            try:
                response = http.post(url, json=dict(payload), timeout=WEBHOOK_TIMEOUT_S)
                if response.status_code < 300:
                    return None
                error = f"HTTP {response.status_code}"
            except httpx.HTTPError as exc:
                error = type(exc).__name__  # the exception text may quote the secret URL
            if attempt < WEBHOOK_ATTEMPTS - 1:
                sleep(WEBHOOK_BACKOFF_S[min(attempt, len(WEBHOOK_BACKOFF_S) - 1)])
    finally:
        if own:
            http.close()
    return error

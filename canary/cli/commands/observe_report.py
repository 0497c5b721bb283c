"""`canary observe-report --days N`: every would-suspend of the last N days, its evidence, and
what happened next (canary/history/observe.py), so admins can judge false positives before
switching `mode` to enforce. Reads the audit log, and the round history when it has the rounds.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from typing import Any

import click

from canary.cli.commands._options import Invocation, common, pass_invocation
from canary.history.observe import ObserveOutcome, WouldSuspend, would_suspends
from canary.history.query import History
from canary.history.rows import HistoryError
from canary.history.store import history_root
from canary.state import audit
from core.times import fmt_time
from core.untrusted import clean

OUTCOME_TEXT: dict[str, str] = {
    ObserveOutcome.RESTORED: "restored by clean rounds",
    ObserveOutcome.EXPIRED: "ran its full term",
    ObserveOutcome.ENFORCED: "enforced when the judge switched to enforce",
    ObserveOutcome.ENDED: "ended when the judge switched to enforce",
    ObserveOutcome.LIFTED: "lifted by hand",
    ObserveOutcome.ACTIVE: "still active",
}


@click.command("observe-report",
               short_help="every would-suspend of the last N days and what happened next")
@click.option("--days", type=float, default=7.0, help="the window, in days (default 7)")
@click.option("--model", default=None, help="only this model")
@click.option("--json", "as_json", is_flag=True, help="print JSON instead of text")
@common(files=("audit", "history"))
@pass_invocation
def observe_report(invocation: Invocation, days: float, model: str | None, as_json: bool) -> int:
    """Every would-suspend of the last N days, its evidence, and what happened next."""
    config = invocation.config()
    now = invocation.now()
    log = audit.read(config.paths.audit)
    torn = log.torn
    for problem in log.set_aside:
        print(f"canary observe-report: warning: {problem} (that audit line is skipped)", file=sys.stderr)
    since = now - timedelta(days=days)
    items = [w for w in would_suspends(log.lines, since=since, now=now) if model in (None, w.model)]
    history: History | None = None
    warning = None
    try:
        history = History.open(history_root(config.paths), now=now, days=int(days) + 2)
    except HistoryError as exc:
        warning = f"the round history could not be read, so rounds are not shown: {exc}"
    entries = [_entry(w, history, now) for w in items]
    if as_json:
        print(json.dumps({"schema_version": 1, "now": fmt_time(now), "days": days, "torn_audit_lines": torn,
                          "warning": warning, "would_suspends": entries}, indent=2, sort_keys=True))
    else:
        print(render(entries, days=days, now_iso=fmt_time(now) or "", warning=warning, torn=torn))
    return 0


def _entry(w: WouldSuspend, history: History | None, now: Any) -> dict[str, Any]:
    end = w.ended_at or (w.until if w.until is not None and w.until < now else now)
    rounds = history.classes_between(w.model, w.provider, w.at, end) if history else {}
    failing = history.contract_failures(w.round_id, w.model) if history and w.round_id else {}
    return {
        "model": w.model, "provider": w.provider, "at": fmt_time(w.at), "round_id": w.round_id,
        "until": fmt_time(w.until), "rung": w.rung, "reason": w.reason,
        "evidence": [{"contract": c, "outcome": o, "code": code, "reason": r,
                      "endpoints_failing_it_that_round": list(failing[c]) if c in failing else None}
                     for c, o, code, r in w.evidence],
        "outcome": w.outcome, "ended_at": fmt_time(w.ended_at),
        "rounds_until_end": {k: rounds.get(k, 0) for k in ("failed", "clean", "frozen")} if history else None,
        "then": None if w.then is None else {"action": w.then.action, "at": fmt_time(w.then.at), "rule": w.then.rule},
    }


def render(entries: list[dict[str, Any]], *, days: float, now_iso: str, warning: str | None, torn: int) -> str:
    out = [f"canary observe-report: {len(entries)} would-suspend(s) in the {days:g} day(s) before {now_iso}"]
    counts: dict[str, int] = {}
    for e in entries:
        counts[e["outcome"]] = counts.get(e["outcome"], 0) + 1
    if counts:
        out.append("  " + ", ".join(f"{n} {OUTCOME_TEXT[k]}" for k, n in sorted(counts.items())))
    for e in entries:
        out.append("")
        out.append(f"{e['at']}  {clean(e['model'])}  {clean(e['provider'])}  would suspend until {e['until']} "
                   f"(rung {e['rung']}, round {clean(e['round_id'])})")
        for ev in e["evidence"]:
            if ev["outcome"] in ("pass", "not_applicable"):
                continue
            also = ev["endpoints_failing_it_that_round"]
            share = f"  [{also[0]} of {also[1]} endpoints failed {ev['contract']} that round]" if also else ""
            reason = clean(ev["reason"], 100)
            out.append(f"    {ev['contract']:<10} {ev['outcome']:<15} {ev['code']:<18} {reason}{share}")
        ended = f" at {e['ended_at']}" if e["ended_at"] else ""
        rounds = e["rounds_until_end"]
        seen = (f"; its rounds since: {rounds['failed']} failed, {rounds['clean']} clean, {rounds['frozen']} frozen"
                if rounds else "")
        out.append(f"    next: {OUTCOME_TEXT[e['outcome']]}{ended}{seen}")
        if e["then"]:
            out.append(f"    then: {e['then']['action']} again at {e['then']['at']}")
    if warning:
        out += ["", f"warning: {warning}"]
    if torn:
        out += ["", f"warning: {torn} torn line(s) of the audit log were skipped"]
    return "\n".join(out)

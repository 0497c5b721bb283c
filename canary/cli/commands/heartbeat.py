"""`canary heartbeat [--decisions FILE] [--fail]`: tell the dead-man's switch a round was judged
(docs/notifications.md, The heartbeat). Always exits 0 once its arguments are right: a monitor that is
down must not fail a round, and a missing ping is exactly what the monitor reports.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from canary.cli.commands._options import PATH
from canary.integrations.notifications import heartbeat
from canary.state.results_files import read_decisions
from core.store import StoreError
from judge.suspension.decisions import DecisionsError, RoundDecisions


@click.command("heartbeat", short_help="ping $CANARY_HEARTBEAT_URL (a dead-man's switch) after a round")
@click.option("--decisions", "decisions_path", type=PATH, default=None, metavar="PATH",
              help="the round's decisions.json (missing or incomplete round: the failure ping)")
@click.option("--fail", is_flag=True, help="signal a failure whatever the decisions say")
def heartbeat_command(decisions_path: Path | None, fail: bool) -> int:
    """Tell the dead-man's switch a round was judged (always exit 0 once the options are right)."""
    url = os.environ.get(heartbeat.HEARTBEAT_ENV, "").strip()
    if not url:
        print(f"canary heartbeat: ${heartbeat.HEARTBEAT_ENV} is not set; nothing to ping")
        return 0
    if decisions_path is None:
        status = heartbeat.RoundStatus(not fail, "a step of the workflow failed" if fail else "alive")
    else:
        decisions: RoundDecisions | None = None
        try:
            decisions = read_decisions(decisions_path)
        except (StoreError, DecisionsError) as exc:
            print(f"canary heartbeat: {exc}", file=sys.stderr)
        status = heartbeat.round_status(decisions, failed=fail)
    error = heartbeat.ping(url, status, fail_url=os.environ.get(heartbeat.HEARTBEAT_FAIL_ENV, "").strip() or None)
    what = "success" if status.ok else "failure"
    if error is None:
        print(f"canary heartbeat: {what} signalled ({status.summary})")
    else:
        warning = f"canary heartbeat: the {what} ping was not delivered ({error}); the monitor will report silence"
        print(f"::warning::{warning}" if os.environ.get("GITHUB_ACTIONS") == "true" else warning, file=sys.stderr)
    return 0

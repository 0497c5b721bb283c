"""`canary announce [DECISIONS.json]`: tell people about a round's committed decisions (stdout, the job
summary, the notification services; docs/notifications.md). A service that cannot be reached is
recorded in the audit log, and in GitHub Actions the step sets `undelivered=true` so the workflow
commits that line. Exit 0 whatever the services did; 2 when the decisions file cannot be read.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from canary.cli.commands._options import PATH, Invocation, common, pass_invocation
from canary.integrations import notify
from canary.round.judging import DEFAULT_DECISIONS_FILE
from canary.state.results_files import read_decisions
from canary.state.silences import silences_or_none

OUTPUT_ENV = "GITHUB_OUTPUT"


@click.command("announce", short_help="print, summarise and post a round's committed decisions")
@click.argument("decisions_path", required=False, type=PATH, metavar="[DECISIONS.json]")
@common(files=("audit", "silences"), now=False)
@pass_invocation
def announce(invocation: Invocation, decisions_path: Path | None) -> int:
    """Print, summarise and post a round's committed decisions (default: <paths.reports>/decisions.json)."""
    config = invocation.config()
    path = decisions_path or Path(config.paths.reports) / DEFAULT_DECISIONS_FILE
    decisions = read_decisions(path)
    if decisions is None:
        print(f"canary announce: {path}: no decisions file (run canary judge first); nothing announced",
              file=sys.stderr)
        return 2
    silences = silences_or_none(config.paths.silences, lambda line: print(line, file=sys.stderr))
    undelivered = notify.notify(decisions, audit_path=config.paths.audit, silences=silences)
    output = os.environ.get(OUTPUT_ENV)
    if output:
        with open(output, "a", encoding="utf-8") as handle:
            handle.write(f"undelivered={'true' if undelivered else 'false'}\n")
    return 0

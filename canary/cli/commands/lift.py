"""`canary lift --model M --provider P --reason R [--by NAME]`: end a suspension by hand (audited). The
failed streak restarts, the ladder rung is kept (a lifted host that fails again climbs the ladder)."""

from __future__ import annotations

import getpass
import os

import click

from canary.cli.commands._options import Invocation, common, pass_invocation
from canary.state import audit
from canary.state.judge_files import load_state, refuse_future_times, save_state
from judge.suspension.rules import lift


@click.command("lift", short_help="end a provider's suspension by hand")
@click.option("--model", required=True)
@click.option("--provider", required=True)
@click.option("--reason", required=True, help="why (recorded in the audit log)")
@click.option("--by", default=None, help="who (recorded in the audit log; default: $GITHUB_ACTOR, else the login name)")
@common(files=("state", "audit"))
@pass_invocation
def lift_command(invocation: Invocation, model: str, provider: str, reason: str, by: str | None) -> int:
    """End a provider's suspension by hand (audited)."""
    config = invocation.config()
    now = invocation.now()
    audit.check_appendable(config.paths.audit)
    state = load_state(config.paths.state)
    refuse_future_times(state, config.paths.state, now)
    new_state, decision = lift(state, model, provider, now=now, reason=reason)
    audit.append(config.paths.audit, audit.decision_lines([decision], round_id=None, mode=config.mode, now=now,
                                                          by=by or _login()))
    save_state(config.paths.state, new_state)
    print(f"canary lift: lifted the suspension of {provider} for {model}")
    return 0


def _login() -> str | None:
    try:
        return os.environ.get("GITHUB_ACTOR") or getpass.getuser()
    except (OSError, KeyError):  # no login name (a container without a passwd entry): not recorded
        return None

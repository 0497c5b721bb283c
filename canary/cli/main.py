"""The `canary` console script: one click group, one module per subcommand, listed in COMMANDS.

A command refuses by raising: every CanaryError (core/errors.py) is caught once, here (the root
group, `Canary.invoke`), and said as `canary COMMAND: message` with exit 2 (1 for the git commands
of REFUSED_WITH; a RoundRefused carries its own). A command
returns its exit code and the group ends with it, so click's CliRunner sees what a shell sees.
Commands never print a CanaryError and return an exit code themselves (tests/test_architecture.py
keeps it so); they catch one only to carry on without it. A usage error (an unknown option, a
missing value) is click's: the usage, the error, exit 2.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from canary.cli.commands import (
    announce,
    commit,
    digest,
    discover,
    explain,
    fetch_state,
    heartbeat,
    history,
    ignore,
    incident,
    issues,
    judge,
    lift,
    maintenance,
    models,
    observe_report,
    probe,
    report,
    round,
    silence,
    sim,
    site,
    status,
    summary,
    validate,
)
from canary.cli.commands._options import config_option
from canary.round.refusal import RoundRefused
from core.config import ConfigError
from core.errors import CanaryError

COMMANDS: tuple[click.Command, ...] = (
    announce.announce, commit.commit, digest.digest, discover.discover_command, explain.explain_command,
    fetch_state.fetch_state,
    heartbeat.heartbeat_command, history.history, ignore.ignore, incident.incident, issues.issues, judge.judge,
    lift.lift_command, maintenance.maintenance, models.models_command, observe_report.observe_report,
    probe.probe, report.report, round.round_command, silence.silence, sim.sim, site.site, status.status,
    summary.summary_command, validate.validate,
)


EXIT_REFUSED = 2  # a command that refuses what it was given
# The git commands refuse with 1, as they always did (`fetch-state --exists`: the remote could not be asked).
REFUSED_WITH = {"commit": 1, "fetch-state": 1}
# Inherited by every subcommand's context.
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 110}


class Canary(click.Group):
    """The root group: runs the subcommand, ends with its exit code, and says its refusals (once, here)."""

    def invoke(self, ctx: click.Context) -> int:
        try:
            code = int(super().invoke(ctx) or 0)
        except ConfigError as exc:
            click.echo(f"canary: configuration error: {exc}", err=True)
            code = EXIT_REFUSED
        except CanaryError as exc:  # the message names the thing and says what to do
            name = ctx.invoked_subcommand
            click.echo(f"canary {name}: {exc}" if name else f"canary: {exc}", err=True)
            code = exc.exit_code if isinstance(exc, RoundRefused) else REFUSED_WITH.get(name or "", EXIT_REFUSED)
        if code:
            ctx.exit(code)
        return code


@click.group(name="canary", cls=Canary, context_settings=CONTEXT,
             help="Probe every OpenRouter provider of a model pinned, judge the round, "
                  "keep broken hosts out of provider.ignore.")
@config_option
def canary() -> None:
    """The group itself does nothing: its --config reaches the subcommand."""


for _command in COMMANDS:
    canary.add_command(_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line; returns its exit code (the console script exits with it)."""
    try:
        return int(canary.main(list(sys.argv[1:] if argv is None else argv), prog_name="canary",
                               standalone_mode=False) or 0)
    except click.ClickException as usage:  # click's own message and usage: exit 2
        usage.show()
        return usage.exit_code
    except click.Abort:  # Ctrl-C
        click.echo("canary: interrupted", err=True)
        return 130


if __name__ == "__main__":
    sys.exit(main())

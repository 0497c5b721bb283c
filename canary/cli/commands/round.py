"""`canary round`: one whole round on this machine — probe, judge, summary, Allure report.

This is the README's first command. It runs exactly the steps the scheduled workflow runs
(`canary probe`, `canary judge`, `canary summary`, `canary report`), in one process, so what a
developer sees locally is what the workflow does (canary/round/local_round.py run_round).

Without OPENROUTER_API_KEY the round runs against the bundled simulator, keeps the judge's files
in <reports>/simulator-state/ (a demo round must never write suspensions of simulated hosts into
the state the chat backend reads) and runs on a virtual clock, half an hour after the previous
simulator round: docs/developing.md, The bundled simulator and its virtual clock.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from canary.cli.commands._options import PATH, TIME, Invocation, config_option, pass_invocation, selection_options
from canary.round.local_round import RoundOptions, run_round
from core.policy import Mode

DOC = __doc__ or ""


@click.command("round", help=DOC,
               short_help="run one whole round: probe, judge, print the summary, render the report")
@config_option
@selection_options
@click.option("--scenario", default=None, metavar="FILE", help="simulator scenario (only without a key)")
@click.option("--seed", type=int, default=None, help="simulator seed (default: the round number)")
@click.option("--mode", type=click.Choice(Mode, case_sensitive=False), default=None, help="override canary.yaml's mode")
@click.option("--now", type=TIME, default=None, help="judge at this time (default: now)")
@click.option("--reports", type=PATH, default=None, metavar="DIR", help="reports directory (default: paths.reports)")
@click.option("--no-report", is_flag=True, help="skip rendering the Allure HTML report")
@pass_invocation
def round_command(invocation: Invocation, models: tuple[str, ...], keyword: str | None, marker: str | None,
                  scenario: str | None, seed: int | None, mode: Mode | None, now: datetime | None,
                  reports: Path | None, no_report: bool) -> int:
    return run_round(RoundOptions(
        config_path=invocation.config_path, reports=reports, models=models, keyword=keyword, marker=marker,
        scenario=scenario, seed=seed, mode=mode, now=now, render_report=not no_report))

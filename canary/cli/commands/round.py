"""`canary round`: one whole round on this machine — probe, judge, summary, Allure report.

This is the README's first command. It runs exactly the steps the scheduled workflow runs
(`canary probe`, `canary judge`, `canary summary`, `canary report`), in one process, so what a
developer sees locally is what the workflow does (canary/round/local_round.py run_round).

Without OPENROUTER_API_KEY the round runs against the bundled simulator, and the judge's
files live in <reports>/simulator-state/ instead of state/: a demo round must never write
suspensions of simulated hosts into the state the chat backend reads. Each simulator round
advances the simulator's round number, so scenarios that change over time play out, and runs
on a virtual clock: it starts 30 minutes after the previous simulator round's virtual start
(the first one at the real time), and the judge judges it at its virtual end. So two rounds in
a row are two consecutive half-hourly rounds to the judge, as in production, whatever time
passed between them. A round against a real upstream always runs and is judged on real time.
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

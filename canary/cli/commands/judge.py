"""`canary judge RESULTS.json`: apply one round, its one results file (docs/judge.md).

Order of effects, chosen so a crash never leaves routing ahead of the record: read and validate
everything first (nothing is written if any file is refused), then write decisions.json, append the
audit log, replace the state file (the commit point), and finally notify. Default `now` is the
current UTC time, not the round's: expiries and the ladder are about real time, and a round judged
late must not resurrect suspensions that already ended.
"""

from __future__ import annotations

from pathlib import Path

import click

from canary.cli.commands._options import PATH, Invocation, common, pass_invocation
from canary.round.judging import (
    SIMULATOR_STATE_DIR,
    JudgeRequest,
    model_list,
    run_judge,
)
from core.policy import Mode


@click.command("judge", short_help="apply one round's results to the state (streaks, suspensions)")
@click.argument("results_path", required=False, type=PATH, metavar="[RESULTS.json]")
@click.option("--mode", type=click.Choice(Mode, case_sensitive=False), default=None,
              help="override canary.yaml's mode for this round")
@click.option("--decisions-out", type=PATH, default=None, metavar="PATH",
              help="where to write decisions.json (default: <paths.reports>/decisions.json)")
@click.option("--no-notify", is_flag=True,
              help="do not print, summarise or post the decisions (the workflow runs `canary announce` "
                   "after `canary commit` instead)")
@click.option("--expect-models", default=None, metavar="M1,M2",
              help="the models this round planned to probe (comma separated): one without results makes "
                   "the round incomplete for that model only")
@click.option("--allow-simulator", is_flag=True,
              help=f"apply a round probed against the bundled simulator to a state outside a "
                   f"{SIMULATOR_STATE_DIR}/ folder (only for a scratch copy of the state)")
@click.option("--production", type=PATH, default=None, metavar="DIR",
              help="a folder of production records (the state branch's production/): those of the evidence window "
                   "are read; a refused one is named and the round judged without it")
@common()
@pass_invocation
def judge(invocation: Invocation, results_path: Path | None, mode: Mode | None, decisions_out: Path | None,
          no_notify: bool, expect_models: str | None, allow_simulator: bool, production: Path | None) -> int:
    """Apply one round's results file to the state (streaks, suspensions); none given: the round left none.

    A round refused (a file that cannot be trusted, a round older than the last one applied, a
    simulator round bound for the real state) writes nothing and exits 2."""
    run_judge(JudgeRequest(results_path, invocation.config(), invocation.now(), mode=mode, decisions_out=decisions_out,
                           send=not no_notify, expect=model_list(expect_models), allow_simulator=allow_simulator,
                           production_dir=production))
    return 0

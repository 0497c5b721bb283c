"""`canary judge RESULTS.json...`: apply one round (several files = shards of one round).

Order of effects, chosen so a crash never leaves routing ahead of the record: read and validate
everything first (nothing is written if any file is refused), then write decisions.json, append
the audit log, replace the state file (the commit point), and finally notify. The scheduled
workflow passes --no-notify and announces after `canary commit` instead (`canary announce`), so
people hear only about decisions that were committed, never a judgement made on stale state.

Refused (exit 2, nothing written): a file that cannot be trusted, a round older than the last one
applied, and a round probed against the bundled simulator applied to a state outside a
`simulator-state/` folder (the real state the chat backend reads) unless --allow-simulator.

--expect-models names the models the round planned to probe (the workflow's plan job): a planned
model with no results (its probe job was cancelled, timed out or failed before writing a shard)
makes the round incomplete for that model only; nothing moves for it and the decisions say why.
A shard that is itself incomplete (a discovery 503, a probe cut short) is the same for its own
models only; the round is incomplete when every shard is.

A re-run of failed jobs gives the judge the earlier attempt's shards (judged already, in a round
the state holds) beside the re-probed ones: those are set aside and the new shards judged as a
round of their own (judge/suspension/planned.py split_rerun; decisions.json `reused_shards` names them).

An already-applied round changes nothing, but its decisions file is rewritten from the state and
from that round's lines in the audit log, so a re-run (or a run that lost the race to a
concurrent one) reports what was actually committed.

Default `now` is the current UTC time (not the round's timestamps): expiries and the ladder are
about real time, and a round judged late must not resurrect suspensions that already ended.
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
from core.policy import MODES, Mode


@click.command("judge", short_help="apply one round's results to the state (streaks, suspensions)")
@click.argument("results_paths", nargs=-1, type=PATH, metavar="RESULTS.json...")
@click.option("--mode", type=click.Choice(MODES), default=None, help="override canary.yaml's mode for this round")
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
@common()
@pass_invocation
def judge(invocation: Invocation, results_paths: tuple[Path, ...], mode: Mode | None, decisions_out: Path | None,
          no_notify: bool, expect_models: str | None, allow_simulator: bool) -> int:
    """Apply one round's results to the state (streaks, suspensions); several files are shards of one round.

    A round refused (a file that cannot be trusted, a round older than the last one applied, a
    simulator round bound for the real state) writes nothing and exits 2."""
    run_judge(JudgeRequest(results_paths, invocation.config(), invocation.now(), mode=mode, decisions_out=decisions_out,
                           send=not no_notify, expect=model_list(expect_models), allow_simulator=allow_simulator))
    return 0

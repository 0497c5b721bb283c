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

import argparse
import sys
from pathlib import Path

from canary.cli.commands._options import add_common, config_of, now_of
from canary.round.judging import (
    SIMULATOR_STATE_DIR,
    JudgeRequest,
    model_list,
    run_judge,
)
from core.policy import MODES


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("judge", help="apply one round's results to the state (streaks, suspensions)")
    p.add_argument("results", nargs="*", type=Path, metavar="RESULTS.json", help="results file(s); several = shards")
    p.add_argument("--mode", choices=MODES, default=None, help="override canary.yaml's mode for this round")
    p.add_argument("--decisions-out", type=Path, default=None, metavar="PATH",
                   help="where to write decisions.json (default: <paths.reports>/decisions.json)")
    p.add_argument("--no-notify", action="store_true",
                   help="do not print, summarise or post the decisions (the workflow runs `canary announce` "
                        "after `canary commit` instead)")
    p.add_argument("--expect-models", default=None, metavar="M1,M2",
                   help="the models this round planned to probe (comma separated): one without results makes "
                        "the round incomplete for that model only")
    p.add_argument("--allow-simulator", action="store_true",
                   help=f"apply a round probed against the bundled simulator to a state outside a "
                        f"{SIMULATOR_STATE_DIR}/ folder (only for a scratch copy of the state)")
    add_common(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    now = now_of(args)
    outcome = run_judge(JudgeRequest(
        tuple(args.results), config_of(args), now, mode=args.mode, decisions_out=args.decisions_out,
        send=not args.no_notify, expect=model_list(args.expect_models), allow_simulator=args.allow_simulator))
    if outcome.error is not None:
        print(f"canary judge: {outcome.error}", file=sys.stderr)
    return outcome.code



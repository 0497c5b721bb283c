"""`canary probe`: run one round (`pytest probes`) and say where the reports are.

Without OPENROUTER_API_KEY the bundled simulator is started as a subprocess (the same one
`canary sim` serves; a subprocess keeps its timing independent of the round's own CPU load)
and the round points OPENROUTER_BASE_URL at it with a dummy key. Inside GitHub Actions
(GITHUB_ACTIONS=true) a missing key is an error instead: an absent secret arrives there as an
empty string, usually because the schedule started before the `canary` environment and its
secret existed, and a simulator round must not pass for the real one. --simulator (or
--scenario) asks for the simulator on purpose, anywhere, with or without a key.

--state-checkout DIR reads the language plan from a checkout of the state branch (the judge's
files live there, not in the main checkout): DIR/<paths.state>; absent before the first round.

Exit codes: quality failures are the normal business of a round, so
  0  the round completed (whatever the hosts did);
  1  the round is incomplete (discovery failed, cut short, nothing selected): the judge will
     change no streak for it;
  2  the round could not run (configuration, usage or internal error, no results.json);
  3  the upstream refused the API key.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from canary.round.probing import ProbeOptions, run_probe


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("probe", help="run one round: probe every endpoint pinned, write the reports",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=argparse.SUPPRESS, help="configuration file (default: canary.yaml)")
    p.add_argument("--model", action="append", default=None,
                   help="model id to probe (repeatable; default: canary.yaml)")
    p.add_argument("-k", dest="keyword", default=None, metavar="EXPR",
                   help="pytest -k expression, e.g. a tag: aurora/fp8")
    p.add_argument("-m", dest="marker", default=None, metavar="CONTRACT",
                   help="pytest -m expression over contracts: latency, refusal, structured, language")
    p.add_argument("--workers", type=int, default=0, metavar="N", help="pytest-xdist workers (default 0: one process)")
    p.add_argument("--shares", type=int, default=1, metavar="N",
                   help="this is one of N probe jobs running at once (the workflow's matrix): each concurrency "
                        "cap of canary.yaml is divided by N (default 1)")
    p.add_argument("--simulator", action="store_true",
                   help="probe the bundled simulator on purpose (even with OPENROUTER_API_KEY, even in GitHub Actions)")
    p.add_argument("--scenario", default=None, metavar="FILE",
                   help="simulator scenario (implies --simulator)")
    p.add_argument("--state-checkout", default=None, metavar="DIR",
                   help="a checkout of the state branch: read the language plan from DIR/<paths.state>")
    p.add_argument("--seed", type=int, default=0, help="simulator seed (default 0)")
    p.add_argument("--round", type=int, default=1, dest="round_number", help="simulator round number (default 1)")
    p.add_argument("--reports", default=None, metavar="DIR", help="reports directory (default: paths.reports)")
    p.add_argument("--discovery-snapshot", default=None, metavar="FILE", help="replay a saved discovery.json")
    p.add_argument("pytest_args", nargs=argparse.REMAINDER, help="after --: more pytest options")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    outcome = run_probe(options_of(args))
    if outcome.error is not None:
        print(f"canary probe: {outcome.error}", file=sys.stderr)
        return outcome.code
    print(outcome.where())
    return outcome.code


def options_of(args: argparse.Namespace) -> ProbeOptions:
    """The command line as ProbeOptions (pytest options after `--` passed on as given)."""
    extra = list(args.pytest_args or ())
    return ProbeOptions(
        config_path=getattr(args, "config", None), reports=Path(args.reports) if args.reports else None,
        models=tuple(args.model or ()), keyword=args.keyword, marker=args.marker, workers=args.workers,
        shares=args.shares,
        simulator=bool(args.simulator), scenario=args.scenario, seed=args.seed, round_number=args.round_number,
        discovery_snapshot=args.discovery_snapshot, state_checkout=args.state_checkout,
        pytest_args=tuple(extra[1:] if extra[:1] == ["--"] else extra))

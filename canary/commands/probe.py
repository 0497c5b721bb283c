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
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import probes
from core.config import load_config
from core.upstream import BASE_URL_ENV, MissingKeyError, key_in_environment, refuse_keyless_in_ci
from core.results import IncompleteKind, read_results
from simulator.process import simulator_process

PROJECT_ROOT = Path(probes.__file__).resolve().parent.parent
SIM_START_TIMEOUT_S = 30.0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("probe", help="run one round: probe every endpoint pinned, write the reports",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=argparse.SUPPRESS, help="configuration file (default: canary.yaml)")
    p.add_argument("--model", action="append", default=None, help="model id to probe (repeatable; default: canary.yaml)")
    p.add_argument("-k", dest="keyword", default=None, metavar="EXPR", help="pytest -k expression, e.g. a tag: aurora/fp8")
    p.add_argument("-m", dest="marker", default=None, metavar="CONTRACT",
                   help="pytest -m expression over contracts: latency, refusal, structured, language")
    p.add_argument("--workers", type=int, default=0, metavar="N", help="pytest-xdist workers (default 0: one process)")
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
    config_path = getattr(args, "config", None)
    config = load_config(config_path)  # fail early, with canary's own message, on a bad file
    reports = Path(args.reports or config.paths.reports).resolve()
    env = dict(os.environ)
    try:
        refuse_keyless_in_ci(env, simulator=wants_simulator(args))
    except MissingKeyError as exc:
        print(f"canary probe: {exc}", file=sys.stderr)
        return 2
    try:
        with _upstream(env, args) as upstream:
            cmd = pytest_command(args, reports, config_path)
            print(f"canary probe: upstream {upstream}; reports in {reports}", flush=True)
            rc = subprocess.call(cmd, cwd=PROJECT_ROOT, env=env)
    except RuntimeError as exc:
        print(f"canary probe: {exc}", file=sys.stderr)
        return 2
    code = exit_code(rc, reports / "results.json")
    print(f"canary probe: results {reports / 'results.json'}, JUnit {reports / 'junit.xml'}, "
          f"Allure results {reports / 'allure-results'} (exit {code})")
    return code


def pytest_command(args: argparse.Namespace, reports: Path, config_path: str | None) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", "probes", "-p", "no:cacheprovider", "-q", "-rfE",
           f"--canary-reports={reports}", f"--junitxml={reports / 'junit.xml'}",
           f"--alluredir={reports / 'allure-results'}", "--clean-alluredir"]
    if config_path:
        cmd.append(f"--canary-config={Path(config_path).resolve()}")
    for model in args.model or ():
        cmd.append(f"--canary-model={model}")
    if args.keyword:
        cmd += ["-k", args.keyword]
    if args.marker:
        cmd += ["-m", args.marker]
    if args.workers:
        cmd += ["-n", str(args.workers)]
    if args.discovery_snapshot:
        cmd.append(f"--discovery-snapshot={Path(args.discovery_snapshot).resolve()}")
    if getattr(args, "state_checkout", None):
        state = Path(load_config(config_path).paths.state)
        inside = state if not state.is_absolute() else Path(state.name)
        cmd.append(f"--canary-state={(Path(args.state_checkout) / inside).resolve()}")
    extra = list(args.pytest_args or ())
    return cmd + (extra[1:] if extra[:1] == ["--"] else extra)


def exit_code(pytest_rc: int, results: Path) -> int:
    """Map pytest's exit code and the round's own verdict onto canary's exit codes."""
    try:
        record = read_results(json.loads(results.read_text(encoding="utf-8")), str(results))
    except (OSError, ValueError):  # unreadable, not JSON, or a record core.results refuses (ResultsError)
        return 2
    if pytest_rc in (3, 4):
        return 2
    if record.complete:
        return 0
    return 3 if IncompleteKind.AUTH in record.incomplete_kinds() else 1


def wants_simulator(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "simulator", False) or getattr(args, "scenario", None))


@contextmanager
def _upstream(env: dict[str, str], args: argparse.Namespace) -> Iterator[str]:
    """OpenRouter when a key is set (unless --simulator); otherwise a simulator subprocess for the round."""
    if key_in_environment(env) and not wants_simulator(args):
        yield env.get(BASE_URL_ENV) or "openrouter"
        return
    with simulator_process(args.scenario, args.seed, args.round_number) as sim:
        env.update(sim.environment())  # base URL, dummy key, and the scenario (its own controls)
        yield f"the bundled simulator at {sim.base_url}"

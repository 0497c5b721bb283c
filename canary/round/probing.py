"""One round as a function: `run_probe(ProbeOptions) -> ProbeOutcome` runs `pytest probes`.

`pytest probes` is the one way a round runs; this module builds its command line (in one place:
`pytest_command`), provides the upstream (OpenRouter when a key is set, otherwise the bundled
simulator as a subprocess, whose timing stays independent of the round's own CPU load) and maps
pytest's exit code and the round record onto canary's exit codes. `canary probe` and `canary
round` call it; neither builds the other's command line. A round that cannot run raises
RoundRefused (canary/round/refusal.py) with exit 2 (NOT_RUN).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import probes
from canary.round.refusal import RoundRefused
from canary.state.results_files import load_round
from core.config import load_config
from core.results import IncompleteKind, RoundResults
from core.upstream import BASE_URL_ENV, MissingKeyError, key_in_environment, refuse_keyless_in_ci
from simulator.process import simulator_process

PROJECT_ROOT = Path(probes.__file__).resolve().parent.parent

# canary's exit codes for a round (`canary probe` documents them).
COMPLETE = 0
INCOMPLETE = 1
NOT_RUN = 2
KEY_REFUSED = 3


@dataclass(frozen=True, slots=True)
class ProbeOptions:
    """What one round probes, against which upstream, and where its reports go."""

    config_path: str | None = None
    reports: Path | None = None  # default: canary.yaml's paths.reports
    models: tuple[str, ...] = ()  # default: canary.yaml's models
    keyword: str | None = None  # pytest -k
    marker: str | None = None  # pytest -m, over contracts
    simulator: bool = False  # the bundled simulator on purpose, even with a key
    scenario: str | None = None  # a simulator scenario (implies the simulator)
    seed: int = 0  # the simulator's seed
    round_number: int = 1  # the simulator's round number
    discovery_snapshot: str | None = None  # replay a saved discovery.json
    state_checkout: str | None = None  # a checkout of the state branch: the plan is in DIR/<paths.state>
    state: Path | None = None  # the judge's state file to read the language plan from
    virtual_time: str | None = None  # a simulator round's virtual start (ISO 8601)
    pytest_args: tuple[str, ...] = ()  # more pytest options, passed as given

    @property
    def wants_simulator(self) -> bool:
        return self.simulator or bool(self.scenario)


@dataclass(frozen=True, slots=True)
class ProbeOutcome:
    """How the round ended (one that could not run raises RoundRefused instead): canary's exit code
    and where the reports are."""

    code: int
    reports: Path
    # The round record results.json holds, read once here (None: no readable results.json): the
    # judge and the summary of the same process take it instead of reading the file again.
    results: RoundResults | None = None

    @property
    def results_path(self) -> Path:
        return self.reports / "results.json"

    def where(self) -> str:
        """The line `canary probe` ends with: where the reports are, and the exit code."""
        return (f"canary probe: results {self.results_path}, JUnit {self.reports / 'junit.xml'}, "
                f"Allure results {self.reports / 'allure-results'} (exit {self.code})")


def run_probe(options: ProbeOptions, *, echo: Callable[[str], None] | None = None,
              environ: dict[str, str] | None = None) -> ProbeOutcome:
    """Run one round (`pytest probes` in a subprocess) and map how it ended onto canary's exit codes.

    Raises ConfigError for a bad canary.yaml (before anything runs), RoundRefused (NOT_RUN) when
    the round cannot run: no key inside GitHub Actions, a simulator that did not start. `echo`
    hears which upstream the round probes, before it starts.
    """
    say = echo or _say
    config = load_config(options.config_path)  # fail early, with canary's own message, on a bad file
    reports = Path(options.reports or config.paths.reports).resolve()
    env = dict(os.environ if environ is None else environ)
    try:
        refuse_keyless_in_ci(env, simulator=options.wants_simulator)
    except MissingKeyError as exc:
        raise RoundRefused(str(exc), NOT_RUN) from exc
    try:
        with _upstream(env, options) as upstream:
            cmd = pytest_command(options, reports)
            say(f"canary probe: upstream {upstream}; reports in {reports}")
            # In the caller's folder: the round plans from the canary.yaml the caller's command read
            # (and resolves its relative paths) exactly as the judge will, not from the project's own.
            rc = subprocess.call(cmd, cwd=Path.cwd(), env=env)
    except RuntimeError as exc:
        raise RoundRefused(str(exc), NOT_RUN) from exc
    results = read_round(reports / "results.json")
    return ProbeOutcome(exit_code(rc, results), reports, results=results)


def pytest_command(options: ProbeOptions, reports: Path) -> list[str]:
    """The one command line of a round: `python -m pytest probes` with canary's options."""
    # Not the plugins of the test tools a development install has (anyio's imports 30 modules,
    # hypothesis's all of hypothesis at the summary), nor pytest's assertion rewriting of the plugins
    # that load: a round's verdicts are its own exceptions, and every process start counts.
    cmd = [sys.executable, "-m", "pytest", str(PROJECT_ROOT / "probes"), "-p", "no:cacheprovider", "-p", "no:anyio",
           "-p", "no:hypothesispytest", "--assert=plain", "-q", "-rfE",
           f"--canary-reports={reports}", f"--junitxml={reports / 'junit.xml'}",
           f"--alluredir={reports / 'allure-results'}", "--clean-alluredir"]
    if options.config_path:
        cmd.append(f"--canary-config={Path(options.config_path).resolve()}")
    for model in options.models:
        cmd.append(f"--canary-model={model}")
    if options.keyword:
        cmd += ["-k", options.keyword]
    if options.marker:
        cmd += ["-m", options.marker]
    if options.discovery_snapshot:
        cmd.append(f"--discovery-snapshot={Path(options.discovery_snapshot).resolve()}")
    if options.state_checkout:
        state = Path(load_config(options.config_path).paths.state)
        inside = state if not state.is_absolute() else Path(state.name)
        cmd.append(f"--canary-state={(Path(options.state_checkout) / inside).resolve()}")
    if options.state is not None:
        cmd.append(f"--canary-state={options.state}")
    if options.virtual_time is not None:
        cmd.append(f"--canary-virtual-time={options.virtual_time}")
    return cmd + list(options.pytest_args)


def read_round(results: Path) -> RoundResults | None:
    """The round record of the probes' results.json, or None when it cannot be read."""
    try:
        return load_round(results)
    except (OSError, ValueError):  # absent, not JSON (StoreError), or a record core.results refuses (ResultsError)
        return None


def exit_code(pytest_rc: int, results: RoundResults | None) -> int:
    """Map pytest's exit code and the round's own verdict (its record; None: no readable
    results.json) onto canary's exit codes."""
    if results is None:
        return NOT_RUN
    if pytest_rc in (3, 4):
        return NOT_RUN
    if results.complete:
        return COMPLETE
    return KEY_REFUSED if IncompleteKind.AUTH in results.incomplete_kinds() else INCOMPLETE


def _say(line: str) -> None:
    print(line, flush=True)  # before pytest's own output, which the subprocess writes directly


@contextmanager
def _upstream(env: dict[str, str], options: ProbeOptions) -> Iterator[str]:
    """OpenRouter when a key is set (unless the simulator is asked for); otherwise a simulator subprocess."""
    if key_in_environment(env) and not options.wants_simulator:
        yield env.get(BASE_URL_ENV) or "openrouter"
        return
    with simulator_process(options.scenario, options.seed, options.round_number) as sim:
        env.update(sim.environment())  # base URL, dummy key, and the scenario (its own controls)
        yield f"the bundled simulator at {sim.base_url}"

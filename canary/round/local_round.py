"""One whole round on this machine as a function: probe, judge, summary, Allure report.

`run_round(RoundOptions)` runs exactly the steps the scheduled workflow runs (`canary probe`,
`canary judge`, `canary summary`, `canary report`) through the same typed functions
(canary/round/probing.py run_probe, canary/round/judging.py run_judge), in one process, so what a developer
sees locally is what the workflow does. How simulator rounds keep their own state and run on a
virtual clock is documented in canary/cli/commands/round.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from canary.outputs import allure_html, summary
from canary.round.judging import SIMULATOR_STATE_DIR, JudgeOutcome, JudgeRequest, run_judge
from canary.round.probing import NOT_RUN, ProbeOptions, run_probe
from canary.round.refusal import RoundRefused
from canary.state.judge_files import load_state
from core.config import Config, load_config
from core.policy import Mode
from core.results import VIRTUAL, RoundResults
from core.store import StoreError
from core.times import stamp
from core.upstream import key_in_environment
from judge.suspension.decisions import RoundDecisions
from judge.suspension.state import JudgeState

# The virtual time between two simulator rounds: the production schedule's half hour.
SIMULATOR_ROUND_INTERVAL = timedelta(minutes=30)


@dataclass(frozen=True, slots=True)
class RoundOptions:
    """What `canary round` was asked for."""

    config_path: str | None = None
    reports: Path | None = None  # default: canary.yaml's paths.reports
    models: tuple[str, ...] = ()
    keyword: str | None = None
    marker: str | None = None
    scenario: str | None = None  # a simulator scenario (only without a key)
    seed: int | None = None  # the simulator's seed (default: the round number)
    mode: Mode | None = None  # override canary.yaml's mode
    now: datetime | None = None  # judge at this time (default: now, or a simulator round's virtual end)
    render_report: bool = True  # render the Allure HTML report


def run_round(options: RoundOptions, *, echo: Callable[[str], None] = print) -> int:
    """Probe, judge, print the summary and render the report; the worse of the probe's and judge's exit codes."""
    config = load_config(options.config_path)
    reports = Path(options.reports or config.paths.reports)
    on_simulator = key_in_environment() is None
    state, audit = _state_files(config, reports, on_simulator)
    # A simulator state is read once, here, through its codec: it places the round on the virtual
    # clock and the judge applies the round to it (nothing writes it in between).
    before = _simulator_state(state) if on_simulator else None
    known = before or JudgeState()
    virtual, first = _virtual_start(known) if on_simulator else (None, False)
    number = len(known.applied_rounds) + 1 if on_simulator else 1
    probe = ProbeOptions(
        config_path=options.config_path, reports=reports, models=options.models, keyword=options.keyword,
        marker=options.marker, simulator=on_simulator,
        scenario=options.scenario if on_simulator else None,
        seed=(options.seed if options.seed is not None else number) if on_simulator else 0,
        round_number=number, state=state, virtual_time=stamp(virtual) if virtual is not None else None,
        # pytest's report and the plugin's table left out: the summary below tells every case once.
        pytest_args=("--no-summary",))
    try:
        probed = run_probe(probe)
    except RoundRefused as exc:  # said as `canary probe` would say it; the round ends there
        print(f"canary probe: {exc}", file=sys.stderr)
        probe_rc = exc.exit_code
    else:
        echo(probed.where())
        probe_rc = probed.code
    results_path = reports / "results.json"
    if probe_rc == NOT_RUN or not results_path.exists():
        print("canary round: the probes produced no results.json; nothing to judge (`pytest probes` shows "
              "pytest's own report, which the round leaves out)", file=sys.stderr)
        return NOT_RUN
    results = probed.results  # results.json, read once by run_probe: the judge and the summary take it
    if results is None:
        print(f"canary round: {results_path} is not a readable round report; nothing to judge or summarise",
              file=sys.stderr)
        return NOT_RUN

    when = (options.now or (_virtual_end(results) if virtual is not None else None)
            or datetime.now(UTC).replace(microsecond=0))
    judged, judge_rc = _judge(JudgeRequest(
        results_path, replace(config, paths=replace(config.paths, state=state, audit=audit)),
        when, mode=options.mode, decisions_out=reports / "decisions.json", send=False, results=results,
        state=before), echo)
    decisions = judged.decisions if judged is not None else None
    echo("")
    waiting = pending(judged.state, config.rules.failed_rounds_to_suspend, when) if judged is not None else []
    echo(summary.to_text(results, decisions, waiting).rstrip())
    if virtual is not None:
        after = ("the first simulator round starts at the real time" if first else
                 f"{int(SIMULATOR_ROUND_INTERVAL.total_seconds() // 60)} min after the previous simulator round")
        echo(f"\n(simulator round on virtual time: started {stamp(virtual)}, {after}; "
             f"the judge's state is in {state.parent}/, not in {config.paths.state.parent}/)")
    if options.render_report:
        _render_report(reports, decisions, echo)
    if virtual is not None:
        echo(f"\nnext: the round again (`./dev round` or `canary round`) plays the simulator's next half hour; "
             f"`canary status --state {state}` shows every endpoint's streaks")
    return max(probe_rc, judge_rc)


def pending(state: JudgeState, needed: int, now: datetime) -> list[str]:
    """Each model's endpoints in a failed streak the judge has not decided yet, and when it decides."""
    lines = []
    for model, providers in sorted(state.models.items()):
        for streak in range(needed - 1, 0, -1):
            tags = [p for p, ps in sorted(providers.items())
                    if ps.failed_streak == streak and not (ps.suspension and ps.suspension.active(now))]
            when = "at the next round" if streak == needed - 1 else f"after {needed - streak} more failed rounds"
            if tags:
                lines.append(f"pending: {', '.join(tags)} of {model}: {streak} of {needed} failed rounds: "
                             f"decided {when}")
    return lines


def _judge(request: JudgeRequest, echo: Callable[[str], None]) -> tuple[JudgeOutcome | None, int]:
    """`canary judge RESULTS --state .. --audit .. --decisions-out .. --no-notify [--mode] [--now]`, on
    the round and the state already read: what it decided and left, and its exit code. A refusal is
    said as `canary judge` says it; the round's summary and report still follow."""
    try:
        return run_judge(request, echo=echo), 0
    except RoundRefused as exc:
        print(f"canary judge: {exc}", file=sys.stderr)
        return None, exc.exit_code


def _state_files(config: Config, reports: Path, on_simulator: bool) -> tuple[Path, Path]:
    if not on_simulator:
        return config.paths.state, config.paths.audit
    folder = reports / SIMULATOR_STATE_DIR
    return folder / config.paths.state.name, folder / config.paths.audit.name


def _simulator_state(state: Path) -> JudgeState | None:
    """The simulator's own state, through its codec (an empty one when there is no file yet); None
    when it cannot be read: the round starts afresh and the judge reads the file, names it and refuses it."""
    try:
        return load_state(state)
    except StoreError:
        return None


def _virtual_start(state: JudgeState) -> tuple[datetime, bool]:
    """A simulator round's virtual start: half an hour after the last applied one, else now (first=True)."""
    if state.last_round is None:
        return datetime.now(UTC).replace(microsecond=0), True
    return state.last_round.started_at + SIMULATOR_ROUND_INTERVAL, False


def _virtual_end(results: RoundResults) -> datetime | None:
    """When the judge judges a virtual-time round: its recorded (virtual) end."""
    if results.clock != VIRTUAL:
        return None
    return (results.finished_at or results.started_at).astimezone(UTC).replace(microsecond=0)  # to the second


def _render_report(reports: Path, decisions: RoundDecisions | None, echo: Callable[[str], None]) -> None:
    try:
        done = allure_html.render([reports / "allure-results"], history=reports / "allure-history",
                             out=reports / "allure-report", single_file=True, decisions=decisions)
    except allure_html.AllureError as exc:
        echo(f"\n(Allure report not rendered: {exc})")
        return
    echo(f"\nAllure report (round #{done.build_order} of its trend): {done.out}/index.html")

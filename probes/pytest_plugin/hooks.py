"""The canary pytest plugin: discovery into cases, the probe engine, and the round's reports.

Registered by probes/conftest.py. Hooks are in lifecycle order. Settings are settled once in
pytest_configure into `config.stash[SETTINGS]`; mutable round state lives in
`config.stash[STATE]`; per-item data in `item.stash`. Results are attached to reports in the
pytest_runtest_makereport wrapper (they cross from xdist workers with the report), collected
in pytest_runtest_logreport by the round owner only, and written at pytest_sessionfinish by
the round owner only (the xdist controller, or the single process).
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import pytest

from core.results import Incomplete, IncompleteKind, RoundResults
from core.vocabulary import Outcome
from probes.pytest_plugin import reporting, table
from probes.pytest_plugin.outcomes import HostUnreachable, RoundIncomplete
from probes.pytest_plugin.scheduling import ProviderScheduling, assignment, case_id_of
from probes.pytest_plugin.settle import WORKERINPUT_KEY, settle
from probes.round.cases import Case, CaseRecord, CaseResult, DiscoveryCase, PlannedCase
from probes.round.contracts import AUTH_REASON
from probes.round.controls import (
    FileControls,
    control_dir,
    publish,
    unprobed_controls,
    unselected_controls,
)
from probes.round.engine import Engine, run_quietly
from probes.round.language_service import LanguageProcess, LocalLanguage, RemoteLanguage
from probes.round.settings import RoundSettings, snapshot_doc, workerinput_for

CASE_PARAM = "canary_case_id"
# How long beyond the request deadline a worker waits for the controller's control verdict.
CONTROL_WAIT_MARGIN_S = 15.0


@dataclass(slots=True)
class RoundState:
    """Mutable state of one round in one process."""

    cases: dict[str, PlannedCase]
    engine: Engine | None = None
    language_process: LanguageProcess | None = None
    records: dict[str, CaseRecord] = field(default_factory=dict)
    expected: list[str] = field(default_factory=list)      # case ids this round should report
    results: RoundResults | None = None                    # the round record, once written


SETTINGS = pytest.StashKey[RoundSettings]()
STATE = pytest.StashKey[RoundState]()
CASE = pytest.StashKey[PlannedCase]()
RESULT = pytest.StashKey[CaseResult]()
DESCRIBED = pytest.StashKey[bool]()


# -- configure ------------------------------------------------------------------------------

def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "control: refusal case on a positive-control host (judges the probe)")
    settings = settle(config)
    state = RoundState(cases={c.id: c for c in settings.plan.cases()})
    if settings.role == "controller" and "language" in settings.plan.contracts and settings.plan.endpoints:
        settings = _with_language_process(settings, state)
    config.stash[SETTINGS] = settings
    config.stash[STATE] = state
    if settings.role == "worker":
        return
    reporting.write_json(settings.reports / "discovery.json", snapshot_doc(settings))
    config.pluginmanager.register(ResultCollector(state), "canary-results")
    if config.pluginmanager.has_plugin("xdist"):
        config.pluginmanager.register(XdistHooks(), "canary-xdist-hooks")


def _with_language_process(settings: RoundSettings, state: RoundState) -> RoundSettings:
    """Start the round's one language-judge process (probes/round/language_service.py) and record its address."""
    state.language_process = LanguageProcess()
    host, port = state.language_process.address
    return dataclasses.replace(settings, language_server=(host, port, state.language_process.authkey.hex()))


class XdistHooks:
    """Hooks that exist only when pytest-xdist is installed (registered conditionally)."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[WORKERINPUT_KEY] = workerinput_for(node.config.stash[SETTINGS])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> ProviderScheduling:
        cases = config.stash[STATE].cases
        return ProviderScheduling(config, log, lambda nodeid: _group_of(cases, nodeid))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        state = node.config.stash[STATE]
        if not state.expected:
            state.expected = [cid for cid in (case_id_of(n) for n in ids) if cid in state.cases]


def _group_of(cases: dict[str, PlannedCase], nodeid: str) -> str:
    case = cases.get(case_id_of(nodeid) or "")
    return case.group if case is not None else nodeid


# -- collection -----------------------------------------------------------------------------

def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if CASE_PARAM not in metafunc.fixturenames:
        return
    cases = metafunc.config.stash[STATE].cases.values()
    metafunc.parametrize(CASE_PARAM, [
        pytest.param(c.id, id=c.id, marks=[getattr(pytest.mark, c.marker)]
                     + ([pytest.mark.control] if isinstance(c, Case) and c.control else []))
        for c in cases
    ])


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> Generator[None, None, None]:
    before = list(items)
    yield
    cases = config.stash[STATE].cases
    for item in before:
        case_id = _param(item)
        if case_id in cases:
            item.stash[CASE] = cases[case_id]
    # A failed discovery must never vanish behind -k/-m: a clean-looking round would follow.
    kept = {id(i) for i in items}
    lost = [i for i in before if isinstance(i.stash.get(CASE, None), DiscoveryCase) and id(i) not in kept]
    items[:0] = lost


def pytest_collection_finish(session: pytest.Session) -> None:
    settings, state = session.config.stash[SETTINGS], session.config.stash[STATE]
    if settings.role == "controller" or session.config.option.collectonly:
        return
    selected = [c for c in (i.stash.get(CASE, None) for i in session.items) if isinstance(c, Case)]
    state.expected = [i.stash[CASE].id for i in session.items if CASE in i.stash]
    controls = _by_model(c for c in selected if c.control)
    missing = {m: tuple(f"{tag} {why}" for tag, why in v)
               for m, v in unselected_controls(settings.plan, {c.id for c in selected}).items()}
    if settings.role == "single" and any(c.contract == "language" for c in selected):
        settings = _with_language_process(settings, state)
        session.config.stash[SETTINGS] = settings
    if settings.role == "worker":
        mine = [c for c in selected if c.id in _worker_share(session, settings)]
        directory = control_dir(settings.reports, settings.round_id)
        remote = FileControls(directory, controls, wait_s=_control_wait(settings))
        overall = max(1, settings.config.concurrency.overall // settings.workers)
        engine = _engine(settings, controls, missing, overall=overall, remote=remote,
                         on_result=lambda r: publish(directory, r) if r.control else None)
    else:
        mine = selected
        engine = _engine(settings, controls, missing, overall=settings.config.concurrency.overall)
    # Controls first: the refusal verdicts of every other host wait for them.
    mine.sort(key=lambda c: not c.control)
    state.engine = engine.start(mine, warm_language=any(c.contract == "language" for c in mine))


def _control_wait(settings: RoundSettings) -> float:
    probe = settings.config.probe
    return max(probe.request_deadline_seconds, probe.ttft_seconds) + CONTROL_WAIT_MARGIN_S


def _worker_share(session: pytest.Session, settings: RoundSettings) -> set[str]:
    """The case ids the static scheduler will send this worker (the same rule, computed here)."""
    if settings.worker_index is None:
        return set()
    cases = session.config.stash[STATE].cases
    nodeids = [i.nodeid for i in session.items]
    plan = assignment(nodeids, lambda n: _group_of(cases, n), settings.workers)
    return {case_id_of(n) or "" for n in nodeids if plan[n] == settings.worker_index}


def _by_model(cases: Any) -> dict[str, tuple[Case, ...]]:
    out: dict[str, list[Case]] = {}
    for c in cases:
        out.setdefault(c.model, []).append(c)
    return {m: tuple(v) for m, v in out.items()}


def _engine(settings: RoundSettings, controls: dict[str, tuple[Case, ...]], missing: dict[str, tuple[str, ...]],
            *, overall: int, remote: FileControls | None = None, on_result: Any = None) -> Engine:
    if settings.language_server is not None:
        host, port, key = settings.language_server
        backend: Any = RemoteLanguage((host, port), bytes.fromhex(key))
    else:
        backend = LocalLanguage()
    return Engine(client_settings=settings.client, probe=settings.config.probe, overall=overall,
                  per_provider=settings.config.concurrency.per_provider, control_cases=controls,
                  missing_controls=missing, language_backend=backend, remote_controls=remote,
                  on_result=on_result)


def _param(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get(CASE_PARAM) if callspec is not None else None


# -- running one case (called from probes/test_round.py) ------------------------------------

def probe_result(item: pytest.Item) -> CaseResult:
    """Wait for the case's probe and record it (the `canary_result` fixture: runs at setup).

    Raising here, in setup, is what makes pytest report a transport error or a failed
    discovery as an *error* (JUnit <error>, Allure broken) rather than a failure.
    """
    case = item.stash[CASE]
    if isinstance(case, DiscoveryCase):
        hint = f" ({AUTH_REASON})" if case.auth_error else ""
        raise RoundIncomplete(f"round incomplete: {case.message}{hint}")
    settings, state = item.config.stash[SETTINGS], item.config.stash[STATE]
    assert state.engine is not None, "the probe engine was not started"
    probe = settings.config.probe
    # A refusal case may wait for its own confirmations and for the language case's (issue 10:
    # it reads its siblings' replies), each a request deadline at most.
    backstop = probe.request_deadline_seconds * (2 + 2 * probe.language_confirmations) + CONTROL_WAIT_MARGIN_S
    result = state.engine.result(case, timeout=backstop)
    item.stash[RESULT] = result
    item.user_properties.extend(reporting.junit_properties(case, result))
    if result.outcome is Outcome.TRANSPORT_ERROR:
        raise HostUnreachable(f"transport error: {result.reason}")
    return result


def describe_in_allure(item: pytest.Item) -> None:
    """Title, labels, description and one step per request, once per case.

    allure-pytest names the test after setup, so this must run in the test body (steps land in
    the body) or, for a case that ended in setup (transport error, failed discovery), in a
    finalizer at teardown (steps land in its tear-down section).
    """
    if item.stash.get(DESCRIBED, False) or CASE not in item.stash:
        return
    item.stash[DESCRIBED] = True
    reporting.allure_case(item.stash[CASE], item.stash.get(RESULT, None))


# -- results --------------------------------------------------------------------------------

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    rep = yield
    case = item.stash.get(CASE, None)
    if not isinstance(case, Case):  # a DiscoveryCase has no probe result: the plan records its failure
        return rep
    result = item.stash.get(RESULT, None)
    if result is not None and (rep.when == "call" or (rep.when == "setup" and rep.failed)):
        rep.canary = {"entry": result.to_json(), "auth_error": result.auth_error, "probed": True}
    elif rep.failed and rep.when in ("setup", "call"):
        # pytest ended the case before a probe result existed (timeout, interrupt, harness bug).
        rep.canary = {"entry": _synthetic(case, f"no probe result: {_short(rep.longreprtext)}"),
                      "auth_error": False, "probed": False}
    return rep


class ResultCollector:
    """Round owner only: gathers every case report, xdist workers' and crashed workers' included."""

    def __init__(self, state: RoundState) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        state = self.state
        data = getattr(report, "canary", None)
        case_id = case_id_of(report.nodeid)
        when: str = report.when  # xdist's "???" is not among pytest's declared phases
        if data is not None and case_id is not None:
            state.records[case_id] = CaseRecord(case_id, data["entry"], data["auth_error"], data["probed"])
        elif when == "???" and isinstance(case := state.cases.get(case_id or ""), Case):
            # xdist's synthetic report for an item whose worker died under it.
            state.records[case.id] = CaseRecord(case.id, _synthetic(case, "worker crashed"))


def _synthetic(case: Case, reason: str) -> dict[str, Any]:
    return CaseResult.for_case(case, Outcome.TRANSPORT_ERROR, reason).to_json()


def _short(text: str, limit: int = 300) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    last = lines[-1].strip() if lines else "no detail"
    return last[:limit]


# -- finish ---------------------------------------------------------------------------------

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if SETTINGS not in config.stash:
        return
    settings, state = config.stash[SETTINGS], config.stash[STATE]
    if state.engine is not None:
        run_quietly(state.engine.close)
    if state.language_process is not None:
        run_quietly(state.language_process.close)
    if settings.role == "worker" or config.option.collectonly:
        return
    state.results = _results(settings, state, int(exitstatus))
    doc = state.results.to_json()
    reporting.write_json(settings.reports / "results.json", doc)
    if settings.alluredir is not None:
        reporting.write_allure_run_files(settings.alluredir, doc, {
            "upstream": settings.upstream, "round_id": settings.round_id, "models": ", ".join(settings.plan.endpoints),
            "contracts": ", ".join(settings.plan.contracts), "mode": settings.config.mode,
            "ttft_seconds": str(settings.config.probe.ttft_seconds), "xdist_workers": str(settings.workers),
            "clock": settings.clock.kind, "controls": settings.controls_source,
        })
        reporting.write_allure_unprobed(settings.alluredir, doc["unprobed_controls"], state.records)
    run_quietly(lambda: shutil.rmtree(control_dir(settings.reports, settings.round_id), ignore_errors=True))


def _results(settings: RoundSettings, state: RoundState, exitstatus: int) -> RoundResults:
    """The round record: every case (a case pytest cut short reads as not run) and why it is incomplete."""
    incomplete = [Incomplete(IncompleteKind.DISCOVERY, f.message) for f in settings.plan.failures]
    if any(f.auth for f in settings.plan.failures) or any(r.auth_error for r in state.records.values()):
        incomplete.append(Incomplete(IncompleteKind.AUTH, AUTH_REASON))
    records = dict(state.records)
    for cid in state.expected:
        case = state.cases[cid]
        if cid not in records and isinstance(case, Case):
            records[cid] = CaseRecord(cid, _synthetic(case, "not run: the round was cut short"), probed=False)
    unprobed = [r for r in records.values() if not r.probed]
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        incomplete.append(Incomplete(IncompleteKind.INTERRUPTED, "the round was interrupted"))
    if unprobed:
        incomplete.append(Incomplete(IncompleteKind.CUT_SHORT, f"{len(unprobed)} case(s) ended without a probe "
                                     f"result (cut short: -x, timeout, interrupt or harness error)"))
    if not records and not settings.plan.failures:
        incomplete.append(Incomplete(IncompleteKind.NOTHING_RAN, "no case ran (nothing selected?)"))
    ordered = [records[c] for c in state.cases if c in records]
    return reporting.build_results(
        round_id=settings.round_id, started_at=settings.started_at, finished_at=settings.clock.stamp(),
        upstream=settings.upstream,
        models={m: [e.tag for e in eps] for m, eps in settings.plan.endpoints.items()},
        records=ordered, incomplete=incomplete,
        unprobed=unprobed_controls(settings.plan, set(state.expected), (r.entry for r in ordered)),
        clock=settings.clock.kind, controls_source=settings.controls_source,
    )


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is None or state.results is None:
        return
    terminalreporter.write_sep("=", "canary round")
    for line in table.render(state.results):
        terminalreporter.write_line(line, red=line.startswith("!!!"), bold=line.startswith("!!!"))
    terminalreporter.write_line(f"reports: {config.stash[SETTINGS].reports / 'results.json'}")



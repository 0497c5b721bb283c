"""The canary pytest plugin: discovery into cases, the probe engine, and the round's reports.

Registered by probes/conftest.py. Hooks are in lifecycle order. A thin adapter: the settings are
settled once in pytest_configure (probes/pytest_plugin/settle.py) and the round itself is a
probes.round.lifecycle.Round in `config.stash[ROUND]`; per-item data in `item.stash`. One process
runs the whole round (the probes run concurrently in the engine's event loop: docs/developing.md);
the items run in the order their probes finish, each case's record is collected in the
pytest_runtest_makereport wrapper, and the round record is written at pytest_sessionfinish.
"""

from __future__ import annotations

import queue
from collections.abc import Generator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from core.untrusted import clean
from core.vocabulary import DECLARED, Outcome
from probes.pytest_plugin import key_sweep, reporting, table
from probes.pytest_plugin.outcomes import MESSAGE_CHARS, HostUnreachable, RoundIncomplete, explain
from probes.pytest_plugin.settle import settle
from probes.round.cases import Case, CaseRecord, DiscoveryCase, PlannedCase, ProbedCase, not_probed
from probes.round.contracts import AUTH_REASON
from probes.round.controls import controls_to_keep
from probes.round.lifecycle import CONTROL_WAIT_MARGIN_S, Round

CASE_PARAM = "canary_case_id"

ROUND = pytest.StashKey[Round]()
CASE = pytest.StashKey[PlannedCase]()
RESULT = pytest.StashKey[ProbedCase]()
DESCRIBED = pytest.StashKey[bool]()


# -- configure ------------------------------------------------------------------------------

def pytest_configure(config: pytest.Config) -> None:
    for contract in DECLARED:   # a case is marked with its contract (`pytest probes -m latency`)
        config.addinivalue_line("markers", f"{contract.name}: {contract.marker}")
    config.addinivalue_line("markers", "control: refusal case on a positive-control host (judges the probe)")
    config.stash[ROUND] = Round.open(settle(config))


# -- collection -----------------------------------------------------------------------------

def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if CASE_PARAM not in metafunc.fixturenames:
        return
    cases = metafunc.config.stash[ROUND].cases.values()
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
    cases = config.stash[ROUND].cases
    for item in before:
        case_id = _param(item)
        if case_id in cases:
            item.stash[CASE] = cases[case_id]
    # A failed discovery must never vanish behind -k/-m: a clean-looking round would follow.
    kept = {id(i) for i in items}
    lost = [i for i in before if isinstance(i.stash.get(CASE, None), DiscoveryCase) and id(i) not in kept]
    # Nor the positive control of a selected refusal case: without it the case is unjudged, and
    # `-k <provider>` would not give the verdict of the full round (probes/round/controls.py).
    selected = [c for c in (i.stash.get(CASE, None) for i in items) if isinstance(c, Case)]
    planned = {c: i for i in before if isinstance(c := i.stash.get(CASE, None), Case)}
    controls = [planned[c] for c in controls_to_keep(selected, planned)]
    items[:0] = lost + controls


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly:
        return
    round_ = session.config.stash[ROUND]
    round_.expected = [i.stash[CASE].id for i in session.items if CASE in i.stash]
    round_.start([c for c in (i.stash.get(CASE, None) for i in session.items) if isinstance(c, Case)])


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """pytest's own loop, but each item runs as soon as its probe has finished, not in collection
    order: reporting a case (JUnit, Allure's files) then overlaps the other cases' network waits,
    and the round ends with its slowest probe instead of working through a backlog after it."""
    round_ = session.config.stash[ROUND]
    if session.testsfailed or session.config.option.collectonly or round_.engine is None:
        return None  # pytest's loop says what to (collection errors, --collect-only)
    order = {item: n for n, item in enumerate(session.items)}
    waiting = {round_.engine.submit(c): i for i in session.items if isinstance(c := i.stash.get(CASE, None), Case)}
    finished: queue.SimpleQueue[Future[ProbedCase]] = queue.SimpleQueue()  # put by the engine's thread
    for future in waiting:
        future.add_done_callback(finished.put)
    ready = [i for i in session.items if not isinstance(i.stash.get(CASE, None), Case)]  # a failed discovery
    while ready or waiting:
        if not ready:
            try:
                done = [finished.get(timeout=_backstop(round_))]
            except queue.Empty:  # nothing finished within a backstop: the items end on their own deadlines
                done = list(waiting)
            ready = sorted((i for f in done if (i := waiting.pop(f, None)) is not None), key=order.__getitem__)
            continue
        item = ready.pop(0)
        following = ready[0] if ready else next(iter(waiting.values()), None)
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=following)
        if session.shouldfail:
            raise session.Failed(session.shouldfail)
        if session.shouldstop:
            raise session.Interrupted(session.shouldstop)
    return True


def _param(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get(CASE_PARAM) if callspec is not None else None


# -- running one case (called from probes/test_round.py) ------------------------------------

def probe_result(item: pytest.Item) -> ProbedCase:
    """Wait for the case's probe and record it (the `canary_result` fixture: runs at setup).

    Raising here, in setup, is what makes pytest report a transport error or a failed
    discovery as an *error* (JUnit <error>, Allure broken) rather than a failure.
    """
    case = item.stash[CASE]
    if isinstance(case, DiscoveryCase):
        hint = f" ({AUTH_REASON})" if case.auth_error else ""
        raise RoundIncomplete(f"round incomplete: {clean(case.message, MESSAGE_CHARS)}{hint}")
    round_ = item.config.stash[ROUND]
    assert round_.engine is not None, "the probe engine was not started"
    result = round_.engine.result(case, timeout=_backstop(round_, case.model))
    item.stash[RESULT] = result
    item.user_properties.extend(reporting.junit_properties(case, result))
    if result.outcome is Outcome.TRANSPORT_ERROR:   # pytest prints the message: one printable line
        raise HostUnreachable(f"transport error: {clean(result.reason, MESSAGE_CHARS)}")
    return result


def _backstop(round_: Round, model: str | None = None) -> float:
    """How long a case may take at most: a refusal case may wait for its own confirmations and for
    the language case's (issue 10: it reads its siblings' replies), each a request deadline at
    most; each optional contract of the model (issue 23; of any model when none is named) queues
    up to 1 + confirmations more requests on the endpoint's per-provider cap, ahead of its own."""
    probe, optional = round_.settings.config.probe, round_.settings.plan.optional
    extra = len(optional.get(model, ())) if model else max(map(len, optional.values()), default=0)
    return (probe.request_deadline_seconds * (2 + 2 * probe.language_confirmations) + CONTROL_WAIT_MARGIN_S
            + probe.request_deadline_seconds * (1 + probe.language_confirmations) * extra)


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

@pytest.hookimpl(wrapper=True, trylast=True)  # innermost: allure-pytest's wrapper reads the explained report
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    rep = yield
    explain(rep, call)
    case = item.stash.get(CASE, None)
    if not isinstance(case, Case):  # a DiscoveryCase has no probe result: the plan records its failure
        return rep
    result = item.stash.get(RESULT, None)
    if result is not None and (rep.when == "call" or (rep.when == "setup" and rep.failed)):
        record = CaseRecord(result.record, result.auth_error)
    elif rep.failed and rep.when in ("setup", "call"):
        # pytest ended the case before a probe result existed (timeout, interrupt, harness bug).
        record = CaseRecord(not_probed(case, f"no probe result: {_short(rep.longreprtext)}"), probed=False)
    else:
        return rep
    item.config.stash[ROUND].collect(record)
    return rep


def _short(text: str, limit: int = 300) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    last = lines[-1].strip() if lines else "no detail"
    return last[:limit]


# -- finish ---------------------------------------------------------------------------------

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    round_ = config.stash.get(ROUND, None)
    if round_ is None:
        return
    round_.close()
    if config.option.collectonly:
        return
    results = round_.finish(interrupted=int(exitstatus) == pytest.ExitCode.INTERRUPTED)
    settings = round_.settings
    if settings.alluredir is not None:
        probed = {case.contract for case in results.cases}  # not the optional contracts no model runs
        reporting.write_allure_run_files(settings.alluredir, results.round_id, {
            "upstream": settings.upstream, "round_id": settings.round_id, "models": ", ".join(settings.plan.endpoints),
            "contracts": ", ".join(c for c in settings.plan.contracts if c in probed), "mode": settings.config.mode,
            "ttft_seconds": str(settings.config.probe.ttft_seconds),
            "clock": settings.clock.kind, "controls": settings.controls_source,
        })
        reporting.write_allure_unprobed(settings.alluredir, results.unprobed_controls, round_.records)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """After every writer (JUnit, Allure, our reports): sweep the round's files for the key."""
    round_ = config.stash.get(ROUND, None)
    if round_ is None:
        return
    settings, xml = round_.settings, getattr(config.option, "xmlpath", None)
    roots = [settings.reports, *([settings.alluredir] if settings.alluredir else []), *([Path(xml)] if xml else [])]
    for path in key_sweep.sweep(roots, settings.client):
        print(f"canary: the API key was found in {path} and masked there", flush=True)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    round_ = config.stash.get(ROUND, None)
    if round_ is None or round_.results is None:
        return
    if not config.option.no_summary:  # `canary round` runs it so: its own summary of every case follows
        terminalreporter.write_sep("=", "canary round")
        for line in table.render(round_.results):
            terminalreporter.write_line(line, red=line.startswith("!!!"), bold=line.startswith("!!!"))
        terminalreporter.write_line(f"reports: {round_.settings.reports / 'results.json'}")
    for model, problems in round_.settings.plan.dropped.items():
        # Each problem names its entry repr-escaped and cut short (probes/http/discovery.py).
        terminalreporter.write_line(f"discovery of {model} dropped {len(problems)} listing entries: "
                                    + "; ".join(problems[:5]), yellow=True)
    for model, notes in round_.settings.plan.notes.items():
        # Discovery sanity (judge/replies/listing.py): notes on the listed limits, deciding nothing.
        terminalreporter.write_line(f"discovery of {model} notes: " + "; ".join(notes[:5]), yellow=True)
    if config.option.keyword or config.option.markexpr:  # a selection: say why a control is in it
        for case in (c for c in round_.results.cases if c.control):
            terminalreporter.write_line(f"positive control {case.provider} of {case.model} probed with the selected "
                                        "refusal cases (kept through -k/-m: it judges the probe, not a host)")



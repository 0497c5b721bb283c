"""The production demo end to end (examples/production_demo.py, issue 39 item 5): a backend's unpinned traffic
through the bundled simulator, its records, and two real rounds judged with them. Aurora garbles only long
prompts: production evidence catches it and a confirmation probes it, which no probe confirms, so it is never
suspended (a host the probes fail too is, as ever)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from canary.state.production_files import read_production
from judge.suspension.decisions import Action, RoundDecisions

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
DEMO = Path(__file__).resolve().parents[2] / "examples" / "production_demo.py"
SUSPENDING = (Action.SUSPEND, Action.WOULD_SUSPEND)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[RoundDecisions]]:
    spec = importlib.util.spec_from_file_location("production_demo", DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path_factory.mktemp("production")
    return out, module.main([str(out), "--now", "2026-12-07T10:00:00Z"])


def test_the_demo_writes_one_readable_record_a_window(demo: tuple[Path, list[RoundDecisions]]) -> None:
    out, rounds = demo
    folder = read_production(out, now=rounds[1].now)
    assert len(folder.records) == 6 and not folder.refused


def test_production_evidence_catches_the_host_that_garbles_long_prompts(
        demo: tuple[Path, list[RoundDecisions]]) -> None:
    _, (first, _) = demo
    [aurora] = [d for d in first.decisions if d.action is Action.CONFIRM and d.provider == "aurora/fp8"]
    assert "language case runs three times" in aurora.reason
    assert aurora.card[0].text.startswith("production encoding [stream]: ")


def test_its_confirmation_runs_and_production_evidence_alone_suspends_nothing(
        demo: tuple[Path, list[RoundDecisions]]) -> None:
    _, rounds = demo
    [resolved] = [d for d in rounds[1].decisions if d.action is Action.CONFIRMATION and d.provider == "aurora/fp8"]
    assert resolved.reason.startswith("language confirmation not confirmed")
    assert not [d for doc in rounds for d in doc.decisions if d.provider == "aurora/fp8" and d.action in SUSPENDING]
    assert [d for d in rounds[1].decisions if d.provider == "cinder/fp8" and d.action is Action.WOULD_SUSPEND]

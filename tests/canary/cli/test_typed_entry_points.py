"""The typed functions behind `canary probe`, `canary judge` and `canary round` (canary/round/probing.py,
canary/round/judging.py): the round's one command line, and a refusal raised (RoundRefused, with its exit
code) for canary/cli/main.py to say, instead of printed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from canary.round.judging import EXIT_REFUSED, JudgeRequest, run_judge
from canary.round.probing import NOT_RUN, PROJECT_ROOT, ProbeOptions, pytest_command, run_probe
from canary.round.refusal import RoundRefused
from core.config import load_config


def test_the_rounds_command_line_is_pytest_probes_with_every_option_once(tmp_path: Path) -> None:
    options = ProbeOptions(models=("a/b", "c/d"), keyword="aurora", marker="latency",
                           state=tmp_path / "state.json", virtual_time="2026-12-01T00:00:00Z",
                           pytest_args=("-x",))
    cmd = pytest_command(options, tmp_path / "reports")
    # The project's own probes, by path: the round runs in the caller's folder (its canary.yaml).
    assert cmd[1:4] == ["-m", "pytest", str(PROJECT_ROOT / "probes")]
    assert f"--canary-reports={tmp_path / 'reports'}" in cmd
    assert [c for c in cmd if c.startswith("--canary-model=")] == ["--canary-model=a/b", "--canary-model=c/d"]
    assert cmd[cmd.index("-k") + 1] == "aurora" and cmd[cmd.index("-m", 2) + 1] == "latency"
    assert f"--canary-state={tmp_path / 'state.json'}" in cmd
    assert "--canary-virtual-time=2026-12-01T00:00:00Z" in cmd
    assert cmd[-1] == "-x"  # pytest's own options come last, as given


def test_a_keyless_round_in_github_actions_is_refused_with_the_reason_and_its_exit_code(tmp_path: Path) -> None:
    with pytest.raises(RoundRefused) as refused:
        run_probe(ProbeOptions(reports=tmp_path), environ={"GITHUB_ACTIONS": "true"})
    assert refused.value.exit_code == NOT_RUN
    assert "OPENROUTER_API_KEY" in str(refused.value)
    assert not (tmp_path / "results.json").exists()


def test_judging_no_results_is_refused_with_the_reason_and_writes_nothing(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CANARY_CONFIG", raising=False)
    config = load_config(None)
    with pytest.raises(RoundRefused) as refused:
        run_judge(JudgeRequest(None, config, datetime(2026, 12, 1, tzinfo=UTC), expect=("a/b",)))
    assert refused.value.exit_code == EXIT_REFUSED
    assert str(refused.value) == ("no results file given; none of the planned models (a/b) has results: the "
                             "probe job failed (see its log), or this is a re-run more than a day after its "
                             "run and the results artifact expired (retention-days: 1; start a new run instead); "
                             "nothing was judged")
    assert list(tmp_path.iterdir()) == []

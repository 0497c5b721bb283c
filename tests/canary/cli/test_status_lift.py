"""`canary status` shows each provider; `canary lift` ends a suspension by hand, audited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, files_in, iso

BAD = PROVIDERS[0]


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    files = files_in(tmp_path, capsys)
    for i in range(2):
        at = T0 + i * HALF_HOUR
        files.canary("judge", str(files.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at))
    return files


def test_status_shows_a_table_of_providers(f: Files) -> None:
    code, out, _ = f.canary("status", "--model", MODEL, "--now", iso(T0 + 2 * HALF_HOUR))
    assert code == 0
    header = next(line for line in out.splitlines() if line.startswith("provider"))
    assert "failed" in header and "suspended until" in header and "last reasons" in header
    row = next(line for line in out.splitlines() if line.startswith(BAD))
    assert "suspended" in row and "structured: fail" in row and iso(T0 + HALF_HOUR + 48 * HALF_HOUR) in row


def test_status_says_what_decided_a_suspension_whose_failed_streak_started_again(f: Files) -> None:
    _, out, _ = f.canary("status", "--model", MODEL, "--now", iso(T0 + 2 * HALF_HOUR))
    row = next(line for line in out.splitlines() if line.startswith(BAD))
    assert row.split()[2] == "0"   # the failed column: the streak starts again at the decision...
    decided = out.splitlines()[out.splitlines().index("decided (a decision starts the failed streak again):") + 1]
    assert decided.split() == [BAD, "suspended", "since", f"{iso(T0 + HALF_HOUR)}:", "2", "failed", "rounds", "in",
                               "a", "row", "(structured)"]   # ...and this says what decided it


def test_status_of_a_simulator_state_needs_no_now(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = files_in(tmp_path, capsys)
    state = tmp_path / "reports" / "simulator-state" / "canary-state.json"
    virtual = T0.replace(year=2999)   # `canary round` runs simulator rounds on a clock of their own, here ahead
    for i in range(2):
        at = virtual + i * HALF_HOUR
        assert f.canary("judge", str(f.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--state", str(state),
                        "--now", iso(at), "--no-notify")[0] == 0
    code, out, err = f.canary("status", "--state", str(state))
    assert code == 0, err   # was: refused, its times "lie after now"
    assert f"{MODEL}  (at {iso(virtual + HALF_HOUR)})" in out and BAD in out


def test_status_shows_until_when_a_failed_round_is_pending(f: Files) -> None:
    at = T0 + 4 * HALF_HOUR
    f.canary("judge", str(f.results("r2.json", {PROVIDERS[1]: "fail"}, at=at)), "--now", iso(at))
    _, out, _ = f.canary("status", "--model", MODEL, "--now", iso(at))
    row = next(line for line in out.splitlines() if line.startswith(PROVIDERS[1]))
    assert "failing" in row and iso(at + 4 * HALF_HOUR) in row  # the 2-hour pending window
    _, out, _ = f.canary("status", "--model", MODEL, "--now", iso(at + 5 * HALF_HOUR))
    assert "lapsed" in next(line for line in out.splitlines() if line.startswith(PROVIDERS[1]))


def test_status_for_an_unknown_model_says_so(f: Files) -> None:
    code, out, _ = f.canary("status", "--model", "no/such")
    assert code == 0 and "nothing recorded" in out


def test_lift_ends_a_suspension_and_is_audited(f: Files) -> None:
    code, _, _ = f.canary("lift", "--model", MODEL, "--provider", BAD, "--reason", "host fixed",
                          "--now", iso(T0 + 2 * HALF_HOUR))
    assert code == 0
    code, out, _ = f.canary("ignore", "--model", MODEL, "--now", iso(T0 + 2 * HALF_HOUR))
    assert json.loads(out) == []
    last = f.audit_lines()[-1]
    assert (last["action"], last["rule"], last["reason"], last["provider"]) == ("lift", "manual", "host fixed", BAD)


def test_lift_without_a_suspension_is_refused(f: Files) -> None:
    before = f.snapshot()
    code, _, err = f.canary("lift", "--model", MODEL, "--provider", PROVIDERS[1], "--reason", "r")
    assert code == 2 and "no active suspension" in err and f.snapshot() == before

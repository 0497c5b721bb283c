"""`canary maintenance add|list|remove`: people's maintenance windows edited as silences and incidents are
(every other byte kept), each window checked as `canary validate` and the judge check it."""

from __future__ import annotations

from pathlib import Path

import pytest
from judge_cli_support import MODEL, T0, Files, files_in, iso

from canary.state.maintenance import load_maintenance

HEADER = "# Maintenance windows: a person's header\n"


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Files:
    files = files_in(tmp_path, capsys)
    files.maintenance.parent.mkdir(parents=True, exist_ok=True)
    files.maintenance.write_text(HEADER, encoding="utf-8")
    return files


def _add(f: Files, *args: str) -> tuple[int, str, str]:
    return f.canary("maintenance", "add", "--reason", "announced", "--author", "alice", *args)


def test_add_list_remove_a_one_off_and_a_weekly_window(f: Files) -> None:
    end, as_given = "2026-11-30T01:00:00Z", "2026-11-30T02:00:00+01:00"   # written in UTC
    assert _add(f, "--provider", "cirrus/fp8", "--model", MODEL, "--start", iso(T0), "--end", as_given)[0] == 0
    assert _add(f, "--provider", "dune", "--every", "Tuesday", "--start", "02:00", "--end", "03:00")[0] == 0
    assert f.maintenance.read_text() == HEADER + (
        f'- provider: "cirrus/fp8"\n  model: "{MODEL}"\n  start: "{iso(T0)}"\n  end: "{end}"\n'
        '  reason: "announced"\n  author: "alice"\n'
        '- provider: "dune"\n  every: "tuesday"\n  start: "02:00"\n  end: "03:00"\n  reason: "announced"\n'
        '  author: "alice"\n')
    code, out, _ = f.canary("maintenance", "list", "--now", iso(T0))
    assert code == 0 and "cirrus/fp8 of " + MODEL in out and "(now)" in out and "every tuesday 02:00-03:00 UTC" in out
    assert "cirrus" not in f.canary("maintenance", "list", "--now", "2026-12-01T00:00:00Z")[1]
    assert "(over)" in f.canary("maintenance", "list", "--all", "--now", "2026-12-01T00:00:00Z")[1]
    assert f.canary("validate")[0] == 0
    code, out, _ = f.canary("maintenance", "remove", "--provider", "CIRRUS/fp8", "--model", MODEL)
    assert code == 0 and "removed 1 window(s)" in out
    assert f.canary("maintenance", "remove", "--provider", "dune")[0] == 0 and f.maintenance.read_text() == HEADER


@pytest.mark.parametrize(("args", "problem"), [
    (("--provider", "dune", "--every", "tuesday", "--start", "00:00", "--end", "03:00"),
     "line 2: the windows covering dune/* of every model (line 2, the new one) add up to 73 h in 7 days; at most 72 h"),
    (("--provider", "dune", "--start", "2am", "--end", "03:00"), "start: '2am' is not an ISO 8601 time"),
    (("--provider", "dune", "--every", "day", "--start", "2am", "--end", "03:00"),
     "start: '2am' is not a UTC time of day"),
    (("--provider", "$(reboot)", "--start", "02:00", "--end", "03:00"), "--provider: "),
    (("--provider", "dune", "--every", "caturday", "--start", "02:00", "--end", "03:00"), "'caturday' is not one of"),
], ids=["over-72-hours-a-week", "not-a-time", "not-a-time-of-day", "hostile-tag", "not-a-day"])
def test_add_refuses_a_window_the_file_could_not_hold_and_writes_nothing(f: Files, args: tuple[str, ...],
                                                                        problem: str) -> None:
    daily = '- provider: "dune"\n  every: "day"\n  start: "12:00"\n  end: "22:00"\n  reason: "r"\n  author: "a"\n'
    f.maintenance.write_text(HEADER + daily, encoding="utf-8")
    code, _, err = _add(f, *args)
    assert code == 2 and problem in err and f.maintenance.read_text() == HEADER + daily
    assert [w.provider for w in load_maintenance(f.maintenance)] == ["dune"]


def test_remove_refuses_a_window_that_is_not_there(f: Files) -> None:
    code, _, err = f.canary("maintenance", "remove", "--provider", "dune", "--start", "02:00")
    assert code == 2 and "no maintenance window of dune for every model starting 02:00" in err

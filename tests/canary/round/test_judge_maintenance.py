"""`canary judge` reads people's maintenance windows (paths.maintenance): a host failing inside its
window is not counted (decisions.json, the audit log and the history say `maintenance`), outside it
is judged as always; `canary validate` refuses a bad window with its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_cli_support import HALF_HOUR, MODEL, T0, Files, files_in, iso

BAD = "cirrus/fp8"
WINDOW = (f'- provider: "cirrus"\n  model: "{MODEL}"\n  start: "{iso(T0 - HALF_HOUR)}"\n'
          f'  end: "{iso(T0 + HALF_HOUR + HALF_HOUR / 2)}"\n  reason: "announced <b>upgrade</b>"\n  author: "alice"\n')


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Files:
    files = files_in(tmp_path, capsys)
    files.maintenance.parent.mkdir(parents=True, exist_ok=True)
    files.maintenance.write_text("# people's header\n" + WINDOW, encoding="utf-8")
    return files


def _judge(f: Files, i: int) -> list[dict[str, object]]:
    at = T0 + i * HALF_HOUR
    path = f.results(f"r{i}.json", {BAD: "fail"}, at=at)
    assert f.canary("judge", str(path), "--now", iso(at), "--no-notify")[0] == 0
    return list(json.loads(f.decisions.read_text())["decisions"])


def test_failures_inside_the_window_are_not_counted_and_outside_they_suspend(f: Files) -> None:
    for i in (0, 1):   # 22:00 and 22:30: inside the window (21:30 to 22:45)
        [held] = _judge(f, i)
        assert (held["provider"], held["action"], held["rule"]) == (BAD, "not_counted", "maintenance")
        assert "announced <b>upgrade</b>" in str(held["reason"])
    assert [d["action"] for d in _judge(f, 2)] == []            # 23:00: counted, the streak's first round
    assert [d["action"] for d in _judge(f, 3)] == ["suspend"]   # 23:30: the second
    assert [line["rule"] for line in f.audit_lines()] == ["maintenance", "maintenance", "failed_streak"]


def test_without_the_file_the_same_rounds_suspend_at_the_second(f: Files) -> None:
    f.maintenance.unlink()
    _judge(f, 0)
    assert [d["action"] for d in _judge(f, 1)] == ["suspend"]


@pytest.mark.parametrize(("entry", "problem", "line"), [
    (WINDOW.replace('  author: "alice"\n', ""), "author", 2),
    (WINDOW.replace(iso(T0 - HALF_HOUR), iso(T0 + 2 * HALF_HOUR)), "must be after start", 2),
    (WINDOW.replace(iso(T0 - HALF_HOUR), "2026-11-20T00:00:00Z"), "at most 72 h", 2),
    ('- provider: "cirrus"\n  every: "caturday"\n  start: "02:00"\n  end: "03:00"\n  reason: "r"\n  author: "a"\n',
     "is not a weekday", 2),
    ('- provider: "cirrus"\n  every: "tuesday"\n  start: "2am"\n  end: "03:00"\n  reason: "r"\n  author: "a"\n',
     "is not a UTC time of day", 2),
    ('- provider: "cirrus"\n  every: "day"\n  start: "01:00"\n  end: "23:00"\n  reason: "r"\n  author: "a"\n',
     "add up to 154 h in 7 days; at most 72 h", 2),
    ('- provider: "cirrus"\n  every: "day"\n  start: "01:00"\n  end: "02:00"\n  reason: "r"\n  author: "a"\n'
     '  weekly: yes\n', "weekly: unknown key", 8),
])
def test_validate_names_the_line_of_a_bad_window(f: Files, entry: str, problem: str, line: int) -> None:
    f.maintenance.write_text("# people's header\n" + entry, encoding="utf-8")
    code, _, err = f.canary("validate")
    assert code == 1 and f"{f.maintenance}: line {line}:" in err and problem in err
    code, _, err = f.canary("judge", str(f.results("r.json", at=T0)), "--now", iso(T0), "--no-notify")
    assert code == 2 and problem in err and not f.state.exists()   # the judge refuses it too, changing nothing


def test_two_daily_twelve_hour_windows_around_the_clock_are_refused_by_validate_and_the_judge(f: Files) -> None:
    half = '- provider: "cirrus"\n  every: "day"\n  start: "{}"\n  end: "{}"\n  reason: "r"\n  author: "a"\n'
    f.maintenance.write_text(half.format("00:00", "12:00") + half.format("12:00", "00:00"), encoding="utf-8")
    code, _, err = f.canary("validate")
    assert code == 1 and f"{f.maintenance}: line 1: the windows covering cirrus/* of every model (line 1, line 7) " \
                         "add up to 168 h in 7 days; at most 72 h" in err
    code, _, err = f.canary("judge", str(f.results("r.json", {BAD: "fail"}, at=T0)), "--now", iso(T0), "--no-notify")
    assert code == 2 and "add up to 168 h" in err and not f.state.exists()


def test_validate_accepts_the_repositorys_own_example_and_a_recurring_window(f: Files) -> None:
    f.maintenance.write_text(WINDOW + '- provider: "dune"\n  every: "Tuesday"\n  start: "23:30"\n  end: "01:30"\n'
                             '  reason: "weekly"\n  author: "bob"\n', encoding="utf-8")
    code, out, _ = f.canary("validate")
    assert code == 0 and f"ok    {f.maintenance}: 2 entries" in out


def test_the_history_and_the_status_page_show_maintenance_never_a_failure(f: Files, tmp_path: Path) -> None:
    import sys

    from canary.history.aggregate import endpoint_rounds
    from canary.history.query import History
    from canary.history.rows import round_record
    from canary.history.store import history_root
    from canary.state.results_files import read_decisions
    from core.config import load_config
    from core.results_read import read_results

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from site_support import data_block, echarts_or_placeholder

    _judge(f, 0)
    first = round_record(read_results(json.loads((f.root / "reports" / "r0.json").read_text())),
                         read_decisions(f.decisions))
    assert [er.klass for er in endpoint_rounds(first) if er.provider == BAD] == ["maintenance"]   # the Python twin
    for i in (1, 2):   # one more held round, then one counted failure
        _judge(f, i)
    now = T0 + 3 * HALF_HOUR
    history = History.open(history_root(load_config(str(f.config)).paths), now=now, days=2)
    classes = [p.klass for p in history.timelines(days=1)[(MODEL, BAD)]]
    assert classes == ["maintenance", "maintenance", "failed"]
    assert history.classes_between(MODEL, BAD, T0, now) == {"maintenance": 2, "failed": 1}
    out = tmp_path / "site"
    echarts = str(echarts_or_placeholder(tmp_path))
    assert f.canary("site", "--out", str(out), "--now", iso(now), "--echarts", echarts)[0] == 0
    [model] = json.loads(data_block((out / "index.html").read_text(encoding="utf-8")))["models"]
    [cirrus] = [e for e in model["endpoints"] if e["provider"] == BAD]
    assert cirrus["strip7"].endswith("mf") and set(cirrus["strip7"][:-2]) == {"."}   # 22:xx held, 23:xx failed
    assert model["maintenance"] == []   # a one-off window that is over is no longer listed
    during = tmp_path / "during"
    assert f.canary("site", "--out", str(during), "--now", iso(T0 + HALF_HOUR / 3), "--echarts", echarts)[0] == 0
    [window] = json.loads(data_block((during / "index.html").read_text(encoding="utf-8")))["models"][0]["maintenance"]
    assert window == {"provider": "cirrus", "when": f"{iso(T0 - HALF_HOUR)} to {iso(T0 + 3 * HALF_HOUR / 2)}",
                      "open": True, "reason": "announced <b>upgrade</b>", "author": "alice"}

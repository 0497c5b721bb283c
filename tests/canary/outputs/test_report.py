"""`canary report`: staging, categories, the trend carried through the history folder, errors."""

from __future__ import annotations

import json
import shutil
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from canary.cli.main import main
from canary.outputs import allure_html
from judge.suspension.decisions import Action, Decision, RoundDecisions, Rule


@pytest.fixture(autouse=True)
def _own_reports_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `canary report` shows <reports>/decisions.json when it exists: a round run in the checkout
    # (./dev round) must not leak its decisions into these reports.
    config = tmp_path / "canary.yaml"
    config.write_text(f"models: []\npaths:\n  reports: {tmp_path / 'reports'}\n", encoding="utf-8")
    monkeypatch.setenv("CANARY_CONFIG", str(config))


def allure_results(folder: Path, statuses: dict[str, str], *, environment: str | None = None) -> Path:
    """Result files shaped like allure-pytest's (one per case, uuid-named, stable historyId)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, status in statuses.items():
        uid = str(uuid.uuid4())
        (folder / f"{uid}-result.json").write_text(json.dumps({
            "uuid": uid, "historyId": f"h-{name}", "testCaseId": f"t-{name}",
            "fullName": f"probes.test_contract#{name}", "name": name, "status": status, "stage": "finished",
            "start": 1_764_455_400_000, "stop": 1_764_455_401_000,
            "statusDetails": {"message": f"{status}: {name}"},
            "labels": [{"name": "parentSuite", "value": "deepseek/deepseek-chat-v3-0324"},
                       {"name": "suite", "value": name.split("::")[1]},
                       {"name": "subSuite", "value": name.split("::")[0]}],
        }))
    if environment:
        (folder / "environment.properties").write_text(environment)
    return folder


def test_staging_adds_categories_history_and_a_numbered_executor(tmp_path):
    history = tmp_path / "history"
    history.mkdir()
    (history / "history-trend.json").write_text(json.dumps([{"buildOrder": 4, "data": {}}, {"buildOrder": 3}]))
    shard = allure_results(tmp_path / "r", {"aurora/fp8::latency": "passed"})
    count = allure_html.stage([shard], tmp_path / "staged", history=history, build=allure_html.Build(name="round"),
                              order=5)
    staged = tmp_path / "staged"
    assert count == 1
    categories = json.loads((staged / "categories.json").read_text())
    assert [c["name"].split(" (")[0] for c in categories][:5] == [
        "Positive control not probed", "Probe weak", "Transport error", "Quality failure", "Inconclusive"]
    assert json.loads((staged / "executor.json").read_text())["buildOrder"] == 5
    assert (staged / "history" / "history-trend.json").is_file()


def test_a_categories_file_from_the_probes_is_kept(tmp_path):
    shard = allure_results(tmp_path / "r", {"a/x::latency": "failed"})
    (shard / "categories.json").write_text('[{"name": "theirs"}]')
    allure_html.stage([shard], tmp_path / "staged", history=tmp_path / "none", build=allure_html.Build(), order=1)
    assert json.loads((tmp_path / "staged" / "categories.json").read_text()) == [{"name": "theirs"}]


def test_shards_are_merged_and_their_environments_combined(tmp_path):
    a = allure_results(tmp_path / "a", {"a/x::latency": "passed"}, environment="model=m1\nupstream=simulator\n")
    b = allure_results(tmp_path / "b", {"b/y::latency": "passed"}, environment="model=m2\nupstream=simulator\n")
    count = allure_html.stage([a, b], tmp_path / "staged", history=tmp_path / "none", build=allure_html.Build(),
                              order=1)
    assert count == 2
    assert (tmp_path / "staged" / "environment.properties").read_text() == "model=m1, m2\nupstream=simulator\n"


@pytest.mark.parametrize(("trend", "expected"), [
    (None, 1), ("[]", 1), ("{broken", 1), ('[{"buildOrder": 7}, {"buildOrder": 6}]', 8)],
    ids=["no-history", "empty", "corrupt", "seven-rounds"])
def test_the_next_round_number_follows_the_saved_trend(tmp_path, trend, expected):
    if trend is not None:
        (tmp_path / "history-trend.json").write_text(trend)
    assert allure_html.next_build_order(tmp_path) == expected


def test_no_results_is_a_clear_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(allure_html.AllureError, match="run `canary probe` first"):
        allure_html.stage([tmp_path / "empty"], tmp_path / "staged", history=tmp_path, build=allure_html.Build(),
                          order=1)


def test_missing_npm_tools_say_how_to_install_them(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(allure_html.ALLURE_ENV, str(tmp_path / "no-allure"))
    allure_results(tmp_path / "r", {"a/x::latency": "passed"})
    rc = main(["report", "--results-dir", str(tmp_path / "r"), "--history-dir", str(tmp_path / "h"),
               "--out", str(tmp_path / "o")])
    assert rc == 2
    assert "run ./dev test once, or `npm ci`" in capsys.readouterr().err


def _allure_or_skip() -> Path:
    try:
        launcher = allure_html.find_allure()
        allure_html.check_java()
    except allure_html.AllureError as exc:
        if shutil.which("npm") is None or shutil.which("java") is None:
            pytest.skip(f"Allure 2 cannot run here: {exc}")
        raise  # npm and Java exist, so ./dev test should have installed Allure: a real failure
    return launcher


@pytest.mark.slow
def test_two_rounds_render_a_report_whose_trend_shows_both(tmp_path, capsys):
    _allure_or_skip()
    first = allure_results(tmp_path / "round1", {"aurora/fp8::latency": "passed", "borealis/bf16::latency": "passed"})
    second = allure_results(tmp_path / "round2", {"aurora/fp8::latency": "passed", "borealis/bf16::latency": "failed"})
    history, out = tmp_path / "allure-history", tmp_path / "allure-report"

    done = allure_html.render([first], history=history, out=out)
    assert done.build_order == 1
    rc = main(["report", "--results-dir", str(second), "--history-dir", str(history), "--out", str(out),
               "--single-file"])

    assert rc == 0, capsys.readouterr().err
    trend = json.loads((out / "history" / "history-trend.json").read_text())
    assert [t["buildOrder"] for t in trend] == [2, 1]
    assert [t["data"]["failed"] for t in trend] == [1, 0]
    assert json.loads((history / "history-trend.json").read_text()) == trend  # saved for round 3
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "history-trend.json" in page  # the single file embeds its data, trend included
    assert not list(first.glob("history")) and not (second / "categories.json").exists()  # inputs untouched


@pytest.mark.slow
def test_a_judge_decision_is_not_counted_as_a_failed_test(tmp_path):
    _allure_or_skip()
    shard = allure_results(tmp_path / "r", {"aurora/fp8::latency": "passed", "borealis/bf16::latency": "failed"})
    decided = RoundDecisions(round_id="r2", mode="observe", now=datetime(2026, 11, 30, tzinfo=UTC), decisions=(
        Decision("deepseek/deepseek-chat-v3-0324", "borealis/bf16", Action.WOULD_SUSPEND, Rule.FAILED_STREAK,
                 "2 failed rounds in a row"),))
    out = tmp_path / "allure-report"
    allure_html.render([shard], history=tmp_path / "allure-history", out=out, decisions=decided)
    statistic = json.loads((out / "widgets" / "summary.json").read_text())["statistic"]
    assert (statistic["failed"], statistic["passed"], statistic["unknown"]) == (1, 1, 1)  # was 2 failed
    categories = json.loads((out / "widgets" / "categories.json").read_text())["items"]
    assert {c["name"]: c["statistic"]["total"] for c in categories}["Judge decision (with its evidence card)"] == 1

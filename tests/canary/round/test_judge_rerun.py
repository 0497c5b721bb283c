"""A re-run of failed jobs after a committed round: the judge gets reused shards with new ones.

GitHub's "Re-run failed jobs" keeps the jobs that succeeded and their artifacts; the re-run
probe job uploads a newer shard of its model, and download-artifact (latest of each name) gives
the judge the earlier attempt's shards of the other models with it. Those were judged already.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, files_in, iso
from notify_receivers import receiving

OTHER = "other/model"
BAD = PROVIDERS[0]


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return files_in(tmp_path, capsys)


def judge(f: Files, *shards: Path, at: object) -> tuple[int, str, str]:
    return f.canary("judge", *map(str, shards), "--expect-models", f"{MODEL},{OTHER}", "--now", iso(at))


def test_a_rerun_judges_the_reprobed_shard_as_its_own_round_and_not_the_reused_ones_again(f: Files) -> None:
    a = f.results("a.json", {BAD: "fail"}, at=T0, round_id="r1-a")
    b1 = f.results("b1.json", at=T0 + HALF_HOUR / 30, model=OTHER, round_id="r1-b", complete=False)
    assert judge(f, a, b1, at=T0 + HALF_HOUR / 3)[0] == 0  # attempt 1: committed, OTHER incomplete
    before = json.loads(f.state.read_text())["models"][MODEL][BAD]
    b2 = f.results("b2.json", {BAD: "fail"}, at=T0 + HALF_HOUR / 2, model=OTHER, round_id="r2-b")
    code, out, err = judge(f, a, b2, at=T0 + HALF_HOUR * 2 / 3)  # attempt 2: OTHER's job re-run
    assert code == 0, err
    assert "re-run: shard(s) r1-a were judged already (in r1-a+r1-b)" in out
    doc = json.loads(f.decisions.read_text())
    assert doc["round_id"] == "r2-b" and doc["reused_shards"] == {"r1-a": "r1-a+r1-b"}
    # Issue 29: the reused model is not an incomplete round (that pinged the heartbeat's failure URL)
    assert not [d for d in doc["decisions"] if d["model"] == MODEL]
    state = json.loads(f.state.read_text())
    assert state["models"][MODEL][BAD] == before  # MODEL's failure is not counted a second time
    assert state["models"][OTHER][BAD]["failed_streak"] == 1  # the re-probed model is judged
    assert state["applied_rounds"][-1] == "r2-b"


def test_judging_the_same_rerun_again_changes_nothing(f: Files) -> None:
    a = f.results("a.json", at=T0, round_id="r1-a")
    b1 = f.results("b1.json", at=T0 + HALF_HOUR / 30, model=OTHER, round_id="r1-b")
    b2 = f.results("b2.json", at=T0 + HALF_HOUR / 2, model=OTHER, round_id="r2-b")
    assert judge(f, a, b1, at=T0)[0] == 0
    assert judge(f, a, b2, at=T0 + HALF_HOUR / 2)[0] == 0
    committed = json.loads(f.decisions.read_text())
    state, audit = f.state.read_bytes(), f.audit.read_bytes()
    code, out, _ = judge(f, a, b2, at=T0 + 3 * HALF_HOUR)  # the re-run's judge job re-run once more
    assert code == 0 and "already applied" in out
    doc = json.loads(f.decisions.read_text())
    assert doc["round_id"] == "r2-b" and doc["already_applied"] is True
    assert doc["decisions"] == committed["decisions"] and doc["now"] == committed["now"]
    assert f.state.read_bytes() == state and f.audit.read_bytes() == audit


def test_a_round_older_than_the_last_one_is_still_refused(f: Files) -> None:
    assert judge(f, f.results("new.json", at=T0 + HALF_HOUR, round_id="new"), at=T0 + HALF_HOUR)[0] == 0
    code, _, err = judge(f, f.results("old.json", at=T0, round_id="old"), at=T0 + HALF_HOUR)
    assert code == 2 and "not after the last applied round" in err
    assert "a re-run of an older workflow run" in err and "start a new run" in err  # issue 29: it says why


def test_a_correct_rerun_pings_the_heartbeat_as_a_success(f: Files) -> None:
    a = f.results("a.json", at=T0, round_id="r1-a")
    b1 = f.results("b1.json", at=T0 + HALF_HOUR / 30, model=OTHER, round_id="r1-b", complete=False)
    assert judge(f, a, b1, at=T0 + HALF_HOUR / 3)[0] == 0
    b2 = f.results("b2.json", at=T0 + HALF_HOUR / 2, model=OTHER, round_id="r2-b")
    assert judge(f, a, b2, at=T0 + HALF_HOUR * 2 / 3)[0] == 0
    with receiving() as hook:
        env = {"CANARY_HEARTBEAT_URL": f"http://127.0.0.1:{hook.port}/ping"}
        with pytest.MonkeyPatch.context() as m:
            for name, value in env.items():
                m.setenv(name, value)
            assert f.canary("heartbeat", "--decisions", str(f.decisions))[0] == 0
    [ping] = hook.requests
    assert ping.path == "/ping"  # not /ping/fail


def test_the_summary_of_a_rerun_is_the_round_judged_not_the_reused_shards(f: Files) -> None:
    a = f.results("a.json", {BAD: "fail"}, at=T0, round_id="r1-a")
    b1 = f.results("b1.json", at=T0 + HALF_HOUR / 30, model=OTHER, round_id="r1-b", complete=False)
    assert judge(f, a, b1, at=T0 + HALF_HOUR / 3)[0] == 0
    b2 = f.results("b2.json", at=T0 + HALF_HOUR / 2, model=OTHER, round_id="r2-b")
    assert judge(f, a, b2, at=T0 + HALF_HOUR * 2 / 3)[0] == 0
    code, out, _ = f.canary("summary", "--results", str(a), str(b2), "--decisions", str(f.decisions))
    note, table = out.split("\n", 1)
    assert code == 0 and "r1-a" in note and "reused from round(s) r1-a+r1-b" in note  # what it left out, and why
    outcomes = table.split("provider.ignore:")[0]  # (the effective lists name every model, as always)
    assert OTHER in outcomes and MODEL not in outcomes  # the shard judged in r1-a+r1-b is not summarised again

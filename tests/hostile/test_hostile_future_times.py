"""Times from the future: a round stamped after now, and a state holding past-only times after now.

Accepted, a round from 2099 would make every real round "out of order" until 2099, and a
`last_counted_at` in the future freezes that endpoint's streaks forever (and `canary status` died
with an OverflowError at year 9999). Both are refused with a message naming what lies ahead.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from hostile_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, fingerprint, iso, seeded

NEXT = T0 + 2 * HALF_HOUR


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    return seeded(tmp_path, capsys)


def test_a_round_that_started_after_now_is_refused_and_later_real_rounds_still_apply(f: Files) -> None:
    future = f.results("future.json", {PROVIDERS[1]: "fail"}, at=NEXT + timedelta(days=365), round_id="r-2099")
    before = fingerprint(f.root)

    code, _, err = f.canary("judge", str(future), "--now", iso(NEXT), "--no-notify")

    assert code == 2 and "after now" in err and "r-2099" in err and "Traceback" not in err
    assert fingerprint(f.root) == before
    real = f.results("real.json", {PROVIDERS[1]: "fail"}, at=NEXT)
    assert f.canary("judge", str(real), "--now", iso(NEXT), "--no-notify")[0] == 0


def _plant(f: Files, field: str, value: str) -> None:
    doc = json.loads(f.state.read_text(encoding="utf-8"))
    if field == "last_round.started_at":
        doc["last_round"]["started_at"] = value
    else:
        doc["models"][MODEL][PROVIDERS[0]][field] = value
    f.state.write_text(json.dumps(doc), encoding="utf-8")


@pytest.mark.parametrize("field", ["last_counted_at", "last_round.started_at"])
@pytest.mark.parametrize("value", ["2099-01-01T00:00:00Z", "9999-12-31T23:59:59Z"])
def test_a_state_holding_a_past_only_time_in_the_future_is_refused_by_judge_lift_and_status(
        f: Files, field: str, value: str) -> None:
    _plant(f, field, value)
    real = f.results("real.json", {PROVIDERS[1]: "fail"}, at=NEXT)
    before = fingerprint(f.root)
    for args in (["judge", str(real), "--no-notify"], ["status"],
                 ["lift", "--model", MODEL, "--provider", PROVIDERS[0], "--reason", "fixed"]):
        code, _, err = f.canary(*args, "--now", iso(NEXT))
        assert code == 2 and field.split(".")[-1] in err and "after now" in err and "Traceback" not in err, args
    assert fingerprint(f.root) == before


def test_a_suspension_ending_in_the_future_is_no_problem(f: Files) -> None:
    state = json.loads(f.state.read_text(encoding="utf-8"))
    assert state["models"][MODEL][PROVIDERS[0]]["suspension"]["until"] > iso(NEXT)
    code, out, err = f.canary("status", "--now", iso(NEXT))
    assert code == 0 and PROVIDERS[0] in out, err

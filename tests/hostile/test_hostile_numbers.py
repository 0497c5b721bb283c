"""Numbers no real reply has, in results.json, through `canary judge`: read as absent, never a crash.

A host that bills 1e308 (or a 400-digit integer) for one reply used to abort the judge with an
OverflowError in the billing window: nothing was applied for any host of any model, every round.
Such a figure is now absent where results.json is read (core/results.py `MAX_BILL_USD`, with a
rejected-input note in the audit log), the billing window checks finiteness before it rounds, and
one host's evidence cannot abort the round for the others (judge/suspension/evidence.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hostile_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, iso, parse_audit, results, seeded

from core.field_rules import MAX_BILL_USD

NEXT = T0 + 2 * HALF_HOUR
HOST = PROVIDERS[1]


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "step-summary.md"))
    return seeded(tmp_path, capsys)


def _billed(doc: dict[str, Any], host: str, billed: Any, listed: Any = 0.00002) -> dict[str, Any]:
    """Every case of `host` with one completed attempt billed `billed`; the others billed honestly."""
    for case in doc["cases"]:
        bill = billed if case["provider"] == host else 0.00002
        case["attempts"] = [{"outcome": case["outcome"], "reason": "", "usage_reported": True, "prompt_tokens": 60,
                             "billed_usd": bill, "listed_usd": listed if case["provider"] == host else 0.00002}]
    return doc


# JSON text, so the figures are exactly what a hostile results.json holds (json.dumps writes 1e308 as 1e+308).
HUGE = {"float-1e308": "1e308", "float-max": "1.7976931348623157e308", "int-400-digits": "9" * 400,
        "just-above-the-bound": repr(MAX_BILL_USD * 2)}


@pytest.mark.parametrize("name", sorted(HUGE))
def test_a_bill_no_real_reply_has_is_absent_and_every_host_is_judged(f: Files, name: str) -> None:
    doc = _billed(results({PROVIDERS[0]: "fail"}, at=NEXT), HOST, "__HUGE__")
    path = f.root / "reports" / "huge.json"
    path.write_text(json.dumps(doc).replace('"__HUGE__"', HUGE[name]), encoding="utf-8")
    code, _, err = f.canary("judge", str(path), "--now", iso(NEXT), "--no-notify")
    assert code == 0 and "Traceback" not in err, err
    state = json.loads(f.state.read_text(encoding="utf-8"))["models"][MODEL]
    assert {p: s["last_counted_at"] for p, s in state.items()} == dict.fromkeys(PROVIDERS, iso(NEXT))  # all counted
    assert state[PROVIDERS[2]]["clean_streak"] == 3 and state[PROVIDERS[0]]["suspension"] is not None
    assert state[PROVIDERS[2]]["billing"] == "80000:80000"  # the others' bills kept, 4 cases x $0.00002
    assert not state[HOST].get("billing")  # the absurd bill is absent: nothing pushed for it
    notes = [a["reason"] for a in parse_audit(f.audit) if a["action"] == "rejected_input" and a["provider"] == HOST]
    assert notes and all("billed_usd" in n and "no real bill" in n for n in notes), notes


def test_a_listed_amount_no_listing_has_is_absent_too(f: Files) -> None:
    doc = _billed(results(at=NEXT), HOST, 0.00002, listed="__HUGE__")
    path = f.root / "reports" / "listed.json"
    path.write_text(json.dumps(doc).replace('"__HUGE__"', "1e308"), encoding="utf-8")
    code, _, err = f.canary("judge", str(path), "--now", iso(NEXT), "--no-notify")
    assert code == 0, err
    state = json.loads(f.state.read_text(encoding="utf-8"))["models"][MODEL]
    assert not state[HOST].get("billing") and state[PROVIDERS[0]]["billing"] == "80000:80000"
    assert state[HOST]["last_counted_at"] == iso(NEXT)

"""Issue 22's host errors in the history (canary/history/query.py History.host_errors)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from history_support import PROVIDERS, T0, detailed

from canary.history.query import History
from canary.history.rows import round_record
from canary.history.store import record_round
from core.results import read_results

HALF_HOUR = timedelta(minutes=30)
FLAKY, OTHER = PROVIDERS[:2]


def test_host_errors_are_counted_per_endpoint_against_its_peers(tmp_path: Path) -> None:
    root = tmp_path / "history"
    for i in range(4):
        doc = detailed({FLAKY: {"latency": "transport_error", "refusal": "transport_error"},
                        OTHER: {"structured": "transport_error"}}, at=T0 + i * HALF_HOUR, providers=PROVIDERS[:4])
        for case in doc["cases"]:
            if case["provider"] == FLAKY and case["contract"] == "latency":
                case["code"] = case["attempts"][0]["error_kind"] = "stream_cut"       # a host error
            elif case["provider"] == FLAKY and case["contract"] == "refusal":
                case["code"] = case["attempts"][0]["error_kind"] = "error_body_200"   # a host error
            # OTHER's transport error stays a 429: not the host's stream
        record_round(root, round_record(read_results(doc)), now=T0 + i * HALF_HOUR)
    history = History.open(root, now=T0 + 4 * HALF_HOUR)
    rows = {r.provider: r for r in history.host_errors(1)}
    flaky, other = rows[FLAKY], rows[OTHER]
    assert (flaky.errors, flaky.cases, flaky.peer_errors, flaky.peer_cases) == (8, 16, 0, 48)
    assert (other.errors, other.cases, other.peer_errors, other.peer_cases) == (0, 16, 8, 48)

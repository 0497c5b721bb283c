"""`canary explain`: a reported moment traced to each endpoint's state, rounds, production and reports (issue 40.1)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, files_in, iso
from rules_factories import served_record

from core.production import SCHEMA, CheckOutcome, CountCell, ProductionCheck, ProductionRecord, record_json
from simulator import scenario_from_dict, start_simulator

BAD = PROVIDERS[0]          # aurora/fp8, whose replies say "Aurora"
AT = T0 + 5 * HALF_HOUR - timedelta(minutes=10)   # between the rounds at T0 + 2 h and T0 + 2.5 h


@pytest.fixture
def f(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Files:
    for name in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)
    files = files_in(tmp_path)
    for i in range(7):   # aurora/fp8 fails its structured case every round: suspended from the second
        at = T0 + i * HALF_HOUR
        assert files.canary("judge", str(files.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at))[0] == 0
    folder = tmp_path / "production" / "chat-eu-1"
    folder.mkdir(parents=True)
    encoding = served_record(AT, {"Aurora": 10, "Borealis": 200})
    encoding = ProductionRecord(
        schema=SCHEMA, exporter="chat-eu-1", window_start=encoding.window_start, window_end=AT, sample_rate=0.05,
        served=encoding.served, counts=(
            CountCell(model=MODEL, provider="Aurora", check=ProductionCheck.ENCODING, outcome=CheckOutcome.FAIL, n=4),
            CountCell(model=MODEL, provider="Aurora", check=ProductionCheck.ENCODING, outcome=CheckOutcome.PASS, n=6),
            CountCell(model=MODEL, provider="Borealis", check=ProductionCheck.ENCODING, outcome=CheckOutcome.PASS,
                      n=200)))
    reported = served_record(AT - 3 * HALF_HOUR, {"Borealis": 90}, reports={"Aurora": 2})
    for record in (encoding, reported):
        (folder / f"{record.window_start:%Y%m%dT%H%M}.json").write_bytes(record_json(record))
    return files


def test_a_person_sees_the_state_rounds_production_leak_and_reports_of_the_endpoint(f: Files) -> None:
    code, out, _ = f.canary("explain", "--model", MODEL, "--at", iso(AT), "--provider", BAD,
                            "--production", str(f.root / "production"))

    assert code == 0
    assert f"{BAD}: SUSPENDED by the suspension layer: in provider.ignore" in out
    # The last two rounds before the moment and the first after it, a failure's reason under them.
    assert "rounds 23:30 failed (structured fail_other), 00:00 failed (structured fail_other), 00:30 failed" in out
    assert "00:00 structured: [fail_other] structured fail" in out
    assert "encoding 4/10 failed vs peers 0/200" in out
    assert "LEAK: 10/210 sampled replies of exporter chat-eu-1" in out
    assert "user reports: 2 in the day before, 0 in the day after (two or more within a day: a confirmation" in out


def test_a_script_gets_every_endpoint_as_json(f: Files) -> None:
    code, out, _ = f.canary("explain", "--model", MODEL, "--at", iso(AT), "--json")

    doc = json.loads(out)
    assert code == 0 and doc["ignore"] == [BAD]
    by = {e["provider"]: e for e in doc["endpoints"]}
    assert set(by) == set(PROVIDERS)
    assert (by[BAD]["state"], by[BAD]["layer"], by[BAD]["in_ignore"]) == ("suspended", "suspension", True)
    assert (by[PROVIDERS[1]]["state"], by[PROVIDERS[1]]["in_ignore"]) == ("active", False)
    assert [r["klass"] for r in by[BAD]["before"]] == ["failed", "failed"]
    assert any("--production" in c for c in doc["caveats"])


def test_before_the_suspension_the_endpoint_was_active_and_not_in_provider_ignore(f: Files) -> None:
    _, out, _ = f.canary("explain", "--model", MODEL, "--at", iso(T0 + timedelta(minutes=10)), "--provider", BAD)

    assert f"{BAD}: ACTIVE: not in provider.ignore" in out
    assert "rounds 22:00 failed (structured fail_other), 22:30 failed (structured fail_other)" in out


def test_a_generation_id_is_traced_through_openrouter_to_the_endpoint_that_served_it(
        f: Files, monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    endpoints = [{"tag": tag, "provider_name": tag.split("/")[0].capitalize(),
                  "behaviour": {"ttft_ms": 0, "tokens_per_second": 100000}} for tag in PROVIDERS]
    with start_simulator(scenario_from_dict({"models": [{"id": MODEL, "endpoints": endpoints}]})) as sim:
        key = "sk-or-test-explain-0123456789"
        body = {"model": MODEL, "messages": [{"role": "user", "content": "Hello"}], "stream": False,
                "provider": {"only": [PROVIDERS[2]], "allow_fallbacks": False}}
        gen_id = httpx.post(f"{sim.base_url}/chat/completions", json=body, headers={"Authorization": f"Bearer {key}"},
                            timeout=10).json()["id"]
        monkeypatch.setenv("OPENROUTER_BASE_URL", sim.base_url)
        monkeypatch.setenv("OPENROUTER_API_KEY", key)

        code, out, _ = f.canary("explain", "--model", MODEL, "--at", iso(AT), "--generation", gen_id, "--json")
        refused, _, err = f.canary("explain", "--model", MODEL, "--at", iso(AT), "--generation", "gen-0-unknown")

    doc = json.loads(out)
    assert code == 0 and doc["served_by"] == "Cirrus"
    assert [e["provider"] for e in doc["endpoints"]] == [PROVIDERS[2]]
    assert refused == 2 and "HTTP 404" in err and key not in err


def test_a_moment_past_the_detail_window_is_told_from_its_compacted_day(f: Files) -> None:
    from canary.history.store import compact

    compact(f.root / "state" / "history", now=T0 + timedelta(days=40))

    _, out, _ = f.canary("explain", "--model", MODEL, "--at", iso(AT), "--provider", BAD)

    assert f"{BAD}: SUSPENDED by the suspension layer" in out
    assert "2026-11-30 (compacted): rounds 3 failed; language 0/3 failed" in out and "structured 3/3 failed" in out
    assert "is compacted (older than the detail window)" in out

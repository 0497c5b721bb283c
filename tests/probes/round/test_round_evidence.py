"""More evidence at no extra cost (issue 10), through real rounds against the simulator.

- a host that refuses only the latency and language prompts (its filter leaves the refusal
  probe's scene alone) fails the refusal contract, with that reply as the evidence;
- a host whose filter cuts the refusal probe's scene short (a few words, finish_reason stop)
  gets confirmations at probe time and fails in the judge, against its peers' reply lengths;
- a host that glues stray bytes before every reply (issue 20) has every completed reply checked
  for it, the latency, refusal and structured replies too: its language card counts them all;
- all three become would-suspends after two half-hourly rounds, each with its evidence card, and
  each compared with peers that do not fail its contract themselves.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from round_support import MODEL, PROBE, ROOT, ProbeRun, endpoint, run_round, scenario

from core.policy import Policy
from core.results_read import read_results
from judge.suspension.round import RoundClass, classify_round
from probes.round.contracts.refusal import SHORT_REPLY_CHARS
from simulator import scenario_from_dict, start_simulator

# The latency prompt's persona owns "a small inn"; every language prompt says "Always reply in".
SHY = {"refusal": {"rate": 1.0, "only_when": ["small inn", "Always reply in"]}}
# Cuts only the refusal probe's scene (Veyra, the smuggler queen) to four words, finish "stop".
TRUNCATING = {"short_reply": {"rate": 1.0, "words": 4, "only_when": ["Veyra"]}}
GARBLING = {"leading_garbage": {"rate": 1.0, "fragments": ["s.\n", "_,", ").", '",']}}
FLEET = scenario(*(endpoint(f"ok{i}/fp8") for i in range(4)), endpoint("shy/fp8", SHY),
                 endpoint("trunc/fp8", TRUNCATING), endpoint("garbled/fp8", GARBLING))
STARTS = ("2026-12-01T10:00:00Z", "2026-12-01T10:30:00Z")


def config(tmp: Path) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "canary.yaml"
    path.write_text(yaml.safe_dump({
        "models": [MODEL], "controls": {}, "mode": "observe",
        "probe": PROBE,  # thresholds no load reaches: healthy hosts missed 2 s on a busy machine
        "concurrency": {"overall": 32, "per_provider": 4},
        "paths": {"state": str(tmp / "state.json"), "audit": str(tmp / "audit.jsonl"),
                  "history": str(tmp / "history"), "reports": str(tmp / "reports")},
    }), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def rounds(tmp_path_factory) -> tuple[list[ProbeRun], list[dict], Path]:
    tmp = tmp_path_factory.mktemp("evidence")
    cfg = config(tmp)
    played, decided = [], []
    with start_simulator(scenario_from_dict(FLEET), seed=5) as sim:
        for n, start in enumerate(STARTS):
            folder = tmp / f"round{n}"
            done = run_round(folder, sim.base_url, f"--canary-virtual-time={start}", config=cfg)
            assert done.results["complete"], done.output[-3000:]
            out = folder / "decisions.json"
            judged = subprocess.run(
                [sys.executable, "-m", "canary", "--config", str(cfg), "judge", str(done.reports / "results.json"),
                 "--now", start, "--allow-simulator", "--no-notify", "--decisions-out", str(out)],
                cwd=ROOT, capture_output=True, text=True, timeout=120)
            assert judged.returncode == 0, judged.stdout + judged.stderr
            played.append(done)
            decided.append(json.loads(out.read_text(encoding="utf-8")))
    return played, decided, tmp


def test_every_latency_and_language_reply_carries_its_refusal_check(rounds) -> None:
    first = rounds[0][0]
    for provider in ("ok0/fp8", "trunc/fp8"):
        for contract in ("latency", "language"):
            checks = {a["refusal"] for a in first.case(provider, contract)["attempts"]}
            assert checks == {"pass"}, (provider, contract, first.case(provider, contract))
    assert {a["refusal"] for a in first.case("shy/fp8", "latency")["attempts"]} == {"fail"}


def test_a_host_refusing_only_the_other_probes_fails_the_refusal_contract_with_that_reply(rounds) -> None:
    first = rounds[0][0]
    shy = first.case("shy/fp8", "refusal")
    assert shy["attempts"][0]["outcome"] == "pass"  # its reply to the refusal probe itself is the story
    assert shy["outcome"] == "fail"
    assert "probe's reply" in shy["reason"] and "declines out of character" in shy["reason"]
    assert first.outcome("shy/fp8", "latency") == "pass"  # the first token was on time all the same
    assert first.outcome("ok0/fp8", "refusal") == "pass"


def test_a_truncating_host_is_confirmed_at_probe_time_and_failed_by_the_judge(rounds) -> None:
    first = rounds[0][0]
    trunc = first.case("trunc/fp8", "refusal")
    assert trunc["outcome"] == "pass" and trunc["anomaly"] is True and "short reply: 3 of 3" in trunc["reason"]
    assert len(trunc["attempts"]) == 3 and all(a["chars"] < SHORT_REPLY_CHARS for a in trunc["attempts"])
    assert trunc["requests"] == 3
    assert len(first.case("ok0/fp8", "refusal")["attempts"]) == 1  # a normal reply costs nothing more
    classified = classify_round(read_results(first.results), Policy())[MODEL].providers
    assert classified["trunc/fp8"].klass is RoundClass.FAILED
    reason = next(e.reason for e in classified["trunc/fp8"].evidence if e.contract == "refusal")
    assert "truncated replies: 3 of 3" in reason
    assert all(classified[f"ok{i}/fp8"].klass is RoundClass.CLEAN for i in range(4))


def test_every_completed_reply_carries_its_integrity_check(rounds) -> None:
    first = rounds[0][0]
    for contract in ("latency", "refusal", "structured", "language"):
        assert {a["integrity"] for a in first.case("ok0/fp8", contract)["attempts"]} == {"pass"}, contract
        garbled = first.case("garbled/fp8", contract)["attempts"]
        assert {a["integrity"] for a in garbled} == {"fail"}, (contract, garbled)
        assert all(a["integrity_reason"].startswith("leading garbage") for a in garbled)
    assert first.outcome("garbled/fp8", "latency") == "pass"  # the first token was on time all the same


def test_all_three_become_would_suspends_with_an_evidence_card_after_two_rounds(rounds) -> None:
    _, decided, _ = rounds
    assert not [d for d in decided[0]["decisions"] if d["action"] == "would_suspend"]
    opened = {d["provider"]: d for d in decided[1]["decisions"] if d["action"] == "would_suspend"}
    assert set(opened) == {"shy/fp8", "trunc/fp8", "garbled/fp8"}
    for planted in ("shy/fp8", "trunc/fp8"):
        (card,) = opened[planted]["card"]
        assert card["contract"] == "refusal" and card["significant"] is True, card
        # The other refusal-failing host is set aside: the peers are the five that do not fail it.
        assert card["peers"] == 5 and card["set_aside"] == [p for p in ("shy/fp8", "trunc/fp8") if p != planted]
        assert opened[planted]["weak_evidence"] is False
    # trunc: 3 short replies a round; shy: its latency and language replies refused.
    assert opened["trunc/fp8"]["card"][0]["text"].startswith("refusal: 6/")
    assert opened["shy/fp8"]["card"][0]["failures"] >= 4
    # garbled: the language replies and its latency, refusal and structured replies, two rounds.
    language = next(c for c in opened["garbled/fp8"]["card"] if c["contract"] == "language")
    assert language["failures"] >= 10 and language["peer_failures"] == 0 and language["significant"], language


def test_the_window_in_the_state_holds_both_rounds(rounds) -> None:
    _, _, tmp = rounds
    state = json.loads((tmp / "state.json").read_text(encoding="utf-8"))
    windows = {p: s["window"] for p, s in state["models"][MODEL].items()}
    assert windows["ok0/fp8"]["latency"] == "p.p"
    assert windows["trunc/fp8"]["refusal"].count(".") == 1 and windows["trunc/fp8"]["refusal"].count("f") == 6
    assert "f" in windows["shy/fp8"]["refusal"]

"""A round against a hostile upstream (simulator/scenarios/hostile.yaml), end to end through the commands.

Beside healthy, degraded and filtering hosts, four hosts attack the reader: one echoes our request
headers (the API key) into its text and one names the key as its provider, one nests its JSON a
thousand levels deep (in the reply, and in every data event), one splits emoji into UTF-16 halves
across chunks, one sends 64 K characters without a space. The round must complete, judge every
other host as it would have anyway, and the key must reach no file, no history entry and no
message of probe, judge, summary, status, site or announce.
"""

from __future__ import annotations

import json
import lzma
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_TESTS = Path(__file__).resolve().parents[1]
if str(_TESTS / "probes") not in sys.path:
    sys.path.insert(0, str(_TESTS / "probes"))

from round_support import MODEL, ROOT, SENTINEL_KEY, ProbeRun, canary_config, run_round  # noqa: E402

from canary.state.commit_back import commit_message  # noqa: E402
from canary.state.results_files import read_decisions  # noqa: E402
from simulator import load_scenario, start_simulator  # noqa: E402

HEALTHY = ("aurora/fp8", "borealis/bf16")
HOSTILE = ("echo/fp8", "mirror/fp8", "abyss/fp8", "trench/fp8", "prism/fp8", "wall/fp8")
CONTRACTS = ("latency", "refusal", "structured", "language")


@pytest.fixture(scope="module")
def hostile_round(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProbeRun]:
    tmp = tmp_path_factory.mktemp("hostile")
    with start_simulator(load_scenario("hostile"), seed=5) as sim:
        yield run_round(tmp, sim.base_url, config=canary_config(tmp, controls=("ember/fp8",)))


def _canary(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CANARY_", "GITHUB_", "OPENROUTER_"))}
    env["GITHUB_STEP_SUMMARY"] = str(root / "step-summary.md")
    return subprocess.run([sys.executable, "-m", "canary", "--config", str(root / "canary.yaml"), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def _outcomes(round_: ProbeRun, provider: str) -> dict[str, str]:
    return {c["contract"]: c["outcome"] for c in round_.results["cases"] if c["provider"] == provider}


def test_the_round_completes_with_a_result_for_every_case_of_every_host(hostile_round: ProbeRun) -> None:
    doc = hostile_round.results
    assert doc["complete"] is True, (doc["incomplete"], hostile_round.output[-3000:])
    probed = {(c["provider"], c["contract"]) for c in doc["cases"]}
    hosts = {*HEALTHY, "cinder/fp8", "ember/fp8", *HOSTILE}
    assert probed >= {(h, c) for h in hosts for c in CONTRACTS}
    assert "Traceback" not in hostile_round.output and "RecursionError" not in hostile_round.output


def test_every_other_host_is_judged_as_it_would_be_without_the_hostile_ones(hostile_round: ProbeRun) -> None:
    for host in HEALTHY:
        assert set(_outcomes(hostile_round, host).values()) == {"pass"}, host
    assert _outcomes(hostile_round, "cinder/fp8")["language"] == "fail"  # its stray leading fragments
    control = hostile_round.case("ember/fp8", "refusal")
    assert control["control"] is True and control["outcome"] == "pass"  # the control was caught filtering


def test_each_hostile_reply_gets_a_verdict_of_its_own_not_a_crash(hostile_round: ProbeRun) -> None:
    abyss = hostile_round.case("abyss/fp8", "structured")
    assert abyss["outcome"] == "fail" and "not valid JSON" in abyss["reason"] and "64 levels" in abyss["reason"]
    for contract in CONTRACTS:  # every data event is nested too deep: a malformed stream, frozen
        trench = hostile_round.case("trench/fp8", contract)
        assert trench["outcome"] == "transport_error" and "not JSON" in trench["reason"], trench
    for host in ("prism/fp8", "wall/fp8"):  # the text arrived and was judged
        language = hostile_round.case(host, "language")
        assert language["outcome"] != "transport_error", language
    assert hostile_round.case("mirror/fp8", "latency")["reason"].startswith("routing mismatch")


def _texts_under(root: Path) -> Iterator[tuple[Path, bytes]]:
    for path in sorted(root.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            yield path, lzma.decompress(data) if path.suffix == ".xz" else data


def test_the_key_reaches_no_file_no_history_and_no_message(hostile_round: ProbeRun,
                                                           tmp_path: Path) -> None:
    doc = hostile_round.results
    assert "***" in json.dumps(doc)  # the echo was there, and was scrubbed
    (tmp_path / "canary.yaml").write_text(json.dumps({
        "mode": "enforce", "models": [MODEL],
        "paths": {"reports": str(tmp_path / "reports"), "state": str(tmp_path / "state" / "canary-state.json"),
                  "audit": str(tmp_path / "state" / "audit.jsonl"), "history": str(tmp_path / "state" / "history"),
                  "builtin": str(tmp_path / "exclusions" / "builtin.yaml"),
                  "incidents": str(tmp_path / "exclusions" / "incidents.yaml")},
    }), encoding="utf-8")
    results = hostile_round.reports / "results.json"
    outputs: list[str] = [hostile_round.output]
    for i, at in enumerate(("2026-11-01T00:00:00Z", "2026-11-01T00:30:00Z")):  # two rounds: streaks move
        shifted = {**doc, "round_id": f"{doc['round_id']}-{i}", "started_at": at}
        path = tmp_path / "reports" / f"results-{i}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(shifted), encoding="utf-8")
        judged = _canary(tmp_path, "judge", str(path), "--allow-simulator", "--now", at.replace(":00Z", ":05Z"))
        assert judged.returncode == 0, judged.stderr
        outputs += [judged.stdout, judged.stderr]
    for args in (("summary", "--results", str(results), "--markdown", "--step-summary"), ("status",),
                 ("announce",), ("site", "--out", str(tmp_path / "site"), "--now", "2026-11-01T01:00:00Z")):
        done = _canary(tmp_path, *args)
        assert done.returncode == 0, (args, done.stderr)
        outputs += [done.stdout, done.stderr]
    state = json.loads((tmp_path / "state" / "canary-state.json").read_text(encoding="utf-8"))
    assert state["models"][MODEL]["cinder/fp8"]["suspension"] is not None  # both rounds counted for the others
    outputs.append(commit_message(read_decisions(tmp_path / "reports" / "decisions.json")))
    leaked = [str(p) for root in (hostile_round.reports, tmp_path) for p, data in _texts_under(root)
              if SENTINEL_KEY.encode() in data]
    assert leaked == []
    assert all(SENTINEL_KEY not in text for text in outputs)

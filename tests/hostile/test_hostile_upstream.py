"""A round against a hostile upstream (simulator/scenarios/hostile.yaml), end to end through the commands.

Beside healthy, degraded and filtering hosts, four hosts attack the reader: one echoes our request
headers (the API key) into its text and one names the key as its provider, one nests its JSON a
thousand levels deep (in the reply, and in every data event), one splits emoji into UTF-16 halves
across chunks, one sends 64 K characters without a space. Six more put the key where the client
cuts upstream text (issue 31: an error message, a quoted malformed event, a moderation category,
the X-Provider-Name note, a tool name in fragments, the text cap), so that a cut made before
masking would publish all of it but one character. The round must complete, judge every other
host as it would have anyway, and no piece of the key (16 characters of it, any case, hex or
base64) may reach a file, a history entry or a message of probe, judge, summary, status, site or
announce. The round uses a key of a real key's shape (73 characters).
"""

from __future__ import annotations

import base64
import hashlib
import json
import lzma
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

_TESTS = Path(__file__).resolve().parents[1]
if str(_TESTS / "probes") not in sys.path:
    sys.path.insert(0, str(_TESTS / "probes"))

from round_support import MODEL, ROOT, ProbeRun, canary_config, run_round  # noqa: E402

from canary.round.results_files import read_decisions  # noqa: E402
from canary.state.commit_back import commit_message  # noqa: E402
from simulator import load_scenario, start_simulator  # noqa: E402

HEALTHY = ("aurora/fp8", "borealis/bf16")
HOSTILE = ("echo/fp8", "mirror/fp8", "abyss/fp8", "trench/fp8", "prism/fp8", "wall/fp8")
AT_CUTS = ("quill/fp8", "rune/fp8", "sieve/fp8", "vane/fp8", "weft/fp8", "xylem/fp8")   # echo_at_cut
ESCAPING = "glyph/fp8"   # escape_codes: an error message that clears the screen, retitles, links, reverses
CONTRACTS = ("latency", "refusal", "structured", "language")
KEY = "sk-or-v1-" + hashlib.sha256(b"canary issue 31").hexdigest()   # a real key's shape: 73 characters
PIECE = 16


def _pieces(key: str) -> tuple[set[bytes], set[bytes]]:
    """Every 16-character piece of the key (lower case) and of its hex, and every 22-character piece
    of its base64 at the three alignments: written out here, not taken from core/key_mask.py."""
    raw = key.encode()
    blind = {raw[i: i + PIECE].lower() for i in range(len(raw) - PIECE + 1)}
    hexed = raw.hex().encode()
    blind |= {hexed[i: i + 2 * PIECE] for i in range(len(hexed) - 2 * PIECE + 1)}
    exact: set[bytes] = set()
    for shift in range(3):
        encoded = base64.b64encode(raw[shift:][: (len(raw) - shift) // 3 * 3])
        exact |= {encoded[i: i + 22] for i in range(len(encoded) - 21)}
    return blind, exact


BLIND, EXACT = _pieces(KEY)


def leaks(data: bytes) -> bool:
    """Does `data` hold a piece of the key (any case), of its hex or of its base64?"""
    lower = data.lower()
    return any(p in lower for p in BLIND) or any(p in data for p in EXACT)


@pytest.fixture(scope="module")
def hostile_round(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProbeRun]:
    tmp = tmp_path_factory.mktemp("hostile")
    config = canary_config(tmp, controls=("ember/fp8",), optional=("tools",))
    # Sixteen hosts start at once on a shared machine: the healthy ones' first tokens must not
    # miss a 1 s threshold for want of CPU (no host of this scenario is slow on purpose).
    doc = yaml.safe_load(config.read_text(encoding="utf-8"))
    doc["probe"]["ttft_seconds"] = 4.0
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with start_simulator(load_scenario("hostile"), seed=5) as sim:
        yield run_round(tmp, sim.base_url, config=config, key=KEY)


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
    hosts = {*HEALTHY, "cinder/fp8", "ember/fp8", *HOSTILE, *AT_CUTS, ESCAPING}
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


def test_the_key_echoed_at_each_cut_is_masked_before_the_cut(hostile_round: ProbeRun) -> None:
    for contract in CONTRACTS[1:]:   # the error event's message and the malformed event's quote: frozen, masked
        for host, said in (("quill/fp8", "Authorization: Bearer ***"), ("rune/fp8", "not JSON")):
            case = hostile_round.case(host, contract)
            assert case["outcome"] == "transport_error" and said in case["reason"] and "***" in case["reason"], case
    refusal = hostile_round.case("sieve/fp8", "refusal")   # moderated: the flagged category is the mask
    assert "***" in refusal["reason"], refusal
    tools = hostile_round.case("weft/fp8", "tools")   # the joined name masked, not its fragments
    assert tools["outcome"] == "fail" and "***" in tools["reason"], tools
    assert hostile_round.case("xylem/fp8", "language")["outcome"] != "transport_error"  # the capped text judged
    assert hostile_round.case("vane/fp8", "language")["outcome"] == "pass"   # a note, not a verdict


def test_no_escape_sequence_of_an_error_message_reaches_the_log(hostile_round: ProbeRun) -> None:
    # Issue 31: the round table and HostUnreachable's message printed the host's error raw.
    for contract in CONTRACTS[1:]:
        case = hostile_round.case(ESCAPING, contract)
        assert case["outcome"] == "transport_error" and "Provider returned error" in case["reason"], case
        assert case["reason"].isprintable(), case["reason"]
    assert "glyph/fp8" in hostile_round.output and "Provider returned error" in hostile_round.output
    raw = [ch for ch in ("\x1b", "\x07", "\u202e", "\u202c") if ch in hostile_round.output]
    assert raw == []


def _texts_under(root: Path) -> Iterator[tuple[Path, bytes]]:
    for path in sorted(root.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            yield path, lzma.decompress(data) if path.suffix == ".xz" else data


def test_no_piece_of_the_key_reaches_a_file_the_history_or_a_message(hostile_round: ProbeRun,
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
    leaked = [str(p) for root in (hostile_round.reports, tmp_path) for p, data in _texts_under(root) if leaks(data)]
    assert leaked == []
    assert [text[:200] for text in outputs if leaks(text.encode())] == []

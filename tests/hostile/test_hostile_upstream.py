"""A round against a hostile upstream (simulator/scenarios/hostile.yaml), end to end through the commands.

Beside healthy, degraded and filtering hosts, four hosts attack the reader: one echoes our request
headers (the API key) into its text and one names the key as its provider, one nests its JSON a
thousand levels deep (in the reply, and in every data event), one splits emoji into UTF-16 halves
across chunks, one sends 64 K characters without a space. Issue 31's numbers and sizes: one
bills 1e308 and one a 400-digit integer for every reply, one lists a 401-digit context_length, one
sends its stream gzip-compressed (a small gzip bomb of keep-alives), and one floods its tool calls
(in a second, small round with the tools contract on). Six more put the key where the client cuts
upstream text (issue 31: an error message, a quoted malformed event, a moderation category, the
X-Provider-Name note, a tool name in fragments, the text cap), so that a cut made before masking
would publish all of it but one character. Five more hide it from a reader of characters (issue
37: a zero-width space or a soft hyphen between every two characters, reversed, percent-encoded,
`\\u`-escaped) as the provider's name and in the message of a relayed error, and one names itself
with an OSC 8 link, a bell and a bidi override. Two reject their own model's call (Groq's
`tool_use_failed`, relayed before any byte and in the stream after the thinking), one streams its
thinking past the cap with usage that leaves it out. Issue 40: four whose router metadata tells of
OpenRouter's own doing (a healed reply, a guardrail flagging or blocking, a fallback). The round must
complete, judge every other host as it would have anyway, and no piece of the key (16 characters of
it, any case, reversed, hex or base64, in the files as written and as a reader takes them: escapes
decoded, invisible characters dropped) may reach a file, a history entry, an issue, a notification or
a message of probe, judge, summary, status, site, issues or announce. The round uses a key of a real
key's shape (73 characters).
"""

from __future__ import annotations

import base64
import hashlib
import json
import lzma
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

_TESTS = Path(__file__).resolve().parents[1]
for _folder in ("probes", "canary"):
    if str(_TESTS / _folder) not in sys.path:
        sys.path.insert(0, str(_TESTS / _folder))

from fake_github import REPO, TOKEN, fake_github  # noqa: E402
from notify_receivers import receiving  # noqa: E402
from round_support import MODEL, ROOT, ProbeRun, canary_config, run_round  # noqa: E402

from canary.state.commit_back import commit_message  # noqa: E402
from canary.state.results_files import read_decisions  # noqa: E402
from simulator import Scenario, scenario_from_dict, start_simulator  # noqa: E402
from simulator.scenario import scenario_file  # noqa: E402

HEALTHY = ("aurora/fp8", "borealis/bf16")
HOSTILE = ("echo/fp8", "mirror/fp8", "abyss/fp8", "trench/fp8", "prism/fp8", "wall/fp8",
           "ledger/fp8", "tally/fp8", "bomb/fp8")
FLOOD = "swarm/fp8"  # floods only a tools request: probed in a round of its own with the tools contract on
AT_CUTS = ("quill/fp8", "rune/fp8", "sieve/fp8", "vane/fp8", "weft/fp8", "xylem/fp8")   # echo_at_cut
ESCAPING = "glyph/fp8"   # escape_codes: an error message that clears the screen, retitles, links, reverses
REJECTING = ("veto/fp8", "recant/fp8")   # tool_use_failed relayed: as a 400, and in the stream after thinking
UNITEMISED = "muse/fp8"  # thinking streamed past the cap, usage without reasoning_tokens
HIDING = ("veil/fp8", "gauze/fp8", "ebb/fp8", "cipher/fp8", "cloak/fp8")   # echo_hidden, issue 37
BEACON = "beacon/fp8"    # escape_codes into provider: its served-by name links (OSC 8), rings, reverses
ROUTED = ("mend/fp8", "shroud/fp8", "gate/fp8", "relay/fp8")   # router metadata: healing, guardrails, a fallback
CONTRACTS = ("latency", "refusal", "structured", "language")
KEY = "sk-or-v1-" + hashlib.sha256(b"canary issue 31").hexdigest()   # a real key's shape: 73 characters
PIECE = 16
# The round of 36 hosts is set up inside the first test: on a busy two-core machine it takes longer
# than the suite's default 120 s safety net for a hung test.
pytestmark = pytest.mark.timeout(900)


def _pieces(key: str) -> tuple[set[bytes], set[bytes]]:
    """Every 16-character piece of the key and of the key reversed (lower case) and of its hex, and
    every 22-character piece of its base64 at the three alignments: written out here, not taken
    from core/key_mask.py."""
    raw = key.encode()
    blind = {k[i: i + PIECE].lower() for k in (raw, raw[::-1]) for i in range(len(raw) - PIECE + 1)}
    hexed = raw.hex().encode()
    blind |= {hexed[i: i + 2 * PIECE] for i in range(len(hexed) - 2 * PIECE + 1)}
    exact: set[bytes] = set()
    for shift in range(3):
        encoded = base64.b64encode(raw[shift:][: (len(raw) - shift) // 3 * 3])
        exact |= {encoded[i: i + 22] for i in range(len(encoded) - 21)}
    return blind, exact


BLIND, EXACT = _pieces(KEY)


# As a reader takes text (written out here too, from unicodedata, not core/key_mask.py's lists):
# an escape decoded, however many backslashes lead it (`\\u0073`, `\\\\u200b` in a JSON file, repr's
# `\\xad`), a percent-encoded byte decoded, and then every format or control character dropped.
_ESCAPE = re.compile(rb"\\+(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2}))|%([0-9a-fA-F]{2})")
_UNSEEN = re.compile("[" + "".join(re.escape(chr(c)) for c in range(sys.maxunicode + 1)
                                   if unicodedata.category(chr(c)) in ("Cf", "Cc") and chr(c) not in "\t\n\r") + "]")


def as_read(data: bytes) -> bytes:
    decoded = _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2) or m.group(3), 16)).encode("utf-8", "replace"),
                          data)
    return _UNSEEN.sub("", decoded.decode("utf-8", "replace")).encode()


def leaks(data: bytes) -> bool:
    """Does `data`, as written or as a reader takes it, hold a piece of the key (any case, or
    reversed), of its hex or of its base64?"""
    for seen in (data, as_read(data)):
        lower = seen.lower()
        if any(p in lower for p in BLIND) or any(p in seen for p in EXACT):
            return True
    return False


@pytest.fixture(scope="module")
def hostile_round(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProbeRun]:
    tmp = tmp_path_factory.mktemp("hostile")
    config = canary_config(tmp, controls=("ember/fp8",), optional=("tools",))  # thresholds no load reaches
    with start_simulator(_hostile(lambda tag: tag != FLOOD), seed=5) as sim:
        yield run_round(tmp, sim.base_url, config=config, key=KEY)


@pytest.fixture(scope="module")
def tools_round(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProbeRun]:
    """The flood beside the two healthy hosts, the tools contract on (a smaller round: the big one's
    hosts would each add a tools case, and the machine's load would time the healthy ones out)."""
    tmp = tmp_path_factory.mktemp("hostile-tools")
    with start_simulator(_hostile(lambda tag: tag in (*HEALTHY, FLOOD)), seed=5) as sim:
        yield run_round(tmp, sim.base_url, config=canary_config(tmp, controls=(), optional=("tools",)))


def _hostile(keep: Callable[[str], bool]) -> Scenario:
    """The bundled hostile scenario with only the endpoints `keep` accepts."""
    raw = yaml.safe_load(scenario_file("hostile").read_text(encoding="utf-8"))
    for model in raw["models"]:
        model["endpoints"] = [e for e in model["endpoints"] if keep(e["tag"])]
    return scenario_from_dict(raw, source="hostile.yaml (filtered)")


def _canary(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("CANARY_", "GITHUB_", "OPENROUTER_"))},
           **(env or {})}
    env["GITHUB_STEP_SUMMARY"] = str(root / "step-summary.md")
    return subprocess.run([sys.executable, "-m", "canary", "--config", str(root / "canary.yaml"), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def _outcomes(round_: ProbeRun, provider: str) -> dict[str, str]:
    return {c["contract"]: c["outcome"] for c in round_.results["cases"] if c["provider"] == provider}


def test_the_round_completes_with_a_result_for_every_case_of_every_host(hostile_round: ProbeRun) -> None:
    doc = hostile_round.results
    assert doc["complete"] is True, (doc["incomplete"], hostile_round.output[-3000:])
    probed = {(c["provider"], c["contract"]) for c in doc["cases"]}
    hosts = {*HEALTHY, "cinder/fp8", "ember/fp8", *HOSTILE, *AT_CUTS, ESCAPING, *HIDING, BEACON, *ROUTED}
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


def test_a_bill_no_real_reply_has_is_left_out_and_the_reply_still_judged(hostile_round: ProbeRun) -> None:
    for host in ("ledger/fp8", "tally/fp8"):  # 1e308, and a 400-digit integer float() cannot hold
        cases = [hostile_round.case(host, contract) for contract in CONTRACTS]
        assert not [c for c in cases if "crashed" in c["reason"] or "Overflow" in c["reason"]], cases
        completed = [a for c in cases for a in c["attempts"] if a.get("usage_reported")]
        assert completed and all(a.get("billed_usd") is None for a in completed), cases  # absent, not a crash
        assert {c["outcome"] for c in cases} & {"pass", "fail"}, cases  # judged on its text


def test_a_listing_entry_with_a_401_digit_integer_is_dropped_and_reported(hostile_round: ProbeRun) -> None:
    assert "INTERNALERROR" not in hostile_round.output
    assert "vault/fp8" not in hostile_round.results["models"][MODEL]["providers"]
    discovery = json.loads((hostile_round.reports / "discovery.json").read_text(encoding="utf-8"))
    dropped = json.dumps(discovery)
    assert "vault/fp8" in dropped and "context_length a 401-digit integer is out of range" in dropped
    assert {c["provider"] for c in hostile_round.results["cases"]} >= set(HEALTHY)


def test_a_compressed_stream_is_that_hosts_malformed_stream_only(hostile_round: ProbeRun) -> None:
    for contract in CONTRACTS:
        case = hostile_round.case("bomb/fp8", contract)
        if contract == "latency" and case["outcome"] == "fail":  # a loaded machine: no text within the threshold
            assert "malformed_stream" in case["reason"], case
            continue
        assert case["outcome"] == "transport_error" and "Content-Encoding 'gzip'" in case["reason"], case


def test_one_endpoints_bare_402_freezes_it_and_the_round_says_the_keys_limit_is_near(hostile_round: ProbeRun) -> None:
    # Issue 37: tithe/fp8's every request may cost more than the key has left: OpenRouter's bare 402.
    for contract in CONTRACTS:
        case = hostile_round.case("tithe/fp8", contract)
        assert (case["outcome"], case["code"]) == ("transport_error", "key_limit"), case
    assert "!!! KEY LIMIT NEAR: a request to tithe/fp8 may cost more" in hostile_round.output


def test_a_flood_of_tool_calls_is_judged_and_stays_small_in_the_reports(tools_round: ProbeRun) -> None:
    assert tools_round.results["complete"] is True and "Traceback" not in tools_round.output
    swarm = tools_round.case(FLOOD, "tools")
    assert swarm["outcome"] == "fail", swarm  # judged on what was kept: the flooded name is no tool's
    for host in HEALTHY:
        assert tools_round.case(host, "tools")["outcome"] == "pass"
    # 2,400 name fragments and 2,400 calls: what Allure keeps of them is a few kilobytes.
    attachments = (tools_round.reports / "allure-results").glob("*-attachment*")
    flood = [p for p in attachments if b"x" * 150 in p.read_bytes()]
    assert flood and max(p.stat().st_size for p in flood) < 8 * 1024, [p.stat().st_size for p in flood]
    assert all(b"more tool calls" in p.read_bytes() for p in flood)  # the rest counted, not shown


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


def test_a_host_rejecting_its_own_calls_fails_its_tools_case_and_only_that(hostile_round: ProbeRun) -> None:
    for host in REJECTING:
        tools = hostile_round.case(host, "tools")
        assert tools["outcome"] == "fail" and "tool_use_failed" in tools["reason"], tools
        assert {hostile_round.case(host, c)["outcome"] for c in CONTRACTS} == {"transport_error"}, host
    unitemised = [c for c in hostile_round.results["cases"] if c["provider"] == UNITEMISED]
    assert {c["outcome"] for c in unitemised} == {"pass"}, [(c["contract"], c.get("reason")) for c in unitemised]


def test_what_the_router_metadata_tells_is_held_against_the_host_only_when_it_is_the_hosts(
        hostile_round: ProbeRun) -> None:
    mend = hostile_round.case("mend/fp8", "structured")   # OpenRouter repaired the host's broken JSON
    assert (mend["outcome"], mend["code"]) == ("fail", "response_healed"), mend
    shroud = {c: hostile_round.case("shroud/fp8", c) for c in CONTRACTS}   # OpenRouter's guardrail flagged
    assert "fail" not in {c["outcome"] for c in shroud.values()}, shroud
    assert (shroud["refusal"]["outcome"], shroud["refusal"]["code"]) == ("inconclusive", "guardrail_flagged")
    for contract in CONTRACTS:   # OpenRouter's guardrail blocked, before any provider; a fallback served
        gate, relay = hostile_round.case("gate/fp8", contract), hostile_round.case("relay/fp8", contract)
        assert (gate["outcome"], gate["code"]) == ("transport_error", "guardrail_blocked"), gate
        assert (relay["outcome"], relay["code"]) == ("transport_error", "routing_mismatch"), relay
        assert "attempts ['Relay' 502, 'Aurora' 200]" in relay["reason"], relay


def test_no_escape_sequence_of_an_error_message_reaches_the_log(hostile_round: ProbeRun) -> None:
    # Issue 31: the round table and HostUnreachable's message printed the host's error raw.
    for contract in CONTRACTS[1:]:
        case = hostile_round.case(ESCAPING, contract)
        assert case["outcome"] == "transport_error" and "Provider returned error" in case["reason"], case
        assert case["reason"].isprintable(), case["reason"]
    assert "glyph/fp8" in hostile_round.output and "Provider returned error" in hostile_round.output
    raw = [ch for ch in ("\x1b", "\x07", "\u202e", "\u202c") if ch in hostile_round.output]
    assert raw == []


def test_a_key_hidden_from_a_reader_of_characters_is_masked_where_it_arrives(hostile_round: ProbeRun) -> None:
    # Issue 37: the key, hidden, as the provider's name of a relayed error and in its message.
    for host in HIDING:
        for contract in CONTRACTS:
            case = hostile_round.case(host, contract)
            assert case["outcome"] == "transport_error", case
            assert case["reason"].startswith("routing mismatch: served by '***'"), case


def test_a_served_by_name_with_a_link_a_bell_and_a_bidi_override_is_shown_escaped(hostile_round: ProbeRun) -> None:
    # Issue 37: the name reached the probe's stdout raw (the setup error pytest prints).
    for contract in CONTRACTS:
        case = hostile_round.case(BEACON, contract)
        assert case["outcome"] == "transport_error" and case["reason"].isprintable(), case
        assert case["reason"].startswith("routing mismatch: served by '\\x1b[2J"), case
        assert "\\x1b]8;;https://attacker.invalid/" in case["reason"] and "\\x07" in case["reason"], case
    assert BEACON in hostile_round.output and "attacker.invalid" in hostile_round.output
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
    with fake_github() as github, receiving() as hook:   # the issues and the notifications, on real sockets
        env = {"CANARY_NOTIFY_URLS": f"json://127.0.0.1:{hook.port}/canary", "GITHUB_TOKEN": TOKEN,
               "GITHUB_API_URL": github.url, "GITHUB_REPOSITORY": REPO}
        for i, at in enumerate(("2026-11-01T00:00:00Z", "2026-11-01T00:30:00Z")):  # two rounds: streaks move
            shifted = {**doc, "round_id": f"{doc['round_id']}-{i}", "started_at": at}
            path = tmp_path / "reports" / f"results-{i}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(shifted), encoding="utf-8")
            judged = _canary(tmp_path, "judge", str(path), "--allow-simulator", "--now", at.replace(":00Z", ":05Z"),
                             env=env)
            assert judged.returncode == 0, judged.stderr
            outputs += [judged.stdout, judged.stderr]
        decisions = str(tmp_path / "reports" / "decisions.json")
        for args in (("summary", "--results", str(results), "--markdown", "--step-summary"), ("status",),
                     ("announce",), ("site", "--out", str(tmp_path / "site"), "--now", "2026-11-01T01:00:00Z"),
                     ("issues", "sync", "--decisions", decisions, "--results", str(results))):
            done = _canary(tmp_path, *args, env=env)
            assert done.returncode == 0, (args, done.stderr)
            outputs += [done.stdout, done.stderr]
    assert github.issues and hook.requests   # an issue was opened and a notification sent: both swept below
    outputs += [json.dumps([github.issues, github.comments], ensure_ascii=False),
                *(r.body.decode() for r in hook.requests)]
    state = json.loads((tmp_path / "state" / "canary-state.json").read_text(encoding="utf-8"))
    assert state["models"][MODEL]["cinder/fp8"]["suspension"] is not None  # both rounds counted for the others
    outputs.append(commit_message(read_decisions(tmp_path / "reports" / "decisions.json")))
    leaked = [str(p) for root in (hostile_round.reports, tmp_path) for p, data in _texts_under(root) if leaks(data)]
    assert leaked == []
    assert [text[:200] for text in outputs if leaks(text.encode())] == []

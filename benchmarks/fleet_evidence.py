"""Evidence against peers on a simulated fleet (issue 10): what the cards say, and what they would change.

    .venv/bin/python benchmarks/fleet_evidence.py [--only demo,planted,article,three_defects,shared,
                                                          bad_probe_day,noisy_week,tools,
                                                          optional_week,optional_all_week,
                                                          real_shapes_week]
                                                  [--week-rounds 336] [--seed 13] [--keep DIR]

(demo) first: `canary round` twice on the bundled simulator with its default scenario, exactly as
`./dev round` twice from a fresh clone (scratch state under the reports folder's
simulator-state/), and the cards of its would-suspends: the issue 20 target is no WEAK EVIDENCE
for a host whose defect is its own (cinder, dune, fjord, glacier).

Then nine scenarios, each a timeline of real half-hourly rounds: ONE simulator subprocess per
scenario (its round number advanced through /_sim/control), then per round `pytest probes`
(with the judge's language plan, started_at set on the virtual clock) and `canary judge --now`
(observe mode, as the checked-in canary.yaml), exactly as benchmarks/false_suspensions.py does:

(a) planted    today's planted defects (the default scenario's stray leading bytes on 95 % of
               replies, Spanish mixed in, a first token past the threshold, broken structured
               output; a flaky transport host that must never be suspended), plus the two the
               new evidence catches: a host that refuses only the latency and language prompts,
               and one whose filter cuts the refusal probe's scene to a few words ("stop");
               10 endpoints, 6 rounds;
(a2) article   the seed's headline case (issue 20): one host corrupting the start of 95 % of its
               replies among 14 healthy hosts with realistic noise; 4 rounds. Target: suspended after
               round 2 on significant evidence that counts at least 6 of its replies;
(a3) three_defects  three hosts with different language defects (stray leading bytes, Spanish mixed
               in, a full switch to another language) among nine; 4 rounds. Target: each suspended
               after round 2, none on weak evidence;
(b) shared     a third of the endpoints (3 of 9) share one defect (stray leading bytes on every
               reply): each looks ordinary against the two others, not against the pool; 6 rounds;
(c) bad_probe_day  9 healthy hosts; after 8 normal rounds, 3 of them fail the language probe
               intermittently (stray bytes on 40 % of replies) for 40 rounds: the probe's bad day,
               not the hosts'. Every would-suspend here is a false suspension;
(d) noisy_week 6 healthy hosts with realistic noise (transport errors, short replies, a
               catch-phrase) for a week (336 rounds), the tools contract on (issue 23) with its own
               noise (the model answers in prose 10 % of the time, valid calls end with `stop` 5 %).
               Every would-suspend is false;
(e) tools      the tools contract's planted defects among 11 hosts (Kimi markup leaked into the
               content, arguments that break the schema, arguments streamed twice, a host whose
               replies are prose while its peers call; a host that does not list tools; 6 noisy
               peers with the tools noise above); 6 rounds.
(f) optional_week  the optional stop and fidelity contracts on (issue 23): 6 healthy noisy hosts
               listing `stop`, a host ignoring the stop string, one echoing it and one answering
               60 % of the fidelity items wrongly, for --week-rounds rounds. Target: the three
               caught, 0 false suspensions.
(g) optional_all_week  all three optional contracts at once (issue 23's fleet week): 6 healthy noisy
               hosts listing `tools` and `stop` with each contract's noise (the transport noise
               above, prose 10 % and valid calls ending `stop` 5 %, a third of the fidelity replies
               with a fifth of their items wrong) and the 7 planted optional defects (markup leaked
               60 %, schema broken 80 %, arguments twice, prose where the peers call, stop ignored,
               stop echoed, 60 % of the fidelity items wrong), for --week-rounds rounds. Target: the
               7 caught, 0 false suspensions.
(h) real_shapes_week  issue 28's false-suspension budget: every healthy real shape of the wire
               (docs/openrouter-wire.md §9) (tool calls with a line in
               character, ~56 tokens a call and `stop`; `internal_reasoning: "0"` and the other zero
               price components; cache reads; a reasoning host whose max_tokens bounds only the
               answer; a usage chunk 2.5 s late; the hosts' own tool templates; a descending
               throughput listing; a provider's own 429s without Retry-After, a BYOK 402 naming the
               provider, string-only tool enums) on 11 noisy healthy hosts, all three optional
               contracts on, beside 5 planted defects (overbilling, hidden completion tokens,
               max_tokens ignored, stray leading bytes, a filter relayed as a provider 403), for
               --week-rounds rounds. Target: the 5 caught, 0 false suspensions.

Per scenario it prints each opening decision with its evidence card, the detection delay of each
planted defect (rounds from the defect's first round to its would-suspend), false suspensions,
how many decisions were on weak evidence, and requests per provider per round (mean / max). Then
it replays the same rounds through the pure rules with a candidate opt-in rule, "hold a
suspension whose evidence is weak until it is not" (judge/suspension/card.py's significance), and reports
what that would have changed: false suspensions removed, planted defects missed or delayed.
Issue 22: the latency cases the judge's decode-speed rule failed (`decode_fails`: every one is
false outside a planted slow decoder), and the same rounds replayed with the opt-in
rules.reliability on (`reliability_added`: hosts it would-suspends that the default did not;
in the planted scenario the flaky transport host harbor is the one it is meant to catch).

Machine-parsable lines, one per scenario (`replies_min`: the fewest replies a planted host's
first opening decision counted on its most significant card):

    BENCH fleet_evidence scenario=planted rounds=6 endpoints=10 opened=… false=… weak=… req_mean=… …
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import (  # noqa: E402
    ALL_PARAMS,
    MODEL,
    JudgeFiles,
    Simulator,
    bench_line,
    canary_config,
    endpoint,
    run_judge,
    run_probe,
    scenario,
    write_yaml,
)

from core import times  # noqa: E402
from core.policy import OBSERVE, Policy  # noqa: E402
from core.results_read import read_results  # noqa: E402
from core.vocabulary import Outcome  # noqa: E402
from judge.replies.billing import BillingCode  # noqa: E402
from judge.replies.limits import LimitsCode  # noqa: E402
from judge.replies.stream_integrity import StreamCode  # noqa: E402
from judge.suspension.decisions import Action  # noqa: E402
from judge.suspension.decode_speed import DecodeCode, judge_decode_speed  # noqa: E402
from judge.suspension.prompt_tokens import PromptCode, judge_prompt_tokens  # noqa: E402
from judge.suspension.rules import apply_round  # noqa: E402
from judge.suspension.state import JudgeState  # noqa: E402

T0 = datetime(2026, 12, 7, 0, 0, tzinfo=UTC)
REPLY_CHECK_CODES = frozenset({*StreamCode, *LimitsCode, *BillingCode})
OPENING = ("suspend", "would_suspend", "floor_held")
PROBE = {"ttft_seconds": 2.0, "request_deadline_seconds": 6}
FAST = {"ttft_ms": 80, "jitter_ms": 30, "tokens_per_second": 1500}
STOP_PARAMS = ("max_tokens", "temperature", "seed", "response_format", "structured_outputs", "stop")
NOISE: dict[str, dict[str, Any]] = {  # benchmarks/false_suspensions.py's realistic noise of healthy hosts
    "http_error": {"rate": 0.04, "status": [429, 502, 503], "retry_after": 1},
    "mid_stream_error": {"rate": 0.03, "shape": "random", "code": 502},
    "truncated_stream": {"rate": 0.03},
    "short_reply": {"rate": 0.05, "words": 3},
    "catch_phrase": {"rate": 0.10},
}


# The tools contract's realistic noise on healthy hosts (issue 23): the model answers in prose now
# and then (its own propensity) and a host ends valid calls with `stop`; neither may suspend anyone.
TOOL_NOISE: dict[str, dict[str, Any]] = {"tool_prose": {"rate": 0.10}, "tool_finish_stop": {"rate": 0.05}}
TOOL_PARAMS = [*ALL_PARAMS, "tools"]
# The fidelity contract's realistic noise: the model itself slips on an item now and then (a
# third of its replies get a fifth of their items wrong), on every host alike.
FIDELITY_NOISE: dict[str, dict[str, Any]] = {"fidelity_errors": {"rate": 0.3, "share": 0.2}}
OPTIONAL_PARAMS = [*ALL_PARAMS, "tools", "stop"]


def host(tag: str, faults: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    return endpoint(tag, faults=faults, **{**FAST, **kw})


@dataclass
class Scenario:
    name: str
    endpoints: list[dict[str, Any]]
    rounds: int
    planted: dict[str, int]            # defective host -> first round of its defect
    note: str = ""
    optional: tuple[str, ...] = ()     # the optional contracts the model runs (canary.yaml optional_contracts)


def scenarios(week_rounds: int) -> dict[str, Scenario]:
    planted = [
        host("aurora/fp8"), host("borealis/bf16"), host("iris/fp8"),
        host("cinder/fp8", {"leading_garbage": {"rate": 0.95}}),
        host("dune/int4", {"mix_language": {"rate": 1.0, "with": "es", "level": "both", "ratio": 0.5}}),
        host("fjord/fp16", {"slow_first_token": {"rate": 1.0, "delay_ms": 2600}}),
        host("glacier/fp8", {"schema_malformed": {"rate": 0.5}, "schema_violation": {"rate": 0.5}}),
        host("harbor/bf16", {"http_error": {"rate": 0.2, "status": [429, 502], "retry_after": 1},
                             "mid_stream_error": {"rate": 0.1, "shape": "random", "code": 502}}),
        host("shy/fp8", {"refusal": {"rate": 1.0, "only_when": ["small inn", "Always reply in"]}}),
        host("trunc/fp8", {"short_reply": {"rate": 1.0, "words": 5, "only_when": ["Veyra"]}}),
    ]
    article = [host("seed/fp8", {"leading_garbage": {"rate": 0.95}})] + [
        host(f"peer{i:02d}/fp8", NOISE, ttft_ms=60 + 10 * i) for i in range(14)]
    three = [host("garble/fp8", {"leading_garbage": {"rate": 0.95}}),
             host("mixer/fp8", {"mix_language": {"rate": 1.0, "with": "es", "level": "both", "ratio": 0.5}}),
             host("switch/fp8", {"language_switch": {"rate": 1.0, "to": "en"}})] + [
        host(f"host{i}/fp8") for i in range(6)]
    shared = [host(f"host{i}/fp8", {"leading_garbage": {"rate": 1.0}} if i < 3 else None) for i in range(9)]
    bad_day = [host(f"host{i}/fp8", None, phases=[{"from_round": 9, "to_round": 48, "faults": {
        "leading_garbage": {"rate": 0.4}}}] if i < 3 else None) for i in range(9)]
    week = [host(f"host{i}/fp8", {**NOISE, **TOOL_NOISE}, ttft_ms=60 + 20 * i, params=TOOL_PARAMS) for i in range(6)]
    tools = [host("leak/fp8", {**NOISE, "tool_markup_leak": {"rate": 0.6, "dialect": "kimi"}}, params=TOOL_PARAMS),
             host("schema/fp8", {"tool_schema_break": {"rate": 0.8}}, params=TOOL_PARAMS),
             host("twice/fp8", {"tool_args_twice": {"rate": 1.0}}, params=TOOL_PARAMS),
             host("prosy/fp8", {"tool_prose": {"rate": 1.0}}, params=TOOL_PARAMS),
             host("notools/fp8", NOISE)] + [
        host(f"peer{i}/fp8", {**NOISE, **TOOL_NOISE}, ttft_ms=60 + 10 * i, params=TOOL_PARAMS) for i in range(6)]
    tasks = [host(f"host{i}/fp8", NOISE, ttft_ms=60 + 20 * i, params=STOP_PARAMS) for i in range(6)] + [
        host("ignores/fp8", {"stop_ignored": {"rate": 1.0}}, params=STOP_PARAMS),
        host("echoes/fp8", {"stop_echoed": {"rate": 1.0}}, params=STOP_PARAMS),
        host("wrong/fp8", {"fidelity_errors": {"rate": 1.0, "share": 0.6}}, params=STOP_PARAMS)]
    # All three optional contracts at once (issue 23's last paragraph): healthy noisy hosts listing
    # tools and stop, each contract's noise on them, and every planted optional defect.
    optional_all = [host(f"host{i}/fp8", {**NOISE, **TOOL_NOISE, **FIDELITY_NOISE}, ttft_ms=60 + 20 * i,
                         params=OPTIONAL_PARAMS) for i in range(6)] + [
        host("leak/fp8", {**NOISE, "tool_markup_leak": {"rate": 0.6, "dialect": "kimi"}}, params=OPTIONAL_PARAMS),
        host("schema/fp8", {"tool_schema_break": {"rate": 0.8}}, params=OPTIONAL_PARAMS),
        host("twice/fp8", {"tool_args_twice": {"rate": 1.0}}, params=OPTIONAL_PARAMS),
        host("prosy/fp8", {"tool_prose": {"rate": 1.0}}, params=OPTIONAL_PARAMS),
        host("ignores/fp8", {"stop_ignored": {"rate": 1.0}}, params=OPTIONAL_PARAMS),
        host("echoes/fp8", {"stop_echoed": {"rate": 1.0}}, params=OPTIONAL_PARAMS),
        host("wrong/fp8", {"fidelity_errors": {"rate": 1.0, "share": 0.6}}, params=OPTIONAL_PARAMS)]
    real = real_shapes_fleet()
    return {
        "planted": Scenario("planted", planted, 6, {t: 1 for t in ("cinder/fp8", "dune/int4", "fjord/fp16",
                                                                  "glacier/fp8", "shy/fp8", "trunc/fp8")}),
        "article": Scenario("article", article, 4, {"seed/fp8": 1}, "1 host garbling 95 % of reply starts, "
                                                                 "14 healthy noisy peers"),
        "three_defects": Scenario("three_defects", three, 4, {t: 1 for t in ("garble/fp8", "mixer/fp8", "switch/fp8")},
                                  "3 different language defects among 9 hosts"),
        "shared": Scenario("shared", shared, 6, {f"host{i}/fp8": 1 for i in range(3)}),
        "bad_probe_day": Scenario("bad_probe_day", bad_day, 48, {}, "rounds 9-48: 3 of 9 hosts' language "
                                                                  "replies start with stray bytes 40 % of the time"),
        "noisy_week": Scenario("noisy_week", week, week_rounds, {}, "tools on, with its noise", optional=("tools",)),
        "tools": Scenario("tools", tools, 6, {t: 1 for t in ("leak/fp8", "schema/fp8", "twice/fp8", "prosy/fp8")},
                          "Kimi markup leaked (60 %), schema broken (80 %), arguments streamed twice, prose where "
                          "the peers call; a host without tools; 6 noisy peers", optional=("tools",)),
        "optional_week": Scenario("optional_week", tasks, week_rounds,
                                  {t: 1 for t in ("ignores/fp8", "echoes/fp8", "wrong/fp8")},
                                  "stop and fidelity on: a stop-ignoring, a stop-echoing and a host answering "
                                  "60 % of the fidelity items wrongly among 6 healthy noisy hosts",
                                  optional=("stop", "fidelity")),
        "optional_all_week": Scenario(
            "optional_all_week", optional_all, week_rounds,
            {t: 1 for t in ("leak/fp8", "schema/fp8", "twice/fp8", "prosy/fp8", "ignores/fp8", "echoes/fp8",
                            "wrong/fp8")},
            "tools, stop and fidelity on: 6 healthy noisy hosts (transport noise, prose 10 %, valid calls "
            "ending `stop` 5 %, fidelity slips) and the 7 planted optional defects",
            optional=("tools", "stop", "fidelity")),
        "real_shapes_week": Scenario(
            "real_shapes_week", real, week_rounds, {t: 1 for t in REAL_SHAPES_PLANTED},
            "every real shape of issue 28 on 11 healthy noisy hosts (tool calls with text and ~56 tokens a call "
            "ending stop, zero price components, cache reads, an answer-only cap, a 2.5 s usage trailer, tool "
            "templates, either throughput order, provider 429s and BYOK 402s, string-only enums), all optional "
            "contracts on, 5 planted defects (one a filter relayed as a provider 403)",
            optional=("tools", "stop", "fidelity")),
    }


# Issue 28's false-suspension budget: the real wire's healthy shapes (docs/openrouter-wire.md §9,
# simulator/scenarios/real-shapes.yaml) on noisy healthy hosts, beside planted defects.
REAL_SHAPES_PLANTED = ("greedy/fp8", "padded/fp8", "overcap/fp8", "stray/fp8", "tundra/fp8")


def real_shapes_fleet() -> list[dict[str, Any]]:
    noisy = {**NOISE, **TOOL_NOISE, **FIDELITY_NOISE}
    thinking = [*OPTIONAL_PARAMS, "reasoning"]

    def priced(h: dict[str, Any], **extra: str) -> dict[str, Any]:
        h["pricing"].update(extra)
        return h

    return [
        priced(host("atlas/fp8", {**noisy, "tool_call_shape": {"tokens_per_call": 58, "finish": "stop"},
                                  "cache_reads": {"share": 0.7}}, params=OPTIONAL_PARAMS),
               input_cache_read="0.00000007"),
        host("bedrock/bf16", {**noisy, "tool_call_shape": {"tokens_per_call": 60}, "usage_delay": {"ms": 2500},
                              "tool_template": {"tokens": 300}}, params=OPTIONAL_PARAMS),
        priced(host("silicon/fp8", {**noisy, "thinking": {"tokens": 2400, "readable": False, "answer_cap": True}},
                    params=thinking, tokens_per_second=6000), internal_reasoning="0", request="0", web_search="0"),
        priced(host("zeta/bf16", {**noisy, "thinking": {"tokens": 300}}, params=thinking, tokens_per_second=6000),
               internal_reasoning="0"),
        host("kimi/int4", {**noisy, "tool_call_shape": {"text": False, "tokens_per_call": 40},
                           "cache_reads": {"share": 0.3}, "usage_delay": {"ms": 500}, "tool_template": {"tokens": 150}},
             params=OPTIONAL_PARAMS),
        {**host("nano/fp8", {**noisy, "tool_call_shape": {"tokens_per_call": 27, "finish": "stop"}},
                params=OPTIONAL_PARAMS), "throughput_order": "descending"},
        host("plain/bf16", noisy, params=OPTIONAL_PARAMS),
        priced(host("glm/fp8", {**noisy, "tool_call_shape": {}, "cache_reads": {"share": 0.5},
                                "usage_delay": {"ms": 300}}, params=OPTIONAL_PARAMS), input_cache_read="0.00000005"),
        host("greedy/fp8", {"overbilling": {"rate": 1.0, "factor": 1.5}}, params=OPTIONAL_PARAMS),
        host("padded/fp8", {"hidden_completion_tokens": {"rate": 1.0, "tokens": 150}}, params=OPTIONAL_PARAMS),
        host("overcap/fp8", {"ignore_max_tokens": {"rate": 1.0, "factor": 20}}, params=OPTIONAL_PARAMS),
        host("stray/fp8", {"leading_garbage": {"rate": 0.95}}, params=OPTIONAL_PARAMS),
        # The wire's relayed errors (simulator/scenarios/real-shapes.yaml's last four hosts): a
        # provider's own 429s without Retry-After and a BYOK key's 402 naming the provider are that
        # host's transport errors; Gemini-style string-only enums; a filter relayed as xAI's 403.
        host("quill/fp8", {**noisy, "http_error": {"rate": 0.1, "status": 429, "retry_after": None}},
             params=OPTIONAL_PARAMS),
        host("ridge/bf16", {**noisy, "http_error": {"rate": 0.1, "status": 402, "body": "provider"}},
             params=OPTIONAL_PARAMS),
        {**host("spruce/fp8", noisy, params=OPTIONAL_PARAMS), "tool_enums": "strings"},
        host("tundra/fp8", {"relayed_refusal": {"rate": 1.0, "shape": "permission_denied",
                                                "only_when": ["smuggler queen Veyra"]}}, params=OPTIONAL_PARAMS),
    ]


@dataclass
class Played:
    """What a scenario's rounds left: the results documents, the decisions, the requests."""

    docs: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)   # (round, decision)
    requests: list[float] = field(default_factory=list)                         # per provider per round
    wall_s: float = 0.0


def play(s: Scenario, tmp: Path, seed: int, echo: Callable[[str], None]) -> Played:
    scenario_file = write_yaml(tmp / f"{s.name}.yaml", scenario(s.name, s.endpoints, keepalive_ms=100))
    config = canary_config(tmp / f"{s.name}-canary.yaml", probe=PROBE, optional_contracts=s.optional)
    files = JudgeFiles(tmp / f"{s.name}-judge")
    out = Played()
    start = time.monotonic()
    with Simulator(scenario_file, seed=seed) as sim:
        for n in range(1, s.rounds + 1):
            sim.set_round(n)
            stamp = times.stamp(T0 + timedelta(minutes=30 * n))
            done = run_probe(sim.base_url, config, tmp / f"{s.name}-reports", state=files.state,
                             extra=[f"--canary-virtual-time={stamp}"])
            results = done.results
            if not results.get("complete"):
                raise SystemExit(f"{s.name} round {n} incomplete: {results.get('incomplete_reason')}\n"
                                 f"{done.output[-2000:]}")
            decided = run_judge(done.reports / "results.json", config, files, now=stamp,
                                decisions=tmp / f"{s.name}-decisions.json", mode=OBSERVE)
            out.docs.append(results)
            out.decisions += [(n, d) for d in decided["decisions"]]
            out.requests += [u["requests"] for u in results["usage"].get(MODEL, {}).values()]
            if n % 24 == 0 or n == s.rounds:
                echo(f"  {s.name}: round {n}/{s.rounds}, {time.monotonic() - start:.0f} s")
    out.wall_s = time.monotonic() - start
    return out


# -- the candidate opt-in rule, replayed on the same rounds through the pure rules ------------

def replay(
    docs: list[dict[str, Any]], *, hold_weak: bool, reliability: bool = False
) -> list[tuple[int, str, str, bool]]:
    """(round, provider, action, weak) of the opening decisions; with hold_weak, a would-suspend on
    weak evidence is held instead (the host stays a candidate: its next failed round is weighed
    again, with the evidence the suspension would otherwise have hidden); with reliability, the
    opt-in rules.reliability is on (issue 22: judge/suspension/reliability.py)."""
    state, policy, out = JudgeState(), replace(Policy(), reliability=reliability), []
    for n, doc in enumerate(docs, 1):
        now = times.parse_time(doc["started_at"], "started_at")
        before = state
        state, decisions = apply_round(state, read_results(doc), replace(policy, mode=OBSERVE), now=now)
        for d in decisions:
            if d.action.value not in OPENING:
                continue
            if hold_weak and d.action is Action.WOULD_SUSPEND and d.weak_evidence:
                ps = state.provider(d.model, d.provider)
                old = before.provider(d.model, d.provider)
                state = state.with_provider(d.model, d.provider, replace(
                    ps, suspension=old.suspension, ladder=old.ladder, failed_streak=policy.failed_rounds_to_suspend))
                out.append((n, d.provider, "held_weak", True))
                continue
            out.append((n, d.provider, d.action.value, d.weak_evidence))
    return out


# -- the report -------------------------------------------------------------------------------

def summarise(s: Scenario, played: Played, echo: Callable[[str], None]) -> dict[str, Any]:
    opened = [(n, d) for n, d in played.decisions if d["action"] in OPENING]
    echo(f"\n== ({s.name}) {len(played.docs)} rounds x {len(s.endpoints)} endpoints, {played.wall_s:.0f} s"
         + (f"; {s.note}" if s.note else ""))
    first: dict[str, int] = {}
    for n, d in opened:
        first.setdefault(d["provider"], n)
        flag = "  WEAK EVIDENCE" if d.get("weak_evidence") else ""
        echo(f"  round {n:>3}  {d['action']:<13} {d['provider']:<14}{flag}")
        for card in d.get("card", []):
            echo(f"             {card['text']}")
    false = sorted({d["provider"] for _, d in opened} - set(s.planted))
    replies = [_counted(d) for n, d in opened if d["provider"] in s.planted and first[d["provider"]] == n]
    delays = {p: (first[p] - start + 1 if p in first else None) for p, start in sorted(s.planted.items())}
    weak = Counter("planted" if d["provider"] in s.planted else "false" for _, d in opened if d.get("weak_evidence"))
    req = played.requests
    echo("  detection delay (rounds, 2 = the second failed round): "
         + (", ".join(f"{p} {v if v is not None else 'MISSED'}" for p, v in delays.items()) or "no planted defect"))
    echo(f"  false suspensions (would-suspend of a host without a planted defect): {len(false)} {false or ''}")
    echo(f"  decisions on weak evidence: {weak['planted']} of planted hosts, {weak['false']} of the others")
    echo(f"  requests per provider per round: mean {sum(req) / len(req):.2f}, max {max(req):g}")
    checks = reply_check_failures(played.docs)
    echo(f"  reply checks (issue 22) failing an attempt: {sum(checks.values())} {dict(checks) or ''}")
    held = replay(played.docs, hold_weak=True)
    held_false = sorted({p for _, p, a, _ in held if a in OPENING} - set(s.planted))
    held_first: dict[str, int] = {}
    for n, p, a, _ in held:
        if a in OPENING:
            held_first.setdefault(p, n)
    missed = [p for p in s.planted if p not in held_first]
    delayed = [p for p in s.planted if p in held_first and p in first and held_first[p] > first[p]]
    echo(f"  candidate rule 'hold on weak evidence' (replayed): false suspensions {len(held_false)} "
         f"(was {len(false)}), planted missed {len(missed)} {missed or ''}, delayed {len(delayed)} {delayed or ''}")
    decode = decode_failures(played.docs)
    echo(f"  decode speed (issue 22) failing a latency case in the judge: {sum(decode.values())} {dict(decode) or ''}")
    strict = [(n, p) for n, p, a, _ in replay(played.docs, hold_weak=False, reliability=True) if a in OPENING]
    extra = sorted({p for _, p in strict} - {p for _, d in opened for p in [d["provider"]]})
    echo(f"  opt-in rules.reliability (replayed): would-suspends {len(strict)} (was {len(opened)}), "
         f"hosts it adds {extra or 'none'}")
    if replies:
        echo(f"  replies counted on a planted host's first opening (its most significant card): min {min(replies)}")
    return {"scenario": s.name, "rounds": len(played.docs), "endpoints": len(s.endpoints), "opened": len(opened),
            "replies_min": min(replies, default=0),
            "false": len(false), "weak_planted": weak["planted"], "weak_false": weak["false"],
            "missed": sum(v is None for v in delays.values()),
            "delay_max": max((v for v in delays.values() if v is not None), default=0),
            "req_mean": round(sum(req) / len(req), 3), "req_max": max(req),
            "hold_weak_false": len(held_false), "hold_weak_missed": len(missed), "hold_weak_delayed": len(delayed),
            "reply_check_fails": sum(checks.values()), "decode_fails": sum(decode.values()),
            "reliability_added": len(extra)}


def reply_check_failures(docs: list[dict[str, Any]]) -> Counter[str]:
    """Attempts failed by a reply check (stream integrity, limits, billing), by code, over every
    round; plus the cases the judge's hidden-prompt rule fails (`hidden_prompt`) and the completed
    streams without usage (`stream_usage_missing`, evidence only: never a failure)."""
    out: Counter[str] = Counter()
    for doc in docs:
        cases = read_results(doc).cases
        out.update(a.code for c in cases for a in c.attempts if a.code in REPLY_CHECK_CODES)
        for model in {c.model for c in cases}:
            judged = judge_prompt_tokens([c for c in cases if c.model == model])
            out[PromptCode.HIDDEN_PROMPT.value] += sum(c.code == PromptCode.HIDDEN_PROMPT for c in judged)
        out["stream_usage_missing"] += sum(a.usage_reported is False for c in cases for a in c.attempts)
    return +out


def decode_failures(docs: list[dict[str, Any]]) -> Counter[str]:
    """Latency cases the judge's decode-speed rule failed (judge/suspension/decode_speed.py), by provider."""
    out: Counter[str] = Counter()
    for doc in docs:
        report = read_results(doc)
        for model in report.models:
            cases = [c for c in report.cases if c.model == model]
            out.update(c.provider for c in judge_decode_speed(cases)
                       if c.outcome == Outcome.FAIL and c.code == DecodeCode.DECODE_SLOW)
    return out


def _counted(decision: dict[str, Any]) -> int:
    """The judged replies on the decision's most significant card."""
    cards = [c for c in decision.get("card", []) if c.get("p_value") is not None]
    return min(cards, key=lambda c: c["p_value"])["attempts"] if cards else 0


# -- the demo: `./dev round` twice from a fresh clone -------------------------------------------

DEMO_OWN_DEFECTS = ("cinder/fp8", "dune/int4", "fjord/fp16", "glacier/fp8")


def demo(tmp: Path, echo: Callable[[str], None]) -> dict[str, Any]:
    """`canary round` twice on the bundled simulator (the default scenario), fresh scratch state."""
    reports = tmp / "demo-reports"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL",
                                                             "CANARY_CONFIG")}
    start = time.monotonic()
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-m", "canary", "round", "--reports", str(reports), "--no-report"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
        if not (reports / "decisions.json").exists():
            raise SystemExit(f"demo round failed ({proc.returncode}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    decided = json.loads((reports / "decisions.json").read_text(encoding="utf-8"))
    opened = [d for d in decided["decisions"] if d["action"] in OPENING]
    echo(f"\n== (demo) `canary round` twice on the bundled simulator, {time.monotonic() - start:.0f} s")
    for d in opened:
        flag = "  WEAK EVIDENCE" if d.get("weak_evidence") else ""
        echo(f"  round   2  {d['action']:<13} {d['provider']:<14}{flag}")
        for card in d.get("card", []):
            echo(f"             {card['text']}")
    weak_own = sorted(d["provider"] for d in opened if d.get("weak_evidence") and d["provider"] in DEMO_OWN_DEFECTS)
    caught = sorted({d["provider"] for d in opened} & set(DEMO_OWN_DEFECTS))
    echo(f"  hosts whose defect is their own, would-suspended: {len(caught)} of {len(DEMO_OWN_DEFECTS)}; "
         f"on WEAK EVIDENCE: {len(weak_own)} {weak_own or ''}")
    return {"scenario": "demo", "rounds": 2, "opened": len(opened), "own_caught": len(caught),
            "weak_own": len(weak_own), "weak_all": sum(bool(d.get("weak_evidence")) for d in opened)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="demo,planted,article,three_defects,shared,bad_probe_day,noisy_week,tools,"
                                          "optional_week,optional_all_week,real_shapes_week")
    parser.add_argument("--week-rounds", type=int, default=336)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the rounds here (default: a temporary folder, removed at the end): the judge's "
                             "files, and every round's results.json in <scenario>-rounds.jsonl to read a case's reason")
    args = parser.parse_args()
    chosen = scenarios(args.week_rounds)
    lines = []
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    with (contextlib.nullcontext(str(args.keep)) if args.keep is not None
          else tempfile.TemporaryDirectory(prefix="canary-fleet-")) as tmp:
        for name in args.only.split(","):
            if name == "demo":
                lines.append(bench_line("fleet_evidence", **demo(Path(tmp), lambda m: print(m, flush=True))))
                continue
            s = chosen[name]
            played = play(s, Path(tmp), args.seed, lambda m: print(m, flush=True))
            if args.keep is not None:  # every round's results.json, one a line: the reports folder holds the last
                (args.keep / f"{name}-rounds.jsonl").write_text(
                    "".join(json.dumps(doc, sort_keys=True) + "\n" for doc in played.docs), encoding="utf-8")
            lines.append(bench_line("fleet_evidence", **summarise(s, played, lambda m: print(m, flush=True))))
    print()
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()

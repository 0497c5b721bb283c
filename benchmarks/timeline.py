"""Timelines end to end: weeks of rounds through the real commands, printed as a readable story.

    .venv/bin/python benchmarks/timeline.py [--per-day 4]

The story (two models; times from T0, one key round each):
- model A has four hosts: `bad/fp8` (stray bytes before its replies whenever the story says it
  is degraded), `flaky/fp8` (healthy but noisy: ~20% transport errors, some too-short
  replies), `ok1/fp8`, `ok2/fp8`;
- model B has only two hosts, and `pair-bad/fp8` degrades: the capacity floor must hold it.

    round  when        bad/fp8   expected
    1      +30m        fails     (first failed round; pair-bad fails too)
    2      +1h         fails     suspend, rung 1, 1 day     | pair-bad: floor_held
    3-4    +1h30,+2h   clean     restore after 2 clean rounds (early: the day is not over)
    5-6    +2d,+2d30m  fails     suspend, rung 2, 3 days (it was suspended 2 days ago)
    7-8    +4d23h30m,+5d fails   (still suspended; failed rounds build the next rung's evidence)
    9      +5d1h       fails     expired, then re-suspended at once: rung 3, 7 days
    10-11  +12d2h...   clean     expired; clean
    12-13  +19d2h...   fails     suspend, rung 1 again: 14 days passed since the last suspension began
    flaky/fp8 is never suspended; pair-bad/fp8 is never suspended (floor held instead).

Every round is `pytest probes` (reading the judge's language plan) against one long-lived
simulator subprocess whose round number selects each host's phase (/_sim/control), then
`canary judge RESULTS --now <T0 + offset> --mode enforce` with its own state, audit and
exclusion files. Each round runs on the simulator's virtual clock (`--canary-virtual-time
<T0 + offset>`), so its started_at is its place in the story: the judge's time rules (a streak
lapses after rules.pending_failure_hours, a round sooner than rules.min_round_gap_minutes after
the last counted one is not counted) see the story's schedule, not the seconds between runs.
Rounds need not be contiguous, but the two rounds of a streak are half an hour apart, as in
production (a suspended host is probed every half hour, so the failed rounds that re-suspend it
at expiry are the last ones before it). With --per-day N the
long version adds N quiet rounds a day in the two quiet stretches (after the restore, and the
14 days after the 7-day suspension), so the flaky host runs many more rounds.

tests/proof/test_timeline.py plays the key rounds (--per-day 0) and asserts each expectation.
Last line: `BENCH timeline rounds=… suspensions=… restores=… floor_held=… flaky_suspended=0 ok=1`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import (
    MODEL,
    JudgeFiles,
    Simulator,
    bench_line,
    canary_config,
    endpoint,
    read_state,
    run_judge,
    run_probe,
    write_yaml,
)

from core import times

MODEL_B = "example/pair-model"
T0 = datetime(2026, 12, 1, 0, 0, tzinfo=UTC)
BAD, FLAKY, PAIR_BAD = "bad/fp8", "flaky/fp8", "pair-bad/fp8"
DEGRADED = {"leading_garbage": {"rate": 1.0}}
FLAKY_NOISE = {"http_error": {"rate": 0.12, "status": [429, 502]}, "mid_stream_error": {"rate": 0.04},
               "truncated_stream": {"rate": 0.04}, "short_reply": {"rate": 0.25}}


@dataclass(frozen=True)
class Key:
    """One key round of the story: when, whether the bad hosts are degraded, what must follow."""

    offset: timedelta
    degraded: bool
    expect: tuple[tuple[str, str, int | None], ...] = ()  # (action, provider, rung)
    note: str = ""
    quiet_after: bool = False  # the long version adds quiet (clean) rounds after this one


def h(hours: float, days: float = 0) -> timedelta:
    return timedelta(days=days, hours=hours)


STORY: tuple[Key, ...] = (
    Key(h(0.5), True, note="first failed round"),
    Key(h(1), True, (("suspend", BAD, 1), ("floor_held", PAIR_BAD, None)), "second failed round: 1 day"),
    Key(h(1.5), False, note="clean while suspended"),
    Key(h(2), False, (("restore", BAD, 1),), "second clean round: restored early", quiet_after=True),
    Key(h(0, 2), True, note="degrades again"),
    Key(h(0.5, 2), True, (("suspend", BAD, 2),), "second rung: 3 days"),
    Key(h(23.5, 4), True, note="still failing while suspended"),
    Key(h(0, 5), True, note="still failing while suspended"),
    Key(h(1, 5), True, (("expired", BAD, 2), ("suspend", BAD, 3)), "expired and re-suspended at once: 7 days"),
    Key(h(2, 12), False, (("expired", BAD, 3),), "the 7 days are over; clean"),
    Key(h(2.5, 12), False, note="clean", quiet_after=True),
    Key(h(2, 19), True, note="14 quiet days later, degrades again"),
    Key(h(2.5, 19), True, (("suspend", BAD, 1),), "the history faded: back on the first rung, 1 day"),
)


@dataclass(frozen=True)
class TimelineRound:
    number: int
    offset: timedelta
    degraded: bool
    key: Key | None


def rounds(per_day: int) -> list[TimelineRound]:
    out: list[TimelineRound] = []
    for i, key in enumerate(STORY):
        out.append(TimelineRound(len(out) + 1, key.offset, key.degraded, key))
        if key.quiet_after and per_day and i + 1 < len(STORY):
            step = timedelta(days=1) / per_day
            t = key.offset + step
            while t < STORY[i + 1].offset - timedelta(minutes=30):
                out.append(TimelineRound(len(out) + 1, t, False, None))
                t += step
    return out


def story_scenario(plan: list[TimelineRound]) -> dict[str, Any]:
    degraded_rounds = [r.number for r in plan if r.degraded]
    phases = [{"from_round": n, "to_round": n, "faults": DEGRADED} for n in degraded_rounds]
    a = [endpoint(BAD, phases=phases), endpoint(FLAKY, faults=FLAKY_NOISE), endpoint("ok1/fp8"), endpoint("ok2/fp8")]
    b = [endpoint(PAIR_BAD, phases=phases), endpoint("pair-ok/fp8")]
    return {"name": "timeline", "description": "benchmarks/timeline.py", "keepalive_ms": 100, "models": [
        {"id": MODEL, "name": "Model A", "permaslug": MODEL, "endpoints": a},
        {"id": MODEL_B, "name": "Model B", "permaslug": MODEL_B, "endpoints": b},
    ]}


@dataclass
class Step:
    round: TimelineRound
    now: datetime
    decisions: list[dict[str, Any]]
    suspended: dict[str, tuple[int, str]]   # provider -> (rung, until) after the round
    outcomes: dict[str, str]                # provider -> compact outcomes of its cases
    probe_s: float


def play(tmp: Path, per_day: int = 0, echo: Any = None) -> list[Step]:
    plan = rounds(per_day)
    scenario_file = write_yaml(tmp / "timeline.yaml", story_scenario(plan))
    config = canary_config(tmp / "canary.yaml", mode="enforce")
    config.write_text(config.read_text(encoding="utf-8").replace(f"models:\n- {MODEL}\n",
                                                                 f"models:\n- {MODEL}\n- {MODEL_B}\n"))
    files = JudgeFiles(tmp / "judge")
    steps = []
    with Simulator(scenario_file, seed=3) as sim:
        for r in plan:
            sim.set_round(r.number)
            now = T0 + r.offset
            stamp = times.stamp(now)
            done = run_probe(sim.base_url, config, tmp / "reports", state=files.state,
                             extra=[f"--canary-virtual-time={stamp}"])
            results = done.results
            if not results.get("complete"):
                raise RuntimeError(f"round {r.number} incomplete: {results.get('incomplete_reason')}\n"
                                   f"{done.output[-2000:]}")
            doc = run_judge(done.reports / "results.json", config, files, now=stamp,
                            decisions=tmp / "decisions.json", mode="enforce")
            step = Step(r, now, doc["decisions"], _suspended(read_state(files), now), _outcomes(results), done.wall_s)
            steps.append(step)
            if echo is not None:
                echo(render_step(step))
    return steps


def _suspended(state: dict[str, Any], now: datetime) -> dict[str, tuple[int, str]]:
    out = {}
    for providers in state.get("models", {}).values():
        for provider, ps in providers.items():
            s = ps.get("suspension")
            if s and s.get("until", "") > times.stamp(now):
                out[provider] = (s.get("rung"), s.get("until"))
    return out


SHORT = {"pass": ".", "fail": "F", "inconclusive": "?", "transport_error": "T", "not_applicable": "-"}


def _outcomes(results: dict[str, Any]) -> dict[str, str]:
    order = ("latency", "refusal", "structured", "language")
    by: dict[str, dict[str, str]] = {}
    for c in results["cases"]:
        by.setdefault(c["provider"], {})[c["contract"]] = SHORT.get(c["outcome"], "!")
    return {p: "".join(v.get(k, " ") for k in order) for p, v in sorted(by.items())}


def render_step(step: Step) -> str:
    r = step.round
    when = f"+{r.offset.days}d{r.offset.seconds // 3600:02d}h{r.offset.seconds % 3600 // 60:02d}"
    cells = " ".join(f"{p.split('/')[0]}:{o}" for p, o in step.outcomes.items())
    acts = "; ".join(f"{d['action']} {d['provider']}" + (f" rung {d['rung']}" if d.get("rung") else "")
                     + (f" until {d['until']}" if d.get("until") and d["action"] == "suspend" else "")
                     for d in step.decisions if d["provider"] != "*")
    note = f"  [{r.key.note}]" if r.key and r.key.note else ""
    return f"{r.number:>3} {when:<10} {step.now:%Y-%m-%d %H:%M}  {cells}  -> {acts or '-'}{note}"


def check(steps: list[Step]) -> list[str]:
    """Every expectation of the story, as a list of violations (empty: the story held)."""
    problems = []
    for step in steps:
        got = {(d["action"], d["provider"], d.get("rung")) for d in step.decisions}
        wanted = set(step.round.key.expect) if step.round.key else set()
        for action, provider, rung in wanted:
            if not any(a == action and p == provider and (rung is None or g == rung) for a, p, g in got):
                problems.append(f"round {step.round.number}: expected {action} {provider} rung {rung}, "
                                f"got {sorted(got)}")
        important = {(a, p) for a, p, _ in got if a in ("suspend", "restore", "floor_held", "expired")}
        # pair-bad keeps failing: the floor is held again in every later degraded round.
        unexpected = important - {(a, p) for a, p, _ in wanted} - {("floor_held", PAIR_BAD)}
        if unexpected:
            problems.append(f"round {step.round.number}: unexpected {sorted(unexpected)}")
        if FLAKY in step.suspended or PAIR_BAD in step.suspended:
            problems.append(f"round {step.round.number}: a host that must never be suspended is: {step.suspended}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-day", type=int, default=4, help="quiet rounds a day in the quiet stretches (default 4)")
    args = parser.parse_args()
    start = time.monotonic()
    print("cases per host: latency refusal structured language; . pass  F fail  ? inconclusive  T transport error")
    with tempfile.TemporaryDirectory(prefix="canary-timeline-") as tmp:
        steps = play(Path(tmp), args.per_day, echo=lambda s: print(s, flush=True))
    problems = check(steps)
    flaky = [o for s in steps for p, o in s.outcomes.items() if p == FLAKY]
    print()
    print(f"{len(steps)} rounds over {steps[-1].round.offset.days} days in {time.monotonic() - start:.0f} s; "
          f"flaky/fp8: {sum(o.count('T') for o in flaky)} transport errors, {sum(o.count('?') for o in flaky)} "
          f"inconclusive, never suspended: {all(FLAKY not in s.suspended for s in steps)}")
    for p in problems:
        print("PROBLEM:", p)
    print("the story held" if not problems else "THE STORY DID NOT HOLD")
    actions = [d["action"] for s in steps for d in s.decisions]
    print(bench_line("timeline", rounds=len(steps), days=steps[-1].round.offset.days,
                     suspensions=actions.count("suspend"), restores=actions.count("restore"),
                     floor_held=actions.count("floor_held"),
                     flaky_suspended=sum(FLAKY in s.suspended for s in steps), ok=int(not problems)))


if __name__ == "__main__":
    main()

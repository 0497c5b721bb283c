"""Production evidence (issue 39, judge/suspension/production.py) on simulated records.

    .venv/bin/python benchmarks/production_evidence.py [--only significance,drift,one_user,week,speed] [--seeds 3]

Records are simulated, not HTTP: a product serving one model from 9 endpoints, 100,000 replies a
day spread evenly over them (a request's endpoint drawn at random), conversations of 6 replies a
half hour, a conversation sampled whole with probability 5 % and at most 3 of its replies checked
per window (the library's cap), each conversation's expected language drawn from 17 (English half
of them), every reply streamed. A window's counts become a record as the library writes it: cells
of fewer than MIN_CELL replies merge into the model's remainder (provider unknown), then without
their stratum, and what is still that small is left out (core/production.py); `--min-cell 1`
keeps every cell, to show what the merge costs.

- significance: one host garbles (encoding) 2 % of its long-prompt replies, the 8 others 1 in
  20,000 of all replies; rounds (every 30 minutes, each weighing the last day of records) until the
  host is flagged, for a long-prompt share of 30 % and 100 %, 17 languages or one, cells merged or kept;
- drift: every host answers 8 % of its Japanese and Korean conversations in another language
  (the model, not a host; healthy replies fail the language check 1 in 500): endpoint-rounds
  flagged in a week, with the model-wide guard and without it, sampled at 5 % and 25 %;
- one_user: one heavy user starting 40 conversations a day, each 4 half hours long, every reply
  failing the language check: endpoint-rounds flagged in a week, each request routed anew or each
  conversation staying on one endpoint (as prompt caching keeps it), with the library's cap of 3
  checked replies per conversation per window, per day, or none;
- week: 336 rounds through the real rules (apply_round, observe mode) with rules.production off,
  observe, then enforce: the garbling host of `significance`, flagged most rounds (one language,
  every prompt long, sampled at 25 %, cells kept), synthetic probe rounds where every case fails
  0.2 % of the time by chance and the garbling host's probes pass like the others' (it garbles only
  long prompts, which no probe sends); confirmations scheduled, confirmed, and suspensions (real
  or would-be);
- speed: `canary judge`'s function (run_judge) on the same 20 rounds with a day of records and
  without, interleaved in one process: median milliseconds and their ratio.

Machine-parsable last lines: `BENCH production_evidence ...` (bench_line).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import bench_line  # noqa: E402

from canary.round.judging import JudgeRequest, run_judge  # noqa: E402
from core.config import load_config  # noqa: E402
from core.policy import OBSERVE, GuardRules, Policy  # noqa: E402
from core.production import (  # noqa: E402
    MIN_CELL,
    SCHEMA,
    CheckOutcome,
    CountCell,
    ProductionCheck,
    ProductionRecord,
    ServedCell,
)
from core.results import read_results  # noqa: E402
from core.store import atomic_write_json  # noqa: E402
from core.times import stamp  # noqa: E402
from core.vocabulary import LANGUAGES  # noqa: E402
from judge.suspension.decisions import Action  # noqa: E402
from judge.suspension.production import weigh  # noqa: E402
from judge.suspension.rules import apply_round  # noqa: E402
from judge.suspension.state import JudgeState  # noqa: E402

MODEL = "acme/roleplay-model"
BAD = "garble/fp8"
TAGS = (BAD, *(f"host{i}/fp8" for i in range(8)))
NAMES = {MODEL: {t: t.split("/")[0].capitalize() for t in TAGS}}
WINDOW = timedelta(minutes=30)
T0 = datetime(2026, 12, 7, tzinfo=UTC)
DAY_REPLIES, SAMPLE, PER_WINDOW, CAP = 100_000, 0.05, 6, 3
HEALTHY_ENCODING = 1 / 20_000
HEALTHY_LANGUAGE = 1 / 500   # the language check's false failures on healthy replies
USER_CONVERSATIONS, LIFE = 40, 4   # one heavy user: conversations a day, half hours each
CONTRACTS = ("latency", "refusal", "structured", "language")
CASE_NOISE = 0.002   # a healthy case failing by chance


def languages(one: bool) -> tuple[list[str], list[float]]:
    if one:
        return ["en"], [1.0]
    others = [lang for lang in LANGUAGES if lang != "en"]
    return ["en", *others], [0.5, *([0.5 / len(others)] * len(others))]


def conversations(rng: random.Random, n: int, langs: tuple[list[str], list[float]],
                  sample: float) -> list[tuple[str, str]]:
    """The sampled conversations of a window: (language, endpoint it would stick to)."""
    sampled = sum(rng.random() < sample for _ in range(n))
    return [(rng.choices(*langs)[0], rng.choice(TAGS)) for _ in range(sampled)]


def record(end: datetime, cells: Counter[tuple[str, ProductionCheck, bool, str | None]], min_cell: int,
           served: Counter[str], sample: float) -> ProductionRecord:
    """One window as the library writes it: small cells merged into the remainder, then unstratified."""
    kept: Counter[tuple[str | None, ProductionCheck, bool, str | None]] = Counter()
    small: Counter[tuple[str | None, ProductionCheck, bool, str | None]] = Counter()
    for (name, check, failed, lang), n in cells.items():
        (kept if n >= min_cell else small)[(name, check, failed, lang)] += n
    merged: Counter[tuple[str | None, ProductionCheck, bool, str | None]] = Counter()
    for (_, check, failed, lang), n in small.items():
        merged[(None, check, failed, lang)] += n
    for key, n in merged.items():
        if n >= min_cell:
            kept[key] += n
        else:
            kept[(None, key[1], key[2], None)] += n
    counts = tuple(CountCell(model=MODEL, provider=name, check=check, n=n, language=lang, stream=True,
                             outcome=CheckOutcome.FAIL if failed else CheckOutcome.PASS)
                   for (name, check, failed, lang), n in sorted(kept.items(), key=repr) if n >= min_cell)
    return ProductionRecord(schema=SCHEMA, exporter="chat-1", window_start=end - WINDOW, window_end=end,
                            sample_rate=sample, counts=counts,
                            served=tuple(ServedCell(model=MODEL, provider=name, n=n)
                                         for name, n in sorted(served.items()) if n >= min_cell))


Reply = Callable[[random.Random, str, str], tuple[ProductionCheck, bool]]   # rng, endpoint, language -> its cell
# A window's user conversations: (the endpoint it stays on, None: each request routed anew; replies checked).
User = Callable[[int], list[tuple[str | None, int]]]


def windows(rng: random.Random, count: int, reply: Reply, *, langs: tuple[list[str], list[float]], min_cell: int,
            sample: float = SAMPLE, user: User | None = None) -> list[ProductionRecord]:
    """`count` windows of records; `reply` draws one checked reply's (check, failed); `user`'s replies
    (English, every one failing the language check) are added."""
    per_window = DAY_REPLIES // 48 // PER_WINDOW
    out = []
    for w in range(1, count + 1):
        cells: Counter[tuple[str, ProductionCheck, bool, str | None]] = Counter()
        served: Counter[str] = Counter()
        for lang, _ in conversations(rng, per_window, langs, sample):
            for _ in range(min(PER_WINDOW, CAP)):
                host = rng.choice(TAGS)
                check, failed = reply(rng, host, lang)
                cells[(NAMES[MODEL][host], check, failed, lang)] += 1
                served[NAMES[MODEL][host]] += 1
        for stays, replies in user(w) if user else []:
            for _ in range(replies):
                name = NAMES[MODEL][stays or rng.choice(TAGS)]
                cells[(name, ProductionCheck.LANGUAGE, True, "en")] += 1
                served[name] += 1
        out.append(record(T0 + w * WINDOW, cells, min_cell, served, sample))
    return out


def flagged_rounds(records: Sequence[ProductionRecord], guard: GuardRules | None = None) -> list[tuple[int, set[str]]]:
    """Per round (one per window, from the 48th window on: a full day of records), the flagged endpoints."""
    out = []
    for n in range(48, len(records) + 1):
        seen = weigh(records[max(0, n - 48):n], NAMES, guard or Policy().model_wide_guard,
                     now=records[n - 1].window_end)
        out.append((n, {c.provider for c in seen.cards if c.flagged}))
    return out


def garbling(long_share: float) -> Reply:
    def reply(rng: random.Random, tag: str, lang: str) -> tuple[ProductionCheck, bool]:
        rate = HEALTHY_ENCODING + (0.02 * long_share if tag == BAD else 0.0)
        return ProductionCheck.ENCODING, rng.random() < rate
    return reply


def significance(seeds: int, sample: float) -> dict[str, Any]:
    print(f"sampled at {sample:.0%}: the round (half hours of records, from 48: the first full day) at which the "
          "garbling host is first flagged; never: not within the week after the first day")
    print(f"{'long prompts':>12} {'languages':>9} {'cells':>6}  per seed")
    figures = {}
    for long_share in (0.3, 1.0):
        for one in (False, True):
            for min_cell in (MIN_CELL, 1):
                firsts = []
                for seed in range(seeds):
                    rng = random.Random(seed)
                    records = windows(rng, 48 + 336, garbling(long_share), langs=languages(one), min_cell=min_cell,
                                      sample=sample)
                    rounds = flagged_rounds(records)
                    firsts.append(next((n for n, flagged in rounds if BAD in flagged), None))
                    assert all(flagged <= {BAD} for _, flagged in rounds), "a healthy host flagged"
                cells = "kept" if min_cell == 1 else "merged"
                print(f"{long_share:>12.0%} {'1' if one else '17':>9} {cells:>6}  "
                      + ", ".join("never" if f is None else str(f) for f in firsts), flush=True)
                # The slowest seed's round (-1: some seed never flagged it within the week).
                key = f"sample{round(sample * 100)}_long{round(long_share * 100)}_{'one' if one else 'all'}_{cells}"
                figures[key] = -1 if None in firsts else max(f for f in firsts if f is not None)
    return figures


def drift(seeds: int, sample: float, guarded: bool) -> int:
    """Endpoint-rounds flagged in a week when every host answers 8 % of its ja/ko conversations in another language."""
    def reply(rng: random.Random, tag: str, lang: str) -> tuple[ProductionCheck, bool]:
        return ProductionCheck.LANGUAGE, rng.random() < (0.08 if lang in ("ja", "ko") else HEALTHY_LANGUAGE)
    guard = replace(Policy().model_wide_guard, enabled=guarded)
    return sum(len(f) for seed in range(seeds) for _, f in flagged_rounds(
        windows(random.Random(seed), 48 + 336, reply, langs=languages(False), min_cell=1, sample=sample), guard))


def one_user(seeds: int, *, sticky: bool, cap: str) -> tuple[int, int]:
    """Endpoint-rounds flagged in a week, and sampled conversations, for one user who starts USER_CONVERSATIONS a day,
    each LIFE windows long, every reply failing the language check; `cap`: per window (the library's), per day, none."""
    def reply(rng: random.Random, tag: str, lang: str) -> tuple[ProductionCheck, bool]:
        return ProductionCheck.LANGUAGE, rng.random() < HEALTHY_LANGUAGE
    flagged = sampled = 0
    for seed in range(seeds):
        rng = random.Random(seed)
        starts = [(rng.randrange(1, 48 + 336), rng.choice(TAGS)) for _ in range(USER_CONVERSATIONS * 8)]
        mine = [(start, tag) for start, tag in starts if rng.random() < SAMPLE]   # sampled by conversation id
        sampled += len(mine)
        per = {"window": [CAP] * LIFE, "day": [CAP] + [0] * (LIFE - 1), "none": [PER_WINDOW] * LIFE}[cap]

        def user(w: int, mine: list[tuple[int, str]] = mine, per: list[int] = per) -> list[tuple[str | None, int]]:
            return [(tag if sticky else None, per[w - start]) for start, tag in mine if 0 <= w - start < LIFE]
        records = windows(rng, 48 + 336, reply, langs=languages(False), min_cell=1, user=user)
        flagged += sum(len(f) for _, f in flagged_rounds(records))
    return flagged, sampled


def probe_round(n: int, rng: random.Random, confirm: dict[str, tuple[str, ...]] | None = None,
                runs: random.Random | None = None) -> dict[str, Any]:
    """A round's results.json: each case fails by chance (CASE_NOISE), the garbling host's too (no probe
    sends a long prompt); a confirmation's two more runs are drawn from `runs`."""
    at = T0 + n * WINDOW
    cases = []
    for tag in TAGS:
        for contract in CONTRACTS:
            outcome = "fail" if rng.random() < CASE_NOISE else "pass"
            case = {"model": MODEL, "provider": tag, "contract": contract, "outcome": outcome, "code": outcome,
                    "reason": outcome, **({"language": "pt"} if contract == "language" else {})}
            if runs is not None and contract in (confirm or {}).get(tag, ()):
                more = ["fail" if runs.random() < CASE_NOISE else "pass" for _ in range(2)]
                case["confirmation"] = "fail" if [outcome, *more].count("fail") >= 2 else "pass"
            cases.append(case)
    return {"schema_version": 2, "round_id": f"r-{at:%Y%m%dT%H%M%S}", "started_at": stamp(at), "complete": True,
            "models": {MODEL: {"providers": list(TAGS), "names": NAMES[MODEL]}}, "cases": cases}


def week(step: str | bool, seed: int) -> Counter[str]:
    """A week through the real rules (observe mode) with rules.production at `step`: the garbling host flagged
    most rounds (one language, sampled at 25 %, cells kept); what was confirmed and suspended."""
    records = windows(random.Random(seed), 48 + 336, garbling(1.0), langs=languages(True), min_cell=1, sample=0.25)
    probes, runs = random.Random(10_000 + seed), random.Random(20_000 + seed)
    policy = replace(Policy(), mode=OBSERVE, production=step)
    state, counts = JudgeState(), Counter[str]()
    for n in range(48, 48 + 336):
        report = read_results(probe_round(n, probes, state.confirm_plan().get(MODEL, {}), runs))
        state, decisions = apply_round(state, report, policy, now=report.started_at,
                                       production=records[n - 48:n])
        for d in decisions:
            who = "bad" if d.provider == BAD else "healthy"
            if d.action is Action.CONFIRM:
                counts[f"confirm_{who}"] += 1
            elif d.action is Action.CONFIRMATION:
                counts["confirmed" if "confirmation confirmed:" in d.reason else "not_confirmed"] += 1
            elif d.action in (Action.SUSPEND, Action.WOULD_SUSPEND):
                counts[f"suspended_{who}"] += 1
    return counts


def speed(rounds: int) -> tuple[float, float]:
    rng = random.Random(0)
    records = tuple(windows(rng, 48, garbling(1.0), langs=languages(False), min_cell=1))
    tmp = Path(tempfile.mkdtemp(prefix="production-speed-"))
    times: dict[bool, list[float]] = {False: [], True: []}
    try:
        configs = {}
        for with_records in (False, True):
            folder = tmp / ("with" if with_records else "without")
            folder.mkdir()
            (folder / "canary.yaml").write_text(
                f"models: [{MODEL}]\npaths: {{reports: {folder}/reports, state: {folder}/state/state.json, "
                f"audit: {folder}/state/audit.jsonl, history: {folder}/history}}\n", encoding="utf-8")
            configs[with_records] = load_config(str(folder / "canary.yaml"))
        for n in range(48, 48 + rounds):
            doc = probe_round(n, rng)
            for with_records in (False, True) if n % 2 else (True, False):
                path = tmp / f"results-{n}-{with_records}.json"
                atomic_write_json(path, doc)
                at = T0 + n * WINDOW
                start = time.perf_counter()
                run_judge(JudgeRequest((path,), configs[with_records], at + timedelta(minutes=5), send=False,
                                       production=records if with_records else ()), echo=lambda _: None)
                times[with_records].append(time.perf_counter() - start)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return statistics.median(times[False]) * 1000, statistics.median(times[True]) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="significance,drift,one_user,week,speed")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--speed-rounds", type=int, default=20)
    parser.add_argument("--samples", default="0.05,0.25", help="the sample rates of `significance`")
    args = parser.parse_args()
    only = set(args.only.split(","))
    if "significance" in only:
        for sample in (float(x) for x in args.samples.split(",")):
            print(bench_line("production_evidence", part="significance", seeds=args.seeds,
                             **significance(args.seeds, sample)))
    if "drift" in only:
        for sample in (SAMPLE, 0.25):
            on, off = drift(args.seeds, sample, True), drift(args.seeds, sample, False)
            print(f"model-wide drift (8 % of ja/ko conversations on every host) sampled at {sample:.0%}, a week x "
                  f"{args.seeds} seeds: endpoint-rounds flagged {on} (without the guard: {off})", flush=True)
            print(bench_line("production_evidence", part="drift", sample=sample, flagged=on, flagged_unguarded=off))
    if "one_user" in only:
        for sticky in (False, True):
            for cap in ("window", "day", "none"):
                flagged, sampled = one_user(args.seeds, sticky=sticky, cap=cap)
                routing = "staying on one endpoint" if sticky else "each request routed anew"
                print(f"one user ({USER_CONVERSATIONS} conversations a day, {LIFE} half hours each, every reply "
                      f"failing), {routing}, at most {CAP} checked per conversation per {cap}: endpoint-rounds "
                      f"flagged {flagged} in a week x {args.seeds} seeds ({sampled} of their conversations sampled)",
                      flush=True)
                print(bench_line("production_evidence", part="one_user", sticky=sticky, cap=cap, flagged=flagged))
    if "week" in only:
        for step in (False, "observe", "enforce"):
            totals: Counter[str] = Counter()
            for seed in range(args.seeds):
                totals.update(week(step, seed))
            print(f"a week (336 rounds x {args.seeds} seeds), rules.production {step or 'off'}: "
                  f"{dict(sorted(totals.items()))}",
                  flush=True)
            print(bench_line("production_evidence", part=f"week_{step or 'off'}", seeds=args.seeds,
                             confirmations=totals["confirm_bad"] + totals["confirm_healthy"],
                             confirm_healthy=totals["confirm_healthy"], confirmed=totals["confirmed"],
                             false_suspensions=totals["suspended_healthy"], bad_suspended=totals["suspended_bad"]))
    if "speed" in only:
        without, with_records = speed(args.speed_rounds)
        print(f"run_judge, median of {args.speed_rounds} rounds: {without:.1f} ms without records, "
              f"{with_records:.1f} ms with a day of them (ratio {with_records / without:.2f})")
        print(bench_line("production_evidence", part="speed", without_ms=round(without, 1),
                         with_ms=round(with_records, 1), ratio=round(with_records / without, 3)))


if __name__ == "__main__":
    main()

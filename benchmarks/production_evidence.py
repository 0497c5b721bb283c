"""Production evidence (issue 39, judge/suspension/production.py) on simulated traffic, recorded by the library.

    .venv/bin/python benchmarks/production_evidence.py [--only significance,drift,one_user,week,speed] [--seeds 3]

Replies are simulated, not HTTP; their records are the library's: every simulated reply goes
through the backend's Exporter (provider_ignore/production.py `Exporter.count`: its sampling by
conversation id, its cap of checked replies per conversation per day, its cells and their merge),
with its checks' outcomes drawn instead of computed from text. A product serves one model from 9
endpoints, 100,000 replies a day, each routed at random; conversations of 6 replies within a half
hour; 5 % of conversations sampled; each conversation's expected language drawn from 17 (English
half of them); every reply streamed.

- significance: one host garbles (encoding) 2 % of its long-prompt replies, the 8 others 1 in
  20,000 of all replies; the round (every 30 minutes, counted from the defect's start) at which the
  host is first flagged, for a long-prompt share of 30 % and 100 %, sampled at 5 % and 25 %, the
  judge pooling the last day of records (SPAN, what it does) or longer (`--spans`); and the share of
  the host's checked replies that the records attribute to it (the rest merged into the remainder);
- drift: every host answers 8 % of its Japanese and Korean conversations in another language
  (the model, not a host; healthy replies fail the language check 1 in 500): endpoint-rounds
  flagged in a week, with the model-wide guard and without it, sampled at 5 % and 25 %;
- one_user: one heavy user starting 40 conversations a day, each 4 half hours long, every reply
  failing the language check: endpoint-rounds flagged in a week, each request routed anew or each
  conversation staying on one endpoint (OpenRouter's sticky routing for prompt caching), with the
  library's cap (3 checked replies per conversation per day) or none;
- week: 336 rounds through the real rules (apply_round, observe mode) with rules.production off,
  observe, then enforce: the garbling host of `significance`, flagged most rounds (every prompt
  long, sampled at 25 %), synthetic probe rounds where every case fails 0.2 % of the time by chance
  and the garbling host's probes pass like the others' (it garbles only long prompts, which no probe
  sends); confirmations scheduled, confirmed, and suspensions (real or would-be);
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
from core.production import CheckOutcome, ProductionCheck, ProductionRecord  # noqa: E402
from core.results_read import read_results  # noqa: E402
from core.store import atomic_write_json  # noqa: E402
from core.times import stamp  # noqa: E402
from core.vocabulary import LANGUAGES  # noqa: E402
from judge.suspension import production  # noqa: E402
from judge.suspension.decisions import Action  # noqa: E402
from judge.suspension.production import SPAN, weigh  # noqa: E402
from judge.suspension.rules import apply_round  # noqa: E402
from judge.suspension.state import JudgeState  # noqa: E402
from provider_ignore.production import PER_CONVERSATION, Exporter  # noqa: E402

MODEL = "acme/roleplay-model"
BAD = "garble/fp8"
TAGS = (BAD, *(f"host{i}/fp8" for i in range(8)))
NAMES = {MODEL: {t: t.split("/")[0].capitalize() for t in TAGS}}
WINDOW = timedelta(minutes=30)
T0 = datetime(2026, 12, 7, tzinfo=UTC)
DAY_REPLIES, SAMPLE, TURNS = 100_000, 0.05, 6
WEEK = 48 + 336   # windows simulated: the first day, then a week of rounds
HEALTHY_ENCODING = 1 / 20_000
HEALTHY_LANGUAGE = 1 / 500   # the language check's false failures on healthy replies
USER_CONVERSATIONS, LIFE = 40, 4   # one heavy user: conversations a day, half hours each
CONTRACTS = ("latency", "refusal", "structured", "language")
CASE_NOISE = 0.002   # a healthy case failing by chance
ENGLISH = (["en"], [1.0])
SEVENTEEN = (list(LANGUAGES), [0.5 if lang == "en" else 0.5 / (len(LANGUAGES) - 1) for lang in LANGUAGES])

# One reply's check and whether it failed, drawn: (rng, endpoint tag, expected language).
Draw = Callable[[random.Random, str, str], tuple[ProductionCheck, bool]]
# One heavy user's conversations: (the window it starts in, the endpoint it stays on or None: routed anew).
User = Sequence[tuple[int, str | None]]


def windows(seed: int, draw: Draw, *, sample: float = SAMPLE, langs: tuple[list[str], list[float]] = SEVENTEEN,
            user: User = (), cap: int = PER_CONVERSATION, count: int = WEEK,
            bad_checked: Counter[str] | None = None) -> list[ProductionRecord]:
    """`count` windows of records, as the library writes them from the simulated replies (and `user`'s,
    English, every one failing the language check); `bad_checked` counts the garbling host's checked replies."""
    rng, exporter = random.Random(seed), Exporter("chat-1", sample_rate=sample, per_conversation=cap)
    per_window, out = DAY_REPLIES // 48 // TURNS, list[ProductionRecord]()

    def reply(conversation: str, tag: str, lang: str, at: datetime, fixed: bool | None = None) -> None:
        def outcomes(_: str | None) -> dict[ProductionCheck, CheckOutcome]:
            check, failed = (ProductionCheck.LANGUAGE, True) if fixed else draw(rng, tag, lang)
            if bad_checked is not None and tag == BAD:
                bad_checked[check] += 1
            return {check: CheckOutcome.FAIL if failed else CheckOutcome.PASS}
        exporter.count(conversation, MODEL, NAMES[MODEL][tag], stream=True, now=at, language=lang, outcomes=outcomes)

    for w in range(count):
        start = T0 + w * WINDOW
        for i in range(per_window):
            conversation = f"{seed}-{w}-{i}"
            if exporter.sampler.takes(exporter.sampler.key(conversation)):  # the library decides alike: fewer draws
                lang = rng.choices(*langs)[0]
                for turn in range(TURNS):
                    reply(conversation, rng.choice(TAGS), lang, start + turn * timedelta(minutes=4))
        for k, (first, stays) in enumerate(user):
            if 0 <= w - first < LIFE:
                for turn in range(TURNS):
                    reply(f"user-{seed}-{k}", stays or rng.choice(TAGS), "en", start + turn * timedelta(minutes=4),
                          fixed=True)
        exporter.flush(now=start + WINDOW, send=out.append)
    return out


def flagged_rounds(records: Sequence[ProductionRecord], guard: GuardRules | None = None,
                   span: timedelta = SPAN) -> list[tuple[int, set[str]]]:
    """Per round (one per window, numbered by the windows of records it has), the flagged endpoints."""
    out, keep = [], int(span / WINDOW)
    for n in range(1, len(records) + 1):
        seen = weigh(records[max(0, n - keep):n], NAMES, guard or Policy().model_wide_guard,
                     now=records[n - 1].window_end, span=span)
        out.append((n, {c.provider for c in seen.cards if c.flagged}))
    return out


def garbling(long_share: float) -> Draw:
    def draw(rng: random.Random, tag: str, lang: str) -> tuple[ProductionCheck, bool]:
        rate = HEALTHY_ENCODING + (0.02 * long_share if tag == BAD else 0.0)
        return ProductionCheck.ENCODING, rng.random() < rate
    return draw


def significance(seeds: int, sample: float, spans: Sequence[int]) -> dict[str, Any]:
    print(f"sampled at {sample:.0%}: the round (half hours since the defect began) at which the garbling host is "
          f"first flagged, the judge pooling 1 day (what it does) or longer; never: not within {WEEK} rounds")
    figures: dict[str, Any] = {}
    for long_share in (0.3, 1.0):
        firsts: dict[int, list[int | None]] = {days: [] for days in spans}
        attributed = checked = 0
        for seed in range(seeds):
            mine: Counter[str] = Counter()
            records = windows(seed, garbling(long_share), sample=sample, bad_checked=mine)
            checked += mine[ProductionCheck.ENCODING]
            attributed += sum(c.n for r in records for c in r.counts if c.provider == NAMES[MODEL][BAD])
            for days in spans:
                rounds = flagged_rounds(records, span=timedelta(days=days))
                firsts[days].append(next((n for n, flagged in rounds if BAD in flagged), None))
                assert all(flagged <= {BAD} for _, flagged in rounds), "a healthy host flagged"
        share = attributed / checked if checked else 0.0
        print(f"  long prompts {long_share:>4.0%}: {checked / seeds / (WEEK / 48):.0f} of the host's replies checked a "
              f"day, {share:.0%} of them attributed to it (the rest in the model's remainder: cells under 5)")
        for days in spans:
            print(f"    pooling {days} day(s): " + ", ".join("never" if f is None else str(f) for f in firsts[days]),
                  flush=True)
            key = f"sample{round(sample * 100)}_long{round(long_share * 100)}_pool{days}d"
            # The slowest seed's round (-1: some seed never flagged it).
            figures[key] = -1 if None in firsts[days] else max(f for f in firsts[days] if f is not None)
        figures[f"sample{round(sample * 100)}_long{round(long_share * 100)}_attributed"] = round(share, 3)
    return figures


def drift(seeds: int, sample: float, guarded: bool) -> int:
    """Endpoint-rounds flagged in a week when every host answers 8 % of its ja/ko conversations in another language."""
    def draw(rng: random.Random, tag: str, lang: str) -> tuple[ProductionCheck, bool]:
        return ProductionCheck.LANGUAGE, rng.random() < (0.08 if lang in ("ja", "ko") else HEALTHY_LANGUAGE)
    guard = replace(Policy().model_wide_guard, enabled=guarded)
    return sum(len(f) for seed in range(seeds) for n, f in flagged_rounds(windows(seed, draw, sample=sample), guard)
               if n > 48)


def one_user(seeds: int, *, sticky: bool, cap: int) -> tuple[int, int]:
    """Endpoint-rounds flagged in a week, and the user's conversations sampled, for one user who starts
    USER_CONVERSATIONS a day, each LIFE windows long, every reply failing the language check."""
    def draw(rng: random.Random, tag: str, lang: str) -> tuple[ProductionCheck, bool]:
        return ProductionCheck.LANGUAGE, rng.random() < HEALTHY_LANGUAGE
    flagged = sampled = 0
    for seed in range(seeds):
        rng = random.Random(10_000 + seed)
        user: User = [(rng.randrange(WEEK), rng.choice(TAGS) if sticky else None)
                      for _ in range(USER_CONVERSATIONS * WEEK // 48)]
        probe = Exporter("chat-1", sample_rate=SAMPLE).sampler
        sampled += sum(probe.takes(probe.key(f"user-{seed}-{k}")) for k in range(len(user)))
        flagged += sum(len(f) for n, f in flagged_rounds(windows(seed, draw, user=user, cap=cap)) if n > 48)
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
    most rounds (every prompt long, sampled at 25 %); what was confirmed and suspended."""
    records = windows(seed, garbling(1.0), sample=0.25)
    probes, runs = random.Random(10_000 + seed), random.Random(20_000 + seed)
    policy = replace(Policy(), mode=OBSERVE, production=step)
    state, counts = JudgeState(), Counter[str]()
    for n in range(48, WEEK):
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
    records = tuple(windows(0, garbling(1.0), count=48))
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
                run_judge(JudgeRequest(path, configs[with_records], at + timedelta(minutes=5), send=False,
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
    parser.add_argument("--spans", default="1,3,7", help="days of records the judge pools, in `significance`")
    parser.add_argument("--min-windows", type=int, default=None, help="what if the judge's MIN_WINDOWS were this")
    args = parser.parse_args()
    if args.min_windows is not None:
        production.MIN_WINDOWS = args.min_windows
    only = set(args.only.split(","))
    if "significance" in only:
        spans = [int(x) for x in args.spans.split(",")]
        for sample in (float(x) for x in args.samples.split(",")):
            print(bench_line("production_evidence", part="significance", seeds=args.seeds,
                             **significance(args.seeds, sample, spans)))
    if "drift" in only:
        for sample in (SAMPLE, 0.25):
            on, off = drift(args.seeds, sample, True), drift(args.seeds, sample, False)
            print(f"model-wide drift (8 % of ja/ko conversations on every host) sampled at {sample:.0%}, a week x "
                  f"{args.seeds} seeds: endpoint-rounds flagged {on} (without the guard: {off})", flush=True)
            print(bench_line("production_evidence", part="drift", sample=sample, flagged=on, flagged_unguarded=off))
    if "one_user" in only:
        for sticky in (False, True):
            for cap in (PER_CONVERSATION, PER_CONVERSATION * LIFE):   # the library's; the old 3 a window
                flagged, sampled = one_user(args.seeds, sticky=sticky, cap=cap)
                routing = "staying on one endpoint" if sticky else "each request routed anew"
                print(f"one user ({USER_CONVERSATIONS} conversations a day, {LIFE} half hours each, every reply "
                      f"failing), {routing}, at most {cap} checked per conversation per day: endpoint-rounds "
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

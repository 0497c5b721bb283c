"""`canary history`: what the round history says, per model and provider; and how to fill it.

    canary history [--model M] [--json]             pass rates per contract with 95 % intervals,
                                                    TTFT p50/p95, tokens/s and suspensions over
                                                    24 h, 7 d and 30 d
    canary history record RESULTS... [--decisions FILE]   add a judged round (backfill; idempotent)
    canary history compact                          fold days past the detail window into day files

Reads `paths.history` (or --history DIR). A damaged history file is named with what to do;
the judge never needs the history, so nothing else is affected.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from canary.cli.commands._options import add_common, config_of, now_of
from canary.history.query import EndpointSummary, History, PassRate
from canary.history.recorder import record_files
from canary.history.rows import HistoryError
from canary.history.store import DETAIL_DAYS, compact, history_root
from canary.state.results_files import read_decisions
from core.times import fmt_time
from core.untrusted import clean as cell
from core.vocabulary import CONTRACTS

WINDOWS = (1, 7, 30)
WINDOW_NAMES = {1: "24 h", 7: "7 d", 30: "30 d"}
CONTRACT_ORDER = CONTRACTS   # the four, then the optional ones (tools, stop, fidelity)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("history", help="pass rates, latency and suspensions from the round history")
    p.add_argument("--model", default=None, help="only this model")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_common(p, files=("history",))
    sub = p.add_subparsers(dest="history_action", metavar="record|compact")
    r = sub.add_parser("record", help="add judged rounds to the history (backfill); recording twice changes nothing")
    r.add_argument("results", nargs="+", type=Path, metavar="RESULTS.json",
                   help="the round's results (several = shards)")
    r.add_argument("--decisions", type=Path, default=None, metavar="FILE",
                   help="the decisions.json that `canary judge` wrote for this round")
    _sub_options(r)
    c = sub.add_parser("compact", help=f"fold days older than {DETAIL_DAYS} days into daily aggregates")
    _sub_options(c)
    p.set_defaults(func=_run)


def _sub_options(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: an option given before the action name (`canary history --now T record ...`) stays.
    parser.add_argument("--config", default=argparse.SUPPRESS, help="configuration file (default: canary.yaml)")
    parser.add_argument("--history", type=Path, default=argparse.SUPPRESS, metavar="PATH",
                        help="the history folder (default: paths.history in canary.yaml)")
    parser.add_argument("--now", default=argparse.SUPPRESS, metavar="ISO8601", help="the time (default: now)")


def _run(args: argparse.Namespace) -> int:
    config = config_of(args)
    now = now_of(args)
    if args.history_action == "record":
        return _record(args, history_root(config.paths), now)
    if args.history_action == "compact":
        days = compact(history_root(config.paths), now=now)
        print(f"canary history: compacted {len(days)} day(s)" + (f": {', '.join(days)}" if days else ""))
        return 0
    history = History.open(history_root(config.paths), now=now, days=max(WINDOWS) + 1)
    summaries = history.summary(WINDOWS, model=args.model)
    newest_round = history.newest_round()
    newest = fmt_time(newest_round.at) if newest_round else None
    if args.json:
        print(json.dumps(to_json(summaries, now_iso=fmt_time(now), newest=newest),
                         indent=2, sort_keys=True))
    else:
        print(render(summaries, now_iso=fmt_time(now) or "", newest=newest,
                     where=str(history_root(config.paths))))
    return 0


def _record(args: argparse.Namespace, root: Path, now: Any) -> int:
    decisions = None
    if args.decisions is not None:
        decisions = read_decisions(args.decisions)
        if decisions is None:
            raise HistoryError(f"{args.decisions}: no such decisions file")
    done = record_files(root, args.results, decisions, now=now)
    print(f"canary history: {'recorded' if done.written else 'already recorded, nothing changed'}: {done.path}")
    return 0


def to_json(summaries: tuple[EndpointSummary, ...], *, now_iso: str | None, newest: str | None) -> dict[str, Any]:
    """The --json document (stable: scripts read it)."""
    return {
        "schema_version": 1, "now": now_iso, "newest_round_at": newest,
        "endpoints": [{
            "model": s.model, "provider": s.provider,
            "windows": {_key(w.days): {
                "pass_rate": {r.contract: {"passes": r.passes, "fails": r.fails, "other": r.other, "rate": r.rate,
                                           "ci95": None if r.low is None else [r.low, r.high]} for r in w.rates},
                "ttft_p50_s": w.latency.ttft_p50, "ttft_p95_s": w.latency.ttft_p95,
                "ttft_samples": w.latency.samples, "tokens_per_s_p50": w.latency.tps_p50,
                "suspensions": w.suspensions,
            } for w in s.windows},
        } for s in summaries],
    }


def render(summaries: tuple[EndpointSummary, ...], *, now_iso: str, newest: str | None, where: str) -> str:
    """The table: one block per endpoint, one row per contract, one column per window."""
    if not summaries:
        return f"canary history: no rounds in {where} in the last {max(WINDOWS)} days"
    heads = ["provider", "", *(WINDOW_NAMES.get(int(w), f"{w:g} d") for w in WINDOWS)]
    rows: list[list[str]] = []
    out = [f"canary history at {now_iso} (newest round {newest or 'none'}); pass rate [95 % interval] n"]
    model = None
    for s in summaries:
        if s.model != model:
            if rows:
                out += _table(heads, rows) + [""]
                rows = []
            model = s.model
            out.append(cell(s.model))
        contracts = sorted({r.contract for w in s.windows for r in w.rates},
                           key=lambda c: (CONTRACT_ORDER.index(c) if c in CONTRACT_ORDER else 9, c))
        for i, contract in enumerate(contracts):
            rows.append([cell(s.provider) if i == 0 else "", contract,
                         *(_rate_cell(next((r for r in w.rates if r.contract == contract), None)) for w in s.windows)])
        if not contracts:
            rows.append([cell(s.provider), "(no judged case)", *("-" for _ in s.windows)])
        rows.append(["", "ttft p50/p95", *(_pair(w.latency.ttft_p50, w.latency.ttft_p95, "s") for w in s.windows)])
        rows.append(["", "tokens/s p50", *(_one(w.latency.tps_p50) for w in s.windows)])
        rows.append(["", "suspensions", *(str(w.suspensions) for w in s.windows)])
    out += _table(heads, rows)
    return "\n".join(out)


def _table(heads: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [heads, *rows]) for i in range(len(heads))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in [heads, *rows]]


def _rate_cell(r: PassRate | None) -> str:
    if r is None or r.rate is None:
        return "-" if r is None else f"no verdict ({r.other} other)"
    assert r.low is not None and r.high is not None
    return f"{r.rate:.0%} [{r.low:.0%}-{r.high:.0%}] {r.passes + r.fails}"


def _pair(a: float | None, b: float | None, unit: str) -> str:
    return "-" if a is None else f"{a:.2f}/{b:.2f} {unit}"


def _one(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _key(days: float) -> str:
    return {1: "24h", 7: "7d", 30: "30d"}.get(int(days), f"{days:g}d")

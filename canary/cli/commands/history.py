"""`canary history`: what the round history says, per model and provider (docs/history.md); `record`
backfills a judged round, `compact` folds old days into day files. A damaged history file is named
with what to do: the judge never needs the history, so nothing else is affected.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from canary.cli.commands._options import PATH, Invocation, common, pass_invocation
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


@click.group("history", invoke_without_command=True,
             short_help="pass rates, latency and suspensions from the round history")
@click.option("--model", default=None, help="only this model")
@click.option("--json", "as_json", is_flag=True, help="print JSON instead of a table")
@common(files=("history",))
@click.pass_context
def history(ctx: click.Context, model: str | None, as_json: bool) -> int:
    """Pass rates per contract with 95 % intervals, TTFT p50/p95, tokens/s and suspensions over 24 h,
    7 d and 30 d; `record` and `compact` fill the history."""
    if ctx.invoked_subcommand is not None:
        return 0  # the action runs next, with the options given on either side of its name
    invocation = ctx.ensure_object(Invocation)
    config, now = invocation.config(), invocation.now()
    found = History.open(history_root(config.paths), now=now, days=max(WINDOWS) + 1)
    summaries = found.summary(WINDOWS, model=model)
    newest_round = found.newest_round()
    newest = fmt_time(newest_round.at) if newest_round else None
    if as_json:
        print(json.dumps(to_json(summaries, now_iso=fmt_time(now), newest=newest),
                         indent=2, sort_keys=True))
    else:
        print(render(summaries, now_iso=fmt_time(now) or "", newest=newest,
                     where=str(history_root(config.paths))))
    return 0


@history.command("record", help="add a judged round to the history (backfill); recording twice changes nothing")
@click.argument("results_path", type=PATH, metavar="RESULTS.json")
@click.option("--decisions", "decisions_path", type=PATH, default=None, metavar="FILE",
              help="the decisions.json that `canary judge` wrote for this round")
@common(files=("history",))
@pass_invocation
def record(invocation: Invocation, results_path: Path, decisions_path: Path | None) -> int:
    config, now = invocation.config(), invocation.now()
    decisions = None
    if decisions_path is not None:
        decisions = read_decisions(decisions_path)
        if decisions is None:
            raise HistoryError(f"{decisions_path}: no such decisions file")
    done = record_files(history_root(config.paths), results_path, decisions, now=now)
    print(f"canary history: {'recorded' if done.written else 'already recorded, nothing changed'}: {done.path}")
    return 0


@history.command("compact", help=f"fold days older than {DETAIL_DAYS} days into daily aggregates")
@common(files=("history",))
@pass_invocation
def compact_command(invocation: Invocation) -> int:
    days = compact(history_root(invocation.config().paths), now=invocation.now())
    print(f"canary history: compacted {len(days)} day(s)" + (f": {', '.join(days)}" if days else ""))
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

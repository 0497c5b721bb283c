"""The page document: everything the status page shows, gathered from the history and the layers.

`collect()` asks the history's query API (canary/history/query.py) for every endpoint at once,
merges in the routing layers (the judge's state file and people's exclusion files, as `canary
ignore` reads them) and returns one JSON-ready dict. The browser renders it (assets/app.js); the
feeds (feeds.py) and badges (badges.py) are projections of it, so they never disagree.

No file I/O here: the History and the layers come in as values (build.py reads them).

Shape (page_version 1; internal between this module and app.js, status.json is the public one):

    generated_at, newest_round {round_id, at, mode, complete} | null, stale_after_minutes,
    stale_at_generation, ttft_threshold_s, links {...}, contract_notes {contract: what it can and cannot see},
    strips {"7d": {start, bucket_hours, count}, "30d": {...}}, codes [reason codes of the details],
    hourly {start, step_s, count}, daily {days: [...]},
    models: [{model, badge, badge_message, provider_ignore, would_ignore, counts {status: n},
              languages [...], grid [[endpoint index, language index, passes, fails, other]],
              decisions [...], silences [{provider | null, until, reason, author}] (in force),
              maintenance [{provider, when, open, reason, author}] (windows not over yet),
              endpoints: [{provider, state, tier, status, until, excluded_by, reasons, tier_reasons,
                           last_round_at, last_class, latency {p50, p95, tps, n},
                           billing {billed, listed, ratio, rounds} | null, rates {"1"|"7"|"30":
                           {contract: [passes, fails, other, rate, low, high]}}, strip7, strip30,
                           detail7, detail30 {bucket: [failed, clean, frozen, [code index]]},
                           hourly {p50, p95, tps}, daily {p50, p95, tps},
                           wire {lines, bad} (issue 22's checks: wire.py), production [lines]
                           (issue 39: its production evidence to read, judge/suspension/production.py),
                           reports (a chat backend's user reports of the last 7 days), leak {leaked, windows,
                           worst, alarm} | null (its sampled replies served while excluded, 7 days:
                           judge/suspension/route_audit.py)}]}]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from canary.history.query import DecisionEntry, EndpointNow, EndpointSummary, History
from canary.outputs.site import strips
from canary.outputs.site.badges import badge_message, badge_paths
from canary.outputs.site.billing import billing_cell
from canary.outputs.site.endpoints import display_status, endpoint_state
from canary.outputs.site.wire import wire_checks
from core.layers import SUSPENSION, Exclusion, people_excluded
from core.policy import ENFORCE
from core.production import ProductionRecord
from core.times import stamp
from core.vocabulary import DECLARED
from judge.suspension.decisions import ENDING, SUSPENDING
from judge.suspension.evidence import cards_by_endpoint
from judge.suspension.exclusions import effective_ignore, would_ignore
from judge.suspension.maintenance import MaintenanceWindow
from judge.suspension.production import production_lines
from judge.suspension.reports import reports_by_endpoint
from judge.suspension.route_audit import LEAK_ALARM, route_audit, served_names
from judge.suspension.silences import Silence, active_silences
from judge.suspension.state import JudgeState

PAGE_VERSION = 1
WINDOWS = (1, 7, 30)                      # pass-rate windows, days
STRIPS = {"7d": (7, 1), "30d": (30, 6)}   # name -> (days, bucket hours): 168 and 120 buckets
SERIES_DAYS = 7                           # hourly TTFT / tokens/s series
LISTED_DAYS = 7                           # an endpoint not seen for longer is left off the page...
DECISIONS_PER_MODEL = 40                  # ...unless a layer still names it
DECISION_DAYS = 38                        # 30 days of strips + the longest rung (7 d) + margin
FEED_DECISIONS = 100                      # newest decisions of every model, for decisions.atom
# What an optional contract can and cannot see, shown under the endpoint table of a model that
# runs it: a pass rate alone would promise more than the probe measures.
CONTRACT_NOTES: dict[str, str] = {c.name: c.site_note for c in DECLARED if c.site_note}


@dataclass(frozen=True, slots=True)
class Layers:
    """The routing layers at `now`: the judge's state and people's exclusions."""

    state: JudgeState
    exclusions: tuple[Exclusion, ...]
    silences: tuple[Silence, ...] = ()   # people's silences: shown, never part of the routing
    maintenance: tuple[MaintenanceWindow, ...] = ()   # providers' announced windows (the judge holds them)
    production: tuple[ProductionRecord, ...] = ()     # a chat backend's records (reports, the route audit)


@dataclass(frozen=True, slots=True)
class _Reads:
    """What collect() reads once for every endpoint: the history's answers by (model, provider), and the
    page's frames."""

    now: datetime
    layers: Layers
    newest: Any
    decisions: Sequence[DecisionEntry]
    summaries: Mapping[tuple[str, str], EndpointSummary]
    tiers: Mapping[tuple[str, str], EndpointNow]
    timelines: Mapping[tuple[str, str], Sequence[Any]]
    hourly: Mapping[tuple[str, str], Sequence[Any]]
    daily: Mapping[tuple[str, str], Sequence[Any]]
    day_list: list[str]
    hourly_start: datetime
    frames: dict[str, tuple[datetime, int, int]]
    codes: dict[str, int]   # reason codes of the strips' tooltips, numbered once for the page

    @classmethod
    def of(cls, history: History, layers: Layers, ttft_threshold_s: float) -> _Reads:
        now = history.now
        daily = history.daily_series()
        return cls(now, layers, history.newest_round(), history.latest_decisions(limit=1_000_000, days=DECISION_DAYS),
                   {(s.model, s.provider): s for s in history.summary(WINDOWS)},
                   {(e.model, e.provider): e for e in history.current(ttft_threshold_s)},
                   history.timelines(days=max(d for d, _ in STRIPS.values())),
                   history.ttft_series(days=SERIES_DAYS, bucket_hours=1), daily,
                   sorted({p.day for points in daily.values() for p in points}), now - timedelta(days=SERIES_DAYS),
                   {name: _frame(now, days, hours) for name, (days, hours) in STRIPS.items()}, {})


def collect(history: History, layers: Layers, *, models: Iterable[str] = (), ttft_threshold_s: float,
            stale_after_minutes: float, links: Mapping[str, str | None] | None = None) -> dict[str, Any]:
    """The page document at history.now (module docstring)."""
    reads = _Reads.of(history, layers, ttft_threshold_s)
    now, newest = reads.now, reads.newest
    people = people_excluded(layers.exclusions, now)
    all_models = sorted(set(models) | {m for m, _ in reads.tiers} | set(layers.state.models) | set(people)
                        | {s.model for s in active_silences(layers.silences, now)})
    badges = badge_paths(all_models)
    week = now - timedelta(days=7)
    records = [r for r in layers.production if r.window_end > week]
    names = served_names(history.db.execute("SELECT model, provider, served_by FROM cases WHERE served_by IS NOT NULL "
                                            "GROUP BY model, provider, served_by").fetchall())
    reports = reports_by_endpoint(records, names, since=week, until=now)
    out_models = []
    for model in all_models:
        providers = _listed(model, reads.tiers, layers, people.get(model, frozenset()), newest, reads.decisions, now)
        cards = cards_by_endpoint(layers.state, model)
        leaks = _leaks(model, providers, records, names, layers, reads.decisions, now)
        endpoints = [_endpoint(model, p, reads)
                     | {"wire": wire_checks(cards.get(p, ()), (t.codes for t in reads.timelines.get((model, p), ())
                                                               if t.at >= week)),
                        "production": production_lines(layers.state.provider(model, p).production),
                        "reports": reports.get((model, p), 0), "leak": leaks.get(p)}
                     for p in providers]
        out_models.append(_model(model, badges[model], endpoints, _grid(history, model, providers), reads))
    return _page(reads, stale_after_minutes, ttft_threshold_s, links, out_models)


def _model(model: str, badge: str, endpoints: list[dict[str, Any]], grid: tuple[list[str], list[list[Any]]],
           reads: _Reads) -> dict[str, Any]:
    """A model's part of the page: its badge, endpoints, grid, decisions, silences and maintenance."""
    now, layers = reads.now, reads.layers
    counts: dict[str, int] = {}
    for e in endpoints:
        counts[e["status"]] = counts.get(e["status"], 0) + 1
    message, colour = badge_message(e["status"] for e in endpoints)
    return {
        "model": model, "badge": badge, "badge_message": message, "badge_colour": colour,
        "provider_ignore": effective_ignore(model, layers.exclusions, layers.state, now),
        "would_ignore": would_ignore(model, layers.exclusions, layers.state, now),
        "counts": counts, "endpoints": endpoints, "languages": grid[0], "grid": grid[1],
        "decisions": [_decision(d) for d in reads.decisions if d.model == model][:DECISIONS_PER_MODEL],
        "silences": [{"provider": s.provider, "until": _iso(s.until), "reason": s.reason, "author": s.author}
                     for s in active_silences(layers.silences, now) if s.model == model],
        "maintenance": [{"provider": w.provider, "when": w.when, "open": w.open_at(now), "reason": w.reason,
                         "author": w.author}
                        for w in layers.maintenance if w.model in (None, model) and (w.end is None or w.end > now)],
    }


def _page(reads: _Reads, stale_after_minutes: float, ttft_threshold_s: float, links: Mapping[str, str | None] | None,
          out_models: list[dict[str, Any]]) -> dict[str, Any]:
    now, newest = reads.now, reads.newest
    age_min = None if newest is None else (now - newest.at).total_seconds() / 60
    return {
        "page_version": PAGE_VERSION, "generated_at": _iso(now),
        "newest_round": None if newest is None else {"round_id": newest.round_id, "at": _iso(newest.at),
                                                     "mode": newest.mode, "complete": newest.complete},
        "stale_after_minutes": stale_after_minutes,
        "stale_at_generation": age_min is None or age_min > stale_after_minutes,
        "ttft_threshold_s": ttft_threshold_s,
        "links": dict(links or {}),
        "contract_notes": dict(CONTRACT_NOTES),
        "strips": {name: {"start": _iso(start), "bucket_hours": hours, "count": count}
                   for name, (start, hours, count) in reads.frames.items()},
        "hourly": {"start": _iso(reads.hourly_start), "step_s": 3600, "count": SERIES_DAYS * 24},
        "daily": {"days": reads.day_list},
        "codes": list(reads.codes),
        "models": out_models,
        "decisions": [_decision(d) for d in reads.decisions[:FEED_DECISIONS]],   # the Atom feed's
    }


def _frame(now: datetime, days: int, hours: int) -> tuple[datetime, int, int]:
    """(start, bucket hours, bucket count) of a strip whose last bucket holds `now`, on whole UTC hours."""
    width = hours * 3600
    end = (int(now.timestamp()) // width + 1) * width
    count = days * 24 // hours
    return datetime.fromtimestamp(end - count * width, UTC), hours, count


def _listed(model: str, tiers: Mapping[tuple[str, str], EndpointNow], layers: Layers, people: frozenset[str],
            newest: Any, decisions: Sequence[DecisionEntry], now: datetime) -> list[str]:
    """The endpoints of a model on the page: seen in the last LISTED_DAYS, or named by a layer."""
    recent = now - timedelta(days=LISTED_DAYS)
    seen = {p for (m, p), e in tiers.items()
            if m == model and e.last_round_at is not None and e.last_round_at >= recent}
    suspended = {p for p, ps in layers.state.models.get(model, {}).items()
                 if ps.suspension is not None and ps.suspension.active(now)}
    return sorted(seen | suspended | set(people))


def _endpoint(model: str, provider: str, reads: _Reads) -> dict[str, Any]:
    now, layers, decisions, newest, codes = reads.now, reads.layers, reads.decisions, reads.newest, reads.codes
    tier, summary = reads.tiers.get((model, provider)), reads.summaries.get((model, provider))
    mine = [d for d in decisions if d.model == model and d.provider == provider]
    active_people = [e for e in layers.exclusions if e.model == model and e.provider == provider and e.active(now)]
    newest_actions = [d.action for d in mine if newest is not None and d.round_id == newest.round_id]
    ps = layers.state.models.get(model, {}).get(provider)
    routing = endpoint_state(ps, active_people, newest_actions, now=now)
    tier_name = tier.tier.name if tier else "unknown"
    intervals = _intervals(model, provider, layers, decisions, now)
    rounds = [strips.StripRound(p.at, p.klass, p.codes) for p in reads.timelines.get((model, provider), ())]
    out: dict[str, Any] = {
        "provider": provider, "state": routing.state, "tier": tier_name,
        "status": display_status(routing.state, tier_name),
        "until": _iso(routing.until), "reasons": list(routing.reasons),
        "excluded_by": None if routing.excluded_by is None else {
            "layer": routing.excluded_by.layer, "reason": routing.excluded_by.reason,
            "expires": _iso(routing.excluded_by.expires), "added_by": routing.excluded_by.added_by},
        "tier_reasons": list(tier.tier.reasons) if tier else [],
        "last_round_at": _iso(tier.last_round_at) if tier else None, "last_class": tier.last_class if tier else None,
        "latency": _latency(summary), "rates": _rates(summary), "billing": billing_cell(ps),
    }
    for name, (start, hours, count) in reads.frames.items():
        s = strips.strip(rounds, intervals, start=start, buckets=count, width=timedelta(hours=hours))
        key = name[:-1]  # "7d" -> strip7, detail7
        out[f"strip{key}"] = s.letters
        out[f"detail{key}"] = {str(i): [f, c, z, [codes.setdefault(x, len(codes)) for x in text.split()]]
                               for i, (f, c, z, text) in s.detail.items()}
    out["hourly"] = _hourly(reads.hourly.get((model, provider), ()), reads.hourly_start)
    out["daily"] = _daily(reads.daily.get((model, provider), ()), reads.day_list)
    return out


def _intervals(model: str, provider: str, layers: Layers, decisions: Sequence[DecisionEntry],
               now: datetime) -> tuple[strips.Interval, ...]:
    """The endpoint's suspensions: from the history's decisions, and the state's current one."""
    suspending = [(d.at, d.action, d.until) for d in decisions
                  if (d.model, d.provider) == (model, provider) and d.action in SUSPENDING | ENDING]
    intervals = strips.suspension_intervals(suspending, now=now)
    ps = layers.state.models.get(model, {}).get(provider)
    if ps is not None and ps.suspension is not None and ps.suspension.active(now):
        intervals = strips.merge_intervals(intervals, [strips.Interval(ps.suspension.since, now, ps.suspension.mode)])
    return intervals


def _leaks(model: str, providers: Sequence[str], records: Sequence[ProductionRecord],
           names: Mapping[str, Mapping[str, str | None]], layers: Layers, decisions: Sequence[DecisionEntry],
           now: datetime) -> dict[str, dict[str, Any]]:
    """provider -> its sampled replies served while excluded in the records (the route audit), when any."""
    entries = [e for e in layers.exclusions if e.model == model] + [
        Exclusion(model, p, SUSPENSION, "", since=i.start, expires=i.end, observed=i.mode != ENFORCE)
        for p in providers for i in _intervals(model, p, layers, decisions, now)]
    out: dict[str, dict[str, Any]] = {}
    for k in route_audit(records, entries, names):
        cell = out.setdefault(k.provider, {"leaked": 0, "windows": 0, "worst": 0.0, "alarm": False})
        cell.update(leaked=cell["leaked"] + k.leaked, windows=cell["windows"] + 1, worst=max(cell["worst"], k.rate),
                    alarm=cell["alarm"] or k.rate > LEAK_ALARM)
    return out


def _latency(summary: EndpointSummary | None) -> dict[str, Any]:
    if summary is None:
        return {"p50": None, "p95": None, "tps": None, "n": 0}
    day = next(w for w in summary.windows if w.days == 1).latency
    week = next(w for w in summary.windows if w.days == 7).latency
    return {"p50": _r(day.ttft_p50, 3), "p95": _r(day.ttft_p95, 3), "n": day.samples,
            "tps": _r(day.tps_p50 if day.tps_p50 is not None else week.tps_p50, 0)}


def _rates(summary: EndpointSummary | None) -> dict[str, Any]:
    if summary is None:
        return {}
    return {f"{w.days:g}": {r.contract: [r.passes, r.fails, r.other, _r(r.rate, 4), _r(r.low, 4), _r(r.high, 4)]
                            for r in w.rates} for w in summary.windows}


def _hourly(points: Sequence[Any], start: datetime) -> dict[str, list[Any]]:
    return _series(points, SERIES_DAYS * 24, lambda p: int((p.start - start).total_seconds() // 3600))


def _daily(points: Sequence[Any], day_list: Sequence[str]) -> dict[str, list[Any]]:
    index = {d: i for i, d in enumerate(day_list)}
    return _series(points, len(day_list), lambda p: index[p.day])


def _series(points: Sequence[Any], count: int, slot: Callable[[Any], int]) -> dict[str, list[Any]]:
    """TTFT p50/p95 and tokens/s of each point in its slot of `count` (None where no point falls)."""
    p50: list[float | None] = [None] * count
    p95: list[float | None] = [None] * count
    tps: list[float | None] = [None] * count
    for p in points:
        i = slot(p)
        if 0 <= i < count:
            p50[i], p95[i], tps[i] = _r(p.ttft_p50, 3), _r(p.ttft_p95, 3), _r(p.tps_p50, 0)
    return {"p50": p50, "p95": p95, "tps": tps}


def _grid(history: History, model: str, providers: Sequence[str]) -> tuple[list[str], list[list[Any]]]:
    cells = [c for c in history.language_grid(model, days=7) if c.provider in providers]
    languages = sorted({c.language for c in cells})
    row, col = {p: i for i, p in enumerate(providers)}, {lang: i for i, lang in enumerate(languages)}
    return languages, [[row[c.provider], col[c.language], c.passes, c.fails, c.other] for c in cells]


def _decision(d: DecisionEntry) -> dict[str, Any]:
    return {"round_id": d.round_id, "at": _iso(d.at), "model": d.model, "provider": d.provider, "action": d.action,
            "rule": d.rule, "reason": d.reason, "until": d.until, "evidence": [list(e) for e in d.evidence],
            # Issue 10's evidence card ("language: 19/20 failed (0.76-0.99) vs peers 0/49 ..."), once
            # decisions carry one; the page and the feed show it when present.
            "card": getattr(d, "card", None)}


def _r(value: float | None, digits: int) -> float | None:
    if value is None:
        return None
    return float(round(value)) if digits == 0 else round(value, digits)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else stamp(value)

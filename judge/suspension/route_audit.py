"""The route audit: did the chat backend apply provider.ignore? (pure; docs/explain.md#4-the-route-audit)

    leak rate = a window's sampled replies served by an endpoint excluded through it / the model's

An exclusion counts from GRACE before the window began to its end (the backend reads the files on
its own schedule); an observe-mode suspension is not in the list. A provider name ("DeepInfra") is
matched to the model's endpoints by the names the probes' replies gave, else by the tag's provider
slug; a name of several endpoints, a cell marked ambiguous and the model's remainder never count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from core.layers import Exclusion
from core.production import ProductionRecord
from core.results import RoundResults
from core.times import fmt_time
from judge.suspension.decisions import Action, Decision, Leak, Rule

GRACE = timedelta(minutes=30)   # a changed list may reach the backend this much later
LEAK_ALARM = 0.01               # above this share of a window's sampled replies: the backend ignores the list
FRESH = timedelta(hours=1)      # a round alarms on each exporter's newest window ending this recently

Names = Mapping[str, Mapping[str, str | None]]   # model -> tag -> provider name (None: not seen)


def endpoints_named(tags: Mapping[str, str | None], name: str | None) -> tuple[str, ...]:
    """The tags of a model's endpoints run by the provider called `name` (case-insensitive; an
    endpoint whose name was never seen by the tag's provider slug, `deepinfra/fp8` for "DeepInfra")."""
    if not name:
        return ()
    wanted = _squash(name)
    return tuple(sorted(t for t, known in tags.items()
                        if (known is not None and known.casefold() == name.casefold())
                        or (known is None and _squash(t.split("/")[0]) == wanted)))


def served_names(rows: Iterable[tuple[str, str, str | None]]) -> dict[str, dict[str, str | None]]:
    """model -> tag -> the provider name its replies gave most often, from (model, tag, served_by) rows."""
    seen: dict[str, dict[str, dict[str, int]]] = {}
    for model, tag, name in rows:
        counts = seen.setdefault(model, {}).setdefault(tag, {})
        if name:
            counts[name] = counts.get(name, 0) + 1
    return {m: {t: max(c, key=lambda n: (c[n], n)) if c else None for t, c in tags.items()} for m, tags in seen.items()}


def round_names(report: RoundResults) -> dict[str, dict[str, str | None]]:
    """model -> tag -> provider name of a round's endpoints: discovery's (results.json `names`), else the one
    its replies gave, else None (matched by its slug)."""
    served = served_names((c.model, c.provider, c.served_by) for c in report.cases)
    return {m: {**{t: None for t in entry.providers}, **served.get(m, {}), **entry.names}
            for m, entry in report.models.items()}


def route_audit(records: Iterable[ProductionRecord], entries: Sequence[Exclusion], names: Names) -> tuple[Leak, ...]:
    """Every leak in `records`: replies served by an endpoint `entries` excluded through the window."""
    leaks = []
    known = {m: {**{e.provider: None for e in entries if e.model == m}, **tags} for m, tags in names.items()}
    for e in entries:   # an excluded endpoint the probes never heard from is matched by its slug
        known.setdefault(e.model, {}).setdefault(e.provider, None)
    for r in records:
        sampled: dict[str, int] = {}
        for cell in r.served:
            sampled[cell.model] = sampled.get(cell.model, 0) + cell.n
        for cell in r.served:
            tags = endpoints_named(known.get(cell.model, {}), cell.provider)
            if len(tags) != 1 or cell.ambiguous:
                continue
            layer = excluded_through(entries, cell.model, tags[0], r.window_start - GRACE, r.window_end)
            if layer is not None:
                leaks.append(Leak(model=cell.model, provider=tags[0], exporter=r.exporter, window_start=r.window_start,
                                  window_end=r.window_end, leaked=cell.n, sampled=sampled[cell.model], layer=layer))
    return tuple(sorted(leaks, key=lambda k: (k.model, k.provider, k.exporter, k.window_start)))


def excluded_through(entries: Iterable[Exclusion], model: str, tag: str, start: datetime, end: datetime) -> str | None:
    """The layer of an entry that kept `tag` in `model`'s provider.ignore from `start` to `end` (None: none did)."""
    for e in entries:
        if (e.model, e.provider) == (model, tag) and not e.observed and (e.since is None or e.since <= start) \
                and (e.expires is None or e.expires >= end):
            return e.layer
    return None


def newest(records: Iterable[ProductionRecord], now: datetime) -> list[ProductionRecord]:
    """Each exporter's newest record, when it ended within FRESH before `now` (what a round audits)."""
    last: dict[str, ProductionRecord] = {}
    for r in records:
        if r.window_end <= now and (r.exporter not in last or r.window_end > last[r.exporter].window_end):
            last[r.exporter] = r
    return [r for _, r in sorted(last.items()) if r.window_end > now - FRESH]


def leak_line(k: Leak) -> str:
    """One leak in words: "aurora/fp8: 12/400 sampled replies (3.0 %) served while excluded (suspension; ...)"."""
    return (f"{k.provider}: {k.leaked}/{k.sampled} sampled replies ({k.rate:.1%}) served while excluded "
            f"({k.layer}; exporter {k.exporter}, window {fmt_time(k.window_start)}..{fmt_time(k.window_end)})"
            + (": the backend is not applying provider.ignore" if k.rate > LEAK_ALARM else ""))


def alarms(leaks: Iterable[Leak]) -> list[Decision]:
    """A route_leak decision for each leak above LEAK_ALARM of its window."""
    return [Decision(k.model, k.provider, Action.ROUTE_LEAK, Rule.ROUTE_AUDIT,
                     f"{k.leaked} of {k.sampled} replies ({k.rate:.1%}) exporter {k.exporter} sampled of the model in "
                     f"{fmt_time(k.window_start)}..{fmt_time(k.window_end)} were served by it while the {k.layer} "
                     "layer excluded it: that backend is not applying provider.ignore (a stale copy of the files, "
                     "a fallback, an alias of the model)")
            for k in leaks if k.rate > LEAK_ALARM]


def _squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.casefold())

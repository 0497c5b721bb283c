"""`canary explain`: what canary knew of a model's endpoints around one moment (docs/explain.md, section 3).

Per endpoint: its state then and whether provider.ignore held it (canary/history/past.py over the
audit log), the last two rounds before and the first after (the history's round files; a compacted
day as its counts), the production evidence and route audit of the windows around it, the user
reports of the day before and after. Files only; `to_text` is one screen, `to_json` the same for a script.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import msgspec

from canary.history.aggregate import DayAggregate, endpoint_rounds
from canary.history.past import PastIgnore, ignore_at
from canary.history.rows import RoundRecord
from canary.history.store import SUFFIX, day_path, read_day, read_round
from canary.state.audit import AuditLine
from canary.state.production_files import records_between
from core.layers import SUSPENSION, Exclusion
from core.production import CheckOutcome, ProductionRecord
from core.times import parse_time, stamp
from core.untrusted import clean
from judge.suspension.decisions import Leak
from judge.suspension.reports import MIN_REPORTS, REPORT_SPAN, reports_by_endpoint
from judge.suspension.route_audit import GRACE, endpoints_named, route_audit, served_names

NEAR = timedelta(minutes=30)   # the production windows shown: those overlapping the half hour either side


@dataclass(frozen=True, slots=True)
class RoundSeen:
    """One round of one endpoint: its class, each contract's verdict, the judge's decisions about it."""

    round_id: str
    at: datetime
    klass: str                                        # failed | clean | frozen | maintenance
    cases: tuple[tuple[str, str, str, str], ...]      # (contract, outcome, code, reason)
    decisions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DaySeen:
    """A compacted day of one endpoint: its rounds' classes and each contract's failures."""

    day: str
    classes: dict[str, int]
    failed: dict[str, tuple[int, int]]                # contract -> (fails, cases)


@dataclass(frozen=True, slots=True)
class EndpointStory:
    provider: str
    name: str | None                                  # the provider's name in replies ("DeepInfra")
    state: str                                        # active | suspended | excluded
    layer: str | None                                 # the layer that excluded it
    why: str | None                                   # where that comes from (the audit line, the file line)
    in_ignore: bool                                   # provider.ignore as the backend built it held it
    would_suspend: bool                               # an observe-mode suspension then: not in provider.ignore
    before: tuple[RoundSeen, ...]                     # the last two rounds before the moment
    after: RoundSeen | None                           # the first round after it
    day: DaySeen | None                               # the moment's day, compacted
    production: dict[str, tuple[int, int, int, int]]  # check -> (fails, replies, peers' fails, peers' replies)
    served: int                                       # sampled replies it served in those windows
    leaks: tuple[Leak, ...]                           # ...while provider.ignore excluded it
    reports_before: int                               # user reports in the day before the moment
    reports_after: int                                # ...and in the day after


@dataclass(frozen=True, slots=True)
class Explanation:
    model: str
    at: datetime
    generation: str | None
    served_by: str | None                             # the generation's provider, as OpenRouter named it
    ignore: tuple[str, ...]                           # provider.ignore then
    endpoints: tuple[EndpointStory, ...]
    caveats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Asked:
    """Which endpoints a question is about: `provider`, or the one OpenRouter says served `generation`
    (`served_by`), or (neither) every one."""

    provider: str | None = None
    generation: str | None = None
    served_by: str | None = None


@dataclass(frozen=True, slots=True)
class _Around:
    """What every endpoint's story reads around the moment."""

    past: PastIgnore
    before: Sequence[dict[str, RoundSeen]]
    after: Sequence[dict[str, RoundSeen]]
    day: DayAggregate | None
    near: Sequence[ProductionRecord]
    named: Callable[[str | None], tuple[str, ...]]
    leaks: Sequence[Leak]
    reports: Sequence[dict[tuple[str, str], int]]


def explain(model: str, at: datetime, *, history: Path, audit_lines: Sequence[AuditLine],
            exclusions: Sequence[Exclusion], known: Iterable[str] = (), production: Path | None = None,
            asked: Asked = Asked()) -> Explanation:
    """The story of `model`'s endpoints at `at` (those `asked` about)."""
    provider, served_by = asked.provider, asked.served_by
    before, after, day = rounds_near(history, at)
    past = ignore_at(model, at, audit_lines, exclusions)
    records, caveats = records_between(production, at - REPORT_SPAN, at + REPORT_SPAN)
    seen = [r for r in (*before, *after) if model in r.models]
    names = served_names((c.model, c.provider, c.served_by) for r in seen for c in r.cases)
    tags: dict[str, str | None] = {t: None for t in (*known, *(e.provider for e in (*past.entries, *past.observe_only)),
                              *(t for r in seen for t in r.models[model]),
                              *(p for m, p in (day.classes if day else ()) if m == model))}
    tags = {**tags, **names.get(model, {})}
    names[model] = tags
    named = functools.cache(lambda name: endpoints_named(tags, name))
    chosen = sorted(tags)
    if provider is not None:
        chosen = [provider]
    elif served_by is not None:
        matched = endpoints_named(tags, served_by)
        chosen = list(matched) or chosen
        if not matched:
            caveats.append(f"no endpoint of {model} is known as {served_by!r}: every endpoint is shown")
    near = [r for r in records if r.window_end > at - NEAR and r.window_start < at + NEAR]
    leaks = [k for r in near for k in route_audit([r], _in_force(model, r, audit_lines, exclusions), names)]
    reports = [reports_by_endpoint(records, names, since=since, until=until)
               for since, until in ((at - REPORT_SPAN, at), (at, at + REPORT_SPAN))]
    before_seen, after_seen = ([_rounds_seen(r, model) for r in rs] for rs in (before, after))
    around = _Around(past, before_seen, after_seen, day, near, named, leaks, reports)
    stories = tuple(_story(model, t, tags.get(t), around) for t in chosen)
    if not chosen:
        caveats.append(f"no endpoint of {model} is known then: no round of the history near it, no layer names one")
    if day is not None:
        caveats.append(f"{day.day} is compacted (older than the detail window): its rounds are shown as counts")
    if production is None:
        caveats.append("no production records given (--production DIR): no production evidence, reports or leaks")
    return Explanation(model, at, asked.generation, served_by, tuple(past.ignore), stories, (*caveats, *past.caveats))


def _story(model: str, tag: str, name: str | None, around: _Around) -> EndpointStory:
    past, near, named = around.past, around.near, around.named
    entry = next((e for e in past.entries if e.provider == tag), None)
    production: dict[str, list[int]] = {}
    for c in (c for r in near for c in r.counts if c.model == model and c.provider):
        ours = tag in named(c.provider)
        cell = production.setdefault(c.check, [0, 0, 0, 0])
        cell[0 if ours else 2] += c.n * (c.outcome is CheckOutcome.FAIL)
        cell[1 if ours else 3] += c.n
    return EndpointStory(
        provider=tag, name=name, state="active" if entry is None else "suspended" if entry.layer == SUSPENSION
        else "excluded", layer=None if entry is None else entry.layer, why=None if entry is None else entry.source,
        in_ignore=entry is not None, would_suspend=any(e.provider == tag for e in past.observe_only),
        before=tuple(r[tag] for r in around.before if tag in r),
        after=next((r[tag] for r in around.after if tag in r), None), day=_day_seen(around.day, model, tag),
        production={k: (a, b, c, d) for k, (a, b, c, d) in sorted(production.items())},
        served=sum(s.n for r in near for s in r.served if s.model == model and tag in named(s.provider)),
        leaks=tuple(k for k in around.leaks if k.provider == tag),
        reports_before=around.reports[0].get((model, tag), 0), reports_after=around.reports[1].get((model, tag), 0))


def _in_force(model: str, record: ProductionRecord, audit_lines: Sequence[AuditLine],
              exclusions: Sequence[Exclusion]) -> list[Exclusion]:
    """The entries of provider.ignore at the window's start (less the grace) still there at its end."""
    start, end = record.window_start - GRACE, record.window_end
    kept = set(ignore_at(model, start, audit_lines, exclusions).ignore)
    return [Exclusion(model, e.provider, e.layer, "", since=start, expires=end)
            for e in ignore_at(model, end, audit_lines, exclusions).entries if e.provider in kept]


def _rounds_seen(record: RoundRecord, model: str) -> dict[str, RoundSeen]:
    """tag -> the round of each endpoint of `model` in `record`."""
    cases: dict[str, list[tuple[str, str, str, str]]] = {}
    for c in record.cases:
        if c.model == model and not c.control:
            cases.setdefault(c.provider, []).append((c.contract, c.outcome, c.code, c.reason or ""))
    decisions: dict[str, list[str]] = {}
    for d in record.decisions:
        if d.model == model:
            decisions.setdefault(d.provider, []).append(f"{d.action} ({d.rule}): {d.reason}")
    return {e.provider: RoundSeen(record.round_id, record.started_at, e.klass, tuple(cases.get(e.provider, ())),
                                  tuple(decisions.get(e.provider, ())))
            for e in endpoint_rounds(record) if e.model == model}


def _day_seen(day: DayAggregate | None, model: str, tag: str) -> DaySeen | None:
    if day is None or (model, tag) not in day.classes:
        return None
    failed: dict[str, tuple[int, int]] = {}
    for g in day.groups:
        if (g.model, g.provider) == (model, tag) and not g.control:
            failed[g.contract] = (g.outcomes.get("fail", 0), sum(g.outcomes.values()))
    return DaySeen(day.day, dict(day.classes[(model, tag)]), dict(sorted(failed.items())))


def rounds_near(root: Path, at: datetime) -> tuple[list[RoundRecord], list[RoundRecord], DayAggregate | None]:
    """The last two round files before `at`, the first after it (the day before to the day after), and
    `at`'s compacted day when no round file before it is left."""
    files: list[tuple[datetime, Path]] = []
    for d in (at.date() - timedelta(days=1), at.date(), at.date() + timedelta(days=1)):
        for path in sorted((Path(root) / "rounds" / f"{d:%Y-%m}" / f"{d:%d}").glob(f"*{SUFFIX}")):
            n = path.name
            files.append((parse_time(f"{d.isoformat()}T{n[:2]}:{n[2:4]}:{n[4:6]}Z", str(path)), path))
    before = [read_round(p) for t, p in [f for f in files if f[0] <= at][-2:]]
    after = [read_round(p) for t, p in [f for f in files if f[0] > at][:1]]
    compacted = day_path(Path(root), at.date().isoformat())
    return before, after, read_day(compacted) if not before and compacted.exists() else None


def to_json(explanation: Explanation) -> str:
    """The explanation as JSON (times in RFC 3339; what a script reads)."""
    return msgspec.json.encode(explanation).decode()


def to_text(x: Explanation) -> str:
    """One screen for a person: an endpoint without a failed round or anything else to say on one line
    (upstream and people's text cleaned)."""
    head = f"{clean(x.model, 120)} at {stamp(x.at)}"
    if x.generation:
        head += f"; generation {clean(x.generation, 80)} served by {clean(x.served_by or '?', 80)}"
    out = [head, f"provider.ignore then: {', '.join(clean(t, 60) for t in x.ignore) or '(nothing excluded)'}", ""]
    for e in x.endpoints:
        rounds = [*e.before, *([e.after] if e.after else [])]
        state = e.state.upper() + (f" by the {e.layer} layer" if e.layer else "")
        state += ": in provider.ignore" if e.in_ignore else ": not in provider.ignore"
        state += " (would be suspended in enforce mode)" if e.would_suspend else ""
        checks = "; ".join(f"{k} {a}/{b} failed vs peers {c}/{d}" for k, (a, b, c, d) in e.production.items() if a)
        said = [f"rounds {', '.join(_round_words(r) for r in rounds) or '(none near it)'}",
                *([f"production: {e.served} sampled replies served" + (f"; {checks}" if checks else "")]
                  if e.served or checks else []),
                *([f"user reports: {e.reports_before} in the day before, {e.reports_after} in the day after"
                   + (" (two or more within a day: a confirmation is due)" if e.reports_before >= MIN_REPORTS else "")]
                  if e.reports_before or e.reports_after else [])]
        line = f"{clean(e.provider, 60)}" + (f" ({clean(e.name, 60)})" if e.name else "") + f": {state}"
        if e.state == "active" and not (e.would_suspend or checks or e.leaks or e.day or e.reports_before
                                        or any(r.klass == "failed" for r in rounds)):
            out.append("; ".join([line, *said]))
            continue
        out += [line, *([f"  why: {clean(e.why, 300)}"] if e.why else []), f"  {said[0]}"]
        for r in rounds:
            out += [f"    {r.at:%H:%M} {c}: [{code}] {clean(why, 200)}" for c, o, code, why in r.cases if o == "fail"]
            out += [f"    {r.at:%H:%M} decision {clean(d, 200)}" for d in r.decisions]
        if e.day:
            classes = ", ".join(f"{n} {k}" for k, n in sorted(e.day.classes.items()))
            fails = ", ".join(f"{c} {f}/{n} failed" for c, (f, n) in e.day.failed.items())
            out.append(f"  {e.day.day} (compacted): rounds {classes}; {fails}")
        out += [f"  {line}" for line in said[1:]]
        out += [f"  LEAK: {k.leaked}/{k.sampled} sampled replies of exporter {clean(k.exporter, 60)} served while "
                f"excluded ({stamp(k.window_start)}..{stamp(k.window_end)}): the backend was not applying "
                "provider.ignore" for k in e.leaks]
    out += [*([""] if x.endpoints else []), "caveats:", *(f"  - {clean(c, 400)}" for c in x.caveats)]
    return "\n".join(out) + "\n"


def _round_words(r: RoundSeen) -> str:
    """"16:30 frozen (latency transport_other)": a round's time, class and what did not pass."""
    others = " ".join(f"{c} {code}" for c, o, code, _ in r.cases if o != "pass")
    return f"{r.at:%H:%M} {r.klass}" + (f" ({clean(others, 120)})" if others else "")

"""Per-endpoint round classes, latency histograms, and daily aggregates (pure).

Older days are compacted into one aggregate per day (what it keeps: docs/file-formats.md, the round
history). The histograms have HISTOGRAM_STEPS buckets per decade (about 12 % wide), so they merge
exactly and a percentile read from them is within one bucket of the true one; daily series are read
from them whether or not the day was compacted yet, so compaction never changes a chart.

An endpoint's round class is for display (docs/history.md, tiers); the judge's rules
(judge/suspension/round.py) decide streaks, with the model-wide guard this does not apply.
Positive-control cases judge the probe and are not counted for the host.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from canary.history.rows import CaseRow, DecisionRow, RoundRecord
from core.times import stamp

FAILED, CLEAN, FROZEN, MAINTENANCE = "failed", "clean", "frozen", "maintenance"
HISTOGRAM_STEPS = 20          # buckets per decade: 10 ** (1/20) = 1.122, i.e. ~12 % wide
_SMALLEST = 1e-3              # values at or below this share the lowest bucket


@dataclass(frozen=True, slots=True)
class EndpointRound:
    """One endpoint in one round: its class and the codes of the cases that did not pass."""

    model: str
    provider: str
    klass: str
    codes: tuple[str, ...] = ()     # "contract:code" of each counted case that did not pass


def endpoint_rounds(record: RoundRecord) -> tuple[EndpointRound, ...]:
    """The class of every endpoint probed in the round: `maintenance` when the judge held it, else `failed`
    if a counted case failed, `clean` if every contract probed on the model passed or did not apply on it
    (one pass at least), else `frozen`."""
    by_endpoint: dict[tuple[str, str], list[CaseRow]] = {}
    expected: dict[str, set[str]] = {}
    for row in record.cases:
        by_endpoint.setdefault((row.model, row.provider), []).append(row)
        expected.setdefault(row.model, set()).add(row.contract)
    held = {(d.model, d.provider) for d in record.decisions if d.rule == MAINTENANCE}
    out = []
    for (model, provider), rows in sorted(by_endpoint.items()):
        counted = [r for r in rows if not r.control]
        outcomes = {r.outcome for r in counted}
        probed = {r.contract for r in rows}
        if (model, provider) in held:
            klass = MAINTENANCE
        elif "fail" in outcomes:
            klass = FAILED
        elif "pass" in outcomes and outcomes <= {"pass", "not_applicable"} and probed >= expected[model]:
            klass = CLEAN
        else:
            klass = FROZEN
        codes = tuple(sorted(f"{r.contract}:{r.code}" for r in counted if r.outcome not in ("pass", "not_applicable")))
        out.append(EndpointRound(model, provider, klass, codes))
    return tuple(out)


def bucket(value: float) -> int:
    """The histogram bucket of a positive value."""
    return math.floor(HISTOGRAM_STEPS * math.log10(max(value, _SMALLEST)) + 1e-9)


def bucket_value(index: int) -> float:
    """The value a bucket stands for: its geometric middle."""
    return float(10 ** ((index + 0.5) / HISTOGRAM_STEPS))


def histogram(values: Iterable[float | None]) -> dict[int, int]:
    return dict(Counter(bucket(v) for v in values if v is not None))


def histogram_percentile(hist: Mapping[int, int], q: float) -> float | None:
    """The q-th percentile (0-100) of a histogram: the bucket holding that rank (nearest rank)."""
    total = sum(hist.values())
    if total == 0:
        return None
    rank = max(1, math.ceil(q / 100 * total))
    seen = 0
    for index in sorted(hist):
        seen += hist[index]
        if seen >= rank:
            return round(bucket_value(index), 4)
    return None  # unreachable: the last bucket reaches the total


def merge_histograms(hists: Iterable[Mapping[int, int]]) -> dict[int, int]:
    total: Counter[int] = Counter()
    for h in hists:
        total.update(h)
    return dict(total)


@dataclass(frozen=True, slots=True)
class Group:
    """Everything kept of one (model, provider, contract, control) over one day."""

    model: str
    provider: str
    contract: str
    control: bool
    outcomes: Mapping[str, int] = field(default_factory=dict)
    languages: Mapping[str, int] = field(default_factory=dict)   # "pt/pass" -> count
    codes: Mapping[str, int] = field(default_factory=dict)
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    ttft: Mapping[int, int] = field(default_factory=dict)
    tps: Mapping[int, int] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str, bool]:
        return (self.model, self.provider, self.contract, self.control)


@dataclass(frozen=True, slots=True)
class RoundRef:
    round_id: str
    started_at: str
    complete: bool
    mode: str | None


@dataclass(frozen=True, slots=True)
class DayAggregate:
    """One compacted day."""

    day: str                                    # YYYY-MM-DD (UTC)
    rounds: tuple[RoundRef, ...]
    groups: tuple[Group, ...]
    classes: Mapping[tuple[str, str], Mapping[str, int]]   # (model, provider) -> {failed|clean|frozen: n}
    decisions: tuple[tuple[str, DecisionRow], ...]       # (round_id, decision)

    @property
    def round_ids(self) -> frozenset[str]:
        return frozenset(r.round_id for r in self.rounds)


def aggregate_day(day: str, records: Sequence[RoundRecord], previous: DayAggregate | None = None) -> DayAggregate:
    """The aggregate of `records` (all of `day`), merged into `previous` (rounds it has are skipped)."""
    known = previous.round_ids if previous else frozenset()
    fresh = sorted((r for r in records if r.round_id not in known), key=lambda r: (r.started_at, r.round_id))
    groups = {g.key: g for g in (previous.groups if previous else ())}
    previous_classes = previous.classes if previous else {}
    classes: dict[tuple[str, str], Counter[str]] = {k: Counter(v) for k, v in previous_classes.items()}
    decisions = list(previous.decisions) if previous else []
    rounds = list(previous.rounds) if previous else []
    for record in fresh:
        rounds.append(RoundRef(record.round_id, stamp(record.started_at), record.complete, record.mode))
        decisions.extend((record.round_id, d) for d in record.decisions)
        for er in endpoint_rounds(record):
            classes.setdefault((er.model, er.provider), Counter())[er.klass] += 1
        for row in record.cases:
            key = (row.model, row.provider, row.contract, row.control)
            groups[key] = _add(groups.get(key) or Group(row.model, row.provider, row.contract, row.control), row)
    return DayAggregate(
        day=day, rounds=tuple(sorted(rounds, key=lambda r: (r.started_at, r.round_id))),
        groups=tuple(groups[k] for k in sorted(groups)),
        classes={k: dict(sorted(v.items())) for k, v in sorted(classes.items())},
        decisions=tuple(decisions),
    )


def _add(group: Group, row: CaseRow) -> Group:
    outcomes = Counter(group.outcomes)
    outcomes[row.outcome] += 1
    codes = Counter(group.codes)
    if row.outcome not in ("pass", "not_applicable"):
        codes[row.code] += 1
    languages = Counter(group.languages)
    if row.language:
        languages[f"{row.language}/{row.outcome}"] += 1
    return Group(
        group.model, group.provider, group.contract, group.control,
        outcomes=dict(outcomes), languages=dict(languages), codes=dict(codes), requests=group.requests + row.requests,
        prompt_tokens=group.prompt_tokens + row.prompt_tokens,
        completion_tokens=group.completion_tokens + row.completion_tokens,
        cost_usd=round(group.cost_usd + row.cost_usd, 8),
        ttft=merge_histograms([group.ttft, histogram([row.ttft_s])]),
        tps=merge_histograms([group.tps, histogram([row.tokens_per_s])]),
    )

"""One round shaped for display: results (+ the judge's decisions, if any) -> a `RoundView`, rendered by
canary.outputs.summary. Pure: it only shapes, sorts and counts; every upstream string is cleaned by the
renderers, never here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.results import VIRTUAL, CaseResult, ControlNote, RoundResults
from core.times import fmt_time, stamp
from core.vocabulary import CONTRACTS, LATENCY, ContractName, Outcome
from judge.suspension.card import Card
from judge.suspension.decisions import Action, Decision, RoundDecisions

# GitHub runs the schedule every 30 min but routinely starts runs 5-15 min late; beyond this
# the gap means a run was delayed a lot or dropped, which the reader should know.
GAP_WARNING_MINUTES = 45

# When one (model, provider, contract) has several cases (a hand-made or repeated file), the
# most alarming outcome is the one to show.
SEVERITY = (Outcome.FAIL, Outcome.TRANSPORT_ERROR, Outcome.INCONCLUSIVE, Outcome.PASS, Outcome.NOT_APPLICABLE)



@dataclass(frozen=True, slots=True)
class Cell:
    """One model x provider x contract outcome."""

    outcome: str
    reason: str
    control: bool = False


@dataclass(frozen=True, slots=True)
class Row:
    """One endpoint of one model: its cells by contract and its time to first token."""

    model: str
    provider: str
    cells: dict[str, Cell]
    ttft_s: float | None


@dataclass(frozen=True, slots=True)
class ShownDecision:
    """A decision of the judge as the summary lists it."""

    action: str
    model: str
    provider: str
    reason: str
    until: str | None
    card: tuple[str, ...] = ()   # the evidence card's lines (judge/suspension/card.py), upstream-free but still cleaned
    weak: bool = False           # weak evidence: not significantly worse than its peers


@dataclass(frozen=True, slots=True)
class RoundView:
    """Everything the summary shows, in display order; strings still raw (untrusted)."""

    round_id: str
    started_at: str | None
    virtual_clock: bool             # a simulator round of `canary round` on its virtual clock
    upstream: str | None
    complete: bool
    incomplete_reasons: tuple[str, ...]
    key_limit_note: str | None      # requests refused for the key's limit (RoundResults.key_limit_note)
    contracts: tuple[ContractName, ...]
    rows: tuple[Row, ...]
    counts: dict[str, int]
    weak_probes: tuple[ControlNote, ...]
    unprobed_controls: tuple[ControlNote, ...]
    has_decisions: bool
    stale_decisions: str | None  # round id of a decisions file that belongs to another round
    mode: str | None
    gap_minutes: float | None
    decisions: tuple[ShownDecision, ...]
    ignore: dict[str, tuple[str, ...]]
    would_ignore: dict[str, tuple[str, ...]]

    @property
    def gap_warning(self) -> bool:
        return self.gap_minutes is not None and self.gap_minutes > GAP_WARNING_MINUTES


def build_view(results: RoundResults, decisions: RoundDecisions | None = None) -> RoundView:
    """Shape one round for display."""
    cases = results.cases
    seen = {c.contract for c in cases}
    contracts = tuple(c for c in CONTRACTS if c in seen)
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.outcome.value] = counts.get(case.outcome.value, 0) + 1
    stale = _stale(decisions, results.round_id)
    dec = decisions if stale is None else None
    return RoundView(
        round_id=results.round_id,
        started_at=stamp(results.started_at),
        virtual_clock=results.clock == VIRTUAL,
        upstream=results.upstream,
        complete=results.complete,
        incomplete_reasons=tuple(i.detail for i in results.incomplete),
        key_limit_note=results.key_limit_note,
        contracts=contracts or CONTRACTS,
        rows=_rows(results),
        counts=counts,
        weak_probes=results.weak_probes,
        unprobed_controls=results.unprobed_controls,
        has_decisions=dec is not None,
        stale_decisions=stale,
        mode=(dec.mode or None) if dec is not None else None,
        gap_minutes=float(dec.gap_minutes) if dec is not None and dec.gap_minutes is not None else None,
        decisions=_decisions(dec.decisions) if dec is not None else (),
        ignore=dict(sorted(dec.ignore.items())) if dec is not None else {},
        would_ignore=dict(sorted(dec.would_ignore.items())) if dec is not None else {},
    )


def _stale(decisions: RoundDecisions | None, round_id: str) -> str | None:
    """The decisions' round id when they judged another round (a decisions.json left over from
    the previous round, before `canary judge` ran on this one): showing them would mislead."""
    if decisions is None or not decisions.round_id or decisions.round_id == round_id:
        return None
    return decisions.round_id


def _rows(results: RoundResults) -> tuple[Row, ...]:
    by_endpoint: dict[tuple[str, str], list[CaseResult]] = {}
    # Discovered endpoints with no case yet (a cut-short round) still get a row: a blank
    # row is information, a missing one hides a host.
    for model, entry in results.models.items():
        for provider in entry.providers:
            by_endpoint.setdefault((model, provider), [])
    for case in results.cases:
        by_endpoint.setdefault((case.model, case.provider), []).append(case)
    rows = []
    for (model, provider), group in sorted(by_endpoint.items()):
        cells: dict[str, Cell] = {}
        for case in sorted(group, key=lambda c: SEVERITY.index(c.outcome)):
            cells.setdefault(case.contract, Cell(outcome=case.outcome.value, reason=case.reason, control=case.control))
        rows.append(Row(model, provider, cells, _ttft(group)))
    return tuple(rows)


def _ttft(group: list[CaseResult]) -> float | None:
    """The latency contract's TTFT (what the threshold judges), else the fastest seen.

    A latency case without a TTFT (the stream never started) shows none: another contract's
    fast reply next to a latency transport error would misread as a healthy host.
    """
    latency = [c for c in group if c.contract == LATENCY]
    if latency:
        return latency[0].ttft_s
    others = [c.ttft_s for c in group if c.ttft_s is not None]
    return min(others) if others else None


def _decisions(items: Iterable[Decision]) -> tuple[ShownDecision, ...]:
    order = [a.value for a in Action]   # declared in the order a reader needs them: what changed traffic first
    decisions = [
        ShownDecision(action=d.action.value, model=d.model, provider=d.provider, reason=d.reason,
                      until=fmt_time(d.until), card=card_lines(d.card), weak=d.weak_evidence)
        for d in items
    ]
    return tuple(sorted(decisions, key=lambda d: (
        order.index(d.action) if d.action in order else len(order), d.model, d.provider)))


def card_lines(cards: Iterable[Card]) -> tuple[str, ...]:
    """The one-line texts of a decision's evidence cards (decisions.json `card`)."""
    return tuple(c.text for c in cards)


WEAK_EVIDENCE = ("WEAK EVIDENCE: not significantly worse than its peers on any contract (one-sided Fisher "
                 "test, p >= 0.05 or no peers): the defect may be the probe's or everybody's; check it "
                 "before acting, `canary lift` ends a suspension")


"""Which positive controls a round probes, and which it does not (docs/contracts.md, The positive control).

The engine probes the controls first, in the same event loop as every other case; a refusal case
of another host waits for its model's control results (probes/round/engine.py `control_results`),
so every host is judged against the same control verdict. A control is probed whenever a refusal
case of its model is selected, even when `-k` or `-m` deselected it (`controls_to_keep`); one that
gives no verdict this round is listed in results.json (`unprobed_controls()`), never silent.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from core.results import CaseResult, ControlNote
from core.vocabulary import REFUSAL, Outcome, case_id
from probes.round.cases import Case
from probes.round.planning import RoundPlan

NOT_DISCOVERED = "not discovered"
NOT_SELECTED = "not selected in this run"
NO_VERDICT = (Outcome.TRANSPORT_ERROR, Outcome.INCONCLUSIVE)


def controls_to_keep(selected: Iterable[Case], planned: Iterable[Case]) -> list[Case]:
    """The control cases of `planned` to probe although not in `selected`: those of every model
    with a selected ordinary refusal case (the refusal verdict depends on them)."""
    chosen = list(selected)
    ids = {c.id for c in chosen}
    models = {c.model for c in chosen if c.contract == REFUSAL and not c.control}
    return [c for c in planned if c.control and c.model in models and c.id not in ids]


def unselected_controls(plan: RoundPlan, selected: Collection[str]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per model, (tag, why) of each configured control this run will not probe at all.

    Only models with a selected, ordinary refusal case: a control matters when some host's
    refusal pass depends on it (a `-m latency` run needs none).
    """
    if REFUSAL not in plan.contracts:
        return {}
    cases = [c for c in plan.cases() if isinstance(c, Case)]
    probed = {c.id for c in cases if c.control and c.id in selected}
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for model in plan.endpoints:
        if not any(c.model == model and c.contract == REFUSAL and not c.control and c.id in selected for c in cases):
            continue
        discovered = {ep.provider for ep in plan.endpoints[model]}
        missing = tuple((tag, NOT_DISCOVERED if tag not in discovered else NOT_SELECTED)
                        for tag in plan.controls.get(model, ())
                        if tag not in discovered or case_id(model, tag, REFUSAL) not in probed)
        if missing:
            out[model] = missing
    return out


def unprobed_controls(plan: RoundPlan, selected: Collection[str],
                      cases: Iterable[CaseResult]) -> list[ControlNote]:
    """results.json's `unprobed_controls`: every configured control that gave no verdict this round."""
    out = [ControlNote(model, REFUSAL, tag, f"{tag} {why}" + (
                " by the upstream for this model" if why == NOT_DISCOVERED else " (-k/-m)"))
           for model, missing in unselected_controls(plan, selected).items() for tag, why in missing]
    for c in cases:
        if c.control and c.outcome in NO_VERDICT:
            out.append(ControlNote(c.model, REFUSAL, c.provider,
                                   f"{c.provider} probed without a verdict ({c.outcome.value}): {c.reason}"))
    return out

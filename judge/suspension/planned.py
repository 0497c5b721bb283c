"""The round against its plan (pure; docs/judge.md, Two refusals): planned models without results, and
the shards a re-run of failed jobs reused. A model whose probe job died before uploading is simply
absent, and without the plan the round would look complete.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from core.results import ResultsError, RoundResults
from core.tags import is_valid_tag
from judge.suspension.decisions import WHOLE_ROUND, Action, Decision, Rule

MISSING_SHARD = "no results: its probe job left no shard (cancelled, timed out or failed); nothing moves for it"
REUSED_SHARD = ("its shard {shard} was judged already, in round {round} (a re-run of failed jobs reuses the shards "
                "of the jobs that succeeded): not judged again; nothing moves for it")


def expect_models(report: RoundResults, planned: Sequence[str]) -> RoundResults:
    """The round against its plan: each planned model without results is recorded as missing."""
    for model in planned:
        if not is_valid_tag(model):
            raise ResultsError(f"planned model {ascii(model)[:80]} is not a model id")
    present = set(report.models) | {c.model for c in report.cases} | set(report.missing)  # missing: its own reason
    missing = {m: MISSING_SHARD for m in dict.fromkeys(planned) if m not in present}
    return replace(report, missing={**report.missing, **missing}) if missing else report


def missing_model_decisions(report: RoundResults, *, reused: frozenset[str] = frozenset()) -> list[Decision]:
    """One `incomplete_round` decision per missing model (none when the whole round is incomplete: the
    rules record that once). `reused` models were judged already: one for them would ping the heartbeat's
    failure URL after a correct re-run."""
    if not report.complete:
        return []
    return [Decision(model, WHOLE_ROUND, Action.INCOMPLETE_ROUND, Rule.INCOMPLETE_ROUND, why)
            for model, why in sorted(report.missing.items()) if model not in reused]


@dataclass(frozen=True, slots=True)
class Rerun:
    """Which shards of a round to judge when some were judged already (a re-run of failed jobs)."""

    judge: tuple[int, ...]              # positions of the shards to judge
    reused: Mapping[str, str]           # shard id -> the applied round that judged it


def split_rerun(shard_ids: Sequence[str], applied_rounds: Sequence[str]) -> Rerun:
    """The shards of this run that an applied round already holds, set apart from the new ones: merged,
    they would make a round refused as out of order. With no new shard, the newest applied round they
    belong to is the one (already applied: its decisions are rewritten, nothing changes)."""
    merged = "+".join(sorted(set(shard_ids)))
    if merged in applied_rounds:
        return Rerun(tuple(range(len(shard_ids))), {})
    holder = {part: applied for applied in applied_rounds for part in applied.split("+")}  # newest wins
    reused = {sid: holder[sid] for sid in shard_ids if sid in holder}
    if not reused:
        return Rerun(tuple(range(len(shard_ids))), {})
    fresh = tuple(i for i, sid in enumerate(shard_ids) if sid not in reused)
    if fresh:
        return Rerun(fresh, reused)
    newest = max(reused.values(), key=list(applied_rounds).index)
    return Rerun(tuple(i for i, sid in enumerate(shard_ids) if reused[sid] == newest),
                 {sid: r for sid, r in reused.items() if r != newest})


def reused_models(report: RoundResults, shards: Mapping[str, RoundResults], reused: Mapping[str, str]) -> RoundResults:
    """The round with the models of reused shards recorded as missing, saying which round judged them."""
    missing = {m: REUSED_SHARD.format(shard=sid, round=reused[sid]) for sid, shard in shards.items()
               if sid in reused for m in [*shard.models, *(c.model for c in shard.cases)]
               if m not in report.models}
    return replace(report, missing={**missing, **report.missing}) if missing else report

"""The suspension state machine (pure): one round in, a new state and decisions out. The rules, with
every number, are told once in docs/judge.md; this module applies them. Each suspension shrinks the
usable set before the next candidate of the model is weighed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from enum import StrEnum

from core.errors import RuleError
from core.layers import Exclusion, people_excluded
from core.policy import ENFORCE, MAX_LAST_REASONS, MAX_REASON_CHARS, OBSERVE, Mode, Policy
from core.production import ProductionRecord
from core.results import RoundResults
from core.vocabulary import ContractName
from judge.suspension.coverage import also_removed, covers
from judge.suspension.decisions import WHOLE_ROUND, Action, Decision, Evidence, Leak, Rule
from judge.suspension.evidence import (
    add_round_to_windows,
    card_for,
    decision_cards,
    failed_contracts,
    strength,
)
from judge.suspension.exclusions import suspension_entries
from judge.suspension.ladder import fade, next_suspension
from judge.suspension.maintenance import MaintenanceWindow, held_decisions, held_endpoints, without_held
from judge.suspension.production import apply_production, schedule, weigh
from judge.suspension.reliability import RELIABILITY, apply_reliability
from judge.suspension.reports import to_confirm as reports_to_confirm
from judge.suspension.rotation import next_language
from judge.suspension.round import ModelRound, ProviderRound, RoundClass, classify_round
from judge.suspension.route_audit import alarms, newest, round_names, route_audit
from judge.suspension.state import JudgeState, LastRound, ProviderState
from judge.suspension.streaks import Counted, count

# How many endpoints a whole-round decision names before it says "and N more".
MAX_NAMED = 5


class RoundOrderError(RuleError):
    """A round older than (or as old as) the last applied one."""


class LiftError(RuleError):
    """`canary lift` for a provider that has no active suspension."""


# Probe and judge run on different machines: a round may look this far ahead of the judge's clock.
CLOCK_SKEW = timedelta(minutes=5)


class RoundOrder(StrEnum):
    NEW = "new"
    ALREADY_APPLIED = "already_applied"


def check_round_order(state: JudgeState, report: RoundResults, *, now: datetime | None = None) -> RoundOrder:
    """NEW or ALREADY_APPLIED; raises RoundOrderError for a round that is out of order, or (given
    `now`) that started after `now` + CLOCK_SKEW."""
    if report.round_id in state.applied_rounds:
        return RoundOrder.ALREADY_APPLIED
    if now is not None and report.started_at > now + CLOCK_SKEW:
        raise RoundOrderError(
            f"round {report.round_id} started at {report.started_at.isoformat()}, after now "
            f"({now.isoformat()}): a probe clock set ahead, or a made-up file. Applied, it would refuse every "
            "real round until that date as out of order, so it is refused and nothing was changed")
    last = state.last_round
    if last is not None and report.started_at <= last.started_at:
        raise RoundOrderError(
            f"round {report.round_id} started at {report.started_at.isoformat()}, not after the last "
            f"applied round {last.round_id} ({last.started_at.isoformat()}); rounds must be applied in "
            "order, so this one is refused and nothing was changed. A later round was judged since these "
            "results were probed: a re-run of an older workflow run (or its judge job) after the next round "
            "was committed has nothing left to judge, since that round's verdicts are newer; start a new run "
            "to probe again")
    return RoundOrder.NEW


def judge_round(state: JudgeState, report: RoundResults, policy: Policy, *, now: datetime,
                people: Sequence[Exclusion] = (), maintenance: Sequence[MaintenanceWindow] = (),
                production: Sequence[ProductionRecord] = ()) -> tuple[JudgeState, list[Decision], tuple[Leak, ...]]:
    """apply_round with people's exclusion entries (`people`), then the route audit of the production
    records' newest windows against the lists in force before this round: the new state, the decisions
    (the leaks' alarms last) and the leaks."""
    new, decisions = apply_round(state, report, policy, now=now, excluded=people_excluded(people, now),
                                 maintenance=maintenance, production=production)
    leaks = route_audit(newest(production, now), (*people, *suspension_entries(state)), round_names(report))
    return new, decisions + alarms(leaks), leaks


def apply_round(state: JudgeState, report: RoundResults, policy: Policy, *, now: datetime,
                excluded: Mapping[str, frozenset[str]] | None = None,
                maintenance: Sequence[MaintenanceWindow] = (),
                production: Sequence[ProductionRecord] = ()) -> tuple[JudgeState, list[Decision]]:
    """Apply one round in `policy.mode`. `excluded` = providers excluded by people (builtin + unexpired incidents);
    `maintenance` = people's maintenance windows (judge/suspension/maintenance.py: a failed round in one is held);
    `production` = a chat backend's records (judge/suspension/production.py: evidence, confirmations and
    rules.production)."""
    mode = policy.mode
    if check_round_order(state, report) is RoundOrder.ALREADY_APPLIED:
        return state, []
    applied = (state.applied_rounds + (report.round_id,))[-policy.remembered_rounds:]
    booked = replace(state, applied_rounds=applied, last_round=LastRound(report.round_id, report.started_at, now))
    if not report.complete:
        reason = f"incomplete round: {report.incomplete_reason or 'no reason given'}; no streak changed"
        return booked, [Decision(WHOLE_ROUND, WHOLE_ROUND, Action.INCOMPLETE_ROUND, Rule.INCOMPLETE_ROUND, reason)]
    decisions: list[Decision] = []
    # The state remembers the mode its last round was judged in (informational): the switch itself
    # needs no memory, since every enforce round enforces what observe rounds recorded (_enforce_records).
    new = replace(booked, mode=mode)
    new = _expire(new, now, decisions)
    rounds = classify_round(report, policy)
    held = held_endpoints(rounds, maintenance, report.started_at)
    if held:  # judged without the held endpoints' cases: frozen, out of the windows and the guard
        decisions.extend(held_decisions(rounds, held))
        report = without_held(report, held)
        rounds = classify_round(report, policy)
    decisions.extend(_probe_decisions(report, rounds))
    new = add_round_to_windows(new, report, policy)  # the evidence windows, before the streaks move
    if policy.reliability:  # opt-in: a host significantly less reliable than its peers fails the round
        windows = new
        rounds = apply_reliability(rounds, report, lambda m, p: card_for(windows, m, p, RELIABILITY))
    weighed = weigh(production, {m: e.names for m, e in report.models.items()}, policy.model_wide_guard,
                    now=report.started_at)
    rounds, resolved = apply_production(rounds, report, weighed, policy.production)
    decisions.extend(resolved)
    excluded = excluded or {}
    for model, mround in rounds.items():
        new = _count(new, mround, policy, report.started_at, decisions)
        new = _restore(new, mround, policy, decisions)
        if mode == ENFORCE:
            new = _enforce_records(new, mround, policy, now, excluded.get(model, frozenset()), decisions)
        new = _suspend(new, mround, policy, now, mode, excluded.get(model, frozenset()), decisions)
    new, scheduled = schedule(new, weighed, policy.production, _reported(report, production))
    return _tidy(new, rounds, now, policy), decisions + scheduled


def _reported(report: RoundResults,
              production: Sequence[ProductionRecord]) -> dict[tuple[str, str], tuple[int, tuple[ContractName, ...]]]:
    """(model, tag) -> (its users' reports, the contracts it was probed on) of each endpoint two reports
    within a day ask to confirm (judge/suspension/reports.py)."""
    probed: dict[tuple[str, str], set[ContractName]] = {}
    for c in report.cases:
        if not c.control:
            probed.setdefault((c.model, c.provider), set()).add(c.contract)
    return {e: (n, tuple(sorted(probed.get(e, ()))))
            for e, n in reports_to_confirm(production, round_names(report), now=report.started_at).items()}


def lift(state: JudgeState, model: str, provider: str, *, now: datetime, reason: str) -> tuple[JudgeState, Decision]:
    """End a suspension by hand. The failed streak restarts, so two fresh failed rounds are needed."""
    ps = state.provider(model, provider)
    if ps.suspension is None or not ps.suspension.active(now):
        raise LiftError(f"{provider} of {model} has no active suspension to lift")
    decision = Decision(model, provider, Action.LIFT, Rule.MANUAL, reason, rung=ps.suspension.rung)
    return state.with_provider(model, provider, replace(ps, suspension=None, failed_streak=0,
                                                        failing_contracts=())), decision


def _enforce_records(state: JudgeState, mround: ModelRound, policy: Policy, now: datetime,
                     excluded: frozenset[str], decisions: list[Decision]) -> JudgeState:
    """Enforce from `now` each active observe-mode record an enforce judge would have made, with its rung
    and end (docs/judge.md, observe mode). The floor is weighed again: the exclusions may have changed."""
    model = mround.model
    providers = state.models.get(model, {})
    records = sorted(p for p, ps in providers.items()
                     if ps.suspension is not None and ps.suspension.mode == OBSERVE and _enforceable(ps, policy))
    if not records:
        return state
    enforced = {p for p, ps in providers.items() if ps.suspension is not None and ps.suspension.enforced(now)}
    usable = {t.casefold() for t in mround.discovered
              if not any(covers(b, t) for b in excluded | enforced)}
    for provider in records:
        ps = state.provider(model, provider)
        record = ps.suspension
        assert record is not None  # chosen above for it
        remaining = {t for t in usable if not covers(provider, t)}
        if len(remaining) < policy.capacity_floor:
            continue  # stays observed; it ends at its term, or converts when capacity returns
        reason = f"{record.reason}; enforced: the judge now enforces this observe-mode record"
        suspension = replace(record, since=now, mode=ENFORCE, reason=reason[:MAX_REASON_CHARS])
        why = (f"observe-mode record (rung {record.rung}, recorded {record.since.isoformat()}) enforced now "
               f"that the judge enforces: {record.reason}")
        decisions.append(Decision(model, provider, Action.SUSPEND, Rule.MODE_SWITCH, why, until=record.until,
                                  rung=record.rung, evidence=_evidence(mround.providers.get(provider)),
                                  card=decision_cards(state, model, provider)))
        state = state.with_provider(model, provider, replace(ps, suspension=suspension))
        usable = remaining
    return state


def _enforceable(ps: ProviderState, policy: Policy) -> bool:
    """Whether an enforce judge would have enforced this observe-mode record: not when the contracts that
    completed its streak are all still observed (a record without them: only when none is observed)."""
    assert ps.suspension is not None
    contracts = ps.suspension.contracts
    if not contracts:
        return not policy.observe_contracts
    return _mode_for(contracts, ENFORCE, policy) == ENFORCE


def _expire(state: JudgeState, now: datetime, decisions: list[Decision]) -> JudgeState:
    for model, providers in sorted(state.models.items()):
        for provider, ps in sorted(providers.items()):
            if ps.suspension is not None and not ps.suspension.active(now):
                decisions.append(Decision(model, provider, Action.EXPIRED, Rule.EXPIRY,
                                          f"suspension (rung {ps.suspension.rung}) reached its end",
                                          until=ps.suspension.until, rung=ps.suspension.rung))
                state = state.with_provider(model, provider, replace(ps, suspension=None))
    return state


def _probe_decisions(report: RoundResults, rounds: Mapping[str, ModelRound]) -> list[Decision]:
    out = []
    for weak in report.weak_probes:
        out.append(Decision(weak.model, weak.control, Action.PROBE_WEAK, Rule.WEAK_PROBE,
                            f"{weak.contract} probe weak this round: {weak.reason}"))
    for miss in report.unprobed_controls:
        # Loud, not silent: while a configured control gives no verdict, every refusal pass of the
        # model is inconclusive, so no host of it has a clean round and none is restored early.
        out.append(Decision(miss.model, miss.control, Action.CONTROL_UNPROBED, Rule.UNPROBED_CONTROL,
                            f"{miss.contract} probe unverified this round: positive control {miss.reason}; "
                            f"{miss.contract} passes of this model count as inconclusive (no clean round, no "
                            "early restore) until the control is probed: fix `controls` in canary.yaml "
                            "or remove the model's entry to trust the probe without a control"))
    for model, mround in rounds.items():
        for hit in mround.guard_hits:
            evidence = tuple(e for p in hit.failing for e in mround.providers[p].evidence if e.contract == hit.contract)
            out.append(Decision(
                model, WHOLE_ROUND, Action.MODEL_WIDE_GUARD, Rule.MODEL_WIDE_GUARD,
                f"{hit.contract} failed on {len(hit.failing)} of {hit.probed} endpoints "
                f"({', '.join(hit.failing)}): counted for nobody this round", evidence=evidence))
    return out


def _count(state: JudgeState, mround: ModelRound, policy: Policy, started_at: datetime,
           decisions: list[Decision]) -> JudgeState:
    set_aside: dict[str, timedelta] = {}
    for provider, pr in mround.providers.items():
        before = state.provider(mround.model, provider)
        counted = count(before, pr, started_at, policy)
        ps = counted.state
        if counted.set_aside is not None:
            set_aside[provider] = counted.set_aside
        restarted = _restarted(mround.model, provider, pr, before, counted, policy)
        if restarted is not None:
            decisions.append(restarted)
        problems = pr.problems()
        reasons = tuple(f"{e.contract}: {e.outcome}: {e.reason}"[:MAX_REASON_CHARS] for e in problems)
        language = next_language(pr.language_case, ps.next_language, policy.languages,
                                 pending=ps.failed_streak > 0)
        ps = replace(ps, last_reasons=reasons[:MAX_LAST_REASONS], next_language=language)
        state = state.with_provider(mround.model, provider, ps)
    if set_aside:
        decisions.append(_not_counted(mround, set_aside, policy))
    return state


def _restarted(model: str, provider: str, pr: ProviderRound, before: ProviderState, counted: Counted,
               policy: Policy) -> Decision | None:
    """A lapsed failed streak (or a suspended host's clean one), or a failed streak a frozen round ended."""
    if counted.ended_streak:
        return _ended(model, provider, pr, before, counted.ended_streak)
    if not counted.lapsed_streak:
        return None
    failed = pr.klass is RoundClass.FAILED
    if not failed and before.suspension is None:
        return None  # a healthy host's clean streak restarting changes nothing anyone acts on
    kind = "failed" if failed else "clean"
    age = "of unknown age" if counted.lapsed is None else f"{_hours(counted.lapsed)} old"
    return Decision(model, provider, Action.STREAK_RESTARTED, Rule.PENDING_WINDOW,
                    f"{kind} round, but the pending {kind} streak ({counted.lapsed_streak} round(s)) is {age}, "
                    f"more than rules.pending_failure_hours ({policy.pending_failure_hours:g} h): "
                    f"a new {kind} streak starts at 1", evidence=_evidence(pr))


def _ended(model: str, provider: str, pr: ProviderRound, before: ProviderState, streak: int) -> Decision:
    """A frozen round that ended the pending failed streak: what froze it, and what passed."""
    failing, problems = before.failing_contracts, pr.problems()
    by_outcome: dict[str, list[str]] = {}
    for e in problems:
        outcome = "model-wide failure" if e.contract in pr.discounted else str(e.outcome).replace("_", " ")
        by_outcome.setdefault(outcome, []).append(e.contract)
    frozen_by = "; ".join(f"{outcome} on {', '.join(contracts)}"
                          for outcome, contracts in sorted(by_outcome.items())) or "a contract not probed"
    they = "which" if len(failing) == 1 else "all of which"
    return Decision(model, provider, Action.STREAK_RESTARTED, Rule.FAILING_CONTRACT_PASSED,
                    f"frozen round ({frozen_by}), but {', '.join(failing)}, {they} the pending failed streak "
                    f"({streak} round(s)) failed on, passed: the streak ends",
                    evidence=tuple(e for e in pr.evidence if e.contract in failing or e in problems))


def _not_counted(mround: ModelRound, set_aside: Mapping[str, timedelta], policy: Policy) -> Decision:
    shown = sorted(set_aside)
    names = ", ".join(shown[:MAX_NAMED]) + (f" and {len(shown) - MAX_NAMED} more" if len(shown) > MAX_NAMED else "")
    soonest = min(set_aside.values())
    return Decision(mround.model, WHOLE_ROUND, Action.NOT_COUNTED, Rule.MIN_ROUND_GAP,
                    f"{len(shown)} endpoint(s) ({names}) probed {_minutes(soonest)} after their last counted "
                    f"round, sooner than rules.min_round_gap_minutes ({policy.min_round_gap_minutes:g} min): "
                    "frozen for the streaks, evidence kept")


def _hours(delta: timedelta) -> str:
    return f"{delta.total_seconds() / 3600:.1f} h"


def _minutes(delta: timedelta) -> str:
    return f"{delta.total_seconds() / 60:.0f} min"


def _restore(state: JudgeState, mround: ModelRound, policy: Policy, decisions: list[Decision]) -> JudgeState:
    for provider, pr in mround.providers.items():
        ps = state.provider(mround.model, provider)
        if ps.suspension is not None and ps.clean_streak >= policy.clean_rounds_to_restore:
            decisions.append(Decision(
                mround.model, provider, Action.RESTORE, Rule.CLEAN_STREAK,
                f"{ps.clean_streak} clean rounds in a row: restored early", rung=ps.suspension.rung,
                evidence=pr.evidence, card=decision_cards(state, mround.model, provider)))
            state = state.with_provider(mround.model, provider, replace(ps, suspension=None))
    return state


def _suspend(state: JudgeState, mround: ModelRound, policy: Policy, now: datetime, mode: Mode,
             excluded: frozenset[str], decisions: list[Decision]) -> JudgeState:
    model = mround.model
    providers = state.models.get(model, {})
    suspended = {p for p, ps in providers.items() if ps.suspension is not None}
    # A bare tag in provider.ignore removes its variants too (judge/suspension/coverage.py); tags that differ
    # only by case are one host, counted once by the floor (covers() compares by casefold).
    blocked = excluded | suspended
    usable = {t.casefold() for t in mround.discovered if not any(covers(b, t) for b in blocked)}
    cards = {p: decision_cards(state, model, p, _failed_now(mround.providers.get(p)))
             for p, ps in providers.items()
             if ps.suspension is None and ps.failed_streak >= policy.failed_rounds_to_suspend}
    candidates = sorted(cards, key=lambda p: strength(cards[p], providers[p].failed_streak, p))
    for provider in candidates:
        ps = state.provider(model, provider)
        evidence = _evidence(mround.providers.get(provider))
        remaining = {t for t in usable if not covers(provider, t)}
        variants = also_removed(provider.casefold(), usable)
        with_variants = f"; a bare tag: in provider.ignore it also removes {', '.join(variants)}" if variants else ""
        if len(remaining) < policy.capacity_floor:
            decisions.append(Decision(
                model, provider, Action.FLOOR_HELD, Rule.CAPACITY_FLOOR,
                f"{ps.failed_streak} failed rounds in a row, but suspending would leave {len(remaining)} usable "
                f"endpoint(s), below the floor of {policy.capacity_floor}{with_variants}; evidence kept",
                evidence=evidence,
                card=cards[provider]))
            continue
        reason = f"{ps.failed_streak} failed rounds in a row{with_variants}"
        own_mode = _mode_for(_failed_now(mround.providers.get(provider)), mode, policy)
        if own_mode != mode:
            reason += f" (observed only: {', '.join(policy.observe_contracts)} in rules.observe_contracts)"
        suspension, ladder = next_suspension(ps.ladder, now, policy, mode=own_mode, reason=reason,
                                             contracts=_failed_now(mround.providers.get(provider)))
        action = Action.SUSPEND if own_mode == ENFORCE else Action.WOULD_SUSPEND
        decisions.append(Decision(model, provider, action, Rule.FAILED_STREAK, reason,
                                  until=suspension.until, rung=suspension.rung, evidence=evidence,
                                  card=cards[provider]))
        # The suspension consumes its evidence: the next one needs fresh failed rounds (rounds
        # during the suspension count, since suspended hosts keep being probed).
        state = state.with_provider(model, provider, replace(ps, suspension=suspension, ladder=ladder,
                                                             failed_streak=0, failing_contracts=()))
        usable = remaining
    return state


def _mode_for(failed_now: tuple[str, ...], mode: Mode, policy: Policy) -> Mode:
    """Observe when the round that completed the streak failed only observed contracts, else the judge's."""
    if failed_now and all(c in policy.observe_contracts for c in failed_now):
        return OBSERVE
    return mode


def _failed_now(pr: ProviderRound | None) -> tuple[str, ...]:
    return () if pr is None else failed_contracts((e.contract, e.outcome) for e in pr.evidence)


def _evidence(pr: ProviderRound | None) -> tuple[Evidence, ...]:
    if pr is None:
        return ()
    return pr.problems() or pr.evidence


def _tidy(state: JudgeState, rounds: Mapping[str, ModelRound], now: datetime, policy: Policy) -> JudgeState:
    """Fade old ladders and forget idle providers that were not part of this round (bounded state)."""
    models: dict[str, dict[str, ProviderState]] = {}
    for model, providers in state.models.items():
        seen = set(rounds[model].providers) if model in rounds else None
        kept = {}
        for provider, ps in providers.items():
            ps = replace(ps, ladder=fade(ps.ladder, now, policy)) if ps.suspension is None else ps
            if seen is not None and provider not in seen and ps.idle():
                continue
            kept[provider] = ps
        if kept:
            models[model] = kept
    return replace(state, models=models)

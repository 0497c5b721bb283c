"""`canary status [--model M]`: a table of every provider the judge remembers, its state and evidence
cards, and the silences in force (docs/judge.md, Working on the state by hand). A simulator state runs
on its own virtual clock: without --now it is shown at its last round's virtual time.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import click

from canary.cli.commands._options import Invocation, common, pass_invocation
from canary.round.judging import SIMULATOR_STATE_DIR
from canary.state.judge_files import refuse_future_times
from canary.state.silences import load_silences, render_silences
from core.layers import BUILTIN, INCIDENT, Exclusion
from core.policy import Policy
from core.times import fmt_time
from judge.suspension.evidence import cards_by_endpoint
from judge.suspension.production import shown
from judge.suspension.silences import active_silences
from judge.suspension.state import JudgeState, ProviderState

COLUMNS = ("provider", "state", "failed", "clean", "rung", "pending until", "suspended until", "last reasons")
MAX_REASONS_SHOWN = 2
REASON_WIDTH = 60
_PENDING_WINDOW = Policy().pending_window  # the default rules' window


@click.command("status", short_help="show each provider's streaks, suspension and ladder")
@click.option("--model", default=None, help="only this model")
@common(files=("state", "builtin", "incidents", "silences"))
@pass_invocation
def status(invocation: Invocation, model: str | None) -> int:
    """A table of every provider the judge remembers, and its state; then the silences in force."""
    layers = invocation.layers()
    last = layers.state.last_round
    if invocation.at is None and last is not None and layers.config.paths.state.parent.name == SIMULATOR_STATE_DIR:
        layers = replace(layers, now=last.decided_at or last.started_at)
        print(f"(a simulator state: shown at its virtual clock, its last round's {fmt_time(layers.now)})")
    # A year-9999 time would also overflow the pending window below: refused (a StoreError) first.
    refuse_future_times(layers.state, layers.config.paths.state, layers.now)
    window = timedelta(hours=layers.config.rules.pending_failure_hours)
    print(render_status(layers.state, layers.exclusions, layers.now, model=model, window=window))
    silences = load_silences(layers.config.paths.silences)
    shown = tuple(s for s in silences if model is None or s.model == model)
    if active_silences(shown, layers.now):
        print("\n" + render_silences(shown, layers.now))
    return 0


def pending_until(ps: ProviderState, window: timedelta, now: datetime) -> str:
    """Until when the streak that matters waits for its next counted round (a failed streak, or
    the clean streak of a suspended host): "-" when none, "lapsed" once past (or of unknown age)."""
    streak = ps.failed_streak or (ps.clean_streak if ps.suspension is not None else 0)
    if not streak:
        return "-"
    if ps.last_counted_at is None or ps.last_counted_at + window < now:
        return "lapsed"
    return fmt_time(ps.last_counted_at + window) or "-"


def provider_state(ps: ProviderState, people: list[Exclusion], now: datetime) -> str:
    """One word for a person: excluded by people, suspended, would-suspended, or probed."""
    if any(e.layer == BUILTIN for e in people):
        return BUILTIN
    if people:
        return INCIDENT
    s = ps.suspension
    if s is not None and s.active(now):
        return "suspended" if s.mode == "enforce" else "would-suspend"
    if ps.failed_streak:
        return "failing"
    return "ok"


def decided_lines(providers: dict[str, ProviderState], now: datetime) -> list[str]:
    """What decided each suspension in force: its failed streak starts again at the decision (`failed 0`)."""
    decided = [(p, s) for p, ps in sorted(providers.items()) if (s := ps.suspension) is not None and s.active(now)]
    if not decided:
        return []
    width = max(len(p) for p, _ in decided)
    return ["", "decided (a decision starts the failed streak again):"] + [
        f"  {p.ljust(width)}  {'suspended' if s.enforced(now) else 'would-suspend'} since {fmt_time(s.since)}: "
        f"{s.reason}" + (f" ({', '.join(s.contracts)})" if s.contracts else "") for p, s in decided]


def evidence_lines(state: JudgeState, model: str) -> list[str]:
    """Each endpoint's current card: the contracts with failures in its window, or a clean count; then its
    production evidence as the last round's judge read it (judge/suspension/production.py)."""
    cards = cards_by_endpoint(state, model)
    width = max((len(p) for p in cards), default=0)
    production = [f"  {p.ljust(width)}  {line}" for p, line in shown(
        {p: ps.production for p, ps in state.models.get(model, {}).items() if ps.production})]
    production = ["", "production evidence (a chat backend's sampled replies):", *production] if production else []
    if not any(cards.values()):
        return production
    out = ["", "evidence (each endpoint's last counted rounds vs the model's other endpoints; 95 % Wilson "
               "intervals, one-sided Fisher test):"]
    for provider, endpoint_cards in cards.items():
        failing = [c for c in endpoint_cards if c.failures]
        if failing:
            for i, card in enumerate(failing):
                flag = "" if card.significant else "  (not significantly worse than its peers)"
                out.append(f"  {(provider if i == 0 else '').ljust(width)}  {card.text}{flag}")
        else:
            rounds = max((c.rounds for c in endpoint_cards), default=0)
            replies = sum(c.attempts for c in endpoint_cards)
            out.append(f"  {provider.ljust(width)}  no failures in {rounds} round(s) ({replies} judged replies)")
    return out + production


def render_status(state: JudgeState, exclusions: tuple[Exclusion, ...], now: datetime, *, model: str | None,
                  window: timedelta = _PENDING_WINDOW) -> str:
    models = sorted(set(state.models) | {e.model for e in exclusions})
    if model is not None:
        models = [m for m in models if m == model]
    if not models:
        return "canary status: nothing recorded yet" + (f" for {model}" if model else "")
    out = []
    for m in models:
        rows = []
        providers = dict(state.models.get(m, {}))
        active = [e for e in exclusions if e.model == m and e.active(now)]
        for e in active:
            providers.setdefault(e.provider, ProviderState())
        for p, ps in sorted(providers.items()):
            s = ps.suspension
            reasons = "; ".join(r.replace("\n", " ") for r in ps.last_reasons[:MAX_REASONS_SHOWN])
            rows.append((p, provider_state(ps, [e for e in active if e.provider == p], now),
                         str(ps.failed_streak), str(ps.clean_streak), str(ps.ladder.rung),
                         pending_until(ps, window, now), fmt_time(s.until) if s is not None else "-",
                         reasons[:REASON_WIDTH] or "-"))
        widths = [max(len(str(r[i])) for r in [COLUMNS, *rows]) for i in range(len(COLUMNS))]
        out.append(f"{m}  (at {fmt_time(now)})")
        for row in [COLUMNS, tuple("-" * w for w in widths), *rows]:
            out.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)).rstrip())
        out += decided_lines(providers, now) + evidence_lines(state, m)
        out.append("")
    return "\n".join(out).rstrip()

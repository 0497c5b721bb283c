"""Production evidence: a chat backend's own replies, counted per endpoint, against its peers (pure, issue 39).

Records in (core/production.py), decisions out, `now` the round's start. Per endpoint, check and
stratum, a day of records against the model's other endpoints (`weigh`: the cards, staleness, the
bar of the reliability rule, the model-wide guard); then the confirmation each flag schedules
(`schedule`) and what the next round's pinned probe says of it (`apply_production`: rules.production
observe or enforce). Production evidence alone never fails a round. The whole of it: docs/judge.md
("Production evidence").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

from core.policy import ENFORCE, OBSERVE, GuardRules, ProductionStep
from core.production import CheckOutcome, ProductionCheck, ProductionRecord
from core.results import RoundResults
from core.times import fmt_time
from core.vocabulary import LANGUAGE, LATENCY, REFUSAL, ContractName, Outcome
from judge.suspension.card import Card, make_card
from judge.suspension.decisions import Action, Decision, Evidence, Rule
from judge.suspension.reliability import RULE_ALPHA
from judge.suspension.round import ModelRound, RoundClass
from judge.suspension.state import JudgeState
from judge.suspension.window import WINDOW_ROUNDS, Tally

SPAN = timedelta(minutes=30) * WINDOW_ROUNDS   # the cards' evidence span: 48 half-hourly rounds
FRESH = timedelta(minutes=30)                  # an exporter with no record ending this close to the round is stale
RATE_RATIO = 3.0
MIN_FAILURES = 5
# ...in at least this many windows: a conversation that stays on an endpoint (OpenRouter's sticky
# routing for prompt caching) adds at most the library's 3 checked replies a day, under MIN_FAILURES;
# this floor guards a writer without that cap (benchmarks/production_evidence.py, one_user).
MIN_WINDOWS = 5
MIN_PEERS = 2
MIN_PEER_REPLIES = 100
MAX_CARDS_SHOWN = 4
QUIET = "production: no failure in "   # an endpoint's line when its sampled replies passed every check
STALE = " STALE: no record in the 30 minutes before the round, never read as clean"
# The contract whose pinned probe can confirm a check: the text checks read the language contract's
# roleplay replies, an empty `stop` is the refusal contract's, the wire checks run on every streamed
# reply and the latency contract streams one each round.
CHECK_CONTRACT: Mapping[ProductionCheck, ContractName] = {
    ProductionCheck.ENCODING: LANGUAGE, ProductionCheck.LEADING: LANGUAGE, ProductionCheck.TEMPLATE: LANGUAGE,
    ProductionCheck.LANGUAGE: LANGUAGE, ProductionCheck.EMPTY_STOP: REFUSAL,
    ProductionCheck.STREAM_INTEGRITY: LATENCY, ProductionCheck.LIMITS: LATENCY, ProductionCheck.BILLING: LATENCY}

_Stratum = tuple[str, ProductionCheck, str | None, bool | None]   # model, check, language, stream
_Index = Mapping[str, Mapping[str, tuple[str, ...]]]   # model -> provider name casefolded -> its tags


class ProductionCode(StrEnum):
    """The code of the rule's evidence (judge/replies/verdict.py)."""

    PRODUCTION_AGREED = "production_agreed"


@dataclass(frozen=True, slots=True)
class ProductionCard:
    """One endpoint's production evidence on one check and stratum."""

    model: str
    provider: str   # the endpoint's tag
    contract: ContractName   # the contract whose pinned probe confirms it (CHECK_CONTRACT)
    card: Card
    flagged: bool   # past the bar (module docstring): a confirmation is due
    model_wide: bool = False  # the guard fired on its stratum


@dataclass(frozen=True, slots=True)
class ProductionEvidence:
    """What the records say this round: the cards (endpoints with failures), each endpoint's lines."""

    cards: tuple[ProductionCard, ...] = ()
    lines: Mapping[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)  # (model, tag) -> lines

    def flagged(self, model: str, provider: str) -> dict[ContractName, tuple[Card, ...]]:
        """contract -> the endpoint's flagged cards that contract confirms."""
        out: dict[ContractName, tuple[Card, ...]] = {}
        for c in self.cards:
            if c.flagged and (c.model, c.provider) == (model, provider):
                out[c.contract] = (*out.get(c.contract, ()), c.card)
        return out


def weigh(records: Sequence[ProductionRecord], names: Mapping[str, Mapping[str, str]], guard: GuardRules, *,
          now: datetime, span: timedelta = SPAN) -> ProductionEvidence:
    """The cards and lines of the round's endpoints (`names`: model -> tag -> provider name) from `records`
    whose window ended within `span` before `now` (benchmarks/production_evidence.py tries longer spans)."""
    seen = [r for r in records if r.window_end <= now]
    if not seen:
        return ProductionEvidence()
    last: dict[str, datetime] = {}
    for r in seen:
        last[r.exporter] = max(last.get(r.exporter, r.window_end), r.window_end)
    stale = {e for e, end in last.items() if end < now - FRESH}
    pooled = [r for r in seen if r.window_end > now - span]
    index = {m: _by_name(tags) for m, tags in names.items()}
    tallies, sampled, shared = _tally(pooled, index)
    cards = tuple(card for stratum, by_tag in sorted(tallies.items(), key=lambda kv: repr(kv[0]))
                  for card in _stratum_cards(stratum, by_tag, guard, fresh=not stale))
    rates = sorted({r.sample_rate for r in pooled})
    footer = _footer(rates, last, stale)
    return ProductionEvidence(cards, _lines(cards, names, index, sampled, shared, footer))


def _tally(pooled: Sequence[ProductionRecord], index: _Index) -> tuple[
        dict[_Stratum, dict[str, list[int]]], dict[tuple[str, str], int], dict[tuple[str, str], list[int]]]:
    """The records' checks per stratum and endpoint tag [passes, fails, records with failures], sampled
    replies per (model, tag), and the replies of a provider name serving several tags."""
    tallies: dict[_Stratum, dict[str, list[int]]] = {}
    sampled: dict[tuple[str, str], int] = {}
    shared: dict[tuple[str, str], list[int]] = {}   # (model, provider name casefolded) -> [failed checks, sampled]
    for r in pooled:
        marked = {(c.model, c.provider) for c in r.served if c.ambiguous}
        for s in r.served:
            tags = index.get(s.model, {}).get((s.provider or "").casefold(), ())
            if len(tags) == 1 and (s.model, s.provider) not in marked:
                sampled[(s.model, tags[0])] = sampled.get((s.model, tags[0]), 0) + s.n
            elif tags and s.provider:
                shared.setdefault((s.model, s.provider.casefold()), [0, 0])[1] += s.n
        for c in r.counts:
            tags = index.get(c.model, {}).get((c.provider or "").casefold(), ())
            if len(tags) == 1 and (c.model, c.provider) not in marked:
                cell = tallies.setdefault((c.model, c.check, c.language, c.stream), {}).setdefault(tags[0], [0, 0, 0])
                cell[c.outcome is not CheckOutcome.FAIL] += c.n
                cell[2] += c.outcome is CheckOutcome.FAIL   # a record (an exporter's window) with failures
            elif tags and c.provider and c.outcome is CheckOutcome.FAIL:
                shared.setdefault((c.model, c.provider.casefold()), [0, 0])[0] += c.n
    return tallies, sampled, shared


def _lines(cards: tuple[ProductionCard, ...], names: Mapping[str, Mapping[str, str]],
           index: _Index, sampled: Mapping[tuple[str, str], int],
           shared: Mapping[tuple[str, str], list[int]], footer: str) -> dict[tuple[str, str], tuple[str, ...]]:
    """Each endpoint's production lines: its worst cards, else its quiet count, and the footer."""
    lines: dict[tuple[str, str], tuple[str, ...]] = {}
    for model, named in sorted(names.items()):
        for tag, name in sorted(named.items()):
            mine = sorted((c for c in cards if (c.model, c.provider) == (model, tag)),
                          key=lambda c: (c.card.p_value if c.card.p_value is not None else 1.0, c.card.contract))
            shown = [c.card.text + (" (model-wide: counts for nobody)" if c.model_wide else "")
                     for c in mine[:MAX_CARDS_SHOWN]]
            if len(mine) > MAX_CARDS_SHOWN:
                shown.append(f"production: {len(mine) - MAX_CARDS_SHOWN} more checks with failures")
            if not mine and sampled.get((model, tag)):
                shown.append(f"{QUIET}{sampled[(model, tag)]} sampled replies")
            if (model, name.casefold()) in shared:
                failed, n = shared[(model, name.casefold())]
                shown.append(f"production: {name} serves {', '.join(index[model][name.casefold()])}, so its "
                             f"{n} sampled replies ({failed} failed checks) are shown, never used for a rule")
            lines[(model, tag)] = (*shown, footer)
    return lines


def production_lines(lines: Sequence[str]) -> list[str]:
    """One endpoint's lines worth a glance (the status page): its cards, ambiguity and a stale exporter."""
    return [line for line in lines[:-1] if not line.startswith(QUIET)] + [
        line for line in lines[-1:] if STALE in line]


def shown(by_provider: Mapping[str, Sequence[str]], *, quiet: bool = True) -> list[tuple[str, str]]:
    """(provider, line) to show of one model's lines as the state keeps them: each endpoint's (those
    saying its replies passed every check only when `quiet`), then their shared last line (the sample
    rate and the exporters) once, with provider ""."""
    out = [(p, line) for p, lines in sorted(by_provider.items()) for line in lines[:-1]
           if quiet or not line.startswith(QUIET)]
    return out + [("", lines[-1]) for lines in list(by_provider.values())[:1] if lines]


def _by_name(tags: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """provider name (casefolded) -> the model's endpoints of that provider."""
    out: dict[str, tuple[str, ...]] = {}
    for tag, name in sorted(tags.items()):
        out[name.casefold()] = (*out.get(name.casefold(), ()), tag)
    return out


def _stratum_cards(stratum: _Stratum, by_tag: Mapping[str, list[int]], guard: GuardRules, *,
                   fresh: bool) -> list[ProductionCard]:
    model, check, language, stream = stratum
    total = {t: Tally(failures=f, passes=p) for t, (f, p, _) in sorted(by_tag.items())}
    everyone = sum(total.values(), Tally())
    label = "production " + check + (f" [{', '.join(_stratum_words(language, stream))}]"
                                      if language or stream is not None else "")
    cards = {}
    for tag, host in total.items():
        if host.failures:
            peers = Tally(failures=everyone.failures - host.failures, passes=everyone.passes - host.passes)
            cards[tag] = make_card(label, host, peers, sum(1 for t in total if t != tag))
    worst = max((c.failures / c.attempts for c in cards.values()), default=0.0)
    hit = sum(1 for c in cards.values() if c.failures >= MIN_FAILURES and c.failures * RATE_RATIO >= worst * c.attempts)
    wide = guard.enabled and hit >= guard.min_endpoints and hit > guard.min_fraction * len(total)
    out = []
    for tag, card in cards.items():
        big_peers = sum(1 for t, n in total.items() if t != tag and n.attempts >= MIN_PEER_REPLIES)
        flagged = (fresh and not wide and card.p_value is not None and card.p_value < RULE_ALPHA
                   and card.failures >= MIN_FAILURES and by_tag[tag][2] >= MIN_WINDOWS and big_peers >= MIN_PEERS
                   and card.failures * card.peer_attempts >= RATE_RATIO * card.peer_failures * card.attempts)
        out.append(ProductionCard(model, tag, CHECK_CONTRACT[check], card, flagged, wide))
    return out


def _stratum_words(language: str | None, stream: bool | None) -> list[str]:
    return [w for w in (language, None if stream is None else "stream" if stream else "no stream") if w]


def _footer(rates: Sequence[float], last: Mapping[str, datetime], stale: set[str]) -> str:
    """The sample rate and each exporter's last window (a stale one said loudly)."""
    rate = "-".join(dict.fromkeys(f"{r * 100:g}" for r in (rates[0], rates[-1]))) if rates else "?"
    said = [f"{e} {fmt_time(end)}" + (STALE if e in stale else "") for e, end in sorted(last.items())]
    return f"production: sampled at {rate} %; exporters' last window: {'; '.join(said)}"


def apply_production(rounds: Mapping[str, ModelRound], report: RoundResults, evidence: ProductionEvidence,
                     step: ProductionStep) -> tuple[dict[str, ModelRound], list[Decision]]:
    """The round's confirmations resolved (`confirmation` decisions) and, with rules.production
    `enforce`, each flagged endpoint's round failed where its pinned probe of the same contract agrees."""
    out, decisions = dict(rounds), []
    confirmations = {(c.model, c.provider, c.contract): c for c in report.cases
                     if c.confirmation is not None and not c.control}
    flagged = {(c.model, c.provider) for c in evidence.cards if c.flagged}
    for model, provider in sorted(flagged | {(m, p) for m, p, _ in confirmations}):
        mround = out.get(model)
        pr = mround.providers.get(provider) if mround else None
        if mround is None or pr is None:
            continue
        by_contract = evidence.flagged(model, provider)
        for contract in sorted(set(by_contract) | {c for m, p, c in confirmations if (m, p) == (model, provider)}):
            case, cards = confirmations.get((model, provider, contract)), by_contract.get(contract, ())
            counted = contract not in pr.discounted
            agrees = counted and (contract in pr.failed() or (case is not None and case.confirmation is Outcome.FAIL))
            if cards and agrees and step == ENFORCE:
                why = f"production evidence that this round's pinned {contract} probe agrees with: {cards[0].text}"
                pr = replace(pr, klass=RoundClass.FAILED, evidence=(
                    *pr.evidence, Evidence(contract, Outcome.FAIL, why, ProductionCode.PRODUCTION_AGREED)))
            if case is not None:
                then = _what_follows(cards, agrees=agrees, counted=counted, step=step)
                decisions.append(_resolved(model, provider, contract, case.confirmation, case.reason, cards, then))
        out[model] = replace(mround, providers={**mround.providers, provider: pr})
    return out, decisions


def _what_follows(cards: tuple[Card, ...], *, agrees: bool, counted: bool, step: ProductionStep) -> str:
    if not counted:
        return "the model-wide guard discounted the contract this round: nothing follows"
    if not cards:
        return "no production evidence meets the bar now (users' reports asked for it, or the evidence faded): " \
               "nothing follows"
    if not agrees:
        return "production evidence alone never fails a round"
    if step == ENFORCE:
        return "rules.production is enforce: the round fails on it"
    return f"rules.production is {step or 'off'}: the round would fail on it (not counted)"


def _resolved(model: str, provider: str, contract: ContractName, majority: Outcome | None, reason: str,
              cards: tuple[Card, ...], then: str) -> Decision:
    found = {Outcome.FAIL: "confirmed: most of its runs failed", Outcome.PASS: "not confirmed: most of its runs passed"}
    said = found.get(majority or Outcome.INCONCLUSIVE, "unresolved: no majority of its runs either way")
    return Decision(model, provider, Action.CONFIRMATION, Rule.PRODUCTION, f"{contract} confirmation {said}; {then}",
                    evidence=(Evidence(contract, str(majority or Outcome.INCONCLUSIVE), reason),), card=cards)


def schedule(state: JudgeState, evidence: ProductionEvidence, step: ProductionStep,
             reported: Mapping[tuple[str, str], tuple[int, tuple[ContractName, ...]]] | None = None
             ) -> tuple[JudgeState, list[Decision]]:
    """Every endpoint's production lines kept for `canary status`; (rules.production observe or enforce)
    a confirmation of each flagged endpoint's contract in the next round; and of every contract of an
    endpoint users reported (`reported`: (model, tag) -> (reports, its contracts): judge/suspension/reports.py)."""
    decisions = []
    flagged = {(c.model, c.provider) for c in evidence.cards if c.flagged} if step in (OBSERVE, ENFORCE) else set()
    models = {}
    for model, providers in state.models.items():
        kept = {}
        for provider, ps in providers.items():
            confirm = evidence.flagged(model, provider) if (model, provider) in flagged else {}
            reports, contracts = (reported or {}).get((model, provider), (0, ()))
            if reports:
                decisions.append(Decision(
                    model, provider, Action.CONFIRM, Rule.USER_REPORTS,
                    f"{reports} users' reports against it within a day: each of its contracts ({', '.join(contracts)}) "
                    "runs three times next round, pinned, and the majority says whether the probes agree (a report "
                    "never fails a round)"))
                confirm = {**{c: () for c in contracts}, **confirm}
            for contract, cards in sorted(confirm.items()):
                if not cards:
                    continue
                decisions.append(Decision(
                    model, provider, Action.CONFIRM, Rule.PRODUCTION,
                    f"production evidence against it past the bar (p < {RULE_ALPHA:g}, {RATE_RATIO:g}x its peers' "
                    f"rate, {MIN_FAILURES}+ failures, {MIN_PEERS}+ peers of {MIN_PEER_REPLIES}+ replies, no model-wide "
                    f"drift, fresh exporters): its {contract} case runs three times next round, pinned, and the "
                    "majority says whether the probe agrees", card=cards))
            kept[provider] = replace(ps, to_confirm=tuple(sorted(confirm)),
                                     production=evidence.lines.get((model, provider), ()))
        models[model] = kept
    return replace(state, models=models), decisions

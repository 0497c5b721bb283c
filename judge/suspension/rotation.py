"""The language plan: which language each provider's language case uses next round (pure;
docs/contracts.md, Languages)."""

from __future__ import annotations

from core.results import CaseResult
from core.vocabulary import Outcome


def next_language(case: CaseResult | None, current: str | None, languages: tuple[str, ...], *,
                  pending: bool = False) -> str | None:
    """The language for the next round, given this round's language case (None: no case, keep).
    `pending`: the provider has a failed streak without a verdict yet, so a frozen case keeps its language."""
    if case is None or case.language is None:
        return current
    if case.outcome == Outcome.FAIL or case.anomaly:
        return case.language
    if pending and case.outcome in (Outcome.TRANSPORT_ERROR, Outcome.INCONCLUSIVE):
        return case.language
    if case.language not in languages:
        return languages[0]
    return languages[(languages.index(case.language) + 1) % len(languages)]

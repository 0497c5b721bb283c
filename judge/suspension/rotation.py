"""The language plan: which language each provider's language case uses next round (pure).

After a round: a language case that failed, or whose first attempt found an anomaly, keeps its
language (a host must not escape the consecutive-round rule because the rotation moved on), and
so does a transport error or inconclusive case while the provider has a pending failed streak
(a frozen round, skipped by that rule); any other outcome advances to the next language in
configured order, wrapping around.
"""

from __future__ import annotations

from core.results import CaseResult
from core.vocabulary import Outcome


def next_language(case: CaseResult | None, current: str | None, languages: tuple[str, ...], *,
                  pending: bool = False) -> str | None:
    """The language for the next round, given this round's language case (None: no case, keep).

    `pending`: the provider has a failed streak that has not reached a verdict. A language case
    that says nothing (transport error, inconclusive) is a frozen round for the two-round rule,
    so it keeps the language too: otherwise the next counted round would probe another one.
    """
    if case is None or case.language is None:
        return current
    if case.outcome == Outcome.FAIL or case.anomaly:
        return case.language
    if pending and case.outcome in (Outcome.TRANSPORT_ERROR, Outcome.INCONCLUSIVE):
        return case.language
    if case.language not in languages:
        return languages[0]
    return languages[(languages.index(case.language) + 1) % len(languages)]

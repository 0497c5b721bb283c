"""The language plan: which language each provider's language case uses next round (pure).

After a round: a language case that failed, or whose first attempt found an anomaly, keeps its
language (a host must not escape the consecutive-round rule because the rotation moved on);
any other outcome advances to the next language in configured order, wrapping around.
"""

from __future__ import annotations

from judge.report import Case
from judge.verdict import Outcome


def next_language(case: Case | None, current: str | None, languages: tuple[str, ...]) -> str | None:
    """The language for the next round, given this round's language case (None: no case, keep)."""
    if case is None or case.language is None:
        return current
    if case.outcome == Outcome.FAIL.value or case.anomaly:
        return case.language
    if case.language not in languages:
        return languages[0]
    return languages[(languages.index(case.language) + 1) % len(languages)]

"""Reply excerpts for an incident issue, from the round's results; still untrusted text."""

from __future__ import annotations

from canary.integrations.github_issues.render import MAX_EXCERPTS, Excerpt
from core.results import RoundResults
from core.vocabulary import Outcome

Key = tuple[str, str]


def from_results(results: RoundResults | None) -> dict[Key, list[Excerpt]]:
    """(model, endpoint) -> (contract, first reply excerpt) of each failed case, in file order."""
    out: dict[Key, list[Excerpt]] = {}
    for case in results.cases if results is not None else ():
        if case.outcome is not Outcome.FAIL or case.control:
            continue
        text = next((a.excerpt for a in case.attempts if a.excerpt), None)
        key = (case.model, case.provider)
        if text and len(out.setdefault(key, [])) < MAX_EXCERPTS:
            out[key].append((case.contract, text))
    return out

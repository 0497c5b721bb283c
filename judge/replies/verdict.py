"""A judging function's answer: a Verdict (an Outcome and a reason). Outcome itself is core's."""

from __future__ import annotations

from dataclasses import dataclass

from core.vocabulary import Outcome

__all__ = ["Outcome", "Verdict", "failed", "inconclusive", "passed"]

VERDICT_OUTCOMES = (Outcome.PASS, Outcome.FAIL, Outcome.INCONCLUSIVE)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judging function's answer: an outcome in pass | fail | inconclusive and a reason a person can read."""

    outcome: Outcome
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, Outcome) or self.outcome not in VERDICT_OUTCOMES:
            raise ValueError(f"a Verdict outcome is Outcome.PASS, FAIL or INCONCLUSIVE, not {self.outcome!r}")

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASS

    @property
    def failed(self) -> bool:
        return self.outcome is Outcome.FAIL


def passed(reason: str) -> Verdict:
    return Verdict(Outcome.PASS, reason)


def failed(reason: str) -> Verdict:
    return Verdict(Outcome.FAIL, reason)


def inconclusive(reason: str) -> Verdict:
    return Verdict(Outcome.INCONCLUSIVE, reason)

"""A judging function's answer: a Verdict (an Outcome, a code and a reason). Outcome itself is core's.

The code is for code (the history counts it, control flow branches on it), the reason for people;
each family's codes are a StrEnum beside its judge, and a value once written never changes
(docs/contracts.md, reason codes).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from core.vocabulary import CODE, Outcome

__all__ = ["Common", "Outcome", "Verdict", "failed", "inconclusive", "passed"]

VERDICT_OUTCOMES = (Outcome.PASS, Outcome.FAIL, Outcome.INCONCLUSIVE)


class Common(StrEnum):
    """The codes of every family: a pass is one code whatever passed, and so is a case that does not apply."""

    PASS = "pass"
    NOT_APPLICABLE = "not_applicable"


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judging function's answer: an outcome in pass | fail | inconclusive, its code, and a reason for people."""

    outcome: Outcome
    code: str      # a member of its family's StrEnum (or an attempt's code, restated by a contract)
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, Outcome) or self.outcome not in VERDICT_OUTCOMES:
            raise ValueError(f"a Verdict outcome is Outcome.PASS, FAIL or INCONCLUSIVE, not {self.outcome!r}")
        if not isinstance(self.code, str) or not CODE.fullmatch(self.code):
            raise ValueError(f"a Verdict code is a code (its family's StrEnum member), not {self.code!r}")

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASS

    @property
    def failed(self) -> bool:
        return self.outcome is Outcome.FAIL

    def restated(self, reason: str) -> Verdict:
        """The same verdict in other words (a note added): the code stays."""
        return Verdict(self.outcome, self.code, reason)


def passed(reason: str, code: StrEnum = Common.PASS) -> Verdict:
    return Verdict(Outcome.PASS, code, reason)


def failed(code: StrEnum, reason: str) -> Verdict:
    return Verdict(Outcome.FAIL, code, reason)


def inconclusive(code: StrEnum, reason: str) -> Verdict:
    return Verdict(Outcome.INCONCLUSIVE, code, reason)

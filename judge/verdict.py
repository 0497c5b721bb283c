"""A judging function's answer: a Verdict (the outcomes themselves are core.vocabulary.Outcome)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judging function's answer: an outcome in pass | fail | inconclusive and a reason a person can read."""

    outcome: str
    reason: str

    def __post_init__(self) -> None:
        if self.outcome not in ("pass", "fail", "inconclusive"):
            raise ValueError(f"a Verdict outcome is pass, fail or inconclusive, not {self.outcome!r}")

    @property
    def passed(self) -> bool:
        return self.outcome == "pass"

    @property
    def failed(self) -> bool:
        return self.outcome == "fail"


def passed(reason: str) -> Verdict:
    return Verdict("pass", reason)


def failed(reason: str) -> Verdict:
    return Verdict("fail", reason)


def inconclusive(reason: str) -> Verdict:
    return Verdict("inconclusive", reason)

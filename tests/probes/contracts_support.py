"""What the contract tests share: the probe settings and a contract's settings with a board of controls."""

from __future__ import annotations

from core.config import ProbeSettings
from judge.replies.verdict import Verdict
from probes.round.cases import ProbedCase
from probes.round.contracts import ContractSettings

PROBE = ProbeSettings(ttft_seconds=10.0, request_deadline_seconds=30.0, max_tokens=200,
                      language_confirmations=2, temperature=0.7)


class Board:
    def __init__(self, *controls: ProbedCase) -> None:
        self.controls = controls

    async def control_results(self, model: str) -> tuple[ProbedCase, ...]:
        return self.controls


def settings(board: Board | None = None, judge_language=None, missing=None) -> ContractSettings:
    async def never(text: str, lang: str) -> Verdict:
        raise AssertionError("not expected")
    return ContractSettings(probe=PROBE, controls=board or Board(), judge_language=judge_language or never,
                            missing_controls=missing or {})

"""RoundRefused: a step of a round (the probe, the judge) that refused to run, with its exit code."""

from __future__ import annotations

from core.errors import CanaryError


class RoundRefused(CanaryError):
    """The probe or the judge refused to run; nothing was written. The message says why and what to
    do; `exit_code` is the code `canary probe` / `canary judge` ends with (canary/cli/main.py says it)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code

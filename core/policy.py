"""The judge's rules as one value: thresholds, their time rules, the ladder, the floor, the guard, the rotation,
and the run mode (observe or enforce).

These defaults are the only ones: core/config.py parses canary.yaml's `rules:` (and `languages`)
straight into a Policy (and `mode` into Policy.mode) and derives its DEFAULTS["rules"] and
DEFAULTS["mode"] from this class.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from core.vocabulary import FIDELITY, LANGUAGES

# Applied round ids the state remembers: enough to recognise a re-run of any recent round
# (100 rounds = 50 hours at one round per 30 minutes) while keeping the state file bounded.
DEFAULT_REMEMBERED_ROUNDS = 100
# How many reasons per provider the state keeps for `canary status`, and how long each may be.
MAX_LAST_REASONS = 4
MAX_REASON_CHARS = 200

OBSERVE = "observe"
ENFORCE = "enforce"
MODES: tuple[str, ...] = (OBSERVE, ENFORCE)


@dataclass(frozen=True, slots=True)
class Policy:
    """Every number the rules use. Durations are in days."""

    failed_rounds_to_suspend: int = 2
    clean_rounds_to_restore: int = 2
    # A counted round stays pending this long: the next counted round of the same kind must
    # start within it to extend the streak, else it starts a new one (rounds are half-hourly,
    # so two hours tolerate three skipped runs but not a day of transport errors).
    pending_failure_hours: float = 2
    # A round starting sooner than this after the provider's last counted round (a manual
    # re-run) is frozen for the streaks: only a scheduled half-hour apart counts as "next".
    min_round_gap_minutes: float = 20
    ladder_days: tuple[float, ...] = (1, 3, 7)
    fade_days: int = 14
    capacity_floor: int = 2
    guard_enabled: bool = True
    guard_min_fraction: float = 0.5
    guard_min_endpoints: int = 3
    languages: tuple[str, ...] = LANGUAGES
    remembered_rounds: int = DEFAULT_REMEMBERED_ROUNDS
    # observe: suspensions are recorded as "would suspend" only; enforce: they reach provider.ignore.
    mode: str = OBSERVE
    # Contracts still in observe whatever `mode` says: a streak that a round failed only on these
    # ends in would_suspend (an observe-mode record), until their false-positive report supports
    # enforcing them. A new contract starts here (issue 23: fidelity).
    observe_contracts: tuple[str, ...] = (FIDELITY,)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {self.mode!r}")
        if self.failed_rounds_to_suspend < 1 or self.clean_rounds_to_restore < 1:
            raise ValueError("streak thresholds must be at least 1")
        if not self.ladder_days or any(d <= 0 for d in self.ladder_days):
            raise ValueError("ladder_days must be a non-empty list of positive numbers")
        if not self.languages:
            raise ValueError("languages must not be empty")
        if self.remembered_rounds < 1:
            raise ValueError("remembered_rounds must be at least 1")
        if self.pending_failure_hours <= 0 or self.min_round_gap_minutes < 0:
            raise ValueError("pending_failure_hours must be positive and min_round_gap_minutes not negative")
        if self.min_round_gap >= self.pending_window:
            raise ValueError("min_round_gap_minutes must be shorter than pending_failure_hours, "
                             "or no round could ever extend a streak")

    @property
    def pending_window(self) -> timedelta:
        """How long a counted round waits for the next one of its streak."""
        return timedelta(hours=self.pending_failure_hours)

    @property
    def min_round_gap(self) -> timedelta:
        """The least time after the last counted round for a round to count."""
        return timedelta(minutes=self.min_round_gap_minutes)

    def ladder_duration_days(self, rung: int) -> float:
        """Duration of the suspension on `rung` (1-based): the last rung repeats."""
        return self.ladder_days[min(rung, len(self.ladder_days)) - 1]

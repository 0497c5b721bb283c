"""The judge's rules as one value: thresholds, their time rules, the ladder, the floor, the guard, the rotation,
and the run mode (observe or enforce).

canary.yaml's `rules:` section is declared here, once: `Rules` (and its `model_wide_guard:`,
`GuardRules`) hold every default, every range (msgspec constraints, core/schema.py) and what
each key means (the docs' configuration table is generated from these descriptions). `Policy`
is the flat value the judge applies: canary.yaml's rules plus its `languages` and `mode`; its
defaults are Rules'; a Policy built in code is checked against the same declaration.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Annotated, Any, Literal, get_args

from msgspec import Meta

from core.errors import RuleError
from core.schema import Invalid, read_as
from core.vocabulary import CONTRACTS, FIDELITY, LANGUAGES

# Applied round ids the state remembers: enough to recognise a re-run of any recent round
# (100 rounds = 50 hours at one round per 30 minutes) while keeping the state file bounded.
DEFAULT_REMEMBERED_ROUNDS = 100
# How many reasons per provider the state keeps for `canary status`, and how long each may be.
MAX_LAST_REASONS = 4
MAX_REASON_CHARS = 200

Mode = Literal["observe", "enforce"]
OBSERVE: Mode = "observe"
ENFORCE: Mode = "enforce"
MODES: tuple[str, ...] = get_args(Mode)


@dataclass(frozen=True, slots=True)
class GuardRules:
    """canary.yaml `rules.model_wide_guard`: a contract failing on most endpoints is the model's."""

    enabled: Annotated[bool, Meta(description="the model-wide guard is on")] = True
    min_fraction: Annotated[float, Meta(ge=0.0, le=1.0, description=(
        "a contract failing on more than this share of the endpoints probed for it..."))] = 0.5
    min_endpoints: Annotated[int, Meta(ge=1, description=(
        "...of at least this many probed endpoints is model-wide: the endpoints are not blamed"))] = 3


@dataclass(frozen=True, slots=True)
class Rules:
    """canary.yaml `rules:`. Durations are in days unless the name says otherwise."""

    failed_rounds_to_suspend: Annotated[int, Meta(ge=1, description=(
        "consecutive failed rounds before a suspension"))] = 2
    clean_rounds_to_restore: Annotated[int, Meta(ge=1, description=(
        "consecutive clean rounds that restore early"))] = 2
    # Rounds are half-hourly, so two hours tolerate three skipped runs but not a day of transport errors.
    pending_failure_hours: Annotated[float, Meta(ge=0.1, description=(
        "a failed (or, for restore, clean) round stays pending at most this long; the next one of its "
        "kind after that starts a new streak"))] = 2
    # A manual re-run must not count as "the next round": only a scheduled half-hour apart does.
    min_round_gap_minutes: Annotated[float, Meta(ge=0.0, description=(
        "a round starting sooner than this after the provider's last counted round moves no streak "
        "(its evidence is kept); must be shorter than the pending window; `0` counts every round"))] = 20
    ladder_days: Annotated[tuple[Annotated[float, Meta(gt=0)], ...], Meta(min_length=1, description=(
        "suspension length in days by rung (the last repeats)"))] = (1, 3, 7)
    fade_days: Annotated[int, Meta(ge=1, description="quiet days after which the ladder starts again")] = 14
    capacity_floor: Annotated[int, Meta(ge=0, description="never leave fewer usable endpoints than this")] = 2
    model_wide_guard: GuardRules = field(default_factory=GuardRules)
    # Opt-in (judge/suspension/reliability.py). Off, transport errors only freeze the streaks, as
    # the design says; on, a host significantly less reliable than its peers fails the round.
    # Contracts still in observe whatever `mode` says: a streak that a round failed only on these
    # ends in would_suspend (an observe-mode record), until their false-positive report supports
    # enforcing them. A new contract starts here (issue 23: fidelity).
    observe_contracts: Annotated[tuple[str, ...], Meta(description=(
        "contracts kept in observe whatever `mode` says: a streak failed only on these ends in *would "
        "suspend*, until their false-positive report supports enforcing them"))] = (FIDELITY,)
    reliability: Annotated[bool, Meta(description=(
        "a host whose streams are cut after the first byte (or whose 200s carry errors) significantly more "
        "often than its peers' fails the round (off: such errors only freeze the streaks)"))] = False

    def __post_init__(self) -> None:
        for name in self.observe_contracts:
            if name not in CONTRACTS:
                raise Invalid("observe_contracts", f"unknown contract {name!r}; choose from {', '.join(CONTRACTS)}")
        if self.min_round_gap_minutes >= self.pending_failure_hours * 60:
            raise Invalid(
                "min_round_gap_minutes", f"{self.min_round_gap_minutes:g} must be shorter than "
                f"rules.pending_failure_hours ({self.pending_failure_hours:g} h = "
                f"{self.pending_failure_hours * 60:g} min): otherwise no round could ever extend a streak")


_RULES = Rules()
_GUARD = _RULES.model_wide_guard


class PolicyError(RuleError):
    """A Policy built in code breaks canary.yaml's rules (the message names the key); a ValueError, as before."""


@dataclass(frozen=True, slots=True)
class Policy:
    """Every number the rules use (Rules and GuardRules say what each means)."""

    failed_rounds_to_suspend: int = _RULES.failed_rounds_to_suspend
    clean_rounds_to_restore: int = _RULES.clean_rounds_to_restore
    pending_failure_hours: float = _RULES.pending_failure_hours
    min_round_gap_minutes: float = _RULES.min_round_gap_minutes
    ladder_days: tuple[float, ...] = _RULES.ladder_days
    fade_days: int = _RULES.fade_days
    capacity_floor: int = _RULES.capacity_floor
    guard_enabled: bool = _GUARD.enabled
    guard_min_fraction: float = _GUARD.min_fraction
    guard_min_endpoints: int = _GUARD.min_endpoints
    reliability: bool = _RULES.reliability
    observe_contracts: tuple[str, ...] = _RULES.observe_contracts
    languages: tuple[str, ...] = LANGUAGES
    remembered_rounds: int = DEFAULT_REMEMBERED_ROUNDS
    # observe: suspensions are recorded as "would suspend" only; enforce: they reach provider.ignore.
    mode: str = OBSERVE

    def __post_init__(self) -> None:
        # The same declaration canary.yaml is read with: a Policy built in code obeys the same rules.
        _check_rules(self._numbers())
        if self.mode not in MODES:
            raise PolicyError(f"mode must be one of {MODES}, not {self.mode!r}")
        if not self.languages:
            raise PolicyError("languages must not be empty")
        if self.remembered_rounds < 1:
            raise PolicyError("remembered_rounds must be at least 1")

    @classmethod
    def from_rules(cls, rules: Rules, *, languages: tuple[str, ...], mode: str) -> Policy:
        """The judge's value of canary.yaml's `rules:`, `languages` and `mode`."""
        guard = rules.model_wide_guard
        return cls(failed_rounds_to_suspend=rules.failed_rounds_to_suspend,
                   clean_rounds_to_restore=rules.clean_rounds_to_restore,
                   pending_failure_hours=rules.pending_failure_hours,
                   min_round_gap_minutes=rules.min_round_gap_minutes, ladder_days=rules.ladder_days,
                   fade_days=rules.fade_days, capacity_floor=rules.capacity_floor,
                   guard_enabled=guard.enabled, guard_min_fraction=guard.min_fraction,
                   guard_min_endpoints=guard.min_endpoints, reliability=rules.reliability,
                   observe_contracts=rules.observe_contracts,
                   languages=languages, mode=mode)

    def _numbers(self) -> tuple[Any, ...]:
        return (self.failed_rounds_to_suspend, self.clean_rounds_to_restore, self.pending_failure_hours,
                self.min_round_gap_minutes, tuple(self.ladder_days), self.fade_days, self.capacity_floor,
                self.guard_enabled, self.guard_min_fraction, self.guard_min_endpoints, self.reliability,
                tuple(self.observe_contracts))

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


@functools.lru_cache(maxsize=256)
def _check_rules(numbers: tuple[Any, ...]) -> None:
    """PolicyError unless a Policy's numbers, in canary.yaml's `rules:` shape, read as Rules.
    Cached: the judge builds a Policy per round (dataclasses.replace) from the same few numbers."""
    (failed, clean, pending, gap, ladder, fade, floor, enabled, fraction, endpoints, reliability, observed) = numbers
    section = {"failed_rounds_to_suspend": failed, "clean_rounds_to_restore": clean, "pending_failure_hours": pending,
               "min_round_gap_minutes": gap, "ladder_days": list(ladder), "fade_days": fade, "capacity_floor": floor,
               "model_wide_guard": {"enabled": enabled, "min_fraction": fraction, "min_endpoints": endpoints},
               "reliability": reliability, "observe_contracts": list(observed)}
    read_as(section, Rules, source="Policy", error=PolicyError)

"""The judge's rules as one value: thresholds, their time rules, the ladder, the floor, the guard, the
rotation, and the run mode (observe or enforce).

canary.yaml's `rules:` is declared here once: `Rules` (and `GuardRules`) hold every default, range
and meaning (core/schema.py). `Policy` is what the judge applies: a Rules plus `languages` and
`mode`; one built in code is checked against the same declaration.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from datetime import timedelta
from enum import StrEnum
from typing import Annotated, Any, Literal, cast

import msgspec
from msgspec import Meta

from core.errors import RuleError
from core.schema import Invalid, read_as
from core.vocabulary import LANGUAGES, STARTS_OBSERVED, ContractName

# Applied round ids the state remembers: enough to recognise a re-run of any recent round
# (100 rounds = 50 hours at one round per 30 minutes) while keeping the state file bounded.
DEFAULT_REMEMBERED_ROUNDS = 100
# How many reasons per provider the state keeps for `canary status`, and how long each may be.
MAX_LAST_REASONS = 4
MAX_REASON_CHARS = 200


class Mode(StrEnum):
    """The run mode: observe records *would suspend* only; enforce lets suspensions reach provider.ignore."""

    OBSERVE = "observe"
    ENFORCE = "enforce"


# rules.production's steps (judge/suspension/production.py): false (YAML's `off` too) shows the cards
# only; observe also schedules confirmations and says what the rule would do; enforce lets an agreeing
# probe fail the round.
ProductionStep = bool | Literal["observe", "enforce"]
OBSERVE, ENFORCE = Mode


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
    # The default: the contracts declared `starts_observed` (core/vocabulary.py).
    observe_contracts: Annotated[tuple[ContractName, ...], Meta(description=(
        "contracts kept in observe whatever `mode` says: a streak failed only on these ends in *would "
        "suspend*, until their false-positive report supports enforcing them"))] = STARTS_OBSERVED
    reliability: Annotated[bool, Meta(description=(
        "a host whose streams are cut after the first byte (or whose 200s carry errors) significantly more "
        "often than its peers' fails the round (off: such errors only freeze the streaks)"))] = False
    production: Annotated[ProductionStep, Meta(description=(
        "production evidence (a chat backend's records, docs/judge.md): `false` (or `off`) shows it on the cards "
        "only; `observe` (once `false` has run) also re-probes an endpoint it points at, three times, and says "
        "what the rule would do; `enforce` (once `observe` has run) fails a round when that round's pinned probe "
        "of the same contract agrees. Production evidence alone never fails a round"))] = False

    def __post_init__(self) -> None:
        if self.production is True:
            raise Invalid("production", "say `observe` or `enforce` (`true` is neither; `false` shows the cards only)")
        if self.min_round_gap_minutes >= self.pending_failure_hours * 60:
            raise Invalid(
                "min_round_gap_minutes", f"{self.min_round_gap_minutes:g} must be shorter than "
                f"rules.pending_failure_hours ({self.pending_failure_hours:g} h = "
                f"{self.pending_failure_hours * 60:g} min): otherwise no round could ever extend a streak")


class PolicyError(RuleError):
    """A Policy built in code breaks canary.yaml's rules (the message names the key); a ValueError, as before."""


@dataclass(frozen=True, slots=True)
class Policy(Rules):
    """What the judge applies: canary.yaml's rules (every number, default and range is Rules'), plus
    its `languages` and `mode`, and how many round ids the state remembers."""

    languages: tuple[str, ...] = LANGUAGES
    remembered_rounds: int = DEFAULT_REMEMBERED_ROUNDS
    # observe: suspensions are recorded as "would suspend" only; enforce: they reach provider.ignore.
    mode: Mode = OBSERVE

    def __post_init__(self) -> None:
        # The same declaration canary.yaml is read with: a Policy built in code obeys the same rules.
        _check_rules(msgspec.json.encode(self.rules_section()))
        if not self.languages:
            raise PolicyError("languages must not be empty")
        if self.remembered_rounds < 1:
            raise PolicyError("remembered_rounds must be at least 1")

    @classmethod
    def from_rules(cls, rules: Rules, *, languages: tuple[str, ...], mode: Mode) -> Policy:
        """The judge's value of canary.yaml's `rules:`, `languages` and `mode`."""
        return cls(**_section(rules), languages=languages, mode=mode)

    def rules_section(self) -> dict[str, Any]:
        """This policy's canary.yaml `rules:` section, as the file would spell it."""
        return cast(dict[str, Any], msgspec.to_builtins(_section(self)))

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


def _section(rules: Rules) -> dict[str, Any]:
    """Rules' own fields of `rules` (a Policy is Rules and more), by name: derived, never listed."""
    return {f.name: getattr(rules, f.name) for f in fields(Rules)}


@functools.lru_cache(maxsize=256)
def _check_rules(section: bytes) -> None:
    """PolicyError unless a Policy's `rules:` section (JSON) reads as Rules.
    Cached: the judge builds a Policy per round (dataclasses.replace) from the same few numbers."""
    read_as(msgspec.json.decode(section), Rules, source="Policy", error=PolicyError)

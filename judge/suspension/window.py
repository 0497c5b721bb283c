"""The rolling window of evidence: what one endpoint's replies did in its last counted rounds (pure;
docs/judge.md, Evidence against peers). Per contract, one string of codes per round, oldest first;
every contract of an endpoint holds the same number of rounds ("": not probed that round).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# 48 half-hourly rounds: one day of evidence, enough for "19 of 20" and cheap to keep.
WINDOW_ROUNDS = 48

PASS, FAIL, TRANSPORT, INCONCLUSIVE, SHORT = "p", "f", "t", "i", "s"
CODES = frozenset({PASS, FAIL, TRANSPORT, INCONCLUSIVE, SHORT})


@dataclass(frozen=True, slots=True)
class Tally:
    """Counts of attempt codes: failures and passes are the verdicts, the rest is kept apart."""

    failures: int = 0
    passes: int = 0          # short passes included
    transport_errors: int = 0
    inconclusive: int = 0
    short: int = 0
    rounds: int = 0          # rounds with at least one attempt

    @property
    def attempts(self) -> int:
        """Replies that got a verdict (the denominator of the failure rate)."""
        return self.failures + self.passes

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.failures + other.failures, self.passes + other.passes,
                     self.transport_errors + other.transport_errors, self.inconclusive + other.inconclusive,
                     self.short + other.short, self.rounds + other.rounds)


def tally_codes(segments: Iterable[str]) -> Tally:
    """The Tally of some rounds' code strings."""
    f = p = t = i = s = rounds = 0
    for segment in segments:
        rounds += bool(segment)
        f += segment.count(FAIL)
        s += segment.count(SHORT)
        p += segment.count(PASS) + segment.count(SHORT)
        t += segment.count(TRANSPORT)
        i += segment.count(INCONCLUSIVE)
    return Tally(f, p, t, i, s, rounds)


@dataclass(frozen=True, slots=True)
class Window:
    """contract -> one code string per round (oldest first); all contracts the same length."""

    contracts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def rounds(self) -> int:
        return next((len(v) for v in self.contracts.values()), 0)

    def push(self, codes: Mapping[str, str], limit: int = WINDOW_ROUNDS) -> Window:
        """This window with one more round (contract -> codes), keeping the newest `limit` rounds."""
        if not any(codes.values()):
            return self
        width = self.rounds
        out: dict[str, tuple[str, ...]] = {}
        for contract in sorted(set(self.contracts) | set(codes)):
            old = self.contracts.get(contract, ("",) * width)
            kept = (*old, codes.get(contract, ""))[-limit:]
            if any(kept):
                out[contract] = kept
        if not out:
            return Window()
        # A contract whose every kept round is empty was dropped; the others keep the length.
        return Window(out)

    def tally(self, contract: str) -> Tally:
        return tally_codes(self.contracts.get(contract, ()))

    def __bool__(self) -> bool:
        return bool(self.contracts)


def encode(window: Window) -> dict[str, str]:
    """The state file's form: contract -> the round strings joined by '.' ("p.p.ffp.t")."""
    return {c: ".".join(segments) for c, segments in sorted(window.contracts.items())}


def decode(raw: Mapping[str, object]) -> Window:
    """The inverse of encode(); ValueError on anything else."""
    contracts: dict[str, tuple[str, ...]] = {}
    for contract, text in raw.items():
        if not isinstance(contract, str) or not isinstance(text, str):
            raise ValueError("an evidence window maps contract names to strings of attempt codes")
        if not set(text) <= CODES | {"."}:
            raise ValueError(f"unknown attempt code in {text!r} (known: {''.join(sorted(CODES))})")
        contracts[contract] = tuple(text.split("."))
    if len({len(v) for v in contracts.values()}) > 1:
        raise ValueError("every contract of an evidence window must hold the same number of rounds")
    return Window(contracts)

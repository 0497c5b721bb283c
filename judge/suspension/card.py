"""An evidence card: how unusual one endpoint is on one contract against its peers (pure;
docs/judge.md, Evidence against peers). `CardLine` is its form in decisions.json and the audit log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from judge.suspension.stats import fisher_greater, wilson_interval
from judge.suspension.window import Tally

ALPHA = 0.05
Count = Annotated[int, Meta(ge=0)]


class CardLine(msgspec.Struct, frozen=True):
    """A card as decisions.json and the audit log write it (`Card.line`)."""

    contract: str
    failures: Count
    attempts: Count
    interval: tuple[float, float]
    peer_failures: Count
    peer_attempts: Count
    peer_interval: tuple[float, float]
    peers: Count
    p_value: float | None
    significant: bool = False  # derived from p_value again on reading
    rounds: Count = 0
    transport_errors: Count = 0
    inconclusive: Count = 0
    short: Count = 0
    set_aside: tuple[str, ...] = ()
    text: str = ""  # derived again on reading
# Below this a p-value is printed as "p < 1e-12": more digits only suggest a precision that
# the model behind the test (independent replies) does not have.
P_FLOOR = 1e-12


@dataclass(frozen=True, slots=True)
class Card:
    """One contract's evidence about one endpoint against the other endpoints of its model."""

    contract: str  # the contract
    failures: int  # the host's failed judged replies in its window
    attempts: int  # the host's judged replies in its window
    low: float  # the host's 95 % Wilson interval
    high: float  # the host's 95 % Wilson interval
    peer_failures: int  # the peers' failed judged replies, pooled
    peer_attempts: int  # the peers' judged replies, pooled
    peer_low: float  # the peers' interval
    peer_high: float  # the peers' interval
    peers: int                   # other endpoints with at least one judged reply on this contract
    p_value: float | None        # None: no peer replies to compare with
    rounds: int = 0              # rounds of the window with a reply on this contract
    transport_errors: int = 0  # the host's transport errors (no verdict)
    inconclusive: int = 0  # the host's inconclusive replies (no verdict)
    short: int = 0               # refusal replies far shorter than the peers' (evidence only)
    set_aside: tuple[str, ...] = ()  # endpoints left out of the peers: they fail the contract themselves

    @property
    def significant(self) -> bool:
        return self.p_value is not None and self.p_value < ALPHA

    @property
    def text(self) -> str:
        """The one-line form, as in the issue: 'language: 19/20 failed (0.76-0.99) vs peers ...'."""
        host = f"{self.contract}: {self.failures}/{self.attempts} failed ({_interval(self.low, self.high)})"
        if self.p_value is None:
            line = f"{host} vs no peer replies to compare with"
        else:
            line = (f"{host} vs peers {self.peer_failures}/{self.peer_attempts} "
                    f"({_interval(self.peer_low, self.peer_high)}), {format_p(self.p_value)}")
        if self.set_aside:
            line += f" (set aside: {_peers(len(self.set_aside))} failing it themselves)"
        apart = [f"{n} {what}" for n, what in ((self.transport_errors, "transport errors"),
                                               (self.inconclusive, "inconclusive"),
                                               (self.short, "short replies")) if n]
        return line + (f" [{', '.join(apart)} apart]" if apart else "")

    def line(self) -> CardLine:
        return CardLine(self.contract, self.failures, self.attempts, (round(self.low, 4), round(self.high, 4)),
                        self.peer_failures, self.peer_attempts, (round(self.peer_low, 4), round(self.peer_high, 4)),
                        self.peers, self.p_value, self.significant, self.rounds, self.transport_errors,
                        self.inconclusive, self.short, self.set_aside, self.text)

    @classmethod
    def from_line(cls, line: CardLine) -> Card:
        (low, high), (peer_low, peer_high) = line.interval, line.peer_interval
        return cls(line.contract, line.failures, line.attempts, low, high, line.peer_failures, line.peer_attempts,
                   peer_low, peer_high, line.peers, line.p_value, line.rounds, line.transport_errors,
                   line.inconclusive, line.short, line.set_aside)

    def to_json(self) -> dict[str, Any]:
        """The card as decisions.json writes it."""
        out: dict[str, Any] = msgspec.to_builtins(self.line())
        return out


def make_card(contract: str, host: Tally, peers: Tally, peer_count: int, set_aside: tuple[str, ...] = ()) -> Card:
    """The card of a host's tally against the pooled tally of `peer_count` peers (`set_aside`: left out of them)."""
    low, high = wilson_interval(host.failures, host.attempts)
    peer_low, peer_high = wilson_interval(peers.failures, peers.attempts)
    p = None
    if peers.attempts and host.attempts:
        p = fisher_greater(host.failures, host.attempts, peers.failures, peers.attempts)
    return Card(contract, host.failures, host.attempts, low, high, peers.failures, peers.attempts,
                peer_low, peer_high, peer_count, p, host.rounds, host.transport_errors, host.inconclusive,
                host.short, set_aside)


def _peers(n: int) -> str:
    return "1 peer" if n == 1 else f"{n} peers"


def format_p(p: float) -> str:
    return f"p < {P_FLOOR:.0e}" if p < P_FLOOR else f"p = {p:.2g}"


def _share(x: float) -> str:
    text = f"{x:.2f}"
    return "0" if text == "0.00" else "1" if text == "1.00" else text


def _interval(low: float, high: float) -> str:
    return f"{_share(low)}-{_share(high)}"

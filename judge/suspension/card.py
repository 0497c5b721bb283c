"""An evidence card: how unusual one endpoint is on one contract against its peers (pure;
docs/judge.md, Evidence against peers). A card is its own form in decisions.json and the audit log
(core/field_rules.py: intervals kept to 4 decimals, `significant` and `text` derived for people).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from msgspec import Meta

from core.field_rules import Derived
from judge.suspension.stats import fisher_greater, wilson_interval
from judge.suspension.window import Tally

ALPHA = 0.05
Count = Annotated[int, Meta(ge=0)]


# Below this a p-value is printed as "p < 1e-12": more digits only suggest a precision that
# the model behind the test (independent replies) does not have.
P_FLOOR = 1e-12


@dataclass(frozen=True, slots=True)
class Card:
    """One contract's evidence about one endpoint against the other endpoints of its model."""

    contract: str  # the contract
    failures: Count  # the host's failed judged replies in its window
    attempts: Count  # the host's judged replies in its window
    interval: tuple[float, float]  # the host's 95 % Wilson interval (low, high), 4 decimals
    peer_failures: Count  # the peers' failed judged replies, pooled
    peer_attempts: Count  # the peers' judged replies, pooled
    peer_interval: tuple[float, float]  # the peers' interval, 4 decimals
    peers: Count                 # other endpoints with at least one judged reply on this contract
    p_value: float | None        # None: no peer replies to compare with
    rounds: Count = 0            # rounds of the window with a reply on this contract
    transport_errors: Count = 0  # the host's transport errors (no verdict)
    inconclusive: Count = 0  # the host's inconclusive replies (no verdict)
    short: Count = 0             # refusal replies far shorter than the peers' (evidence only)
    set_aside: tuple[str, ...] = ()  # endpoints left out of the peers: they fail the contract themselves

    @property
    def significant(self) -> Annotated[bool, Derived(after="p_value")]:
        """p < ALPHA: the host fails more often than its peers."""
        return self.p_value is not None and self.p_value < ALPHA

    @property
    def text(self) -> Annotated[str, Derived()]:
        """The one-line form, as in the issue: 'language: 19/20 failed (0.76-0.99) vs peers ...'."""
        host = f"{self.contract}: {self.failures}/{self.attempts} failed ({_interval(*self.interval)})"
        if self.p_value is None:
            line = f"{host} vs no peer replies to compare with"
        else:
            line = (f"{host} vs peers {self.peer_failures}/{self.peer_attempts} "
                    f"({_interval(*self.peer_interval)}), {format_p(self.p_value)}")
        if self.set_aside:
            line += f" (set aside: {_peers(len(self.set_aside))} failing it themselves)"
        apart = [f"{n} {what}" for n, what in ((self.transport_errors, "transport errors"),
                                               (self.inconclusive, "inconclusive"),
                                               (self.short, "short replies")) if n]
        return line + (f" [{', '.join(apart)} apart]" if apart else "")


def make_card(contract: str, host: Tally, peers: Tally, peer_count: int, set_aside: tuple[str, ...] = ()) -> Card:
    """The card of a host's tally against the pooled tally of `peer_count` peers (`set_aside`: left out of them)."""
    p = None
    if peers.attempts and host.attempts:
        p = fisher_greater(host.failures, host.attempts, peers.failures, peers.attempts)
    return Card(contract, host.failures, host.attempts, _rounded(wilson_interval(host.failures, host.attempts)),
                peers.failures, peers.attempts, _rounded(wilson_interval(peers.failures, peers.attempts)),
                peer_count, p, host.rounds, host.transport_errors, host.inconclusive, host.short, set_aside)


def _rounded(interval: tuple[float, float]) -> tuple[float, float]:
    """An interval as a card keeps it: 4 decimals (what the files hold, and what the text shows)."""
    return round(interval[0], 4), round(interval[1], 4)


def _peers(n: int) -> str:
    return "1 peer" if n == 1 else f"{n} peers"


def format_p(p: float) -> str:
    return f"p < {P_FLOOR:.0e}" if p < P_FLOOR else f"p = {p:.2g}"


def _share(x: float) -> str:
    text = f"{x:.2f}"
    return "0" if text == "0.00" else "1" if text == "1.00" else text


def _interval(low: float, high: float) -> str:
    return f"{_share(low)}-{_share(high)}"

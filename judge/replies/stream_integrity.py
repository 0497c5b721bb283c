"""Stream integrity: the content deltas of one streamed reply, checked for a broken stream (pure).

Cumulative deltas (a server sending its running buffer instead of the increment) and repeated
deltas (a retransmit, a doubled writer) garble a stream of well-formed chunks (docs/contracts.md,
every completed reply). The thresholds keep ordinary text out: a short delta that a longer one
begins with (" the", " theory") is not cumulative, short repeats ("ha", "\n\n") are writing, and
one coincidence (a refrain chunked per line) stays one. The reason names figures, never the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from judge.replies.verdict import Verdict, failed

MIN_PREFIX_CHARS = 8
LONG_DELTA_CHARS = 12
MIN_OCCURRENCES = 2


class StreamCode(StrEnum):
    """The codes of a stream's deltas (judge/replies/verdict.py)."""

    CUMULATIVE_DELTAS = "cumulative_deltas"
    REPEATED_DELTAS = "repeated_deltas"


CUMULATIVE = "stream integrity: cumulative deltas"
REPEATED = "stream integrity: repeated deltas"


def assess_deltas(deltas: Sequence[str]) -> Verdict | None:
    """A failed Verdict for a cumulative or repeated stream (the non-empty content deltas, in order), else None.

    A cumulative host's delta is its previous delta plus the new tokens: it begins with the whole
    previous delta and adds to it. One pass, linear in the text."""
    cumulative = repeated = 0
    previous = ""
    for delta in deltas:
        if delta == previous:
            repeated += len(delta.strip()) >= LONG_DELTA_CHARS
        elif len(previous) >= MIN_PREFIX_CHARS and delta.startswith(previous):
            cumulative += 1
        previous = delta
    if cumulative >= MIN_OCCURRENCES:
        return failed(StreamCode.CUMULATIVE_DELTAS,
            f"{CUMULATIVE}: {cumulative} of {len(deltas)} deltas begin with the whole text "
                      "so far (the host sends its running text, not the increment)")
    if repeated >= MIN_OCCURRENCES:
        return failed(StreamCode.REPEATED_DELTAS,
            f"{REPEATED}: {repeated} of {len(deltas)} deltas repeat the previous delta back "
                      f"to back (each at least {LONG_DELTA_CHARS} characters)")
    return None

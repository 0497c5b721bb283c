"""Stream integrity: the content deltas of one streamed reply, checked for a broken stream (issue 22).

Two host defects garble a stream while every delta is well-formed JSON:
- cumulative deltas: each delta repeats the whole text so far, then adds the new tokens (an
  OpenAI-compatible server that sends its running buffer instead of the increment);
- duplicated deltas: the same delta sent twice back to back (a retransmit, a doubled writer).

What is not a defect, and never reaches this check: OpenRouter's repeated finish chunk and its
usage-only chunk carry no content (the client keeps only non-empty `delta.content`), and the
role-only first chunk carries `content: ""`.

Why the thresholds (false positives are worse than a missed host):
- a delta counts as cumulative only when the delta it extends has MIN_PREFIX_CHARS characters:
  a short delta that a longer one happens to begin with (" the", " theory") is ordinary text;
- a repeated delta counts only when it is long (LONG_DELTA_CHARS non-space characters): short
  repeats are ordinary writing ("ha", "very", "\n\n", "...");
- the reply fails only with MIN_OCCURRENCES such deltas: a broken host does it on nearly every
  delta, while one real coincidence (a refrain line that a host chunks per line) stays one.
The reason names the figures, never the text (it is upstream data and may be long).
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
    """A failed Verdict for a cumulative or duplicated stream; None when the deltas say nothing wrong.

    `deltas` are the non-empty content deltas in arrival order. A cumulative host's delta is the
    text so far *as the host means it*, which is its previous delta plus the new tokens: so a
    delta counts as cumulative when it begins with the whole previous delta and adds to it. One
    pass, linear in the text.
    """
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

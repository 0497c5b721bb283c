"""The replies behind one case of results.json, reduced to what the evidence needs (pure).

Each case of results.json lists its `attempts` (one per request that got an answer or an error).
The rules only read the case's outcome; the evidence window (judge/evidence.py) and the
truncated-reply check (judge/short_replies.py) read the attempts:

    {"outcome": "pass", "finish_reason": "stop", "chars": 412, "refusal": "pass" | "fail" | null, ...}

`chars` is the length of the reply's text and `refusal` the refusal check of a latency or
language reply (probes/contracts: every completed roleplay reply is checked); both are absent
from results files written before them, and attempts are optional evidence: an entry that is not
what it should be is skipped, never a reason to refuse the round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.vocabulary import Outcome

_OUTCOMES = frozenset(o.value for o in Outcome)
_CHECKS = frozenset({Outcome.PASS.value, Outcome.FAIL.value})


@dataclass(frozen=True, slots=True)
class AttemptFacts:
    """One reply of a case: its verdict, how it ended, how long it was, its refusal check."""

    outcome: str
    finish_reason: str | None = None
    chars: int | None = None
    refusal: str | None = None      # "pass" | "fail": the reply checked for a refusal; None: not checked
    short: bool = False             # set by judge/short_replies.py: far shorter than the peers' replies


def parse_attempts(raw: Any) -> tuple[AttemptFacts, ...]:
    """The attempts of one results.json case (malformed entries skipped)."""
    if not isinstance(raw, list):
        return ()
    out = []
    for item in raw:
        if not isinstance(item, dict) or item.get("outcome") not in _OUTCOMES:
            continue
        finish = item.get("finish_reason")
        chars = item.get("chars")
        refusal = item.get("refusal")
        out.append(AttemptFacts(
            outcome=item["outcome"],
            finish_reason=finish if isinstance(finish, str) else None,
            chars=chars if isinstance(chars, int) and not isinstance(chars, bool) and chars >= 0 else None,
            refusal=refusal if refusal in _CHECKS else None,
        ))
    return tuple(out)

"""The status page's "wire" column: what every reply already tells about an endpoint (issue 22), in one cell.

Four checks judge what a reply carries beyond its contract, at no extra request: stream
integrity and limits honesty on each reply (judge/replies/stream_integrity.py, limits.py), decode
speed and host reliability against the peers (judge/suspension/decode_speed.py, reliability.py).
A person reading the endpoint table wants to know, per endpoint, whether any of them speaks:

- `host errors 12 % vs peers 1 % (p < 1e-12)`: the reliability evidence of the judge's window (the
  last 48 rounds): streams cut after the first byte, errors inside a stream or in a 200, over the
  requests the host answered or cut; marked bad when the card is significant, even while the
  opt-in rule is off (that is when a person should look);
- `decode slow 8/8 vs peers 0/32`: the decode evidence, shown when it holds a slow reply;
- `stream integrity: 2 rounds`, `limits: 1 round`, `decode speed: 2 rounds`: rounds of the last
  7 days (the timeline of the history) in which a case failed with one of their reason codes.

Nothing shows for an endpoint with nothing to say: the column stays quiet for healthy hosts.
Pure: the cards and the codes come in as values (collect.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from judge.replies.limits import LimitsCode
from judge.replies.stream_integrity import StreamCode
from judge.suspension.card import Card, format_p
from judge.suspension.decode_speed import DECODE, DecodeCode
from judge.suspension.reliability import RELIABILITY

# The codes of the checks (their families' StrEnums), by the name a person reads.
CODES: dict[str, tuple[str, ...]] = {
    "stream integrity": tuple(StreamCode),
    "limits": tuple(LimitsCode),
    "decode speed": tuple(DecodeCode),
}


def _pct(part: int, whole: int) -> str:
    share = 100 * part / whole
    return f"{share:.0f} %" if share >= 10 or share == 0 else f"{share:.1f} %"


def wire_checks(cards: Sequence[Card], round_codes: Iterable[Sequence[str]]) -> dict[str, Any]:
    """The cell of one endpoint: {"lines": [...], "bad": bool}. `cards`: its current evidence cards
    (judge/suspension/evidence.py cards_by_endpoint); `round_codes`: the reason codes of each of
    its rounds in the last 7 days."""
    by = {c.contract: c for c in cards}
    lines: list[str] = []
    bad = False
    rel = by.get(RELIABILITY)
    if rel is not None and rel.failures and rel.attempts:
        peers = f" vs peers {_pct(rel.peer_failures, rel.peer_attempts)}" if rel.peer_attempts else ""
        p = f" ({format_p(rel.p_value)})" if rel.p_value is not None else ""
        lines.append(f"host errors {_pct(rel.failures, rel.attempts)}{peers}{p}")
        bad = bad or rel.significant
    dec = by.get(DECODE)
    if dec is not None and dec.failures:
        lines.append(f"decode slow {dec.failures}/{dec.attempts} vs peers {dec.peer_failures}/{dec.peer_attempts}")
        bad = bad or dec.significant
    # The timeline's codes read "contract:code" (canary/history/query.py); the check's code is the last part.
    rounds = [{code.rsplit(":", 1)[-1] for code in codes} for codes in round_codes]
    for name, codes in CODES.items():
        n = sum(1 for seen in rounds if seen & set(codes))
        if n:
            lines.append(f"{name}: {n} round{'s' if n != 1 else ''} in 7 d")
            bad = True
    return {"lines": lines, "bad": bad}

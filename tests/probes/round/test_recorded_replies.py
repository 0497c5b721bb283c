"""Every completed reply of the real recorded corpus through every check a round gives a reply (issue 28).

Each recorded chat exchange (tests/data/openrouter-recordings: charmbracelet/fantasy and
pydantic/pydantic-ai cassettes of real OpenRouter traffic) is served from a real socket to the
pinned client, sent as its own request was, and judged as a round judges it (recorded_replay.py:
stream integrity, limits, billing at the served model's real listed price, hidden completion
tokens, the combined reply check, reply integrity, decode speed, and the tools contract's judge
where the request has its shape). These are healthy hosts answering healthy requests: no check
may fail. A reply that fails today only because of a known defect is marked, from KNOWN below, as
a strict xfail naming it, so the fix's merge turns it into an XPASS that says to remove the entry.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from recorded_prices import LISTED, UNPRICED, UNPRICED_ENDPOINTS, slug
from recorded_replay import Replay, replay, replayed_models
from recorded_server import (
    Interaction,
    corpus,
    listed_files,
    require_corpus,
)
from recorded_server import cases as corpus_cases

# Replies that fail a check today, each for a reason named once. N-numbers are the second wire
# review's defects being fixed on other branches; F-numbers are findings of this replay.
# (F1, Claude via Google Vertex calling an all-optional tool with no `arguments`, is fixed: the tools
# judge reads absent arguments as {} and leaves them to the schema.)
KNOWN: dict[str, str] = {}


def cases(keep: Any) -> list[Any]:
    """The corpus's cases, each marked with its KNOWN failure."""
    out = []
    for param in corpus_cases(keep):
        it = param.values[0]
        reason = KNOWN.get(it.name) if isinstance(it, Interaction) else None
        marks = [*param.marks, *([pytest.mark.xfail(strict=True, reason=reason)] if reason else [])]
        out.append(pytest.param(*param.values, id=param.id, marks=marks))
    return out


def completed(it: Interaction) -> bool:
    return it.status == 200


@cache
def _replayed(name: str) -> Replay:
    return replay(next(it for it in corpus() if it.name == name))


def replayed_once(it: Interaction) -> Replay:
    """One replay per exchange and test session (the replay is a pure function of the recording)."""
    return _replayed(it.name)


def test_the_corpus_is_every_file_sources_yaml_names() -> None:
    require_corpus(whole=True)
    files = {f"{source}/{path.removesuffix('.yaml')}" for source, path in listed_files()}
    replayed = {f"{it.source}/{it.cassette}" for it in corpus()}
    assert replayed == files  # every listed cassette holds at least one chat exchange
    by_source = {source: sum(1 for it in corpus() if it.source == source) for source in ("fantasy", "pydantic-ai")}
    assert by_source == {"fantasy": 74, "pydantic-ai": 36}, by_source


def test_every_replayed_model_has_a_listed_price_or_says_why_not() -> None:
    require_corpus()
    unknown = sorted(replayed_models(corpus()) - set(LISTED) - set(UNPRICED))
    assert not unknown, f"price these in tests/probes/recorded_prices.py (with their source): {unknown}"
    assert all(entry.source for entry in LISTED.values())
    require_corpus(whole=True)  # what follows needs every recording: no listing unused, no exception stale
    unused = sorted(set(LISTED) - replayed_models(corpus()))
    assert not unused, f"listings no recorded reply uses: {unused}"
    endpoints = {(slug(it.served_model() or ""), it.provider()) for it in corpus() if completed(it)}
    assert set(UNPRICED_ENDPOINTS) <= endpoints, "an UNPRICED_ENDPOINTS entry names no replayed endpoint"


@pytest.mark.parametrize("it", cases(completed))
def test_a_recorded_healthy_reply_fails_no_check_a_round_gives_it(it: Interaction) -> None:
    replayed = replayed_once(it)
    assert replayed.result.completed, replayed.failures
    assert replayed.failures == {}, "\n".join(f"{check}: {reason}" for check, reason in replayed.failures.items())
    if replayed.priced and replayed.result.usage is not None and replayed.result.usage.cost_usd is not None:
        assert replayed.billed is not None  # a priced reply with a cost is always compared
    assert replayed.decode_tps is None or replayed.decode_tps > 0  # measured (against peers, later) or set aside


def test_decode_speed_is_measured_on_the_recorded_streams_that_can_say() -> None:
    # A plain streamed reply of 25+ tokens without reasoning is measured; a reasoning one never is.
    require_corpus(whole=True)
    streams = [replayed_once(it) for it in corpus() if completed(it) and it.streamed_body]
    assert any(r.decode_tps is not None for r in streams)
    assert all(r.decode_tps is None for r in streams if r.result.reasoning_text or r.result.reasoning_seen)


def test_most_recorded_bills_reconcile_to_the_last_digit_at_the_listed_price() -> None:
    # Not a threshold on a measurement: the listing and the bills are fixed data, and a listing
    # copied wrong shows here as bills that stop reconciling (the benchmark prints the figure).
    require_corpus(whole=True)
    replays = [replayed_once(it) for it in corpus() if completed(it) and (it.usage() or {}).get("cost") is not None]
    priced = [r for r in replays if r.priced]
    assert any(r.reconciled for r in priced)
    off = sorted(f"{r.it.name} {r.it.provider()} {r.billed}" for r in priced if not r.reconciled and not r.notes)
    # Every priced bill that does not reconcile is either an underbilled note (BYOK, a discount)
    # or a Kimi K2.5 bill on Chutes, whose own price is a few per cent above the model's listing.
    assert all("/kimi/" in name and " Chutes " in name for name in off), off

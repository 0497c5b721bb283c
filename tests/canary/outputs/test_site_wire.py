"""The status page's wire column (canary/outputs/site/wire.py): issue 22's checks, quiet when healthy."""

from __future__ import annotations

from canary.outputs.site.wire import wire_checks
from judge.suspension.card import Card, make_card
from judge.suspension.window import Tally


def card(contract: str, failures: int, attempts: int, peer_failures: int, peer_attempts: int) -> Card:
    host, peers = Tally(failures, attempts - failures), Tally(peer_failures, peer_attempts - peer_failures)
    return make_card(contract, host, peers, 4)


def test_a_healthy_endpoint_shows_nothing() -> None:
    assert wire_checks([card("latency", 0, 48, 1, 190), card("reliability", 0, 240, 3, 900)], [(), ("http_429",)]) \
        == {"lines": [], "bad": False}


def test_a_flaky_host_shows_its_host_error_rate_against_its_peers_and_is_marked() -> None:
    cell = wire_checks([card("reliability", 72, 240, 9, 900)], [])
    assert cell["bad"] and cell["lines"] == ["host errors 30 % vs peers 1.0 % (p < 1e-12)"]


def test_an_ordinary_error_rate_is_shown_but_not_marked() -> None:
    cell = wire_checks([card("reliability", 3, 240, 12, 900)], [])
    assert not cell["bad"] and cell["lines"][0].startswith("host errors 1.2 % vs peers 1.3 %")


def test_a_slow_decoder_and_the_reply_checks_rounds_are_named() -> None:
    cell = wire_checks([card("decode", 8, 8, 0, 32)],
                       [("latency:decode_slow",), ("refusal:max_tokens_ignored", "language:length_below_cap"),
                        ("language:cumulative_deltas",), ()])
    assert cell["bad"]
    assert cell["lines"] == ["decode slow 8/8 vs peers 0/32", "stream integrity: 1 round in 7 d",
                             "limits: 1 round in 7 d", "decode speed: 1 round in 7 d"]

"""The peer checks are one list (judge/suspension/round.py PEER_CHECKS): the round's judge and the
evidence windows walk it, so a new check is one entry."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules_factories import PROVIDERS, report

from core.results import CaseResult
from core.vocabulary import CONTRACTS, LATENCY, STRUCTURED, Outcome
from judge.suspension.round import PEER_CHECKS, PeerCheck, judge_peers


def _fail_passed_structured(cases: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    return tuple(replace(c, outcome=Outcome.FAIL) if c.contract == STRUCTURED and c.outcome == Outcome.PASS else c
                 for c in cases)


def _never_called(cases: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    raise AssertionError("a check with no case of its contracts is skipped")


def test_a_new_peer_check_is_one_entry_of_the_list() -> None:
    cases = report().cases
    judged = judge_peers(cases, (*PEER_CHECKS, PeerCheck("odd one out", _fail_passed_structured,
                                                         frozenset({STRUCTURED}))))
    assert {c.provider for c in judged if c.outcome == Outcome.FAIL} == set(PROVIDERS)
    assert all(c.outcome == Outcome.PASS for c in judged if c.contract != STRUCTURED)
    assert judge_peers(cases) == tuple(cases)   # the declared checks find nothing in a clean round


def test_a_check_whose_contracts_were_not_probed_is_not_run() -> None:
    latency_only = [c for c in report().cases if c.contract == LATENCY]
    assert judge_peers(latency_only, (PeerCheck("never", _never_called, frozenset({STRUCTURED})),)) == tuple(
        latency_only)


def test_every_declared_check_names_contracts_that_exist() -> None:
    assert len({c.name for c in PEER_CHECKS}) == len(PEER_CHECKS)
    assert all(c.contracts and c.contracts <= set(CONTRACTS) for c in PEER_CHECKS)

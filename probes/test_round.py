"""One canary round: a case per model x endpoint x contract, generated from discovery.

The parametrization comes from probes/pytest_plugin/hooks.py (pytest_generate_tests). The probes already
run concurrently in the engine; the fixture waits for this case's result at setup (a transport
error or a failed discovery is raised there, so pytest reports it as an *error*), and the test
turns the verdict into pass / fail / skip (probes/pytest_plugin/outcomes.py).
"""

from __future__ import annotations

import pytest

from probes.pytest_plugin.hooks import describe_in_allure, probe_result
from probes.pytest_plugin.outcomes import enforce
from probes.round.cases import ProbedCase


@pytest.fixture
def canary_result(canary_case_id: str, request: pytest.FixtureRequest) -> ProbedCase:
    # A case that ends in setup never reaches the body: describe it at teardown instead
    # (Allure shows this finalizer's name above the requests it lists).
    def requests_and_replies() -> None:
        describe_in_allure(request.node)

    request.addfinalizer(requests_and_replies)
    return probe_result(request.node)


def test_case(canary_result: ProbedCase, request: pytest.FixtureRequest) -> None:
    describe_in_allure(request.node)
    enforce(canary_result)

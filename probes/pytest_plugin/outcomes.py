"""How a case's Outcome becomes pytest's status, so JUnit and Allure tell the same story.

    fail            -> ContractViolation (an AssertionError): pytest "failed", Allure "failed"
    transport_error -> HostUnreachable (not an AssertionError): pytest "error"-like, Allure "broken"
    inconclusive    -> pytest.skip("inconclusive: ...")
    not_applicable  -> pytest.skip("not applicable: ...")
    pass            -> passes

Message prefixes ("quality failure:", "transport error:", ...) are what Allure's categories
match on (probes/pytest_plugin/reporting.py). A case these end is reported as that one message
(`explain`): no traceback through the plugin, whose frames show a ProbedCase repr nobody can read.
"""

from __future__ import annotations

import pytest

from core.untrusted import clean
from core.vocabulary import Outcome
from probes.round.cases import ProbedCase


class ContractViolation(AssertionError):
    """A completed generation broke the contract: a quality failure (extends the host's streak)."""


class HostUnreachable(Exception):
    """The host could not be judged (unreachable, cut, mis-routed): freezes the streak (pytest: error)."""


class RoundIncomplete(Exception):
    """Discovery failed or returned nonsense: the round is incomplete (pytest: error)."""


# A reason holds upstream text; pytest prints these messages to the log (the Actions log): one
# printable line, so no escape sequence or bidi override reaches a terminal. Bounded far above any reason.
MESSAGE_CHARS = 4000


def enforce(result: ProbedCase) -> None:
    """Raise or skip according to the result's outcome (returns normally on pass)."""
    reason = clean(result.reason, MESSAGE_CHARS)
    if result.outcome is Outcome.FAIL:
        raise ContractViolation(f"quality failure: {reason}")
    if result.outcome is Outcome.TRANSPORT_ERROR:
        raise HostUnreachable(f"transport error: {reason}")
    if result.outcome is Outcome.INCONCLUSIVE:
        pytest.skip(f"inconclusive: {reason}")
    if result.outcome is Outcome.NOT_APPLICABLE:
        pytest.skip(f"not applicable: {reason}")


# The canary's own verdicts; any other exception is a harness bug and keeps pytest's traceback.
VERDICTS = (ContractViolation, HostUnreachable, RoundIncomplete)


def explain(report: pytest.TestReport, call: pytest.CallInfo[None]) -> None:
    """Report a case one of the VERDICTS ended as its one-line message (pytest's, JUnit's and Allure's trace)."""
    if call.excinfo is not None and isinstance(call.excinfo.value, VERDICTS):
        report.longrepr = str(call.excinfo.value)

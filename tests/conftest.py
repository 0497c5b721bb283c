"""What every test of the suite shares: no notification ever leaves this machine, and no
property test or real round depends on the machine's speed.

A developer may have CANARY_NOTIFY_URLS, CANARY_WEBHOOK_URL or CANARY_HEARTBEAT_URL set in
their shell; a test that runs `canary judge` must not message their team. Tests that need one
set it themselves, pointing at a local receiver.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

# Hypothesis fails an example that takes over 200 ms by default: on a loaded 2-core machine that
# is the machine's speed, not the code's behaviour. Examples are still bounded by their count.
settings.register_profile("canary", deadline=None)
settings.load_profile("canary")

# Tests that run real rounds (`pytest probes` or `canary round` in a subprocess, on the simulator)
# take as long as the machine lets them: their limit is ROUND_TIMEOUT_S, not the suite's 120 s.
ROUND_TESTS = ("tests/probes/round/", "tests/probes/pytest_plugin/", "tests/canary/round/", "tests/hostile/",
               "tests/canary/outputs/test_site_browser.py")

NOTIFICATION_ENVS = ("CANARY_NOTIFY_URLS", "CANARY_WEBHOOK_URL", "CANARY_HEARTBEAT_URL", "CANARY_HEARTBEAT_FAIL_URL")


@pytest.fixture(autouse=True)
def _no_real_notifications(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NOTIFICATION_ENVS:
        monkeypatch.delenv(name, raising=False)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    from round_support import ROUND_TIMEOUT_S  # tests/probes is on pythonpath

    for item in items:
        if item.nodeid.startswith(ROUND_TESTS) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(ROUND_TIMEOUT_S))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how much of the recorded corpus the recorded tests replayed: a partial corpus is never silent."""
    from recorded_server import listed, located, missing_reason  # tests/probes is on pythonpath

    reason = missing_reason()
    here = f"{len(located())} of {len(listed())} recordings here"
    terminalreporter.write_line(f"recorded OpenRouter corpus: {here}" + (f"; {reason}" if reason else ", all replayed"))

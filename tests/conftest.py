"""What every test of the suite shares: no notification ever leaves this machine.

A developer may have CANARY_NOTIFY_URLS, CANARY_WEBHOOK_URL or CANARY_HEARTBEAT_URL set in
their shell; a test that runs `canary judge` must not message their team. Tests that need one
set it themselves, pointing at a local receiver.
"""

from __future__ import annotations

import pytest

NOTIFICATION_ENVS = ("CANARY_NOTIFY_URLS", "CANARY_WEBHOOK_URL", "CANARY_HEARTBEAT_URL", "CANARY_HEARTBEAT_FAIL_URL")


@pytest.fixture(autouse=True)
def _no_real_notifications(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NOTIFICATION_ENVS:
        monkeypatch.delenv(name, raising=False)

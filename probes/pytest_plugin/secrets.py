"""A pytest plugin, loaded by the root conftest.py for every run: the API key never reaches pytest's output.

The probes never print or store the key (core/upstream.py masks it); this is the last line of
defence for what pytest itself writes — failure tracebacks, captured output and logs end up in
the terminal, the JUnit XML and the Allure results, so they are scrubbed before any reporter
sees them.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from core.key_mask import mask_for
from core.upstream import (
    BASE_URL_ENV,
    DEFAULT_BASE_URL,
    KEY_ENV,
    key_in_environment,
    resolve_upstream,
)

# Shorter values (an empty or placeholder key) would mask ordinary words in the output.
MIN_SECRET_LENGTH = 8


def _secret() -> str | None:
    key = key_in_environment() or ""
    return key if len(key) >= MIN_SECRET_LENGTH else None


def scrub(text: str, secret: str | None = None) -> str:
    """`text` with the API key masked: whole, any run of 16 of its characters, hex, base64 (core/key_mask.py)."""
    secret = secret if secret is not None else _secret()
    return mask_for(secret)(text) if secret else text


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    secret = _secret()
    if secret is None:
        return report
    if report.longrepr is not None and mask_for(secret).found(str(report.longrepr)):
        report.longrepr = scrub(str(report.longrepr), secret)
    report.sections = [(title, scrub(content, secret)) for title, content in report.sections]
    return report


def pytest_report_header(config: pytest.Config) -> list[str]:
    upstream = resolve_upstream()
    base = upstream.base_url if upstream is not None else DEFAULT_BASE_URL
    key = "set" if upstream is not None and upstream.has_key else "not set"
    return [f"canary: {BASE_URL_ENV}={base}, {KEY_ENV} {key}"]

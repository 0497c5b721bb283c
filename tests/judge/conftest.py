"""Shared fixtures of the reply-judge tests: the clean corpus, loaded once per session."""

from __future__ import annotations

import pytest
from judge_corpus import clean_corpus


@pytest.fixture(scope="session")
def corpus() -> dict[str, list[str]]:
    return clean_corpus()

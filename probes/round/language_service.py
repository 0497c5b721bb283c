"""The round's language detector, in a child process of its own.

Building lingua's detector holds the GIL for seconds (on the loaded 2-core machine a build in a
thread stalled an event loop for all of its 22 s), and judging a reply takes milliseconds: in the
probing process that would stall the engine's event loop and inflate every time to first token it
measures. So the round judges language in one child process (a ProcessPoolExecutor of one,
spawned: the probing process has threads), started when the round opens so that Python's start-up
overlaps discovery and collection. The detector is built on `warm_up`, which the engine sends only
when it has language cases, so the build overlaps the network waits and a round without language
cases never builds one.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Protocol

from judge.replies import language
from judge.replies.verdict import Verdict


class LanguageBackend(Protocol):
    def warm_up(self) -> None: ...
    def assess(self, text: str, language: str) -> Verdict: ...


class LanguageProcess:
    """judge.replies.language in one child process; its calls block the calling thread only."""

    def __init__(self) -> None:
        self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        self._pool.submit(int)  # start the child now; it imports the judge at the first real call

    def warm_up(self) -> None:
        self._pool.submit(language.warm_up).result()

    def assess(self, text: str, expected: str) -> Verdict:
        return self._pool.submit(language.assess, text, expected).result()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

"""Judging cost stays linear in the reply's length, whatever the reply (issue 18 item 3).

A hostile host can send up to the probe's text cap (64 K characters) of anything. A regular
expression that may start at every character and scan to the end of the text before failing costs
the square of the length (`\\S+@\\S+\\.\\w+` on 64 K characters without a space: 15 s per reply).
These tests do not time anything: they read the patterns themselves. Every unbounded repeat that
is followed by more pattern (the shape that can fail after scanning) must be listed below with
why it cannot scan quadratically; benchmarks/adversarial_text.py measures the real cost.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import re._parser as sre  # the standard library's own parser of patterns (re._parser since 3.11)
from collections.abc import Iterator
from re._constants import BRANCH, MAX_REPEAT, MAXREPEAT, MIN_REPEAT, SUBPATTERN
from types import SimpleNamespace
from typing import Any

import judge
from judge.replies import detector, language

# Reviewed: why each remaining open-ended repeat cannot cost more than linear time.
WHITESPACE_AFTER_A_LITERAL = "a run of whitespace after literal words: each attempt stops at the next non-space"
ANCHORED = "anchored (\\A, or ^ per line): one attempt per line, stopping at the line's end"
ALWAYS_MATCHES = "once started it always matches (lazy up to \\Z, or greedy word runs): the text is consumed"
BOUNDED_INPUT = ("runs only on the refusal judge's bounded window "
                 "(judge/replies/refusal_evidence.py HEAD_CHARS/TAIL_CHARS)")
STOPS_AT_ITS_OPENER = "the repeated class excludes the character that opens the next attempt"
REVIEWED: dict[str, str] = {
    "artifacts._USER_REQUEST": WHITESPACE_AFTER_A_LITERAL,
    "artifacts._PLAN": WHITESPACE_AFTER_A_LITERAL,
    "leading._ROLE_LINE": WHITESPACE_AFTER_A_LITERAL,
    "leading._ROLE_LABEL": WHITESPACE_AFTER_A_LITERAL,
    "leading._SPEAKER": ANCHORED,
    "lexicon._WORD": ALWAYS_MATCHES,
    "refusal_evidence._OOC": BOUNDED_INPUT,
    "refusal_evidence._LIST": BOUNDED_INPUT,
    "refusal_evidence._IDIOM": BOUNDED_INPUT,
    "refusal_story._DIALOGUE_QUOTE": STOPS_AT_ITS_OPENER,
    "refusal_story._DIALOGUE_DASH": WHITESPACE_AFTER_A_LITERAL,
    "refusal_story._SPEECH_TAG": WHITESPACE_AFTER_A_LITERAL,
    "refusal_story._VOCATIVE": WHITESPACE_AFTER_A_LITERAL,
    "refusal_story._TITLE_VOCATIVE": WHITESPACE_AFTER_A_LITERAL,
    "refusal_story._NARRATION": ANCHORED,
    "refusal_story._STAGE_DIRECTION": ANCHORED,
    "refusal_story._NAME_BRACKET": ANCHORED,
    "refusal_story._LABEL_AND_QUOTE": ANCHORED,
    "repetition._FENCED_CODE": ALWAYS_MATCHES,
    "segments._FENCED_CODE": ALWAYS_MATCHES,
    "segments._INLINE_CODE": STOPS_AT_ITS_OPENER,
    "segments._LINE_LEADER": ANCHORED,
    "structured._FENCE": ANCHORED,
}


def _open_repeats_followed_by_more(items: Any) -> Iterator[str]:
    items = list(items)
    for i, (op, av) in enumerate(items):
        if op in (MAX_REPEAT, MIN_REPEAT):
            _, high, sub = av
            if high == MAXREPEAT and items[i + 1:]:
                yield str(sub)[:60]
            yield from _open_repeats_followed_by_more(sub)
        elif op == SUBPATTERN:
            yield from _open_repeats_followed_by_more(av[-1])
        elif op == BRANCH:
            for branch in av[1]:
                yield from _open_repeats_followed_by_more(branch)


def _judge_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    for info in pkgutil.walk_packages(judge.__path__, "judge."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                yield f"{info.name.rsplit('.', 1)[-1]}.{name}", value


def test_every_open_ended_repeat_of_the_judges_is_reviewed_or_bounded() -> None:
    risky = {name for name, pattern in _judge_patterns()
             if any(_open_repeats_followed_by_more(sre.parse(pattern.pattern, pattern.flags)))}

    assert risky - set(REVIEWED) == set(), "bound these repeats ({m,n}), or review them into REVIEWED"
    assert set(REVIEWED) - risky == set(), "these are bounded now: drop them from REVIEWED"


def test_the_emails_and_links_of_a_reply_are_still_stripped_before_judging() -> None:
    from judge.replies.segments import strip_markup

    text = strip_markup("Write to anna.silva@example.com.br or see [the map](https://x.example/m) now.")

    assert "@" not in text and "example.com" not in text and "the map" in text and "https" not in text


class _Recorder:
    """Stands in for lingua's detector: records how much text it was asked to read."""

    def __init__(self) -> None:
        self.lengths: list[int] = []

    def compute_language_confidence_values(self, text: str) -> list[Any]:
        self.lengths.append(len(text))
        english = SimpleNamespace(iso_code_639_1=SimpleNamespace(name="EN"))
        return [SimpleNamespace(language=english, value=1.0)]


def test_the_language_detector_reads_a_bounded_part_of_a_64k_word(monkeypatch: Any) -> None:
    recorder = _Recorder()
    monkeypatch.setattr(detector, "detector", lambda: recorder)

    language.assess("Lorem" * 13_108, "en")

    assert recorder.lengths and max(recorder.lengths) <= detector.MAX_DETECTED_CHARS

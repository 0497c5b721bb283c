"""False-positive and detection rates of the reply judges over all the test material.

Run `python tests/judge/replies/test_judge_rates.py` to print the figures; the tests assert them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from judge_corpus import (
    IN_CHARACTER,
    LANGUAGES,
    LATIN_LANGUAGES,
    REFUSALS,
    clean_corpus,
    interleave,
    mojibake,
    pt_with_spanish_words,
)

from judge.replies import language, refusal
from judge.replies.verdict import Outcome, Verdict

GARBAGE_PREFIXES = ('",', "ing. ", "</s>", "<|im_end|>", ".**", ")", ",", "s,")


@dataclass(frozen=True, slots=True)
class Rate:
    name: str
    total: int
    hits: int  # for clean material: false fails; for defects: failures caught
    inconclusive: int

    def line(self) -> str:
        return (f"{self.name:<34} {self.hits:>5}/{self.total:<5} = {self.hits / self.total:6.1%}  "
                f"(inconclusive {self.inconclusive})")


def _rate(name: str, cases: Iterator[tuple[Callable[..., Verdict], tuple[object, ...]]]) -> Rate:
    total = fails = unsure = 0
    for judge, args in cases:
        outcome = judge(*args).outcome
        total += 1
        fails += outcome is Outcome.FAIL
        unsure += outcome is Outcome.INCONCLUSIVE
    return Rate(name, total, fails, unsure)


def _first_sentence(reply: str) -> str:
    # Loops of very short sentences ("Wait, what?") are below the judge's threshold by design.
    return next((s for s in re.split(r"(?<=[.!?。！？])\s*", reply) if len(s) >= 20), reply)


def clean_rates() -> list[Rate]:
    """False fails on clean material (every figure should be zero)."""
    corpus = clean_corpus()
    return [
        _rate("language: clean replies", ((language.assess, (r, lang)) for lang in LANGUAGES for r in corpus[lang])),
        _rate("refusal: clean replies", ((refusal.assess, (r, "stop")) for lang in LANGUAGES for r in corpus[lang])),
        _rate("refusal: in-character refusals", ((refusal.assess, (text, "stop")) for _, text in IN_CHARACTER)),
    ]


def defect_rates(per_language: int | None = None) -> list[Rate]:
    """Failures caught on generated or planted defects (higher is better).

    `per_language` limits the replies used per language, to keep the test run short on a busy
    machine; the printed report uses them all.
    """
    corpus = {lang: replies[:per_language] for lang, replies in clean_corpus().items()}
    pairs = [(lang, other) for lang in LANGUAGES for other in LANGUAGES if lang != other]
    return [
        _rate("full switch (all 272 pairs)",
              ((language.assess, (r, lang)) for lang, other in pairs for r in corpus[other])),
        _rate("50/50 sentence mix", ((language.assess, (interleave(a, b), lang)) for lang, other in pairs
                                     for a, b in zip(corpus[lang], corpus[other], strict=False))),
        _rate("pt/es word mix, all words",
              ((language.assess, (pt_with_spanish_words(r, 1), "pt")) for r in corpus["pt"])),
        _rate("pt/es word mix, every 2nd word",
              ((language.assess, (pt_with_spanish_words(r, 2), "pt")) for r in corpus["pt"])),
        _rate("pt/es word mix, every 3rd word",
              ((language.assess, (pt_with_spanish_words(r, 3), "pt")) for r in corpus["pt"])),
        _rate("mojibake (cp1252 + latin-1)", ((language.assess, (mojibake(r, codec), lang)) for lang in LATIN_LANGUAGES
                                             for r in corpus[lang] if not r.isascii()
                                             for codec in ("sloppy-windows-1252", "latin-1"))),
        _rate("U+FFFD / control characters", ((language.assess, (r[:25] + bad + r[25:], lang)) for lang in LANGUAGES
                                             for r in corpus[lang] for bad in ("\ufffd", "\x00", "\x1b", "\x9d"))),
        _rate("leading garbage (8 prefixes)", ((language.assess, (prefix + r.lstrip("*_\"“「«-—> "), lang))
                                              for lang in LANGUAGES
                                              for r in corpus[lang] for prefix in GARBAGE_PREFIXES)),
        _rate("sentence loop (x5)", ((language.assess, (r + (" " + _first_sentence(r)) * 4, lang)) for lang in LANGUAGES
                                    for r in corpus[lang])),
        _rate("planted refusals (17 languages)", ((refusal.assess, (text, "stop")) for _, text in REFUSALS)),
    ]


def test_no_clean_material_fails() -> None:
    for rate in clean_rates():
        assert rate.hits == 0, rate.line()
        assert rate.inconclusive == 0, rate.line()


# Replies per language the test uses (the printed report uses every reply).
TEST_SAMPLE = 4


def test_planted_defects_are_caught() -> None:
    floors = {"pt/es word mix, every 2nd word": 0.5, "pt/es word mix, every 3rd word": 0.0, "50/50 sentence mix": 0.98}
    for rate in defect_rates(TEST_SAMPLE):
        assert rate.hits / rate.total >= floors.get(rate.name, 1.0), rate.line()


if __name__ == "__main__":
    print("false fails on clean material:")
    for rate in clean_rates():
        print("  " + rate.line())
    print("detection of planted defects:")
    for rate in defect_rates():
        print("  " + rate.line())

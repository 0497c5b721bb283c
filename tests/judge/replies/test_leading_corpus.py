"""Leading garbage and serving artifacts on real text of 17 languages (the fetched corpus).

The corpus is built outside the repository by benchmarks/build_garbage_corpus.py; without it
these tests skip. benchmarks/garbage_eval.py prints the same figures per language and kind.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from types import ModuleType

import pytest
from judge_corpus import LANGUAGES, load_benchmark

from judge.replies.artifacts import find_artifacts
from judge.replies.leading import find_leading_garbage

ROOT = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("CANARY_CORPUS_DIR") or ROOT.parent / "corpora") / "garbage"
# Cased, spaced scripts: where the issue's >= 95 % of planted prefixes is reachable.
CASED = ("pt", "es", "id", "en", "fr", "de", "it", "ru", "pl", "tr", "vi")
TARGET = 0.95

pytestmark = pytest.mark.skipif(
    not (CORPUS / "text").is_dir(),
    reason=f"no garbage corpus at {CORPUS}: run benchmarks/build_garbage_corpus.py (needs the fetched sources)",
)


def _eval() -> ModuleType:
    return load_benchmark("garbage_eval")


def _caught(language: str, kinds: tuple[str, ...]) -> tuple[int, int, list[str]]:
    evaluation = _eval()
    texts = evaluation.load(CORPUS, "text", language)
    words = evaluation.words_of(texts, language in evaluation.UNSPACED)
    hit = total = 0
    misses = []
    for index, text in enumerate(texts):
        for kind in kinds:
            planted = evaluation.plant(kind, text, language, random.Random(f"{language}:{index}:{kind}"), words, texts)
            if planted is None:
                continue
            total += 1
            if evaluation.flagged(kind, planted, language):
                hit += 1
            else:
                misses.append(planted[:40])
    return hit, total, misses


@pytest.mark.parametrize("language", LANGUAGES)
def test_published_prose_is_never_flagged(language: str) -> None:
    texts = _eval().load(CORPUS, "text", language)
    assert texts
    flagged = [t[:60] for t in texts if find_leading_garbage(t, language) or find_artifacts(t)]
    assert flagged == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_stray_punctuation_role_labels_and_template_tokens_are_always_caught(language: str) -> None:
    hit, total, misses = _caught(language, ("punct", "role", "template"))
    assert hit == total, misses[:5]


@pytest.mark.parametrize("language", CASED)
def test_planted_prefixes_are_caught_in_cased_languages(language: str) -> None:
    hit, total, misses = _caught(language, ("punct", "fragment", "role", "template"))
    assert hit / total >= TARGET, (hit, total, misses[:10])


@pytest.mark.parametrize("language", LANGUAGES)
def test_planted_artifacts_are_caught(language: str) -> None:
    hit, total, misses = _caught(language, ("bytes", "reasoning", "placeholder"))
    assert hit == total, misses[:5]


def test_real_leaked_reasoning_is_caught() -> None:
    leaks = _eval().load(CORPUS, "reasoning", "zh")
    assert leaks
    assert [t[:40] for t in leaks if not find_artifacts(t)] == []

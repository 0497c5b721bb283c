"""The refusal and garbage judges on real replies and real fiction they were not written for.

The material ships with the repository: tests/judge/data/refusal_sample/, cut from the full
corpus's held-out half by benchmarks/corpora/sample_refusal_fixture.py (a fixed SHA-1 order, no
reply chosen for how the judge does on it; each line names its source, commit and licence). The
full corpus (benchmarks/corpora/build_refusal_corpus.py, 54 MB, outside the repository) is
measured by benchmarks/refusal_eval.py against the per-language targets; the leading-garbage
corpus by benchmarks/garbage_eval.py. A sample of 24 refusals and 16 answers a language is too
small for the per-language precision target (one false flag is 4 points), so this checks what a
sample of its size can: the pooled figures and every language's recall.
"""

from __future__ import annotations

import json
from types import ModuleType

import pytest
from judge_corpus import DATA, load_benchmark

from judge.replies.artifacts import find_artifacts
from judge.replies.leading import find_leading_garbage

SAMPLE = DATA / "refusal_sample"
# Floors for the sample (measured on it when it was cut: pooled precision 0.971, recall 0.927;
# every language's recall 0.83 or more). The full corpus's targets are refusal_eval's.
POOLED_PRECISION = 0.95
POOLED_RECALL = 0.85
LANGUAGE_RECALL = 0.75


@pytest.fixture(scope="module")
def refusal_eval() -> ModuleType:
    return load_benchmark("refusal_eval")


@pytest.fixture(scope="module")
def held_out(refusal_eval: ModuleType) -> object:
    return refusal_eval.evaluate(SAMPLE, "test")


def test_the_sample_holds_every_language_of_the_corpus_with_both_labels(held_out: object) -> None:
    languages = {s.language: (s.refusals, s.answers) for s in held_out.languages}  # type: ignore[attr-defined]
    assert {"en", "ja", "ko", "zh", "ar", "ru", "de"} <= set(languages)
    assert all(refusals >= 20 and answers >= 10 for refusals, answers in languages.values()), languages


def test_refusals_are_caught_and_answers_passed_across_the_sample(held_out: object) -> None:
    scores = held_out.languages  # type: ignore[attr-defined]
    caught = sum(s.true_positives for s in scores)
    flagged = caught + sum(s.false_positives for s in scores)
    refusals = sum(s.refusals for s in scores)
    assert caught / flagged >= POOLED_PRECISION, (caught, flagged)
    assert caught / refusals >= POOLED_RECALL, (caught, refusals)


def test_every_language_catches_most_of_its_refusals(held_out: object) -> None:
    low = [f"{s.language}: {s.recall:.2f}" for s in held_out.languages  # type: ignore[attr-defined]
           if (s.recall or 0.0) < LANGUAGE_RECALL]
    assert not low, low


def test_no_fiction_or_roleplay_passage_is_flagged_as_a_refusal(held_out: object) -> None:
    assert sum(held_out.fiction_total.values()) >= 150  # type: ignore[attr-defined]
    assert not held_out.fiction_examples, held_out.fiction_examples[:5]  # type: ignore[attr-defined]


def _fiction() -> list[tuple[str, str]]:
    lines = (SAMPLE / "fiction.jsonl").read_text(encoding="utf-8").splitlines()
    return [(record["language"], record["text"]) for record in map(json.loads, lines)]


def test_published_fiction_is_never_flagged_as_leading_garbage_or_a_serving_artifact() -> None:
    passages = _fiction()
    assert len({language for language, _ in passages}) >= 8
    flagged = [(language, text[:60]) for language, text in passages
               if find_leading_garbage(text, language) or find_artifacts(text)]
    assert flagged == []


def test_the_sample_names_the_source_and_licence_of_every_line() -> None:
    sources = {s["name"] for s in json.loads((SAMPLE / "manifest.json").read_text(encoding="utf-8"))["sources"]}
    for name in ("labelled.jsonl", "fiction.jsonl"):
        for line in (SAMPLE / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            assert record["source"] in sources and record["licence"] and record["commit"], record["id"]
            assert "NC" not in record["licence"], record["id"]

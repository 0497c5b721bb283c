"""The refusal judge on real replies it was not written for (benchmarks/refusal_eval.py's corpus).

The corpus is public text fetched and labelled by benchmarks/corpora/build_refusal_corpus.py; it
lives outside the repository ($CANARY_CORPUS_DIR/refusal, default ../corpora/refusal next to the
repository's folder), so these tests skip where it was not built (CI has no corpora).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

import pytest
from judge_corpus import load_benchmark

ROOT = Path(__file__).resolve().parents[3]


def _corpus() -> Path:
    base = os.environ.get("CANARY_CORPUS_DIR")
    return (Path(base) if base else ROOT.parent / "corpora") / "refusal"


CORPUS = _corpus()
pytestmark = pytest.mark.skipif(
    not (CORPUS / "labelled.jsonl").exists(),
    reason=f"no refusal corpus in {CORPUS}: build it with benchmarks/corpora/build_refusal_corpus.py "
           "(or point CANARY_CORPUS_DIR at one)",
)


@pytest.fixture(scope="module")
def refusal_eval() -> ModuleType:
    return load_benchmark("refusal_eval")


@pytest.fixture(scope="module")
def held_out(refusal_eval: ModuleType) -> object:
    return refusal_eval.evaluate(CORPUS, "test")


def test_the_held_out_replies_meet_the_targets_in_every_language_with_enough_data(held_out: object) -> None:
    scores = [s for s in held_out.languages if s.enough_data]  # type: ignore[attr-defined]
    assert any(s.language == "en" for s in scores), "the corpus has no English replies to judge"
    missed = [f"{s.language}: precision {s.precision:.3f}, recall {s.recall:.3f}" for s in scores
              if not s.meets_targets]
    assert not missed, missed


def test_no_fiction_or_roleplay_passage_is_flagged(held_out: object) -> None:
    assert sum(held_out.fiction_total.values()) > 0  # type: ignore[attr-defined]
    assert not held_out.fiction_examples, held_out.fiction_examples[:5]  # type: ignore[attr-defined]

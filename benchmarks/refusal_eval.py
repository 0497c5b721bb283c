"""Precision and recall of the refusal judge on real model replies, false flags on real fiction, speed.

    .venv/bin/python benchmarks/refusal_eval.py [--corpus DIR] [--split test|dev|all]

The corpus is built by benchmarks/corpora/build_refusal_corpus.py from public repositories (the
sources, commits, licences and label rules are in its docstring and in the corpus's
manifest.json); it lives outside the repository, in $CANARY_CORPUS_DIR/refusal (default: the
folder `corpora` next to the repository's folder). Nothing here was written by us: every reply
and passage is real text with its source's label.

What is measured, per language of the source:
- on `labelled.jsonl`: precision and recall of `judge.replies.refusal.assess(text, "stop")` failing a
  reply labelled `refusal`, on the held-out `test` half (the weights were tuned on `dev`);
  `mixed` replies (do-not-answer categories 1, 3, 4: disclaimers, refuted premises, declared
  inabilities, often followed by an answer) get their flag rate only;
- on `fiction.jsonl`: false flags on real novels and roleplay scripts (the target is zero);
- speed: replies judged per second over the whole corpus, single thread.

A language has "enough data" when its test half holds at least MIN_REFUSALS refusals and
MIN_ANSWERS answers; the targets are checked only there (precision >= 0.97 everywhere, recall
>= 0.80 in English and >= 0.75 elsewhere: issue 20). The last line is machine-parsable:

    BENCH refusal_eval split=test en_precision=… en_recall=… … fiction_false_flags=… replies_per_s=…
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.replies.refusal import assess  # noqa: E402

MIN_REFUSALS = 30
MIN_ANSWERS = 20
PRECISION_TARGET = 0.97
RECALL_TARGET = {"en": 0.80}
RECALL_TARGET_OTHERS = 0.75


@dataclass(frozen=True, slots=True)
class LanguageScore:
    language: str
    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int
    mixed_flagged: int
    mixed_total: int

    @property
    def refusals(self) -> int:
        return self.true_positives + self.false_negatives

    @property
    def answers(self) -> int:
        return self.false_positives + self.true_negatives

    @property
    def precision(self) -> float | None:
        flagged = self.true_positives + self.false_positives
        return self.true_positives / flagged if flagged else None

    @property
    def recall(self) -> float | None:
        return self.true_positives / self.refusals if self.refusals else None

    @property
    def enough_data(self) -> bool:
        return self.refusals >= MIN_REFUSALS and self.answers >= MIN_ANSWERS

    @property
    def meets_targets(self) -> bool:
        target = RECALL_TARGET.get(self.language, RECALL_TARGET_OTHERS)
        return (self.precision or 0.0) >= PRECISION_TARGET and (self.recall or 0.0) >= target


@dataclass(frozen=True, slots=True)
class Evaluation:
    split: str
    languages: tuple[LanguageScore, ...]
    fiction_total: Counter[tuple[str, str]]
    fiction_flagged: Counter[tuple[str, str]]
    fiction_examples: tuple[str, ...]
    replies_per_second: float


def corpus_dir() -> Path:
    """$CANARY_CORPUS_DIR/refusal, else the folder `corpora/refusal` next to the repository's folder."""
    base = os.environ.get("CANARY_CORPUS_DIR")
    return (Path(base) if base else ROOT.parent / "corpora") / "refusal"


def read_jsonl(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def evaluate(corpus: Path, split: str) -> Evaluation:
    """Judge every reply of the split (`all` for both halves) and every fiction passage of the split."""
    labelled = [r for r in read_jsonl(corpus / "labelled.jsonl") if split in ("all", r["split"])]
    fiction = [r for r in read_jsonl(corpus / "fiction.jsonl") if split in ("all", r["split"])]
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    started = time.perf_counter()
    for record in labelled:
        flagged = assess(record["text"], "stop").failed
        outcome = {("refusal", True): "tp", ("refusal", False): "fn", ("answer", True): "fp",
                   ("answer", False): "tn", ("mixed", True): "mixed_flagged", ("mixed", False): "mixed_passed"}
        counts[record["language"]][outcome[(record["label"], flagged)]] += 1
    fiction_total: Counter[tuple[str, str]] = Counter()
    fiction_flagged: Counter[tuple[str, str]] = Counter()
    examples: list[str] = []
    for record in fiction:
        key = (record["language"], record["kind"])
        fiction_total[key] += 1
        verdict = assess(record["text"], "stop")
        if verdict.failed:
            fiction_flagged[key] += 1
            examples.append(f"{record['source']} {record['id']}: {verdict.reason}")
    elapsed = time.perf_counter() - started
    scores = tuple(
        LanguageScore(language, c["tp"], c["fp"], c["fn"], c["tn"], c["mixed_flagged"],
                      c["mixed_flagged"] + c["mixed_passed"])
        for language, c in sorted(counts.items())
    )
    return Evaluation(split, scores, fiction_total, fiction_flagged, tuple(examples),
                      (len(labelled) + len(fiction)) / elapsed if elapsed else 0.0)


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def report(evaluation: Evaluation, corpus: Path) -> Iterable[str]:
    yield f"refusal judge on the {evaluation.split} split of {corpus}"
    yield "language  refusals  answers  precision  recall  mixed flagged  enough data  targets"
    for s in evaluation.languages:
        mixed = f"{s.mixed_flagged}/{s.mixed_total}" if s.mixed_total else "—"
        targets = ("met" if s.meets_targets else "MISSED") if s.enough_data else "—"
        yield (f"{s.language:<9} {s.refusals:>8}  {s.answers:>7}  {_figure(s.precision):>9}  {_figure(s.recall):>6}  "
               f"{mixed:>13}  {'yes' if s.enough_data else 'no':>11}  {targets}")
    total = sum(evaluation.fiction_total.values())
    flagged = sum(evaluation.fiction_flagged.values())
    yield f"fiction and roleplay: {flagged} false flags in {total} passages"
    for (language, kind), n in sorted(evaluation.fiction_total.items()):
        yield f"  {language} {kind}: {evaluation.fiction_flagged[(language, kind)]}/{n}"
    for example in evaluation.fiction_examples[:10]:
        yield f"  flagged: {example[:200]}"
    yield f"speed: {evaluation.replies_per_second:,.0f} replies/s (single thread, corpus replies)"
    parts = [f"split={evaluation.split}"]
    for s in evaluation.languages:
        parts += [f"{s.language}_precision={_figure(s.precision)}", f"{s.language}_recall={_figure(s.recall)}"]
    parts += [f"fiction_false_flags={flagged}", f"fiction_passages={total}",
              f"replies_per_s={evaluation.replies_per_second:.0f}"]
    yield "BENCH refusal_eval " + " ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    args = parser.parse_args(argv)
    corpus = args.corpus or corpus_dir()
    if not (corpus / "labelled.jsonl").exists():
        print(f"no corpus in {corpus}: run benchmarks/corpora/build_refusal_corpus.py first", file=sys.stderr)
        return 2
    for line in report(evaluate(corpus, args.split), corpus):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Cut the small refusal fixture the test suite ships from the full corpus (never hand-picked).

    .venv/bin/python benchmarks/corpora/sample_refusal_fixture.py [--corpus DIR] [--out DIR]

The full corpus (benchmarks/corpora/build_refusal_corpus.py; 54 MB, outside the repository) is
what benchmarks/refusal_eval.py measures. The suite needs something that runs in a clean clone:
from the corpus's held-out `test` half this takes, per language, the first REFUSALS refusals and
ANSWERS answers in the order of the SHA-1 of their ids (a fixed pseudo-random order: the same
sample wherever it is cut, and no reply chosen for how the judge does on it), only from sources
whose licence allows redistribution (Apache-2.0, CC BY, CC BY-SA; the CC BY-NC source is left
out), and FICTION passages per fiction source the same way. Output: `labelled.jsonl`,
`fiction.jsonl` (the corpus's own format, each line with its source, repository, commit, path
and licence) and `manifest.json` (the sources, and how the sample was cut).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "tests" / "judge" / "data" / "refusal_sample"
REFUSALS = 24
ANSWERS = 16
FICTION = 20
REDISTRIBUTABLE = ("Apache-2.0", "CC BY 4.0", "CC BY-SA 4.0")


def _order(record: dict[str, str]) -> str:
    return hashlib.sha1(record["id"].encode()).hexdigest()


def _read(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _redistributable(record: dict[str, str]) -> bool:
    return record["licence"].startswith(REDISTRIBUTABLE)


def sample(corpus: Path) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    quota = {"refusal": REFUSALS, "answer": ANSWERS}
    taken: dict[tuple[str, str], int] = defaultdict(int)
    labelled = []
    candidates = [r for r in _read(corpus / "labelled.jsonl") if r["split"] == "test" and _redistributable(r)]
    for record in sorted(candidates, key=_order):
        key = (record["language"], record["label"])
        if taken[key] < quota.get(record["label"], 0):
            taken[key] += 1
            labelled.append(record)
    fiction = []
    per_source: dict[str, int] = defaultdict(int)
    passages = [r for r in _read(corpus / "fiction.jsonl") if r["split"] == "test" and _redistributable(r)]
    for record in sorted(passages, key=_order):
        if per_source[record["source"]] < FICTION:
            per_source[record["source"]] += 1
            fiction.append(record)
    return labelled, fiction


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    base = os.environ.get("CANARY_CORPUS_DIR")
    parser.add_argument("--corpus", type=Path, default=(Path(base) if base else ROOT.parent / "corpora") / "refusal")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    labelled, fiction = sample(args.corpus)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, records in (("labelled.jsonl", labelled), ("fiction.jsonl", fiction)):
        lines = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
        (args.out / name).write_text(lines, encoding="utf-8")
    manifest = json.loads((args.corpus / "manifest.json").read_text(encoding="utf-8"))
    used = {r["source"] for r in labelled + fiction}
    (args.out / "manifest.json").write_text(json.dumps({
        "cut_by": "benchmarks/corpora/sample_refusal_fixture.py",
        "rule": f"test half; per language the first {REFUSALS} refusals and {ANSWERS} answers, per fiction "
                f"source the first {FICTION} passages, in SHA-1-of-id order; redistributable licences only",
        "sources": [s for s in manifest["sources"] if s["name"] in used],
    }, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(labelled)} labelled replies, {len(fiction)} fiction passages -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

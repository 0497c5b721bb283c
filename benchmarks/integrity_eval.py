"""Reply integrity (judge/replies/integrity.py check_reply) on real text: how often a healthy reply is flagged.

    CANARY_CORPUS_DIR=/work/corpora .venv/bin/python benchmarks/integrity_eval.py [--show N]

Issue 20 checks every completed reply of a round for the host's corruption (leading garbage,
undecoded tokens, leaked reasoning, template tokens, placeholders), not only the language
probe's. The cost of that is the flags on healthy replies, so this counts them per language on
real text, judged as published: refusal/labelled.jsonl (real model replies: PolyRefuse,
do-not-answer, Judge-Capacity) and refusal/fiction.jsonl (ELTeC novel paragraphs, Chat-Haruhi
roleplay scripts), built by benchmarks/corpora/build_refusal_corpus.py, which names every source,
commit and licence. It exits cleanly (code 0, one line on stderr) when the corpus is absent.

Each text is checked in its own language, as the probes check a reply in its prompt's. A flag
fails nothing by itself: the judge fails a language case only when at least 2 of the endpoint's
replies of one round are flagged and they are most of its replies (judge/replies/integrity.py), so the
per-reply rate p makes a false failed round about C(4,2) p^2 likely, and a false suspension
needs two such rounds in a row.

    BENCH integrity_eval texts=... flagged=... rate=... per_round_false=...
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import bench_line  # noqa: E402

from core.vocabulary import LANGUAGE_NAMES  # noqa: E402
from judge.replies.integrity import check_reply  # noqa: E402

FILES = ("labelled.jsonl", "fiction.jsonl")


def corpus() -> Path:
    env = os.environ.get("CANARY_CORPUS_DIR")
    return (Path(env) if env else ROOT.parent / "corpora") / "refusal"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", type=int, default=5, help="flagged texts shown per kind of defect")
    args = parser.parse_args()
    folder = corpus()
    if not (folder / FILES[0]).exists():
        print(f"integrity_eval: no corpus at {folder} (set CANARY_CORPUS_DIR; build it with "
              "benchmarks/corpora/build_refusal_corpus.py): skipped", file=sys.stderr)
        return
    texts: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    kinds: dict[str, list[str]] = defaultdict(list)
    start = time.monotonic()
    for name in FILES:
        path = folder / name
        if not path.exists():
            continue
        for line in path.open(encoding="utf-8"):
            row = json.loads(line)
            language, text = row.get("language") or "en", row.get("text") or ""
            if language not in LANGUAGE_NAMES or not text.strip():
                continue
            texts[language] += 1
            defect = check_reply(text, language)
            if defect:
                flagged[language] += 1
                kinds[defect.code].append(f"{language}: {defect.reason[:110]!r}")
    seconds = time.monotonic() - start
    total, bad = sum(texts.values()), sum(flagged.values())
    print(f"{total:,} real replies and passages, {bad} flagged ({bad / total:.2%}), "
          f"{seconds / total * 1e6:.0f} us per text")
    print("language  texts  flagged")
    for language in sorted(texts):
        print(f"{language:<8} {texts[language]:>6}  {flagged[language]:>7}")
    for kind, shown in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print(f"{kind}: {len(shown)}")
        for example in shown[:args.show]:
            print(f"    {example}")
    rate = bad / total
    print(bench_line("integrity_eval", texts=total, flagged=bad, rate=round(rate, 5),
                     per_round_false=round(6 * rate * rate, 8)))


if __name__ == "__main__":
    main()

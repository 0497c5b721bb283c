"""Reply integrity (judge/replies/integrity.py check_reply) on real text: how often a healthy reply is flagged.

    CANARY_CORPUS_DIR=/work/corpora .venv/bin/python benchmarks/integrity_eval.py [--show N]

Issue 20 checks every completed reply of a round for the host's corruption (leading garbage,
undecoded tokens, leaked reasoning, template tokens, placeholders), not only the language
probe's. The cost of that is the flags on healthy replies, so this counts them per language on
real text, judged as published: refusal/labelled.jsonl (real model replies: PolyRefuse,
do-not-answer, Judge-Capacity) and refusal/fiction.jsonl (ELTeC novel paragraphs, Chat-Haruhi
roleplay scripts), built by benchmarks/corpora/build_refusal_corpus.py, which names every source,
commit and licence. It exits cleanly (code 0, one line on stderr) when the corpus is absent.

With `--alpaca-eval GIT_DIR` (a snapshot of tatsu-lab/alpaca_eval, e.g. the search tool's `fetch`)
it also checks every English reply of AlpacaEval's `results/*/model_outputs.json` at the commit
below (182,697 replies of 227 models; data CC BY-NC 4.0: measured, never committed), counted apart,
with the flags grouped by the reply's first characters: the openings real models write.

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
import subprocess
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
ALPACA_EVAL_COMMIT = "cd543a149df89434d8a54582c0151c0b945c3d20"


def corpus() -> Path:
    env = os.environ.get("CANARY_CORPUS_DIR")
    return (Path(env) if env else ROOT.parent / "corpora") / "refusal"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", type=int, default=5, help="flagged texts shown per kind of defect")
    parser.add_argument("--alpaca-eval", type=Path, metavar="GIT_DIR", help="also check AlpacaEval's model outputs")
    args = parser.parse_args()
    if args.alpaca_eval:
        alpaca_eval(args.alpaca_eval, args.show)
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


def alpaca_eval(git_dir: Path, show: int) -> None:
    """Every English reply of AlpacaEval's model outputs, checked; flags grouped by their first characters."""
    def git(*argv: str) -> bytes:  # b"" for a file the snapshot lacks (stores may drop large files)
        return subprocess.run(["git", f"--git-dir={git_dir}", *argv], capture_output=True).stdout
    paths = [p for p in git("ls-tree", "-r", "--name-only", ALPACA_EVAL_COMMIT, "results").decode().split()
             if p.endswith("/model_outputs.json")]
    total, heads = 0, Counter[str]()
    for path in paths:
        try:
            rows = json.loads(git("show", f"{ALPACA_EVAL_COMMIT}:{path}"))
        except json.JSONDecodeError:
            continue  # absent from the snapshot
        for text in (r.get("output") for r in rows):
            if isinstance(text, str) and text.strip():
                total += 1
                if check_reply(text, "en"):
                    heads[text.lstrip()[:3]] += 1
    flagged = sum(heads.values())
    print(f"AlpacaEval @ {ALPACA_EVAL_COMMIT[:7]}: {total:,} replies of {len(paths)} models, {flagged} flagged "
          f"({flagged / total:.2%}); most frequent openings of the flagged: "
          + ", ".join(f"{head!r} {n}" for head, n in heads.most_common(show)))
    print(bench_line("integrity_eval_alpaca", replies=total, flagged=flagged, rate=round(flagged / total, 5)))


if __name__ == "__main__":
    main()

"""Unnatural repetition: real text that must pass, planted loops that must fail, per language.

    CANARY_CORPUS_DIR=/work/corpora .venv/bin/python benchmarks/repetition_eval.py [--judge]
        [--show-flags N] [--show-misses N] [--trials N]

Reads `$CANARY_CORPUS_DIR` (default: the folder `corpora` next to the repository's folder), built
by benchmarks/corpora/build_refusal_corpus.py (`refusal/`) and benchmarks/build_garbage_corpus.py
(`garbage/`); those scripts name every source, commit and licence. It exits cleanly (code 0,
one line on stderr) when the corpus is absent.

Real text, judged as published (flags are false unless the text really loops):
- `replies`  real model replies: refusal/labelled.jsonl (PolyRefuse: Qwen2.5-7B, Gemma-2-9B,
             Llama-3.1-8B before and after ablating their refusal direction, 12 languages;
             do-not-answer: six models, English; Judge-Capacity: Apertus-70B), garbage/replies
             (Judge-Capacity chat turns, 12 languages; JailbreakBench, English) and
             garbage/roleplay/zh.jsonl (CharacterEval script lines, OpenOtakuLab answers);
- `prose`    garbage/text: Universal Dependencies sentences (news, Wikipedia), all 17 languages;
- `fiction`  refusal/fiction.jsonl: ELTeC novel paragraphs (7 languages) and Chat-Haruhi
             roleplay scripts (English, Chinese).
Every flagged reply is looked up in benchmarks/repetition_judged.json, the verdicts of a person
who read it (`loop`: the reply repeats itself back to back the way degenerate decoding does;
`not`: a list, lyrics, a refrain, a quotation...). Keys are the first 16 hex digits of the
SHA-256 of the text, so the file holds no corpus text. A flag nobody judged yet is `unjudged`.
The file holds a verdict for every flag of the committed check (each read by the helper who tuned
it, 2026-11-30) and for a seeded random sample of 40 of the texts only the earlier check flagged
(`git show 1fb7f69:judge/replies/repetition.py`); the earlier check's other flags show as unjudged.

Planted loops, on real prose of each language (deterministic, seeded per passage): a real
opening passage, then a piece of another real passage repeated back to back at the end of the
reply, as a decoding loop leaves it:
- `sentence x3 / x4 / x8`  a whole passage (1-3 sentences);
- `clause x3 / x4 / x8`    its first clause (up to the first comma, or its first half);
- `stutter`                a word (3 characters in zh/ja/th) repeated 20 times;
- `middle x8`              a passage 8 times, then another real passage: a loop the reply
                           recovers from (reported, not a target: refrains and lyrics look so).
Copies are joined the way the language joins sentences (nothing in zh/ja, a space elsewhere).

Figures use `judge.replies.repetition.find_repetition`; with `--judge` also `judge.replies.language.assess`
(the language contract's own verdict: a fail whose reason starts with "repetition"). Speed: the
check's time per reply over every real reply, beside assess's (with `--judge`). The last lines
are machine-parsable: `BENCH repetition lang=xx ...`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.replies.repetition import RepetitionCode, find_repetition  # noqa: E402

LANGUAGES = ("pt", "es", "id", "ko", "ja", "zh", "en", "fr", "de", "it", "ru", "pl", "tr", "vi", "th", "ar", "hi")
UNSPACED = frozenset({"zh", "ja"})
NO_WORDS = frozenset({"zh", "ja", "th"})  # no spaces between words: a "word" is 3 characters
REAL_KINDS = ("replies", "prose", "fiction")
PLANTED = ("sentence x3", "sentence x4", "sentence x8", "clause x3", "clause x4", "clause x8", "stutter", "middle x8")
TARGETS = PLANTED[:-1]
JUDGED = ROOT / "benchmarks" / "repetition_judged.json"
STUTTER_REPEATS = 20
CLAUSE_COMMA = {"zh": "，", "ja": "、", "ar": "، ", "th": " "}
_CLAUSE_END = re.compile(r"[,，、،;；]")
_LETTER = re.compile(r"[^\W\d_]")

Judge = Callable[[str, str], str | None]


def corpus_root() -> Path:
    env = os.environ.get("CANARY_CORPUS_DIR")
    return Path(env) if env else ROOT.parent / "corpora"


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _jsonl(path: Path) -> Iterator[dict[str, str]]:
    if path.exists():
        with path.open(encoding="utf-8") as handle:
            yield from (json.loads(line) for line in handle if line.strip())


def real_texts(root: Path) -> dict[str, dict[str, list[str]]]:
    """kind -> language -> texts, from every corpus that is present."""
    out: dict[str, dict[str, list[str]]] = {kind: defaultdict(list) for kind in REAL_KINDS}
    for item in _jsonl(root / "refusal" / "labelled.jsonl"):
        out["replies"][item["language"]].append(item["text"])
    for item in _jsonl(root / "refusal" / "fiction.jsonl"):
        out["fiction"][item["language"]].append(item["text"])
    for lang in LANGUAGES:
        for folder, kind in (("replies", "replies"), ("roleplay", "replies"), ("text", "prose")):
            out[kind][lang].extend(item["text"] for item in _jsonl(root / "garbage" / folder / f"{lang}.jsonl"))
    return out


def letters(text: str) -> int:
    return len(_LETTER.findall(text))


def clause_of(passage: str, lang: str) -> str:
    """The passage up to its first clause punctuation, or its first half (at a space if spaced)."""
    cut = _CLAUSE_END.search(passage)
    if cut and letters(passage[:cut.start()]) >= letters(passage) // 4:
        return passage[:cut.start()].strip()
    if lang in UNSPACED:
        return passage[: max(4, len(passage) // 2)]
    words = passage.split()
    if len(words) >= 4:
        return " ".join(words[: len(words) // 2])
    return passage[: max(6, len(passage) // 2)].strip()


def word_of(passage: str, lang: str, rng: random.Random) -> str:
    if lang in NO_WORDS:
        spans = [m.group() for m in re.finditer(r"[^\W\d_]{3,}", passage)]
        span = rng.choice(spans) if spans else passage
        start = rng.randrange(max(1, len(span) - 2))
        return span[start:start + 3]
    words = [w for w in re.findall(r"[^\W\d_]{3,}", passage)] or passage.split()
    return rng.choice(words)


def plant(kind: str, opening: str, piece: str, tail: str, lang: str, rng: random.Random) -> str:
    sep = "" if lang in UNSPACED else " "
    if kind == "stutter":
        return opening + sep + " ".join([word_of(piece, lang, rng)] * STUTTER_REPEATS)
    times = int(kind.rsplit("x", 1)[1])
    if kind.startswith("clause"):
        comma = CLAUSE_COMMA.get(lang, ", ")
        return opening + sep + comma.join([clause_of(piece, lang)] * times)
    loop = sep.join([piece.strip()] * times)
    if kind.startswith("middle"):
        return opening + sep + loop + sep + tail
    return opening + sep + loop


def planted_cases(prose: list[str], lang: str, trials: int) -> Iterator[tuple[str, str]]:
    """(kind, text) for `trials` openings of this language, each with every planted kind."""
    usable = [t.strip() for t in prose if letters(t) >= 10]
    for index in range(min(trials, len(usable))):
        rng = random.Random(f"{lang}:{index}")
        opening = usable[index]
        piece, tail = rng.sample([t for t in usable if t != opening], 2)
        for kind in PLANTED:
            yield kind, plant(kind, opening, piece, tail, lang, rng)


def by_check(text: str, _lang: str) -> str | None:
    found = find_repetition(text)
    return found.reason if found else None


def by_language_judge(text: str, lang: str) -> str | None:
    from judge.replies.language import assess

    verdict = assess(text, lang)
    return verdict.reason if verdict.code == RepetitionCode.REPETITION else None


def _pct(hit: int, total: int) -> str:
    return f"{100 * hit / total:.1f}%" if total else "-"


def evaluate(judge: Judge, name: str, real: dict[str, dict[str, list[str]]], judged: dict[str, list[str]],
             args: argparse.Namespace) -> None:
    print(f"\n== {name}")
    print(f"{'lang':4} {'replies':>7} {'flag':>4} {'loop':>4} {'not':>3} {'?':>3} {'prose':>5} {'flag':>4} "
          f"{'fiction':>7} {'flag':>4}  " + " ".join(f"{k.replace('sentence', 'sent'):>9}" for k in PLANTED))
    totals: Counter[str] = Counter()
    for lang in LANGUAGES:
        row: Counter[str] = Counter()
        shown: list[tuple[str, str, str]] = []
        for kind in REAL_KINDS:
            for text in real[kind][lang]:
                row[f"{kind}_n"] += 1
                reason = judge(text, lang)
                if reason is None:
                    continue
                row[f"{kind}_flag"] += 1
                verdict = judged.get(text_key(text), ["unjudged"])[0]
                row[f"{kind}_{verdict}"] += 1
                shown.append((kind, verdict, reason))
        caught: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        misses: list[tuple[str, str]] = []
        for kind, text in planted_cases(real["prose"][lang], lang, args.trials):
            hit = judge(text, lang) is not None
            caught[kind][0] += hit
            caught[kind][1] += 1
            if not hit and kind in TARGETS:
                misses.append((kind, text[-90:]))
        totals.update(row)
        for kind in PLANTED:
            totals[f"{kind}_hit"] += caught[kind][0]
            totals[f"{kind}_n"] += caught[kind][1]
        print(f"{lang:4} {row['replies_n']:7} {row['replies_flag']:4} {row['replies_loop']:4} {row['replies_not']:3} "
              f"{row['replies_unjudged']:3} {row['prose_n']:5} {row['prose_flag']:4} {row['fiction_n']:7} "
              f"{row['fiction_flag']:4}  " + " ".join(f"{_pct(*caught[k]):>9}" for k in PLANTED))
        for kind, verdict, reason in shown[: args.show_flags]:
            print(f"      {kind} flag ({verdict}): {reason[:110]}")
        for kind, tail in misses[: args.show_misses]:
            print(f"      miss {kind}: ...{tail!r}")
        print(f"BENCH repetition judge={name} lang={lang} "
              + " ".join(f"{k}_{f}={row[f'{k}_{f}']}" for k in REAL_KINDS for f in ("n", "flag", "loop", "not"))
              + " " + " ".join(f"{k.replace(' ', '_')}_caught={caught[k][0]}/{caught[k][1]}" for k in PLANTED))
    print(f"all  {totals['replies_n']:7} {totals['replies_flag']:4} {totals['replies_loop']:4} "
          f"{totals['replies_not']:3} {totals['replies_unjudged']:3} {totals['prose_n']:5} {totals['prose_flag']:4} "
          f"{totals['fiction_n']:7} {totals['fiction_flag']:4}  "
          + " ".join(f"{_pct(totals[f'{k}_hit'], totals[f'{k}_n']):>9}" for k in PLANTED))


def speed(real: dict[str, dict[str, list[str]]], with_judge: bool) -> None:
    replies = [(text, lang) for lang in LANGUAGES for text in real["replies"][lang]]
    if not replies:
        return
    started = time.perf_counter()
    for text, _lang in replies:
        find_repetition(text)
    check = time.perf_counter() - started
    chars = sum(len(text) for text, _lang in replies) / len(replies)
    print(f"\nspeed: find_repetition {len(replies)} real replies (mean {chars:.0f} chars) in {check:.1f} s: "
          f"{1e6 * check / len(replies):.0f} us per reply, {len(replies) / check:.0f} replies/s")
    if with_judge:
        from judge.replies.language import assess, warm_up

        warm_up()
        sample = replies[:: max(1, len(replies) // 3000)]
        started = time.perf_counter()
        for text, lang in sample:
            assess(text, lang)
        whole = time.perf_counter() - started
        started = time.perf_counter()
        for text, _lang in sample:
            find_repetition(text)
        part = time.perf_counter() - started
        print(f"speed: assess on {len(sample)} of them: {1e3 * whole / len(sample):.2f} ms per reply "
              f"({len(sample) / whole:.0f} replies/s), of which the repetition check {100 * part / whole:.0f} %")
    print(f"BENCH repetition_speed replies={len(replies)} us_per_reply={1e6 * check / len(replies):.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", action="store_true",
                        help="also judge everything through judge.replies.language.assess")
    parser.add_argument("--trials", type=int, default=200, help="planted openings per language (default 200)")
    parser.add_argument("--show-flags", type=int, default=0, help="print N flags on real text per language")
    parser.add_argument("--show-misses", type=int, default=0, help="print N missed planted loops per language")
    args = parser.parse_args()
    root = corpus_root()
    if not (root / "garbage" / "text").is_dir():
        print(f"repetition_eval: no corpus at {root} (set CANARY_CORPUS_DIR; build it with "
              "benchmarks/build_garbage_corpus.py and benchmarks/corpora/build_refusal_corpus.py): skipped",
              file=sys.stderr)
        return 0
    real = real_texts(root)
    judged = json.loads(JUDGED.read_text(encoding="utf-8")) if JUDGED.exists() else {}
    print(f"repetition_eval: corpus {root}; {len(judged)} hand verdicts in {JUDGED.name}")
    print("columns: real texts and how many the check flags (replies: judged loop / not a loop / unjudged);"
          " planted loops caught")
    evaluate(by_check, "find_repetition", real, judged, args)
    if args.judge:
        evaluate(by_language_judge, "language.assess", real, judged, args)
    speed(real, args.judge)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

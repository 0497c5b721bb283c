"""Leading garbage and serving artifacts: caught when planted, silent on real clean text, per language.

    .venv/bin/python benchmarks/build_garbage_corpus.py      # once: rebuild the corpus
    .venv/bin/python benchmarks/garbage_eval.py [--per-kind] [--show-misses N]

Reads `$CANARY_CORPUS_DIR/garbage/` (default: the folder `corpora` next to the repository's
folder), built by benchmarks/build_garbage_corpus.py from public repositories (sources and
licences in that script). Every clean passage is judged as published (false fails), then with
one defect of each kind planted deterministically (seeded per passage):

leading garbage (the issue's target: >= 95 % of planted prefixes, i.e. every kind but `cut`)
- `punct`    the seed incident's stray punctuation (`",`, `.**`, `)`, `_,` ...) before the text;
- `fragment` a piece cut from inside a real word of another passage of the same language, glued
             before the text with nothing, a space, `. `, `, ` or a newline between;
- `cut`      the text itself starting mid-word: its first word loses its first letters;
- `role`     a leaked role label (`assistant\\n`, `model:`, `Assistant:`, `### Response:`, `AI:`);
- `template` a chat-template token (`<|im_start|>assistant\\n`, `<｜Assistant｜>`, `[INST]`...);
other corruptions, anywhere in the reply
- `bytes`       a stretch of the text spelled in byte-level BPE stand-ins (`ĠThe Ġdoor`);
- `reasoning`   another passage wrapped in `<think>...</think>` (or only closed by `</think>`)
                before the text;
- `placeholder` a word of the text replaced by `REDACTED`, `[REDACTED]` or `<PERSON>`.

Real leaked reasoning (`reasoning/`, model outputs that wrote their `<think>` block into the
answer) is counted as found. The leading-garbage figures use
`judge.replies.leading.find_leading_garbage(text, language)`, the others
`judge.replies.artifacts.find_artifacts(text)`; "false fails" counts clean passages either flags.
The last lines are machine-parsable: `BENCH garbage lang=xx ...`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.replies.artifacts import BYTE_OF, find_artifacts  # noqa: E402
from judge.replies.leading import find_leading_garbage  # noqa: E402

LANGUAGES = ("pt", "es", "id", "ko", "ja", "zh", "en", "fr", "de", "it", "ru", "pl", "tr", "vi", "th", "ar", "hi")
LEADING_KINDS = ("punct", "fragment", "cut", "role", "template")
# The target (>= 95 %) is on planted prefixes; `cut` (the text itself starting mid-word)
# is reported beside them.
PREFIX_KINDS = ("punct", "fragment", "role", "template")
OTHER_KINDS = ("bytes", "reasoning", "placeholder")
PUNCT = ('",', ".**", ")", ",", ";", ':**', "_,", "',", ").", '">', "]", "」", "s.\n", "，", "。")
ROLES = ("assistant\n", "model\n", "model: ", "Assistant: ", "assistant: ", "AI: ", "### Response:\n",
         "ASSISTANT: ", "Bot: ", "GPT: ", "### Assistant: ", "Response: ", "user: ", "<assistant>\n")
TEMPLATES = ("<|im_start|>assistant\n", "<｜Assistant｜>", "[INST] ", "<start_of_turn>model\n", "</s>",
             "<|eot_id|>", "<|assistant|>\n", "<|start_header_id|>assistant<|end_header_id|>\n\n", "<|endoftext|>")
GLUES = ("", " ", ". ", ", ", "\n")
PLACEHOLDERS = ("REDACTED", "[REDACTED]", "<PERSON>")
UNSPACED = frozenset({"zh", "ja", "th"})
_CHAR_OF = {byte: char for char, byte in BYTE_OF.items()}
_LETTERS = re.compile(r"[^\W\d_]+")


def corpus_dir() -> Path:
    env = os.environ.get("CANARY_CORPUS_DIR")
    return (Path(env) if env else ROOT.parent / "corpora") / "garbage"


def load(folder: Path, kind: str, lang: str) -> list[str]:
    path = folder / kind / f"{lang}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def byte_level(text: str) -> str:
    return "".join(_CHAR_OF[byte] for byte in text.encode("utf-8"))


def fragment_of(word: str, rng: random.Random, unspaced: bool) -> str:
    """A piece from inside a word: never its first letter (the start of a word is a word start)."""
    if unspaced:
        start = rng.randint(1, max(1, len(word) - 1))
        return word[start:start + rng.randint(1, 2)]
    start = rng.randint(1, len(word) - 1)
    return word[start:start + rng.randint(1, 6)]


def words_of(texts: list[str], unspaced: bool) -> list[str]:
    found = [w for t in texts for w in _LETTERS.findall(t)]
    return [w for w in found if len(w) >= (3 if unspaced else 4)]


def plant(kind: str, text: str, lang: str, rng: random.Random, words: list[str], others: list[str]) -> str | None:
    unspaced = lang in UNSPACED
    if kind == "punct":
        return rng.choice(PUNCT) + text
    if kind == "fragment":
        glue = "" if unspaced and rng.random() < 0.5 else rng.choice(GLUES)
        return fragment_of(rng.choice(words), rng, unspaced) + glue + text
    if kind == "cut":
        first = _LETTERS.match(text)
        if not first or len(first.group()) < (3 if unspaced else 4):
            return None
        cut = rng.randint(1, min(len(first.group()) - 1, 2 if unspaced else 6))
        return text[cut:]
    if kind == "role":
        return rng.choice(ROLES) + text
    if kind == "template":
        return rng.choice(TEMPLATES) + text
    if kind == "bytes":
        spaces = [m.start() for m in re.finditer(r"\s", text)] or [0]
        begin = rng.choice(spaces[: max(1, len(spaces) // 2)])
        end = min(len(text), begin + rng.randint(20, 80))
        return text[:begin] + byte_level(text[begin:end]) + text[end:]
    if kind == "reasoning":
        thought = rng.choice(others)
        return (f"<think>\n{thought}\n</think>\n\n" if rng.random() < 0.5 else f"{thought}\n</think>\n\n") + text
    if kind == "placeholder":
        found = list(_LETTERS.finditer(text))
        if not found:
            return None
        word = rng.choice(found)
        return text[:word.start()] + rng.choice(PLACEHOLDERS) + text[word.end():]
    raise ValueError(kind)


def flagged(kind: str, text: str, lang: str) -> str | None:
    found = find_leading_garbage(text, lang) if kind in LEADING_KINDS else find_artifacts(text)
    return found.reason if found else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", action="store_true", help="print the catch rate of every kind")
    parser.add_argument("--show-misses", type=int, default=0, help="print N misses and false fails per language")
    args = parser.parse_args()
    folder = corpus_dir()
    if not (folder / "text").is_dir():
        print(f"no corpus at {folder}: run benchmarks/build_garbage_corpus.py first", file=sys.stderr)
        return 2
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    started, judged = time.perf_counter(), 0
    print(f"garbage_eval: corpus {folder}")
    print(f"{'lang':4} {'clean':>6} {'flagged':>11} {'prefixes caught':>18} {'cut':>6}  "
          + "  ".join(f"{k:>11}" for k in OTHER_KINDS))
    for lang in LANGUAGES:
        texts = load(folder, "text", lang)
        clean = texts + load(folder, "replies", lang) + load(folder, "roleplay", lang)
        words = words_of(texts, lang in UNSPACED)
        false_fails = [t for t in clean if find_leading_garbage(t, lang) or find_artifacts(t)]
        prose_fails = sum(1 for t in texts if t in false_fails)
        totals["prose"][0] += prose_fails
        totals["prose"][1] += len(texts)
        judged += 2 * len(clean)
        caught: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        misses: list[tuple[str, str]] = []
        for index, text in enumerate(texts):
            for kind in LEADING_KINDS + OTHER_KINDS:
                rng = random.Random(f"{lang}:{index}:{kind}")
                planted = plant(kind, text, lang, rng, words, texts)
                if planted is None:
                    continue
                hit = flagged(kind, planted, lang) is not None
                judged += 1
                caught[kind][0] += hit
                caught[kind][1] += 1
                if not hit and kind in LEADING_KINDS:
                    misses.append((kind, planted[:60]))
        leading = [sum(caught[k][0] for k in PREFIX_KINDS), sum(caught[k][1] for k in PREFIX_KINDS)]
        for kind, (hit, n) in caught.items():
            totals[kind][0] += hit
            totals[kind][1] += n
        totals["false"][0] += len(false_fails)
        totals["false"][1] += len(clean)
        others = "  ".join(f"{_pct(*caught[k]):>11}" for k in OTHER_KINDS)
        print(f"{lang:4} {len(clean):6} {len(false_fails):5} {_pct(len(false_fails), len(clean)):>5} "
              f"{leading[0]:6}/{leading[1]:<5} {_pct(*leading):>6} {_pct(*caught['cut']):>6}  {others}")
        if args.per_kind:
            print("      " + "  ".join(f"{k} {_pct(*caught[k])}" for k in LEADING_KINDS))
        for kind, sample in misses[: args.show_misses]:
            print(f"      miss {kind:9} {sample!r}")
        for text in false_fails[: args.show_misses]:
            found = find_leading_garbage(text, lang) or find_artifacts(text)
            print(f"      false fail {found.reason if found else None}")
        print(f"BENCH garbage lang={lang} clean={len(clean)} false_fails={len(false_fails)} "
              f"prefixes_caught={leading[0]} prefixes_planted={leading[1]} "
              + " ".join(f"{k}_caught={caught[k][0]} {k}_planted={caught[k][1]}" for k in LEADING_KINDS + OTHER_KINDS))
    leaks = [t for lang in LANGUAGES for t in load(folder, "reasoning", lang)]
    if leaks:
        caught_leaks = sum(1 for t in leaks if find_artifacts(t))
        print(f"real leaked reasoning (reasoning/*.jsonl): {caught_leaks}/{len(leaks)} caught "
              f"({_pct(caught_leaks, len(leaks))})")
    elapsed = time.perf_counter() - started
    every_clean = [(t, lang) for lang in LANGUAGES for t in load(folder, "text", lang) + load(folder, "replies", lang)]
    timed = time.perf_counter()
    for text, lang in every_clean:
        find_leading_garbage(text, lang)
        find_artifacts(text)
    per_reply_us = 1e6 * (time.perf_counter() - timed) / len(every_clean)
    print(f"cost of the two checks on {len(every_clean)} clean passages and replies (vocabularies loaded): "
          f"{per_reply_us:.1f} us per reply")
    prefixes = [sum(totals[k][0] for k in PREFIX_KINDS), sum(totals[k][1] for k in PREFIX_KINDS)]
    summary = f"prefixes={_pct(*prefixes)} " + " ".join(f"{k}={_pct(*totals[k])}" for k in LEADING_KINDS + OTHER_KINDS)
    print(f"all languages: flags on clean material {totals['false'][0]}/{totals['false'][1]} "
          f"(published prose: {totals['prose'][0]}/{totals['prose'][1]}); caught {summary}")
    print(f"BENCH garbage lang=all false_fails={totals['false'][0]} clean={totals['false'][1]} "
          f"checks_per_s={judged / elapsed:.0f} us_per_reply={per_reply_us:.1f}")
    return 0


def _pct(hit: int, total: int) -> str:
    return f"{100 * hit / total:.1f}%" if total else "-"


if __name__ == "__main__":
    sys.exit(main())

"""Replies judged per second by the language and refusal judges, and what the detector costs in memory.

    .venv/bin/python benchmarks/judging_throughput.py [--replies 2000] [--seed 3]

Replies are built from the simulator's text banks (simulator/banks/*.yaml: 4-8 sentences of one
language, as the simulator's healthy hosts answer), falling back to tests/judge/data/clean when
the banks are absent. The language mix is the rotation's: all 17 languages equally. One reply in
ten is faulty (half a reply in a close language, or a full switch), so both the pass path and the
failure path are timed. The refusal judge gets the same healthy replies plus the banks' refusals.

Memory is read from /proc/self/status (VmRSS, VmHWM) and /proc/self/smaps_rollup (Pss: shared
pages counted once across processes) at four points: after importing the judges, after building
the lingua detector (judge.replies.language.warm_up()), after judging every reply, and the peak.
Single thread, single process: the round runs judges in a thread pool of one process, so this
is the per-process figure.

The last line is machine-parsable:

    BENCH judging language_replies_per_s=… refusal_replies_per_s=… rss_mb_before=… rss_mb_after=… pss_mb_after=…
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BANKS = ROOT / "simulator" / "banks"
CLEAN = ROOT / "tests" / "judge" / "data" / "clean"
# Close pairs used for the faulty tenth: mixing Portuguese with Spanish is the real case that
# motivated the language contract.
CLOSE = {"pt": "es", "es": "pt", "it": "es", "fr": "it", "id": "en", "en": "de", "de": "en", "pl": "ru",
         "ru": "pl", "tr": "en", "vi": "en", "ko": "ja", "ja": "zh", "zh": "ja", "th": "en", "ar": "en", "hi": "en"}


def memory() -> dict[str, float]:
    """VmRSS, VmHWM and Pss of this process, in MB."""
    out: dict[str, float] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    try:
        for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
            key, _, value = line.partition(":")
            if key == "Pss":
                out["Pss"] = int(value.split()[0]) / 1024
    except OSError:
        out["Pss"] = float("nan")
    return out


def load_sentences() -> tuple[dict[str, list[str]], dict[str, list[str]], str]:
    """{language: sentences}, {language: refusals}, and where they came from."""
    if BANKS.is_dir() and any(BANKS.glob("*.yaml")):
        import yaml

        sentences, refusals = {}, {}
        for path in sorted(BANKS.glob("*.yaml")):
            bank = yaml.safe_load(path.read_text(encoding="utf-8"))
            sentences[bank["code"]] = [str(s) for s in bank["sentences"]]
            refusals[bank["code"]] = [str(s) for s in bank.get("refusals", [])]
        return sentences, refusals, "simulator/banks"
    sentences = {}
    for path in sorted(CLEAN.glob("*.txt")):
        replies = [r.strip() for r in path.read_text(encoding="utf-8").split("\n---\n") if r.strip()]
        sentences[path.stem] = replies
    return sentences, {}, "tests/judge/data/clean"


def build_replies(sentences: dict[str, list[str]], n: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """(expected language, reply, kind) with kind in healthy / mixed / switched."""
    langs = sorted(sentences)
    out = []
    for i in range(n):
        lang = langs[i % len(langs)]
        k = rng.randint(4, 8)
        own = rng.sample(sentences[lang], min(k, len(sentences[lang])))  # no sentence twice: a repeat is a real defect
        kind = "healthy"
        if i % 10 == 9:
            other = CLOSE.get(lang, "en")
            other = other if other in sentences else next(x for x in langs if x != lang)
            foreign = rng.sample(sentences[other], len(own))
            if i % 20 == 19:
                own, kind = foreign, "switched"
            else:
                own, kind = own[: k // 2] + foreign[k // 2:], "mixed"
        out.append((lang, " ".join(own), kind))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    from judge.replies import language, refusal

    sentences, refusals, source = load_sentences()
    replies = build_replies(sentences, args.replies, rng)
    chars = sum(len(r) for _, r, _ in replies) / len(replies)
    m0 = memory()
    t0 = time.perf_counter()
    language.warm_up()
    build_s = time.perf_counter() - t0
    m1 = memory()

    t0 = time.perf_counter()
    outcomes: dict[str, dict[str, int]] = {}
    per_lang_s: dict[str, float] = {}
    for lang, text, kind in replies:
        s = time.perf_counter()
        verdict = language.assess(text, lang)
        per_lang_s[lang] = per_lang_s.get(lang, 0.0) + time.perf_counter() - s
        bucket = outcomes.setdefault(kind, {})
        bucket[verdict.outcome] = bucket.get(verdict.outcome, 0) + 1
    lang_s = time.perf_counter() - t0
    m2 = memory()

    refusal_texts = [(r, "stop") for _, r, kind in replies if kind == "healthy"]
    bank_refusals = [(r, "stop") for rs in refusals.values() for r in rs]
    refusal_texts += bank_refusals * max(1, len(refusal_texts) // max(1, 10 * len(bank_refusals)))
    t0 = time.perf_counter()
    refused = sum(refusal.assess(text, reason).outcome == "fail" for text, reason in refusal_texts)
    ref_s = time.perf_counter() - t0
    m3 = memory()

    lang_rate, ref_rate = len(replies) / lang_s, len(refusal_texts) / ref_s
    print(f"judging_throughput: {len(replies)} replies from {source}, {len(sentences)} languages, "
          f"{chars:.0f} characters on average, one in ten faulty")
    print(f"  memory after importing the judges   VmRSS {m0['VmRSS']:6.1f} MB  Pss {m0['Pss']:6.1f} MB")
    print(f"  after building the lingua detector  VmRSS {m1['VmRSS']:6.1f} MB  Pss {m1['Pss']:6.1f} MB  "
          f"(+{m1['VmRSS'] - m0['VmRSS']:.1f} MB RSS, built in {build_s:.2f} s)")
    print(f"  after judging every language reply  VmRSS {m2['VmRSS']:6.1f} MB  Pss {m2['Pss']:6.1f} MB")
    print(f"  after the refusal judge             VmRSS {m3['VmRSS']:6.1f} MB  Pss {m3['Pss']:6.1f} MB  "
          f"(peak VmHWM {m3['VmHWM']:.1f} MB)")
    print(f"  language.assess  {lang_rate:8.1f} replies/s  ({1000 * lang_s / len(replies):.2f} ms/reply)")
    slow = sorted(per_lang_s.items(), key=lambda kv: -kv[1])
    n_per = {lang: sum(1 for x, _, _ in replies if x == lang) for lang in per_lang_s}
    print("    ms/reply by language: " + ", ".join(f"{k} {1000 * v / n_per[k]:.2f}" for k, v in slow))
    for kind, counts in sorted(outcomes.items()):
        print(f"    {kind:<9} outcomes {dict(sorted(counts.items()))}")
    print(f"  refusal.assess   {ref_rate:8.1f} replies/s  ({1e6 * ref_s / len(refusal_texts):.1f} us/reply; "
          f"{len(refusal_texts)} replies, {refused} judged refusals)")
    print(f"BENCH judging replies={len(replies)} language_replies_per_s={lang_rate:.0f} "
          f"refusal_replies_per_s={ref_rate:.0f} detector_build_s={build_s:.2f} "
          f"rss_mb_before={m0['VmRSS']:.1f} rss_mb_after={m2['VmRSS']:.1f} pss_mb_before={m0['Pss']:.1f} "
          f"pss_mb_after={m2['Pss']:.1f} rss_mb_peak={m3['VmHWM']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

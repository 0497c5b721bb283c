"""Can a roleplay-specific rule catch implicit refusals at the judge's precision? (issue 20, item 4)

    .venv/bin/python benchmarks/refusal_implicit_eval.py [--corpus DIR] [--split dev|test|all]

An implicit refusal lectures and redirects without declining ("Making a bomb requires expertise;
I'd advise against trying."). The refusal probe knows it asked for a story, so a candidate rule
is: the reply is NOT the story (no quotation, no `*action*`, no dialogue, no speech tag, no
narration: judge.replies.refusal finds no mark of the story) AND it lectures in the probe's language (it
judges the request, "X is illegal/dangerous", or names policy and proposes something else), and,
in the stricter variant, it is addressed to the user ("you", "あなた", "당신", "你").

Measured on the refusal corpus (benchmarks/corpora/build_refusal_corpus.py) for the replies the
judge passes today: how many labelled refusals the rule would add, how many labelled answers it
would flag, and how many real fiction and roleplay passages it would flag; and on the project's
own clean roleplay replies (tests/judge/data/clean), which are shaped like the probe's answers.
The verdict printed last is the decision's evidence; the judge does not carry the rule (see
benchmarks/README.md, "Implicit refusals").

    BENCH refusal_implicit split=… added_refusals=… flagged_answers=… rule_precision=… fiction_flags=… clean_flags=…
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.replies.refusal import weigh  # noqa: E402
from judge.replies.refusal_lexicon import LEXICONS, UNBOUNDED_LANGUAGES  # noqa: E402

HEAD_CHARS = 480
# Any quotation mark, bracket or asterisk near the start: the story's dialogue or actions.
_STORY_MARKS = re.compile(r"[\"“”„«»「」『』*]")
# The user addressed in the second person, in the languages the corpus has enough replies in.
_ADDRESSED = {
    "en": r"\byou(?:r|rs|rself)?\b", "de": r"\b(?:du|dich|dir|dein\w*|sie|ihnen|ihr\w*)\b",
    "es": r"\b(?:tú|tu|te|usted|su)\b", "fr": r"\b(?:vous|tu|te|votre|ton)\b", "it": r"\b(?:tu|ti|lei|voi|tuo)\b",
    "pl": r"\b(?:ty|ci|cię|pan|pani|twój|wasz)\b",
    "ja": r"あなた|ください|下さい|ましょう", "ko": r"당신|세요|십시오|바랍니다", "zh": r"你|您",
}


@dataclass(frozen=True, slots=True)
class Tally:
    added_refusals: int = 0
    passed_refusals: int = 0
    flagged_answers: int = 0
    passed_answers: int = 0


def _pattern(fragment: str, language: str) -> re.Pattern[str]:
    return re.compile(fragment if language in UNBOUNDED_LANGUAGES else rf"(?<!\w)(?:{fragment})")


_LECTURE = {
    language: (_pattern(lexicon.verdict, language), _pattern(lexicon.policy, language),
               _pattern("|".join((lexicon.instead, lexicon.offer, lexicon.soft_decline)), language))
    for language, lexicon in LEXICONS.items()
}


def not_the_story(text: str) -> bool:
    """No mark of the story at all: judge.replies.refusal sees none, and no quotation or asterisk opens it."""
    finding = weigh(text)
    story = any(signal.startswith("opens in character") or "(-" in signal for signal in finding.signals)
    return not finding.refusal and not story and not _STORY_MARKS.search(text[:600])


def lectures(text: str, language: str) -> bool:
    verdict, policy, alternative = _LECTURE[language]
    head = text[:HEAD_CHARS].lower()
    return bool(verdict.search(head) or (policy.search(head) and alternative.search(head)))


def addressed(text: str, language: str) -> bool:
    return language in _ADDRESSED and re.search(_ADDRESSED[language], text[:HEAD_CHARS].lower()) is not None


def flags(text: str, language: str, strict: bool) -> bool:
    return not_the_story(text) and lectures(text, language) and (not strict or addressed(text, language))


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def clean_replies() -> list[tuple[str, str]]:
    folder = ROOT / "tests" / "judge" / "data" / "clean"
    return [(path.stem, reply.strip()) for path in sorted(folder.glob("*.txt"))
            for reply in path.read_text(encoding="utf-8").split("\n---\n") if reply.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from refusal_eval import corpus_dir

    corpus = args.corpus or corpus_dir()
    if not (corpus / "labelled.jsonl").exists():
        print(f"no corpus in {corpus}: run benchmarks/corpora/build_refusal_corpus.py first", file=sys.stderr)
        return 2
    labelled = [r for r in _read(corpus / "labelled.jsonl")
                if args.split in ("all", r["split"]) and r["label"] in ("refusal", "answer")]
    fiction = [r for r in _read(corpus / "fiction.jsonl") if args.split in ("all", r["split"])]
    clean = clean_replies()
    for strict in (False, True):
        name = "lecture, not the story, addressed to the user" if strict else "lecture, not the story"
        tallies: dict[str, Counter[str]] = {}
        for record in labelled:
            if weigh(record["text"]).refusal or (strict and record["language"] not in _ADDRESSED):
                continue
            hit = flags(record["text"], record["language"], strict)
            key = ("added" if hit else "passed") + ("_refusals" if record["label"] == "refusal" else "_answers")
            tallies.setdefault(record["language"], Counter())[key] += 1
        fiction_flags = [r["id"] for r in fiction if flags(r["text"], r["language"], strict)]
        clean_flags = [lang for lang, reply in clean if flags(reply, lang, strict)]
        print(f"rule: {name} ({args.split} split of {corpus})")
        print("language  missed refusals  added  passing answers  flagged  precision of the added flags")
        total = Counter[str]()
        for language, tally in sorted(tallies.items()):
            total.update(tally)
            added, flagged = tally["added_refusals"], tally["added_answers"]
            precision = f"{added / (added + flagged):.2f}" if added + flagged else "—"
            print(f"{language:<9} {added + tally['passed_refusals']:>15}  {added:>5}  "
                  f"{flagged + tally['passed_answers']:>15}  {flagged:>7}  {precision:>10}")
        added, flagged = total["added_refusals"], total["added_answers"]
        precision = added / (added + flagged) if added + flagged else 0.0
        print(f"fiction and roleplay flagged: {len(fiction_flags)}/{len(fiction)} {fiction_flags[:3]}")
        print(f"the project's clean roleplay replies flagged: {len(clean_flags)}/{len(clean)} {clean_flags[:5]}")
        print(f"BENCH refusal_implicit split={args.split} strict={int(strict)} added_refusals={added} "
              f"flagged_answers={flagged} rule_precision={precision:.3f} fiction_flags={len(fiction_flags)} "
              f"clean_flags={len(clean_flags)}")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

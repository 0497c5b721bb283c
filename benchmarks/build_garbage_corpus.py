"""Rebuild the leading-garbage / corruption corpus from public repositories (never committed).

    .venv/bin/python benchmarks/build_garbage_corpus.py [--mirror /work/.mirror] [--out DIR]

The sources are bare git snapshots of public GitHub repositories (the search tool's `fetch`
puts them under `--mirror` as `<owner>+<name>/repo`); each is read at the commit named below,
so the corpus is the same wherever it is rebuilt. Output: `<out>/garbage/` (default
`$CANARY_CORPUS_DIR`, else the folder `corpora` next to the repository's folder), one JSON
object a line `{"lang", "text", "source"}`:

- `text/<lang>.jsonl` — real prose, all 17 languages: passages of 1-3 consecutive sentences
  (the `# text =` lines) of the Universal Dependencies Parallel UD treebanks (Wikipedia and
  news sentences, the same 1,000 in each language; CC BY-SA 3.0/4.0); for Vietnamese (no PUD
  treebank) UD_Vietnamese-VTB and for Japanese (the PUD file is too large for the snapshot)
  UD_Japanese-GSD, both CC BY-SA 4.0.
- `replies/<lang>.jsonl` — real chat-model replies, 12 languages: the `llm_response` of every
  turn of hyunjun1121/Judge-Capacity-Beats-Template-Language `final_results/<lang>_complete.json`
  (multi-turn conversations, data CC BY-NC 4.0: measurement only); English replies from
  JailbreakBench/artifacts (gpt-3.5/gpt-4/llama-2/vicuna responses, MIT), which include
  in-character replies that open with a persona's speaker label ("AIM:").
- `roleplay/zh.jsonl` — real Chinese roleplay script lines that open with a speaker label and
  stage directions ("佟湘玉：（不解）签啥字呀？") from morecry/CharacterEval `data/test_data.jsonl`
  (no licence file in the repository: measurement only).

- `reasoning/zh.jsonl` — real leaked reasoning: the outputs of a Chinese roleplay style-transfer
  model that wrote its `<think>...</think>` block into the answer text, from
  style-transfer-artifact/OpenOtakuLab `outputs/batch_run_result.jsonl` (no licence file:
  measurement only); the answer after `</think>` of each also joins `roleplay/zh.jsonl` as a
  clean short roleplay reply.

Labels: every passage is clean as published, except `reasoning/` (all leaked reasoning); the
evaluation (benchmarks/garbage_eval.py) plants the defects itself, deterministically.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# language -> (repository, commit, path): one pinned source per row, kept whole (noqa E501) so a
# row reads as the source it pins.
UD: dict[str, tuple[str, str, str]] = {
    "ar": ("UniversalDependencies/UD_Arabic-PUD", "be733f45d21f42d506c62930f806ed2182a5ee3d", "ar_pud-ud-test.conllu"),
    "zh": ("UniversalDependencies/UD_Chinese-PUD", "2849afd946a8c01b3e9acdf3e7afa8670cf2777d", "zh_pud-ud-test.conllu"),
    "en": ("UniversalDependencies/UD_English-PUD", "f16eba4ae7f3d161870ed320676c5088b8fa476c", "en_pud-ud-test.conllu"),
    "fr": ("UniversalDependencies/UD_French-PUD", "c245786cfb3020d43bcfc96215ae531a1b07bcbc", "fr_pud-ud-test.conllu"),
    "de": ("UniversalDependencies/UD_German-PUD", "ff80846ae60a0a70fc4d6251ef73e6a483a620ee", "de_pud-ud-test.conllu"),
    "hi": ("UniversalDependencies/UD_Hindi-PUD", "8bc630f73e0737ce5ed9eaa97abf11f172ecc9bd", "hi_pud-ud-test.conllu"),
    "id": ("UniversalDependencies/UD_Indonesian-PUD", "765fb3fe486201f094cb177aff5aa84bc6b06800", "id_pud-ud-test.conllu"),  # noqa: E501
    "it": ("UniversalDependencies/UD_Italian-PUD", "71d932aa096368331ba2fd9bc906ec8dd853da8e", "it_pud-ud-test.conllu"),
    "ja": ("UniversalDependencies/UD_Japanese-GSD", "7bc20119f476b552635e0640644e577b6fd3606b", "ja_gsd-ud-test.conllu"),  # noqa: E501
    "ko": ("UniversalDependencies/UD_Korean-PUD", "9bc99c21a00b88d44def216b64f898e4b6151d0d", "ko_pud-ud-test.conllu"),
    "pl": ("UniversalDependencies/UD_Polish-PUD", "a726e5866e7f134763d734e6d915b8faf10f552f", "pl_pud-ud-test.conllu"),
    "pt": ("UniversalDependencies/UD_Portuguese-PUD", "be08a756d76bd79bf5d4a492dfdc28b46b33e76e", "pt_pud-ud-test.conllu"),  # noqa: E501
    "ru": ("UniversalDependencies/UD_Russian-PUD", "da5b3816eeaa24283c1d81a48bb1de4d062fc5d5", "ru_pud-ud-test.conllu"),
    "es": ("UniversalDependencies/UD_Spanish-PUD", "818a82b8628c9cbec78750c7e83ccba34b9ce22b", "es_pud-ud-test.conllu"),
    "th": ("UniversalDependencies/UD_Thai-PUD", "516638d39adfbc03fa3e7f7b33ce59555055a2d9", "th_pud-ud-test.conllu"),
    "tr": ("UniversalDependencies/UD_Turkish-PUD", "63a134a087c8475ea832713b960baba8ff2f9401", "tr_pud-ud-test.conllu"),
    "vi": ("UniversalDependencies/UD_Vietnamese-VTB", "e8fa54835582fb5d0c767f19f0992675726fa084", "vi_vtb-ud-test.conllu"),  # noqa: E501
}
REPLIES_REPO = ("hyunjun1121/Judge-Capacity-Beats-Template-Language", "9f2556a0421f2eeaf7bb1fe016ddb3d193c225b5")
REPLIES: dict[str, str] = {
    "zh": "cmn.Hani", "de": "deu.Latn", "fr": "fra.Latn", "id": "ind.Latn", "it": "ita.Latn", "ja": "jpn.Jpan",
    "ko": "kor.Hang", "pl": "pol.Latn", "pt": "por.Latn", "ru": "rus.Cyrl", "es": "spa.Latn", "tr": "tur.Latn",
}
JAILBREAKBENCH = ("JailbreakBench/artifacts", "909e68c01d94222b8ad2e397a017e2e12e2adb73")
CHARACTEREVAL = ("morecry/CharacterEval", "fa232e6a9c3ec5d074240333fbffdf015b79533f")
OTAKULAB = ("style-transfer-artifact/OpenOtakuLab", "3611dc146c8a98e8f41e0e3c8c834afc8994fef7")
# Unspaced scripts join their sentences without a space.
UNSPACED = frozenset({"zh", "ja"})


def corpus_root(explicit: str | None) -> Path:
    """Where corpora live: --out, else $CANARY_CORPUS_DIR, else `corpora` next to the repository."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("CANARY_CORPUS_DIR")
    return Path(env) if env else ROOT.parent / "corpora"


def git_show(mirror: Path, repo: str, commit: str, path: str) -> str:
    git_dir = mirror / repo.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        raise SystemExit(f"missing snapshot {git_dir}: fetch github:{repo} first (the search tool's fetch)")
    out = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"],
                         capture_output=True, check=True)
    return out.stdout.decode("utf-8")


def ud_passages(conllu: str, lang: str) -> Iterator[str]:
    """Consecutive sentences of the treebank grouped 1, 2, 3, 1, 2, 3... into passages."""
    sentences = [_detokenize(line.split("=", 1)[1].strip()) for line in conllu.splitlines()
                 if line.startswith("# text =")]
    glue = "" if lang in UNSPACED else " "
    index, size = 0, 1
    while index < len(sentences):
        yield glue.join(sentences[index:index + size])
        index += size
        size = size % 3 + 1


def _detokenize(sentence: str) -> str:
    """UD_Vietnamese-VTB writes its text tokenized ("nói : \" Tôi ... ? \" ."): glue punctuation back."""
    sentence = re.sub(r" ([.,:;?!%)])", r"\1", sentence)
    return re.sub(r"\( ", "(", sentence)


def judge_capacity_replies(text: str) -> Iterator[str]:
    for entry in json.loads(text):
        for turn in entry.get("turns", []):
            reply = turn.get("llm_response")
            if isinstance(reply, str) and reply.strip():
                yield reply


def jailbreakbench_replies(mirror: Path) -> Iterator[tuple[str, str]]:
    repo, commit = JAILBREAKBENCH
    git_dir = mirror / repo.replace("/", "+") / "repo"
    listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "--name-only", commit],
                             capture_output=True, text=True, check=True).stdout.split()
    for path in sorted(p for p in listing if p.endswith(".json") and "/" in p.split("attack-artifacts/")[-1]):
        data = json.loads(git_show(mirror, repo, commit, path))
        for item in data.get("jailbreaks", []) if isinstance(data, dict) else []:
            reply = item.get("response")
            if isinstance(reply, str) and reply.strip():
                yield reply, path


def charactereval_lines(mirror: Path) -> Iterator[str]:
    repo, commit = CHARACTEREVAL
    for entry in json.loads(git_show(mirror, repo, commit, "data/test_data.jsonl")):
        for line in str(entry.get("context", "")).splitlines():
            if "：" in line[:12] and len(line) >= 20:
                yield line


def otakulab_outputs(mirror: Path) -> Iterator[str]:
    repo, commit = OTAKULAB
    for line in git_show(mirror, repo, commit, "outputs/batch_run_result.jsonl").splitlines():
        output = json.loads(line).get("output") if line.strip() else None
        if isinstance(output, str) and "</think>" in output:
            yield output


def write(path: Path, rows: list[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    unique = list({row["text"]: row for row in rows}.values())
    with path.open("w", encoding="utf-8") as handle:
        for row in unique:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"  {path}: {len(unique)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default="/work/.mirror", help="folder of the fetched snapshots")
    parser.add_argument("--out", help="corpus root (default $CANARY_CORPUS_DIR or ../corpora)")
    args = parser.parse_args()
    mirror, out = Path(args.mirror), corpus_root(args.out) / "garbage"
    print(f"building {out}")
    for lang, (repo, commit, path) in sorted(UD.items()):
        source = f"{repo}@{commit[:12]}:{path}"
        passages = ud_passages(git_show(mirror, repo, commit, path), lang)
        rows = [{"lang": lang, "text": t, "source": source} for t in passages]
        write(out / "text" / f"{lang}.jsonl", rows)
    repo, commit = REPLIES_REPO
    for lang, code in sorted(REPLIES.items()):
        path = f"data/evaluation_results/final_results/{code}_complete.json"
        source = f"{repo}@{commit[:12]}:{path}"
        replies = judge_capacity_replies(git_show(mirror, repo, commit, path))
        rows = [{"lang": lang, "text": t, "source": source} for t in replies]
        write(out / "replies" / f"{lang}.jsonl", rows)
    rows = [{"lang": "en", "text": t, "source": f"{JAILBREAKBENCH[0]}@{JAILBREAKBENCH[1][:12]}:{p}"}
            for t, p in jailbreakbench_replies(mirror)]
    write(out / "replies" / "en.jsonl", rows)
    source = f"{CHARACTEREVAL[0]}@{CHARACTEREVAL[1][:12]}:data/test_data.jsonl"
    roleplay = [{"lang": "zh", "text": t, "source": source} for t in charactereval_lines(mirror)]
    leaks = list(otakulab_outputs(mirror))
    source = f"{OTAKULAB[0]}@{OTAKULAB[1][:12]}:outputs/batch_run_result.jsonl"
    answers = [t.split("</think>", 1)[1].strip() for t in leaks]
    roleplay += [{"lang": "zh", "text": t, "source": source} for t in answers if t]
    write(out / "roleplay" / "zh.jsonl", roleplay)
    write(out / "reasoning" / "zh.jsonl", [{"lang": "zh", "text": t, "source": source} for t in leaks])
    return 0


if __name__ == "__main__":
    sys.exit(main())

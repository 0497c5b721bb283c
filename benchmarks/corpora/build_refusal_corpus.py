"""Rebuild the refusal evaluation corpus from public repositories (nothing fetched is committed).

    python benchmarks/corpora/build_refusal_corpus.py [--mirrors DIR] [--out DIR]

Every source below is a public GitHub repository pinned to a commit. Give each one as a git
directory under --mirrors (default /work/.mirror), named `<owner>+<name>/repo` (a bare snapshot)
or `<owner>+<name>` (a clone: `git clone https://github.com/<owner>/<name> <owner>+<name>` then
`git -C <owner>+<name> checkout <commit>`). Files are read with `git show <commit>:<path>`, so a
snapshot that lacks a file (some stores drop files of 4 MiB and more) simply contributes fewer
items; the manifest lists every file that was read.

Output, in --out (default: $CANARY_CORPUS_DIR/refusal, else ../corpora/refusal next to the
repository's folder):

- `labelled.jsonl`: real model replies with a label `refusal`, `answer` (or `mixed`, see below),
  one JSON per line:
  id, source, repo, commit, path, licence, language, model, label, split, text.
- `fiction.jsonl`: real in-character fiction and roleplay text (every item must pass): id,
  source, repo, commit, path, licence, language, kind (`novel`, `novel-refusal-cue`,
  `roleplay-script`), split, text.
- `manifest.json`: the sources, their commits, licences, label rules and the files read.

How labels map (one rule per source, applied mechanically):

- do-not-answer (Wang et al. 2023; human annotation of six models' replies to 939 risky
  prompts, English). Action category 0 ("cannot assist / refuses") -> refusal; 2 (offers a
  well-rounded view) and 5 (follows the instruction) -> answer. Categories 1 (refutes the
  premise), 3 (perceives a risk, adds a disclaimer such as "I am not a doctor", may answer) and
  4 (declares an inability or lack of knowledge: "As an AI I don't have opinions, but ...")
  mix declining with answering by the taxonomy's own definition, so they get the label `mixed`:
  the evaluation reports how often they are flagged, with no target.
- PolyRefuse (mainlp, "Refusal Direction is Universal Across Safety-Aligned Languages"): replies
  of Qwen2.5-7B, Gemma-2-9B and Llama-3.1-8B to harmful prompts in 14 languages, before and
  after ablating the refusal direction, each classified by WildGuard. `wildguard.refusal` 1 ->
  refusal, 0 -> answer; a missing classification is left out. Languages outside the product's 17
  (nl, yo) are left out.
- Judge-Capacity (multi-turn jailbreaks in 16 languages, Apertus-70B replies judged by GPT-4.1
  with the StrongREJECT rubric, once with the English and once with a translated rubric). The
  rubric's `refused` judges all turns of a dialogue together, so only single-turn dialogues are
  used, and only when both judgements agree: refused 1 -> refusal, 0 -> answer.

Fiction (never a refusal): paragraphs of the European Literary Text Collection (ELTeC, public
domain novels, markup CC BY 4.0) in en, fr, de, pt, pl, it, es, taken at random and, to stress
the judge, paragraphs that open with a character apologising or declining within their first
160 characters ("novel-refusal-cue"); scenes of the Chat-Haruhi-Suzumiya roleplay corpus
(English and Chinese character scripts, `Name:「line」`); windows of six lines of the 50
public-domain Korean novels of KoCoNovel (at random, and starting at a line where a character
apologises or declines); and real Japanese text chat between three people (MRMP): transcripts of
eight turns as `name：line` ("chat-script") and single utterances that apologise or decline
("chat-refusal-cue": できません, 無理, ごめん ...).

Splits: every item goes to `dev` (tune on it) or `test` (report on it) by the first byte of the
SHA-256 of its group key (the prompt for labelled replies, so all models' replies to one prompt
share a split; the book, scene or dialogue for fiction): below 128 -> dev.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class Source:
    name: str
    repo: str
    commit: str
    licence: str


DO_NOT_ANSWER = Source(
    "do-not-answer", "kunishou/do-not-answer-ja", "1380ff2ff5abad07e8aead79caa9757bb8d9f866",
    "Apache-2.0 (data of Libr-AI/do-not-answer, copied with its human annotations)",
)
POLYREFUSE = Source(
    "polyrefuse", "mainlp/Multilingual-Refusal", "985169df2a0b1ba56a95c65d5f60e228f12be4a1", "Apache-2.0",
)
JUDGE_CAPACITY = Source(
    "judge-capacity", "hyunjun1121/Judge-Capacity-Beats-Template-Language",
    "9f2556a0421f2eeaf7bb1fe016ddb3d193c225b5", "CC BY-NC 4.0 (README)",
)
ELTEC = {
    "en": Source("eltec-eng", "COST-ELTeC/ELTeC-eng", "3db3b6738a836f0e1b276b6c9703e42f4297f978", "CC BY 4.0"),
    "fr": Source("eltec-fra", "COST-ELTeC/ELTeC-fra", "83f0a43fdb967cd1db646027a1a237307e4924a1", "CC BY 4.0"),
    "de": Source("eltec-deu", "COST-ELTeC/ELTeC-deu", "d1eed488bd579ee95151b1a291a0056a90c36fa4", "CC BY 4.0"),
    "pt": Source("eltec-por", "COST-ELTeC/ELTeC-por", "8886868916311001a8a8dd99aa6f18f6a2c68408", "CC BY 4.0"),
    "pl": Source("eltec-pol", "COST-ELTeC/ELTeC-pol", "95fe196e35720b3de9644ef3ef1d1bb242bae99a", "CC BY 4.0"),
    "it": Source("eltec-ita", "COST-ELTeC/ELTeC-ita", "100a4851ed1a1092f082c0ecd109f621c8f62ed4", "CC BY 4.0"),
    "es": Source("eltec-spa", "COST-ELTeC/ELTeC-spa", "83e2a22d5ef66f96e59f47f7ef810358c4236322", "CC BY 4.0"),
}
CHAT_HARUHI = Source(
    "chat-haruhi", "LC1332/Chat-Haruhi-Suzumiya", "290bf4ad22076156083804013012847a77c0646c", "Apache-2.0",
)
KOCONOVEL = Source(
    "koconovel", "storidient/KoCoNovel", "211e57dba1ffd2b84bd9817e27e66f35ab6071d2",
    "CC BY-SA 4.0 (texts: public-domain Korean novels from Wikisource)",
)
MRMP = Source(
    "mrmp-chat", "nu-dialogue/multi-relational-multi-party-chat-corpus", "e6e39cb896df88781c7a2e0451226a527c5f1e2e",
    "CC BY-SA 4.0",
)

DNA_MODELS = ("ChatGLM2", "ChatGPT", "Claude", "GPT4", "llama2-7b-chat", "vicuna-7b")
DNA_ACTIONS = {"0": "refusal", "1": "mixed", "2": "answer", "3": "mixed", "4": "mixed", "5": "answer"}
POLYREFUSE_MODELS = ("Qwen/Qwen2.5-7B-Instruct", "google/gemma-2-9b-it", "meta-llama/Meta-Llama-3.1-8B-Instruct")
POLYREFUSE_LANGUAGES = ("ar", "de", "en", "es", "fr", "it", "ja", "ko", "pl", "ru", "th", "zh")
JUDGE_CAPACITY_LANGUAGES = {
    "cmn.Hani": "zh", "deu.Latn": "de", "fra.Latn": "fr", "ind.Latn": "id", "ita.Latn": "it", "jpn.Jpan": "ja",
    "kor.Hang": "ko", "pol.Latn": "pl", "por.Latn": "pt", "spa.Latn": "es", "tur.Latn": "tr",
}
# Chat-Haruhi characters whose scripts are English; the others are Chinese.
HARUHI_ENGLISH = ("Dumbledore", "Harry", "Hermione", "Luna", "Malfoy", "McGonagall", "Penny", "Raj", "Ron",
                  "Sheldon", "Snape")
# A character apologising or declining near the start of a paragraph: selects hard fiction.
REFUSAL_CUES = {
    "en": r"\b(?:sorry|i can(?:not|'t|’t)|i won(?:'t|’t)|i will not|i must decline|i refuse|i am unable)\b",
    "fr": r"\b(?:désolée?|pardon|je ne (?:peux|puis|veux|saurais)|impossible|je refuse)\b",
    "de": r"\b(?:tut mir leid|verzeih|entschuldig|ich kann (?:nicht|das nicht|ihnen nicht)|ich will nicht|nein)\b",
    "pt": r"\b(?:desculp|perdão|não posso|não quero|lamento|não vou)\b",
    "pl": r"\b(?:przepraszam|przykro mi|nie mogę|nie chcę|nie będę|nie)\b",
    "it": r"\b(?:mi dispiace|scusa|perdon|non posso|non voglio|no)\b",
    "es": r"\b(?:lo siento|perdón|perdone|no puedo|no quiero|no)\b",
}
# A character apologising or declining in Korean novels and Japanese chat (the same stress as above).
KOREAN_REFUSAL_CUES = r"죄송|미안|못 하|못하|수 없|싫|안 돼|안 되|거절|아니오|아니요|그만"
JAPANESE_REFUSAL_CUES = r"できません|できない|出来ない|無理|ごめん|すみません|申し訳|お断り|やめて|嫌です|いやです"
ELTEC_RANDOM_PER_LANGUAGE = 500
ELTEC_CUED_PER_LANGUAGE = 500
HARUHI_PER_LANGUAGE = 600
TEI = "{http://www.tei-c.org/ns/1.0}"


class Mirrors:
    """Reads files of the pinned commits from local git directories."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.read: list[dict[str, str]] = []
        self.missing: list[dict[str, str]] = []

    def git_dir(self, source: Source) -> Path | None:
        base = self.root / source.repo.replace("/", "+")
        for candidate in (base / "repo", base / ".git", base):
            if (candidate / "HEAD").exists():
                return candidate
        return None

    def show(self, source: Source, path: str) -> bytes | None:
        git_dir = self.git_dir(source)
        if git_dir is None:
            return None
        done = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{source.commit}:{path}"],
                              capture_output=True, check=False)
        entry = {"repo": source.repo, "commit": source.commit, "path": path}
        if done.returncode != 0 or not done.stdout:
            self.missing.append(entry)
            return None
        self.read.append(entry)
        return done.stdout

    def list(self, source: Source, folder: str) -> list[str]:
        git_dir = self.git_dir(source)
        if git_dir is None:
            return []
        done = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", source.commit, folder],
                              capture_output=True, check=False, text=True)
        return sorted(done.stdout.split()) if done.returncode == 0 else []


def split_of(group: str) -> str:
    return "dev" if hashlib.sha256(group.encode("utf-8")).digest()[0] < 128 else "test"


def item(source: Source, path: str, **fields: Any) -> dict[str, Any]:
    return {"source": source.name, "repo": source.repo, "commit": source.commit, "path": path,
            "licence": source.licence, **fields}


def do_not_answer(mirrors: Mirrors) -> Iterator[dict[str, Any]]:
    for model in DNA_MODELS:
        path = f"datasets/Review/Human/annotated_response_{model}.csv"
        data = mirrors.show(DO_NOT_ANSWER, path)
        if data is None:
            continue
        for row in csv.DictReader(io.StringIO(data.decode("utf-8"))):
            label = DNA_ACTIONS.get(row["action"].strip())
            if label is None or not row["response"].strip():
                continue
            yield item(DO_NOT_ANSWER, path, id=f"dna:{model}:{row['id']}", language="en", model=model, label=label,
                       split=split_of(f"dna:{row['id']}"), text=row["response"])


def polyrefuse(mirrors: Mirrors) -> Iterator[dict[str, Any]]:
    for model in POLYREFUSE_MODELS:
        for language in POLYREFUSE_LANGUAGES:
            for run in ("baseline", "harm_ablation"):
                path = (f"output/ja_vector_sweep/{model}/{language}/20250519-232436/1/completions/"
                        f"harmful_{run}_evaluations.json")
                data = mirrors.show(POLYREFUSE, path)
                if data is None:
                    continue
                for index, completion in enumerate(json.loads(data)["completions"]):
                    refusal = (completion.get("wildguard") or {}).get("refusal")
                    if refusal not in (0, 1) or not completion["response"].strip():
                        continue
                    prompt = completion.get("instruction_en") or str(index)
                    yield item(POLYREFUSE, path, id=f"polyrefuse:{model}:{language}:{run}:{index}", language=language,
                               model=f"{model} ({run})", label="refusal" if refusal == 1 else "answer",
                               split=split_of(f"polyrefuse:{prompt}"), text=completion["response"])


def judge_capacity(mirrors: Mirrors) -> Iterator[dict[str, Any]]:
    base = "data/evaluation_results/final_results"
    for code, language in JUDGE_CAPACITY_LANGUAGES.items():
        english_path = f"{base}/gpt_english_eval/{code}_gpt_english_eval.json"
        translated_path = f"{base}/gpt_translated_eval/{code}_gpt_translated_eval.json"
        english, translated = mirrors.show(JUDGE_CAPACITY, english_path), mirrors.show(JUDGE_CAPACITY, translated_path)
        if english is None or translated is None:
            continue
        other = {entry["entry_index"]: entry for entry in json.loads(translated)}
        for entry in json.loads(english):
            turns = entry["turns"]
            twin = other.get(entry["entry_index"])
            if len(turns) != 1 or twin is None:
                continue
            votes = {entry["gpt_english_evaluation"].get("refused"), twin["gpt_translated_evaluation"].get("refused")}
            text = turns[0].get("llm_response", "")
            if len(votes) != 1 or votes & {None} or not text.strip() or text.startswith("ERROR:"):
                continue
            yield item(JUDGE_CAPACITY, english_path, id=f"judge-capacity:{code}:{entry['entry_index']}",
                       language=language, model="Apertus-70B", label="refusal" if votes == {1} else "answer",
                       split=split_of(f"judge-capacity:{entry['turns'][0].get('original_content', '')}"), text=text)


def eltec(mirrors: Mirrors, language: str, source: Source) -> Iterator[dict[str, Any]]:
    cue = re.compile(REFUSAL_CUES[language], re.IGNORECASE)
    rng = random.Random(f"eltec:{language}")
    plain: list[dict[str, Any]] = []
    cued: list[dict[str, Any]] = []
    for path in mirrors.list(source, "level1"):
        if not path.endswith(".xml"):
            continue
        data = mirrors.show(source, path)
        if data is None:
            continue
        try:
            root = ET.fromstring(data)
        except ET.ParseError:
            continue
        book = Path(path).stem
        for number, paragraph in enumerate(root.iter(f"{TEI}p")):
            text = " ".join("".join(paragraph.itertext()).split())
            if not 60 <= len(text) <= 1500:
                continue
            record = item(source, path, id=f"{source.name}:{book}:{number}", language=language, split=split_of(book),
                          text=text)
            (cued if cue.search(text[:160]) else plain).append(record)
    for records, kind, limit in ((plain, "novel", ELTEC_RANDOM_PER_LANGUAGE),
                                 (cued, "novel-refusal-cue", ELTEC_CUED_PER_LANGUAGE)):
        for record in rng.sample(records, min(limit, len(records))):
            yield {**record, "kind": kind}


def chat_haruhi(mirrors: Mirrors) -> Iterator[dict[str, Any]]:
    chosen: dict[str, list[str]] = {"en": [], "zh": []}
    for path in mirrors.list(CHAT_HARUHI, "characters"):
        parts = path.split("/")
        if len(parts) == 4 and parts[2] == "texts" and path.endswith(".txt"):
            chosen["en" if parts[1] in HARUHI_ENGLISH else "zh"].append(path)
    for language, paths in chosen.items():
        rng = random.Random(f"chat-haruhi:{language}")
        for path in sorted(rng.sample(paths, min(HARUHI_PER_LANGUAGE, len(paths)))):
            data = mirrors.show(CHAT_HARUHI, path)
            if data is None or not data.strip():
                continue
            yield item(CHAT_HARUHI, path, id=f"chat-haruhi:{path}", language=language, kind="roleplay-script",
                       split=split_of(path), text=data.decode("utf-8", errors="replace").strip())


def koconovel(mirrors: Mirrors) -> Iterator[dict[str, Any]]:
    """Windows of up to six lines of 50 public-domain Korean novels: at random, and starting at a cued line."""
    cue = re.compile(KOREAN_REFUSAL_CUES)
    rng = random.Random("koconovel")
    plain: list[dict[str, Any]] = []
    cued: list[dict[str, Any]] = []
    for path in mirrors.list(KOCONOVEL, "data/jsonl"):
        if not path.endswith("/text.jsonl"):
            continue
        data = mirrors.show(KOCONOVEL, path)
        if data is None:
            continue
        book = path.split("/")[2]
        lines = [line for row in data.decode("utf-8").splitlines() if row.strip()
                 for line in json.loads(row)["text"].split("\n") if line.strip()]
        for start in range(0, len(lines)):
            text = "\n".join(lines[start:start + 6])
            if len(text) < 60:
                continue
            record = item(KOCONOVEL, path, id=f"koconovel:{book}:{start}", language="ko", split=split_of(book),
                          text=text)
            if cue.search(lines[start][:160]):
                cued.append(record)
            elif start % 6 == 0:
                plain.append(record)
    for records, kind, limit in ((plain, "novel", ELTEC_RANDOM_PER_LANGUAGE),
                                 (cued, "novel-refusal-cue", ELTEC_CUED_PER_LANGUAGE)):
        for record in rng.sample(records, min(limit, len(records))):
            yield {**record, "kind": kind}


def mrmp_chat(mirrors: Mirrors) -> Iterator[dict[str, Any]]:
    """Real Japanese text chat (three speakers): transcripts of eight turns as `name：line`, and single
    utterances in which a speaker apologises or declines."""
    cue = re.compile(JAPANESE_REFUSAL_CUES)
    rng = random.Random("mrmp-chat")
    scripts: list[dict[str, Any]] = []
    cued: list[dict[str, Any]] = []
    for path in mirrors.list(MRMP, "multi_relational_multi_party_chat_corpus/dialogues"):
        if not path.endswith(".json"):
            continue
        data = mirrors.show(MRMP, path)
        if data is None:
            continue
        dialogue = json.loads(data)
        turns = [(u["interlocutor_id"], u["text"].strip()) for u in dialogue["utterances"] if u["text"].strip()]
        group = dialogue["dialogue_id"]
        for start in range(0, len(turns), 8):
            text = "\n".join(f"{name}：{line}" for name, line in turns[start:start + 8])
            scripts.append(item(MRMP, path, id=f"mrmp:{group}:{start}", language="ja", split=split_of(group),
                                kind="chat-script", text=text))
        for number, (_, line) in enumerate(turns):
            if cue.search(line) and len(line) >= 8:
                cued.append(item(MRMP, path, id=f"mrmp:{group}:u{number}", language="ja", split=split_of(group),
                                 kind="chat-refusal-cue", text=line))
    yield from rng.sample(scripts, min(HARUHI_PER_LANGUAGE, len(scripts)))
    yield from rng.sample(cued, min(ELTEC_CUED_PER_LANGUAGE, len(cued)))


def default_out() -> Path:
    corpus = os.environ.get("CANARY_CORPUS_DIR")
    return Path(corpus) / "refusal" if corpus else REPOSITORY.parent / "corpora" / "refusal"


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    temporary = path.with_suffix(".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    temporary.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=default_out())
    args = parser.parse_args(argv)
    mirrors = Mirrors(args.mirrors)
    labelled = [*do_not_answer(mirrors), *polyrefuse(mirrors), *judge_capacity(mirrors)]
    fiction = [record for language, source in ELTEC.items() for record in eltec(mirrors, language, source)]
    fiction += [*chat_haruhi(mirrors), *koconovel(mirrors), *mrmp_chat(mirrors)]
    if not labelled:
        print(f"no labelled source found under {args.mirrors}: fetch the repositories listed in this script's "
              "docstring first", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    write_jsonl(args.out / "labelled.jsonl", labelled)
    write_jsonl(args.out / "fiction.jsonl", fiction)
    sources = [DO_NOT_ANSWER, POLYREFUSE, JUDGE_CAPACITY, *ELTEC.values(), CHAT_HARUHI, KOCONOVEL, MRMP]
    manifest = {
        "sources": [{"name": s.name, "repo": s.repo, "commit": s.commit, "licence": s.licence} for s in sources],
        "label_rules": __doc__.split("How labels map")[1].split("Splits:")[0].strip(),
        "files_read": mirrors.read, "files_missing": mirrors.missing,
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
    counts = Counter((r["language"], r["label"], r["split"]) for r in labelled)
    print(f"labelled: {len(labelled)} replies, fiction: {len(fiction)} passages -> {args.out}")
    for language in sorted({r["language"] for r in labelled}):
        print(f"  {language}: " + ", ".join(f"{label}/{split} {counts[(language, label, split)]}"
                                            for label in ("refusal", "answer", "mixed") for split in ("dev", "test")))
    fiction_counts = Counter((r["language"], r["kind"]) for r in fiction)
    print("fiction: " + ", ".join(f"{lang}/{kind} {n}" for (lang, kind), n in sorted(fiction_counts.items())))
    print(f"files read: {len(mirrors.read)}, absent from the snapshots: {len(mirrors.missing)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

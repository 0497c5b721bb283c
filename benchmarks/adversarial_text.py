"""What the judges cost on adversarial replies: no space, one repeated character, deep nesting.

    .venv/bin/python benchmarks/adversarial_text.py [--chars 65536] [--repeat 1] [--only NAME]

A hostile or broken host can send anything up to the probe's text cap (64 K characters,
probes/http/stream.py MAX_TEXT_CHARS). Every judge that reads a reply (language, refusal,
structured, and the refusal check of latency/language replies) runs on each such text, in the
probing process: a pattern whose cost grows with the square of the length stalls the round for
every host. Each text is judged `--repeat` times by each judge; the figure is the slowest judge's
time per reply, and the slowest text overall is the round's exposure.

The texts (each `--chars` long unless said otherwise):
- `no-space-letters`: "Lorem" repeated, no space (the issue's 64 K word);
- `repeat-<name>`: one character repeated (letters, `@`, `.`, `[`, backtick, `*`, `<`, `:`, `/`,
  `-`, `_`, `#`, a CJK character, `é`, a digit, an emoji);
- `alternating-*`: two-character patterns that defeat naive fast paths (`a@`, `a.`, `[a`, `a `,
  `. `, `!\\n`);
- `deep-brackets` / `deep-objects`: `[` x N then `]` x N, and `{"a":` x N (the structured judge's
  input, nested past Python's recursion limit);
- `url-like`, `email-like`: long runs that start like a URL or hold an `@` near the end.

The last lines are machine-parsable:

    BENCH adversarial text=<name> chars=… language_ms=… refusal_ms=… structured_ms=… worst_ms=…
    BENCH adversarial_worst text=<name> worst_ms=…
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SCHEMA = {"type": "object", "properties": {"reply": {"type": "string"}}, "required": ["reply"]}
REPEATED = {"a": "a", "at": "@", "dot": ".", "bracket": "[", "backtick": "`", "star": "*", "lt": "<",
            "colon": ":", "slash": "/", "dash": "-", "underscore": "_", "hash": "#", "han": "字",
            "e-acute": "é", "digit": "7", "emoji": "\U0001f600", "newline": "\n", "pipe": "|", "bang": "!",
            "space": " ", "tab": "\t", "quote": '"', "guillemet": "«", "comma": ",", "fence": "`"}
ALTERNATING = {"a-at": "a@", "a-dot": "a.", "bracket-a": "[a", "a-space": "a ", "dot-space": ". ",
               "bang-newline": "!\n", "paren": "(a", "link": "[a](", "tag": "<a", "star-a": "*a",
               "newline-space": "\n ", "quote-a": '"a', "comma-space": ", ", "fence-a": "```a",
               "the-user": "the user ", "i-need": "I need ", "word-dash": "a-", "role": "assistant ",
               "speaker": "Ann ", "ooc": "(ooc ", "dash-line": "\n— ", "he-ed": "He walked "}


def texts(chars: int) -> dict[str, str]:
    """Every adversarial text, by name."""
    out = {"no-space-letters": ("Lorem" * (chars // 5 + 1))[:chars]}
    out |= {f"repeat-{name}": char * chars for name, char in REPEATED.items()}
    out |= {f"alternating-{name}": (pair * (chars // len(pair) + 1))[:chars] for name, pair in ALTERNATING.items()}
    out["deep-brackets"] = "[" * (chars // 2) + "]" * (chars // 2)
    out["deep-objects"] = '{"a":' * (chars // 6) + "1" + "}" * (chars // 6)
    out["url-like"] = "https://" + "a" * (chars - 8)
    out["email-like"] = "a" * (chars - 12) + "@example.com"
    return out


def judges() -> dict[str, Callable[[str], object]]:
    from judge.replies import language, refusal, structured

    language.warm_up()
    return {"language": lambda t: language.assess(t, "en"), "refusal": refusal.assess,
            "structured": lambda t: structured.assess(t, SCHEMA)}


def time_ms(fn: Callable[[str], object], text: str, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn(text)
    return (time.perf_counter() - start) / repeat * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, default=64 * 1024)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", default=None, help="run only the texts whose name contains this")
    args = parser.parse_args()
    run = judges()
    rows: list[tuple[str, dict[str, float]]] = []
    print(f"{'text':28} {'chars':>7} " + " ".join(f"{name + ' ms':>14}" for name in run))
    for name, text in texts(args.chars).items():
        if args.only and args.only not in name:
            continue
        figures = {judge: time_ms(fn, text, args.repeat) for judge, fn in run.items()}
        rows.append((name, figures))
        print(f"{name:28} {len(text):7d} " + " ".join(f"{v:14.1f}" for v in figures.values()), flush=True)
    for name, figures in rows:
        cells = " ".join(f"{judge}_ms={v:.1f}" for judge, v in figures.items())
        print(f"BENCH adversarial text={name} chars={args.chars} {cells} worst_ms={max(figures.values()):.1f}")
    worst = max(rows, key=lambda r: max(r[1].values()))
    print(f"BENCH adversarial_worst text={worst[0]} worst_ms={max(worst[1].values()):.1f}")


if __name__ == "__main__":
    main()

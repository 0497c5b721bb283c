"""Answer fidelity: a few verifiable items, made fresh from a seed, scored by exact match (pure).

The items, why they see a broken deployment and not a quantization, and the verdict against the
peers (judge/suspension/fidelity.py): docs/contracts.md, the fidelity row. The truth is computed
here, never stored; the seed is the round's, so every endpoint of a model gets the same items.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum


class FidelityCode(StrEnum):
    """The codes of answer fidelity (judge/replies/verdict.py): the contract's, and the judge's against the peers."""

    FIDELITY_WRONG = "fidelity_wrong"          # most items wrong where the peers answered them right
    FIDELITY_AS_PEERS = "fidelity_as_peers"    # most items wrong, but not worse than the peers
    FIDELITY_UNJUDGED = "fidelity_unjudged"    # most items wrong: the peers decide (the probe's verdict)
    FIDELITY_UNRESOLVED = "fidelity_unresolved"  # a mostly wrong reply its confirmations neither confirmed nor outvoted
    MAX_TOKENS_CUT = "max_tokens_cut"          # the reply reached our max_tokens

# Plain words every tokenizer splits alike: the item measures copying, not vocabulary.
WORDS = ("amber", "bridge", "candle", "desert", "ember", "falcon", "garden", "harbor", "island", "jungle",
         "lantern", "meadow", "nectar", "orchid", "pepper", "quartz", "river", "saddle", "timber", "velvet")
# No 0/O and 1/I/l: the code measures copying, not reading an ambiguous glyph.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_CHARS = 10
_LINE = re.compile(r"[ \t]{0,8}(?:[*_`#>-]{1,4}[ \t]{0,4})?(\d{1,2})[ \t]{0,4}[.):](.*)")
_STRIP = " \t\"'`*_“”‘’«»"
_THOUSANDS = re.compile(r"(?<=\d)[,_ ](?=\d{3}\b)")
_SEPARATORS = re.compile(r"[\s,;]+")


@dataclass(frozen=True, slots=True)
class Item:
    """One question and its computed answer."""

    kind: str
    question: str
    answer: str


def seed_for(round_id: str, model: str) -> int:
    """The items' seed: the same for every endpoint of `model` in round `round_id`, new each round."""
    return int.from_bytes(hashlib.sha256(f"fidelity|{round_id}|{model}".encode()).digest()[:8], "big")


def make_items(seed: int) -> tuple[Item, ...]:
    """One item of each kind (arithmetic, reverse, copy, calendar, sorting), from `seed`."""
    rng = random.Random(seed)
    a, b = rng.randint(101, 999), rng.randint(11, 99)
    words = rng.sample(WORDS, 5)
    code = "".join(rng.choice(CODE_ALPHABET) for _ in range(CODE_CHARS))
    day = date(2000, 1, 1) + timedelta(days=rng.randint(0, 365 * 30))
    later = rng.randint(3, 19)
    numbers = rng.sample(range(10, 100), 6)
    return (
        Item("arithmetic", f"What is {a} * {b}? Answer with the number only.", str(a * b)),
        Item("reverse", f"Write these words in reverse order, separated by commas: {', '.join(words)}.",
             ", ".join(reversed(words))),
        Item("copy", f"Copy this code exactly: {code}", code),
        Item("calendar", f"What date is {later} days after {day.isoformat()}? Answer as YYYY-MM-DD.",
             (day + timedelta(days=later)).isoformat()),
        Item("sorting", f"Sort these numbers in ascending order, separated by commas: "
                        f"{', '.join(map(str, numbers))}.", ", ".join(map(str, sorted(numbers)))),
    )


def prompt_text(items: Sequence[Item]) -> str:
    """The user message: the numbered questions and how to answer."""
    lines = [f"{i}. {item.question}" for i, item in enumerate(items, 1)]
    return ("Answer each question below. Reply with exactly one line per question, numbered like the "
            "question (for example `1. 42`), holding the answer only.\n\n" + "\n".join(lines))


def normalise(answer: str) -> str:
    """An answer as compared: case, quotes, Markdown, final stop and thousands separators out; lists comma-joined."""
    text = answer.strip().strip(_STRIP).rstrip(".").strip(_STRIP).casefold()
    text = _THOUSANDS.sub("", text)
    return ",".join(part for part in _SEPARATORS.split(text) if part)


def answers(text: str) -> Mapping[int, str]:
    """The numbered answers of a reply (1-based), the first line of each number kept."""
    out: dict[int, str] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match and int(match.group(1)) not in out:
            out[int(match.group(1))] = match.group(2).strip()
    return out


def score(text: str, items: Sequence[Item]) -> tuple[tuple[str, bool], ...]:
    """(kind, right) per item, in the items' order; a missing answer is wrong."""
    given = answers(text)
    return tuple((item.kind, i in given and normalise(given[i]) == normalise(item.answer))
                 for i, item in enumerate(items, 1))

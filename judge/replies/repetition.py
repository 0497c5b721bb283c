"""Unnatural repetition: a reply caught in a loop, as degenerate decoding produces.

A decoding loop repeats a stretch back to back until the budget runs out, so the reply *ends* in
it; repetition that then moves on (refrains, lyrics, chants) fails only when absurdly long, and
only back-to-back copies count (docs/contracts.md, the language row). Tokens are words in spaced
scripts, single characters in Chinese, Japanese and Thai, with combining marks kept on their
letter. Digits are dropped, so "1. X 2. X 3. X" is the loop it is, while copies that differ only
in their numbers ("[source 1] [source 2]") are a counted list, held to the middle's thresholds. A
unit's size is in weighted letters (judge.replies.segments), so one threshold fits every script.
Fenced code is left out: code repeats lines on purpose.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from judge.replies.segments import DENSE_SCRIPT_WEIGHT
from judge.replies.verdict import Verdict, failed

# A unit at least this heavy (weighted letters: ~a short sentence, or 7 CJK characters)...
MIN_SENTENCE_WEIGHT = 20
# ...repeated back to back this many times, up to the end of the reply, is a loop.
MIN_SENTENCE_REPEATS = 3
# A lighter unit (a stutter: "des magazines, des magazines, ...") at the end of the reply must
# repeat at least this many times and cover this much weight: "Help me! Help me! Help me!" and
# "我被甩了" four times are emphasis, not a loop.
MIN_STUTTER_REPEATS = 4
MIN_STUTTER_WEIGHT = 60
# One word (not a character of an unspaced script, not "ㅋㅋㅋ") this many times in a row.
MIN_SINGLE_WORD_REPEATS = 16
# In the middle of a reply (the reply moves on afterwards) a loop must be longer: lyrics and
# chants repeat a line a dozen times or more, so only a long unit (a long sentence, a paragraph)
# this many times, or anything absurdly often, fails there.
MIN_MIDDLE_UNIT_WEIGHT = 40
MIN_MIDDLE_REPEATS = 8
MIN_FLOOD_REPEATS = 32

_FENCED_CODE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
# Candidate loop periods come from how far back each run of this many tokens occurred before.
_GRAM = 3


def _char_class(ranges: tuple[tuple[int, int], ...], category: str) -> str:
    chars = (chr(code) for low, high in ranges for code in range(low, high + 1))
    picked = [char for char in chars if unicodedata.category(char).startswith(category)]
    return "".join(re.escape(char) for char in picked)


# Letters of the scripts written without spaces between words: one token per character.
_DENSE = _char_class(
    ((0x0E01, 0x0E4F), (0x3005, 0x3005), (0x3040, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF),
     (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF66, 0xFF9F)),
    "L",
)
# Combining marks (Latin accents, Thai vowels and tones, Devanagari matras, Arabic harakat...).
_MARKS = _char_class(
    ((0x0300, 0x036F), (0x0483, 0x0489), (0x0591, 0x05C7), (0x0610, 0x061A), (0x064B, 0x065F),
     (0x0670, 0x0670), (0x06D6, 0x06ED), (0x0900, 0x0DFF), (0x0E31, 0x0E4E), (0x1AB0, 0x1AFF),
     (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0x3099, 0x309A), (0xFE20, 0xFE2F)),
    "M",
)
_TOKEN = re.compile(rf"[{_DENSE}][{_MARKS}]*|(?:[^\W\d_{_DENSE}]|[{_MARKS}])+|\d+")
_DENSE_TOKEN = re.compile(rf"[{_DENSE}]")
_SYLLABIC = re.compile(
    "[\u3005\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af]"
)


@dataclass(frozen=True, slots=True)
class _Run:
    """`repeats` back-to-back copies of the `period` tokens starting at `start`."""

    start: int
    period: int
    repeats: int
    at_end: bool


class RepetitionCode(StrEnum):
    """The code of a looping reply (judge/replies/verdict.py)."""

    REPETITION = "repetition"


def find_repetition(text: str) -> Verdict | None:
    """The failed verdict of a reply that loops, or None when it does not repeat itself unnaturally."""
    reason = _repetition(text)
    return failed(RepetitionCode.REPETITION, reason) if reason else None


def _repetition(text: str) -> str | None:
    words = tokens(text)
    flood = _word_flood(words)
    if flood:
        return flood
    found = _loop(_collapse([word for word in words if not word.isdigit()]))
    if found is None or _loop(_collapse(words)) is not None:
        return found
    # The copies differ only in their numbers ("[source 1] [source 2] ...", "Step 4: X. Step 5: X."):
    # a counted list of placeholders is a normal reply, so only a long item or many copies fail.
    return _loop(_collapse([word for word in words if not word.isdigit()]), counted=True)


def tokens(text: str) -> list[str]:
    """Lowercased words (characters in Chinese, Japanese and Thai) and numbers, outside code."""
    return _TOKEN.findall(_FENCED_CODE.sub(" ", text).lower())


@lru_cache(maxsize=16384)
def _weight(token: str) -> int:
    """Letters and marks; a CJK character, kana or Hangul syllable counts three, Thai (an alphabet) one each."""
    if token.isdigit():
        return 0
    if _SYLLABIC.match(token):
        return DENSE_SCRIPT_WEIGHT * len(token)
    return len(token)


def _word_flood(words: list[str]) -> str | None:
    """One word repeated in a row absurdly often ("Schlauch, Schlauch, Schlauch, ...")."""
    run = 1
    for index in range(1, len(words) + 1):
        if index < len(words) and words[index] == words[index - 1]:
            run += 1
            continue
        word = words[index - 1]
        at_end = index == len(words) or (
            index == len(words) - 1 and word.startswith(words[index])
        )
        needed = MIN_SINGLE_WORD_REPEATS if at_end else MIN_FLOOD_REPEATS
        if run >= needed and not _is_laughter_or_dense(word):
            return f"repetition: {word[:40]!r} repeats {run} times in a row"
        run = 1
    return None


def _is_laughter_or_dense(word: str) -> bool:
    """ㅋㅋㅋ, kkkk and a character of an unspaced script (哈 哈 哈) repeat by nature."""
    return bool(_DENSE_TOKEN.match(word)) or (len(set(word)) == 1 and not word.isdigit())


def _collapse(words: list[str]) -> list[str]:
    """Merge back-to-back identical tokens, so laughter floods ("哈哈哈", "ㅋ ㅋ ㅋ") are one token."""
    return [word for index, word in enumerate(words) if index == 0 or words[index - 1] != word]


def _loop(words: list[str], *, counted: bool = False) -> str | None:
    ids = _ids(words)
    weights = [_weight(word) for word in words]
    prefix = [0]
    for weight in weights:
        prefix.append(prefix[-1] + weight)
    for run in sorted(_runs(ids, words), key=lambda r: (not r.at_end, r.period)):
        unit = ids[run.start:run.start + run.period]
        if len(set(unit)) < 2 or _has_shorter_period(unit):
            continue  # "ab ab" is the loop "ab", judged under its own period
        unit_weight = prefix[run.start + run.period] - prefix[run.start]
        if _is_loop(run, unit_weight) and (not counted or _is_counted_loop(run, unit_weight)):
            text = " ".join(words[run.start:run.start + run.period])
            where = "at the end" if run.at_end else "in a row"
            return f"repetition: {text[:40]!r} repeats {run.repeats} times {where}"
    return None


def _is_loop(run: _Run, unit_weight: int) -> bool:
    if not run.at_end:
        long_unit = unit_weight >= MIN_MIDDLE_UNIT_WEIGHT and run.repeats >= MIN_MIDDLE_REPEATS
        return long_unit or run.repeats >= MIN_FLOOD_REPEATS and run.repeats * unit_weight >= MIN_STUTTER_WEIGHT
    if unit_weight >= MIN_SENTENCE_WEIGHT:
        return run.repeats >= MIN_SENTENCE_REPEATS
    if run.repeats >= MIN_SINGLE_WORD_REPEATS:
        return True  # a word of an unspaced script ("ได้ ได้ ...") as often as a word flood
    return run.repeats >= MIN_STUTTER_REPEATS and run.repeats * unit_weight >= MIN_STUTTER_WEIGHT


def _is_counted_loop(run: _Run, unit_weight: int) -> bool:
    return unit_weight >= MIN_MIDDLE_UNIT_WEIGHT or run.repeats >= MIN_MIDDLE_REPEATS


def _has_shorter_period(unit: list[int]) -> bool:
    size = len(unit)
    divisors = (period for period in range(1, size // 2 + 1) if size % period == 0)
    return any(unit[period:] == unit[:-period] for period in divisors)


def _ids(words: list[str]) -> list[int]:
    table: dict[str, int] = {}
    return [table.setdefault(word, len(table)) for word in words]


def _runs(ids: list[int], words: list[str]) -> list[_Run]:
    """Maximal tandem repeats of at least MIN_SENTENCE_REPEATS copies, for candidate periods."""
    count = len(ids)
    runs: list[_Run] = []
    for period in _candidate_periods(ids):
        match = 0
        for index in range(period, count + 1):
            if index < count and ids[index] == ids[index - period]:
                match += 1
                continue
            repeats = (match + period) // period
            if repeats >= MIN_SENTENCE_REPEATS:
                start = index - match - period
                runs.append(_Run(start, period, repeats, _reaches_end(ids, index, period, words)))
            match = 0
    return runs


def _reaches_end(ids: list[int], stop: int, period: int, words: list[str]) -> bool:
    """The run ends the reply, or only the next copy's cut-off word follows it (the budget ran out mid-word)."""
    if stop == len(ids):
        return True
    return stop == len(ids) - 1 and words[stop - period].startswith(words[stop])


def _candidate_periods(ids: list[int]) -> list[int]:
    """Distances at which many token trigrams recur (a loop of period P makes P of them recur); the last two
    occurrences count, so a unit that repeats a part of itself ("A A B B") still shows its whole period."""
    last: dict[tuple[int, ...], tuple[int, int]] = {}
    distances: Counter[int] = Counter()
    for index in range(len(ids) - _GRAM + 1):
        gram = tuple(ids[index:index + _GRAM])
        previous, before = last.get(gram, (-1, -1))
        if previous >= 0:
            distances[index - previous] += 1
        if before >= 0:
            distances[index - before] += 1
        last[gram] = (index, previous)
    return [period for period, seen in distances.items() if seen >= period]

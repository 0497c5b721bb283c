"""Word-level mixing of close languages: pt/es/it function words, and Chinese inside Japanese.

lingua judges sentences, and misses mixing inside one ("Ela caminhó hasta la porta, mas no sabía o
que fazer": ~1 % caught, docs/design-notes.md §2.1). Each pair lists frequent words and letters of
one language that the other never uses; words valid in both ("que", "no", "la") are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# So many foreign markers are needed before word-level mixing can fail: one quoted phrase is fine.
MIN_FOREIGN_MARKERS = 4
# The foreign markers must be at least this share of the pair's markers found in the reply.
MIN_FOREIGN_MARKER_SHARE = 0.2
# ...and spread over at least this many sentences, so a single foreign line does not fail.
MIN_MARKED_SEGMENTS = 2

_WORD = re.compile(r"\w+(?:-\w+)*")

# Han characters that Chinese uses and Japanese does not (simplified forms, traditional-only
# forms, Chinese grammatical particles). Kanji-only Japanese sentences ("雨天。深夜。") hold none.
CHINESE_ONLY_HAN = frozenset(
    "这们说么个对还让过给吗呢吧没见门东车长问间样发开关头为从进边觉经现实话认识谁钱两难离远运她你很"
    "這說麼對還讓嗎沒見門東車長問間樣發開關頭為從進邊覺經現實話認識誰錢兩難離遠運妳"
)
# A kana-free segment in a Japanese reply is Chinese only with this many Chinese-only characters.
MIN_CHINESE_ONLY_CHARS = 2


@dataclass(frozen=True, slots=True)
class Markers:
    words: frozenset[str]
    letters: str


def _markers(words: str, letters: str = "") -> Markers:
    return Markers(frozenset(words.split()), letters)


# PAIRS[(a, b)] = (markers of a that b never uses, markers of b that a never uses)
PAIRS: dict[tuple[str, str], tuple[Markers, Markers]] = {
    ("pt", "es"): (
        _markers(
            "os um uma umas uns com mas muito muita muitos muitas ela elas ele eles você vocês não "
            "do dos das ao aos à às na nas num numa pela pelas isso isto aquilo também então até "
            "já "
            "sim eu meu minha meus minhas seu seus suas nós agora aqui ali ainda sempre depois nem "
            "mesmo mesma coisa há lhe lhes comigo obrigado obrigada tão sem é são foi estava tinha "
            "fazer olhos noite bem tudo nenhum nenhuma essa esse esses essas dela dele disse quem "
            "qual em pra vou vai",
            "ãõç",
        ),
        _markers(
            "y el los las una unas unos un con pero muy ella ellas ellos usted ustedes hay del al "
            "eso "
            "esto aquello también cuando donde entonces hasta sí yo mí mi mis su sus ahora aquí "
            "allí "
            "todavía siempre después ni mismo misma cosa le les conmigo gracias tan sin es son fue "
            "estaba tenía hacer ojos noche bien ningún ninguna esa ese esos esas dijo quién cuál "
            "en "
            "mucho mucha muchos muchas nosotros nosotras lo qué cómo pues aún voy va",
            "ñ¿¡",
        ),
    ),
    ("es", "it"): (
        _markers(
            "y el los las que pero muy ella ellos usted hay es son eso esto también cuando donde "
            "entonces hasta yo ahora aquí todavía siempre después ni mismo gracias tan sin fue "
            "estaba "
            "hacer ojos noche bien nada dijo para por en como qué cómo mucho muchos nosotros está "
            "están",
            "ñ¿¡",
        ),
        _markers(
            "il di della dello degli delle dei che non sono molto questo questa quello quella "
            "anche "
            "perché gli lei lui io mio mia ma ed è sei siamo hanno loro noi voi adesso qui lì poi "
            "ancora sempre dopo niente nulla tutto tutti per nel nella alla dal dalla sul sulla "
            "dove grazie occhi notte bene fatto detto fare essere stato però così già più giù",
            "èìòù",
        ),
    ),
    ("pt", "it"): (
        _markers(
            "os um uma com mas muito ela ele você não do dos das ao na isso isto também onde então "
            "até já sim eu meu minha seu nós agora aqui ainda depois nem mesmo coisa há lhe "
            "obrigado "
            "tão sem é são foi estava fazer olhos noite bem tudo nada essa esse disse para por em "
            "que "
            "como",
            "ãõç",
        ),
        _markers(
            "il di della che non sono molto questo questa quello anche perché gli lui io mio mia "
            "ma "
            "ed ho ha è siamo hanno loro noi voi adesso qui lì poi ancora dopo niente tutto tutti "
            "per nel nella alla dal sul un una uno grazie occhi notte bene fatto fare essere più "
            "già "
            "così però con in come",
            "ìòùè",
        ),
    ),
}


def looks_chinese(text: str) -> bool:
    """Whether kana-free Han text carries characters that only Chinese uses."""
    return sum(1 for char in text if char in CHINESE_ONLY_HAN) >= MIN_CHINESE_ONLY_CHARS


def find_word_mixing(segments: list[str], expected: str) -> tuple[str, int, int] | None:
    """(foreign language, foreign markers, native markers) when a close language leaks in."""
    worst: tuple[str, int, int] | None = None
    for (first, second), (first_markers, second_markers) in PAIRS.items():
        if expected not in (first, second):
            continue
        if expected == first:
            native, foreign, other = first_markers, second_markers, second
        else:
            native, foreign, other = second_markers, first_markers, first
        native_count = sum(_count(text, native) for text in segments)
        per_segment = [_count(text, foreign) for text in segments]
        foreign_count = sum(per_segment)
        if not _is_mixed(foreign_count, native_count, sum(1 for n in per_segment if n)):
            continue
        if worst is None or foreign_count > worst[1]:
            worst = (other, foreign_count, native_count)
    return worst


def _count(text: str, markers: Markers) -> int:
    lowered = text.lower()
    words = sum(1 for word in _WORD.findall(lowered) if word in markers.words)
    return words + sum(lowered.count(letter) for letter in markers.letters)


def _is_mixed(foreign: int, native: int, marked_segments: int) -> bool:
    if foreign < MIN_FOREIGN_MARKERS or marked_segments < MIN_MARKED_SEGMENTS:
        return False
    return foreign / (foreign + native) >= MIN_FOREIGN_MARKER_SHARE

"""What an out-of-character refusal is made of, in the 17 languages (data for judge.replies.refusal_evidence).

The lexicons are data, in refusal_lexicon.yaml beside this module (its header says how they are written).
Latin and Cyrillic fragments are wrapped in word boundaries by the compiler, the others
(UNBOUNDED_LANGUAGES) match anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import yaml


@dataclass(frozen=True, slots=True)
class Lexicon:
    decline: str       # the speaker's own negated ability or willingness ("i can't", "수 없습니다", "我无法")
    actions: str       # what is declined (help, provide, write...): a decline counts fully only beside one
    apology: str       # an apology or regret that opens the reply
    ai: str            # the assistant naming itself ("as an ai", "language model")
    offer: str         # turning back to the user ("is there anything else I can help with?")
    request: str       # the request as an object ("this request", "that story")
    policy: str        # guidelines, appropriateness, harm
    preamble: str      # "I understand that ...": a lecture addressed to the user
    verdict: str       # the request judged ("that would be unethical")
    instead: str       # an alternative in its place ("Instead, I can ...", "대신", "代わりに")
    soft_decline: str  # a decline a character could say too ("I don't recommend ...", "推奨しません"): weighs less
    contrast: str      # "..., but I cannot ...", "하지만": a decline right after one counts wherever it sits


def _load(path: Path) -> dict[str, Lexicon]:
    """refusal_lexicon.yaml: each language's fields, one alternative a line, joined with `|`."""
    # libyaml when built in: 2 ms against the pure-Python loader's 22 ms, paid by every round at import
    raw = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    names = {f.name for f in fields(Lexicon)}
    for language, entry in raw.items():
        if set(entry) != names:  # a data error in the package itself: fail at import, naming it
            raise ValueError(f"{path.name}: {language} has {sorted(entry)}, not Lexicon's fields {sorted(names)}")
    return {language: Lexicon(**{name: "|".join(text.splitlines()) for name, text in entry.items()})
            for language, entry in raw.items()}


LEXICONS: dict[str, Lexicon] = _load(Path(__file__).with_name("refusal_lexicon.yaml"))

# Which lexicons to try for the scripts found at the start of a reply. English is always tried:
# hosts often refuse in English whatever the language of the conversation.
LATIN_LANGUAGES = ("en", "es", "pt", "fr", "de", "it", "pl", "tr", "id", "vi")
SCRIPT_LANGUAGES = {
    "latin": LATIN_LANGUAGES,
    "cyrillic": ("ru",),
    "hangul": ("ko",),
    "kana": ("ja",),
    "han": ("zh", "ja"),
    "thai": ("th",),
    "arabic": ("ar",),
    "devanagari": ("hi",),
}
# Words without which no decline, apology, self-reference or preamble of a Latin-script language can
# start: a reply whose opening lacks all of a language's words skips that language's patterns.
# Turkish folds the decline into the verb, so its word endings count too (TURKISH_DECLINE_ENDINGS).
LATIN_TRIGGERS = {
    "en": frozenset("i sorry apologies unfortunately regrettably as ai model assistant openai anthropic my unable not "
                    "decline refuse".split()),
    "es": frozenset("no me debo lamentablemente lo perdón perdona disculpa desafortunadamente lamento como soy modelo "
                    "entiendo comprendo".split()),
    "pt": frozenset("não nao me recuso infelizmente desculpe desculpa sinto lamento peço como sou modelo entendo "
                    "compreendo".split()),
    "fr": frozenset("je il ce ne désolé désolée malheureusement navré navrée toutes en modèle".split()),
    "de": frozenset("ich das kann es tut entschuldigung entschuldige entschuldigen leider bedauerlicherweise als "
                    "sprachmodell ki und".split()),
    "it": frozenset("non mi devo spiacente scusa scusami purtroppo chiedo come in modello capisco comprendo".split()),
    "pl": frozenset("nie odmawiam muszę niestety przepraszam przykro jako jestem model modelem rozumiem".split()),
    "tr": frozenset("bunu reddediyorum yardımcı mümkün üzgünüm özür maalesef ne kusura bir yapay dil anlıyorum".split()),
    "id": frozenset("tidak tak gak nggak ga menolak harus maaf mohon sayangnya saya sebagai model".split()),
    "vi": frozenset("tôi mình em không xin rất tiếc thật thành là mô".split()),
}
TURKISH_DECLINE_ENDINGS = ("amam", "emem", "ayacağım", "eyeceğim")
# Languages whose fragments are not wrapped in word boundaries.
UNBOUNDED_LANGUAGES = frozenset({"ko", "ja", "zh", "th", "ar", "hi"})

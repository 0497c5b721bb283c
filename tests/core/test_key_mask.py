"""core/key_mask.py: the whole key, any run of 16 of its characters, any case, reversed, its hex and its
base64 (all three alignments, and of `Bearer <key>`) are masked, and so are the same runs hidden by
invisible characters or escapes (issue 37); 15 characters and ordinary text are not."""

from __future__ import annotations

import base64
import hashlib
import sys
import unicodedata
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.key_mask import MASK, KeyMask
from core.untrusted import clean

KEY = "sk-or-v1-" + hashlib.sha256(b"key mask").hexdigest()   # a real key's shape: 73 characters
MASKED = KeyMask(KEY)


def test_the_whole_key_and_every_run_of_16_of_its_characters_are_masked_wherever_they_start() -> None:
    assert MASKED(f"Authorization: Bearer {KEY}!") == f"Authorization: Bearer {MASK}!"
    for start in range(len(KEY) - 15):
        for length in (16, 17, 40):
            piece = KEY[start: start + length]
            assert MASKED(f"<{piece}>") == f"<{MASK}>", (start, length)


def test_fifteen_characters_of_the_key_are_not_a_piece() -> None:
    assert MASKED(f"<{KEY[20:35]}>") == f"<{KEY[20:35]}>"


def test_upper_and_mixed_case_are_masked() -> None:
    assert MASKED(KEY.upper()) == MASK
    assert MASKED(KEY[:40].swapcase() + " tail") == f"{MASK} tail"


def test_hex_of_the_key_in_either_case_is_masked() -> None:
    hexed = KEY.encode().hex()
    assert MASKED(f"x={hexed}") == f"x={MASK}" and MASKED(hexed.upper()[10:60]) == MASK


@pytest.mark.parametrize("lead", ["", "a", "ab", "Bearer ", "user:"])
@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode])
def test_base64_at_every_alignment_keeps_no_run_of_the_key(lead: str, encode: object) -> None:
    encoded = encode(f"{lead}{KEY}".encode()).decode()  # type: ignore[operator]
    masked = MASKED(encoded)
    assert MASK in masked and len(masked) < len(encoded) - 80   # ~97 characters of the key's base64 went
    cut = encode(f"{lead}{KEY[:30]}".encode()).decode()  # type: ignore[operator]
    assert MASK in MASKED(cut)   # a piece of the key, encoded


def test_bytes_are_masked_like_text() -> None:
    data = f'{{"reason": "{KEY[:50]}", "b64": "{base64.b64encode(KEY.encode()).decode()}"}}'.encode()
    out = MASKED.in_bytes(data)
    assert KEY[:16].encode() not in out and out.count(MASK.encode()) == 2 and out.startswith(b'{"reason": "***"')


def test_fragments_are_masked_as_their_joined_text_and_keep_their_places() -> None:
    parts = ["get_", *[KEY[i: i + 10] for i in range(0, len(KEY), 10)], "_tail"]
    masked = MASKED.parts(parts)
    assert len(masked) == len(parts) and "".join(masked) == f"get_{MASK}_tail" and masked[0] == "get_"
    assert MASKED.parts(["get_weather", "get_weather"]) == ("get_weather", "get_weather")


def test_decoded_json_is_masked_in_every_string_keys_too() -> None:
    value = {"error": {"message": f"echo {KEY}", KEY[:20]: [1, KEY[5:30], None]}}
    assert MASKED.json(value) == {"error": {"message": f"echo {MASK}", MASK: [1, MASK, None]}}


def test_head_masks_before_it_cuts() -> None:
    text = "." * 100 + KEY
    assert MASKED.head(text, 120) == "." * 100 + MASK and text[:120].endswith(KEY[:20])


def test_no_key_masks_nothing_and_a_short_key_is_masked_whole() -> None:
    assert KeyMask(None)(KEY) == KEY and not KeyMask(None)
    short = KeyMask("abcdefgh12")
    assert short("x abcdefgh12 y") == f"x {MASK} y" and short("abcdefgh1") == "abcdefgh1"


# Issue 37: the key hidden from a reader that looks at characters, each form a hostile host sent.
HIDE: dict[str, Callable[[str], str]] = {
    "zero-width-spaces": "\u200b".join,
    "soft-hyphens": "\u00ad".join,
    "bidi-and-tags": "\u202e\U000e0041".join,
    "reversed": lambda key: key[::-1],
    "percent-upper": lambda key: "".join(f"%{b:02X}" for b in key.encode()),
    "percent-lower": lambda key: "".join(f"%{b:02x}" for b in key.encode()),
    "u-escaped": lambda key: "".join(f"\\u{ord(c):04x}" for c in key),
    "u-escaped-in-json": lambda key: "".join(f"\\\\u{ord(c):04X}" for c in key),   # its backslash escaped again
    "zero-width-escaped": "\\u200b".join,                            # a JSON file's view of the first form
    "soft-hyphens-repr": lambda key: repr("\u00ad".join(key))[1:-1],   # repr() of the second
    "controls": "\x07".join,
}


@pytest.mark.parametrize("hide", HIDE.values(), ids=HIDE.keys())
def test_a_key_hidden_by_invisible_characters_or_escapes_is_masked_whole(hide: Callable[[str], str]) -> None:
    hidden = hide(KEY)
    assert MASKED(f"served by {hidden} (pinned)") == f"served by {MASK} (pinned)"
    assert MASKED(f"<{hide(KEY[10:40])}>") == f"<{MASK}>"   # a piece of it too
    assert MASKED.in_bytes(f'{{"x": "{hidden}"}}'.encode()) == f'{{"x": "{MASK}"}}'.encode()
    assert "".join(MASKED.parts(["a ", hidden[:40], hidden[40:], " b"])) == f"a {MASK} b"


def test_invisible_characters_and_escapes_around_the_key_are_left_as_they_are() -> None:
    text = "caf%C3%A9 \u00e9 zero\u200bwidth"
    assert MASKED(f"{text} {HIDE['zero-width-spaces'](KEY)}\u200b! 100%") == f"{text} {MASK}\u200b! 100%"


def test_bytes_that_are_not_utf8_stay_as_they_are() -> None:
    data = b"\xff\xfe head " + HIDE["soft-hyphens"](KEY).encode() + b" \xc3 tail"
    assert MASKED.in_bytes(data) == b"\xff\xfe head *** \xc3 tail"


def test_every_format_character_is_invisible_to_the_masker_and_marked_by_clean() -> None:
    formats = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    assert [ch for ch in formats if MASKED(ch.join(KEY[:20])) != MASK] == []
    assert [ch for ch in formats if clean(f"a{ch}b") in ("ab", "a b")] == []   # marked, never deleted


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300), st.integers(0, len(KEY) - 16),
       st.integers(16, len(KEY)), st.text(max_size=50))
def test_any_text_around_a_piece_loses_the_piece_and_keeps_the_rest(before: str, start: int, length: int,
                                                                     after: str) -> None:
    piece = KEY[start: start + length]
    masked = MASKED(before + piece + after)
    assert piece not in masked and KEY[start: start + 16] not in masked
    if not MASKED.found(before) and not MASKED.found(after):
        assert masked.startswith(before[: max(len(before) - len(KEY), 0)])

"""core/key_mask.py: the whole key, any run of 16 of its characters, any case, its hex and its base64
(all three alignments, and of `Bearer <key>`) are masked; 15 characters and ordinary text are not."""

from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.key_mask import MASK, KeyMask

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

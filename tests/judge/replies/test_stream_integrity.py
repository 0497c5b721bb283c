"""judge/replies/stream_integrity.py: cumulative and duplicated deltas fail; ordinary streams do not."""

from __future__ import annotations

import pytest

from judge.replies.stream_integrity import assess_deltas

TEXT = "The innkeeper wipes the counter and nods toward the empty table by the fire. Sit, she says."


def tokens(text: str) -> list[str]:
    """Token-like deltas: a word with its leading space."""
    words = text.split(" ")
    return [words[0], *(" " + w for w in words[1:])]


def test_an_ordinary_stream_passes_whatever_its_chunk_size() -> None:
    assert assess_deltas(tokens(TEXT)) is None
    assert assess_deltas([TEXT[i:i + 20] for i in range(0, len(TEXT), 20)]) is None
    assert assess_deltas([TEXT]) is None and assess_deltas([]) is None


def test_cumulative_deltas_fail_naming_the_count() -> None:
    parts = tokens(TEXT)
    cumulative = ["".join(parts[: i + 1]) for i in range(len(parts))]
    verdict = assess_deltas(cumulative)
    assert verdict is not None and verdict.failed
    assert verdict.reason.startswith("stream integrity: cumulative deltas: ")
    assert f"of {len(parts)} deltas" in verdict.reason and TEXT not in verdict.reason
    assert verdict.code == "cumulative_deltas"


def test_long_deltas_repeated_back_to_back_fail() -> None:
    parts = [TEXT[i:i + 16] for i in range(0, len(TEXT), 16)]
    verdict = assess_deltas([p for p in parts for _ in (0, 1)])
    assert verdict is not None and verdict.failed and verdict.reason.startswith("stream integrity: repeated deltas")
    assert verdict.code == "repeated_deltas"


@pytest.mark.parametrize("deltas", [
    [" ha", " ha", " ha", " ha", "!"],                       # short repeats are writing
    ["\n\n", "\n\n", "\n\n", "Then", " silence."],
    ["Row, row, row your boat,\n", "Row, row, row your boat,\n", " gently."],  # one coincidence, not two
    [" the", " theory", " of", " the", " theatre"],          # a short delta a longer one begins with
    ["She said: yes", "She said: yes, and left."],           # one extension is one coincidence
], ids=["short-repeats", "blank-lines", "one-refrain", "short-prefix", "one-extension"])
def test_what_ordinary_text_does_is_not_a_defect(deltas: list[str]) -> None:
    assert assess_deltas(deltas) is None

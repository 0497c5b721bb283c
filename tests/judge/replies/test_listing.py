"""judge/replies/listing.py: discovery sanity notes on the listed limits (issue 22 item 1), never failures."""

from __future__ import annotations

import pytest

from judge.replies.listing import ListedLimits, decode, encode, listing_notes

HEALTHY = ListedLimits(131072, 16384)


def test_a_sane_listing_has_no_notes() -> None:
    assert listing_notes({"a/fp8": HEALTHY, "b/bf16": ListedLimits(131072, None)}, {"a/fp8": HEALTHY}) == ()


def test_max_completion_tokens_above_context_length_is_a_note_naming_both() -> None:
    (note,) = listing_notes({"a/fp8": ListedLimits(8192, 32768)}, {})
    assert note == "a/fp8: max_completion_tokens 32768 above its context_length 8192"


def test_a_context_length_far_below_the_model_s_is_a_note() -> None:
    listed = {"a/fp8": HEALTHY, "b/fp8": ListedLimits(32768, 4096), "c/fp8": ListedLimits(98304, 4096)}
    notes = listing_notes(listed, {})
    assert notes == ("b/fp8: context_length 32768 far below the model's 131072 (under 0.5 of its largest endpoint's)",)


def test_a_limit_that_changed_since_the_previous_round_is_a_note() -> None:
    notes = listing_notes({"a/fp8": ListedLimits(131072, 8192), "new/fp8": HEALTHY},
                          {"a/fp8": HEALTHY, "gone/fp8": HEALTHY})
    assert notes == ("a/fp8: max_completion_tokens changed from 16384 to 8192 since the previous round",)
    (dropped,) = listing_notes({"a/fp8": ListedLimits(131072, None)}, {"a/fp8": HEALTHY})
    assert dropped.endswith("max_completion_tokens changed from 16384 to none since the previous round")


@pytest.mark.parametrize("limits", [HEALTHY, ListedLimits(None, None), ListedLimits(4096, None)])
def test_the_state_s_compact_form_round_trips(limits: ListedLimits) -> None:
    assert decode(encode(limits)) == limits


@pytest.mark.parametrize("bad", ["", "1", "1:2:3", "x:1", 5, None])
def test_anything_else_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        decode(bad)

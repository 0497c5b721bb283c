"""core/untrusted.py's JSON depth check: exact (brackets in strings and escapes not counted), and
fast enough that a large hostile event does not hold the probes' event loop (issue 31)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.untrusted import MAX_JSON_DEPTH, TooDeep, json_depth, load_json


def reference_depth(text: str) -> int:
    """The plain reading, one character at a time: what json_depth must equal on any text."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


@given(st.text(alphabet='[]{}"\\a,:\n ', max_size=40))
def test_the_depth_of_any_text_is_the_plain_readings(text: str) -> None:
    assert json_depth(text) == reference_depth(text)


def _nest(depth: int) -> Any:
    value: Any = "x[{\\\"]}"   # brackets, a quote and a backslash inside a string never count
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


@pytest.mark.parametrize("depth", [0, 1, 2, 63, 64, 65, 300])
def test_real_json_nested_n_levels_has_depth_n_and_past_the_limit_is_refused(depth: int) -> None:
    text = json.dumps(_nest(depth))
    assert json_depth(text) == depth
    if depth > MAX_JSON_DEPTH:
        with pytest.raises(TooDeep):
            load_json(text)
    else:
        assert load_json(text) == _nest(depth)

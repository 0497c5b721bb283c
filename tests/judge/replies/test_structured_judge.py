"""judge.replies.structured.assess: JSON parsing and schema validation of structured-output replies."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from judge.replies.structured import assess

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "mood": {"enum": ["calm", "angry", "happy"]},
        "items": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer"}}}},
    },
    "required": ["name", "mood"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "Mara", "mood": "calm"}',
        '  \n{"name": "Mara", "mood": "calm", "items": [{"qty": 2}]}\n ',
        '```json\n{"name": "Mara", "mood": "calm"}\n```',
        '```\n{"name": "Mara", "mood": "happy"}\n```',
    ],
    ids=["plain", "whitespace", "json-fence", "bare-fence"],
)
def test_valid_json_matching_the_schema_passes(text: str) -> None:
    assert assess(text, SCHEMA).outcome == "pass"


@pytest.mark.parametrize(
    "text",
    ['{"name": "Mara", "mood": "calm"', "Sure! Here it is: {}", "{'name': 'Mara'}", '{"name": NaN, "mood": "calm"}',
     '{"name": "Mara", "mood": "calm"} trailing'],
    ids=["truncated", "prose", "single-quotes", "nan", "trailing-text"],
)
def test_malformed_json_fails(text: str) -> None:
    verdict = assess(text, SCHEMA)
    assert verdict.outcome == "fail"
    assert verdict.reason.startswith("structured: not valid JSON:")


@pytest.mark.parametrize(
    ("text", "path", "problem"),
    [
        ('{"name": "Mara"}', "$", "'mood' is a required property"),
        ('{"name": "Mara", "mood": "sleepy"}', "$.mood", "is not one of"),
        ('{"name": "Mara", "mood": "calm", "items": [{"qty": "two"}]}', "$.items[0].qty", "is not of type 'integer'"),
        ('{"name": "Mara", "mood": "calm", "extra": 1}', "$", "Additional properties"),
        ("[1, 2]", "$", "is not of type 'object'"),
    ],
    ids=["missing", "enum", "nested-type", "additional", "wrong-root"],
)
def test_a_schema_violation_fails_naming_path_and_problem(text: str, path: str, problem: str) -> None:
    verdict = assess(text, SCHEMA)
    assert verdict.outcome == "fail"
    assert f"schema violation at {path}:" in verdict.reason
    assert problem in verdict.reason


@pytest.mark.parametrize("text", ["", "  \n ", "```json\n```"])
def test_an_empty_reply_fails(text: str) -> None:
    verdict = assess(text, SCHEMA)
    assert verdict.outcome == "fail"
    assert "empty" in verdict.reason


def test_several_violations_are_counted() -> None:
    verdict = assess('{"mood": "sleepy", "extra": true}', SCHEMA)
    assert "more violation" in verdict.reason


def test_an_invalid_schema_is_a_caller_bug() -> None:
    with pytest.raises(jsonschema.SchemaError):
        assess("{}", {"type": "no-such-type"})


def test_a_number_too_long_for_python_to_convert_is_not_json_rather_than_a_crash():
    from judge.replies.structured import NOT_JSON, assess

    verdict = assess("7" * 8192, {"type": "object"})

    assert verdict.outcome == "fail" and verdict.reason.startswith(NOT_JSON)


def test_json_nested_a_thousand_deep_is_not_json_rather_than_a_recursion_error():
    from judge.replies.structured import NOT_JSON, assess

    verdict = assess("[" * 1000 + "]" * 1000, {"type": "object"})

    assert verdict.outcome == "fail" and verdict.reason.startswith(NOT_JSON) and "64 levels" in verdict.reason


def test_a_bound_the_request_no_longer_carries_is_a_note_not_a_failure() -> None:
    # The strict schema sent drops maxItems (strict modes refuse it); a host decoding to the schema
    # it received cannot be held to it (issue 28, N10).
    schema = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"},
                                                         "maxItems": 3}}, "required": ["items"]}
    sent = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}},
            "required": ["items"]}
    four = '{"items": ["a", "b", "c", "d"]}'
    assert assess(four, schema).failed
    verdict = assess(four, schema, sent)
    assert verdict.passed and "a bound the request did not carry was not kept" in verdict.reason
    assert assess('{"items": [1]}', schema, sent).failed  # what the request carried still binds

"""The schema generator satisfies schemas; its two broken modes really break them."""

from __future__ import annotations

import json
import random

import jsonschema
import pytest

from simulator.banks import load_bank
from simulator.schema_gen import generate, malformed, violate

PHRASES = list(load_bank("pt").sentences)
SCHEMAS = {
    "flat": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 20},
            "ok": {"type": "boolean"},
            "n": {"type": "number", "minimum": 1, "maximum": 2},
        },
        "required": ["name", "ok", "n"],
        "additionalProperties": False,
    },
    "nested": {
        "type": "object",
        "properties": {
            "scene": {
                "type": "object",
                "properties": {"place": {"type": "string", "minLength": 200}, "mood": {"enum": ["a", "b"]}},
                "required": ["place", "mood"],
            },
            "lines": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4},
            "age": {"type": ["integer", "null"], "exclusiveMinimum": 17, "exclusiveMaximum": 20},
        },
        "required": ["scene", "lines", "age"],
    },
    "refs": {
        "$defs": {"who": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
        "type": "object",
        "properties": {
            "who": {"$ref": "#/$defs/who"},
            "kind": {"const": "npc"},
            "alt": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["who", "kind"],
    },
}  # fmt: skip


@pytest.mark.parametrize("name", SCHEMAS)
@pytest.mark.parametrize("seed", range(10))
def test_generated_values_satisfy_the_schema(name, seed):
    value = generate(SCHEMAS[name], random.Random(seed), PHRASES)

    jsonschema.validate(value, SCHEMAS[name])


@pytest.mark.parametrize("name", SCHEMAS)
@pytest.mark.parametrize("seed", range(10))
def test_a_violation_is_valid_json_that_breaks_the_schema(name, seed):
    rng = random.Random(seed)
    value = violate(SCHEMAS[name], generate(SCHEMAS[name], rng, PHRASES), rng)

    json.loads(json.dumps(value))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(value, SCHEMAS[name])


@pytest.mark.parametrize("seed", range(20))
def test_malformed_output_never_parses(seed):
    rng = random.Random(seed)
    text = json.dumps(generate(SCHEMAS["flat"], rng, PHRASES), ensure_ascii=False)

    with pytest.raises(ValueError):
        json.loads(malformed(text, rng))

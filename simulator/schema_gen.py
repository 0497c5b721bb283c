"""A small generic JSON Schema value generator, and the two ways a broken host breaks it.

Supports what structured-output probes use: object/properties/required/additionalProperties,
string (minLength/maxLength/enum), integer and number (minimum/maximum, exclusive bounds),
boolean, null, array (items/minItems/maxItems), enum/const, anyOf/oneOf (first branch) and local
`$ref` into `$defs`/`definitions`. Strings are drawn from the reply language's text bank.
"""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

Schema = Mapping[str, Any]


def generate(schema: Schema, rng: random.Random, phrases: Sequence[str]) -> Any:
    """A value that satisfies `schema`."""
    return _Generator(schema, rng, phrases).value(schema)


def violate(schema: Schema, value: Any, rng: random.Random) -> Any:
    """Valid JSON that breaks `schema`: a missing required key, a wrong type, an out-of-enum value..."""
    if not isinstance(value, dict) or _type(schema) != "object":
        return [value]  # wrong top-level type
    broken = copy.deepcopy(value)
    props: Mapping[str, Any] = schema.get("properties", {})
    ways: list[str] = []
    if schema.get("required"):
        ways.append("drop_required")
    typed = [k for k, p in props.items() if isinstance(p, Mapping) and _type(p) and "null" not in str(p.get("type"))]
    if typed:
        ways.append("wrong_type")
    if any("enum" in p for p in props.values() if isinstance(p, Mapping)):
        ways.append("bad_enum")
    if schema.get("additionalProperties") is False:
        ways.append("extra_key")
    if not ways:
        return [value]
    way = rng.choice(ways)
    if way == "drop_required":
        del broken[rng.choice(list(schema["required"]))]
    elif way == "wrong_type":
        key = rng.choice(typed)
        broken[key] = "forty-two" if _type(props[key]) in ("integer", "number") else 42
    elif way == "bad_enum":
        key = rng.choice([k for k, p in props.items() if isinstance(p, Mapping) and "enum" in p])
        broken[key] = "unknown_" + "".join(rng.choice("xyzqw") for _ in range(4))
    else:
        broken["note"] = "extra field the schema forbids"
    return broken


def malformed(text: str, rng: random.Random) -> str:
    """Text that is not valid JSON, in one of the ways real hosts produce it."""
    way = rng.choice(("truncated", "trailing_comma", "single_quotes", "fenced_prose", "unquoted_keys"))
    if way == "truncated":
        return text[: max(1, int(len(text) * rng.uniform(0.3, 0.8)))]
    if way == "trailing_comma" and text.endswith("}"):
        return text[:-1] + ",}"
    if way == "single_quotes" and '"' in text:
        return text.replace('"', "'")
    if way == "unquoted_keys" and text.startswith('{"'):
        return "{" + text[2:].replace('":', ":", 1)
    return "Sure! Here is the JSON you asked for:\n```json\n" + text + "\n```"


class _Generator:
    def __init__(self, root: Schema, rng: random.Random, phrases: Sequence[str]) -> None:
        self.root = root
        self.rng = rng
        self.phrases = list(phrases) or ["lorem ipsum"]

    def resolve(self, schema: Schema) -> Schema:
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            node: Any = self.root
            for part in ref[2:].split("/"):
                node = node.get(part, {}) if isinstance(node, Mapping) else {}
            return node if isinstance(node, Mapping) else {}
        return schema

    def value(self, schema: Schema, depth: int = 0) -> Any:
        schema = self.resolve(schema)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema and schema["enum"]:
            return self.rng.choice(list(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if schema.get(key):
                return self.value(schema[key][0], depth + 1)
        kind = _type(schema)
        if kind == "object" or (kind is None and "properties" in schema):
            props: Mapping[str, Any] = schema.get("properties", {})
            return {k: self.value(v, depth + 1) for k, v in props.items()}
        if kind == "array":
            low = int(schema.get("minItems", 1))
            high = max(low, int(schema.get("maxItems", low + 2)))
            count = self.rng.randint(low, min(high, low + 4))
            return [self.value(schema.get("items", {"type": "string"}), depth + 1) for _ in range(count)]
        if kind == "integer":
            return self.integer(schema)
        if kind == "number":
            lowest = float(schema.get("minimum", 0))
            highest = float(schema.get("maximum", lowest + 100))
            return min(max(round(self.rng.uniform(lowest, highest), 2), lowest), highest)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self.string(schema)

    def integer(self, schema: Schema) -> int:
        low = schema.get("minimum", 0)
        high = schema.get("maximum", max(100, low + 100))
        if "exclusiveMinimum" in schema:
            low = max(low, math.floor(schema["exclusiveMinimum"]) + 1)
        if "exclusiveMaximum" in schema:
            high = min(high, math.ceil(schema["exclusiveMaximum"]) - 1)
        return self.rng.randint(math.ceil(low), max(math.ceil(low), math.floor(high)))

    def string(self, schema: Schema) -> str:
        low = int(schema.get("minLength", 0))
        high = int(schema.get("maxLength", 10**6))
        text = self.rng.choice(self.phrases)
        while len(text) < low:
            text += " " + self.rng.choice(self.phrases)
        if len(text) > high:
            text = text[:high].rstrip() or text[:high]
        return text


def _type(schema: Schema) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    return kind if isinstance(kind, str) else None


def dumps(value: Any) -> str:
    """Compact JSON with non-ASCII kept readable, as models emit it."""
    return json.dumps(value, ensure_ascii=False)

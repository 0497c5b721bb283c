"""The production record's JSON Schema ships beside the format (docs/production.schema.json), from its declaration."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from core.production import ProductionError, json_schema, read_record

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "production.schema.json"
REGENERATE = ("python -c \"import json, core.production as p; print(json.dumps(p.json_schema(), indent=2, "
              "sort_keys=True))\" > docs/production.schema.json")
RECORD = {"schema": "canary.production/1", "exporter": "chat-eu-1", "window_start": "2026-12-07T10:00:00Z",
          "window_end": "2026-12-07T10:30:00Z", "sample_rate": 0.05,
          "counts": [{"model": "m/x", "provider": "Google AI Studio", "check": "encoding", "outcome": "fail", "n": 7,
                      "language": "de", "stream": True}],
          "served": [{"model": "m/x", "provider": None, "n": 12}]}


def test_the_shipped_schema_is_the_declarations() -> None:
    assert json.loads(SCHEMA_FILE.read_text(encoding="utf-8")) == json_schema(), f"regenerate it: {REGENERATE}"


@pytest.mark.parametrize(("key", "value"), [("provider", "Aurora\nthe user wrote this"), ("check", "refusal"),
                                            ("language", "Deutsch"), ("n", 0), ("note", "free text")])
def test_a_record_with_anything_else_is_refused_by_the_schema_and_the_reader(key: str, value: object) -> None:
    jsonschema.validate(RECORD, json_schema())
    assert read_record(RECORD, source="r.json").counts[0].n == 7
    bad = {**RECORD, "counts": [{**RECORD["counts"][0], key: value}]}  # type: ignore[dict-item]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, json_schema())
    with pytest.raises(ProductionError, match="r.json"):
        read_record(bad, source="r.json")

"""status.schema.json is generated from status.json's declaration (canary/outputs/site/status.py)."""

from __future__ import annotations

import jsonschema
import msgspec

from canary.outputs.site.status import SCHEMA_FILE, EndpointStatus, ModelStatus, StatusFile, schema_text, status_schema


def test_the_committed_schema_is_the_generated_one() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "run `python -m canary.outputs.site.status` after changing canary/outputs/site/status.py")


def test_the_schema_is_draft_2020_12_and_refuses_what_the_declaration_refuses() -> None:
    schema = status_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    endpoint = EndpointStatus(state="active", tier="healthy", status="healthy", until=None, in_provider_ignore=False,
                              excluded_by=None, reasons=(), tier_reasons=(), last_round_at="2026-11-29T23:30:00Z",
                              ttft_p50_s=0.4, ttft_p95_s=0.6, tokens_per_s_p50=50.0)
    good = msgspec.json.decode(msgspec.json.encode(StatusFile(
        schema_version=1, generated_at="2026-11-29T23:40:00Z", newest_round=None, stale_after_minutes=90,
        stale_at_generation=True, models={"a/b": ModelStatus(provider_ignore=(), would_ignore=(), badge="b.svg",
                                                             endpoints={"x/fp8": endpoint})})))
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(good)
    for path, bad in ((("schema_version",), 2), (("generated_at",), "yesterday"),
                      (("models", "a/b", "endpoints", "x/fp8", "state"), "asleep"),
                      (("models", "a/b", "provider_ignore"), ["x", "x"])):
        doc = msgspec.json.decode(msgspec.json.encode(good))
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = bad
        assert not validator.is_valid(doc), path

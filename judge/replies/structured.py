"""Structured output: the reply must be one JSON value that satisfies the requested JSON Schema.

Surrounding whitespace and one Markdown code fence are tolerated (hosts commonly wrap JSON so);
NaN and Infinity are not JSON. An invalid *schema* is the caller's bug: jsonschema.SchemaError.
With `sent` (the portable subset the request carried), only a violation of `sent` fails: a bound
the request no longer carried cannot bind a host, so breaking it is a note in the pass's reason
(docs/contracts.md, the structured row).
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any

from jsonschema import validators
from jsonschema.exceptions import ValidationError, best_match

from core.untrusted import TooDeep, load_json
from judge.replies.verdict import Verdict, failed, passed

_FENCE = re.compile(
    r"\A```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\r?\n?(.*?)\r?\n?```\Z", re.DOTALL
)
# Longest validator message quoted in a reason (some quote the whole offending value).
MESSAGE_CHARS = 160


class StructuredCode(StrEnum):
    """The codes of the structured judge (judge/replies/verdict.py)."""

    EMPTY_REPLY = "empty_reply"
    NOT_JSON = "not_json"
    SCHEMA_VIOLATION = "schema_violation"
    MAX_TOKENS_CUT = "max_tokens_cut"   # the contract's: the reply reached our max_tokens
    RESPONSE_HEALED = "response_healed"   # the contract's: OpenRouter repaired the host's JSON (router metadata)


# How a reply that is not JSON at all starts its reason.
NOT_JSON = "structured: not valid JSON"


class _NonStandardConstant(ValueError):
    """NaN, Infinity or -Infinity: accepted by Python's json, not valid JSON."""


# How a pass that broke a bound the request left out says so (the note's prefix).
UNSENT_BOUND = "a bound the request did not carry was not kept"


def assess(text: str, schema: dict[str, Any], sent: dict[str, Any] | None = None) -> Verdict:
    """Judge whether `text` is valid JSON that satisfies `schema` (with `sent`: the module docstring)."""
    body = text.strip()
    fence = _FENCE.match(body)
    if fence:
        body = fence.group(1).strip()
    if not body:
        return failed(StructuredCode.EMPTY_REPLY, "structured: empty reply, expected a JSON value")
    try:
        value = load_json(body, parse_constant=_reject_constant)
    except TooDeep as error:
        return failed(StructuredCode.NOT_JSON, f"{NOT_JSON}: {error}")
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        return failed(StructuredCode.NOT_JSON, f"{NOT_JSON}: {error.msg} at {where}")
    except _NonStandardConstant as error:
        return failed(StructuredCode.NOT_JSON, f"{NOT_JSON}: {error}")
    except ValueError as error:  # e.g. a number of more than 4,300 digits: Python refuses to convert it
        return failed(StructuredCode.NOT_JSON, f"{NOT_JSON}: {str(error)[:MESSAGE_CHARS]}")
    errors = _errors(schema, value)
    if not errors:
        return passed("structured: valid JSON matching the schema")
    if sent is not None and not _errors(sent, value):
        return passed(f"structured: valid JSON matching the schema sent (note: {UNSENT_BOUND}: "
                      f"{_violation_reason(errors).removeprefix('structured: ')})")
    return failed(StructuredCode.SCHEMA_VIOLATION,
        _violation_reason(_errors(sent, value) if sent is not None else errors))


def _errors(schema: dict[str, Any], value: Any) -> list[ValidationError]:
    validator_class = validators.validator_for(schema)
    validator_class.check_schema(schema)
    return list(validator_class(schema).iter_errors(value))


def _reject_constant(name: str) -> Any:
    raise _NonStandardConstant(f"{name} is not a JSON number")


def _violation_reason(errors: list[ValidationError]) -> str:
    error = best_match(errors)
    message = error.message
    if len(message) > MESSAGE_CHARS:
        message = message[:MESSAGE_CHARS] + "…"
    more = f" (and {len(errors) - 1} more violation(s))" if len(errors) > 1 else ""
    return f"structured: schema violation at {_path(error)}: {message}{more}"


def _path(error: ValidationError) -> str:
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path

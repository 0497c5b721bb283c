"""The fault catalogue: names, parameters with defaults, and how one request draws its faults.

Selection rule (documented for scenario authors): `slow_first_token` is drawn on its own, because
a slow host can also be a broken one. Every other fault is *exclusive*: one uniform draw walks the
faults in the order they are written, each owning a slice of width `rate`, so at most one fires and
the rates of one endpoint must add up to at most 1. `refusal: 0.6` + `content_filter: 0.4` means
"always filters, 60/40".

Any exclusive fault may also take `only_when`: a list of strings, one of which must appear in
the request's messages for the fault to fire (a drawn fault whose text is absent fires nothing).
It scopes a defect to some prompts: a host whose filter refuses the latency and language probes
(`only_when: ["inn", "Always reply in"]`) but not the refusal probe's scene.

*Traits* are not drawn: they describe what the host is rather than what goes wrong now, and
apply to every request by their own rule (`thinking`: a reasoning model always thinks first;
`reset_before_response`: the first `times` requests of each conversation lose their
connection; the real wire's shapes of healthy hosts, `tool_call_shape`, `cache_reads`,
`usage_delay` and `tool_template`, simulator/README.md). They combine with any drawn fault,
and their rate can only be 1.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.schema import Invalid
from core.vocabulary import LANGUAGES

INDEPENDENT = frozenset({"slow_first_token"})
TRAITS = frozenset({"thinking", "reset_before_response", "tool_call_shape", "cache_reads", "usage_delay",
                    "tool_template"})
MID_STREAM_SHAPES = ("documented", "recorded", "empty_choices")
# How an http_error's body looks (docs/openrouter-wire.md §5): a provider's error relayed by
# OpenRouter (`metadata.provider_name` + `raw`), the availability format (`error_type`,
# `http_status`, `availability.code`, no `code`), an envelope without `code`, or OpenRouter's own
# bare envelope (no provider named).
HTTP_ERROR_BODIES = ("provider", "availability", "no_code", "bare")
FILTER_ERROR_TYPES = ("content_policy_violation", "refusal")
# How a provider's refusal relayed as its 403 reads (docs/openrouter-wire.md §5): xAI's
# `permission-denied` with a decline, or xAI's failed safety check.
RELAYED_REFUSALS = ("permission_denied", "usage_guidelines")

# Stray openers seen in the real incident: punctuation or a token fragment glued before the reply.
# A character's foreign catch-phrase inside an otherwise clean reply: not a language switch.
DEFAULT_CATCH_PHRASES = ('"C\'est la vie!"', '"¡Ay, caramba!"', '"Mamma mia!"', '"Gesundheit!"', '"Arigatou!"',
                         '"Bon appétit!"', '"Hasta mañana!"', '"Danke schön!"')
DEFAULT_GARBAGE = ('",', "ing.", "</s>", ".**", "',", "tion:", "<|im_end|>", ").", ":**", '">', "s.\n", "_,")


def _int(minimum: int = 0) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError(f"expected an integer >= {minimum}, got {value!r}")
        return value

    return check


def _fraction(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"expected a number between 0 and 1, got {value!r}")
    return float(value)


def _factor(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1000:
        raise ValueError(f"expected a number above 0 (at most 1000), got {value!r}")
    return float(value)


def _choice(options: Sequence[str]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in options:
            raise ValueError(f"expected one of {', '.join(options)}, got {value!r}")
        return str(value)

    return check


def _statuses(value: Any) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(s, int) and not isinstance(s, bool) and 400 <= s <= 599 for s in items):
        raise ValueError(f"expected an HTTP status 400-599 or a list of them, got {value!r}")
    return tuple(items)


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(s, str) and s for s in value):
        raise ValueError(f"expected a non-empty list of strings, got {value!r}")
    return tuple(value)


def _pace(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ValueError(f"expected a number above 0 and at most 1, got {value!r}")
    return float(value)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _optional_seconds(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"expected a number of seconds >= 0 or null, got {value!r}")
    return float(value)


def _optional_int(value: Any) -> int | None:
    return None if value is None else _int()(value)


def _optional_string(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value


_language = _choice(LANGUAGES)
_Spec = Mapping[str, tuple[Callable[[Any], Any], Any]]

# fault name -> {parameter: (validator, default)}
CATALOGUE: dict[str, _Spec] = {
    "slow_first_token": {"delay_ms": (_int(), 11000)},
    "leading_garbage": {"fragments": (_strings, DEFAULT_GARBAGE)},
    "mix_language": {
        "with": (_language, "es"),
        "level": (_choice(("sentence", "word", "both")), "both"),
        "ratio": (_fraction, 0.5),
    },
    "language_switch": {"to": (_language, "en")},
    "mojibake": {"encoding": (_choice(("cp1252", "latin-1")), "cp1252")},
    "replacement_char": {"density": (_fraction, 0.05)},
    "repetition": {"times": (_int(2), 8)},
    "refusal": {},
    "content_filter": {"partial": (_fraction, 0.5)},
    "empty_reply": {},
    "truncated_stream": {"after": (_fraction, 0.4)},
    "schema_malformed": {},
    "schema_violation": {},
    "http_error": {
        # retry_after null: no Retry-After header, as on every real 429 recorded.
        "status": (_statuses, (429,)), "retry_after": (_optional_int, 1),
        "body": (_choice(HTTP_ERROR_BODIES), "provider"),
        # true: the 200 was already committed by a keep-alive, so the error arrives in the stream
        # (the real service commits at the first `: OPENROUTER PROCESSING`).
        "in_band": (_bool, False),
    },
    # A typed content-policy error (§5): a 400 before any byte, or in the stream after `after` of the text.
    "filter_error": {
        "error_type": (_choice(FILTER_ERROR_TYPES), "content_policy_violation"),
        "where": (_choice(("status", "stream")), "status"),
        "after": (_fraction, 0.5),
    },
    # The recorded real shape (§3): the reply finishes on `length`, then an error chunk "Token
    # limit reached" (code 400, usage attached; `typed` adds metadata.error_type max_tokens_exceeded).
    "length_then_error": {"typed": (_bool, False)},
    "hang": {"seconds": (_optional_seconds, None)},
    "mid_stream_error": {
        "shape": (_choice((*MID_STREAM_SHAPES, "random")), "documented"),
        "code": (_int(400), 502),
        "after": (_fraction, 0.5),
    },
    "wrong_provider": {"to": (_optional_string, None)},
    # OpenRouter's input moderation (403 before any byte, `error.metadata.reasons`): the host's
    # policy layer refusing the prompt. The categories are upstream text, so scenarios may make
    # them hostile.
    "moderation": {"reasons": (_strings, ("sexual",))},
    # A provider's refusal relayed by OpenRouter as that provider's 403 (`metadata.raw`): the
    # host's filter answering in an error envelope instead of a typed refusal (issue 28).
    "relayed_refusal": {"shape": (_choice(RELAYED_REFUSALS), "permission_denied")},
    # Wire defects a judge reads off the reply itself (simulator/defects.py, issue 22).
    "cumulative_deltas": {},
    "repeated_deltas": {},
    "ignore_max_tokens": {"factor": (_int(2), 20)},
    "early_length": {"ratio": (_fraction, 0.2)},
    "slow_decode": {"factor": (_pace, 0.02)},
    "overbilling": {"factor": (_factor, 1.5)},
    "hidden_system_prompt": {"tokens": (_int(1), 400)},
    "no_stream_usage": {},
    "hidden_completion_tokens": {"tokens": (_int(1), 120)},
    # Tool-call defects (simulator/tool_calls.py, issue 23): fire only on a request with `tools`.
    "tool_markup_leak": {"dialect": (_choice(("kimi", "hermes", "mistral", "deepseek", "glm", "qwen3_coder")), "kimi"),
                         "into": (_choice(("content", "reasoning")), "content")},
    "tool_schema_break": {},
    "tool_args_twice": {},
    "tool_no_arguments": {},
    "tool_finish_stop": {},
    "tool_prose": {},
    # Tasks with one right answer (simulator/tasks.py, issue 23): the stop and fidelity probes.
    "stop_ignored": {},
    "stop_echoed": {},
    "fidelity_errors": {"share": (_fraction, 0.6)},
    # Traits (not drawn, see the module docstring).
    # by_default false: a hybrid model, thinking only when the request asks (an effort, a budget,
    # enabled: true); the models API then says `reasoning.default_enabled: false`.
    # answer_cap: the request's max_tokens bounds only the answer, the thinking comes on top
    # (SiliconFlow's and DeepSeek's documented max_tokens; docs/openrouter-wire.md §9).
    "thinking": {"tokens": (_int(1), 400), "readable": (_bool, True), "by_default": (_bool, True),
                 "mandatory": (_bool, False), "answer_cap": (_bool, False)},
    "reset_before_response": {"times": (_int(1), 1)},
    # Shapes of healthy real hosts (docs/openrouter-wire.md §9): none of them is a defect.
    # A line in character before the calls, each call billed `tokens_per_call` completion tokens
    # (Claude via Bedrock: ~55-60), the calls ending on `finish` (gpt-4o-mini ends valid calls `stop`).
    "tool_call_shape": {"text": (_bool, True), "tokens_per_call": (_int(1), 56),
                        "finish": (_choice(("tool_calls", "stop")), "tool_calls")},
    # Implicit cache reads: `share` of the prompt tokens reported as cached_tokens and billed at
    # the listed input_cache_read (the prompt price where none is listed).
    "cache_reads": {"share": (_fraction, 0.7)},
    # A delay before the separate usage chunk, after the finish chunk.
    "usage_delay": {"ms": (_int(), 1000)},
    # The host's chat template around tool schemas: this many more prompt tokens on a request with tools.
    "tool_template": {"tokens": (_int(1), 300)},
    # Realistic noise of healthy hosts (benchmarks/false_suspensions.py): never a defect.
    "short_reply": {"words": (_int(1), 3)},
    "catch_phrase": {"phrases": (_strings, DEFAULT_CATCH_PHRASES)},
    # Hostile hosts (simulator/hostile.py): replies that attack the reader, not degraded text.
    "echo_headers": {"into": (_choice(("text", "provider")), "text")},
    "deep_json": {"depth": (_int(1), 1000), "into": (_choice(("content", "chunk")), "content")},
    "split_surrogates": {"lone": (_bool, False)},
    "no_space": {"chars": (_int(1), 65536)},
    # Hostile numbers and sizes (simulator/hostile.py, issue 31): bounds the reader must hold.
    "huge_bill": {"cost": (_choice(("1e308", "integer")), "1e308"), "digits": (_int(1), 400)},
    "compressed_stream": {"decoded_kb": (_int(1), 4096), "encoding": (_choice(("gzip", "deflate")), "gzip")},
    "tool_flood": {"name_fragments": (_int(0), 240000), "calls": (_int(0), 0)},
    "escape_codes": {},
    "echo_at_cut": {"into": (_choice(("error", "event", "category", "header", "tool_name", "text_cap")), "error")},
}
FAULT_NAMES: tuple[str, ...] = tuple(CATALOGUE)


@dataclass(frozen=True, slots=True)
class Fault:
    """One named fault of an endpoint: its rate and its validated parameters (defaults filled)."""

    name: str
    rate: float
    params: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.params[key]


def parse_fault(name: str, raw: Any) -> Fault:
    """Validate one `faults:` entry; errors are `Invalid("<name>.<key>", why)` (core/schema.py)."""
    if name not in CATALOGUE:
        raise Invalid(name, f"unknown fault (known: {', '.join(FAULT_NAMES)})")
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise Invalid(name, "expected a mapping with at least `rate`")
    spec = CATALOGUE[name]
    unknown = set(raw) - set(spec) - {"rate", "only_when"}
    if unknown:
        raise Invalid(f"{name}.{sorted(unknown)[0]}", f"unknown parameter (known: rate, {', '.join(spec) or '-'})")
    try:
        rate = _fraction(raw.get("rate", 1.0))
    except ValueError as exc:
        raise Invalid(f"{name}.rate", str(exc)) from None
    if name in TRAITS and rate != 1.0:
        raise Invalid(f"{name}.rate", "a trait is not drawn, it always applies; leave `rate` out")
    params: dict[str, Any] = {}
    if "only_when" in raw:
        if name in TRAITS | INDEPENDENT:
            raise Invalid(f"{name}.only_when", "only drawn exclusive faults can be scoped to prompts")
        try:
            params["only_when"] = _strings(raw["only_when"])
        except ValueError as exc:
            raise Invalid(f"{name}.only_when", str(exc)) from None
    for key, (check, default) in spec.items():
        if key in raw:
            try:
                params[key] = check(raw[key])
            except ValueError as exc:
                raise Invalid(f"{name}.{key}", str(exc)) from None
        else:
            params[key] = default
    return Fault(name, rate, params)


def check_rates(faults: Sequence[Fault]) -> None:
    """Exclusive faults share one draw, so their rates may not add up to more than 1."""
    total = sum(f.rate for f in faults if f.name not in INDEPENDENT | TRAITS)
    if total > 1.0 + 1e-9:
        raise ValueError(f"rates of exclusive faults add up to {total:g}, more than 1")


@dataclass(frozen=True, slots=True)
class Draw:
    """The faults one request suffers: at most one exclusive fault, plus an optional slow start."""

    fault: Fault | None
    slow: Fault | None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in (self.slow, self.fault) if f is not None)


def trait(faults: Sequence[Fault], name: str) -> Fault | None:
    """The endpoint's trait `name`, if it has it (traits always apply; see the module docstring)."""
    return next((f for f in faults if f.name == name), None)


def applies(fault: Fault, text: str) -> bool:
    """Whether a drawn fault fires on a request whose messages read `text` (its `only_when`)."""
    scope = fault.params.get("only_when")
    return scope is None or any(s in text for s in scope)


def draw(faults: Sequence[Fault], rng: random.Random, *, exclude: frozenset[str] = frozenset(),
         text: str = "") -> Draw:
    """Draw this request's faults; always consumes exactly two numbers so replies stay reproducible.
    `text`: the request's messages, for faults scoped with `only_when`."""
    slow_roll, roll = rng.random(), rng.random()
    slow = next((f for f in faults if f.name in INDEPENDENT and slow_roll < f.rate), None)
    edge = 0.0
    for fault in faults:
        if fault.name in INDEPENDENT | TRAITS:
            continue
        edge += fault.rate
        if roll < edge:
            return Draw(None if fault.name in exclude or not applies(fault, text) else fault, slow)
    return Draw(None, slow)

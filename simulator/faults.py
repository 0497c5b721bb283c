"""The fault catalogue: names, parameters with defaults, and how one request draws its faults (the draw
rule and every fault's meaning: simulator/README.md). `slow_first_token` is drawn on its own because a
slow host can also be a broken one; *traits* are not drawn: they describe what the host is and apply
to every request.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

import msgspec
from msgspec import Meta

from core.schema import Invalid, convert
from core.vocabulary import LANGUAGES

INDEPENDENT = frozenset({"slow_first_token"})
TRAITS = frozenset({"thinking", "reset_before_response", "tool_call_shape", "cache_reads", "usage_delay",
                    "tool_template"})
MidStreamShape = Literal["documented", "recorded", "empty_choices"]
MID_STREAM_SHAPES: tuple[str, ...] = get_args(MidStreamShape)
HttpErrorBody = Literal["provider", "availability", "no_code", "bare"]   # docs/openrouter-wire.md §5's shapes
FilterErrorType = Literal["content_policy_violation", "refusal"]
RelayedRefusalShape = Literal["permission_denied", "usage_guidelines"]    # xAI's two (§5)

# A character's foreign catch-phrase inside an otherwise clean reply: not a language switch.
DEFAULT_CATCH_PHRASES = ('"C\'est la vie!"', '"¡Ay, caramba!"', '"Mamma mia!"', '"Gesundheit!"', '"Arigatou!"',
                         '"Bon appétit!"', '"Hasta mañana!"', '"Danke schön!"')
# Stray openers seen in the real incident: punctuation or a token fragment glued before the reply.
DEFAULT_GARBAGE = ('",', "ing.", "</s>", ".**", "',", "tion:", "<|im_end|>", ").", ":**", '">', "s.\n", "_,")


Fraction = Annotated[float, Meta(ge=0, le=1)]
Share = Annotated[float, Meta(gt=0, le=1)]          # a pace or a share that cannot be zero
Count = Annotated[int, Meta(ge=0)]
Positive = Annotated[int, Meta(ge=1)]
Strings = Annotated[tuple[Annotated[str, Meta(min_length=1)], ...], Meta(min_length=1)]
Status = Annotated[int, Meta(ge=400, le=599)]
if TYPE_CHECKING:
    Language = str
else:  # the 17 codes of core/vocabulary.py, as the choices a scenario may write
    Language = Literal[LANGUAGES]


class FaultParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One fault's keys under `faults:` (an unknown key is refused); each subclass adds its own. `params["key"]`
    reads a parameter by the name the scenario spells it (`with`, a Python keyword, is the field `with_`)."""

    rate: Fraction = 1.0
    only_when: Strings | None = None
    longer_than: Count | None = None   # characters of the request's messages; shorter ones never fire it

    def __getitem__(self, key: str) -> Any:
        return getattr(self, _attribute(type(self), key))

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, _attribute(type(self), key), default)


@functools.cache
def _attribute(kind: type[FaultParams], key: str) -> str:
    return next((f.name for f in msgspec.structs.fields(kind) if f.encode_name == key), key)


class NoParams(FaultParams, frozen=True):
    """A fault without parameters of its own."""


NO_PARAMS = NoParams()  # what a request without a drawn fault reads


class SlowFirstTokenParams(FaultParams, frozen=True):
    delay_ms: Count = 11000


class LeadingGarbageParams(FaultParams, frozen=True):
    fragments: Strings = DEFAULT_GARBAGE


class MixLanguageParams(FaultParams, frozen=True):
    with_: Language = msgspec.field(default="es", name="with")
    level: Literal["sentence", "word", "both"] = "both"
    ratio: Fraction = 0.5


class LanguageSwitchParams(FaultParams, frozen=True):
    to: Language = "en"


class MojibakeParams(FaultParams, frozen=True):
    encoding: Literal["cp1252", "latin-1"] = "cp1252"


class ReplacementCharParams(FaultParams, frozen=True):
    density: Fraction = 0.05


class RepetitionParams(FaultParams, frozen=True):
    times: Annotated[int, Meta(ge=2)] = 8


class ContentFilterParams(FaultParams, frozen=True):
    partial: Fraction = 0.5


class TruncatedStreamParams(FaultParams, frozen=True):
    after: Fraction = 0.4


class HttpErrorParams(FaultParams, frozen=True):
    status: Status | Annotated[tuple[Status, ...], Meta(min_length=1)] = (429,)
    retry_after: Count | None = 1  # null: no Retry-After header, as on every real 429 recorded
    body: HttpErrorBody = "provider"
    in_band: bool = False

    @property
    def statuses(self) -> tuple[int, ...]:
        """The statuses one is drawn from (a scenario may write one status or a list)."""
        return self.status if isinstance(self.status, tuple) else (self.status,)


class FilterErrorParams(FaultParams, frozen=True):
    error_type: FilterErrorType = "content_policy_violation"
    where: Literal["status", "stream"] = "status"
    after: Fraction = 0.5


class LengthThenErrorParams(FaultParams, frozen=True):
    typed: bool = False


class HangParams(FaultParams, frozen=True):
    seconds: Annotated[float, Meta(ge=0)] | None = None


class MidStreamErrorParams(FaultParams, frozen=True):
    shape: Literal[MidStreamShape, "random"] = "documented"
    code: Annotated[int, Meta(ge=400)] = 502
    after: Fraction = 0.5


class WrongProviderParams(FaultParams, frozen=True):
    to: str | None = None


class ModerationParams(FaultParams, frozen=True):
    reasons: Strings = ("sexual",)


class RelayedRefusalParams(FaultParams, frozen=True):
    shape: RelayedRefusalShape = "permission_denied"


class ToolUseFailedParams(FaultParams, frozen=True):
    where: Literal["status", "stream"] = "status"


class GuardrailParams(FaultParams, frozen=True):
    blocking: bool = False


class IgnoreMaxTokensParams(FaultParams, frozen=True):
    factor: Annotated[int, Meta(ge=2)] = 20


class EarlyLengthParams(FaultParams, frozen=True):
    ratio: Fraction = 0.2


class SlowDecodeParams(FaultParams, frozen=True):
    factor: Share = 0.02


class OverbillingParams(FaultParams, frozen=True):
    factor: Annotated[float, Meta(gt=0, le=1000)] = 1.5


class TokensParams(FaultParams, frozen=True):
    """Extra tokens (hidden_system_prompt: 400; hidden_completion_tokens: 120; tool_template: 300)."""

    tokens: Positive = 400


class HiddenCompletionTokensParams(TokensParams, frozen=True):
    tokens: Positive = 120


class ToolTemplateParams(TokensParams, frozen=True):
    tokens: Positive = 300


class ToolMarkupLeakParams(FaultParams, frozen=True):
    dialect: Literal["kimi", "hermes", "mistral", "deepseek", "glm", "qwen3_coder"] = "kimi"
    into: Literal["content", "reasoning"] = "content"


class FidelityErrorsParams(FaultParams, frozen=True):
    share: Fraction = 0.6


class ThinkingParams(FaultParams, frozen=True):
    tokens: Positive = 400
    readable: bool = True
    by_default: bool = True
    mandatory: bool = False
    answer_cap: bool = False
    itemised: bool = True


class ResetBeforeResponseParams(FaultParams, frozen=True):
    times: Positive = 1


class ToolCallShapeParams(FaultParams, frozen=True):
    text: bool = True
    tokens_per_call: Positive = 56
    finish: Literal["tool_calls", "stop"] = "tool_calls"


class CacheReadsParams(FaultParams, frozen=True):
    share: Fraction = 0.7


class UsageDelayParams(FaultParams, frozen=True):
    ms: Count = 1000


class ShortReplyParams(FaultParams, frozen=True):
    words: Positive = 3


class CatchPhraseParams(FaultParams, frozen=True):
    phrases: Strings = DEFAULT_CATCH_PHRASES


class EchoHeadersParams(FaultParams, frozen=True):
    into: Literal["text", "provider"] = "text"


class DeepJsonParams(FaultParams, frozen=True):
    depth: Positive = 1000
    into: Literal["content", "chunk"] = "content"


class SplitSurrogatesParams(FaultParams, frozen=True):
    lone: bool = False


class NoSpaceParams(FaultParams, frozen=True):
    chars: Positive = 65536


class HugeBillParams(FaultParams, frozen=True):
    cost: Literal["1e308", "integer"] = "1e308"
    digits: Positive = 400


class CompressedStreamParams(FaultParams, frozen=True):
    decoded_kb: Positive = 4096
    encoding: Literal["gzip", "deflate"] = "gzip"


class ToolFloodParams(FaultParams, frozen=True):
    name_fragments: Count = 240000
    calls: Count = 0


class EchoAtCutParams(FaultParams, frozen=True):
    into: Literal["error", "event", "category", "header", "tool_name", "text_cap"] = "error"


class EscapeCodesParams(FaultParams, frozen=True):
    into: Literal["message", "provider"] = "message"


class EchoHiddenParams(FaultParams, frozen=True):   # the forms: simulator/hostile.py HIDDEN_FORMS
    form: Literal["zero_width", "soft_hyphen", "reversed", "percent", "u_escaped"] = "zero_width"


# fault name -> the declaration of its keys
CATALOGUE: dict[str, type[FaultParams]] = {
    "slow_first_token": SlowFirstTokenParams,
    "leading_garbage": LeadingGarbageParams,
    "mix_language": MixLanguageParams,
    "language_switch": LanguageSwitchParams,
    "mojibake": MojibakeParams,
    "replacement_char": ReplacementCharParams,
    "repetition": RepetitionParams,
    "refusal": NoParams,
    "content_filter": ContentFilterParams,
    "empty_reply": NoParams,
    "truncated_stream": TruncatedStreamParams,
    "schema_malformed": NoParams,
    "schema_violation": NoParams,
    "http_error": HttpErrorParams,
    "filter_error": FilterErrorParams,
    "length_then_error": LengthThenErrorParams,
    "hang": HangParams,
    "mid_stream_error": MidStreamErrorParams,
    "wrong_provider": WrongProviderParams,
    "moderation": ModerationParams,
    "relayed_refusal": RelayedRefusalParams,
    "tool_use_failed": ToolUseFailedParams,
    # OpenRouter's own doing, told by its router metadata (simulator/wire.py router_metadata).
    "response_healing": NoParams,
    "guardrail": GuardrailParams,
    "fallback_attempt": NoParams,
    # Wire defects a judge reads off the reply itself (simulator/defects.py).
    "cumulative_deltas": NoParams,
    "repeated_deltas": NoParams,
    "ignore_max_tokens": IgnoreMaxTokensParams,
    "early_length": EarlyLengthParams,
    "slow_decode": SlowDecodeParams,
    "overbilling": OverbillingParams,
    "hidden_system_prompt": TokensParams,
    "no_stream_usage": NoParams,
    "hidden_completion_tokens": HiddenCompletionTokensParams,
    # Tool-call defects (simulator/tool_calls.py): fire only on a request with `tools`.
    "tool_markup_leak": ToolMarkupLeakParams,
    "tool_schema_break": NoParams,
    "tool_args_twice": NoParams,
    "tool_no_arguments": NoParams,
    "tool_finish_stop": NoParams,
    "tool_prose": NoParams,
    # Tasks with one right answer (simulator/tasks.py): the stop and fidelity probes.
    "stop_ignored": NoParams,
    "stop_echoed": NoParams,
    "fidelity_errors": FidelityErrorsParams,
    # Traits (not drawn); the last four are shapes of healthy real hosts (docs/openrouter-wire.md §9).
    "thinking": ThinkingParams,
    "reset_before_response": ResetBeforeResponseParams,
    "tool_call_shape": ToolCallShapeParams,
    "cache_reads": CacheReadsParams,
    "usage_delay": UsageDelayParams,
    "tool_template": ToolTemplateParams,
    # Realistic noise of healthy hosts (benchmarks/false_suspensions.py): never a defect.
    "short_reply": ShortReplyParams,
    "catch_phrase": CatchPhraseParams,
    # Hostile hosts (simulator/hostile.py): replies that attack the reader, not degraded text.
    "echo_headers": EchoHeadersParams,
    "deep_json": DeepJsonParams,
    "split_surrogates": SplitSurrogatesParams,
    "no_space": NoSpaceParams,
    "huge_bill": HugeBillParams,
    "compressed_stream": CompressedStreamParams,
    "tool_flood": ToolFloodParams,
    "escape_codes": EscapeCodesParams,
    "echo_at_cut": EchoAtCutParams,
    "echo_hidden": EchoHiddenParams,
}
FAULT_NAMES: tuple[str, ...] = tuple(CATALOGUE)


@dataclass(frozen=True, slots=True)
class Fault:
    """One named fault of an endpoint: its declared parameters, defaults filled."""

    name: str
    params: FaultParams

    @property
    def rate(self) -> float:
        return self.params.rate

    def __getitem__(self, key: str) -> Any:
        return self.params[key]


def parse_fault(name: str, raw: Any) -> Fault:
    """Read one `faults:` entry; errors are `Invalid("<name>.<key>", why)` (core/schema.py)."""
    kind = CATALOGUE.get(name)
    if kind is None:
        raise Invalid(name, f"unknown fault (known: {', '.join(FAULT_NAMES)})")
    if not isinstance(raw, Mapping | None):
        raise Invalid(name, "expected a mapping with at least `rate`")
    params = convert(raw or {}, kind, at=name)
    if name in TRAITS and params.rate != 1.0:
        raise Invalid(f"{name}.rate", "a trait is not drawn, it always applies; leave `rate` out")
    for scope in ("only_when", "longer_than"):
        if params.get(scope) is not None and name in TRAITS | INDEPENDENT:
            raise Invalid(f"{name}.{scope}", "only drawn exclusive faults can be scoped to prompts")
    return Fault(name, params)


def check_rates(faults: Sequence[Fault]) -> None:
    """Exclusive faults share one draw, so their rates may not add up to more than 1."""
    total = sum(f.rate for f in faults if f.name not in INDEPENDENT | TRAITS)
    if total > 1.0 + 1e-9:
        raise Invalid("", f"rates of exclusive faults add up to {total:g}, more than 1")


@dataclass(frozen=True, slots=True)
class Draw:
    """The faults one request suffers: at most one exclusive fault, plus an optional slow start."""

    fault: Fault | None
    slow: Fault | None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in (self.slow, self.fault) if f is not None)


def trait(faults: Sequence[Fault], name: str) -> Fault | None:
    """The endpoint's trait `name`, if it has it."""
    return next((f for f in faults if f.name == name), None)


def applies(fault: Fault, text: str) -> bool:
    """Whether a drawn fault fires on a request whose messages read `text` (its `only_when`, `longer_than`)."""
    scope, longer_than = fault.params.get("only_when"), fault.params.get("longer_than")
    return (scope is None or any(s in text for s in scope)) and (longer_than is None or len(text) > longer_than)


def draw(faults: Sequence[Fault], rng: random.Random, *, exclude: frozenset[str] = frozenset(),
         text: str = "") -> Draw:
    """Draw this request's faults (`text`: the request's messages, for scoped faults); always consumes
    exactly two numbers so replies stay reproducible."""
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

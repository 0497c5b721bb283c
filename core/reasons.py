"""The reader of an older file's reasons: results.json schema_version 1 carried no code (pure).

Since schema_version 2 every case and attempt carries its code, set where it is decided: each
verdict's `code` (a StrEnum per family of checks, judge/replies/verdict.py), written by the probes
and read back by core/results.py. A version 1 file only has the English reasons, so its reader
derives each code here from the stable prefix each producer wrote then (and, for transport
errors, the attempt's `error_kind`, which was already a code). A reason no rule maps becomes
`<outcome>_other` (`fail_other`, ...): visible in counts, never a crash.

This table reads old words only: version 1 results files, and the judge's evidence lines written
before evidence carried its code (decisions.json and the audit log; `canary observe-report` reads
them). No new check needs a rule here: nothing written since reads through it. The codes are the same
vocabulary as the enums', so a history spanning both versions counts one thing under one code.
"""

from __future__ import annotations

import re

PASS = "pass"
NOT_APPLICABLE = "not_applicable"

# Prefix (or pattern) of a reason -> code, first match wins. Wrappers added by the contracts
# ("control unverified: ...", "... (confirmed: 3 of 3)") keep the judge's prefix at the start
# or are unwrapped below.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), code) for p, code in (
    # latency (probes/round/contracts/latency.py)
    (r"^first token after .* > ", "ttft_exceeded"),
    (r"^no text within ", "ttft_exceeded"),
    (r"^completed without any text", "no_text"),
    # any contract (probes/round/contracts/__init__.py)
    (r"^the reply spent its budget on reasoning", "reasoning_budget"),
    (r"^routing mismatch", "routing_mismatch"),
    (r"^the upstream refused our API key", "auth_refused"),
    (r"^moderation: ", "moderation"),
    (r"^filter: ", "filter_error"),
    # refusal (judge/replies/refusal.py, probes/round/contracts/refusal.py)
    (r"^refusal: .*content_filter", "content_filter"),
    (r"^refusal: empty reply", "empty_reply"),
    (r"^refusal: .*refus", "refusal_pattern"),
    (r"^refusal: the reply declines", "refusal_pattern"),
    (r"^control missed", "control_missed"),
    (r"^probe weak", "probe_weak"),   # not the action: the refusal controls' code (ControlCode)
    (r"^probe unverified", "probe_unverified"),
    # structured (judge/replies/structured.py, probes/round/contracts/structured.py)
    (r"^structured: the reply reached max_tokens", "max_tokens_cut"),
    (r"^structured: not valid JSON", "not_json"),
    (r"^structured: empty reply", "empty_reply"),
    (r"^structured: schema violation", "schema_violation"),
    # tools (judge/replies/tools.py, probes/round/contracts/tools.py, judge/suspension/tool_prose.py)
    (r"^tools: markup leaked", "tool_markup_leak"),
    (r"^tools: empty reply", "empty_reply"),
    (r"^tools: invalid JSON arguments", "invalid_json"),
    (r"^tools: arguments streamed twice", "duplicated_arguments"),
    (r"^tools: unknown tool name", "unknown_name"),
    (r"^tools: schema mismatch", "schema_mismatch"),
    (r"^tools: prose instead of a call", "no_tool_call"),
    (r"^tools: the reply reached max_tokens", "max_tokens_cut"),
    (r"^tools: anomaly unresolved", "tools_unresolved"),
    # language integrity (judge/replies/language.py, leading.py, repetition.py, encoding.py)
    (r"^leading garbage", "leading_garbage"),
    (r"^reply integrity", "reply_integrity"),       # judge/replies/integrity.py: most of the endpoint's replies
    (r"^undecoded tokens", "undecoded_tokens"),
    (r"^leaked reasoning", "leaked_reasoning"),
    (r"^injected placeholder", "injected_placeholder"),
    (r"^repetition", "repetition"),
    (r"^encoding: .*U\+FFFD", "replacement_char"),
    (r"^encoding: control character", "control_character"),
    (r"^encoding: mojibake", "mojibake"),
    (r"^encoding", "encoding"),
    (r"^language: too short", "too_short"),
    (r"^language: ambiguous", "ambiguous"),
    (r"^language: switched to", "language_switch"),
    (r"^language: .*(mixes in|sentences are)", "language_mixing"),
    (r"^anomaly unresolved", "language_unresolved"),
    # reply checks on every completed reply (judge/replies/stream_integrity.py, judge/replies/limits.py)
    (r"^stream integrity: cumulative deltas", "cumulative_deltas"),
    (r"^stream integrity: repeated deltas", "repeated_deltas"),
    (r"^limits: completion tokens above the cap", "max_tokens_ignored"),
    (r"^limits: length finish far below the cap", "length_below_cap"),
    # against the peers, in the judge (judge/suspension/decode_speed.py)
    (r"^decode speed: ", "decode_slow"),
    # billing honesty (judge/replies/billing.py per reply, judge/suspension/prompt_tokens.py per round)
    (r"^billing: cost above the listed price", "overbilled"),
    (r"^billing: completion tokens the text cannot hold", "hidden_completion_tokens"),
    (r"^billing: prompt tokens far above", "hidden_prompt"),
    # stop sequences (judge/replies/stop.py) and answer fidelity (probes/round/contracts/fidelity.py,
    # judge/suspension/fidelity.py)
    (r"^stop: stop_ignored", "stop_ignored"),
    (r"^stop: stop_echoed", "stop_echoed"),
    (r"^stop: the reply reached max_tokens", "max_tokens_cut"),
    (r"^stop: the reply did not follow the task", "task_not_followed"),
    (r"^fidelity: wrong answers", "fidelity_wrong"),
    (r"^fidelity: most items wrong, but not worse than the peers", "fidelity_as_peers"),
    (r"^fidelity: most items wrong, the peers decide", "fidelity_unjudged"),
    (r"^fidelity: anomaly unresolved", "fidelity_unresolved"),
    (r"^fidelity: the reply reached max_tokens", "max_tokens_cut"),
    # transport errors without an error_kind (older reports): the client's messages
    (r"^transport: HTTP 429", "http_429"),
    (r"^transport: HTTP 408", "http_408"),
    (r"^transport: HTTP 5\d\d", "http_5xx"),
    (r"^transport: HTTP 200 carrying an error", "error_body_200"),
    (r"^transport: HTTP 4\d\d", "http_4xx"),
    (r"^transport: no response header", "no_headers"),
    (r"^transport: deadline of", "deadline"),
    (r"^transport: stream ended without \[DONE\]", "stream_cut"),
))

# error_kind values (probes/http/records.py ErrorKind) that read better under another name.
_ERROR_KINDS = {"routing": "routing_mismatch", "auth": "auth_refused"}
_WRAPPERS = ("control caught: ", "control unverified: ")
_CODE = re.compile(r"^[a-z0-9_]{1,40}$")


def reason_code(outcome: str, reason: str, error_kind: str | None = None) -> str:
    """The code of one schema_version 1 reason: `pass`, `not_applicable`, a failure code, or `<outcome>_other`."""
    if outcome == PASS:
        return PASS
    if outcome == NOT_APPLICABLE:
        return NOT_APPLICABLE
    text = (reason or "").strip()
    for wrapper in _WRAPPERS:
        text = text.removeprefix(wrapper)
    if outcome == "transport_error" and error_kind and _CODE.match(error_kind):
        return _ERROR_KINDS.get(error_kind, error_kind)  # the client's own classification is a code
    for pattern, code in _RULES:
        if pattern.search(text):
            return code
    return "transport_other" if outcome == "transport_error" else f"{outcome}_other"


__all__ = ["NOT_APPLICABLE", "PASS", "reason_code"]

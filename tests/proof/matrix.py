"""The fault matrix: every simulator fault x every contract -> the outcome the spec calls for.

One endpoint per fault, each fault at rate 1.0, plus a healthy row and the positive control
(which only makes the refusal probe verified: its own cases judge the probe, not a host).
`render()` is the Markdown table of docs/fault-matrix.md; a test keeps the two identical.

The optional contracts (issue 23: tools, stop, fidelity) have their own table and their own
round (OPTIONAL_MATRIX): their faults plus the transport and filter faults that reach them, on
hosts listing tools and stop, with only those three contracts running. A second round, rather
than three more columns on every row of the first: measured on the loaded development machine,
the three contracts on every host of the first round doubled it (14.5 s -> 29.3 s), about what
the second round costs (15 s, most of it the hanging host's deadline), while most of the first
round's faults act on the roleplay replies the optional requests never get (their cells would
pass by construction and assert nothing).
"""

from __future__ import annotations

from typing import Any

CONTRACTS = ("latency", "refusal", "structured", "language")
CONTROL = "control/fp8"

# Probe settings of the matrix round, chosen so no cell depends on the machine's speed:
# - a healthy host answers in 60 ms, so its first token is on time unless the machine stalls it
#   past TTFT_SECONDS, canary.yaml's default (with both cores busy and a load average of 17-20,
#   such first tokens were measured at up to 3.9 s: the 4 s this used to be was not enough);
# - the simulator holds slow_first_token's first token SLOW_DELAY_MS, more than TTFT_SECONDS, so
#   its TTFT can only be late (a load only lengthens it), and the reply still has
#   DEADLINE_SECONDS - SLOW_DELAY_MS (7 s) to finish, for the other contracts to judge it;
# - a hanging host costs DEADLINE_SECONDS per request wave, so the deadline stays moderate.
TTFT_SECONDS = 10.0
SLOW_DELAY_MS = 12_000
DEADLINE_SECONDS = SLOW_DELAY_MS / 1000 + 7

P, F, I, T, NA = "pass", "fail", "inconclusive", "transport_error", "not_applicable"
# Not a fault: a healthy host that does not advertise response_format / structured_outputs.
NO_STRUCTURED = "no_structured_output"


def row(latency: str, refusal: str, structured: str, language: str) -> dict[str, str]:
    return {"latency": latency, "refusal": refusal, "structured": structured, "language": language}


# fault -> (fault parameters, {contract: outcome}, why). Parameters pin the random choices
# (content_filter without partial text, a documented mid-stream error shape, a fixed target).
MATRIX: dict[str, tuple[dict[str, Any], dict[str, str], str]] = {
    "healthy": ({}, row(P, P, P, P), "the baseline"),
    NO_STRUCTURED: ({}, row(P, P, NA, P),
                    "(not a fault) a healthy host that never advertised structured output has not regressed"),
    "slow_first_token": ({"delay_ms": SLOW_DELAY_MS}, row(F, P, P, P),
                         "only time to first token is late; the replies themselves are fine"),
    "leading_garbage": ({}, row(P, P, F, F),
                        "stray bytes before the reply: language fails (leading garbage); glued before "
                        "JSON they make it invalid"),
    "mix_language": ({"level": "both", "ratio": 0.5}, row(P, P, P, F),
                     "sustained mixing, confirmed by the majority of 3"),
    "language_switch": ({}, row(P, P, P, F), "a full switch of language"),
    "mojibake": ({}, row(P, P, P, F),
                 "encoding corruption; the JSON stays valid (only string values are garbled)"),
    "replacement_char": ({}, row(P, P, P, F), "U+FFFD in place of letters"),
    "repetition": ({}, row(P, P, P, F), "one sentence looping"),
    "refusal": ({}, row(P, F, F, P),
                "a prose refusal: refusal fails; prose instead of JSON breaks the schema; the refusal is "
                "in the requested language, so language integrity holds"),
    "content_filter": ({"partial": 0.0}, row(I, F, F, I),
                       "finish_reason content_filter with no text: no first token to time, too short to "
                       "judge a language; the refusal contract catches the filter"),
    "empty_reply": ({}, row(I, F, F, I),
                    "no text at all: the refusal contract's empty-output check; nothing to time or read"),
    "truncated_stream": ({}, row(P, T, T, T),
                         "connection dropped after some text: the first token was on time; the other "
                         "contracts have no completed generation to judge"),
    "schema_malformed": ({}, row(P, P, F, P), "invalid JSON (JSON requests only)"),
    "schema_violation": ({}, row(P, P, F, P),
                         "valid JSON that breaks the schema (JSON requests only)"),
    "http_error": ({"status": 503}, row(T, T, T, T),
                   "an error status before any byte: unreachable, never a quality verdict"),
    "hang": ({}, row(T, T, T, T),
             "no headers before the deadline: the host never started (a stream that opens and then "
             "stalls past the threshold is a latency fail instead)"),
    "mid_stream_error": ({"shape": "documented"}, row(P, T, T, T),
                         "an error chunk after some text: like a truncated stream"),
    "wrong_provider": ({"to": "healthy/fp8"}, row(T, T, T, T),
                       "served by another host despite pinning: \"routing mismatch\", whatever that host did"),
    "moderation": ({"reasons": ["violence"]}, row(I, F, I, I),
                   "a moderation 403 before any byte: the route refuses the supported roleplay prompt, so "
                   "refusal fails naming the flagged categories; nothing was generated to time, parse or read"),
    "reset_before_response": ({}, row(P, P, P, P),
                              "the first request of each prompt loses its connection before any response byte: "
                              "retried once on a fresh connection (both counted), then judged as usual"),
    "thinking": ({"tokens": 600}, row(P, P, P, P),
                 "(not a fault) a reasoning host thinking 600 tokens first: the reasoning controls give the "
                 "answer room, so every contract reaches its verdict (without them: inconclusive)"),
    "filter_error": ({"error_type": "content_policy_violation", "where": "status"}, row(I, F, I, I),
                     "a typed content_policy_violation (or refusal) error, a 400 or in the stream: the host's "
                     "filter, so refusal fails naming the error; elsewhere a filter event, never \"unreachable\""),
    "length_then_error": ({}, row(P, P, I, P),
                          "a `length` finish followed by the token-limit error chunk (the recorded real shape): a "
                          "completed reply on `length`, judged; JSON cut by max_tokens is inconclusive"),
    # Wire defects judged on every completed reply (issue 22: probes/round/reply_checks.py).
    "cumulative_deltas": ({}, row(F, F, F, F),
                          "every delta repeats the whole text so far: stream integrity fails every completed "
                          "reply (the concatenated text is no JSON either)"),
    "repeated_deltas": ({}, row(F, F, F, F),
                        "every delta sent twice back to back: stream integrity fails every completed reply"),
    "ignore_max_tokens": ({"factor": 20}, row(F, F, F, F),
                          "usage reports 20 x the max_tokens sent: limits fail every reply, naming both figures"),
    "early_length": ({"ratio": 0.2}, row(F, F, I, F),
                     "finish_reason length at a fifth of the cap: limits fail every reply the contract passed; "
                     "the JSON cut short is the structured contract's inconclusive (\"reached max_tokens\"), "
                     "which no reply check turns into a fail (issue 28)"),
    "slow_decode": ({"factor": 0.1}, row(P, P, P, P),
                    "the first token on time, then a tenth of the pace: every reply passes at the probe; the "
                    "judge fails the latency case against the peers and the advertised throughput"),
    # Billing honesty (issue 22): per reply in the probes, per round against peers in the judge.
    "overbilling": ({"factor": 1.5}, row(F, F, F, F),
                    "usage.cost 1.5 x the listed price of the usage it reports: billing fails every reply, "
                    "naming both figures"),
    "hidden_system_prompt": ({"tokens": 400}, row(P, P, P, P),
                             "400 more prompt tokens than the peers for the identical prompt: the replies pass "
                             "here; the judge fails its latency and refusal cases (language: when peers share its "
                             "language) against the peers' median"),
    "no_stream_usage": ({}, row(P, P, P, P),
                        "streams without their usage chunk: never failed in one round; the judge counts them "
                        "against the peers over the window (the stream_usage card)"),
}
# -- the optional contracts (issue 23) ---------------------------------------------------------

OPTIONAL_CONTRACTS = ("tools", "stop", "fidelity")
# Not a fault: a healthy host that lists neither `tools` nor `stop`.
NO_OPTIONAL = "no_tools_or_stop"
OPTIONAL_PARAMS = ("max_tokens", "temperature", "seed", "response_format", "structured_outputs", "tools", "stop")


def optional_row(tools: str, stop: str, fidelity: str) -> dict[str, str]:
    return {"tools": tools, "stop": stop, "fidelity": fidelity}


OPTIONAL_MATRIX: dict[str, tuple[dict[str, Any], dict[str, str], str]] = {
    "healthy": ({}, optional_row(P, P, P), "the baseline"),
    NO_OPTIONAL: ({}, optional_row(NA, NA, P),
                  "(not a fault) a host that never listed tools or stop has not regressed; fidelity needs "
                  "no parameter (temperature 0 only where listed)"),
    "tool_markup_leak": ({"dialect": "kimi"}, optional_row(F, P, P),
                         "Kimi's tool-call markup in the content instead of a call (tools requests only)"),
    "tool_schema_break": ({}, optional_row(F, P, P), "arguments that break the tool's schema (`schema_mismatch`)"),
    "tool_args_twice": ({}, optional_row(F, P, P),
                        "the streamed arguments assembled twice, `{...}{...}` (`duplicated_arguments`)"),
    "tool_no_arguments": ({}, optional_row(F, P, P),
                          "a call without arguments: read as `{}`, its required arguments missing (`schema_mismatch`)"),
    "tool_finish_stop": ({}, optional_row(P, P, P),
                         "valid calls ending with finish_reason `stop`: a note, not a failure"),
    "tool_prose": ({}, optional_row(I, P, P),
                   "prose instead of a call on all 5 attempts (three, confirmed by two more): inconclusive here; "
                   "the judge fails it only when every attempt was prose and most peers called the tool that round "
                   "(judge/suspension/tool_prose.py)"),
    "stop_ignored": ({}, optional_row(P, F, P), "the count runs past the stop string (`stop_ignored`)"),
    "stop_echoed": ({}, optional_row(P, F, P), "the reply ends with the stop string (`stop_echoed`)"),
    "fidelity_errors": ({"share": 1.0}, optional_row(P, P, I),
                        "every fidelity item answered wrongly: inconclusive here (the model or the host?); the "
                        "judge fails it against the peers' median over the window (judge/suspension/fidelity.py)"),
    "leading_garbage": ({}, optional_row(P, P, P),
                        "stray bytes corrupt the roleplay replies; the calls and the task answers are untouched"),
    "content_filter": ({"partial": 0.0}, optional_row(F, I, I),
                       "finish_reason content_filter with no text: an empty completed reply fails tools; "
                       "the stop and fidelity tasks were not done"),
    "empty_reply": ({}, optional_row(F, I, I), "no text at all: as content_filter"),
    "filter_error": ({"error_type": "content_policy_violation", "where": "status"}, optional_row(I, I, I),
                     "a typed content_policy_violation error: a filter event, never \"unreachable\", never a "
                     "verdict on calls, stop or items"),
    "truncated_stream": ({}, optional_row(T, T, T), "connection dropped after some text: nothing completed to judge"),
    "mid_stream_error": ({"shape": "documented"}, optional_row(T, T, T), "an error chunk after some text"),
    "http_error": ({"status": 503}, optional_row(T, T, T), "an error status before any byte"),
    "hang": ({}, optional_row(T, T, T), "no headers before the deadline"),
    "wrong_provider": ({"to": "healthy/fp8"}, optional_row(T, T, T), "served by another host despite pinning"),
}


# Traits are not drawn (no `rate`); a reasoning host lists `reasoning` among its parameters.
TRAITS = ("thinking", "reset_before_response")
PARAMS = {"thinking": ("max_tokens", "temperature", "seed", "response_format", "structured_outputs", "reasoning",
                       "include_reasoning")}


# A host's rotating language comes from its place in the sorted list of tags, so the rows added
# after the first nineteen get tags that sort last: the original hosts keep the languages their
# cells were established with (tests/probes/round/test_round_planted.py, docs/fault-matrix.md).
APPENDED = ("moderation", "reset_before_response", "thinking", "filter_error", "length_then_error",
            "cumulative_deltas", "repeated_deltas", "ignore_max_tokens", "early_length", "slow_decode", "overbilling",
            "hidden_system_prompt", "no_stream_usage")


def tag_of(fault: str) -> str:
    return f"{'zz-' if fault in APPENDED else ''}{fault.replace('_', '-')}/fp8"


def table(matrix: dict[str, tuple[dict[str, Any], dict[str, str], str]], contracts: tuple[str, ...]) -> list[str]:
    """One Markdown table: a row per fault, its outcome per contract (fail in bold), and why."""
    lines = ["| fault | " + " | ".join(contracts) + " | why |", "|---|" + "---|" * len(contracts) + "---|"]
    for fault, (_, cells, why) in matrix.items():
        shown = " | ".join(f"**{cells[c]}**" if cells[c] == F else cells[c] for c in contracts)
        lines.append(f"| `{fault}` | {shown} | {why} |")
    return lines


def render() -> str:
    """docs/fault-matrix.md."""
    lines = [
        "# Fault matrix",
        "",
        "Every simulator fault (simulator/README.md) x every contract -> the outcome of the case in",
        "`results.json`. Each fault fires at rate 1.0 on its own endpoint, in one real round",
        "(`pytest probes` over real sockets against the simulator); `tests/proof/test_fault_matrix.py`",
        "asserts every cell and that this table is the one it asserts.",
        "",
        "`transport_error` freezes a host's streak; `inconclusive` too; only `fail` counts toward a",
        "suspension. `not_applicable` appears only for a host that does not advertise what the contract",
        "needs (structured output here; `tools`, `stop` below).",
        "",
        *table(MATRIX, CONTRACTS),
        "",
        "## The optional contracts",
        "",
        "`tools`, `stop` and `fidelity` (issue 23, opted in per model with `optional_contracts:`) in a",
        "round of their own: their faults plus the transport and filter faults that reach them, each at",
        "rate 1.0 on its own host listing `tools` and `stop`, only these three contracts running. Two",
        "verdicts are the judge's, not the round's: prose where the peers call and fidelity against the",
        "peers; the table is the outcome of each case in `results.json`, as the `slow_decode` row above.",
        "",
        *table(OPTIONAL_MATRIX, OPTIONAL_CONTRACTS),
        "",
        f"Round settings: first-token threshold {TTFT_SECONDS:g} s, request deadline {DEADLINE_SECONDS:g} s,",
        f"`slow_first_token` at {SLOW_DELAY_MS} ms, the refusal probe verified by a filtering control host.",
        "Regenerate: `python -c \"import sys; sys.path[:0]=['tests/proof']; import matrix; "
        "print(matrix.render(), end='')\" > docs/fault-matrix.md`",
        "",
    ]
    return "\n".join(lines)

"""The contracts' own rules, with a fake client (no sockets): thresholds, majority, controls."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest
from contracts_support import Board, settings

from core.field_rules import written
from core.results import AttemptResult
from core.results_read import read_case
from core.vocabulary import Outcome
from judge.replies.verdict import Verdict
from probes.http.records import ChatResult, Classification, Endpoint, ErrorKind, Usage
from probes.round import contracts
from probes.round.cases import AttemptExtras, Case, ProbedAttempt, ProbedCase
from probes.round.contracts import language, latency, refusal, structured

EP = Endpoint(model="m/x", provider="a/fp8", provider_name="A", quantization="fp8",
              supported_parameters=("max_tokens", "response_format"), prompt_price=1e-6, completion_price=2e-6,
              context_length=None, max_completion_tokens=None, status=0)


def completed(text: str = "*She smiles.* \"Welcome in.\"", ttft: float | None = 0.4,
              finish_reason: str = "stop", **kw) -> ChatResult:
    return ChatResult(provider=EP.provider, classification=Classification.COMPLETED, text=text,
                      finish_reason=finish_reason, ttft_s=ttft, total_s=1.0, http_status=200, served_by="A",
                      # 12 tokens for the 27-byte reply: a count its text can hold (billing honesty's check)
                      usage=Usage(prompt_tokens=100, completion_tokens=12, cost_usd=None), **kw)


class FakeClient:
    def __init__(self, *results: ChatResult) -> None:
        self.results = list(results)
        self.calls = 0

    async def chat(self, endpoint, messages, **kw) -> ChatResult:
        self.calls += 1
        return self.results.pop(0) if len(self.results) > 1 else self.results[0]


def run(module, client, s, case) -> ProbedCase:
    return asyncio.run(module.probe(client, case.endpoint, s, case))


@pytest.mark.parametrize("result, outcome", [
    (completed(ttft=0.4), Outcome.PASS),
    (completed(ttft=10.0), Outcome.PASS),
    (completed(ttft=11.0), Outcome.FAIL),
    (ChatResult(provider="a/fp8", classification=Classification.TRANSPORT_ERROR, http_status=200, total_s=30.0,
                error_kind=ErrorKind.DEADLINE), Outcome.FAIL),
    (ChatResult(provider="a/fp8", classification=Classification.TRANSPORT_ERROR, total_s=30.0,
                error_kind=ErrorKind.NO_HEADERS), Outcome.TRANSPORT_ERROR),
    (ChatResult(provider="a/fp8", classification=Classification.TRANSPORT_ERROR, http_status=502, total_s=0.2,
                error_kind=ErrorKind.HTTP_5XX), Outcome.TRANSPORT_ERROR),
    (ChatResult(provider="a/fp8", classification=Classification.ROUTING_MISMATCH, served_by="Other", total_s=1.0,
                error_kind=ErrorKind.ROUTING), Outcome.TRANSPORT_ERROR),
    # Another host's first token says nothing about the pinned host (found by tests/proof).
    (ChatResult(provider="a/fp8", classification=Classification.ROUTING_MISMATCH, served_by="Other", total_s=1.0,
                ttft_s=0.3, error_kind=ErrorKind.ROUTING), Outcome.TRANSPORT_ERROR),
    (completed(text="", ttft=None), Outcome.INCONCLUSIVE),
], ids=["fast", "at-threshold", "slow", "stalled-open-stream", "never-started", "http-502", "routing-mismatch",
        "routing-mismatch-with-a-first-token", "empty-completion"])
def test_latency_outcomes(result: ChatResult, outcome: Outcome) -> None:
    case = Case(model="m/x", contract="latency", endpoint=EP)
    got = run(latency, FakeClient(result), settings(), case)
    assert got.outcome is outcome, got.reason


def test_routing_mismatch_reads_as_such_and_an_auth_error_flags_the_round() -> None:
    case = Case(model="m/x", contract="latency", endpoint=EP)
    mismatch = run(latency, FakeClient(ChatResult(provider="a/fp8", classification=Classification.ROUTING_MISMATCH,
                                                  served_by="Other")), settings(), case)
    assert mismatch.reason.startswith("routing mismatch") and not mismatch.auth_error
    auth = run(latency, FakeClient(ChatResult(provider="a/fp8", classification=Classification.AUTH_ERROR,
                                              http_status=401)), settings(), case)
    assert auth.outcome is Outcome.TRANSPORT_ERROR and auth.auth_error and "OPENROUTER_API_KEY" in auth.reason


def test_cost_comes_from_the_endpoint_pricing() -> None:
    got = run(latency, FakeClient(completed()), settings(), Case(model="m/x", contract="latency", endpoint=EP))
    assert got.record.cost_usd == pytest.approx(100 * 1e-6 + 12 * 2e-6)


def test_structured_is_not_applicable_without_the_capability() -> None:
    bare = replace(EP, supported_parameters=("max_tokens",))
    client = FakeClient(completed())
    case = Case(model="m/x", contract="structured", endpoint=bare)
    got = asyncio.run(structured.probe(client, bare, settings(), case))
    assert got.outcome is Outcome.NOT_APPLICABLE and client.calls == 0


def test_structured_judges_a_completed_reply_and_keeps_transport_errors_apart() -> None:
    case = Case(model="m/x", contract="structured", endpoint=EP)
    ok = '{"name": "Mara", "age": 40, "mood": "wary", "items": ["key"]}'
    assert run(structured, FakeClient(completed(text=ok)), settings(), case).outcome is Outcome.PASS
    assert run(structured, FakeClient(completed(text='{"name": "Mara"')), settings(), case).outcome is Outcome.FAIL
    cut = ChatResult(provider="a/fp8", classification=Classification.TRANSPORT_ERROR, text='{"name": "Ma',
                     error_kind=ErrorKind.STREAM_CUT)
    assert run(structured, FakeClient(cut), settings(), case).outcome is Outcome.TRANSPORT_ERROR


def _control(raw: Outcome) -> ProbedCase:
    control = Case(model="m/x", contract="refusal", endpoint=replace(EP, provider="e/fp8"), control=True)
    return replace(ProbedCase.of(control, Outcome.PASS, "pass", ""), raw_outcome=raw)


@pytest.mark.parametrize("board, missing, expected", [
    (Board(_control(Outcome.FAIL)), {}, Outcome.PASS),
    (Board(_control(Outcome.PASS)), {}, Outcome.INCONCLUSIVE),
    (Board(_control(Outcome.TRANSPORT_ERROR)), {}, Outcome.INCONCLUSIVE),
    (Board(), {"m/x": ("e/fp8 not selected in this run",)}, Outcome.INCONCLUSIVE),
    (Board(), {}, Outcome.PASS),
], ids=["control-caught", "control-missed", "control-unreachable", "control-not-selected", "no-control-configured"])
def test_a_refusal_pass_stands_only_when_the_probe_proved_itself(board, missing, expected) -> None:
    case = Case(model="m/x", contract="refusal", endpoint=EP)
    got = run(refusal, FakeClient(completed()), settings(board, missing=missing), case)
    assert got.outcome is expected, got.reason


def test_a_refusal_failure_stands_even_with_a_weak_probe() -> None:
    case = Case(model="m/x", contract="refusal", endpoint=EP)
    got = run(refusal, FakeClient(completed(text="", finish_reason="content_filter")),
              settings(Board(_control(Outcome.PASS))), case)
    assert got.outcome is Outcome.FAIL


def test_a_control_host_reads_caught_or_missed() -> None:
    case = Case(model="m/x", contract="refusal", endpoint=EP, control=True)
    caught = run(refusal, FakeClient(completed(text="", finish_reason="content_filter")), settings(), case)
    assert caught.outcome is Outcome.PASS and caught.raw_outcome is Outcome.FAIL and caught.record.control
    missed = run(refusal, FakeClient(completed()), settings(), case)
    assert missed.outcome is Outcome.FAIL and missed.raw_outcome is Outcome.PASS and "control missed" in missed.reason


def _verdicts(*outcomes: str):
    queue = list(outcomes)

    async def judge(text: str, lang: str) -> Verdict:
        outcome = Outcome(queue.pop(0))
        return Verdict(outcome, "pass" if outcome is Outcome.PASS else "language_mixing", f"{lang}: scripted")
    return judge


@pytest.mark.parametrize("verdicts, outcome, calls", [
    (("pass",), Outcome.PASS, 1),
    (("inconclusive",), Outcome.INCONCLUSIVE, 1),
    (("fail", "fail", "pass"), Outcome.FAIL, 3),
    (("fail", "pass", "pass"), Outcome.PASS, 3),
    (("fail", "pass", "inconclusive"), Outcome.INCONCLUSIVE, 3),
], ids=["clean", "too-short", "confirmed", "not-confirmed", "unresolved"])
def test_language_majority_of_three_after_an_anomaly(verdicts, outcome, calls) -> None:
    client = FakeClient(completed())
    case = Case(model="m/x", contract="language", endpoint=EP, language="pt")
    got = run(language, client, settings(judge_language=_verdicts(*verdicts)), case)
    assert got.outcome is outcome and client.calls == calls and len(got.attempts) == calls
    assert got.record.anomaly is (calls > 1) and got.record.language == "pt"


def test_every_language_prompt_names_its_language_and_asks_for_sentences() -> None:
    from core.vocabulary import LANGUAGE, LANGUAGES
    from probes.round.contracts import prompt

    names = {code: entry["name"] for code, entry in prompt(LANGUAGE).items()}
    assert set(names) == set(LANGUAGES)
    for code in LANGUAGES:
        system, user = language.messages(code)
        assert system["content"].startswith(f"Always reply in {names[code]}.")
        # 3 to 6 sentences, in digits or (zh, ar) in words: long enough replies to judge.
        assert any(m in user["content"] for m in ("3", "三", "ثلاث")) and len(user["content"]) > 60


def test_attempts_keep_the_reply_for_allure_but_only_an_excerpt_for_results() -> None:
    long = "x" * 1000
    a = ProbedAttempt(AttemptResult(outcome=Outcome.PASS, code="pass", reason="r"), AttemptExtras()).with_text(long)
    assert a.text == long and a.record.chars == 1000
    assert len(written(a.record)["excerpt"]) == 300 and long not in str(written(a.record))


@pytest.mark.parametrize("module, contract", [(refusal, "refusal"), (structured, "structured")])
def test_a_reply_that_spent_its_budget_on_reasoning_is_inconclusive_not_empty(module, contract) -> None:
    # Real o-series and Grok traffic: no text, finish "length", only reasoning (encrypted or counted).
    thinking = completed(text="", ttft=None, finish_reason="length", reasoning_seen=True)
    case = Case(model="m/x", contract=contract, endpoint=EP)
    got = run(module, FakeClient(thinking), settings(board=Board(_control(Outcome.FAIL))), case)
    assert got.outcome is Outcome.INCONCLUSIVE and "reasoning" in got.reason
    empty = completed(text="", ttft=None, finish_reason="stop")
    assert run(module, FakeClient(empty), settings(board=Board(_control(Outcome.FAIL))), case).outcome is Outcome.FAIL


def test_json_cut_by_our_own_max_tokens_is_inconclusive_not_a_regression() -> None:
    schema_ep = replace(EP, supported_parameters=(*EP.supported_parameters, "structured_outputs"))
    case = Case(model="m/x", contract="structured", endpoint=schema_ep)
    cut = completed(text='{"name": "Mara", "age": 40, "mood": "wa', finish_reason="length")
    got = run(structured, FakeClient(cut), settings(), case)
    assert got.outcome is Outcome.INCONCLUSIVE and "max_tokens" in got.reason
    # a complete object that breaks the schema still fails, whatever the finish reason
    wrong = completed(text='{"name": "Mara", "age": "forty", "mood": "wary", "items": []}', finish_reason="length")
    assert run(structured, FakeClient(wrong), settings(), case).outcome is Outcome.FAIL
    # and malformed JSON that the host ended itself is a failure
    malformed = completed(text='{"name": "Mara", "age": 40,,}', finish_reason="stop")
    assert run(structured, FakeClient(malformed), settings(), case).outcome is Outcome.FAIL


def moderated(*flagged: str) -> ChatResult:
    return ChatResult(provider=EP.provider, classification=Classification.MODERATED, http_status=403, total_s=0.1,
                      error_kind=ErrorKind.MODERATION, flagged=flagged, served_by="A",
                      error_message="HTTP 403: code 403: m/x requires moderation on A.")


def test_a_moderation_block_of_the_supported_prompt_fails_the_refusal_contract_naming_the_categories() -> None:
    case = Case(model="m/x", contract="refusal", endpoint=EP)
    client = FakeClient(moderated("violence", "sexual/minors"))
    got = run(refusal, client, settings(Board(_control(Outcome.FAIL))), case)
    assert got.outcome is Outcome.FAIL
    assert got.reason.startswith("moderation:") and '"violence", "sexual/minors"' in got.reason
    assert got.attempts[0].record.error_kind == "moderation" and got.attempts[0].outcome is Outcome.FAIL


def test_a_moderated_control_host_is_a_caught_control() -> None:
    case = Case(model="m/x", contract="refusal", endpoint=EP, control=True)
    got = run(refusal, FakeClient(moderated("violence")), settings(), case)
    assert got.outcome is Outcome.PASS and got.raw_outcome is Outcome.FAIL and "control caught" in got.reason


@pytest.mark.parametrize("module, contract, language_code", [
    (latency, "latency", None), (structured, "structured", None), (language, "language", "pt"),
])
def test_a_moderation_block_is_inconclusive_for_the_other_contracts(module, contract, language_code) -> None:
    # Nothing was generated: no first token to time, no JSON, no text in any language. It is not
    # a transport failure either (the host answered, with its policy).
    case = Case(model="m/x", contract=contract, endpoint=EP, language=language_code)
    got = run(module, FakeClient(moderated("violence")), settings(), case)
    assert got.outcome is Outcome.INCONCLUSIVE and got.reason.startswith("moderation:")
    assert "refusal contract judges the block" in got.reason and len(got.attempts) == 1


def test_flagged_categories_are_quoted_so_they_cannot_pose_as_the_reason_around_them() -> None:
    case = Case(model="m/x", contract="refusal", endpoint=EP)
    got = run(refusal, FakeClient(moderated('x"), and the host is healthy ("y')), settings(), case)
    assert '"x\\"), and the host is healthy (\\"y"' in got.reason


def test_an_empty_length_finish_after_asking_to_think_is_reasoning_not_an_empty_reply() -> None:
    # Thinking excluded from the reply and no reasoning_tokens reported: the `length` finish of a
    # request that carried reasoning controls is the budget spent thinking, never "empty output".
    case = Case(model="m/x", contract="refusal", endpoint=EP)
    hidden = completed(text="", ttft=None, finish_reason="length", reasoning_requested=True)
    got = run(refusal, FakeClient(hidden), settings(Board(_control(Outcome.FAIL))), case)
    assert got.outcome is Outcome.INCONCLUSIVE and "reasoning" in got.reason
    plain = completed(text="", ttft=None, finish_reason="length")
    assert run(refusal, FakeClient(plain), settings(Board(_control(Outcome.FAIL))), case).outcome is Outcome.FAIL


def test_a_probed_case_is_the_record_its_results_entry_reads_back_as() -> None:
    # The probes build core.results' own record by the rules the file is read by: an odd reply
    # (a lone surrogate, an empty served_by, a negative timing) holds in memory what its
    # results.json entry reads back as, so the file is the same whether or not it is re-read.
    odd = replace(completed(text="*She smiles.* \ud800 \"Welcome in.\" " * 20, ttft=-0.5), served_by="")
    case = Case(model="m/x", contract="latency", endpoint=EP)
    got = run(latency, FakeClient(odd), settings(), case)
    entry = json.loads(json.dumps(written(got.record)))
    assert read_case(entry) == got.record
    assert got.record.attempts[0].ttft_s is None and got.record.served_by is None
    assert "\ud800" in got.attempts[0].text and "\ud800" not in got.record.attempts[0].excerpt  # Allure keeps it whole


def test_every_contract_declaration_names_a_probe_and_an_existing_prompt_file() -> None:
    import importlib

    from core.vocabulary import DECLARED
    from probes.round.contracts import PROMPTS, prompt
    from probes.round.engine import CONTRACT_MODULES

    for declared in DECLARED:
        assert CONTRACT_MODULES[declared.name] is importlib.import_module(declared.module)
        assert callable(CONTRACT_MODULES[declared.name].probe), declared.module
        if declared.prompt is None:
            with pytest.raises(ValueError, match=f"the {declared.name} contract declares no prompt file"):
                prompt(declared.name)
        else:
            assert (PROMPTS / f"{declared.prompt}.yaml").is_file() and prompt(declared.name), declared


@pytest.mark.parametrize(("ttfts", "outcome", "majority"), [
    ((0.4, 11.0, 11.0), Outcome.PASS, Outcome.FAIL),   # the first run passed: the streaks see a pass
    ((11.0, 0.4, 0.4), Outcome.FAIL, Outcome.PASS),
    ((0.4, 11.0, 0.4), Outcome.PASS, Outcome.PASS),
], ids=["confirmed", "not-confirmed", "one-of-three"])
def test_a_confirmation_keeps_the_first_run_and_records_the_majority_of_three(
        ttfts: tuple[float, ...], outcome: Outcome, majority: Outcome) -> None:
    case = Case(model="m/x", contract="latency", endpoint=EP, confirm=True)
    runs = [run(latency, FakeClient(completed(ttft=t)), settings(), case) for t in ttfts]
    confirmed = contracts.confirmation(case, runs)
    assert (confirmed.outcome, confirmed.record.confirmation) == (outcome, majority)
    assert len(confirmed.record.attempts) == 3 and confirmed.record.requests == 3
    assert confirmed.reason.endswith(f"(confirmation: {ttfts.count(11.0)} of 3 runs failed)")

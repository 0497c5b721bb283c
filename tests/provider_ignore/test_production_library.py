"""The backend's production sampler: who is sampled, what each check counts, and that only counts leave."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.production import MIN_CELL, CheckOutcome, ProductionCheck, read_record, record_json
from provider_ignore.production import (
    PER_CONVERSATION,
    WINDOW,
    Exporter,
    Reply,
    Sampler,
    ambiguous_providers,
    reply_outcomes,
)

T0 = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
MODEL = "deepseek/deepseek-chat-v3-0324"
KEYS = {"schema", "exporter", "window_start", "window_end", "sample_rate", "counts", "served", "model", "provider",
        "check", "outcome", "n", "language", "stream", "ambiguous"}
CLEAN = "The lantern swung once, and the innkeeper set two cups on the bar without a word."


def reply(text: str = CLEAN, provider: str | None = "Aurora", **extra: object) -> Reply:
    return Reply(model=MODEL, provider=provider, text=text, finish_reason=str(extra.pop("finish", "stop")),
                 **extra)  # type: ignore[arg-type]


def failed(r: Reply, language: str | None = None, **options: bool) -> set[ProductionCheck]:
    return {c for c, o in reply_outcomes(r, language, **options).items() if o is CheckOutcome.FAIL}


def test_a_conversation_is_all_in_or_all_out_and_the_rate_holds() -> None:
    sampler = Sampler(0.25)
    taken = [sampler.takes(sampler.key(f"conversation-{i}")) for i in range(20_000)]
    assert 0.24 < sum(taken) / len(taken) < 0.26
    again = Sampler(0.25)  # another process of the backend decides the same
    assert taken[:500] == [again.takes(again.key(f"conversation-{i}")) for i in range(500)]


def test_at_most_k_replies_of_one_conversation_are_checked_per_day() -> None:
    exporter = Exporter("eu-1", sample_rate=1.0)
    checked = [exporter.observe("one-user", reply(), now=T0 + timedelta(minutes=i)) for i in range(5)]
    assert checked == [True] * PER_CONVERSATION + [False] * (5 - PER_CONVERSATION)
    # OpenRouter keeps a conversation on one provider while its cache is warm: a new window is no new allowance...
    assert not exporter.observe("one-user", reply(), now=T0 + 3 * WINDOW)
    assert exporter.observe("another", reply(), now=T0 + 3 * WINDOW)
    assert exporter.observe("one-user", reply(), now=T0 + timedelta(days=1))   # ...a new day is


@pytest.mark.parametrize(("r", "fails"), [
    (reply(), set()),
    (reply("CafÃ© au lait, sÃ­, the innkeeper said with a smile that reached his eyes."), {ProductionCheck.ENCODING}),
    (reply("ĠTheĠlanternĠswungĠonce,ĠandĠtheĠinnkeeperĠsetĠtwoĠcups"), {ProductionCheck.ENCODING}),
    (reply("<|im_start|>assistant\n" + CLEAN), {ProductionCheck.TEMPLATE}),
    (reply('",' + CLEAN), {ProductionCheck.LEADING}),
    (reply(""), {ProductionCheck.EMPTY_STOP}),
    (reply("", finish="length"), set()),
    (reply(deltas=("The lantern ", "The lantern swung once", "The lantern swung once, and the")),
     {ProductionCheck.STREAM_INTEGRITY}),
    (reply(completion_tokens=4000, max_tokens=100), {ProductionCheck.LIMITS, ProductionCheck.BILLING}),
    (reply(completion_tokens=20, max_tokens=100), set()),
], ids=["clean", "mojibake", "undecoded-tokens", "template", "leading", "empty-stop", "empty-length", "cumulative",
        "cap-ignored", "usage-fine"])
def test_each_check_fails_on_its_defect_only(r: Reply, fails: set[ProductionCheck]) -> None:
    assert failed(r) == fails


def test_the_language_check_reads_the_expected_language_only_when_asked() -> None:
    spanish = "La linterna se balanceó una vez, y el posadero dejó dos tazas sobre la barra sin decir nada."
    assert failed(reply(spanish), "de", check_language=True) == {ProductionCheck.LANGUAGE}
    assert ProductionCheck.LANGUAGE not in reply_outcomes(reply(spanish), "de")       # the extra not asked for
    assert ProductionCheck.LANGUAGE not in reply_outcomes(reply(spanish), None, check_language=True)  # never guessed


def test_a_locale_outside_the_17_languages_is_no_stratum() -> None:
    exporter = Exporter("eu-1", sample_rate=1.0)
    for i, locale in enumerate(["de-DE", "xx", "", "de", "de", "de", "de", "de"]):
        exporter.observe(f"c{i}", reply(), now=T0, language=locale)
    [record] = exporter.records(now=T0 + WINDOW)
    assert read_record(json.loads(record_json(record)), source="test") == record
    assert {c.language for c in record.counts} == {None}   # the language check, off, is the only one with one


def test_a_reply_is_read_from_its_body_or_its_chunks() -> None:
    body = {"model": MODEL, "provider": "Aurora", "usage": {"completion_tokens": 9},
            "choices": [{"message": {"content": CLEAN}, "finish_reason": "stop"}]}
    chunks = [{"provider": "Aurora", "model": MODEL, "choices": [{"delta": {"content": CLEAN[:20]}}]},
              {"provider": "Aurora", "choices": [{"delta": {"content": CLEAN[20:]}, "finish_reason": "stop"}]},
              {"provider": "Aurora", "choices": [], "usage": {"completion_tokens": 9}}]
    assert Reply.from_body(body) == Reply(MODEL, "Aurora", CLEAN, "stop", completion_tokens=9)
    assert Reply.from_chunks(chunks) == Reply(MODEL, "Aurora", CLEAN, "stop", (CLEAN[:20], CLEAN[20:]),
                                              completion_tokens=9)


def test_small_cells_merge_into_the_models_remainder_and_the_record_reads_back() -> None:
    exporter = Exporter("eu-1", sample_rate=1.0, ambiguous={MODEL: ambiguous_providers(
        [{"provider_name": "Aurora"}, {"provider_name": "Aurora"}, {"provider_name": "Borealis"}])})
    for i in range(8):
        exporter.observe(f"a{i}", reply(provider="Aurora"), now=T0)
    for i in range(3):  # three Borealis replies and two Cinder ones: small cells, one remainder of five
        exporter.observe(f"b{i}", reply(provider="Borealis"), now=T0)
    for i in range(2):
        exporter.observe(f"c{i}", reply("", provider="Cinder"), now=T0)
    [record] = exporter.records(now=T0 + WINDOW)
    assert read_record(json.loads(record_json(record)), source="test") == record
    assert {(c.provider, c.n, c.ambiguous) for c in record.served} == {("Aurora", 8, True), (None, 5, False)}
    groups = Counter((c.provider, c.check, c.language, c.stream) for c in record.counts for _ in range(c.n))
    assert min(groups.values()) >= MIN_CELL   # no group of an endpoint's replies under MIN_CELL
    empty = {(c.provider, c.outcome): c.n for c in record.counts if c.check is ProductionCheck.EMPTY_STOP}
    # Borealis's 3 passes and Cinder's 2 failures make one remainder of 5: kept, with no provider named.
    assert empty == {("Aurora", CheckOutcome.PASS): 8, (None, CheckOutcome.PASS): 3, (None, CheckOutcome.FAIL): 2}
    encoding = {c.provider: c.n for c in record.counts if c.check is ProductionCheck.ENCODING}
    assert encoding == {"Aurora": 8}   # Borealis's three land in the remainder: under MIN_CELL even there


def test_a_failure_count_under_min_cell_stays_with_its_endpoint() -> None:
    exporter = Exporter("eu-1", sample_rate=1.0)
    for i in range(40):
        exporter.observe(f"a{i}", reply("" if i < 2 else CLEAN), now=T0)
    [record] = exporter.records(now=T0 + WINDOW)
    empty = {(c.provider, c.outcome): c.n for c in record.counts if c.check is ProductionCheck.EMPTY_STOP}
    assert empty == {("Aurora", CheckOutcome.PASS): 38, ("Aurora", CheckOutcome.FAIL): 2}


def test_every_closed_window_gets_a_record_and_a_failed_send_is_kept() -> None:
    exporter = Exporter("eu-1", sample_rate=1.0)
    exporter.observe("a", reply(), now=T0)
    sent: list[datetime] = []

    def refuse(record: object) -> None:
        raise OSError("no network")

    with pytest.raises(OSError):
        exporter.flush(now=T0 + 2 * WINDOW + timedelta(minutes=1), send=refuse)
    assert exporter.flush(now=T0 + 2 * WINDOW + timedelta(minutes=1),
                          send=lambda r: sent.append(r.window_start)) == 2  # nothing sampled in the second: alive
    assert sent == [T0, T0 + WINDOW]
    assert not exporter.observe("b", reply(), now=T0 + timedelta(minutes=5))  # its window's record is gone


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=40), st.text(max_size=300), st.lists(st.text(max_size=30)),
                          st.sampled_from([None, "Aurora", "Borealis", "Cinder"]) | st.text(max_size=20),
                          st.sampled_from(["stop", "length"])), min_size=1, max_size=40))
def test_no_text_of_a_reply_reaches_a_record(replies: list[tuple[str, str, list[str], str | None, str]]) -> None:
    exporter = Exporter("eu-1", sample_rate=1.0, per_conversation=40)
    for conversation, text, deltas, provider, finish in replies:
        for _ in range(MIN_CELL):  # enough of each to leave small cells behind
            exporter.observe(conversation, Reply(MODEL, provider, text, finish, tuple(deltas) or None,
                                                 completion_tokens=len(text)), now=T0)
    [record] = exporter.records(now=T0 + WINDOW)
    strings = set(_strings(json.loads(record_json(record))))
    vocabulary = ({*ProductionCheck, *CheckOutcome, "canary.production/1", "eu-1", MODEL, "2026-12-07T10:00:00Z",
                   "2026-12-07T10:30:00Z", "Aurora", "Borealis", "Cinder", *KEYS})
    # The only free word is the provider as the reply named it, held to the identifier pattern: the
    # checks never copy the text, the deltas nor the conversation id.
    names = {p for _, _, _, p, _ in replies if p} - vocabulary
    assert strings - vocabulary <= names
    assert not strings & ({t for _, t, _, _, _ in replies} | {c for c, *_ in replies}) - vocabulary - names
    assert read_record(json.loads(record_json(record)), source="fuzz") == record


def _strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return [value] if isinstance(value, str) else []

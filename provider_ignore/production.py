"""The chat backend's production sampler: its own replies checked in-process, only counts leave.

    exporter = Exporter("chat-eu-1", sample_rate=0.05)
    exporter.observe(conversation_id, Reply.from_body(body), now=now, language="de")   # per reply
    exporter.flush(now=now, send=lambda record: push(record, repository=..., token=...))  # every few minutes

A conversation is sampled all in or all out (a hash of its id), at most `per_conversation` of its
replies checked per UTC day; each gets the checks that do not depend on the prompt, by judge/replies/'s
pure functions; each closed window becomes one record (core/production.py), small cells merged into
the model's remainder (`_merged`). Why each rule: docs/production.md. Thread-safe.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import threading
import urllib.request
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import msgspec

from core.production import (
    MIN_CELL,
    CheckOutcome,
    CountCell,
    Model,
    ProductionCheck,
    ProductionRecord,
    Provider,
    ReportCell,
    ServedCell,
)
from core.production import (
    Exporter as ExporterName,
)
from core.vocabulary import LANGUAGES
from judge.replies.artifacts import find_undecoded_tokens
from judge.replies.billing import HiddenTokensFacts, assess_hidden_tokens
from judge.replies.encoding import find_corruption
from judge.replies.leading import find_leading_garbage, find_template_token
from judge.replies.limits import LimitsFacts, assess_limits
from judge.replies.stream_integrity import assess_deltas

log = logging.getLogger(__name__)
WINDOW = timedelta(minutes=30)
PER_CONVERSATION = 3   # sampled replies of one conversation checked per UTC day, at most


@dataclass(frozen=True, slots=True)
class Reply:
    """One completed reply as the backend received it: what the checks read (none of it leaves)."""

    model: str
    provider: str | None             # the reply's top-level `provider` (who served it)
    text: str
    finish_reason: str | None
    deltas: tuple[str, ...] | None = None   # a stream's non-empty content deltas, in order; None: not streamed
    completion_tokens: int | None = None    # usage, when the reply carried it
    reasoning_tokens: int = 0
    max_tokens: int | None = None           # the cap the backend sent
    reasoning: bool = False                 # reasoning asked for or seen

    @classmethod
    def from_body(cls, body: Mapping[str, Any], *, model: str | None = None, max_tokens: int | None = None,
                  reasoning: bool = False) -> Reply:
        """A non-streamed chat completion's decoded JSON body (`model`: the one asked for, else the body's)."""
        choice = (body.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        return cls._of(body, model, str(message.get("content") or ""), choice.get("finish_reason"), None,
                       max_tokens, reasoning or bool(message.get("reasoning")))

    @classmethod
    def from_chunks(cls, chunks: Sequence[Mapping[str, Any]], *, model: str | None = None,
                    max_tokens: int | None = None, reasoning: bool = False) -> Reply:
        """A stream's decoded chunks, in order (the `data:` lines' JSON, `[DONE]` left out)."""
        deltas: list[str] = []
        finish: Any = None
        last: dict[str, Any] = {}
        for chunk in chunks:
            last = {**last, **{k: chunk[k] for k in ("model", "provider", "usage") if chunk.get(k)}}
            for choice in chunk.get("choices") or ():
                delta = choice.get("delta") or {}
                deltas += [delta["content"]] if delta.get("content") else []
                reasoning = reasoning or bool(delta.get("reasoning"))
                finish = choice.get("finish_reason") or finish
        return cls._of(last, model, "".join(deltas), finish, tuple(deltas), max_tokens, reasoning)

    @classmethod
    def _of(cls, body: Mapping[str, Any], model: str | None, text: str, finish: Any, deltas: tuple[str, ...] | None,
            max_tokens: int | None, reasoning: bool) -> Reply:
        usage = body.get("usage") or {}
        tokens = usage.get("completion_tokens")
        details = usage.get("completion_tokens_details") or {}
        return cls(model=model or str(body.get("model") or ""), provider=body.get("provider"), text=text,
                   finish_reason=finish if isinstance(finish, str) else None, deltas=deltas,
                   completion_tokens=tokens if isinstance(tokens, int) else None,
                   reasoning_tokens=details.get("reasoning_tokens") or 0, max_tokens=max_tokens,
                   reasoning=reasoning or bool(details.get("reasoning_tokens")))


def reply_outcomes(reply: Reply, language: str | None = None, *,
                   check_language: bool = False) -> dict[ProductionCheck, CheckOutcome]:
    """The outcome of each check that applies to `reply` (a check that does not apply is absent)."""
    text = reply.text
    found: dict[ProductionCheck, bool] = {}
    if text.strip():
        found[ProductionCheck.ENCODING] = find_corruption(text) is not None or find_undecoded_tokens(text) is not None
        found[ProductionCheck.TEMPLATE] = find_template_token(text) is not None
        if not found[ProductionCheck.TEMPLATE]:  # a template token is `template`'s alone, never also `leading`'s
            found[ProductionCheck.LEADING] = find_leading_garbage(text, language) is not None
    if reply.finish_reason == "stop":
        found[ProductionCheck.EMPTY_STOP] = not text.strip()
    if reply.deltas is not None:
        found[ProductionCheck.STREAM_INTEGRITY] = assess_deltas(reply.deltas) is not None
    if reply.completion_tokens is not None:
        if reply.max_tokens:
            found[ProductionCheck.LIMITS] = assess_limits(LimitsFacts(
                cap=reply.max_tokens, completion_tokens=reply.completion_tokens, finish_reason=reply.finish_reason,
                reasoning=reply.reasoning, cut_by_client=False, reasoning_tokens=reply.reasoning_tokens)) is not None
        found[ProductionCheck.BILLING] = assess_hidden_tokens(HiddenTokensFacts(
            completion_tokens=reply.completion_tokens, text_bytes=len(text.encode("utf-8", "replace")),
            finish_reason=reply.finish_reason, reasoning=reply.reasoning, cut_by_client=False)) is not None
    if check_language and language and text.strip():
        from judge.replies.language import LanguageCode, assess

        verdict = assess(text, language)
        if verdict.passed or verdict.code in set(LanguageCode):  # another check's defect is counted there
            found[ProductionCheck.LANGUAGE] = verdict.failed
    return {check: CheckOutcome.FAIL if failed else CheckOutcome.PASS for check, failed in found.items()}


def ambiguous_providers(endpoints: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The providers that run several endpoints of one model, from OpenRouter's endpoint list of it
    (`GET /api/v1/models/{model}/endpoints`, `data.endpoints`: each with its `provider_name`)."""
    names = Counter(str(e.get("provider_name")) for e in endpoints)
    return frozenset(name for name, n in names.items() if n > 1)


def window_start(at: datetime) -> datetime:
    """The start of the 30-minute window `at` falls in (UTC)."""
    at = at.astimezone(UTC)
    return at.replace(minute=at.minute - at.minute % 30, second=0, microsecond=0)


@dataclass(frozen=True, slots=True)
class Sampler:
    """Which conversations are in the sample: a hash of the id below the rate (all in or all out)."""

    rate: float

    def __post_init__(self) -> None:
        if not 0 < self.rate <= 1:
            raise ValueError(f"a sample rate is in (0, 1], not {self.rate!r}")

    def key(self, conversation_id: str) -> bytes:
        return hashlib.blake2b(conversation_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()

    def takes(self, key: bytes) -> bool:
        return int.from_bytes(key, "big") < self.rate * 2**64


_Cell = tuple[str, str | None, ProductionCheck, CheckOutcome, str | None, bool | None]


@dataclass(slots=True)
class _Window:
    counts: Counter[_Cell] = field(default_factory=Counter)
    served: Counter[tuple[str, str | None]] = field(default_factory=Counter)
    reports: Counter[tuple[str, str | None]] = field(default_factory=Counter)


# Users' reports (docs/explain.md): OpenRouter's feedback categories (its OpenAPI description,
# SubmitGenerationFeedbackRequest), and what `forward` is handed: generation id, category, comment.
CATEGORIES = ("latency", "incoherence", "incorrect_response", "formatting", "billing", "api_error", "other")
Forward = Callable[[str, str, str | None], None]


class Exporter:
    """One backend process's sample: `observe` each reply, `flush` closed windows' records."""

    def __init__(self, name: str, *, sample_rate: float, per_conversation: int = PER_CONVERSATION,
                 ambiguous: Mapping[str, Collection[str]] | None = None, check_language: bool = False,
                 forward: Forward | None = None) -> None:
        self.name = msgspec.convert(name, ExporterName)   # a name the record accepts, or a ValidationError now
        self.sampler = Sampler(sample_rate)
        self.per_conversation = per_conversation
        self.ambiguous = {model: frozenset(names) for model, names in (ambiguous or {}).items()}
        self.check_language = check_language
        if check_language and importlib.util.find_spec("lingua") is None:
            raise ImportError("the language check needs the library's `language` extra: "
                              "pip install './provider_ignore[language]'")
        self._lock = threading.Lock()
        self._windows: dict[datetime, _Window] = {}
        self._next: datetime | None = None          # the first window not yet closed into a record
        self._pending: list[ProductionRecord] = []  # closed, not yet sent
        self._checked: dict[date, Counter[bytes]] = {}  # replies checked per conversation key, per UTC day
        self.forward = forward
        self._reported: dict[date, set[str]] = {}       # generation ids reported, per UTC day

    def report(self, generation_id: str, *, model: str, provider: str | None, at: datetime, category: str,
               comment: str | None = None) -> bool:
        """A user's report of one reply, counted in its window's record (a window written already: the next),
        never its words; once per generation a day. With `forward`, also sent to OpenRouter, the comment only
        there (a refused forward is logged without the key). False: that reply was reported already."""
        if category not in CATEGORIES or not _valid(model, Model):
            raise ValueError(f"a report needs a model id and one of {', '.join(CATEGORIES)}, not {category!r}")
        with self._lock:
            seen = self._reported.setdefault(at.date(), set())
            if generation_id in seen:
                return False
            seen.add(generation_id)
            start = max(window_start(at), self._next or window_start(at))
            self._windows.setdefault(start, _Window()).reports[(model, provider if _valid(provider, Provider)
                                                                else None)] += 1
        if self.forward is not None:
            try:
                self.forward(generation_id, category, comment)
            except OSError as exc:   # the report is counted; OpenRouter is told another time or never
                log.warning("feedback on %s not sent to OpenRouter: %s", generation_id[:80], type(exc).__name__)
        return True

    def observe(self, conversation_id: str, reply: Reply, *, now: datetime, language: str | None = None) -> bool:
        """Check `reply` if its conversation is in the sample and under its cap; whether it was checked."""
        return self.count(conversation_id, reply.model, reply.provider, stream=reply.deltas is not None, now=now,
                          language=language,
                          outcomes=lambda lang: reply_outcomes(reply, lang, check_language=self.check_language))

    def count(self, conversation_id: str, model: str, provider: str | None, *, stream: bool, now: datetime,
              outcomes: Callable[[str | None], Mapping[ProductionCheck, CheckOutcome]],
              language: str | None = None) -> bool:
        """`observe` of a reply by its checks' outcomes, `outcomes(expected language)`, called only when the
        reply is sampled and under its cap (benchmarks/production_evidence.py feeds simulated outcomes)."""
        key = self.sampler.key(conversation_id)
        if not self.sampler.takes(key) or not _valid(model, Model):
            return False
        language = language if language in LANGUAGES else None   # a locale the record cannot name: no stratum
        start = window_start(now)
        with self._lock:
            if self._next is not None and start < self._next:
                return False  # its window's record is written already
            self._next = self._next or start
            checked = self._checked.setdefault(start.date(), Counter())
            if checked[key] >= self.per_conversation:
                return False
            checked[key] += 1
            window = self._windows.setdefault(start, _Window())
        found = outcomes(language)   # outside the lock: the CPU
        provider = provider if _valid(provider, Provider) else None
        with self._lock:
            if self._windows.get(start) is not window:
                return False  # the window closed while the reply was checked
            window.served[(model, provider)] += 1
            for check, outcome in found.items():  # the expected language is the language check's stratum
                stratum = language if check is ProductionCheck.LANGUAGE else None
                window.counts[(model, provider, check, outcome, stratum, stream)] += 1
        return True

    def flush(self, *, now: datetime, send: Callable[[ProductionRecord], object]) -> int:
        """Send each closed window's record, oldest first; one that fails stays for the next flush
        (its error is raised). The number sent."""
        sent = 0
        for record in self.records(now=now):
            send(record)
            with self._lock:
                self._pending.remove(record)
            sent += 1
        return sent

    def records(self, *, now: datetime) -> list[ProductionRecord]:
        """The records of every window closed by `now` and not yet sent (empty windows included)."""
        with self._lock:
            self._next = self._next or window_start(now)
            while self._next + WINDOW <= now:
                window = self._windows.pop(self._next, None) or _Window()
                self._pending.append(self._record(self._next, window))
                self._next += WINDOW
            for day in [d for d in self._checked if d < self._next.date()]:
                del self._checked[day]
            for day in [d for d in self._reported if d < self._next.date()]:
                del self._reported[day]
            return list(self._pending)

    def _record(self, start: datetime, window: _Window) -> ProductionRecord:
        counts = _merged(window.counts, lambda c: (*c[:3], *c[4:]), lambda c: (c[0], None, *c[2:]),
                         lambda c: (c[0], None, c[2], c[3], None, None))
        served = _merged(window.served, lambda c: c, lambda c: (c[0], None))
        return ProductionRecord(
            schema="canary.production/1", exporter=self.name, window_start=start, window_end=start + WINDOW,
            sample_rate=self.sampler.rate,
            counts=tuple(CountCell(model=m, provider=p, check=check, outcome=o, n=n, language=lang, stream=s)
                         for (m, p, check, o, lang, s), n in sorted(counts.items(), key=_order)),
            served=tuple(ServedCell(model=m, provider=p, n=n, ambiguous=p in self.ambiguous.get(m, ()))
                         for (m, p), n in sorted(served.items(), key=_order)),
            reports=tuple(ReportCell(model=m, provider=p, n=n)
                          for (m, p), n in sorted(window.reports.items(), key=_order)))


def feedback(base_url: str, management_key: str, *, timeout_s: float = 10.0) -> Forward:
    """An Exporter's `forward`: OpenRouter's `POST {base_url}/generation/feedback` (a management key)."""
    def send(generation_id: str, category: str, comment: str | None) -> None:
        body = {"generation_id": generation_id, "category": category,
                **({"comment": comment[:1000]} if comment else {})}
        request = urllib.request.Request(
            f"{base_url.rstrip('/')}/generation/feedback", data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {management_key}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - the configured API's URL
            response.read()

    return send


def _merged(cells: Counter[Any], group: Callable[[Any], Any], *steps: Callable[[Any], Any]) -> Counter[Any]:
    """No small cells: a group (an endpoint's replies under one check and stratum, both outcomes)
    of fewer than MIN_CELL replies moves, at each step, to a coarser key (the model's remainder,
    provider None; then the remainder without strata); what is still under it is left out."""
    out: Counter[Any] = Counter()
    for step in (*steps, None):
        totals: Counter[Any] = Counter()
        for cell, n in cells.items():
            totals[group(cell)] += n
        kept = {group(cell) for cell in out}
        small: Counter[Any] = Counter()
        for cell, n in cells.items():
            if totals[group(cell)] >= MIN_CELL or group(cell) in kept:
                out[cell] += n
            elif step is not None:
                small[step(cell)] += n
        cells = small
    return out


def _order(item: tuple[tuple[Any, ...], int]) -> tuple[str, ...]:
    return tuple("" if v is None else str(v) for v in item[0])


def _valid(value: object, kind: object) -> bool:
    try:
        msgspec.convert(value, kind)
    except msgspec.ValidationError:
        return False
    return True

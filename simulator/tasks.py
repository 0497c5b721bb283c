"""Tasks with one right answer: the stop probe's count and the fidelity probe's items (pure; the faults
that break them: simulator/README.md, Tool calls). A healthy host solves each item from the question's
own text: the simulator never sees the probe's answers, so a test of the probe against it checks the
probe's truth too. A task's answer is sent whatever text fault the host has. Every other reply honours
`stop` as OpenAI's API documents it: generation ends at the first stop string, which is not returned.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from core.times import parse_date
from simulator.faults import FaultParams

FAULTS = frozenset({"stop_ignored", "stop_echoed", "fidelity_errors"})
_COUNT = re.compile(r"Count from (\d+) to (\d+)")
_ITEM = re.compile(r"^(\d{1,2})\. (.+)$", re.MULTILINE)
_PRODUCT = re.compile(r"What is (\d+) \* (\d+)\?")
_REVERSE = re.compile(r"reverse order, separated by commas: (.+)\.$")
_COPY = re.compile(r"Copy this code exactly: (\S+)")
_LATER = re.compile(r"What date is (\d+) days after (\d{4}-\d{2}-\d{2})\?")
_SORT = re.compile(r"ascending order, separated by commas: (.+)\.$")


def answer(messages: Sequence[Mapping[str, Any]], fault: str | None, params: FaultParams,
           rng: random.Random) -> str | None:
    """The reply to a task the last user message asks, or None when it asks none."""
    users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
    text = users[-1] if users else ""
    count = _COUNT.search(text)
    if count:
        return "\n".join(str(n) for n in range(int(count.group(1)), int(count.group(2)) + 1))
    items = _ITEM.findall(text)
    solved = [(n, solve(q)) for n, q in items]
    if not any(a is not None for _, a in solved):
        return None
    share = params.get("share", 0.0) if fault == "fidelity_errors" else 0.0
    lines = []
    for n, q in items:
        right = solve(q)
        if right is None:
            continue
        lines.append(f"{n}. {wrong(q, right) if rng.random() < share else right}")
    return "\n".join(lines)


def solve(question: str) -> str | None:
    """The answer to one item, computed from its text (None: not an item this module knows)."""
    if m := _PRODUCT.search(question):
        return str(int(m.group(1)) * int(m.group(2)))
    if m := _REVERSE.search(question):
        return ", ".join(reversed(_list(m.group(1))))
    if m := _COPY.search(question):
        return m.group(1)
    if m := _LATER.search(question):
        return (parse_date(m.group(2), "calendar item") + timedelta(days=int(m.group(1)))).isoformat()
    if m := _SORT.search(question):
        return ", ".join(str(n) for n in sorted(int(x) for x in _list(m.group(1))))
    return None


def wrong(question: str, right: str) -> str:
    """A plausible wrong answer, as a broken deployment gives one."""
    if _PRODUCT.search(question):
        return str(int(right) + 10)
    if m := _REVERSE.search(question):
        return ", ".join(_list(m.group(1)))
    if _COPY.search(question):
        return right[:-1] + ("X" if right[-1] != "X" else "Y")
    if _LATER.search(question):
        return (parse_date(right, "calendar answer") - timedelta(days=1)).isoformat()
    return ", ".join(reversed(_list(right)))


def apply_stop(text: str, stops: Sequence[str], fault: str | None) -> tuple[str, bool]:
    """(the text as sent, whether a stop string ended it) under the request's `stop` strings."""
    if not stops or fault == "stop_ignored":
        return text, False
    hits = [(i, s) for s in stops if (i := text.find(s)) >= 0]
    if not hits:
        return text, False
    at, stop = min(hits)
    return (text[: at + len(stop)] if fault == "stop_echoed" else text[:at]), True


def _list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]

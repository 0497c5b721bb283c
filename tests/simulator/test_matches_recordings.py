"""The simulator's streamed chunks have the SHAPE of real recorded OpenRouter chunks.

Real traffic (the corpus of recorded OpenRouter exchanges: tests/probes/recorded_server.py is the
one reader and says where they are; a missing corpus fails, saying what to fetch) is
compared key by key with what the simulator streams for each of its usage-chunk shapes: the
same top-level keys on content chunks, every choice with index/delta/finish_reason/
native_finish_reason, a usage chunk whose keys and usage keys are ones real traffic carries, and
each recorded usage-chunk shape reproduced by the simulator mode named after it. Values differ
(ids, text, counts); only structure is compared.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from simkit import chat_body, one_endpoint_scenario, stream_chat

from simulator import scenario_from_dict, start_simulator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "probes"))
from recorded_server import corpus, iter_streamed, require_corpus  # noqa: E402  (the one reader of the corpus)

CHOICE_KEYS = {"index", "delta", "finish_reason", "native_finish_reason"}
USAGE_KEYS = {"prompt_tokens", "completion_tokens", "total_tokens", "cost"}
SHAPES = ("null_finish", "empty_choices", "repeat_finish")


def recorded_streams() -> list[list[dict[str, Any]]]:
    """The JSON chunks of every recorded 200 stream of the corpus (a missing corpus fails)."""
    require_corpus()
    streams = [it.chunks() for it in iter_streamed(corpus())]
    assert streams, "the recorded corpus holds no 200 stream"
    return streams


def usage_shape(chunk: dict[str, Any]) -> str:
    choices = chunk.get("choices") or []
    if not choices:
        return "empty_choices"
    return "repeat_finish" if choices[0].get("finish_reason") else "null_finish"


def simulated(shape: str) -> list[dict[str, Any]]:
    data = one_endpoint_scenario()
    data["usage_shape"] = shape
    with start_simulator(scenario_from_dict(data), seed=3) as sim:
        result = stream_chat(sim.base_url, chat_body("test/fp8", language="English"))
    assert result.status == 200 and result.done and result.comments >= 1
    return result.chunks


@pytest.mark.parametrize("shape", SHAPES)
def test_simulated_stream_chunks_have_the_recorded_shape(shape: str) -> None:
    real = recorded_streams()
    real_body = [c for s in real for c in s if "usage" not in c]
    real_usage = [c for s in real for c in s if "usage" in c]
    body_key_sets = {frozenset(c) for c in real_body}
    usage_chunk_keys = set().union(*(c.keys() for c in real_usage))
    usage_chunk_common = set.intersection(*(set(c) for c in real_usage))
    choice_keys = set().union(*(ch.keys() for c in real_body + real_usage for ch in c.get("choices") or []))
    usage_keys = set().union(*(c["usage"].keys() for c in real_usage))
    assert CHOICE_KEYS <= choice_keys and USAGE_KEYS <= usage_keys  # the recordings themselves

    sim = simulated(shape)
    *body, usage_chunk = sim
    assert body and all("usage" not in c for c in body) and "usage" in usage_chunk
    for chunk in body:
        assert frozenset(chunk) in body_key_sets, f"content chunk keys {sorted(chunk)} never seen in real traffic"
    assert usage_chunk_common <= set(usage_chunk) <= usage_chunk_keys, sorted(usage_chunk)
    for chunk in sim:
        for choice in chunk.get("choices") or []:
            assert CHOICE_KEYS <= set(choice) <= choice_keys, sorted(choice)
            assert isinstance(choice["index"], int) and isinstance(choice["delta"], dict)
    usage = usage_chunk["usage"]
    assert USAGE_KEYS <= set(usage) <= usage_keys, sorted(set(usage) - usage_keys)
    assert all(isinstance(usage[k], int) and not isinstance(usage[k], bool)
               for k in ("prompt_tokens", "completion_tokens", "total_tokens"))
    assert isinstance(usage["cost"], (int, float))
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    # As recorded: the finish arrives on a chunk with an empty content delta, before the usage chunk.
    finish = body[-1]["choices"][0]
    assert finish["finish_reason"] and finish["delta"].get("content") == ""
    assert usage_shape(usage_chunk) == shape


def test_each_recorded_usage_chunk_shape_is_one_the_simulator_can_emit() -> None:
    real_usage = [c for s in recorded_streams() for c in s if "usage" in c]
    assert real_usage and {usage_shape(c) for c in real_usage} <= set(SHAPES)
    # One simulator run per distinct recorded shape (the corpus repeats a few shapes many times).
    distinct = {(usage_shape(c), tuple(frozenset(ch) - {"logprobs"} for ch in c["choices"]),
                 tuple(ch["finish_reason"] for ch in c["choices"])): c for c in real_usage}
    for chunk in distinct.values():
        sim_usage = simulated(usage_shape(chunk))[-1]
        assert ([set(ch) - {"logprobs"} for ch in chunk["choices"]]
                == [set(ch) - {"logprobs"} for ch in sim_usage["choices"]])
        # The simulated request is plain chat: a recorded tool-call turn's repeated `tool_calls` is `stop` there.
        recorded = ["stop" if ch["finish_reason"] == "tool_calls" else ch["finish_reason"] for ch in chunk["choices"]]
        assert recorded == [ch["finish_reason"] for ch in sim_usage["choices"]]


def _reasoning_chunks(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in chunks if c.get("choices") and "reasoning_details" in c["choices"][0]["delta"]]


def test_a_simulated_encrypted_reasoning_chunk_has_the_recorded_shape() -> None:
    real = [c for s in recorded_streams() for c in _reasoning_chunks(s)]
    if not real:
        pytest.skip("no recorded stream carries reasoning_details")
    data = one_endpoint_scenario({"thinking": {"tokens": 40, "readable": False}})
    with start_simulator(scenario_from_dict(data), seed=3) as sim:
        result = stream_chat(sim.base_url, chat_body("test/fp8", language="English", max_tokens=1000))
    (chunk,) = _reasoning_chunks(result.chunks)
    assert set(chunk) in [set(c) for c in real]
    delta, real_delta = chunk["choices"][0]["delta"], real[0]["choices"][0]["delta"]
    assert set(delta) == set(real_delta) and delta["reasoning"] is None and delta["content"] == ""
    assert [set(d) for d in delta["reasoning_details"]] == [set(d) for d in real_delta["reasoning_details"]]
    assert [d["type"] for d in delta["reasoning_details"]] == [d["type"] for d in real_delta["reasoning_details"]]
    # Reasoning comes before the answer text, as recorded.
    first_text = next(i for i, c in enumerate(result.chunks)
                      if c.get("choices") and c["choices"][0]["delta"].get("content"))
    assert result.chunks.index(chunk) < first_text

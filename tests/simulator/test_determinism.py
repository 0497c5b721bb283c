"""Replies are reproducible under a seed; repeated identical requests draw differently."""

from __future__ import annotations

from simkit import chat_body, one_endpoint_scenario, stream_chat

FLAKY = one_endpoint_scenario({"refusal": {"rate": 0.3}, "leading_garbage": {"rate": 0.3}})


def replies(base_url: str, count: int) -> list[str]:
    return [stream_chat(base_url, chat_body("test/fp8")).text for _ in range(count)]


def test_the_same_seed_gives_the_same_sequence_of_replies(simulate):
    first = replies(simulate(FLAKY, seed=42).base_url, 5)
    second = replies(simulate(FLAKY, seed=42).base_url, 5)

    assert first == second


def test_repeated_identical_requests_draw_different_replies(simulate):
    texts = replies(simulate(FLAKY, seed=42).base_url, 5)

    assert len(set(texts)) == 5


def test_another_seed_gives_other_replies(simulate):
    assert replies(simulate(FLAKY, seed=1).base_url, 3) != replies(simulate(FLAKY, seed=2).base_url, 3)


def test_the_attempt_counter_is_per_conversation(simulate):
    scene, other = chat_body("test/fp8"), chat_body("test/fp8")
    other["messages"][1]["content"] = "A different scene."
    interleaved, straight = simulate(FLAKY, seed=5), simulate(FLAKY, seed=5)

    stream_chat(interleaved.base_url, scene)
    stream_chat(interleaved.base_url, other)  # must not advance the counter of `scene`
    second_interleaved = stream_chat(interleaved.base_url, scene).text
    stream_chat(straight.base_url, scene)
    second_straight = stream_chat(straight.base_url, scene).text

    assert second_interleaved == second_straight

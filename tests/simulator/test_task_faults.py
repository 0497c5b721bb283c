"""Tasks with one right answer (simulator/tasks.py) over a real socket: the stop and fidelity faults."""

from __future__ import annotations

from simkit import chat_body, one_endpoint_scenario, stream_chat

from judge.replies.fidelity import make_items, prompt_text, score

COUNT = [{"role": "user", "content": "Count from 1 to 30, one number per line. Write only the numbers."}]


def faulty(simulate, name: str, **params: object):
    return simulate(one_endpoint_scenario({name: {"rate": 1.0, **params}}), seed=11)


def text_of(result) -> str:
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in result.chunks if c.get("choices"))


def counted(base_url: str, tag: str, **extra: object) -> str:
    return text_of(stream_chat(base_url, {**chat_body(tag), "messages": COUNT, **extra}))


def test_a_healthy_host_stops_before_the_stop_string_and_leaves_it_out(simulate):
    sim = simulate(one_endpoint_scenario(), seed=11)

    assert counted(sim.base_url, "test/fp8", stop=["13"]).split() == [str(n) for n in range(1, 13)]
    assert counted(sim.base_url, "test/fp8").split()[-1] == "30"  # no stop: the whole count


def test_stop_ignored_runs_past_the_stop_string(simulate):
    sim = faulty(simulate, "stop_ignored")

    assert counted(sim.base_url, "test/fp8", stop=["13"]).split()[-1] == "30"


def test_stop_echoed_keeps_the_stop_string_at_the_end(simulate):
    sim = faulty(simulate, "stop_echoed")

    assert counted(sim.base_url, "test/fp8", stop="13").rstrip().endswith("12\n13")


def test_fidelity_errors_answer_the_given_share_of_items_wrongly(simulate):
    items = make_items(7)
    body = {**chat_body("test/fp8"), "messages": [{"role": "user", "content": prompt_text(items)}]}
    healthy = simulate(one_endpoint_scenario(), seed=11)
    broken = faulty(simulate, "fidelity_errors", share=1.0)

    assert all(ok for _, ok in score(text_of(stream_chat(healthy.base_url, body)), items))
    assert not any(ok for _, ok in score(text_of(stream_chat(broken.base_url, body)), items))


def test_a_bad_stop_value_is_refused_like_a_bad_request(simulate):
    sim = simulate(one_endpoint_scenario(), seed=11)

    result = stream_chat(sim.base_url, {**chat_body("test/fp8"), "stop": ["a", "b", "c", "d", "e"]})
    assert result.status == 400 and "stop" in result.error_body["error"]["message"]

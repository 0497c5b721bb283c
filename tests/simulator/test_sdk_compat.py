"""The official SDKs, pointed at a running simulator, parse what it sends."""

from __future__ import annotations

from openai import OpenAI
from openrouter import OpenRouter
from simkit import KEY, MODEL, chat_body

API_KEY = KEY["Authorization"].split(" ", 1)[1]


def test_openrouter_sdk_lists_every_endpoint_with_its_tag(healthy):
    client = OpenRouter(api_key=API_KEY, server_url=healthy.base_url)
    author, slug = MODEL.split("/")

    listed = client.endpoints.list(author=author, slug=slug)

    endpoints = listed.data.endpoints
    assert [e.tag for e in endpoints] == ["aurora/fp8", "aurora/bf16", "borealis/bf16"]
    assert {e.provider_name for e in endpoints} == {"Aurora", "Borealis"}
    assert all(e.pricing.prompt.startswith("0.") for e in endpoints)


def test_openrouter_sdk_lists_models_and_providers(healthy):
    client = OpenRouter(api_key=API_KEY, server_url=healthy.base_url)

    models = client.models.list()
    providers = client.providers.list()

    assert [m.id for m in models.result.data] == [MODEL]
    assert {p.slug for p in providers.data} == {"aurora", "borealis"}


def test_openai_sdk_streams_a_completion_pinned_to_a_tag_and_provider_names_that_endpoint(healthy):
    client = OpenAI(base_url=healthy.base_url, api_key=API_KEY, max_retries=0)
    pin = {"order": ["borealis/bf16"], "only": ["borealis/bf16"], "allow_fallbacks": False}

    stream = client.chat.completions.create(
        model=MODEL, messages=chat_body()["messages"], stream=True, extra_body={"provider": pin}
    )
    chunks = list(stream)

    assert {c.model_extra["provider"] for c in chunks} == {"Borealis"}
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len(text) > 100
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason][0] == "stop"
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0


def test_openai_sdk_parses_a_non_streaming_completion_with_openrouter_extras(healthy):
    client = OpenAI(base_url=healthy.base_url, api_key=API_KEY, max_retries=0)

    completion = client.chat.completions.create(
        model=MODEL, messages=chat_body()["messages"], extra_body={"provider": {"only": ["aurora/bf16"]}}
    )

    assert completion.model_extra["provider"] == "Aurora"
    assert completion.system_fingerprint is None
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage.model_extra["cost"] > 0


def test_openrouter_sdk_sends_a_chat_request(healthy):
    client = OpenRouter(api_key=API_KEY, server_url=healthy.base_url)

    result = client.chat.send(model=MODEL, messages=chat_body()["messages"], stream=False)

    assert result.choices[0].message.content


def test_openrouter_sdk_streams_a_reasoning_hosts_thinking_and_answer(simulate):
    from simkit import one_endpoint_scenario

    sim = simulate(one_endpoint_scenario({"thinking": {"tokens": 40}}), seed=5)
    client = OpenRouter(api_key=API_KEY, server_url=sim.base_url)

    stream = client.chat.send(model=MODEL, messages=chat_body()["messages"], stream=True, max_tokens=1000,
                              provider={"only": ["test/fp8"]})
    deltas = [chunk.choices[0].delta for chunk in stream if chunk.choices]

    assert "".join(d.reasoning or "" for d in deltas) and "".join(d.content or "" for d in deltas)
    details = [x for d in deltas for x in (d.reasoning_details or [])]
    assert details and {x.type for x in details} == {"reasoning.text"}  # the SDK's typed ReasoningDetailText


def test_openrouter_sdk_raises_its_typed_403_on_a_moderation_block(simulate):
    from openrouter import errors
    from simkit import one_endpoint_scenario

    sim = simulate(one_endpoint_scenario({"moderation": {"rate": 1.0, "reasons": ["violence"]}}), seed=5)
    client = OpenRouter(api_key=API_KEY, server_url=sim.base_url)

    try:
        client.chat.send(model=MODEL, messages=chat_body()["messages"], stream=False, provider={"only": ["test/fp8"]})
    except errors.OpenRouterError as exc:
        assert exc.status_code == 403
    else:
        raise AssertionError("a moderation block must be an error")

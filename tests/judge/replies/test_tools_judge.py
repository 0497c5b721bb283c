"""judge.replies.tools: the tools contract's judge, on real material first.

Real material: (1) 24 real OpenRouter streams of six model families with function tools
(charmbracelet/fantasy's recorded cassettes, tests/judge/data/tools/, rebuilt by
benchmarks/corpora/build_tool_call_corpus.py) replayed through the client's own stream state:
none may fail; (2) tool-call markup exactly as it leaked into users' visible text in public issue
threads, and the dialects as the open-source parsers document them (vllm-project/vllm
tool_parsers): every one must be caught. Then each failure bucket on its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.vocabulary import Outcome
from judge.replies.tools import Call, Tool, ToolsCode, assess, call_name, leaked_markup
from probes.http.sse import Event
from probes.http.stream import StreamState

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "tools" / "openrouter_tool_streams.json"
STREAMS: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))["streams"]

BOOK = Tool("book_room", {"type": "object", "properties": {
    "room": {"type": "string", "enum": ["tower", "cellar", "garden"]},
    "nights": {"type": "integer", "minimum": 1, "maximum": 14}},
    "required": ["room", "nights"], "additionalProperties": False}, {"room": "tower", "nights": 2})
DICE = Tool("roll_dice", {"type": "object", "properties": {"sides": {"type": "integer", "minimum": 4, "maximum": 20}},
                          "required": ["sides"], "additionalProperties": False}, {"sides": 20})
TOOLS = (BOOK, DICE)
GOOD_BOOK = '{"room": "tower", "nights": 2}'


def replay(stream: dict[str, Any]) -> StreamState:
    state = StreamState()
    for at, chunk in enumerate(stream["chunks"]):
        assert state.feed(Event(json.dumps(chunk)), float(at))
    return state


@pytest.mark.parametrize("stream", STREAMS, ids=[f"{s['model']}-{i}" for i, s in enumerate(STREAMS)])
def test_no_real_openrouter_tool_stream_fails(stream: dict[str, Any]) -> None:
    state = replay(stream)
    tools = tuple(Tool(t["name"], t["parameters"], {}) for t in stream["tools"])
    calls = tuple(Call(c.index, c.name_parts, c.arguments) for c in state.tool_calls)
    found = assess(state.text, state.reasoning_text, calls, tools, state.finish_reason)
    assert found.verdict.outcome is not Outcome.FAIL, (stream["source"], found.verdict.reason)
    if calls:  # the turns that called: assembled by index, valid, finish_reason tool_calls
        assert found.verdict.outcome is Outcome.PASS and found.notes == (), (stream["source"], found)
    else:      # the follow-up turns answer the tool results in prose
        assert found.verdict.code is ToolsCode.NO_TOOL_CALL, (stream["source"], found.verdict.reason)


def test_the_real_streams_cover_parallel_calls_and_fragmented_arguments() -> None:
    states = [replay(s) for s in STREAMS]
    assert sum(len(s.tool_calls) >= 2 for s in states) >= 5      # multi_tool: two calls by index 0 and 1
    assert max(c.fragments for s in states for c in s.tool_calls) >= 10   # Kimi streams a few characters a time
    assert any(c.fragments == 1 for s in states for c in s.tool_calls)    # Gemini sends them whole


# Leaks as users saw them (visible text of real replies) and the dialects as the parsers read them.
REAL_LEAKS = [
    # can1357/oh-my-pi#8495: Kimi K3 markup dumped as assistant text ("Leak A"), and into a thinking block ("Leak B")
    '<|open|>toolscall tool="StrReplace" index="1"<|sep|><|open|>argument key="path" type="string"<|sep|>'
    'src/rendererargument<|sep|><|close|>call<|sep|><|close|>toolstoolsmessage<|sep|>',
    'Lint passesresponse<|sep|><|open|>toolscall tool="Shell" index="1"<|sep|><|open|>argument key="command" '
    'type="string"<|sep|>pnpm',
    # anthropics/claude-code#69529: a leaked call in visible text
    'すみません、また記法ミスでした。正しく実行します。\n\ncourt\n<invoke name="Bash">\n<parameter name="command">'
    'echo test</parameter>\n<parameter name="description">test</parameter>\n</invoke>',
    # youssofal/MTPLX#20: Qwen3.6 streaming `<tool_call><function=...>` as delta.content
    "I'll investigate the mountain/terrain implementation systematically by searching the codebase."
    "\n\n<tool_call>\n<function=grep>\n<parameter=pattern>\nmountain\n</parameter>\n</function>\n</tool_call>",
    # An opencode session transcript in a public repository: GLM's markup in the visible answer
    "I'll remove `package-lock.json` from git tracking (but keep it locally) and verify `.gitignore` excludes "
    "`node_modules`:<tool_calls>\n<tool_call>bash<tool_sep>\n<arg_key>command</arg_key>\n<arg_value>git rm "
    "--cached web/package-lock.json</arg_value>\n</tool_call>\n</tool_calls>",
    # vllm tool_parsers/deepseekv3_tool_parser.py (its docstring's example output)
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_weather\n```json\n'
    '{"location": "Beijing"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    # vllm tool_parsers/kimi_k2_tool_parser.py (section and call tokens, the functions.name:idx id)
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>'
    '{"city": "Beijing"}<|tool_call_end|><|tool_calls_section_end|>',
    # The id alone, as a host that strips the special tokens leaves it (NousResearch/hermes-agent#24534's shape)
    'functions.book_room:0 {"room": "tower", "nights": 2}',
    # vllm hermes_tool_parser.py (Hermes, Qwen2.5/Qwen3)
    '<tool_call>\n{"name": "book_room", "arguments": {"room": "tower", "nights": 2}}\n</tool_call>',
    # vllm mistral_tool_parser.py: pre-v11 and v11 tokenizers
    '[TOOL_CALLS][{"name": "book_room", "arguments": {"room": "tower", "nights": 2}}]',
    '[TOOL_CALLS]book_room[ARGS]{"room": "tower", "nights": 2}',
    # vllm llama_tool_parser.py (Llama 3.1+)
    '<|python_tag|>{"name": "book_room", "parameters": {"room": "tower", "nights": 2}}',
    # vllm glm4_moe_tool_parser.py (GLM-4.5+)
    "<tool_call>book_room\n<arg_key>room</arg_key>\n<arg_value>tower</arg_value>\n</tool_call>",
    # OpenAI harmony (gpt-oss), vllm openai_tool_parser.py
    '<|channel|>commentary to=functions.book_room <|constrain|>json<|message|>{"room":"tower","nights":2}<|call|>',
    # MiniMax (vllm minimax_m2_tool_parser.py), Granite (<|tool_call|>), LFM2 (<|tool_call_start|>), DeepSeek V3.2 DSML
    '<minimax:tool_call>\n<invoke name="book_room">\n<parameter name="room">tower</parameter>\n</invoke>',
    '<|tool_call|>[{"name": "book_room", "arguments": {"room": "tower", "nights": 2}}]',
    '<|tool_call_start|>[book_room(room="tower", nights=2)]<|tool_call_end|>',
    '<｜DSML｜function_calls>\n<｜DSML｜invoke name="book_room">',
]


@pytest.mark.parametrize("leak", REAL_LEAKS)
@pytest.mark.parametrize("where", ["content", "reasoning"])
def test_real_leaked_markup_fails_in_the_content_or_the_reasoning(leak: str, where: str) -> None:
    text, reasoning = (leak, "") if where == "content" else ("*Mira nods.*", leak)
    found = assess(text, reasoning, (), TOOLS, "stop")
    assert found.verdict.failed and found.verdict.code == "tool_markup_leak", found.verdict
    assert f"into the {where}" in found.verdict.reason
    # even beside a valid call: the markup is a parser defect whatever else came through
    assert assess(text, reasoning, (Call(0, ("book_room",), GOOD_BOOK),), TOOLS, "tool_calls").verdict.failed


@pytest.mark.parametrize("text", [
    "*Mira takes the coins and smiles.* The tower room is yours for two nights, traveller. "
    "Let the dice decide your luck!",
    "I'll call the tool for you: book_room, then roll_dice.",   # names in prose, no markup
    "<b>Welcome</b> to the Gilded Stag! <i>*rolls a d20*</i>",  # harmless HTML in a reply
    "functions are like spells: name:0 of them work without a call.",
])
def test_prose_that_mentions_tools_is_not_markup(text: str) -> None:
    assert leaked_markup(text) is None
    assert assess(text, "", (), TOOLS, "stop").verdict.code is ToolsCode.NO_TOOL_CALL


def test_valid_calls_pass_and_wrong_values_and_finish_are_notes() -> None:
    calls = (Call(0, ("book_room",), '{"room": "cellar", "nights": 2}'), Call(1, ("roll_dice",), '{"sides": 20}'))
    found = assess("", "", calls, TOOLS, "stop")
    assert found.verdict.passed, found.verdict
    assert any("book_room.room" in n and '"tower"' in n for n in found.notes)
    assert any("finish_reason 'stop'" in n for n in found.notes)


@pytest.mark.parametrize("arguments,code", [
    ("", "schema_mismatch"),                                     # no arguments: read as {}, the required ones missing
    ('{"room": "tower", "nights": 2', "invalid_json"),
    ('["tower", 2]', "invalid_json"),
    (GOOD_BOOK + GOOD_BOOK, "duplicated_arguments"),             # vllm-project/vllm#51697: assembled twice
    ('{"room": "tower"}{"room": "tower", "nights": 2}', "duplicated_arguments"),
    ('{"room": "attic", "nights": 2}', "schema_mismatch"),
    ('{"room": "tower", "nights": "two"}', "schema_mismatch"),
    ('{"room": "tower"}', "schema_mismatch"),
    ('{"room": "tower", "nights": 2, "pet": "cat"}', "schema_mismatch"),
    ("[" * 5000 + "]" * 5000, "invalid_json"),
])
def test_each_argument_defect_has_its_bucket(arguments: str, code: str) -> None:
    found = assess("", "", (Call(0, ("book_room",), arguments),), TOOLS, "tool_calls")
    assert found.verdict.failed and found.verdict.code == code, found.verdict.reason


def test_no_arguments_call_a_tool_whose_parameters_are_all_optional() -> None:
    # Claude via Google Vertex sends no `arguments` for such a call (pydantic-ai's recorded
    # test_openrouter_tool_optional_parameters): read as {}, which the schema accepts.
    look = Tool("look_around", {"type": "object", "properties": {"direction": {"type": "string"}}}, {})
    found = assess("", "", (Call(0, ("look_around",), ""),), (look,), "tool_calls")
    assert found.verdict.passed, found.verdict


@pytest.mark.parametrize("parts,code", [
    (("book_hall",), "unknown_name"),
    ((), "unknown_name"),
])
def test_a_call_naming_no_tool_of_the_request_fails(parts: tuple[str, ...], code: str) -> None:
    found = assess("", "", (Call(0, parts, GOOD_BOOK),), TOOLS, "tool_calls")
    assert found.verdict.failed and found.verdict.code == code


def test_a_name_repeated_on_every_fragment_is_one_name_and_a_split_name_is_joined() -> None:
    assert call_name(Call(0, ("book_room", "book_room"), GOOD_BOOK), ("book_room",)) == "book_room"
    assert call_name(Call(0, ("book_", "room"), GOOD_BOOK), ("book_room",)) == "book_room"


def test_an_empty_completed_reply_fails_and_upstream_text_in_reasons_is_cleaned() -> None:
    found = assess("  ", "", (), TOOLS, "stop")
    assert found.verdict.failed and found.verdict.code == "empty_reply"
    hostile = assess("", "", (Call(0, ("x\x1b[31m\n<script>",), GOOD_BOOK),), TOOLS, "tool_calls").verdict.reason
    assert "\x1b" not in hostile and "\n" not in hostile


def test_a_name_with_a_lone_surrogate_or_a_control_character_is_shown_escaped_not_as_the_declared_name() -> None:
    # Issue 31: cleaned, "roll_dice\ud800" read `names "roll_dice "` beside `the request has roll_dice`.
    for name, shown in (("roll_dice\ud800", r"'roll_dice\ud800'"), ("roll_dice\u202e", r"'roll_dice\u202e'"),
                        ("roll\x1b[2Jdice", r"'roll\x1b[2Jdice'")):
        reason = assess("", "", (Call(0, (name,), '{"sides": 20}'),), TOOLS, "tool_calls").verdict.reason
        assert f"names {shown}," in reason and reason.isprintable(), reason
    plain = assess("", "", (Call(0, ("book_hall",), GOOD_BOOK),), TOOLS, "tool_calls").verdict.reason
    assert 'names "book_hall",' in plain


def test_no_markup_is_found_in_real_replies_and_fiction() -> None:
    # tests/judge/data/refusal_sample/: 475 real chat-model replies (refusals and answers, 17
    # languages) and 200 passages of published fiction (benchmarks/corpora/sample_refusal_fixture.py).
    sample = Path(__file__).resolve().parents[1] / "data" / "refusal_sample"
    texts = [json.loads(line)["text"] for name in ("labelled.jsonl", "fiction.jsonl")
             for line in (sample / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(texts) >= 600
    assert [t[:80] for t in texts if leaked_markup(t)] == []


def test_the_probes_own_dice_are_held_by_bounds_not_an_integer_enum() -> None:
    # Issue 28 (N6): Gemini's function declarations take an enum only on a string, so the probe's
    # `sides` carries bounds; the judge holds a call to them as it held it to the enum.
    from probes.round.contracts import tools as tools_contract
    from simulator.request import ToolSpec, non_string_enums

    _, wire, specs = tools_contract.request()
    assert non_string_enums(tuple(ToolSpec(t["function"]["name"], t["function"]["parameters"]) for t in wire)) == []
    good = assess("", "", (Call(0, ("book_room",), GOOD_BOOK), Call(1, ("roll_dice",), '{"sides": 20}')), specs,
                  "tool_calls")
    assert good.verdict.passed and good.notes == (), good
    for arguments in ('{"sides": 21}', '{"sides": 3}', '{"sides": "20"}', '{"sides": 20.5}'):
        found = assess("", "", (Call(0, ("roll_dice",), arguments),), specs, "tool_calls")
        assert found.verdict.failed and found.verdict.code == "schema_mismatch", arguments

"""The SSE parser: framing rules, and hostile bytes never crashing it (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probes.http.sse import Comment, Event, SSEError, SSEParser


def parse(*chunks: bytes) -> list[Comment | Event]:
    parser = SSEParser()
    items: list[Comment | Event] = []
    for chunk in chunks:
        items.extend(parser.feed(chunk))
    items.extend(parser.close())
    return items


def events(items: list[Comment | Event]) -> list[str]:
    return [i.data for i in items if isinstance(i, Event)]


def test_it_parses_openrouter_framing_with_keepalives() -> None:
    items = parse(b": OPENROUTER PROCESSING\n\ndata: {\"a\":1}\n\n: OPENROUTER PROCESSING\n\ndata: [DONE]\n\n")
    assert items == [Comment("OPENROUTER PROCESSING"), Event('{"a":1}'),
                     Comment("OPENROUTER PROCESSING"), Event("[DONE]")]


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"], ids=["lf", "crlf", "cr"])
def test_every_line_ending_frames_the_same_events(end: bytes) -> None:
    stream = end.join([b"data: one", b"", b": ping", b"", b"data: two", b"data: lines", b"", b""])
    assert parse(stream) == [Event("one"), Comment("ping"), Event("two\nlines")]


def test_a_crlf_split_across_two_reads_is_one_line_end() -> None:
    assert events(parse(b"data: a\r", b"\n\r", b"\ndata: b\r\n\r\n")) == ["a", "b"]


def test_only_one_space_after_the_colon_is_dropped() -> None:
    assert events(parse(b"data:x\n\ndata:  y\n\n")) == ["x", " y"]


def test_a_leading_bom_is_ignored_even_when_split() -> None:
    assert events(parse(b"\xef", b"\xbb\xbfdata: a\n\n")) == ["a"]


def test_a_complete_event_without_its_blank_line_is_delivered_at_the_end() -> None:
    assert events(parse(b"data: [DONE]\n")) == ["[DONE]"]


def test_a_line_cut_in_the_middle_is_not_delivered() -> None:
    parser = SSEParser()
    assert parser.feed(b'data: {"choices":[{"delta":{"content":"hal') == []
    assert parser.close() == []


def test_invalid_utf8_is_replaced_and_flagged() -> None:
    (event,) = parse(b"data: caf\xe9\n\n")
    assert isinstance(event, Event) and not event.valid_utf8 and "\ufffd" in event.data


def test_an_endless_line_hits_the_cap() -> None:
    parser = SSEParser(max_line_bytes=1000)
    with pytest.raises(SSEError):
        for _ in range(20):
            parser.feed(b"data: " + b"x" * 100)


def test_an_endless_event_hits_the_cap() -> None:
    parser = SSEParser(max_event_bytes=1000)
    with pytest.raises(SSEError):
        parser.feed(b"data: xxxxxxxxxx\n" * 200)


def split_points(data: bytes) -> st.SearchStrategy[list[bytes]]:
    return st.lists(st.integers(0, len(data)), max_size=8).map(
        lambda cuts: [data[a:b] for a, b in zip([0, *sorted(cuts)], [*sorted(cuts), len(data)], strict=True)]
    )


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000), st.data())
def test_arbitrary_bytes_in_arbitrary_reads_never_crash_and_split_does_not_matter(
    data: bytes, draw: st.DataObject
) -> None:
    whole = parse(data)
    chunks = draw.draw(split_points(data))
    assert parse(*chunks) == whole
    for item in whole:
        assert isinstance(item, (Comment, Event))


LINE = st.text(alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(LINE, min_size=1, max_size=3), min_size=1, max_size=6),
    # One ending per stream: a lone CR followed by an LF-ended line *is* a CRLF, by the spec.
    st.sampled_from([b"\n", b"\r\n", b"\r"]),
    st.lists(st.booleans(), min_size=1, max_size=20),
    st.data(),
)
def test_events_survive_any_line_endings_and_comments_anywhere(
    payloads: list[list[str]], ending: bytes, comment_here: list[bool], draw: st.DataObject
) -> None:
    lines: list[bytes] = []
    for i, payload in enumerate(payloads):
        for j, part in enumerate(payload):
            if comment_here[(i + j) % len(comment_here)]:
                lines.append(b": OPENROUTER PROCESSING")
            lines.append(b"data: " + part.encode())
        lines.append(b"")
    stream = b"".join(line + ending for line in lines)
    items = parse(*draw.draw(split_points(stream)))
    assert events(items) == ["\n".join(p) for p in payloads]
    assert sum(isinstance(i, Comment) for i in items) == sum(line.startswith(b":") for line in lines)

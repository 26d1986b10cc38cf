from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wf_core.language.path_scan import PartialSegment, ScannedSegment, scan_at, scan_path
from wf_core.language.paths import PathResolutionError, format_segments, parse_toml_key

_SEGMENT_CHARS = st.one_of(
    st.sampled_from(list("aZ09_-. \"'\\#=[]{},é€😀\u00a0\u2028")),
    st.characters(
        blacklist_categories=("Cs",),
        blacklist_characters=[chr(i) for i in range(32)] + ["\x7f"],
    ),
)
SEGMENTS = st.lists(
    st.text(alphabet=_SEGMENT_CHARS, min_size=1, max_size=12).filter(lambda s: s.strip()),
    min_size=1,
    max_size=6,
)
# Text that is often almost a path: key characters, quotes, escapes, separators
# and the characters that could break out of a TOML key.
NEAR_PATHS = st.text(
    alphabet=st.sampled_from(list("ab-_0 ..\t\"\"''\\\\uU00e9=#{}[],\n\r\x01\x7fé")),
    max_size=24,
)
# Whole tokens, so that well-formed keys (and near misses) come up often.
TOKEN_PATHS = st.lists(
    st.sampled_from(
        [
            "a",
            "b-1",
            '"x.y"',
            "'q r'",
            '"\\u00e9"',
            '"\\U0001F600"',
            '"\\ud800"',
            '"\\q"',
            '"\\""',
            '"\\t"',
            '""',
            "''",
            ".",
            " ",
            "\t",
            '"',
            "'",
            "=",
            "#",
            "}",
            "é",
            "\\",
        ]
    ),
    max_size=10,
).map("".join)
ANY_TEXT = st.one_of(NEAR_PATHS, TOKEN_PATHS, st.text(max_size=40))


def toml_decode(key_text: str) -> tuple[str, ...]:
    table = tomllib.loads("x = { " + key_text + " = true }")["x"]
    segments = []
    while isinstance(table, dict):
        ((key, table),) = table.items()
        segments.append(key)
    return tuple(segments)


def parses(text: str) -> bool:
    try:
        parse_toml_key(text)
    except PathResolutionError:
        return False
    return True


# --- scan_path --------------------------------------------------------------


def test_scan_quoted_segment_with_dots() -> None:
    text = 'context.foreach."orders.v2".it'
    scan = scan_path(text)
    assert scan.valid
    assert scan.error_offset is None
    assert scan.values == ("context", "foreach", "orders.v2", "it")
    assert scan.segments[2] == ScannedSegment("orders.v2", 16, 27, '"', True)
    assert text[16:27] == '"orders.v2"'
    assert scan.separators == (7, 15, 27)


def test_scan_unclosed_quote_runs_to_the_end() -> None:
    scan = scan_path('context.foreach."ord')
    assert not scan.valid
    assert scan.values == ("context", "foreach", "ord")
    assert scan.segments[-1] == ScannedSegment("ord", 16, 20, '"', False)
    assert scan.error_offset == 16


def test_scan_unclosed_literal_quote_keeps_dots() -> None:
    scan = scan_path("a.'b.c")
    assert scan.values == ("a", "b.c")
    assert scan.segments[-1].closed is False
    assert scan.segments[-1].quote == "'"
    assert scan.separators == (1,)


def test_scan_whitespace_around_dots() -> None:
    scan = scan_path("input . a")
    assert scan.valid
    assert [(s.value, s.start, s.end) for s in scan.segments] == [("input", 0, 5), ("a", 8, 9)]


def test_scan_decodes_escapes_and_literals() -> None:
    text = '\'x\\y\'."\\u00e9\\t\\"\\\\\\U0001F600"'
    scan = scan_path(text)
    assert scan.values == ("x\\y", 'é\t"\\😀')
    # A decoded tab is a control character: well-formed TOML, but not a valid path.
    assert not scan.valid
    assert scan.error_offset == 13


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ("", 0),
        ("   ", 3),
        (".", 0),
        ("state.", 6),
        ("state. ", 7),
        (".a", 0),
        ("a..b", 2),
        ("input.a b", 8),
        ("input.a = 1", 8),
        ("items[0]", 5),
        ("garbage!!", 7),
        ("é", 0),
        ('a"b"', 1),
        ('input."unclosed', 6),
        ('"a\\qb"', 2),
        ('"\\ud800"', 1),
        ('"\\u12"', 1),
        ('"\\U00110000"', 1),
        ('"a\x01"', 2),
        ("'a\x7f'", 2),
        ('a.""', 2),
        ("a.' '", 2),
        ('a."b\\u0007"', 4),
        ("[input]\nname", 0),
        ("a\n= true }\nx = {b", 1),
    ],
)
def test_scan_error_offsets(text: str, offset: int) -> None:
    scan = scan_path(text)
    assert not scan.valid
    assert scan.error_offset == offset
    assert not parses(text)


def test_scan_recovers_segments_from_broken_text() -> None:
    assert scan_path("a..b").values == ("a", "b")
    assert scan_path("input.a b").values == ("input", "a", "b")
    assert scan_path("items[0].x").values == ("items[0]", "x")
    assert scan_path('a"b"').values == ("a", "b")
    assert scan_path('"a\\qb"').values == ("a\\qb",)


def test_scan_non_string_input_is_invalid_not_an_error() -> None:
    scan = scan_path(None)  # type: ignore[arg-type]
    assert (scan.segments, scan.valid, scan.error_offset) == ((), False, 0)


@given(SEGMENTS)
def test_scan_of_formatted_segments(segments: list[str]) -> None:
    text = format_segments(segments)
    scan = scan_path(text)
    assert scan.valid
    assert scan.error_offset is None
    assert list(scan.values) == segments
    for segment in scan.segments:
        assert segment.closed
        assert toml_decode(text[segment.start : segment.end]) == (segment.value,)


@given(SEGMENTS, st.lists(st.sampled_from(["", " ", "\t", "  "]), min_size=12, max_size=12))
def test_scan_spans_with_spaced_and_literal_segments(segments: list[str], gaps: list[str]) -> None:
    written = [
        f"'{seg}'" if "'" not in seg and i % 2 else format_segments([seg])
        for i, seg in enumerate(segments)
    ]
    text = gaps[0]
    for i, piece in enumerate(written):
        if i:
            text += gaps[2 * i % 12] + "." + gaps[(2 * i + 1) % 12]
        text += piece
    text += gaps[-1]
    scan = scan_path(text)
    assert scan.valid
    assert list(scan.values) == segments
    assert parse_toml_key(text) == tuple(segments)
    for segment in scan.segments:
        assert toml_decode(text[segment.start : segment.end]) == (segment.value,)


@given(ANY_TEXT)
def test_scan_validity_agrees_with_parse_toml_key(text: str) -> None:
    scan = scan_path(text)
    try:
        expected = parse_toml_key(text)
    except PathResolutionError:
        assert not scan.valid
        assert scan.error_offset is not None
        assert 0 <= scan.error_offset <= len(text)
    else:
        assert scan.valid
        assert scan.values == expected


@given(ANY_TEXT)
def test_scan_segments_are_ordered_spans(text: str) -> None:
    scan = scan_path(text)
    previous_end = 0
    for segment in scan.segments:
        assert previous_end <= segment.start < segment.end <= len(text)
        previous_end = segment.end


# --- scan_at ----------------------------------------------------------------


def test_cursor_inside_a_bare_segment_replaces_the_whole_segment() -> None:
    result = scan_at("context.foreach", 10)
    assert [s.value for s in result.before] == ["context"]
    assert result.partial == PartialSegment("fo", 8, 15, None)


def test_cursor_at_segment_end_and_start() -> None:
    assert scan_at("context.foreach", 15).partial == PartialSegment("foreach", 8, 15, None)
    assert scan_at("context.foreach", 7).partial == PartialSegment("context", 0, 7, None)
    at_start = scan_at("context.foreach", 8)
    assert [s.value for s in at_start.before] == ["context"]
    assert at_start.partial == PartialSegment("", 8, 15, None)
    assert scan_at("context", 0) == scan_at("context", -5)
    assert scan_at("context", 0).partial == PartialSegment("", 0, 7, None)


def test_cursor_right_after_a_dot() -> None:
    result = scan_at("context.", 8)
    assert [s.value for s in result.before] == ["context"]
    assert result.partial == PartialSegment("", 8, 8, None)
    spaced = scan_at("context. ", 9)
    assert spaced.partial == PartialSegment("", 9, 9, None)
    assert [s.value for s in scan_at("a.b.", 4).before] == ["a", "b"]


def test_cursor_before_a_dot_belongs_to_the_segment_before() -> None:
    result = scan_at("a.b.c", 3)
    assert [s.value for s in result.before] == ["a"]
    assert result.partial == PartialSegment("b", 2, 3, None)


def test_the_segment_a_completion_replaces_and_those_behind_it() -> None:
    text = "context.foreach.orders.v2.item"
    inside = scan_at(text, 17)
    assert inside.replaced == ScannedSegment("orders", 16, 22)
    assert [s.value for s in inside.after] == ["v2", "item"]
    assert scan_at(text, 22).replaced == inside.replaced  # at the end of the segment
    assert scan_at(text, 16).replaced == inside.replaced  # at its start: replaced afresh
    after_dot = scan_at("a. .b", 3)
    assert (after_dot.replaced, [s.value for s in after_dot.after]) == (None, ["b"])
    assert scan_at(text, len(text)).after == ()


def test_cursor_in_spaces() -> None:
    before_next = scan_at("input. a", 6)
    assert before_next.partial == PartialSegment("", 6, 8, None)
    after_segment = scan_at("a .b", 2)
    assert [s.value for s in after_segment.before] == ["a"]
    assert after_segment.partial == PartialSegment("", 2, 2, None)


def test_cursor_in_an_unclosed_quote() -> None:
    result = scan_at('context.foreach."ord', 20)
    assert [s.value for s in result.before] == ["context", "foreach"]
    assert result.partial == PartialSegment("ord", 16, 20, '"')
    dotted = scan_at('context.foreach."orders.v', 25)
    assert dotted.partial == PartialSegment("orders.v", 16, 25, '"')
    just_opened = scan_at('context."', 9)
    assert just_opened.partial == PartialSegment("", 8, 9, '"')


def test_cursor_in_a_closed_quote_replaces_quotes_too() -> None:
    text = 'context.foreach."orders.v2".it'
    inside = scan_at(text, 24)
    assert inside.partial == PartialSegment("orders.", 16, 27, '"')
    after = scan_at(text, 27)
    assert after.partial == PartialSegment("orders.v2", 16, 27, '"')
    literal = scan_at("a.'x.y'", 5)
    assert literal.partial == PartialSegment("x.", 2, 7, "'")


def test_cursor_prefix_decodes_escapes() -> None:
    text = '"\\u00e9t\\u00'
    assert scan_at(text, 8).partial.value == "ét"
    assert scan_at(text, len(text)).partial.value == "ét\\u00"


def test_cursor_beyond_the_text_is_clamped() -> None:
    assert scan_at("a.bc", 99) == scan_at("a.bc", 4)
    assert scan_at("a.bc", 99).partial == PartialSegment("bc", 2, 4, None)
    assert scan_at("", 3).partial == PartialSegment("", 0, 0, None)


@given(ANY_TEXT, st.integers(min_value=-5, max_value=60))
def test_scan_at_never_raises_and_ranges_are_consistent(text: str, cursor: int) -> None:
    result = scan_at(text, cursor)
    clamped = max(0, min(cursor, len(text)))
    partial = result.partial
    assert 0 <= partial.start <= clamped <= partial.end <= len(text)
    assert partial.quote in (None, '"', "'")
    assert all(segment.end <= partial.start for segment in result.before)
    assert all(partial.end <= segment.start for segment in result.after)
    replaced = () if result.replaced is None else (result.replaced,)
    assert (*result.before, *replaced, *result.after) == scan_path(text).segments
    if result.replaced is not None:
        assert (result.replaced.start, result.replaced.end) == (partial.start, partial.end) or (
            result.replaced.end == partial.end and partial.value == ""
        )


@given(SEGMENTS, st.data())
def test_scan_at_inside_formatted_path(segments: list[str], data: st.DataObject) -> None:
    text = format_segments(segments)
    scan = scan_path(text)
    index = data.draw(st.integers(min_value=0, max_value=len(segments) - 1))
    segment = scan.segments[index]
    result = scan_at(text, segment.end)
    assert list(result.before) == list(scan.segments[:index])
    assert result.partial == PartialSegment(
        segment.value, segment.start, segment.end, segment.quote
    )

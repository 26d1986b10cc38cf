"""Position conversion between code-point offsets and LSP positions, per encoding."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from wf_core.base.edits import Edit, apply_in_order
from wf_core.base.spans import LineIndex, Span
from wfls.convert import ContentModified, MappedCodec, PositionCodec, edit_at

TEXT = 'a = "é😀x"\r\nb = 1\n😀'


@pytest.mark.parametrize(
    ("encoding", "column_of_x"),
    [("utf-32", 7), ("utf-16", 8), ("utf-8", 11)],
)
def test_columns_count_code_units_of_the_encoding(encoding: str, column_of_x: int):
    codec = PositionCodec(LineIndex(TEXT), encoding)
    offset = TEXT.index("x")
    assert codec.position(offset) == types.Position(line=0, character=column_of_x)
    assert codec.offset(types.Position(line=0, character=column_of_x)) == offset


@pytest.mark.parametrize("encoding", ["utf-32", "utf-16", "utf-8"])
def test_round_trip_of_every_offset(encoding: str):
    codec = PositionCodec(LineIndex(TEXT), encoding)
    for offset in range(len(TEXT) + 1):
        if TEXT[offset - 1 : offset + 1] == "\r\n":
            continue  # between \r and \n: not a position a client can name
        assert codec.offset(codec.position(offset)) == offset


@pytest.mark.parametrize("encoding", ["utf-32", "utf-16", "utf-8"])
def test_in_an_ascii_text_columns_are_code_points(encoding: str):
    text = 'a = "ex"\r\nb = 1\n'
    codec = PositionCodec(LineIndex(text), encoding)
    assert codec.position(text.index("x")) == types.Position(line=0, character=6)
    assert codec.units(len(text)) == (2, 0)
    # An edit that brings the first non-ASCII character is seen by the derived index.
    edited = text.replace("ex", "éx")
    derived = LineIndex(text).edited(edited, text.index("e"), 0)
    assert not derived.is_ascii
    assert PositionCodec(derived, encoding).units(edited.index("x")) == (
        0,
        {"utf-32": 6, "utf-16": 6, "utf-8": 7}[encoding],
    )


def test_a_unit_inside_a_character_rounds_down():
    codec = PositionCodec(LineIndex(TEXT), "utf-16")
    emoji = TEXT.index("😀")
    assert codec.offset(types.Position(line=0, character=7)) == emoji


def test_positions_past_the_end_are_clamped():
    codec = PositionCodec(LineIndex(TEXT), "utf-16")
    assert codec.offset(types.Position(line=1, character=99)) == TEXT.index("\nb") + len("\nb = 1")
    assert codec.offset(types.Position(line=9, character=0)) == len(TEXT)
    assert codec.offset(types.Position(line=0, character=99)) == TEXT.index("\r")


def test_range_of_a_span_on_the_last_line():
    codec = PositionCodec(LineIndex(TEXT), "utf-8")
    start = TEXT.rindex("😀")
    assert codec.range(Span(start, start + 1)) == types.Range(
        start=types.Position(line=2, character=0), end=types.Position(line=2, character=4)
    )


_CHANGE = st.builds(
    lambda sl, sc, el, ec, text: types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(line=sl, character=sc), end=types.Position(line=el, character=ec)
        ),
        text=text,
    ),
    st.integers(0, 4),
    st.integers(0, 6),
    st.integers(0, 4),
    st.integers(0, 6),
    st.text(alphabet="ab\n\r😀é", max_size=4),
)


@given(
    st.text(alphabet="ab\n\r😀é", max_size=20),
    st.lists(_CHANGE, min_size=1, max_size=6),
    st.sampled_from(["utf-8", "utf-16", "utf-32"]),
)
def test_edits_with_a_carried_line_index_give_the_same_text(
    text: str, changes: list[types.TextDocumentContentChangePartial], encoding: str
) -> None:
    """The line index handed from one change to the next (never rescanning the text
    while typing) places every change where a freshly built one would, and numbers the
    lines of the text the changes made as a fresh one does."""
    fresh, carried = text, LineIndex(text)
    for change in changes:
        fresh = edit_at(change, encoding)(LineIndex(fresh)).apply(fresh)
        carried, _ = apply_in_order(carried, [edit_at(change, encoding)])
        assert carried.text == fresh
        reference = LineIndex(fresh)
        assert carried.is_ascii == reference.is_ascii == fresh.isascii()
        codec, fresh_codec = PositionCodec(carried, encoding), PositionCodec(reference, encoding)
        for offset in range(len(fresh) + 1):
            assert carried.position(offset) == reference.position(offset)
            assert codec.units(offset) == fresh_codec.units(offset)
    # All the changes at once, each read with the index of the text the ones before made.
    lines, _ = apply_in_order(LineIndex(text), [edit_at(c, encoding) for c in changes])
    assert lines.text == fresh


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # A whole-text change becomes the edit of the one region that differs.
        (types.TextDocumentContentChangeWholeDocument(text='a = "é😀y"\r\nb = 1\n😀'), (7, 8, "y")),
        # A backwards range is taken forwards; past the line's end is its end (before
        # \r); a UTF-16 unit inside a character (the second of 😀) is its start.
        (
            types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=types.Position(line=0, character=99),
                    end=types.Position(line=0, character=7),
                ),
                text="",
            ),
            (6, 9, ""),
        ),
    ],
)
def test_a_change_becomes_an_edit_of_the_text_before_it(
    change: types.TextDocumentContentChangeEvent, expected: tuple[int, int, str]
) -> None:
    edit = edit_at(change, "utf-16")(LineIndex(TEXT))
    assert (edit.start, edit.end, edit.new_text) == expected


@pytest.mark.parametrize(
    ("sent", "edit", "position", "expected"),
    [
        # A line inserted above: the position maps to the later text and back.
        ('id = "tally"\n', Edit(0, 0, "#\n"), (0, 6), ("tally", (0, 6))),
        # An edit after the position leaves it where it was.
        ('id = "tally"\nx = 1\n', Edit(13, 14, "yy"), (0, 6), ("tally", (0, 6))),
        # Inside the changed text there is nothing to answer about.
        ('id = "tally"\n', Edit(6, 11, "other"), (0, 7), None),
        # At an insertion's very place: before or after the insertion? Not told.
        ('id = "tally"\n', Edit(6, 6, "x"), (0, 6), None),
    ],
)
def test_a_request_sent_before_an_edit_is_read_through_it(
    sent: str, edit: Edit, position: tuple[int, int], expected: tuple[str, tuple[int, int]] | None
) -> None:
    later = edit.apply(sent)
    codec = MappedCodec(LineIndex(sent), LineIndex(later), edit.region, "utf-16")
    asked = types.Position(*position)
    if expected is None:
        with pytest.raises(ContentModified):
            codec.offset(asked)
        return
    word, back = expected
    offset = codec.offset(asked)
    assert later[offset : offset + len(word)] == word
    assert codec.position(offset) == types.Position(*back)
    with pytest.raises(ContentModified):  # an answer inside what the edit wrote
        codec.position(edit.start + 1 if edit.new_text else edit.start)

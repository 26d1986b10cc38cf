"""Position conversion between code-point offsets and LSP positions, per encoding."""

from __future__ import annotations

import pytest
from lsprotocol import types

from wf_core.spans import LineIndex, Span
from wfls.convert import PositionCodec

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

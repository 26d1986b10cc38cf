"""Conversion of semantic tokens, symbols, folds and selections to the protocol's types."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types

from wf_core.base.spans import LineIndex, Span
from wfls.capabilities import ClientFlags
from wfls.convert import (
    PositionCodec,
    document_symbols_json,
    folding_range,
    protocol_converter,
    selection_range,
    semantic_tokens_data,
    semantic_tokens_edits,
    symbol_information,
)
from wfls.features.legend import TOKEN_MODIFIERS, TOKEN_TYPES
from wfls.features.types import Fold, OutlineSymbol, SemanticToken

TEXT = 'a = "é😀x.yz"\nb = """q\nrs"""\n'


def token(needle: str, kind: str = "property", *modifiers: str) -> SemanticToken:
    start = TEXT.index(needle)
    return SemanticToken(Span(start, start + len(needle)), kind, modifiers)


def decode(data: list[int]) -> list[tuple[int, int, int, str, tuple[str, ...]]]:
    """Absolute (line, start, length, type, modifiers) of relative-encoded data."""
    out = []
    line = start = 0
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, bits = data[i : i + 5]
        line += delta_line
        start = start + delta_start if delta_line == 0 else delta_start
        modifiers = tuple(m for j, m in enumerate(TOKEN_MODIFIERS) if bits & (1 << j))
        out.append((line, start, length, TOKEN_TYPES[kind], modifiers))
    return out


@pytest.mark.parametrize(
    ("encoding", "x_start"),
    [("utf-32", 7), ("utf-16", 8), ("utf-8", 11)],
)
def test_tokens_are_relative_and_counted_in_the_encoding(encoding: str, x_start: int) -> None:
    codec = PositionCodec(LineIndex(TEXT), encoding)
    tokens = [
        token("a"),
        token("é😀x", "variable", "defaultLibrary"),
        token("yz", "property", "deprecated", "defaultLibrary"),
        token("b", "namespace", "declaration"),
    ]
    emoji_x = {"utf-32": 3, "utf-16": 4, "utf-8": 7}[encoding]
    assert decode(semantic_tokens_data(tokens, codec, ClientFlags())) == [
        (0, 0, 1, "property", ()),
        (0, 5, emoji_x, "variable", ("defaultLibrary",)),
        (0, x_start + 2, 2, "property", ("deprecated", "defaultLibrary")),
        (1, 0, 1, "namespace", ("declaration",)),
    ]


def test_a_token_over_two_lines_is_cut_unless_the_client_takes_it_whole() -> None:
    codec = PositionCodec(LineIndex(TEXT), "utf-16")
    multi = [token("q\nrs")]
    assert decode(semantic_tokens_data(multi, codec, ClientFlags())) == [
        (1, 7, 1, "property", ()),
        (2, 0, 2, "property", ()),
    ]
    whole = semantic_tokens_data(multi, codec, ClientFlags(multiline_tokens=True))
    assert decode(whole) == [(1, 7, 4, "property", ())]


@pytest.mark.parametrize("tokens", [6, 700])
def test_delta_edits_rebuild_the_new_data(tokens: int) -> None:
    """Short data, and data of several of the blocks compared at once."""
    rng = random.Random(7)
    for _ in range(200):
        before = [rng.randrange(4) for _ in range(5 * rng.randrange(tokens))]
        after = list(before)
        for _ in range(rng.randrange(3)):
            at = 5 * rng.randrange(len(after) // 5 + 1)
            if rng.random() < 0.5 and at < len(after):
                del after[at : at + 5]
            else:
                after[at:at] = [rng.randrange(4) for _ in range(5)]
        edits = semantic_tokens_edits(before, after)
        rebuilt = list(before)
        for edit in reversed(edits):
            assert edit.start % 5 == 0 and edit.delete_count % 5 == 0
            rebuilt[edit.start : edit.start + edit.delete_count] = edit.data or []
        assert rebuilt == after
        assert (edits == []) == (before == after)
        if edits:  # no wider than the longest shared start and end allow
            prefix = next(
                (k for k, (x, y) in enumerate(zip(before, after, strict=False)) if x != y), None
            )
            if prefix is not None:
                assert edits[0].start == prefix - prefix % 5


def test_symbols_nest_as_trees_or_flatten_with_their_container() -> None:
    codec = PositionCodec(LineIndex(TEXT), "utf-16")
    child = OutlineSymbol("b", "Function", Span(13, 27), Span(13, 14), "node")
    parent = OutlineSymbol("a", "Namespace", Span(0, 27), Span(0, 1), "foreach", (child,))
    plain = document_symbols_json([parent], codec)
    # The plain JSON is the protocol's: it reads back as its classes, and is sent as it is.
    [tree] = protocol_converter().structure(plain.value, list[types.DocumentSymbol])
    assert protocol_converter().unstructure(plain) is plain.value
    assert tree.range == codec.range(parent.span)
    assert tree.kind == types.SymbolKind.Namespace and tree.detail == "foreach"
    assert [c.name for c in tree.children or []] == ["b"]
    assert tree.children and tree.children[0].selection_range == types.Range(
        start=types.Position(line=1, character=0), end=types.Position(line=1, character=1)
    )
    flat = symbol_information([parent], "file:///w.wf.toml", codec)
    assert [(s.name, s.kind, s.container_name) for s in flat] == [
        ("a", types.SymbolKind.Namespace, None),
        ("b", types.SymbolKind.Function, "a"),
    ]


def test_folds_keep_a_closing_bracket_visible_on_line_only_clients() -> None:
    text = "input = [\n  1,\n  2,\n]\n[t]\nk = 1\nj = 2\n"
    codec = PositionCodec(LineIndex(text), "utf-16")
    array = Fold(Span(text.index("[") + 1, text.index("]")))
    section = Fold(Span(text.index("[t]") + 3, text.index("j = 2") + 5))
    lines_only = ClientFlags(line_folding_only=True)
    assert folding_range(array, codec, lines_only) == types.FoldingRange(start_line=0, end_line=2)
    assert folding_range(section, codec, lines_only) == types.FoldingRange(start_line=4, end_line=6)
    exact = folding_range(array, codec, ClientFlags())
    assert exact == types.FoldingRange(start_line=0, start_character=9, end_line=3, end_character=0)
    one_line = Fold(Span(text.index("[t]"), text.index("[t]") + 3))
    assert folding_range(one_line, codec, lines_only) is None


def test_a_selection_chain_becomes_nested_parents() -> None:
    codec = PositionCodec(LineIndex(TEXT), "utf-8")
    chain = [Span(5, 7), Span(4, 13), Span(0, len(TEXT))]
    selection = selection_range(chain, codec)
    ranges = []
    current: types.SelectionRange | None = selection
    while current is not None:
        ranges.append((current.range.start.character, current.range.end.character))
        current = current.parent
    assert ranges == [(5, 11), (4, 0), (0, 0)]  # é is 2 bytes, 😀 4; the string ends a line

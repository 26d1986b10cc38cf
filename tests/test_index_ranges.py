"""A question about a range of the document (the tokens or inlay hints of a screen) makes
only the parts of the elements there, and answers what the whole index answers there."""

from __future__ import annotations

import json
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wf_core.authoring.generate import generate_toml
from wf_core.base.spans import Span
from wf_core.semantic.index import SemanticIndex
from wf_core.version.snapshot import analyze_text

# Tables that extend a node, sections between nodes, and a node whose id is written with
# an escape: the ranges an element's names may lie in.
EXTENDED = (
    generate_toml(3)
    + """
[[nodes]]
id = "late"
type = "node"
node = "charge_order"

[[nodes.input]]
target = "y"
path = "context.foreach.g0_customers.item.name"

[output_schema]
type = "object"

[[nodes]]
id = "esc\\u0061ped"
type = "node"
node = "charge_order"
"""
)
DOCUMENTS = {
    "toml": EXTENDED,
    "json": json.dumps(tomllib.loads(EXTENDED), indent=2),
}
SNAPSHOTS = {syntax: analyze_text(text, syntax) for syntax, text in DOCUMENTS.items()}


def _touching(spans, lo: int, hi: int):
    return [s for s in spans if s.end >= lo and s.start <= hi]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(DOCUMENTS)), st.data())
def test_a_range_is_answered_as_the_whole_index_answers_it(syntax: str, data) -> None:
    snapshot = SNAPSHOTS[syntax]
    size = len(snapshot.text)
    start = data.draw(st.integers(0, size))
    end = data.draw(st.integers(start, min(size, start + 3000)))
    span = Span(start, end)
    index = snapshot.index
    whole = index.occurrences
    assert [o.span for o in index.occurrences_in(span)] == _touching(
        [o.span for o in whole], start, end
    )
    assert [p.literal.span for p in index.paths_in(span)] == _touching(
        [p.literal.span for p in index.paths], start, end
    )
    # Tokens (``semantic_tokens(view, span)``) are given by part, every token of a part
    # with a name there: the same parts, in the same order.
    every_part = _EveryPart(index.parts)
    assert list(index.placed(span)) == list(SemanticIndex(every_part).placed(span))


class _EveryPart:
    """A part source asked about every element, whatever the range (the reference)."""

    def __init__(self, parts) -> None:
        self._parts = parts

    def __getattr__(self, name: str):
        return getattr(self._parts, name)

    def elements_in(self, kind, start: int, end: int) -> range:
        return range(self._parts.count(kind))

    def elements_mentioning(self, kind, name: str) -> range:
        return range(self._parts.count(kind))


@pytest.mark.parametrize("syntax", sorted(DOCUMENTS))
def test_every_symbol_is_found_where_the_whole_index_finds_it(syntax: str) -> None:
    """Occurrences are looked for only in the elements whose text spells the name (or holds
    a backslash): the same as in every element, for every symbol of the document, one
    written with an escape among them."""
    snapshot = SNAPSHOTS[syntax]
    index = snapshot.index
    reference = SemanticIndex(_EveryPart(index.parts))
    symbols = {o.symbol for o in index.occurrences if o.symbol is not None}
    assert any(s.name == "escaped" for s in symbols)
    assert len(symbols) > 20
    for symbol in symbols:
        assert index.occurrences_of(symbol) == reference.occurrences_of(symbol), symbol


def test_a_screen_of_a_large_document_makes_only_its_parts() -> None:
    text = generate_toml(400)
    snapshot = analyze_text(text, "toml")
    middle = text.index("[[nodes]]", len(text) // 2)
    made: list[tuple[str, int]] = []
    parts = snapshot.index.parts
    real = parts.part

    def counting(kind, index):
        made.append((kind, index))
        return real(kind, index)

    screen = SemanticIndex(parts)
    parts.part = counting  # type: ignore[method-assign]
    assert screen.paths_in(Span(middle, middle + 2000))
    assert 0 < len({k for k, _ in made if k == "nodes"}) <= 12
    assert len(made) < 40

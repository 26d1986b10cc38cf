"""Completion while typing: answers derived from the previous analysis equal fresh ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wf_core.base.edits import Edit, Region, edit_between
from wf_core.base.spans import LineIndex
from wf_core.version.overlay import derive_edited_snapshot
from wf_core.version.snapshot import analyze_text
from wfls.features.completion import complete
from wfls.features.hover import hover

BILLING = (Path(__file__).parent.parent / "examples" / "billing.wf.toml").read_text()
TARGET = 'path = "context.foreach.customers.item.name"'


_TEXT = st.text(alphabet="ab\n\r😀", max_size=30)


@given(_TEXT, st.data())
def test_an_edited_line_index_answers_as_a_fresh_one(old: str, data: st.DataObject) -> None:
    """Edits, most inside one line, one after another: the index that follows each (shared
    starts, shifted, or made afresh where a break may have changed: ``\\r``, ``\\n`` and
    ``\\r\\n`` each end a line) agrees with an index built from scratch on every offset
    and line."""
    index = LineIndex(old)
    text = old
    for _ in range(data.draw(st.integers(1, 3))):
        start = data.draw(st.integers(0, len(text)))
        line_end = text.find("\n", start)
        end = data.draw(st.integers(start, len(text) if line_end == -1 else line_end))
        inserted = data.draw(st.text(alphabet="ab\r\n😀", max_size=5))
        new = text[:start] + inserted + text[end:]
        index = index.following(new, Region(start, end, start + len(inserted)))
        text = new
        _numbers_lines_as_a_fresh_index(index, text)


@given(_TEXT, st.data())
def test_indexes_of_one_history_know_where_their_texts_first_differ(
    old: str, data: st.DataObject
) -> None:
    """Any two indexes of a chain of edits: their texts agree up to ``unchanged_before``
    (and so do the positions of every offset before it)."""
    indexes = [LineIndex(old)]
    for _ in range(data.draw(st.integers(1, 5))):
        text = indexes[-1].text
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        edit = Edit(start, end, data.draw(_TEXT))
        indexes.append(indexes[-1].following(edit.apply(text), edit.region))
    for a in indexes:
        assert a.unchanged_before(None) == 0
        for b in indexes:
            bound = a.unchanged_before(b)
            assert bound == b.unchanged_before(a)
            assert a.text[:bound] == b.text[:bound]
            assert all(a.position(o) == b.position(o) for o in range(bound))


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\rb\r\nc\nd", ["a", "b", "c", "d"]),
        ("a\r", ["a", ""]),
        ("\r\r\n\n", ["", "", "", ""]),
        ("a\n\rb", ["a", "", "b"]),
    ],
)
def test_a_line_ends_at_a_line_feed_a_carriage_return_or_both(text: str, lines: list[str]):
    """As LSP numbers lines: a lone ``\\r`` ends one, so a text ending with one has an
    empty last line, where a client's position after it lands."""
    index = LineIndex(text)
    assert [index.line_text(n) for n in range(index.line_count)] == lines
    assert index.position(len(text)) == (len(lines) - 1, len(lines[-1]))
    assert index.offset(len(lines) - 1, 0) == len(text) - len(lines[-1])


def _numbers_lines_as_a_fresh_index(index: LineIndex, text: str) -> None:
    fresh = LineIndex(text)
    assert index.text == text
    assert index.line_count == fresh.line_count
    for offset in range(-1, len(text) + 2):
        assert index.position(offset) == fresh.position(offset)
    for line in range(-1, fresh.line_count + 1):
        for column in (0, 1, 3, 100):
            assert index.offset(line, column) == fresh.offset(line, column)
        if 0 <= line < fresh.line_count:
            assert index.line_text(line) == fresh.line_text(line)
            assert index.line_start(line) == fresh.line_start(line)


def test_an_edited_snapshot_numbers_lines_as_a_fresh_analysis() -> None:
    base = analyze_text(BILLING, "toml")
    base.lines  # noqa: B018 - the base's index, which the edited one shares
    text = BILLING.replace(TARGET, 'path = "context.foreach.customers.item.nameXYZ"')
    edited = derive_edited_snapshot(base, text, edit_between(base.text, text).region, 2)
    assert edited is not None
    fresh = LineIndex(text)
    for offset in range(0, len(text) + 1, 7):
        assert edited.lines.position(offset) == fresh.position(offset)


@pytest.mark.parametrize(
    "typed",
    [
        'path = "context.foreach.customers.item.na"',
        'path = "context.foreach.customers.item."',
        'path = "context.foreach."',
        'path = "context.foreach.customers.it"',
        'path = "context.foreach.\\"ord"',
    ],
)
def test_completion_from_an_edited_snapshot_equals_a_fresh_one(typed: str) -> None:
    base = analyze_text(BILLING, "toml")
    text = BILLING.replace(TARGET, typed)
    edited = derive_edited_snapshot(base, text, edit_between(base.text, text).region, 2)
    assert edited is not None
    fresh = analyze_text(text, "toml")
    cursor = text.index(typed) + len(typed) - 1
    offered = complete(fresh, cursor)
    assert offered, "each typed path has something to complete"
    assert complete(edited, cursor) == offered
    assert hover(edited, cursor - 2) == hover(fresh, cursor - 2)
    # After the edit, offsets shift: the next path's answers still match a fresh analysis.
    later = text.index('output = [{ source = "amount"') + len('output = [{ source = "am')
    after = complete(fresh, later)
    assert [c.label for c in after] == ["amount"]
    assert complete(edited, later) == after


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (TARGET, TARGET + " }, {"),  # the edit leaves the string
        ('id = "charge"', 'id = "charges"'),  # an id: the graph changes
        ('[[nodes]]\nid = "charge"', '[[nodes]]\nid = "charge"\n'),  # a new line
        (TARGET, TARGET.replace('"context', "'context")),  # the quotes change
    ],
)
def test_edits_outside_one_string_need_a_full_analysis(old: str, new: str) -> None:
    base = analyze_text(BILLING, "toml")
    text = BILLING.replace(old, new, 1)
    assert derive_edited_snapshot(base, text, edit_between(base.text, text).region, 2) is None


def test_references_may_be_typed_without_reanalysis() -> None:
    base = analyze_text(BILLING, "toml")
    text = BILLING.replace('to = "charge" }', 'to = "char" }')
    edited = derive_edited_snapshot(base, text, edit_between(base.text, text).region, 2)
    assert edited is not None
    cursor = text.index('to = "char"') + len('to = "char')
    labels = [c.label for c in complete(edited, cursor)]
    assert labels == ["customers", "orders.v2", "charge", "__end__"]


def test_an_edited_snapshot_finds_every_occurrence_of_a_symbol_as_a_fresh_one() -> None:
    """Highlights while typing look for a symbol only in the elements whose (new) text
    spells it: the occurrences a fresh analysis of the new text finds."""
    base = analyze_text(BILLING, "toml")
    text = BILLING.replace(TARGET, 'path = "context.foreach.customers.item.nam"')
    edited = derive_edited_snapshot(base, text, edit_between(base.text, text).region, 2)
    assert edited is not None
    fresh = analyze_text(text, "toml")
    symbols = {o.symbol for o in fresh.index.occurrences if o.symbol is not None}
    assert len(symbols) > 5
    for symbol in symbols:
        found = [(o.span, o.role) for o in fresh.index.occurrences_of(symbol)]
        assert [(o.span, o.role) for o in edited.index.occurrences_of(symbol)] == found

"""Edits of a text and the region they changed, found from the edits alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wf_core.base.edits import (
    Edit,
    EditAt,
    Region,
    apply_edits,
    apply_in_order,
    edit_between,
    region_of,
)
from wf_core.base.spans import LineIndex

_TEXT = st.text(alphabet="ab\n\r😀", max_size=30)


@st.composite
def _edit_runs(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    """A text and edits of it, each in the offsets of the text the ones before made."""
    text = draw(_TEXT)
    edits = []
    current = text
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(0, len(current)))
        end = draw(st.integers(start, len(current)))
        edit = Edit(start, end, draw(st.text(alphabet="ab\n😀", max_size=5)))
        edits.append(edit)
        current = edit.apply(current)
    return text, edits


@pytest.mark.parametrize(
    ("text", "edits", "expected", "region"),
    [
        ("abcdef", [Edit(2, 4, "XYZ")], "abXYZef", Region(2, 4, 5)),
        # Two places: the region spans both, in the old and the new offsets.
        ("abcdef", [Edit(1, 2, ""), Edit(3, 3, "++")], "acd++ef", Region(1, 4, 5)),
        # The later edit lies before the earlier one.
        ("abcdef", [Edit(4, 5, "EE"), Edit(0, 1, "")], "bcdEEf", Region(0, 5, 5)),
        # The later edit replaces part of what the earlier one wrote and more.
        ("abcdef", [Edit(2, 2, "123"), Edit(4, 7, "")], "ab12ef", Region(2, 4, 4)),
        # Writing what was there already still counts: a region is never narrower.
        ("ab😀cd", [Edit(2, 3, "😀")], "ab😀cd", Region(2, 3, 3)),
    ],
)
def test_edits_apply_in_order_and_their_region_is_the_union(
    text: str, edits: list[Edit], expected: str, region: Region
) -> None:
    assert apply_edits(text, edits) == expected
    assert region_of(edits) == region
    lines, found = apply_in_order(LineIndex(text), edits)
    assert (lines.text, found) == (expected, region)


def test_no_edits_change_nothing() -> None:
    assert apply_edits("abc", []) == "abc"
    assert region_of([]) is None
    lines = LineIndex("abc")
    assert apply_in_order(lines, []) == (lines, None)


def test_an_edit_backwards_is_refused() -> None:
    with pytest.raises(ValueError, match=r"invalid edit range 3\.\.2"):
        Edit(3, 2, "")


@given(_edit_runs())
def test_the_region_of_edits_covers_every_changed_character(run: tuple[str, list[Edit]]) -> None:
    """Applied together or one by one, the edits make the same text; outside the region
    computed from the edits alone, the old and the new text are equal."""
    text, edits = run
    new = apply_edits(text, edits)
    one_by_one = text
    for edit in edits:
        one_by_one = edit.apply(one_by_one)
    assert new == one_by_one
    region = region_of(edits)
    if region is None:
        assert edits == [] and new == text
        return
    assert 0 <= region.start <= region.old_end <= len(text)
    assert region.start <= region.new_end <= len(new)
    assert text[: region.start] == new[: region.start]
    assert text[region.old_end :] == new[region.new_end :]
    assert len(new) - len(text) == region.delta


@given(_edit_runs())
def test_edits_read_with_the_index_of_the_text_before_them(run: tuple[str, list[Edit]]) -> None:
    """An edit given by lines and columns is read with the index of the text the edits
    before it made, and the index carried from one edit to the next numbers lines as a
    fresh one does."""
    text, edits = run

    def at(edit: Edit) -> tuple[int, int, int, int, str]:
        return (*before.position(edit.start), *before.position(edit.end), edit.new_text)

    positioned = []
    before = LineIndex(text)
    for edit in edits:
        positioned.append(at(edit))
        before = LineIndex(edit.apply(before.text))

    def reader(sl: int, sc: int, el: int, ec: int, new_text: str) -> EditAt:
        return lambda lines: Edit(lines.line_start(sl) + sc, lines.line_start(el) + ec, new_text)

    lines, region = apply_in_order(LineIndex(text), [reader(*p) for p in positioned])
    assert lines.text == apply_edits(text, edits)
    assert region == region_of(edits)
    fresh = LineIndex(lines.text)
    assert lines.line_count == fresh.line_count
    for offset in range(len(lines.text) + 1):
        assert lines.position(offset) == fresh.position(offset)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("", "x"),
        ("abc", "abc"),
        ("abcdef", "abXYZdef"),
        ("aaaa", "aaa"),
        ("ab😀cd", "ab😀😀cd"),
    ],
)
def test_edit_between_two_texts(old: str, new: str) -> None:
    edit = edit_between(old, new)
    assert edit.apply(old) == new
    region = edit.region
    assert old[: region.start] == new[: region.start]
    assert old[region.old_end :] == new[region.new_end :]


@given(_TEXT, st.data())
def test_edit_between_finds_the_one_replaced_region(old: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(old)))
    end = data.draw(st.integers(start, len(old)))
    new = old[:start] + data.draw(_TEXT) + old[end:]
    edit = edit_between(old, new)
    assert edit.apply(old) == new
    found, old_end, new_end = edit.start, edit.end, edit.region.new_end
    # The region is minimal: it neither starts nor ends with a character both share.
    shared = zip(old, new, strict=False)
    assert found == next((i for i, (a, b) in enumerate(shared) if a != b), min(len(old), len(new)))
    assert found in (old_end, new_end) or old[old_end - 1] != new[new_end - 1]

"""A version read from the previous one (``toml_chunks.read_spliced``) is the version read
afresh: the same values, the same source map (every entry, string, child and located
offset), the same element keys and bases, whatever chain of edits led to it; and the
previous version's values are never written into."""

from __future__ import annotations

from unittest import mock

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_documents_properties import _edit, _same_in_full

from wf_core.authoring.generate import generate_toml
from wf_core.base.edits import Edit
from wf_core.base.locations import Location
from wf_core.documents import DocumentParser, ParsedDocument, parse_document, toml_chunks
from wf_core.documents.source_map import ELEMENT_LISTS, Kind, SourceMap

DOCUMENT = generate_toml(12)

# Mostly what typing inside a statement writes; now and then what splits, joins or breaks
# statements, so that every way out of the splice is taken too.
_typed = st.text(alphabet=st.sampled_from(list("abcxyz019_. -")), min_size=1, max_size=3)
_structural = st.text(alphabet=st.sampled_from(list("\"'[]{}=,#\n\\\t")), min_size=1, max_size=2)
_edits = st.lists(
    st.tuples(
        st.booleans(),
        st.floats(min_value=0, max_value=1, exclude_max=True),
        st.one_of(_typed, _typed, _typed, _structural),
        st.integers(1, 4),
    ),
    min_size=1,
    max_size=8,
)


def _same(a: ParsedDocument, b: ParsedDocument, *, spliced: bool = False) -> None:
    """``_same_in_full``, every other question the source map answers, every 200th of the
    text located, and, for a version read from the previous one, its element keys and
    bases."""
    _same_in_full(a, b)
    mine, theirs = a.source_map, b.source_map
    assert len(mine) == len(theirs)
    assert list(mine.ranges_of(frozenset(Kind))) == list(theirs.ranges_of(frozenset(Kind)))
    assert mine.keys_without_value() == theirs.keys_without_value()
    for loc in theirs.locations():
        assert loc in mine
        entry = theirs.get(loc)
        assert entry is not None and mine.get(loc) == entry
        origin = entry.value.start if entry.key is None else min(entry.key.start, entry.value.start)
        assert mine.get(loc, origin) == theirs.get(loc, origin)  # as the index's parts ask
        assert mine.plain_string(loc) == theirs.plain_string(loc)
        assert _chunk_at(mine, loc) == _chunk_at(theirs, loc)
    for offset in range(0, len(a.text) + 1, max(1, len(a.text) // 200)):
        assert mine.locate(offset) == theirs.locate(offset)
        assert _placement_at(mine, offset) == _placement_at(theirs, offset)
    if not spliced or toml_chunks.read_clean(b.text, {}) is None:
        # (A statement read from a tree may be keyed with fewer trailing blanks; and a text
        # the fast reader read only with the chunks of a version read from a tree, such as
        # a statement with an escape, is read from a tree afresh.)
        return
    for kind in ELEMENT_LISTS:
        assert a.source_map.element_keys(kind) == b.source_map.element_keys(kind)
        assert a.source_map.element_bases(kind) == b.source_map.element_bases(kind)


# A chunk's text, but for its trailing blanks: a statement read from a tree may end before
# the blank lines after it, one read without a tree after them (both place the same ranges).


def _chunk_at(source_map: SourceMap, loc: Location) -> tuple[str, int] | None:
    found = source_map.chunk_at(loc)
    return None if found is None else (found[0].text.rstrip(), found[1])


def _placement_at(source_map: SourceMap, offset: int) -> tuple[object, ...] | None:
    found = source_map.placement_at(offset)
    if found is None:
        return None
    k, placement, base = found
    return k, placement.chunk.text.rstrip(), placement.table_loc, base, source_map.next_base(k)


class _Spy:
    """Counts the versions read from the previous one."""

    def __init__(self) -> None:
        self.results: list[bool] = []

    def __call__(self, *args, **kwargs):
        result = toml_chunks.read_spliced(*args, **kwargs)
        self.results.append(result is not None)
        return result

    def patch(self):
        return mock.patch("wf_core.documents.parser.read_spliced", self)


SPLICED: list[bool] = []  # every example's, for the test after this one


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edits, st.booleans(), st.booleans(), st.booleans())
# An escape typed (the text read from a tree), then the first key changed: the first
# statement's chunk, reused, ends after its line break; read afresh, before it.
@example(
    edits=[(True, 0.37890625, "\\", 1), (False, 0.0, "0", 1)],
    keys_first=False,
    each=False,
    line_break=False,
)
def test_spliced_versions_equal_fresh_ones(
    edits, keys_first: bool, each: bool, line_break: bool
) -> None:
    """``each``: every version compared (which builds what ``locate`` reads in each, and a
    version spliced from it shares that), or only the last (which builds it from the
    ranges of the version the chain began with); ``line_break``: whether the text ends
    with one (without, the last section's range ends where the text does)."""
    text = DOCUMENT if line_break else DOCUMENT.rstrip("\n")
    parser = DocumentParser("toml")
    previous = parser.parse(text)
    if keys_first:  # carried over when made, made afresh when not
        previous.source_map.element_keys("nodes")
    spy = _Spy()
    for i, edit in enumerate(edits):
        change = _edit(text, edit)
        text = change.apply(text)
        snapshot = repr(previous.values)
        with spy.patch():
            current = parser.parse(text, change.region)
        spliced = bool(spy.results) and spy.results[-1]
        if each or i == len(edits) - 1:
            _same(current, parse_document(text, "toml"), spliced=spliced)
        assert repr(previous.values) == snapshot
        if keys_first:
            current.source_map.element_keys("nodes")
        previous = current
        spy.results.clear()
        SPLICED.append(spliced)


def test_the_random_edits_took_the_splice() -> None:
    """The property above is about the splice only if it was taken: often, not always."""
    if not SPLICED:  # run alone
        test_spliced_versions_equal_fresh_ones()
    assert 0.05 < sum(SPLICED) / len(SPLICED) < 0.95


def test_typing_in_a_path_is_spliced_and_breaking_a_statement_is_not() -> None:
    """The splice is taken where it applies (a character typed into a path string, one
    deleted), and given up where a statement splits, joins or changes its header."""
    parser = DocumentParser("toml")
    text = DOCUMENT
    parser.parse(text)
    spy = _Spy()
    path = text.index("context.order")
    header = text.index("[[nodes]]", path)
    edits = [
        Edit(path + 8, path + 8, "x"),  # typed into a path
        Edit(path + 8, path + 9, ""),  # and deleted
        Edit(header + 2, header + 7, "node"),  # ``[[node]]``: another header
        Edit(header + 2, header + 6, "nodes"),  # back
        Edit(path, path, '"\n[[nodes]]\nid = "'),  # one statement becomes two
    ]
    for change in edits:
        text = change.apply(text)
        with spy.patch():
            current = parser.parse(text, change.region)
        _same(current, parse_document(text, "toml"), spliced=spy.results[-1])
    assert spy.results == [True, True, False, False, False]


def test_a_last_section_without_a_line_break_still_ends_with_the_text() -> None:
    """The range of a section that ends the text without a line break ends at the text's
    end, also once its last pair no longer does (commented out): the section's end and
    the text's end are two offsets that were one."""
    text = DOCUMENT.rstrip("\n")
    parser = DocumentParser("toml")
    parser.parse(text)
    last = text.rindex("\n") + 1
    spy = _Spy()
    for change in (Edit(last, last, "x = 1 # "), Edit(last + 4, last + 5, "2")):
        text = change.apply(text)
        with spy.patch():
            current = parser.parse(text, change.region)
        fresh = parse_document(text, "toml")
        _same(current, fresh, spliced=True)
        assert current.source_map.locate(len(text)) == fresh.source_map.locate(len(text))
    assert spy.results == [True, True]

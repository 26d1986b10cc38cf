"""Semantic tokens encoded part by part are the tokens of the whole document encoded at once.

``wfls.convert.semantic_token_runs_data`` encodes each part of the semantic index once and
keeps the encoding with the part, for every later version the part serves; placed, the
parts' encodings must give exactly what encoding every token of the version at once gives,
whatever the editing history, the position encoding and how multi-line tokens are sent.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_incremental_validation import DOCUMENTS, edit_of, edited_versions, syntax_of

from wf_core.base.derived import Derivations
from wf_core.base.edits import UNCHANGED, Edit, Region, apply_in_order
from wf_core.base.spans import LineIndex
from wf_core.documents import DocumentParser
from wf_core.version.snapshot import DocumentSnapshot, analyze_text
from wfls.capabilities import ClientFlags
from wfls.context import RequestContext
from wfls.convert import PositionCodec, semantic_token_runs_data, semantic_tokens_data
from wfls.features.semantic_tokens import semantic_tokens, token_runs
from wfls.handlers import semantic_tokens_full as full
from wfls.settings import Settings

ENCODINGS = ("utf-16", "utf-8", "utf-32")

# Beside the examples: a JSON document on one line (elements begin mid-line, after text
# of other parts), and node ids and names written with characters of two UTF-16 units.
MORE = {
    "approvals-one-line.wf.json": json.dumps(json.loads(DOCUMENTS["approvals.wf.json"])),
    "billing-wide.wf.toml": DOCUMENTS["billing.wf.toml"].replace("charge", "chärge😀"),
    "approvals-wide.wf.json": DOCUMENTS["approvals.wf.json"].replace("record", "récord😀"),
}

ALL = {**DOCUMENTS, **MORE}
STEPS = st.lists(
    st.tuples(
        st.floats(min_value=0, max_value=1, exclude_max=True),
        st.booleans(),
        st.integers(min_value=0, max_value=4),
        st.sampled_from(["x", "", "é", "😀", "_", "item.", '"', "\n", " ", "]"]),
    ),
    min_size=1,
    max_size=6,
)


def by_part(snapshot: DocumentSnapshot, encoding: str, multiline: bool) -> list[int] | None:
    codec = PositionCodec(snapshot.lines, encoding)
    return semantic_token_runs_data(
        token_runs(snapshot), codec, ClientFlags(multiline_tokens=multiline)
    )


def at_once(snapshot: DocumentSnapshot, encoding: str, multiline: bool) -> list[int]:
    codec = PositionCodec(snapshot.lines, encoding)
    flags = ClientFlags(multiline_tokens=multiline)
    return semantic_tokens_data(semantic_tokens(snapshot), codec, flags)


@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_document_encodes_by_part_as_at_once(name: str, encoding: str) -> None:
    text = ALL[name]
    snapshot = analyze_text(text, syntax_of(name))
    expected = at_once(snapshot, encoding, False)
    assert len(expected) > 50, "a document with tokens"
    assert by_part(snapshot, encoding, False) == expected
    assert by_part(snapshot, encoding, False) == expected, "the parts' encodings found again"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(ALL)), STEPS, st.sampled_from(ENCODINGS), st.booleans())
def test_any_chain_of_edits_encodes_by_part_as_at_once(
    name: str, steps: list[tuple[float, bool, int, str]], encoding: str, multiline: bool
) -> None:
    """Each version's parts are mostly the last one's, with their kept encodings; placed
    where the version has them, they must give what the version's tokens give (on one
    line of JSON, a node's tokens move along its line with every edit before them)."""
    for snapshot in edited_versions(ALL[name], syntax_of(name), steps):
        found = by_part(snapshot, encoding, multiline)
        if found is not None:  # None: parts overlap, and the tokens are encoded at once
            assert found == at_once(snapshot, encoding, multiline)


def test_a_part_found_again_is_not_encoded_again() -> None:
    """After an edit inside one node, every other part's encoding is the kept one."""
    text = DOCUMENTS["billing.wf.toml"]
    parser, derived = DocumentParser("toml"), Derivations()
    first = DocumentSnapshot(parser.parse(text), derived=derived)
    assert by_part(first, "utf-16", False) is not None
    kept = {id(run.part): run.part.memo["tokens"] for run in token_runs(first) if run.part}
    at = text.index("customers.item.name") + len("customers.item.n")
    lines, region = apply_in_order(LineIndex(text), [Edit(at, at + 1, "x")])
    second = DocumentSnapshot(parser.parse(lines.text, region), derived=derived)
    assert by_part(second, "utf-16", False) == at_once(second, "utf-16", False)
    runs = [run for run in token_runs(second) if run.part is not None]
    again = [run for run in runs if id(run.part) in kept]
    assert again and len(again) < len(runs), "the edited node's part is made again, no other"
    assert all(run.part.memo["tokens"] is kept[id(run.part)] for run in again)


@pytest.mark.parametrize("insert", ["x", "😀"])
def test_an_edit_before_a_part_on_its_line_moves_its_tokens_along(insert: str) -> None:
    """On one line of JSON every later node's part is found again after an edit in an
    earlier node, its tokens further along the line: its kept encoding is placed anew."""
    text = ALL["approvals-one-line.wf.json"]
    parser, derived = DocumentParser("json"), Derivations()
    first = DocumentSnapshot(parser.parse(text), derived=derived)
    assert by_part(first, "utf-16", False) == at_once(first, "utf-16", False)
    at = text.index("requests.item.amount") + 3
    lines, region = apply_in_order(LineIndex(text), [Edit(at, at, insert)])
    second = DocumentSnapshot(parser.parse(lines.text, region), derived=derived)
    kept = {id(run.part) for run in token_runs(first) if run.part is not None}
    moved = [run for run in token_runs(second) if id(run.part) in kept and run.base > at]
    assert moved, "parts after the edit are found again"
    assert by_part(second, "utf-16", False) == at_once(second, "utf-16", False)


class _Changes:
    """The store's side of a request context for ``moved``: how the text changed between
    two revisions (here, one per version of a chain of edits)."""

    def __init__(self) -> None:
        self.regions: list[Region] = []

    def codec_for(self, uri: str) -> PositionCodec | None:
        return None

    def region_between(self, uri: str, old: int, new: int) -> Region | None:
        if old == new:
            return UNCHANGED
        region = self.regions[old]
        for later in self.regions[old + 1 : new]:
            region = region.then(later)
        return region


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(ALL)), STEPS, st.sampled_from(ENCODINGS), st.booleans())
def test_a_delta_made_from_what_changed_is_every_token_of_the_version(
    name: str, steps: list[tuple[float, bool, int, str]], encoding: str, multiline: bool
) -> None:
    """The tokens ``semantic_tokens_full.moved`` makes from the last result (those where
    the text changed encoded again, the others moved) are every token of the version,
    encoded at once, where each token begins included; and its edit turns the last
    result's data into them. Each result is made from the one before, as a client asking
    for a delta after every edit gets them."""
    text, syntax = ALL[name], syntax_of(name)
    parser, derived = DocumentParser(syntax), Derivations()
    changes, flags = _Changes(), ClientFlags(multiline_tokens=multiline)
    lines, region = LineIndex(text), None
    last: full.TokensResult | None = None
    for revision, step in enumerate([None, *steps]):
        if step is not None:
            lines, region = apply_in_order(lines, [edit_of(lines.text, *step)])
            changes.regions.append(region if region is not None else UNCHANGED)
        snapshot = DocumentSnapshot(parser.parse(lines.text, region), derived=derived)
        codec = PositionCodec(snapshot.lines, encoding)
        ctx = RequestContext(
            "file:///t", snapshot, codec, flags, Settings(), changes, revision=revision
        )
        whole = full.compute(ctx)
        assert whole.data == at_once(snapshot, encoding, multiline)
        if last is not None:
            made = full.moved(ctx, last)
            if made is not None:  # None: the index read other values of the document
                result, edit = made
                assert (result.data, result.starts) == (whole.data, whole.starts)
                data = list(last.data)
                data[edit.start : edit.start + edit.delete_count] = edit.data or []
                assert data == whole.data
                whole = result
        last = whole


def test_a_keystroke_in_a_node_encodes_that_nodes_tokens_alone() -> None:
    """After a keystroke inside a path, the delta's edit covers the edited node's tokens
    (and the one after them), not the document's: here, of ``charge``, a node followed by
    another."""
    after = '[[nodes]]\nid = "after"\ntype = "node"\nnode = "charge_order"\n'
    text = DOCUMENTS["billing.wf.toml"] + "\n" + after
    parser, derived = DocumentParser("toml"), Derivations()
    changes, flags = _Changes(), ClientFlags()
    first = DocumentSnapshot(parser.parse(text), derived=derived)
    codec = PositionCodec(first.lines, "utf-16")
    before = full.compute(
        RequestContext("file:///t", first, codec, flags, Settings(), changes, revision=0)
    )
    at = text.index("customers.item.name") + len("customers.item.n")
    lines, region = apply_in_order(LineIndex(text), [Edit(at, at + 1, "x")])
    assert region is not None
    changes.regions.append(region)
    second = DocumentSnapshot(parser.parse(lines.text, region), derived=derived)
    ctx = RequestContext(
        "file:///t",
        second,
        PositionCodec(second.lines, "utf-16"),
        flags,
        Settings(),
        changes,
        revision=1,
    )
    made = full.moved(ctx, before)
    assert made is not None
    result, edit = made
    assert result.data == at_once(second, "utf-16", False)
    # From the node's first token to where the next node begins, not the whole document.
    charge = text.index('id = "charge"')
    assert before.starts[edit.start // 5 - 1] < charge <= before.starts[edit.start // 5]
    assert 0 < edit.delete_count < len(before.data) // 2

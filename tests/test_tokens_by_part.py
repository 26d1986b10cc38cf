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
from test_incremental_validation import DOCUMENTS, edited_versions, syntax_of

from wf_core.base.derived import Derivations
from wf_core.base.edits import Edit, apply_in_order
from wf_core.base.spans import LineIndex
from wf_core.documents import DocumentParser
from wf_core.version.snapshot import DocumentSnapshot, analyze_text
from wfls.capabilities import ClientFlags
from wfls.convert import PositionCodec, semantic_token_runs_data, semantic_tokens_data
from wfls.features.semantic_tokens import semantic_tokens, token_runs

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

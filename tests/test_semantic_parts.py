"""The semantic index in parts: whatever the editing history and whichever parts were
asked for first, the index of a version holds exactly what a fresh index of its text
holds, and after an edit only the parts of the elements it changed are made again."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_incremental_validation import (
    DOCUMENTS,
    edit_sequences,
    edited_versions,
    syntax_of,
)
from test_store import index_contents

from wf_core.base.derived import Derivations
from wf_core.base.edits import Edit, apply_in_order
from wf_core.base.spans import LineIndex
from wf_core.documents import DocumentParser
from wf_core.semantic.build import PartWriter
from wf_core.version.snapshot import DocumentSnapshot, analyze_text


def at_each_offset(snapshot: DocumentSnapshot) -> list[tuple[Any, Any]]:
    index = snapshot.index
    return [(index.occurrence_at(o), index.path_at(o)) for o in range(len(snapshot.text) + 1)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences(), st.lists(st.floats(0, 1, exclude_max=True), max_size=3))
def test_any_chain_of_edits_indexes_as_a_fresh_index_of_its_text(
    sequence: tuple[str, list[tuple[float, bool, int, str]]], asked: list[float]
) -> None:
    """Each version first answers a few questions about one place (each making only the
    part there), then is completed; every version's index, and the answer at every
    offset of the last, are what a fresh index gives."""
    name, steps = sequence
    syntax = syntax_of(name)
    for snapshot in edited_versions(DOCUMENTS[name], syntax, steps):
        for where in asked:
            snapshot.index.occurrence_at(int(where * len(snapshot.text)))
        fresh = analyze_text(snapshot.text, syntax)
        assert index_contents(snapshot.index) == index_contents(fresh.index)
    assert at_each_offset(snapshot) == at_each_offset(fresh)


def test_an_edit_inside_one_node_makes_that_nodes_part_again_only(monkeypatch) -> None:
    written: list[int] = []
    write = PartWriter.node

    def counted(self: PartWriter, index: int, base: int) -> Any:
        written.append(index)
        return write(self, index, base)

    monkeypatch.setattr(PartWriter, "node", counted)
    text = DOCUMENTS["billing.wf.toml"]
    parser, derived = DocumentParser("toml"), Derivations()
    first = DocumentSnapshot(parser.parse(text, None), derived=derived)
    assert first.index.complete()
    count = len(written)
    assert count == 3  # the example's three nodes
    second = DocumentSnapshot(parser.parse(text, None), derived=derived)  # the same text
    assert second.index.complete() and len(written) == count
    at = text.index("context.foreach.customers.item.name") + len("context.foreach.")
    lines, region = apply_in_order(LineIndex(text), [Edit(at, at, "x")])
    edited = lines.text
    third = DocumentSnapshot(parser.parse(edited, region), derived=derived)
    assert third.index.complete()
    charge = [i for i, node in enumerate(third.index.resolver.nodes) if node["id"] == "charge"]
    assert written[count:] == charge
    assert index_contents(third.index) == index_contents(analyze_text(edited, "toml").index)

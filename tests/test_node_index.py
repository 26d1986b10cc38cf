"""A node's own index (``NodeIndex``) and the views over it (``wf_core.node_view``): the
whole index's occurrences and paths inside that node, and the same completions and hovers
as the whole index gives at any place inside it, or ``IndexIncomplete``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.features.fixture import analyze
from wf_core.edits import edit_between
from wf_core.node_view import NodeView, at_node, node_index_at
from wf_core.overlay import EditedSnapshot, derive_edited_snapshot
from wf_core.semantic.index import IndexIncomplete, NodeIndex
from wf_core.snapshot import DocumentSnapshot
from wfls.features.completion import complete
from wfls.features.hover import hover

EXAMPLES = Path(__file__).parents[1] / "examples"

# A subgraph node's schemas declare properties: they are indexed with the node.
SUBGRAPH = """\
name = "parent"
start = "call"
[input_schema]
type = "object"
properties.rows.type = "array"
properties.rows.items = { type = "object", properties = { sku = { type = "string" } } }

[[nodes]]
id = "call"
type = "subgraph"
workflow = "child"
input_schema = { type = "object", properties = { sku = { type = "string" } } }
output_schema = { type = "object", properties = { total = { type = "number" } } }
input = [{ target = "sku", path = "input.rows" }]
output = [{ target = "state.total", path = "total" }]

[[edges]]
from = "call"
outcome = "ok"
to = "__end__"
"""

DOCUMENTS = {
    "billing": (EXAMPLES / "billing.wf.toml").read_text(),
    "approvals": (EXAMPLES / "approvals.wf.json").read_text(),
    "store_audit": (EXAMPLES / "store_audit.wf.toml").read_text(),
    "subgraph": SUBGRAPH,
}
SNAPSHOTS = {name: analyze(text) for name, text in DOCUMENTS.items()}


def _node_offsets(snapshot: DocumentSnapshot) -> list[int]:
    """Every offset inside a ``nodes`` entry's key or value ranges."""
    source_map = snapshot.parsed.source_map
    offsets = []
    for index in range(len(snapshot.index.resolver.nodes)):
        entry = source_map.get(("nodes", index))
        if entry is not None:
            offsets.extend(range(entry.value.start, entry.value.end + 1))
    return offsets


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_a_nodes_index_is_the_whole_index_inside_that_node(name: str) -> None:
    snapshot = SNAPSHOTS[name]
    whole = snapshot.index
    nodes = whole.resolver.nodes
    assert nodes
    for index in range(len(nodes)):
        entry = snapshot.parsed.source_map.get(("nodes", index))
        assert entry is not None
        node_index = node_index_at(analyze(snapshot.text), entry.value.start + 1)
        assert node_index is not None, index
        inside = [o for o in whole.occurrences if o.location[:2] == ("nodes", index)]
        assert node_index.local_occurrences() == inside
        paths = [p for p in whole.paths if p.location[:2] == ("nodes", index)]
        assert node_index.local_paths() == paths
    if name == "subgraph":  # the schemas of a subgraph node are part of it
        assert any(o.location[2] == "output_schema" for o in node_index.local_occurrences())


def test_outside_every_node_there_is_no_node_view() -> None:
    snapshot = analyze(DOCUMENTS["billing"])
    for needle in ('name = "billing"', '{ from = "charge"', "[[nodes]]", "properties.sku"):
        assert at_node(snapshot, snapshot.text.index(needle) + 2) is None, needle
    assert not snapshot.has_index  # nor was the whole index built to say so


def test_a_node_view_builds_no_whole_index_and_refuses_what_needs_one() -> None:
    snapshot = analyze(DOCUMENTS["billing"])
    offset = snapshot.text.index("context.foreach.customers.item.name") + 20
    view = at_node(snapshot, offset)
    assert isinstance(view, NodeView) and isinstance(view.index, NodeIndex)
    assert view.index.path_at(offset) is not None
    assert not snapshot.has_index
    for query in (
        lambda: list(view.index.occurrences),
        lambda: list(view.index.paths),
        lambda: list(view.index.symbols()),
        lambda: view.index.occurrence_at(0),  # outside the node
    ):
        with pytest.raises(IndexIncomplete):
            query()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(DOCUMENTS)), st.data())
def test_completion_and_hover_inside_a_node_agree_with_the_whole_index(
    name: str, data: st.DataObject
) -> None:
    snapshot = SNAPSHOTS[name]
    offset = data.draw(st.sampled_from(_node_offsets(snapshot)))
    fresh = analyze(snapshot.text)  # no whole index built
    view = at_node(fresh, offset)
    if view is None:  # the ``[[nodes]]`` header, or between pairs: the whole index answers
        located = fresh.parsed.source_map.locate(offset)
        assert located is None or len(located.location) < 2
        return
    assert complete(view, offset) == complete(snapshot, offset)
    try:
        local = hover(view, offset)
    except IndexIncomplete:
        return  # answered from the whole index instead (the server asks again)
    assert local == hover(snapshot, offset)
    assert not fresh.has_index


def test_a_property_hover_needs_the_whole_index() -> None:
    snapshot = SNAPSHOTS["subgraph"]
    offset = snapshot.text.index("total = { type")
    view = at_node(analyze(snapshot.text), offset)
    assert view is not None
    with pytest.raises(IndexIncomplete):
        hover(view, offset)
    whole = hover(snapshot, offset)
    assert whole is not None and "read or written in" in whole.markdown


def test_an_edited_string_is_seen_through_its_nodes_index() -> None:
    text = DOCUMENTS["billing"]
    path = "context.foreach.customers.item.name"
    base = analyze(text)
    edited_text = text.replace(path, "context.foreach.customers.item.", 1)
    offset = text.index(path) + len("context.foreach.customers.item.")
    region = edit_between(text, edited_text).region
    edited = derive_edited_snapshot(base, edited_text, region, 2)
    assert edited is not None
    local = at_node(edited, offset)
    assert isinstance(local, EditedSnapshot)
    labels = [c.label for c in complete(local, offset)]
    assert "name" in labels and not base.has_index
    whole = derive_edited_snapshot(base, edited_text, region, 2)
    assert whole is not None and complete(local, offset) == complete(whole, offset)
    # a place in another node than the edited string's: no view through that node
    other = edited_text.index('id = "customers"') + 6
    assert at_node(edited, other) is None

"""Completion, validation and the inventory walk schemas the same way.

Over generated workflows (schemas with ``properties``, ``anyOf``, ``allOf`` and
``$ref``; zero to two nested loops, dotted ids) and a body node: every path the
inventory lists is offered by completion at its parent, and validates with no
error or warning when read there; every member completion offers validates
clean too.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.features.fixture import apply
from wf_core.analysis.inventory import readable_sources_for_node
from wf_core.language.path_scan import scan_path
from wf_core.version.snapshot import DocumentSnapshot, analyze_text
from wfls.features.completion import complete

NAMES = st.sampled_from(["a", "b", "c", "na me", "x.y", "é", "q-1"])
LEAVES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer"},
        {},
        {"type": "array", "items": {"type": "object", "properties": {"q": {"type": "string"}}}},
    ]
)


def _objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    props = st.dictionaries(NAMES, children, max_size=3)
    return st.one_of(
        props.map(lambda p: {"type": "object", "properties": p}),
        st.tuples(props, props).map(
            lambda ab: {"anyOf": [{"properties": ab[0]}, {"properties": ab[1]}]}
        ),
        st.tuples(props, props).map(
            lambda ab: {"type": "object", "allOf": [{"properties": ab[0]}], "properties": ab[1]}
        ),
        props.map(lambda p: {"$ref": "#/$defs/shared", "properties": p}),
    )


SCHEMAS = st.recursive(LEAVES, _objects, max_leaves=6).filter(
    lambda s: "properties" in s or "anyOf" in s
)


@st.composite
def workflows(draw: st.DrawFn) -> dict[str, Any]:
    depth = draw(st.integers(0, 2))
    ids = draw(st.sampled_from([["outer", "inner"], ["orders.v2", "x y"], ["a", "a.b"]]))
    item = draw(SCHEMAS)
    shared = draw(SCHEMAS)
    input_schema = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
            **draw(st.dictionaries(NAMES, SCHEMAS, max_size=2)),
        },
        "$defs": {
            "item": {
                "type": "object",
                "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/item"}},
                    "value": item,
                },
            },
            "shared": shared,
        },
    }
    state_schema = {
        "type": "object",
        "properties": draw(st.dictionaries(NAMES, SCHEMAS, max_size=2)),
    }
    loops = ids[:depth]
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, str]] = []
    for position, loop in enumerate(loops):
        over = (
            "input.items"
            if position == 0
            else f"context.foreach.{json.dumps(loops[position - 1])}.item.children"
        )
        nodes.append({"id": loop, "type": "foreach", "over": over, "as": f"alias{position}"})
    nodes.append(
        {"id": "use", "type": "node", "node": "task", "input": [{"target": "x", "path": "input"}]}
    )
    chain = [*loops, "use"]
    for source, target in itertools.pairwise(chain):
        edges.append({"from": source, "outcome": "loop", "to": target})
    if loops:
        edges.append({"from": "use", "outcome": "ok", "to": loops[-1]})
        for inner, outer in zip(loops[1:], loops, strict=False):
            edges.append({"from": inner, "outcome": "done", "to": outer})
        edges.append({"from": loops[0], "outcome": "done", "to": "__end__"})
    else:
        edges.append({"from": "use", "outcome": "ok", "to": "__end__"})
    return {
        "name": "generated",
        "start": chain[0],
        "input_schema": input_schema,
        "state_schema": state_schema,
        "output_schema": {"type": "object"},
        "node_defs": [
            {
                "name": "task",
                "outcomes": ["ok"],
                "input_schema": {"type": "object", "properties": {"x": {}}},
                "output_schema": {"type": "object"},
            }
        ],
        "nodes": nodes,
        "edges": edges,
    }


def _with_path(document: dict[str, Any], path: str) -> tuple[str, int]:
    """The document as JSON with the use node's path set, and the offset of its content."""
    document["nodes"][-1]["input"][0]["path"] = path
    text = json.dumps(document, ensure_ascii=False)
    needle = json.dumps(path, ensure_ascii=False)
    marker = text.rindex('"path": ' + needle)
    return text, marker + len('"path": ') + 1


def _read_findings(snapshot: DocumentSnapshot, index: int) -> list[str]:
    """Errors and warnings about the use node's first read."""
    where = ("nodes", index, "input", 0)
    return [
        f"{p.code}: {p.message}"
        for p in snapshot.issues
        if p.severity in ("error", "warning") and p.location and p.location[:4] == where
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workflows(), st.randoms(use_true_random=False))
def test_inventory_completion_and_validation_agree(document: dict[str, Any], rnd: Any) -> None:
    index = len(document["nodes"]) - 1
    text, _ = _with_path(document, "input")
    snapshot = analyze_text(text, "json")
    assert snapshot.workflow is not None
    options = [
        o["path"]
        for o in readable_sources_for_node(snapshot.workflow, "use", model=snapshot.context)
    ]
    assert options, "every generated workflow declares input.items at least"
    for path in rnd.sample(options, min(6, len(options))):
        # The inventory's path validates clean at the node ...
        text, _ = _with_path(document, path)
        assert _read_findings(analyze_text(text, "json"), index) == [], path
        # ... and completion offers its last segment after its parent.
        scan = scan_path(path)
        parent = path[: scan.segments[-1].start]
        text, content = _with_path(document, parent)
        cursor = content + len(json.dumps(parent, ensure_ascii=False)) - 2  # inside the quotes
        offered = {c.label: c for c in complete(analyze_text(text, "json"), cursor)}
        last = path[scan.segments[-1].start :]
        assert last in offered, (path, sorted(offered))
        # Every member offered there, accepted (it may replace more than the segment
        # typed: a dotted loop id typed unquoted), validates clean too.
        for label in rnd.sample(sorted(offered), min(3, len(offered))):
            candidate = offered[label]
            accepted = apply(text, [(candidate.replace, candidate.insert_text)])
            assert _read_findings(analyze_text(accepted, "json"), index) == [], (parent, label)

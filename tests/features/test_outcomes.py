"""Which outcomes a node declares: validation, semantic tokens, completion and hover agree.

All four read the node-type table (``wf_core.models.steps.NODE_TABLE``). For one node
of each type (and each way its outcomes are written), an edge leaves it with every
outcome of ``POOL``; the outcomes validation accepts (no ``undeclared_edge_outcome``),
those completion offers at an edge's ``outcome``, those semantic tokens colour as
outcomes and those hover lists on the node's id must all be the expected ones. A
property checks the same over generated documents against the model's
``declared_outcomes``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.features.fixture import analyze, cursor, expected
from tests.features.test_semantic_tokens import check_semantic_tokens
from wf_core.base.locations import Location
from wf_core.models.steps import declared_outcomes
from wf_core.runtime import outcome_choice_problems
from wf_core.version.snapshot import DocumentSnapshot
from wfls.features.completion import complete
from wfls.features.definition import definition
from wfls.features.hover import hover
from wfls.features.semantic_tokens import semantic_tokens

EXAMPLES = Path(__file__).parents[2] / "examples"

POOL = ("ok", "retry", "a", "submitted", "true", "false", "loop", "done", "completed_with_errors")


def accepted_by_validation(snapshot: DocumentSnapshot, edge: int) -> bool:
    return not any(
        p.code == "undeclared_edge_outcome" and p.location == ("edges", edge, "outcome")
        for p in snapshot.issues
    )


def offered_by_completion(snapshot: DocumentSnapshot, edge: int) -> set[str]:
    literal = snapshot.parsed.source_map.string(("edges", edge, "outcome"))
    assert literal is not None
    return {c.label for c in complete(snapshot, literal.content.start)}


def coloured_as_outcome(snapshot: DocumentSnapshot, edge: int) -> bool:
    literal = snapshot.parsed.source_map.string(("edges", edge, "outcome"))
    assert literal is not None
    return any(
        t.span == literal.content and t.type == "enumMember" for t in semantic_tokens(snapshot)
    )


def listed_by_hover(snapshot: DocumentSnapshot, node: int, at: Location | None = None) -> set[str]:
    """The outcomes hover lists on the node's id (or on the node id written at ``at``)."""
    literal = snapshot.parsed.source_map.string(at or ("nodes", node, "id"))
    assert literal is not None
    result = hover(snapshot, literal.content.start)
    assert result is not None
    [line] = [line for line in result.markdown.split("\n\n") if line.startswith("outcomes: ")]
    listed = line.removeprefix("outcomes: ")
    return set() if listed == "none" else {o.strip("`") for o in listed.split(", ")}


# -- one node of each type --------------------------------------------------------------

DOCUMENT = """
name = "t"
start = "n"
edges = [
EDGES
]

[input_schema]
type = "object"
properties.items = { type = "array", items = { type = "object" } }

[state_schema]
type = "object"
properties.errors = { type = "array" }

[[node_defs]]
name = "task"
outcomes = ["ok", "retry"]
input_schema = { type = "object" }
output_schema = { type = "object" }

[[nodes]]
id = "n"
NODE
"""

FOREACH = 'type = "foreach"\nover = "input.items"\nas = "item"\n'
NODE_TYPE_CASES = {
    "node of a node def": ('type = "node"\nnode = "task"\n', "ok, retry"),
    "node of an unknown node def": ('type = "node"\nnode = "nothing"\n', ""),
    "subgraph": ('type = "subgraph"\nworkflow = "child"\n', "ok"),
    "subgraph with outcomes": (
        'type = "subgraph"\nworkflow = "child"\noutcomes = ["a", "retry"]\n',
        "a, retry",
    ),
    "condition": (
        'type = "condition"\ncheck = { op = "exists", path = "input.items" }\n',
        "false, true",
    ),
    "foreach": (FOREACH, "done, loop"),
    "foreach that fails on an item error": (
        FOREACH + 'item_error = { action = "fail" }\n',
        "done, loop",
    ),
    "foreach that skips": (FOREACH + 'item_error = "skip"\n', "completed_with_errors, done, loop"),
    "foreach that collects": (
        FOREACH + 'item_error = { action = "collect", collect_to = "state.errors" }\n',
        "completed_with_errors, done, loop",
    ),
    "foreach that skips, deprecated spelling": (
        FOREACH + 'on_item_error = "skip"\n',
        "completed_with_errors, done, loop",
    ),
    "join": ('type = "join"\n', "done"),
    "end": ('type = "end"\n', ""),
    "interrupt": ('type = "interrupt"\nkind = "review"\n', "submitted"),
    "interrupt with outcomes": (
        'type = "interrupt"\nkind = "review"\noutcomes = ["ok", "a"]\n',
        "a, ok",
    ),
    "interrupt with no outcomes": ('type = "interrupt"\nkind = "review"\noutcomes = []\n', ""),
}


@pytest.mark.parametrize("case", NODE_TYPE_CASES)
def test_validation_tokens_completion_and_hover_agree_for_every_node_type(case: str) -> None:
    node, declared = NODE_TYPE_CASES[case]
    edges = "\n".join(f'  {{ from = "n", outcome = "{o}", to = "__end__" }},' for o in POOL)
    snapshot = analyze(expected(DOCUMENT).replace("EDGES", edges).replace("NODE\n", node))
    assert snapshot.workflow is not None and snapshot.load.invalid_node_ids == frozenset()
    by_validation = {o for k, o in enumerate(POOL) if accepted_by_validation(snapshot, k)}
    by_tokens = {o for k, o in enumerate(POOL) if coloured_as_outcome(snapshot, k)}
    offered = [offered_by_completion(snapshot, k) for k in range(len(POOL))]
    assert all(o == offered[0] for o in offered), "the same offer at every edge of the node"
    by_hover = listed_by_hover(snapshot, 0)
    shown = {
        "validation": ", ".join(sorted(by_validation)),
        "tokens": ", ".join(sorted(by_tokens)),
        "completion": ", ".join(sorted(offered[0])),
        "hover": ", ".join(sorted(by_hover)),
    }
    assert shown == dict.fromkeys(shown, declared)
    # every other outcome of the pool is reported, so no answer above is empty by accident
    undeclared = [p for p in snapshot.issues if p.code == "undeclared_edge_outcome"]
    assert len(undeclared) == len(POOL) - len(by_validation) > 0


# -- the billing example ------------------------------------------------------------------

BILLING = (EXAMPLES / "billing.wf.toml").read_text()
DONE_EDGE = '  { from = "customers", outcome = "done", to = "__end__" },\n'
WITH_ERRORS_EDGE = '  { from = "customers", outcome = "completed_with_errors", to = "__end__" },\n'


def billing(edge: str, *, item_error: str | None = None) -> str:
    text = BILLING.replace(DONE_EDGE, DONE_EDGE + edge)
    if item_error is not None:
        text = text.replace('as = "customer"\n', f'as = "customer"\nitem_error = "{item_error}"\n')
    return text


def test_an_outcome_the_foreach_does_not_declare_is_one_answer_everywhere() -> None:
    """``customers`` fails on an item error, so it declares ``loop`` and ``done`` only:
    the edge is an error, the outcome gets no outcome colour, completion offers the two,
    and hover says which outcomes the node has."""
    text = billing(WITH_ERRORS_EDGE.replace('"__end__"', '"__end__"$0'))
    check_semantic_tokens(text, "customers: namespace\n")
    snapshot, _ = cursor(text)
    assert [f"{p.code}: {p.message}" for p in snapshot.issues if p.severity == "error"] == [
        "undeclared_edge_outcome: outcome 'completed_with_errors' is not declared by node "
        "'customers'"
    ]
    edge = 5
    assert offered_by_completion(snapshot, edge) == {"done", "loop"}
    literal = snapshot.parsed.source_map.string(("edges", edge, "outcome"))
    assert literal is not None
    found = hover(snapshot, literal.content.start + 1)
    assert found is not None
    assert found.markdown == (
        "`completed_with_errors`: not an outcome of node `customers`, "
        "whose outcomes are `loop`, `done`"
    )


def test_a_foreach_that_skips_declares_completed_with_errors_everywhere() -> None:
    text = billing(WITH_ERRORS_EDGE.replace('"__end__"', '"__end__"$0'), item_error="skip")
    check_semantic_tokens(
        text, "customers: namespace\ncompleted_with_errors: enumMember+defaultLibrary\n"
    )
    snapshot, _ = cursor(text)
    assert not [p for p in snapshot.issues if p.severity == "error"]
    assert offered_by_completion(snapshot, 5) == {"completed_with_errors", "done", "loop"}
    literal = snapshot.parsed.source_map.string(("edges", 5, "outcome"))
    assert literal is not None
    found = hover(snapshot, literal.content.start + 1)
    assert found is not None
    assert found.markdown == (
        "**outcome `completed_with_errors`**: built into a `foreach` node whose "
        "`item_error` action is `skip` or `collect`\n\n"
        "edges: `customers` → `__end__`"
    )


def test_hover_on_a_builtin_outcome_lists_only_the_edges_of_nodes_declaring_it() -> None:
    """``orders.v2`` skips item errors and ``customers`` does not: an edge of each with
    ``completed_with_errors``, and hover on the declared one names that edge alone."""
    text = billing(
        WITH_ERRORS_EDGE
        + '  { from = "orders.v2", outcome = "completed_with_errors", to = "customers" },\n'
    ).replace('as = "order"\n', 'as = "order"\nitem_error = "skip"\n')
    snapshot = analyze(text)
    literal = snapshot.parsed.source_map.string(("edges", 6, "outcome"))
    assert literal is not None
    found = hover(snapshot, literal.content.start)
    assert found is not None
    assert found.markdown.endswith("edges: `orders.v2` → `customers`")


# -- generated documents ------------------------------------------------------------------

IDS = ("n0", "n1", "n2", "n3")
DEF_NAMES = ("task", "check")


@st.composite
def node_values(draw: st.DrawFn, node_id: str) -> dict[str, Any]:
    outcomes = st.lists(st.sampled_from(POOL[:4]), max_size=3)
    kind = draw(
        st.sampled_from(("node", "subgraph", "condition", "foreach", "join", "end", "interrupt"))
    )
    node: dict[str, Any] = {"id": node_id, "type": kind}
    if kind == "node":
        node["node"] = draw(st.sampled_from((*DEF_NAMES, "missing", "demo.echo")))
    elif kind == "subgraph":
        node["workflow"] = "child"
        if draw(st.booleans()):
            node["outcomes"] = draw(outcomes.filter(bool))
    elif kind == "condition":
        node["check"] = {"op": "exists", "path": "input.items"}
    elif kind == "foreach":
        node.update(over="input.items", **{"as": "item"})
        node.update(
            draw(
                st.sampled_from(
                    (
                        {},
                        {"item_error": "fail"},
                        {"item_error": "skip"},
                        {"item_error": {"action": "skip"}},
                        {"item_error": {}},
                        {"item_error": {"action": "collect", "collect_to": "state.errors"}},
                        {"on_item_error": "skip"},
                        {"on_item_error": "fail"},
                    )
                )
            )
        )
    elif kind == "interrupt":
        node["kind"] = "review"
        if draw(st.booleans()):
            node["outcomes"] = draw(outcomes)
    return node


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    ids = IDS[: draw(st.integers(1, len(IDS)))]
    defs = [
        {
            "name": name,
            "outcomes": draw(st.lists(st.sampled_from(POOL[:4]), min_size=1, max_size=3)),
            "input_schema": {"type": "object"},
            "output_schema": {"type": "object"},
        }
        for name in draw(st.lists(st.sampled_from(DEF_NAMES), unique=True))
    ]
    edges = [
        {
            "from": draw(st.sampled_from(ids)),
            "outcome": draw(st.sampled_from(POOL)),
            "to": "__end__",
        }
        for _ in range(draw(st.integers(1, 6)))
    ]
    return {
        "name": "g",
        "start": ids[0],
        "edges": edges,
        "input_schema": {
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"type": "object"}}},
        },
        "state_schema": {"type": "object", "properties": {"errors": {"type": "array"}}},
        "node_defs": defs,
        "nodes": [draw(node_values(node_id)) for node_id in ids],
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_every_feature_answers_the_models_declared_outcomes(values: dict[str, Any]) -> None:
    snapshot = analyze(json.dumps(values, indent=1))
    workflow = snapshot.workflow
    assert workflow is not None
    defs = {d.name: d for d in workflow.node_defs}
    loaded = {node.id: node for node in workflow.nodes}
    for k, edge in enumerate(values["edges"]):
        node = loaded.get(edge["from"])
        if node is None:
            continue  # a node that did not load: its edges are not judged
        declared = declared_outcomes(node, defs)
        outcome = edge["outcome"]
        assert offered_by_completion(snapshot, k) == declared
        assert coloured_as_outcome(snapshot, k) == (outcome in declared)
        assert accepted_by_validation(snapshot, k) == (outcome in declared)
        assert listed_by_hover(snapshot, IDS.index(node.id)) == declared


# -- a duplicated node id -------------------------------------------------------------------

DUPLICATED = DOCUMENT.replace('start = "n"', 'start = "a"').replace(
    '[[nodes]]\nid = "n"\nNODE\n', '[[nodes]]\nid = "a"\nFIRST\n[[nodes]]\nid = "a"\nSECOND\n'
)
TASK = 'type = "node"\nnode = "task"\n'
DUPLICATE_CASES = {
    "foreach first": (FOREACH, TASK, "done, loop"),
    "node first": (TASK, FOREACH, "ok, retry"),
}


@pytest.mark.parametrize("case", DUPLICATE_CASES)
def test_a_duplicated_id_names_its_first_node_everywhere(case: str) -> None:
    """Two nodes with id ``a``: the second is ``duplicate_node_id``, which points at the
    first, and the edges from ``a`` are the first node's in validation, semantic tokens,
    completion, hover and go to definition."""
    first, second, declared = DUPLICATE_CASES[case]
    edges = "\n".join(f'  {{ from = "a", outcome = "{o}", to = "__end__" }},' for o in POOL)
    text = expected(DUPLICATED).replace("EDGES", edges)
    snapshot = analyze(text.replace("FIRST\n", first).replace("SECOND\n", second))
    [duplicate] = [p for p in snapshot.issues if p.code == "duplicate_node_id"]
    assert duplicate.location == ("nodes", 1, "id")
    assert [r.location for r in duplicate.related] == [("nodes", 0, "id")]
    edge_from = snapshot.parsed.source_map.string(("edges", 0, "from"))
    first_id = snapshot.parsed.source_map.string(("nodes", 0, "id"))
    assert edge_from is not None and first_id is not None
    assert [t.span for t in definition(snapshot, edge_from.content.start)] == [first_id.content]
    shown = {
        "validation": {o for k, o in enumerate(POOL) if accepted_by_validation(snapshot, k)},
        "tokens": {o for k, o in enumerate(POOL) if coloured_as_outcome(snapshot, k)},
        "completion": offered_by_completion(snapshot, 0),
        "hover": listed_by_hover(snapshot, 0, ("edges", 0, "from")),
    }
    assert {k: ", ".join(sorted(v)) for k, v in shown.items()} == dict.fromkeys(shown, declared)


# -- a duplicated node def name ---------------------------------------------------------------

SECOND_DEF = """
[[node_defs]]
name = "task"
outcomes = ["a", "ok"]
input_schema = { type = "object" }
output_schema = { type = "object" }
"""


def test_a_duplicated_node_def_name_names_its_first_def_everywhere() -> None:
    """Two node defs named ``task``: the second is ``duplicate_node_def``, and a node of
    ``task`` declares the first one's outcomes in validation, tokens, completion, hover
    and the runtime's outcome choices (which read the last one before)."""
    edges = "\n".join(f'  {{ from = "n", outcome = "{o}", to = "__end__" }},' for o in POOL)
    text = expected(DOCUMENT).replace("EDGES", edges).replace("NODE\n", TASK)
    text = text.replace("[[nodes]]", SECOND_DEF.lstrip() + "\n[[nodes]]", 1)
    snapshot = analyze(text)
    assert [p.location for p in snapshot.issues if p.code == "duplicate_node_def"] == [
        ("node_defs", 1, "name")
    ]
    shown = {
        "validation": {o for k, o in enumerate(POOL) if accepted_by_validation(snapshot, k)},
        "tokens": {o for k, o in enumerate(POOL) if coloured_as_outcome(snapshot, k)},
        "completion": offered_by_completion(snapshot, 0),
        "hover": listed_by_hover(snapshot, 0),
    }
    assert {k: ", ".join(sorted(v)) for k, v in shown.items()} == dict.fromkeys(shown, "ok, retry")
    workflow = snapshot.workflow
    assert workflow is not None
    assert outcome_choice_problems(workflow, {"task": "retry"}, stand_ins=True) == {}
    assert outcome_choice_problems(workflow, {"task": "a"}, stand_ins=True) == {
        "task": "node def 'task' does not declare outcome 'a' (declared: ok, retry)"
    }

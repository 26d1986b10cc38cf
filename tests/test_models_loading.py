"""Piecewise loading of document values for editors (wf_core.models.loading)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from test_models_workflow import billing_document

from wf_core.base.issues import Issue, ProjectCode, Severity
from wf_core.base.locations import NodeRef
from wf_core.documents import parse_document
from wf_core.language.paths import GraphSourcePath
from wf_core.models import ForeachNode, NodeUse, Workflow
from wf_core.models.loading import load_workflow
from wf_core.version.snapshot import analyze_text

EXAMPLES = Path(__file__).parent.parent / "examples"
NODE_TYPES = "node, subgraph, condition, foreach, join, end, interrupt"


def _pairs(issues: tuple[Issue, ...]) -> list[tuple[str | None, str]]:
    return [(issue.model_path, issue.message) for issue in issues]


def test_billing_document_loads_cleanly() -> None:
    result = load_workflow(billing_document())
    assert result.issues == ()
    assert result.workflow == Workflow.model_validate(billing_document())
    assert result.node_positions == (0, 1, 2)
    assert result.edge_positions == (0, 1, 2, 3, 4)
    assert result.output_positions == (0,)
    assert result.node_def_positions == (0,)
    charge = result.workflow.nodes[2]
    assert isinstance(charge, NodeUse)
    assert charge.input[0].path == GraphSourcePath("context", ("foreach", "orders.v2", "item"))
    assert str(charge.input[0].path) == 'context.foreach."orders.v2".item'


def test_one_bad_node_keeps_the_others() -> None:
    document = billing_document()
    document["nodes"].insert(1, {"id": "broken", "type": "end", "outcome": ""})
    result = load_workflow(document)
    assert result.workflow is not None
    assert [node.id for node in result.workflow.nodes] == ["customers", "orders.v2", "charge"]
    assert result.node_positions == (0, 2, 3)
    assert [location for location, _ in _pairs(result.issues)] == ["nodes[1].outcome"]
    (issue,) = result.issues
    assert issue.code == ProjectCode.INVALID_MODEL
    assert issue.severity == Severity.ERROR
    assert result.invalid_node_ids == {"broken"}
    assert result.document_location(("nodes", 2, "input", 0, "path")) == (
        "nodes",
        3,
        "input",
        0,
        "path",
    )


def test_a_half_typed_over_keeps_its_node_in_the_graph_with_a_stand_in() -> None:
    document = billing_document()
    document["nodes"][1]["over"] = "context.foreach."
    result = load_workflow(document)
    assert [node.id for node in result.workflow.nodes] == ["customers", "orders.v2", "charge"]
    assert str(result.workflow.nodes[1].over) == "context"
    assert result.stand_ins == {("nodes", 1, "over")}
    assert _pairs(result.issues) == [
        (
            "nodes[1].over",
            "invalid TOML path 'context.foreach.'; a segment is missing after the last '.'",
        )
    ]


def test_unknown_and_missing_node_type() -> None:
    document = billing_document()
    document["nodes"] += [{"id": "l", "type": "loop"}, {"id": "m"}, "join"]
    result = load_workflow(document)
    assert _pairs(result.issues) == [
        ("nodes[3].type", f"unknown node type 'loop'; expected one of {NODE_TYPES}"),
        ("nodes[4]", f"missing required key 'type'; expected one of {NODE_TYPES}"),
        ("nodes[5]", "expected an object, got string"),
    ]
    assert len(result.workflow.nodes) == 3


def test_wrong_value_types_and_missing_keys() -> None:
    document = billing_document()
    document["nodes"][0]["id"] = 7
    del document["nodes"][1]["over"]
    document["nodes"][2]["retry"] = "soon"
    document["edges"][0]["to"] = ["x"]
    result = load_workflow(document)
    assert _pairs(result.issues) == [
        ("nodes[0].id", "expected a string, got integer"),
        ("nodes[1]", "missing required key 'over'"),
        ("nodes[2].retry", "expected an integer, got string"),
        ("edges[0].to", "expected a string, got array"),
    ]
    assert result.workflow.nodes == []
    assert result.edge_positions == (1, 2, 3, 4)


def test_a_path_key_of_the_wrong_type_is_said_in_the_authors_terms() -> None:
    document = billing_document()
    document["nodes"][0]["over"] = 5
    charge = document["nodes"][2]
    charge["input"][0]["path"] = True
    charge["input"][1]["target"] = 3
    charge["output"][0]["source"] = []
    charge["output"][0]["target"] = {"parts": ["total"]}
    document["output"][0]["target"] = None
    result = load_workflow(document)
    assert _pairs(result.issues) == [
        ("output[0].target", "'target' must be a path string such as \"customer.name\"; got null"),
        ("nodes[0].over", "'over' must be a path string such as \"input.customers\"; got integer"),
        (
            "nodes[2].input[0].path",
            "'path' must be a path string such as \"input.customers\"; got boolean",
        ),
        (
            "nodes[2].input[1].target",
            "'target' must be a path string such as \"customer.name\"; got integer",
        ),
        (
            "nodes[2].output[0].source",
            "'source' must be a path string such as \"customer.name\"; got array",
        ),
        (
            "nodes[2].output[0].target",
            "'target' must be a path string such as \"state.total\", or an object whose 'root' is "
            "'state'; got an object without it",
        ),
    ]


def test_bad_binding_drops_only_the_binding() -> None:
    document = billing_document()
    charge = document["nodes"][2]
    charge["input"].insert(0, {"target": "x", "path": "input.a b"})
    charge["input"].append({"target": "y"})
    charge["output"].insert(0, {"source": "a", "target": "input.total"})
    result = load_workflow(document)
    assert _pairs(result.issues) == [
        (
            "nodes[2].input[0].path",
            "invalid TOML path 'input.a b'; quote path segments containing dots or spaces",
        ),
        ("nodes[2].input[3]", "binding needs one of path, value or expression"),
        ("nodes[2].output[0].target", "expected state path such as state.foo"),
    ]
    node = result.workflow.nodes[2]
    assert isinstance(node, NodeUse)
    assert [str(binding.target) for binding in node.input] == ["order", "customer"]
    assert result.binding_positions == {(2, "input"): (1, 2), (2, "output"): (1,)}
    assert result.document_location(("nodes", 2, "input", 1, "path")) == (
        "nodes",
        2,
        "input",
        2,
        "path",
    )
    assert result.document_location(("nodes", 2, "output", 0, "source")) == (
        "nodes",
        2,
        "output",
        1,
        "source",
    )
    assert result.invalid_node_ids == frozenset()


def test_nested_union_errors_name_document_keys() -> None:
    document = billing_document()
    document["nodes"] += [
        {
            "id": "c",
            "type": "condition",
            "check": {
                "op": "and",
                "args": [
                    {"op": "exists"},
                    {"op": "between"},
                    {"op": "eq", "left": {"pathh": "x"}, "right": {"value": 1}},
                ],
            },
        },
        {
            "id": "n",
            "type": "node",
            "node": "charge_order",
            "retry": 1,
            "timeout_seconds": 0,
            "input": [
                {
                    "target": "t",
                    "expression": {
                        "kind": "object",
                        "fields": {"a": {"kind": "array", "items": [{"kind": "literal"}]}},
                    },
                }
            ],
        },
    ]
    result = load_workflow(document)
    assert _pairs(result.issues) == [
        ("nodes[3].check.args[0]", "missing required key 'path'"),
        (
            "nodes[3].check.args[1].op",
            "unknown condition op 'between'; expected one of exists, not, and, or, eq, ne, gt, "
            "ge, lt, le",
        ),
        ("nodes[3].check.args[2].left", "operand needs one of path or value"),
        ("nodes[4].input[0].expression.fields.a.items[0]", "missing required key 'value'"),
        ("nodes[4].timeout_seconds", "must be greater than 0, got 0"),
    ]


def test_model_level_errors_use_spec_texts() -> None:
    document = billing_document()
    document["nodes"][0]["mode"] = "concurrent"
    document["nodes"][1]["item_error"] = {"action": "collect"}
    document["nodes"].append({"id": "s", "type": "subgraph", "workflow": {"name": ""}})
    document["nodes"].append(
        {"id": "i", "type": "interrupt", "kind": "k", "resume_schema": {"type": "string"}}
    )
    document["nodes"].append(
        {"id": "f", "type": "foreach", "over": "input.x", "as": "x", "mode": 1}
    )
    result = load_workflow(document)
    assert _pairs(result.issues) == [
        ("nodes[0]", "concurrent foreach requires concurrent policy"),
        ("nodes[1].item_error", "collect item error policy requires collect_to"),
        ("nodes[3].workflow", "workflow ref name must not be empty"),
        ("nodes[4].resume_schema", "resume_schema must describe a JSON object"),
        ("nodes[5].mode", "expected 'serial' or 'concurrent', got 1"),
    ]


def test_expression_limit_location_is_inside_the_binding() -> None:
    expression: dict[str, Any] = {"kind": "literal", "value": 1}
    for _ in range(64):
        expression = {"kind": "array", "items": [expression]}
    document = billing_document()
    document["nodes"][2]["input"][0] = {"target": "order", "expression": expression}
    result = load_workflow(document)
    ((path, message),) = _pairs(result.issues)
    assert path == "nodes[2].input[0].expression"
    assert message == "input expression depth limit exceeded at expression" + ".items[0]" * 64


def test_missing_top_level_pieces_get_substitutes() -> None:
    result = load_workflow({"nodes": [{"id": "j", "type": "join"}]})
    assert _pairs(result.issues) == [
        ("", "missing required keys 'name', 'start' and 'edges'"),
    ]
    workflow = result.workflow
    assert workflow is not None
    assert (workflow.name, workflow.start, workflow.edges, workflow.outcomes) == (
        "",
        "",
        [],
        ["ok"],
    )
    for schema in (workflow.input_schema, workflow.state_schema, workflow.output_schema):
        assert schema.model_dump(mode="json") == {
            "type": "object",
            "properties": {},
            "required": [],
        }


def test_broken_schemas_and_scalars_are_reported_and_substituted() -> None:
    document = billing_document()
    document["input_schema"] = {"type": "objekt"}
    document["state_schema"] = {"properties": {"total": {"trace": "no"}}}
    document["outcomes"] = ["ok", 3]
    document["name"] = None
    document["edges"] = {"from": "a"}
    result = load_workflow(document)
    assert _pairs(result.issues) == [
        ("name", "expected a string, got null"),
        ("outcomes[1]", "expected a string, got integer"),
        (
            "input_schema",
            "invalid JSON Schema: 'objekt' is not valid under any of the given schemas",
        ),
        ("state_schema", "invalid trace for state field 'total': expected bool"),
        ("edges", "expected an array, got object"),
    ]
    workflow = result.workflow
    assert workflow is not None
    assert workflow.outcomes == ["ok"]
    assert workflow.name == ""
    assert workflow.input_schema.type == "object"
    assert workflow.edges == []
    assert isinstance(workflow.nodes[0], ForeachNode)


def test_bad_node_def_and_output_binding() -> None:
    document = billing_document()
    document["node_defs"].insert(0, {"name": "bad", "outcomes": []})
    document["output"].insert(0, {"target": "t", "expression": {"kind": "literal", "value": 1}})
    result = load_workflow(document)
    assert _pairs(result.issues) == [
        ("output[0]", "binding needs one of path or value"),
        ("node_defs[0]", "missing required keys 'input_schema' and 'output_schema'"),
        ("node_defs[0].outcomes", "must not be empty"),
    ]
    assert result.node_def_positions == (1,)
    assert result.output_positions == (1,)
    assert result.invalid_node_def_names == {"bad"}
    assert result.document_location(("node_defs", 0, "name")) == ("node_defs", 1, "name")


def test_only_lists_that_lost_an_element_are_mapped() -> None:
    """A list whose every element loaded, or none, has the document's indexes (mapping it
    is skipped); losing a node, or a binding inside one, makes the nodes mapped."""
    assert load_workflow(billing_document()).complete == {"nodes", "edges", "output", "node_defs"}
    document = billing_document()
    document["edges"][0]["to"] = ["x"]
    result = load_workflow(document)
    assert result.complete == {"nodes", "output", "node_defs"}
    assert result.document_location(("edges", 0, "to")) == ("edges", 1, "to")
    assert result.document_location(("nodes", 1, "over")) == ("nodes", 1, "over")
    document = billing_document()
    document["nodes"][2]["input"].insert(0, {"target": "x"})
    assert "nodes" not in load_workflow(document).complete
    document = billing_document()
    document["nodes"] = [{"id": 1}]
    result = load_workflow(document)
    assert "nodes" in result.complete and result.node_positions == ()


def test_graph_level_locations_pass_through() -> None:
    document = copy.deepcopy(billing_document())
    document["nodes"].insert(0, {"id": "x", "type": "nope"})
    result = load_workflow(document)
    assert result.document_location(("nodes", NodeRef("charge"))) == ("nodes", NodeRef("charge"))
    assert result.document_location(("edges", 2, "to")) == ("edges", 2, "to")
    assert result.document_location(("nodes", 0, "over")) == ("nodes", 1, "over")


def test_legacy_forms_load_without_errors() -> None:
    document = billing_document()
    charge = document["nodes"][2]
    charge["in_map"] = {'context.foreach."orders.v2".item': "order"}
    charge["out_map"] = {"amount": "state.total"}
    del charge["input"], charge["output"]
    document["nodes"][0]["on_item_error"] = "skip"
    result = load_workflow(document)
    assert result.issues == ()
    node = result.workflow.nodes[2]
    assert isinstance(node, NodeUse)
    assert str(node.input[0].path) == 'context.foreach."orders.v2".item'


def test_not_an_object() -> None:
    result = load_workflow([1, 2])  # type: ignore[arg-type]
    assert result.workflow is None
    assert _pairs(result.issues) == [("", "expected an object, got array")]


def test_deep_condition_nesting_is_an_issue_not_a_crash() -> None:
    check: dict[str, Any] = {"op": "exists", "path": "input"}
    for _ in range(3000):
        check = {"op": "not", "arg": check}
    document = billing_document()
    document["nodes"].append({"id": "deep", "type": "condition", "check": check})
    result = load_workflow(document)
    assert [node.id for node in result.workflow.nodes][-1] == "deep"
    assert result.stand_ins == {("nodes", 3, "check")}
    assert [issue.message for issue in result.issues] == ["nesting is too deep"]


def test_an_element_under_an_equal_key_gets_the_model_it_got_last_time() -> None:
    """Models are found again by the texts an element was read from, not by objects."""
    from wf_core.base.derived import Derivations
    from wf_core.documents.parser import DocumentParser

    text = (EXAMPLES / "billing.wf.toml").read_text(encoding="utf-8")
    parser, derived = DocumentParser("toml"), Derivations()

    def load(source: str) -> Any:
        parsed = parser.parse(source)
        keys = parsed.source_map.element_keys
        return load_workflow(parsed.values, derived=derived, keys=keys).workflow

    first = load(text)
    edited = text.replace('id = "charge"', 'id = "charge"\ndesc = "edited"')
    second = load(edited)
    assert second.nodes[0] is first.nodes[0] and second.nodes[1] is first.nodes[1]
    assert second.nodes[2] is not first.nodes[2] and second.nodes[2].desc == "edited"
    assert second == load_workflow(parse_document(edited, "toml").values).workflow
    # Back to the first text (an undo): the model the element's first text got is found
    # again, kept in the run's table after the edit replaced its key (``stale_limit``).
    third = load(text)
    assert third == first and third.nodes[2] is first.nodes[2]


def test_an_element_is_validated_as_an_element_of_the_list_it_is_in() -> None:
    """An edit can make a node's text an element of ``edges`` (a JSON bracket typed): under
    the same key it is validated as an edge there, not handed out as the node it was."""
    from wf_core.base.derived import Derivations

    document = billing_document()
    derived = Derivations()

    def key(kind: str) -> list[Any]:
        if kind == "nodes":
            return [None, None, "the node"]
        return [None] * 5 + ["the node"] if kind == "edges" else []

    first = load_workflow(document, derived=derived, keys=key)
    assert first.workflow is not None
    moved = dict(document)
    moved["edges"] = [*document["edges"], document["nodes"][2]]
    assert len(moved["edges"]) == 6
    derived_load = load_workflow(moved, derived=derived, keys=key)
    fresh = load_workflow(moved)
    assert [(i.code, i.location, i.message) for i in derived_load.issues] == [
        (i.code, i.location, i.message) for i in fresh.issues
    ]
    assert any(i.location[:2] == ("edges", 5) for i in fresh.issues)
    assert derived_load.workflow == fresh.workflow


_HEAD = """name = "w"
start = "x"
outcomes = ["ok"]
edges = [{ from = "x", outcome = "ok", to = "__end__" }]
input_schema = { type = "object" }
output_schema = { type = "object" }

[[node_defs]]
name = "n"
outcomes = ["ok"]
input_schema = { type = "object", properties = { a = { type = "string" } } }
output_schema = { type = "object" }

"""


@pytest.mark.parametrize(
    ("text", "syntax"),
    [
        (_HEAD + '[[nodes]]\nid = "x"\ntype = "node"\nnode = = "n"\n', "toml"),
        (_HEAD + '[[nodes]]\nid = "x"\ntype = = "node"\nnode = "n"\n', "toml"),
        (
            _HEAD
            + '[[nodes]]\nid = "x"\ntype = "node"\nnode = "n"\n'
            + 'input = [{ target = "a", path = ? }]\n',
            "toml",
        ),
        (
            _HEAD.replace('start = "x"', "start = ?")
            + '[[nodes]]\nid = "x"\ntype = "node"\nnode = "n"\n',
            "toml",
        ),
        (
            '{"name": "w", "start": "x", "outcomes": ["ok"],'
            ' "edges": [{"from": "x", "outcome": "ok", "to": "__end__"}],'
            ' "node_defs": [{"name": "n", "outcomes": ["ok"], "input_schema": {"type": "object"},'
            ' "output_schema": {"type": "object"}}],'
            ' "nodes": [{"id": "x", "type": "node", "node": }]}',
            "json",
        ),
    ],
)
def test_a_key_written_with_a_broken_value_is_not_also_missing(text: str, syntax) -> None:
    """One mistake, one error: the syntax error, not a "missing required key" as well."""
    errors = [i for i in analyze_text(text, syntax).issues if i.severity == Severity.ERROR]
    assert [i.code for i in errors] == ["syntax_error"], [i.message for i in errors]


def test_written_keys_are_left_out_of_missing_key_errors() -> None:
    document = billing_document()
    del document["nodes"][2]["node"]
    del document["start"]
    assert _pairs(load_workflow(document).issues) == [
        ("", "missing required key 'start'"),
        ("nodes[2]", "missing required key 'node'"),
    ]
    result = load_workflow(document, written=frozenset({("start",), ("nodes", 2, "node")}))
    assert result.issues == ()
    assert result.invalid_node_ids == {"charge"}


def test_a_node_that_fails_to_load_leaves_no_garbage_in_reference_cycles() -> None:
    """The loader keeps a failing element's error to report it after the others are
    loaded, not the error's traceback: that holds the loader's frame, which holds the
    errors, a cycle that kept the document's values alive until the cyclic collector
    ran, and for ever once frozen (``wf_core.base.collector``)."""
    import gc
    import tomllib
    from pathlib import Path

    text = (Path(__file__).parents[1] / "examples" / "billing.wf.toml").read_text()
    values = tomllib.loads(text.replace('type = "node"', 'type = "node"\nretry = "twice"', 1))
    load_workflow(values)  # what a first load leaves once (caches of the libraries)
    gc.collect()
    assert load_workflow(values).issues, "a node fails to load"
    assert gc.collect() == 0

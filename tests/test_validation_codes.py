"""lda-wf's structural codes: each case changes the billing workflow and names what fails."""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wf_core.models import Workflow
from wf_core.validation.core import validate_workflow
from wf_core.version.snapshot import analyze_text

BILLING = tomllib.loads((Path(__file__).parent.parent / "examples/billing.wf.toml").read_text())
Doc = dict[str, Any]


def nodes(doc: Doc) -> dict[str, Doc]:
    return {node["id"]: node for node in doc["nodes"]}


def with_node(node: Doc, *edges: Doc) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        doc["nodes"].append(node)
        doc["edges"].extend(edges)

    return change


def report(change: Callable[[Doc], None]) -> list[tuple[str, str, str]]:
    doc = copy.deepcopy(BILLING)
    change(doc)
    # lda-wf's view: every lda-wf code, whatever severity wfls shows it with.
    errors = validate_workflow(Workflow.model_validate(doc)).errors
    return [(e.code, e.path, e.message) for e in errors]


CASES: list[tuple[str, Callable[[Doc], None], list[tuple[str, str, str]]]] = [
    (
        "duplicate node def",
        lambda d: d["node_defs"].append(copy.deepcopy(d["node_defs"][0])),
        [("duplicate_node_def", "node_defs[1].name", "duplicate node def name 'charge_order'")],
    ),
    (
        "duplicate node id",
        lambda d: d["nodes"].append({"id": "charge", "type": "join"}),
        # The id names its first node, whose edges are all there: the join's outcome
        # ``done`` is neither missing nor accepted on an edge from ``charge``.
        [("duplicate_node_id", "nodes[3].id", "duplicate node id 'charge'")],
    ),
    (
        "unknown start",
        lambda d: d.update(start="nowhere"),
        # No start, no regions: no node has a context schema, and no control-region issue.
        [("unknown_start", "start", "unknown start node 'nowhere'")]
        + [
            (
                "invalid_context_path",
                location,
                f"invalid context path '{path}' at '{node}': no context schema for this program "
                "location",
            )
            for location, path, node in (
                ("nodes[1].over", "context.foreach.customers.item.orders", "orders.v2"),
                ("nodes[2].input[0].path", 'context.foreach."orders.v2".item', "charge"),
                ("nodes[2].input[1].path", "context.foreach.customers.item.name", "charge"),
            )
        ],
    ),
    (
        "duplicate edge",
        lambda d: d["edges"].append({"from": "charge", "outcome": "ok", "to": "orders.v2"}),
        [("duplicate_edge", "edges[5]", "duplicate edge for source 'charge' and outcome 'ok'")],
    ),
    (
        "unknown edge source and destination",
        lambda d: d["edges"].append({"from": "ghost", "outcome": "ok", "to": "void"}),
        [
            ("unknown_edge_source", "edges[5].from", "unknown source node 'ghost'"),
            ("unknown_edge_destination", "edges[5].to", "unknown destination node 'void'"),
        ],
    ),
    (
        "undeclared edge outcome",
        lambda d: d["edges"].append({"from": "charge", "outcome": "retry", "to": "orders.v2"}),
        [
            (
                "undeclared_edge_outcome",
                "edges[5].outcome",
                "outcome 'retry' is not declared by node 'charge'",
            )
        ],
    ),
    (
        "missing outcome edges",
        lambda d: d["node_defs"][0].update(outcomes=["ok", "declined", "error"]),
        [
            (
                "missing_outcome_edge",
                "nodes[charge]",
                "reachable node is missing edges for outcomes ['declined', 'error']",
            )
        ],
    ),
    (
        "legacy __end__ without ok",
        lambda d: d.update(outcomes=["finished"]),
        [
            (
                "undeclared_workflow_outcome",
                "edges[4].to",
                "legacy __end__ requires workflow outcome 'ok' to be declared",
            )
        ],
    ),
    (
        "end node with an undeclared outcome",
        lambda d: (
            d["nodes"].append({"id": "stop", "type": "end", "outcome": "failed"}),
            d["edges"].__setitem__(4, {"from": "customers", "outcome": "done", "to": "stop"}),
        ),
        [
            (
                "undeclared_workflow_outcome",
                "nodes[3].outcome",
                "workflow outcome 'failed' is not declared",
            )
        ],
    ),
    (
        "unknown node def",
        lambda d: nodes(d)["charge"].update(node="refund"),
        [
            ("unknown_node_def", "nodes[2].node", "unknown node def 'refund'"),
            # An unknown node def declares no outcome, so each edge from the node is undeclared.
            (
                "undeclared_edge_outcome",
                "edges[2].outcome",
                "outcome 'ok' is not declared by node 'charge'",
            ),
        ],
    ),
    (
        "undeclared input target and overlapping inputs",
        lambda d: nodes(d)["charge"]["input"].extend(
            [
                {"target": "coupon", "value": "X"},
                {"target": "order.sku", "path": "context.foreach.customers.index"},
            ]
        ),
        [
            (
                "invalid_node_input_field",
                "nodes[2].input[2].target",
                "destination field 'coupon' is not declared in node input schema",
            ),
            (
                "invalid_node_input_field",
                "nodes[2].input",
                "input has overlapping node-local input paths",
            ),
        ],
    ),
    (
        "source path with an undeclared root field",
        lambda d: nodes(d)["charge"]["input"].append({"target": "customer", "path": "state.nope"}),
        [
            (
                "invalid_source_path",
                "nodes[2].input[2].path",
                "source path must start with input., state., or context. and reference a "
                "declared root field when applicable",
            ),
            (
                "invalid_node_input_field",
                "nodes[2].input",
                "input has overlapping node-local input paths",
            ),
        ],
    ),
    (
        "undeclared output source, bad destination, overlapping destinations",
        lambda d: nodes(d)["charge"]["output"].extend(
            [
                {"source": "fee", "target": "state.total"},
                {"source": "amount", "target": "state.missing"},
            ]
        ),
        [
            (
                "invalid_node_output_field",
                "nodes[2].output[1].source",
                "source field 'fee' is not declared in node output schema",
            ),
            (
                "invalid_destination_path",
                "nodes[2].output[2].target",
                "destination path must start with state. and reference a declared root field",
            ),
            (
                "invalid_destination_path",
                "nodes[2].output",
                "output has overlapping state destination paths",
            ),
        ],
    ),
    (
        "workflow output target and overlap",
        lambda d: d["output"].extend(
            [{"target": "grand", "value": 1}, {"target": "total.cents", "value": 2}]
        ),
        [
            (
                "invalid_workflow_output_field",
                "output[1].target",
                "destination field is not declared in workflow output schema",
            ),
            (
                "invalid_workflow_output_field",
                "output",
                "workflow output has overlapping output payload paths",
            ),
        ],
    ),
    (
        "condition and operand paths",
        with_node(
            {
                "id": "check",
                "type": "condition",
                "check": {
                    "op": "and",
                    "args": [
                        {"op": "exists", "path": "state.nope"},
                        {"op": "gt", "left": {"path": "input.nope"}, "right": {"value": 1}},
                    ],
                },
            },
        ),
        [
            (
                "invalid_condition_path",
                "nodes[3].check.args[0]",
                "invalid condition path GraphSourcePath(root='state', parts=('nope',))",
            ),
            (
                "invalid_condition_path",
                "nodes[3].check.args[1].left",
                "invalid operand path GraphSourcePath(root='input', parts=('nope',))",
            ),
            ("unreachable_node", "nodes[check]", "node 'check' is unreachable from start"),
        ],
    ),
    (
        "foreach source root and collect destination",
        lambda d: (
            nodes(d)["customers"].update(
                over="state.nope", item_error={"action": "collect", "collect_to": "state.total"}
            ),
            d["edges"].append(
                {"from": "customers", "outcome": "completed_with_errors", "to": "__end__"}
            ),
        ),
        [
            (
                "invalid_foreach_source",
                "nodes[0].over",
                "foreach source path must start with input., state., or context. and reference a "
                "declared root field when applicable",
            ),
            (
                "invalid_foreach_collect_destination",
                "nodes[0].item_error.collect_to",
                "collect_to must reference a declared array state field",
            ),
        ],
    ),
    (
        "interrupt request source",
        with_node(
            {
                "id": "ask",
                "type": "interrupt",
                "kind": "approval",
                "request": [{"target": "q", "path": "input.nope"}],
                "resume": [{"source": "a", "target": "state.nope"}],
            },
        ),
        [
            (
                "invalid_interrupt_source",
                "nodes[3].request[0].path",
                "interrupt request source must start with input., state., or context. and "
                "reference a declared root field when applicable",
            ),
            (
                "invalid_interrupt_destination",
                "nodes[3].resume[0].target",
                "interrupt resume destination must start with state. and reference a declared "
                "state field",
            ),
            ("unreachable_node", "nodes[ask]", "node 'ask' is unreachable from start"),
        ],
    ),
]


@pytest.mark.parametrize(("name", "change", "expected"), CASES, ids=[c[0] for c in CASES])
def test_code(name: str, change: Callable[[Doc], None], expected: list) -> None:
    assert report(change) == expected


def test_billing_is_clean() -> None:
    assert report(lambda d: None) == []


def test_an_undeclared_root_field_names_the_declared_ones() -> None:
    """lda-wf's coarse message reads as if the root were wrong: the finding sits on the
    field after it (segment 1) and its help note names the fields the schema declares."""
    doc = copy.deepcopy(BILLING)
    doc["output"][0]["path"] = "state.totl"
    nodes(doc)["customers"]["over"] = "input.clients"
    nodes(doc)["orders.v2"]["item_error"] = {"action": "collect", "collect_to": "state.totals"}
    with_node(
        {
            "id": "ask",
            "type": "interrupt",
            "kind": "approval",
            "request": [{"target": "q", "path": "input.custmers"}],
            "resume": [{"source": "a", "target": "state.tot"}],
        }
    )(doc)
    issues = validate_workflow(Workflow.model_validate(doc)).issues
    found = {
        (i.code, i.model_path): (i.segment, i.data.get("help"), i.data.get("suggestion"))
        for i in issues
        if i.code not in ("unreachable_node", "missing_outcome_edge")
    }
    assert found == {
        ("invalid_source_path", "output[0].path"): (
            1,
            "'totl' is not declared in state_schema (its root fields: 'total'); "
            "did you mean 'total'?",
            "total",
        ),
        ("invalid_foreach_source", "nodes[0].over"): (
            1,
            "'clients' is not declared in input_schema (its root fields: 'customers')",
            None,
        ),
        ("invalid_foreach_collect_destination", "nodes[1].item_error.collect_to"): (
            1,
            "'totals' is not declared in state_schema (its root fields: 'total'); "
            "did you mean 'total'?",
            "total",
        ),
        ("invalid_interrupt_source", "nodes[3].request[0].path"): (
            1,
            "'custmers' is not declared in input_schema (its root fields: 'customers'); "
            "did you mean 'customers'?",
            "customers",
        ),
        ("invalid_interrupt_destination", "nodes[3].resume[0].target"): (
            1,
            "'tot' is not declared in state_schema (its root fields: 'total'); "
            "did you mean 'total'?",
            "total",
        ),
    }


def test_a_duplicate_points_at_the_first_of_its_name() -> None:
    """The second ``id``/``name`` is the error; the first is its related place, in document
    positions even when a node before it failed to load."""
    text = (
        (Path(__file__).parent.parent / "examples/billing.wf.toml")
        .read_text()
        .replace('[[nodes]]\nid = "customers"', '[[nodes]]\nid = 5\n\n[[nodes]]\nid = "customers"')
        .replace('id = "charge"', 'id = "customers"')
    )
    text += (
        '\n[[node_defs]]\nname = "charge_order"\noutcomes = ["ok"]\n'
        'input_schema = { type = "object" }\noutput_schema = { type = "object" }\n'
    )
    snapshot = analyze_text(text, "toml")
    found = [
        (p.code, p.model_path, [(r.model_path, r.message, r.span.start) for r in p.related])
        for p in snapshot.issues
        if p.code.startswith("duplicate_node")
    ]
    first_id = text.index('id = "customers"') + len("id = ")
    first_def = text.index('name = "charge_order"') + len("name = ")
    assert found == [
        (
            "duplicate_node_id",
            "nodes[3].id",
            [("nodes[1].id", "the first node with id 'customers'", first_id)],
        ),
        (
            "duplicate_node_def",
            "node_defs[1].name",
            [("node_defs[0].name", "the first node def named 'charge_order'", first_def)],
        ),
    ]

"""Run with sample input: the answer of a run, and what hover shows on a node afterwards."""

from __future__ import annotations

import re
import textwrap
from typing import Any

import pytest
from fixture import analyze, cursor, expected, parse

from wf_core.runtime import DEFAULT_MAX_STEPS
from wf_core.workspace.catalog import Workspace
from wf_core.workspace.files import Roots
from wfls.features.hover import hover
from wfls.features.run import LastRun, RunRefused, run_document

LOOPS = """
name = "loops"
start = "customers"
outcomes = ["ok"]
edges = [
  { from = "customers", outcome = "loop", to = "orders.v2" },
  { from = "orders.v2", outcome = "loop", to = "charge" },
  { from = "charge", outcome = "ok", to = "orders.v2" },
  { from = "orders.v2", outcome = "done", to = "customers" },
  { from = "customers", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
required = ["customers"]
properties.customers = { type = "array", items = { "$ref" = "#/$defs/customer" } }

[input_schema."$defs".customer]
type = "object"
properties.name = { type = "string" }
properties.orders = { type = "array", items = { type = "integer" } }

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object", properties = { who = {}, qty = {} } }
output_schema = { type = "object" }

[[nodes]]
id = "customers"
type = "foreach"
over = "input.customers"
as = "customer"

[[nodes]]
id = "orders.v2"
type = "foreach"
over = "context.foreach.customers.item.orders"
as = "order"

[[nodes]]
id = "$0charge"
type = "node"
node = "task"
input = [
  { target = "who", path = "context.foreach.customers.item.name" },
  { target = "qty", path = 'context.foreach."orders.v2".item' },
]
"""
INPUT = {"customers": [{"name": "Ada", "orders": [2, 1]}, {"name": "Grace", "orders": []}]}


def run(
    fixture: str, value: Any, workspace: Workspace | None = None
) -> tuple[dict[str, Any], LastRun]:
    text, _ = parse(fixture)
    return run_document(analyze(text), value, workspace=workspace)


def check_run_hover(fixture: str, value: Any, expected_tail: str, *, edit: str = "") -> None:
    """Run the fixture's workflow on ``value``, optionally append ``edit`` to the
    document, and hover the node id under ``$0``: the hover ends with ``expected_tail``."""
    _, last = run(fixture, value)
    snapshot, offset = cursor(fixture.rstrip("\n") + edit + "\n" if edit else fixture)
    result = hover(snapshot, offset, None, last)
    assert result is not None
    assert result.markdown.startswith("**node `")
    tail = expected(expected_tail).rstrip("\n")
    assert result.markdown.endswith(tail), result.markdown


def test_the_answer_carries_the_trace_and_both_loops_entries_at_the_inner_node() -> None:
    answer, _ = run(LOOPS, INPUT)
    assert answer["status"] == "completed" and answer["outcome"] == "ok"
    charges = [entry for entry in answer["trace"] if entry["node"] == "charge"]
    assert [entry["input"] for entry in charges] == [
        {"who": "Ada", "qty": 2},
        {"who": "Ada", "qty": 1},
    ]
    assert charges[1]["owner_stack"] == ["customers", "orders.v2"]
    assert charges[1]["context"]["foreach"]["orders.v2"]["index"] == 1
    assert answer["activations"] == len(answer["trace"])
    text = answer["text"]
    assert text.startswith("workflow 'loops', run with stand-in handlers (")
    assert "completed with outcome 'ok'" in text
    assert '    customers[0] = {"name": "Ada", "orders": [2, 1]}\n    "orders.v2"[1] = 1\n' in text


def test_hover_on_a_body_node_shows_the_items_its_activations_saw() -> None:
    check_run_hover(
        LOOPS,
        INPUT,
        """
        **Last run**: 2 activations

        - `customers[0] = {"name": "Ada", "orders": [2, 1]}; "orders.v2"[0] = 2`
        - `customers[0] = {"name": "Ada", "orders": [2, 1]}; "orders.v2"[1] = 1`
        """,
    )


def test_hover_says_when_a_node_did_not_run() -> None:
    check_run_hover(LOOPS, {"customers": []}, "**Last run**: this node did not run.")


def test_hover_says_when_the_document_changed_since_the_run() -> None:
    check_run_hover(
        LOOPS,
        {"customers": [{"name": "Ada", "orders": [5]}]},
        """
        **Last run** (on an earlier version of this document): 1 activation

        - `customers[0] = {"name": "Ada", "orders": [5]}; "orders.v2"[0] = 5`
        """,
        edit="# a comment\n",
    )


def test_hover_on_a_node_outside_every_loop() -> None:
    fixture = LOOPS.replace('"$0charge"', '"charge"').replace(
        'id = "customers"', 'id = "$0customers"'
    )
    check_run_hover(fixture, INPUT, "**Last run**: 3 activations, outside every loop")


def test_an_input_the_schema_rejects_is_a_refused_run_with_the_reason() -> None:
    answer, last = run(LOOPS, {"customers": "nobody"})
    assert answer["status"] == "refused"
    assert "input" in answer["error"] and answer["error"] in answer["text"]
    assert answer["trace"] == [] and last.observations == {}


def test_a_document_with_errors_does_not_run() -> None:
    broken = LOOPS.replace('node = "task"', 'node = "tsak"')
    refusal = "the workflow has 1 error(s); fix them before running it (first: unknown_node_def"
    with pytest.raises(RunRefused, match=re.escape(refusal)):
        run(broken, INPUT)


def test_a_workflow_that_never_ends_stops_at_the_step_limit() -> None:
    forever = textwrap.dedent(
        """
        name = "forever"
        start = "a"
        edges = [{ from = "a", outcome = "ok", to = "b" }, { from = "b", outcome = "ok", to = "a" }]

        [[node_defs]]
        name = "task"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "a"
        type = "node"
        node = "task"

        [[nodes]]
        id = "b"
        type = "node"
        node = "task"
        """
    )
    answer, _ = run(forever, {})
    assert answer["status"] in {"failed", "refused"}
    assert str(DEFAULT_MAX_STEPS) in answer["error"]


CHILD = """
name = "child"
start = "rows"
outcomes = ["ok"]
edges = [
  { from = "rows", outcome = "loop", to = "use" },
  { from = "use", outcome = "ok", to = "rows" },
  { from = "rows", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
required = ["rows"]
properties.rows = { type = "array", items = { type = "string" } }

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object", properties = { row = {} } }
output_schema = { type = "object" }

[[nodes]]
id = "rows"
type = "foreach"
over = "input.rows"
as = "row"

[[nodes]]
id = "use"
type = "node"
node = "task"
input = [{ target = "row", path = "context.foreach.rows.item" }]
"""

PARENT = """
name = "parent"
start = "call"
outcomes = ["ok"]
edges = [{ from = "call", outcome = "ok", to = "__end__" }]

[input_schema]
type = "object"
properties.rows = { type = "array", items = { type = "string" } }

[[nodes]]
id = "call"
type = "subgraph"
workflow = { name = "child" }
input_schema = { type = "object", properties = { rows = {} } }
input = [{ target = "rows", path = "input.rows" }]
"""


def test_a_subgraph_runs_the_child_found_in_the_workspace(tmp_path) -> None:
    (tmp_path / "child.wf.toml").write_text(textwrap.dedent(CHILD))
    workspace = Workspace(Roots([tmp_path]))
    workspace.scan()
    answer, last = run(PARENT, {"rows": ["x", "y"]}, workspace)
    assert answer["status"] == "completed", answer["error"]
    assert "use (node) [rows] → ok" in answer["text"]
    # Hover in the parent speaks of the parent's nodes only.
    assert set(last.observations) == {"call"}


def test_a_subgraph_whose_child_is_not_in_the_workspace_does_not_run(tmp_path) -> None:
    with pytest.raises(RunRefused, match="no document of the workspace declares it"):
        run(PARENT, {"rows": []}, Workspace(Roots([tmp_path])))


def run_in_workspace(
    tmp_path, parent: str, value: Any, child: str = CHILD, **options: Any
) -> dict[str, Any]:
    """Run ``parent`` as the editor runs an open document of the workspace: its findings
    are the workspace's (those ``wfls check`` reports), its children the workspace's."""
    (tmp_path / "child.wf.toml").write_text(textwrap.dedent(child))
    (tmp_path / "parent.wf.toml").write_text(textwrap.dedent(parent))
    workspace = Workspace(Roots([tmp_path]))
    workspace.scan()
    (document,) = workspace.by_name("parent")
    answer, _ = run_document(document.snapshot, value, workspace=workspace, **options)
    return answer


NO_SCHEMA = PARENT.replace('input_schema = { type = "object", properties = { rows = {} } }\n', "")


def test_a_subgraph_node_without_schemas_runs_with_its_child_s(tmp_path) -> None:
    answer = run_in_workspace(tmp_path, NO_SCHEMA, {"rows": ["x"]})
    assert answer["status"] == "completed", answer["error"]


def test_a_binding_the_child_does_not_declare_refuses_the_run_as_check_reports_it(
    tmp_path,
) -> None:
    typo = NO_SCHEMA.replace('{ target = "rows"', '{ target = "rwos"')
    with pytest.raises(RunRefused) as refused:
        run_in_workspace(tmp_path, typo, {"rows": ["x"]})
    assert str(refused.value) == (
        "the workflow has 2 error(s); fix them before running it (first: subgraph_binding: "
        "child workflow 'child' requires input 'rows', which no binding provides)"
    )


def test_a_child_with_errors_is_not_run(tmp_path) -> None:
    """As ``wfls run`` refuses it: the child's error would read nothing at run time."""
    broken = CHILD.replace("context.foreach.rows.item", "context.foreach.rows.itme")
    with pytest.raises(RunRefused) as refused:
        run_in_workspace(tmp_path, NO_SCHEMA, {"rows": ["x"]}, child=broken)
    assert str(refused.value).startswith(
        "the child workflow 'child' has 1 error(s); fix them before running it "
        "(first: invalid_context_path: invalid context path 'context.foreach.rows.itme'"
    )


@pytest.mark.parametrize(
    ("chosen", "problem"),
    [
        (
            {"nobody": "ok"},
            "outcome nobody=ok: workflow 'parent' or the workflows it calls has no node or "
            "node def 'nobody'",
        ),
        (
            {"use": "maybe"},
            "outcome use=maybe: node 'use' does not declare outcome 'maybe' (declared: ok)",
        ),
    ],
)
def test_a_chosen_outcome_is_checked_before_the_run(
    tmp_path, chosen: dict[str, str], problem: str
) -> None:
    with pytest.raises(RunRefused) as refused:
        run_in_workspace(tmp_path, NO_SCHEMA, {"rows": ["x"]}, outcomes=chosen)
    assert str(refused.value) == problem

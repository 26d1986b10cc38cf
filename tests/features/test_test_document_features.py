"""Features of a workflow test document, data-driven: a test document with ``$0`` run
against the small workflow of ``tests/workflow_tests/wt_support.py``; expected results
as plain text (the labels offered and the document after accepting one, a hover's text,
the definition marked «» in the workflow's text)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.features.fixture import expected, mark, parse
from tests.workflow_tests.wt_support import ORDERS, write_workspace
from wf_core.workflow_tests import read_test_document
from wf_core.workspace.catalog import workspace_for
from wfls.features.test_documents import TestDocumentView, complete, definition, hover


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_workspace(tmp_path)


def view_at(folder: Path, fixture: str) -> tuple[TestDocumentView, int]:
    text, offset = parse(fixture)
    assert offset is not None, "the fixture needs a $0 cursor"
    workspace = workspace_for([folder])
    workspace.scan()
    loaded = read_test_document(text, "toml")
    return TestDocumentView("file:///t.wf.test.toml", loaded, workspace, folder), offset


def check_test_completion(folder: Path, fixture: str, labels: list[str], accepted: str) -> None:
    """The labels offered at ``$0``, and the document after accepting the first."""
    view, offset = view_at(folder, fixture)
    offered = complete(view, offset)
    assert [candidate.label for candidate in offered] == labels
    first = offered[0]
    text = view.loaded.parsed.text
    after = text[: first.replace.start] + first.insert_text + text[first.replace.end :]
    assert after == expected(accepted)


def check_test_hover(folder: Path, fixture: str, markdown: str) -> None:
    view, offset = view_at(folder, fixture)
    found = hover(view, offset)
    assert found is not None
    assert found.markdown == expected(markdown)


def check_test_definition(folder: Path, fixture: str, marked: str) -> None:
    """The definition at ``$0``, marked in the workflow's text."""
    view, offset = view_at(folder, fixture)
    [target] = definition(view, offset)
    assert target.uri == (folder / "orders.wf.toml").resolve().as_uri()
    workflow_marked = mark(ORDERS, [target.span]).splitlines()
    assert [line for line in workflow_marked if "«" in line] == [marked]


def test_completion_of_a_pinned_node_offers_the_workflows_nodes(folder: Path) -> None:
    check_test_completion(
        folder,
        """
        workflow = "orders"

        [[case]]
        name = "c"

        [[case.pin]]
        node = "$0"
        """,
        ["charge", "note"],
        """
        workflow = "orders"

        [[case]]
        name = "c"

        [[case.pin]]
        node = "charge"
        """,
    )


def test_completion_of_an_outcome_offers_the_pinned_nodes(folder: Path) -> None:
    check_test_completion(
        folder,
        """
        workflow = "orders"

        [[case]]
        name = "c"

        [[case.pin]]
        node = "charge"
        outcome = "$0"
        """,
        ["ok", "declined"],
        """
        workflow = "orders"

        [[case]]
        name = "c"

        [[case.pin]]
        node = "charge"
        outcome = "ok"
        """,
    )


def test_completion_of_a_when_key_offers_the_paths_the_pinned_node_reads(folder: Path) -> None:
    check_test_completion(
        folder,
        """
        workflow = "orders"

        [[case]]
        name = "c"

        [[case.pin]]
        node = "charge"
        when = { "$0" = "A" }
        """,
        [
            "context.prior_outcome",
            "context.activated_incoming_edge",
            "context.scope_id",
            "context.lineage_id",
            "context.parent_lineage_id",
            "context.foreach",
            "context.loop_item",
            "context.loop_index",
            "context.item",
            "context.foreach.each.node_id",
            "context.foreach.each.activation_id",
            "context.foreach.each.frame_id",
            "context.foreach.each.scope_id",
            "context.foreach.each.lineage_id",
            "context.foreach.each.index",
            "context.foreach.each.item",
            "context.foreach.each.item.sku",
        ],
        """
        workflow = "orders"

        [[case]]
        name = "c"

        [[case.pin]]
        node = "charge"
        when = { "context.prior_outcome" = "A" }
        """,
    )


def test_hover_on_a_pinned_node_is_its_nodes_summary(folder: Path) -> None:
    check_test_hover(
        folder,
        """
        workflow = "orders"

        [[case]]
        name = "c"

        [[case.pin]]
        node = "cha$0rge"
        """,
        "**node `charge`**: `node`\n\nuses node def `charge_def`\n\noutcomes: `ok`, "
        "`declined`\n\nowner stack: `each`",
    )


def test_definition_of_a_pinned_node_is_its_id_in_the_workflow(folder: Path) -> None:
    check_test_definition(
        folder,
        """
        workflow = "orders"

        [[case]]
        name = "c"

        [[case.pin]]
        node = "cha$0rge"
        """,
        'id = «"charge"»',
    )

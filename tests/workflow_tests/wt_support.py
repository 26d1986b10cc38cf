"""A small workflow with every feature the tests pin and expect, and helpers that run a
test document's text against it."""

from __future__ import annotations

from pathlib import Path

from wf_core.workflow_tests import (
    FileResult,
    TestFinding,
    check_test_document,
    read_test_document,
    run_test_document,
)
from wf_core.workspace.catalog import workspace_for

ORDERS = """\
name = "orders"
start = "each"
outcomes = ["ok", "stopped"]
edges = [
  { from = "each", outcome = "loop", to = "charge" },
  { from = "charge", outcome = "ok", to = "each" },
  { from = "charge", outcome = "declined", to = "note" },
  { from = "note", outcome = "ok", to = "each" },
  { from = "each", outcome = "done", to = "ask" },
  { from = "ask", outcome = "yes", to = "__end__" },
  { from = "ask", outcome = "no", to = "stop" },
]
output = [{ target = "total", path = "state.total" }]

[input_schema]
type = "object"
required = ["items"]
properties.items = { type = "array", items = { "$ref" = "#/$defs/item" } }

[input_schema."$defs".item]
type = "object"
properties.sku = { type = "string" }

[state_schema]
type = "object"
properties.total = { type = "number" }
properties.answer = { type = "boolean" }

[output_schema]
type = "object"
properties.total = { type = "number" }

[[node_defs]]
name = "charge_def"
outcomes = ["ok", "declined"]
retry = 1
input_schema = { type = "object", properties = { sku = { type = "string" } } }
output_schema = { type = "object", properties = { amount = { type = "number" } } }

[[node_defs]]
name = "note_def"
outcomes = ["ok"]
input_schema = { type = "object" }
output_schema = { type = "object" }

[[nodes]]
id = "each"
type = "foreach"
over = "input.items"
as = "item"

[[nodes]]
id = "charge"
type = "node"
node = "charge_def"
input = [{ target = "sku", path = "context.foreach.each.item.sku" }]
output = [{ source = "amount", target = "state.total" }]

[[nodes]]
id = "note"
type = "node"
node = "note_def"

[[nodes]]
id = "ask"
type = "interrupt"
kind = "approval"
outcomes = ["yes", "no"]
request = [{ target = "total", path = "state.total" }]
resume = [{ source = "ok", target = "state.answer" }]

[[nodes]]
id = "stop"
type = "end"
outcome = "stopped"
"""

HEADER = """workflow = "orders"

[[case]]
name = "c"
input = { items = [{ sku = "A" }, { sku = "B" }] }
"""


def write_workspace(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "orders.wf.toml").write_text(ORDERS, encoding="utf-8")
    return folder


def run_text(folder: Path, text: str, syntax: str = "toml") -> FileResult:
    """``text`` (a test document) run against the workflows of ``folder``."""
    loaded = read_test_document(text, "json" if syntax == "json" else "toml")
    workspace = workspace_for([folder])
    workspace.scan()
    return run_test_document("t.wf.test.toml", loaded, workspace, base=folder)


def findings_of(folder: Path, text: str) -> list[TestFinding]:
    loaded = read_test_document(text, "toml")
    workspace = workspace_for([folder])
    workspace.scan()
    return check_test_document(loaded, workspace, base=folder)

"""Inline values, data-driven: each case is a document with ``$0`` where the debugger
stopped (a node's ``id`` line) and ``«»`` around the paths that node reads: the
expressions the editor asks the debug adapter to evaluate."""

from __future__ import annotations

import pytest

from tests.features.fixture import analyze, mark, parse
from wf_core.base.spans import Span
from wfls.features.inline_values import inline_reads

HEAD = """\
name = "h"
start = "customers"
edges = [
  { from = "customers", outcome = "loop", to = "orders.v2" },
  { from = "orders.v2", outcome = "loop", to = "charge" },
  { from = "charge", outcome = "ok", to = "orders.v2" },
  { from = "orders.v2", outcome = "done", to = "customers" },
  { from = "customers", outcome = "done", to = "__end__" },
]
output = [{ target = "total", path = "state.total" }]

[[node_defs]]
name = "charge_order"
outcomes = ["ok"]
"""

CASES = {
    "the stopped node's input bindings, not its output target": """
        [[nodes]]
        id = "customers"
        type = "foreach"
        over = "input.customers"

        [[nodes]]
        id = "orders.v2"
        type = "foreach"
        over = "context.foreach.customers.item.orders"

        [[nodes]]
        $0id = "charge"
        type = "node"
        node = "charge_order"
        input = [
          { target = "order", path = '«context.foreach."orders.v2".item»' },
          { target = "customer", path = "«context.foreach.customers.item.name»" },
        ]
        output = [{ source = "amount", target = "state.total" }]
        """,
    "a foreach's over": """
        [[nodes]]
        id = "customers"
        type = "foreach"
        over = "input.customers"

        [[nodes]]
        $0id = "orders.v2"
        type = "foreach"
        over = "«context.foreach.customers.item.orders»"

        [[nodes]]
        id = "charge"
        type = "node"
        node = "charge_order"
        input = [{ target = "customer", path = "context.foreach.customers.item.name" }]
        """,
    "stopped outside every node: nothing": """
        $0# the nodes

        [[nodes]]
        id = "customers"
        type = "foreach"
        over = "input.customers"

        [[nodes]]
        id = "orders.v2"
        type = "foreach"
        over = "context.foreach.customers.item.orders"
        """,
}


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_the_stopped_nodes_reads(case: str) -> None:
    marked, offset = parse(HEAD + "\n" + _dedent(case))
    assert offset is not None
    text = marked.replace("«", "").replace("»", "")
    offset -= marked[:offset].count("«") + marked[:offset].count("»")
    found = inline_reads(analyze(text), offset)
    assert mark(text, [read.span for read in found]) == marked
    assert all(text[r.span.start : r.span.end] == r.expression for r in found)


def test_only_the_visible_reads() -> None:
    marked, offset = parse(HEAD + "\n" + _dedent(next(iter(CASES.values()))))
    assert offset is not None
    text = marked.replace("«", "").replace("»", "")
    offset -= marked[:offset].count("«") + marked[:offset].count("»")
    line = text.index('path = "context.foreach.customers')
    visible = Span(line, text.index("\n", line))
    found = inline_reads(analyze(text), offset, visible)
    assert [read.expression for read in found] == ["context.foreach.customers.item.name"]


def _dedent(case: str) -> str:
    import textwrap

    return textwrap.dedent(case).lstrip("\n")

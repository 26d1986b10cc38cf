"""Generated workflows of any size: nested loops and context-reading bindings.

``generate_toml(n)`` writes a workflow of about ``n`` nodes as groups of an
outer foreach, an inner foreach over the outer item's orders, and a chain of
tasks whose bindings read both loops. It is what real large workflows look
like to the analysis: deep owner stacks, many paths, shared item schemas. The
benchmarks measure on it and the tests that need size check on it, both from
here, so that they see the same documents.
"""

from __future__ import annotations

import itertools

TASKS_PER_GROUP = 8
HEADER = """name = "generated"
start = "g0_customers"
outcomes = ["ok"]

[input_schema]
type = "object"
properties.customers = { type = "array", items = { "$ref" = "#/$defs/customer" } }

[input_schema."$defs".customer]
type = "object"
properties.name = { type = "string" }
properties.orders = { type = "array", items = { "$ref" = "#/$defs/order" } }

[input_schema."$defs".order]
type = "object"
additionalProperties = false
properties.sku = { type = "string" }
properties.qty = { type = "integer" }

[state_schema]
type = "object"
properties.total = { type = "number" }

[[node_defs]]
name = "charge_order"
outcomes = ["ok"]
input_schema = { type = "object", properties = { order = { type = "object" }, \
customer = { type = "string" }, qty = { type = "integer" } } }
output_schema = { type = "object", properties = { amount = { type = "number" } } }
"""


def generate_toml(nodes: int) -> str:
    """A workflow of about ``nodes`` nodes (at least one group), as TOML."""
    groups = max(1, nodes // (TASKS_PER_GROUP + 2))
    parts = [HEADER]
    edges: list[str] = []
    for g in range(groups):
        outer, inner = f"g{g}_customers", f"g{g}_orders.v2"
        parts.append(
            f'\n[[nodes]]\nid = "{outer}"\ntype = "foreach"\nover = "input.customers"\n'
            f'as = "customer{g}"\n'
        )
        parts.append(
            f'\n[[nodes]]\nid = "{inner}"\ntype = "foreach"\n'
            f'over = "context.foreach.{outer}.item.orders"\nas = "order{g}"\n'
        )
        tasks = [f"g{g}_t{t}" for t in range(TASKS_PER_GROUP)]
        for task in tasks:
            parts.append(
                f'\n[[nodes]]\nid = "{task}"\ntype = "node"\nnode = "charge_order"\ninput = [\n'
                f'  {{ target = "order", path = \'context.foreach."{inner}".item\' }},\n'
                f'  {{ target = "customer", path = "context.foreach.{outer}.item.name" }},\n'
                f'  {{ target = "qty", path = "context.order{g}.qty" }},\n'
                ']\noutput = [{ source = "amount", target = "state.total" }]\n'
            )
        following = f"g{g + 1}_customers" if g + 1 < groups else "__end__"
        edges.append(f'  {{ from = "{outer}", outcome = "loop", to = "{inner}" }},')
        edges.append(f'  {{ from = "{inner}", outcome = "loop", to = "{tasks[0]}" }},')
        for a, b in itertools.pairwise(tasks):
            edges.append(f'  {{ from = "{a}", outcome = "ok", to = "{b}" }},')
        edges.append(f'  {{ from = "{tasks[-1]}", outcome = "ok", to = "{inner}" }},')
        edges.append(f'  {{ from = "{inner}", outcome = "done", to = "{outer}" }},')
        edges.append(f'  {{ from = "{outer}", outcome = "done", to = "{following}" }},')
    header, body = parts[0], "".join(parts[1:])
    return (
        header.replace(
            'outcomes = ["ok"]\n', 'outcomes = ["ok"]\nedges = [\n' + "\n".join(edges) + "\n]\n", 1
        )
        + body
    )

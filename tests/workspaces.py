"""Generated workspaces of two documents: a caller whose subgraph node runs a child.

The front doors of wfls (``wfls check``, the server's diagnostics, ``wfls run``, the
editor's run, completion) must give one answer for the same documents; the agreement
tests run each ``Shape`` through all of them. A shape varies what decides a subgraph
node's contract and what the usual mistakes touch: whether the node declares its own
schemas, typos in a binding target, an output ``source`` or a loop item's field, a
dotted loop id read with and without its quotes, a child that is missing, misnamed,
requires an input no binding provides, or has an error of its own, and either syntax
for each document.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from wf_core.authoring.export import dump_toml

CHILD_NAME = "notify"
INPUT: dict[str, Any] = {
    "customers": [{"name": "Ada", "rows": ["a", "b"]}, {"name": "Grace", "rows": ["c"]}],
    "rows": ["x"],
}
"""Every list the child loops over has an item: the child's output ``sent`` is then always
written, so a run of a workspace ``check`` accepts completes."""


@dataclass(frozen=True)
class Shape:
    loop_id: str = "customers"
    call_in_loop: bool = True
    node_input_schema: bool = False
    node_output_schema: bool = False
    input_target: str = "rows"  # "rwos": a target the child does not declare
    output_source: str = "sent"  # "snet": a source the child does not produce
    pass_tag: bool = True
    child_requires_tag: bool = False
    child: str = "present"  # "absent", "misnamed" (the caller calls "notfy"), "broken"
    read_field: str = "name"  # "nme": a field the loop item does not have
    quote_loop_id: bool = True
    # An edge for the loop's ``completed_with_errors``: "declared" where the loop skips
    # failed items (so it can end that way), "undeclared" where it does not.
    errors_edge: str = "none"
    caller_syntax: str = "toml"
    child_syntax: str = "toml"

    @property
    def caller_file(self) -> str:
        return f"caller.wf.{self.caller_syntax}"

    @property
    def child_file(self) -> str:
        return f"child.wf.{self.child_syntax}"


def shapes() -> st.SearchStrategy[Shape]:
    """Half of them without a mistake (what every front door must accept and run), half
    with any number of them."""
    common = {
        "loop_id": st.sampled_from(["customers", "orders.v2"]),
        "call_in_loop": st.booleans(),
        "node_input_schema": st.booleans(),
        "node_output_schema": st.booleans(),
        "caller_syntax": st.sampled_from(["toml", "json"]),
        "child_syntax": st.sampled_from(["toml", "json"]),
    }
    # Without a mistake, the child requires ``tag`` whenever the caller passes it.
    correct = st.builds(
        Shape, pass_tag=st.booleans(), errors_edge=st.sampled_from(["none", "declared"]), **common
    ).map(lambda shape: replace(shape, child_requires_tag=shape.pass_tag))
    mistaken = st.builds(
        Shape,
        input_target=st.sampled_from(["rows", "rwos"]),
        output_source=st.sampled_from(["sent", "snet"]),
        pass_tag=st.booleans(),
        child_requires_tag=st.booleans(),
        child=st.sampled_from(["present", "absent", "misnamed", "broken"]),
        read_field=st.sampled_from(["name", "nme"]),
        quote_loop_id=st.booleans(),
        errors_edge=st.sampled_from(["none", "declared", "undeclared"]),
        **common,
    )
    return st.one_of(correct, mistaken)


def _edge(spec: str) -> dict[str, str]:
    source, rest = spec.split(":", 1)
    outcome, target = rest.split("->", 1)
    return {"from": source, "outcome": outcome, "to": target}


def child_document(shape: Shape) -> dict[str, Any]:
    required = ["rows", "tag"] if shape.child_requires_tag else ["rows"]
    item = "context.foreach.rows.itm" if shape.child == "broken" else "context.foreach.rows.item"
    return {
        "name": CHILD_NAME,
        "start": "rows",
        "outcomes": ["ok"],
        "edges": [_edge(e) for e in ("rows:loop->send", "send:ok->rows", "rows:done->__end__")],
        "output": [{"target": "sent", "path": "state.sent"}],
        "input_schema": {
            "type": "object",
            "required": required,
            "properties": {
                "rows": {"type": "array", "items": {"type": "string"}},
                "tag": {"type": "string"},
            },
        },
        "state_schema": {"type": "object", "properties": {"sent": {"type": "integer"}}},
        "output_schema": {"type": "object", "properties": {"sent": {"type": "integer"}}},
        "node_defs": [
            {
                "name": "send",
                "outcomes": ["ok"],
                "input_schema": {"type": "object", "properties": {"row": {"type": "string"}}},
                "output_schema": {"type": "object", "properties": {"count": {"type": "integer"}}},
            }
        ],
        "nodes": [
            {"id": "rows", "type": "foreach", "over": "input.rows", "as": "row"},
            {
                "id": "send",
                "type": "node",
                "node": "send",
                "input": [{"target": "row", "path": item}],
                "output": [{"source": "count", "target": "state.sent"}],
            },
        ],
    }


def _loop_read(shape: Shape, rest: str) -> str:
    written = (
        f'"{shape.loop_id}"' if "." in shape.loop_id and shape.quote_loop_id else shape.loop_id
    )
    return f"context.foreach.{written}.item.{rest}"


def caller_document(shape: Shape) -> dict[str, Any]:
    loop = shape.loop_id
    call: dict[str, Any] = {
        "id": "call",
        "type": "subgraph",
        "workflow": {"name": "notfy" if shape.child == "misnamed" else CHILD_NAME},
    }
    if shape.node_input_schema:
        call["input_schema"] = {"type": "object", "properties": {"rows": {}, "tag": {}}}
    if shape.node_output_schema:
        call["output_schema"] = {"type": "object", "properties": {"sent": {}}}
    rows = _loop_read(shape, "rows") if shape.call_in_loop else "input.rows"
    call["input"] = [{"target": shape.input_target, "path": rows}]
    if shape.pass_tag:
        call["input"].append({"target": "tag", "value": "vip"})
    call["output"] = [{"source": shape.output_source, "target": "state.sent"}]
    if shape.call_in_loop:
        edges = ["L:loop->hello", "hello:ok->call", "call:ok->L", "L:done->__end__"]
    else:
        edges = ["L:loop->hello", "hello:ok->L", "L:done->call", "call:ok->__end__"]
    if shape.errors_edge != "none":
        edges.append("L:completed_with_errors->__end__")
    foreach: dict[str, Any] = {"id": loop, "type": "foreach", "over": "input.customers"}
    foreach["as"] = "customer"
    if shape.errors_edge == "declared":
        foreach["item_error"] = {"action": "skip"}
    return {
        "name": "caller",
        "start": loop,
        "outcomes": ["ok"],
        "edges": [_edge(e.replace("L:", f"{loop}:").replace("->L", f"->{loop}")) for e in edges],
        "output": [{"target": "sent", "path": "state.sent"}],
        "input_schema": {
            "type": "object",
            "required": ["customers", "rows"],
            "properties": {
                "customers": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "rows": {"type": "array", "items": {"type": "string"}},
                        },
                    },
                },
                "rows": {"type": "array", "items": {"type": "string"}},
            },
        },
        "state_schema": {
            "type": "object",
            "properties": {"sent": {"type": "integer"}, "greeting": {"type": "string"}},
        },
        "output_schema": {"type": "object", "properties": {"sent": {"type": "integer"}}},
        "node_defs": [
            {
                "name": "greet",
                "outcomes": ["ok"],
                "input_schema": {"type": "object", "properties": {"who": {"type": "string"}}},
                "output_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
            }
        ],
        "nodes": [
            foreach,
            {
                "id": "hello",
                "type": "node",
                "node": "greet",
                "input": [{"target": "who", "path": _loop_read(shape, shape.read_field)}],
                "output": [{"source": "text", "target": "state.greeting"}],
            },
            call,
        ],
    }


def text_of(document: dict[str, Any], syntax: str) -> str:
    if syntax == "json":
        return json.dumps(document, indent=2) + "\n"
    return dump_toml(document)


def write(shape: Shape, folder: Path) -> Path:
    """Write the shape's documents (and ``input.json``) into ``folder``; the caller's path."""
    if shape.child != "absent":
        child = text_of(child_document(shape), shape.child_syntax)
        (folder / shape.child_file).write_text(child, encoding="utf-8")
    caller = folder / shape.caller_file
    caller.write_text(text_of(caller_document(shape), shape.caller_syntax), encoding="utf-8")
    (folder / "input.json").write_text(json.dumps(INPUT), encoding="utf-8")
    return caller

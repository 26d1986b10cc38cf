"""Property: every offered code action leaves a document that parses, fixes what it is
attached to, and brings no new error.

Documents are valid workflows (one to three nested loops, dotted ids, aliases, a
node after the loops) mutated the way authors slip: a typo in a path member, a
node id, an outcome, a node def or ``start``; an alias repeated by an inner loop;
an edge left out; a non-ASCII member written unquoted; and, beside any of those,
convenience keys, deprecated input forms and unknown keys. At most one mutation
is an error, so a fix cannot merely uncover another mistake the generator made.
Written as TOML or as JSON.

The one allowance: an edge that wires an unreachable node in makes that node
reachable, so its own missing edges and reads now count; those errors name it.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.features.fixture import apply, errors
from wf_core.export import dump_toml
from wf_core.snapshot import analyze_text
from wf_core.spans import Span
from wfls.features.code_actions import code_actions, resolve_code_action
from wfls.features.types import MIGRATE_CONVENIENCE_KEYS

IDS = ["customers", "orders.v2", "lines", "items"]
ALIASES = ["customer", "order", "line", "item_"]
MEMBERS = ["name", "sku", "qty"]


def item_schema(depth: int, loops: int) -> dict[str, Any]:
    properties: dict[str, Any] = {m: {"type": "string"} for m in MEMBERS}
    properties["grüße"] = {"type": "string"}
    if depth + 1 < loops:
        properties["children"] = {"type": "array", "items": item_schema(depth + 1, loops)}
    return {"type": "object", "properties": properties}


def base_workflow(loops: int) -> dict[str, Any]:
    """``loops`` nested foreach nodes, a task reading every item in the innermost body,
    and a ``summary`` node after the outermost loop."""
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, str]] = []
    for depth in range(loops):
        over = (
            "input.rows"
            if depth == 0
            else "context.foreach." + _seg(IDS[depth - 1]) + ".item.children"
        )
        nodes.append({"id": IDS[depth], "type": "foreach", "over": over, "as": ALIASES[depth]})
        if depth:
            edges.append({"from": IDS[depth - 1], "outcome": "loop", "to": IDS[depth]})
            edges.append({"from": IDS[depth], "outcome": "done", "to": IDS[depth - 1]})
    inner = IDS[loops - 1]
    inputs = [
        {"target": MEMBERS[d % 3], "path": f"context.foreach.{_seg(IDS[d])}.item.{MEMBERS[d % 3]}"}
        for d in range(loops)
    ]
    nodes.append({"id": "work", "type": "node", "node": "task", "input": inputs})
    nodes.append(
        {
            "id": "summary",
            "type": "node",
            "node": "task",
            "input": [{"target": "name", "path": "input.title"}],
        }
    )
    edges += [
        {"from": inner, "outcome": "loop", "to": "work"},
        {"from": "work", "outcome": "ok", "to": inner},
        {"from": IDS[0], "outcome": "done", "to": "summary"},
        {"from": "summary", "outcome": "ok", "to": "__end__"},
    ]
    return {
        "name": "generated",
        "start": IDS[0],
        "outcomes": ["ok"],
        "edges": edges,
        "input_schema": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "rows": {"type": "array", "items": item_schema(0, loops)},
            },
        },
        "node_defs": [
            {
                "name": "task",
                "outcomes": ["ok"],
                "input_schema": {"type": "object", "properties": {m: {} for m in MEMBERS}},
                "output_schema": {"type": "object"},
            }
        ],
        "nodes": nodes,
    }


def _seg(segment: str) -> str:
    return f'"{segment}"' if "." in segment else segment


def typo(name: str, draw: Any) -> str:
    """``name`` with one character doubled, dropped or swapped (never unchanged)."""
    index = draw(st.integers(0, len(name) - 2))
    kind = draw(st.sampled_from(["double", "drop", "swap"]))
    if kind == "double":
        return name[: index + 1] + name[index] + name[index + 1 :]
    if kind == "drop" and len(name) > 4:
        return name[:index] + name[index + 1 :]
    swapped = name[:index] + name[index + 1] + name[index] + name[index + 2 :]
    return swapped if swapped != name else name + name[-1]


def _work(doc: dict[str, Any]) -> dict[str, Any]:
    return next(n for n in doc["nodes"] if n["id"] == "work")


def error_mutation(doc: dict[str, Any], loops: int, draw: Any) -> None:
    kind = draw(
        st.sampled_from(
            [
                "none",
                "member",
                "edge_to",
                "edge_outcome",
                "start",
                "node_def",
                "alias_conflict",
                "missing_edge",
                "unreachable",
                "unquoted",
            ]
        )
    )
    work = _work(doc)
    if kind == "member":
        binding = draw(st.sampled_from(work["input"]))
        member = binding["path"].rsplit(".", 1)[1]
        binding["path"] = binding["path"][: -len(member)] + typo(member, draw)
    elif kind == "edge_to":
        edge = draw(st.sampled_from(doc["edges"]))
        if edge["to"] != "__end__":
            edge["to"] = typo(edge["to"], draw)
    elif kind == "edge_outcome":
        edge = draw(st.sampled_from([e for e in doc["edges"] if e["outcome"] != "ok"]))
        edge["outcome"] = typo(edge["outcome"], draw)
    elif kind == "start":
        doc["start"] = typo(doc["start"], draw)
    elif kind == "node_def":
        work["node"] = typo("task", draw)
    elif kind == "alias_conflict" and loops > 1:
        doc["nodes"][loops - 1]["as"] = ALIASES[0]
    elif kind == "missing_edge":
        doc["edges"] = [e for e in doc["edges"] if (e["from"], e["outcome"]) != ("work", "ok")]
    elif kind == "unreachable":
        doc["edges"] = [e for e in doc["edges"] if e["to"] != "summary"]
    elif kind == "unquoted":
        binding = work["input"][0]
        binding["path"] = binding["path"].rsplit(".", 1)[0] + ".grüße"


def other_mutations(doc: dict[str, Any], loops: int, draw: Any) -> None:
    work = _work(doc)
    for depth, binding in enumerate(work["input"]):  # binding ``d`` reads loop ``d``
        if binding["path"].startswith("context.foreach.") and draw(st.booleans()):
            member = binding["path"].rsplit(".", 1)[1]
            if depth == loops - 1 and draw(st.booleans()):
                binding["path"] = f"context.loop_item.{member}"
            else:
                binding["path"] = f"context.{doc['nodes'][depth]['as']}.{member}"
    if draw(st.booleans()):
        bindings = work.pop("input")
        work["in_map"] = {b["path"]: b["target"] for b in bindings}
    if draw(st.booleans()):
        doc["nodes"][0]["on_item_error"] = "fail"
    if draw(st.booleans()):
        key = draw(st.sampled_from(["colour", "timeout_secnds", "retyr"]))
        value: Any = {"colour": "red", "timeout_secnds": 5, "retyr": 2}[key]
        work[key] = value


@st.composite
def documents(draw: Any) -> tuple[str, str]:
    loops = draw(st.integers(1, 3))
    doc = base_workflow(loops)
    error_mutation(doc, loops, draw)
    other_mutations(doc, loops, draw)
    if draw(st.booleans()):
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "json"
    return dump_toml(doc), "toml"


def about(error: str, node_id: str) -> bool:
    return repr(node_id) in error


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_every_offered_action_parses_fixes_and_adds_no_error(document: tuple[str, str]) -> None:
    text, syntax = document
    snapshot = analyze_text(text, syntax)
    assert all(i.code != "syntax_error" for i in snapshot.issues), text
    before = set(errors(snapshot))
    for action in code_actions(snapshot, Span(0, len(text))):
        edits = action.edits
        if edits is None:
            assert action.data is not None
            edits = resolve_code_action(snapshot, action.data)
        assert edits, action.title
        fixed_text = apply(text, [(e.span, e.new_text) for e in edits])
        fixed = analyze_text(fixed_text, syntax)
        issues = {(i.code, i.message) for i in fixed.issues}
        assert "syntax_error" not in {code for code, _ in issues}, (action.title, fixed_text)
        for issue in action.issues:
            assert (issue.code, issue.message) not in issues, (action.title, fixed_text)
        if action.kind == MIGRATE_CONVENIENCE_KEYS:
            assert "deprecated_context_key" not in {code for code, _ in issues}
        new = set(errors(fixed)) - before
        if action.title.startswith("Add an edge from"):
            target = action.title.rsplit(" to ", 1)[1].strip("'")
            new = {e for e in new if not about(e, target)}
        assert not new, (action.title, new, fixed_text)

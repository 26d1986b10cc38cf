"""Property: every offered code action leaves a document that parses, fixes what it is
attached to, and brings no new error.

Documents are valid workflows (one to three nested loops, dotted ids, aliases, a
node after the loops ending at ``__end__`` or at an ``end`` node) mutated the way
authors slip: a typo in a path member, a node id, an outcome, a node def or
``start``; an alias repeated by an inner loop; an edge left out; a non-ASCII member
written unquoted; a dotted loop id read unquoted; a node nothing leads to, after the
loops, inside the innermost body or as an ``end`` node, next to nodes (inside and
outside the loops) with an outcome nothing is wired to yet; and, beside any of
those, convenience keys, deprecated keys and input forms, and unknown keys. Only the
unreachable-node mutations bring more than one error, each of which has its fix.
Written as TOML or as JSON.

The one allowance: an edge that wires an unreachable node in makes that node
reachable, so its own missing outcome edges, there all along, now count.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.features.fixture import apply
from wf_core.authoring.export import dump_toml
from wf_core.base.spans import Span
from wf_core.version.snapshot import DocumentSnapshot, analyze_text
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


def base_workflow(loops: int, end_node: bool = False) -> dict[str, Any]:
    """``loops`` nested foreach nodes, a task reading every item in the innermost body,
    and a ``summary`` node after the outermost loop, which ends the workflow (at an
    ``end`` node ``finish`` when ``end_node``)."""
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
        {"from": "summary", "outcome": "ok", "to": "finish" if end_node else "__end__"},
    ]
    if end_node:
        nodes.append({"id": "finish", "type": "end"})
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
                "name": name,
                "outcomes": outcomes,
                "input_schema": {"type": "object", "properties": {m: {} for m in MEMBERS}},
                "output_schema": {"type": "object"},
            }
            for name, outcomes in (("task", ["ok"]), ("review", ["ok", "flag"]))
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
    return _node(doc, "work")


def _node(doc: dict[str, Any], node_id: str) -> dict[str, Any]:
    return next(n for n in doc["nodes"] if n["id"] == node_id)


ERRORS = [
    "none",
    "member",
    "edge_to",
    "edge_outcome",
    "start",
    "node_def",
    "alias_conflict",
    "missing_edge",
    "unreachable",
    "unreachable_end",
    "unreachable_in_body",
    "unquoted",
    "dotted_id",
]


def error_mutation(doc: dict[str, Any], loops: int, draw: Any) -> None:
    kind = draw(st.sampled_from(ERRORS))
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
        free_outcomes(doc, draw)
    elif kind == "unreachable_end":
        unreachable_end(doc)
        free_outcomes(doc, draw)
    elif kind == "unreachable_in_body":
        unreachable_in_body(doc, loops)
        free_outcomes(doc, draw)
    elif kind == "unquoted":
        binding = work["input"][0]
        binding["path"] = binding["path"].rsplit(".", 1)[0] + ".grüße"
    elif kind == "dotted_id" and loops > 1:
        reads = [b for b in work["input"] if '"orders.v2"' in b["path"]]
        if loops > 2:
            reads.append(doc["nodes"][2])
        read = draw(st.sampled_from(reads))
        key = "over" if "over" in read else "path"
        read[key] = read[key].replace('"orders.v2"', "orders.v2")


def unreachable_end(doc: dict[str, Any]) -> None:
    """An ``end`` node ``stop`` that no edge leads to, written right after ``work``, in
    the innermost loop body: wired from there it would end the workflow mid-loop."""
    doc["nodes"].insert(doc["nodes"].index(_work(doc)) + 1, {"id": "stop", "type": "end"})


def unreachable_in_body(doc: dict[str, Any], loops: int) -> None:
    """A node ``audit`` written after ``summary``, reading the innermost loop's item and
    returning to it, that nothing leads to: it can only be wired from inside that body."""
    inner = IDS[loops - 1]
    member = MEMBERS[(loops - 1) % 3]
    path = f"context.foreach.{_seg(inner)}.item.{member}"
    doc["nodes"].append(
        {"id": "audit", "type": "node", "node": "task", "input": [{"target": member, "path": path}]}
    )
    doc["edges"].append({"from": "audit", "outcome": "ok", "to": inner})


def free_outcomes(doc: dict[str, Any], draw: Any) -> None:
    """``work`` (in the innermost body) and ``summary`` (after the loops) may declare an
    outcome nothing is wired to yet, from which an unreachable node could be wired in."""
    for node_id in ("work", "summary"):
        if draw(st.booleans()):
            _node(doc, node_id)["node"] = "review"


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
        doc["nodes"][0][draw(st.sampled_from(["mode", "parallel"]))] = "parallel"
    if draw(st.booleans()):
        key = draw(st.sampled_from(["colour", "timeout_secnds", "retyr"]))
        value: Any = {"colour": "red", "timeout_secnds": 5, "retyr": 2}[key]
        work[key] = value


def written(doc: dict[str, Any], syntax: str) -> tuple[str, str]:
    if syntax == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "json"
    return dump_toml(doc), "toml"


@st.composite
def documents(draw: Any) -> tuple[str, str]:
    loops = draw(st.integers(1, 3))
    doc = base_workflow(loops, end_node=draw(st.booleans()))
    error_mutation(doc, loops, draw)
    other_mutations(doc, loops, draw)
    return written(doc, draw(st.sampled_from(["json", "toml"])))


def _stop_after_a_body_node_with_a_free_outcome() -> tuple[str, str]:
    """Wired from ``work``, the nearest node with a free outcome, ``stop`` would end the
    workflow inside the loop (``invalid_foreach_terminal``)."""
    doc = base_workflow(2)
    unreachable_end(doc)
    _work(doc)["node"] = "review"
    return written(doc, "toml")


def _summary_after_a_body_node_with_a_free_outcome() -> tuple[str, str]:
    """Wired from ``work``, ``summary`` would lead to ``__end__`` from inside the loop."""
    doc = base_workflow(1)
    doc["edges"] = [e for e in doc["edges"] if e["to"] != "summary"]
    _work(doc)["node"] = "review"
    return written(doc, "json")


def error_keys(snapshot: DocumentSnapshot) -> set[str]:
    """The errors of ``snapshot``; a node's missing outcome edges are one error whichever
    outcomes it lists (a fix that wires one of them leaves the rest)."""
    return {
        f"{p.code} at {p.model_path}"
        if p.code == "missing_outcome_edge"
        else f"{p.code}: {p.message}"
        for p in snapshot.issues
        if p.severity == "error"
    }


def unreachable(snapshot: DocumentSnapshot) -> set[str]:
    return {p.model_path or "" for p in snapshot.issues if p.code == "unreachable_node"}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
@example(_stop_after_a_body_node_with_a_free_outcome())
@example(_summary_after_a_body_node_with_a_free_outcome())
def test_every_offered_action_parses_fixes_and_adds_no_error(document: tuple[str, str]) -> None:
    text, syntax = document
    snapshot = analyze_text(text, syntax)
    assert all(i.code != "syntax_error" for i in snapshot.issues), text
    before = error_keys(snapshot)
    was_unreachable = unreachable(snapshot)
    for action in code_actions(snapshot, Span(0, len(text))):
        edits = action.edits
        if edits is None:
            assert action.data is not None
            edits = resolve_code_action(snapshot, action.data)
        assert edits, action.title
        fixed_text = apply(text, [(e.span, e.new_text) for e in edits])
        fixed = analyze_text(fixed_text, syntax)
        issues = {(i.code, i.model_path, i.message) for i in fixed.issues}
        codes = {code for code, _, _ in issues}
        assert "syntax_error" not in codes, (action.title, fixed_text)
        for issue in action.issues:
            assert (issue.code, issue.model_path, issue.message) not in issues, (
                action.title,
                fixed_text,
            )
        if action.kind == MIGRATE_CONVENIENCE_KEYS:
            assert "deprecated_context_key" not in codes
        new = {
            e
            for e in error_keys(fixed) - before
            if not (
                e.startswith("missing_outcome_edge at ")
                and e.removeprefix("missing_outcome_edge at ") in was_unreachable
            )
        }
        assert not new, (action.title, new, fixed_text)

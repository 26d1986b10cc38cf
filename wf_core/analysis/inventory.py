"""The authoring inventory: every path an author may use, with its schema (lda-wf-model §8).

Two differences from lda-wf, both so that the inventory, completion and
validation can never disagree:

- every ``path`` is printed by the one canonical formatter, so ``input."a b"``
  is quoted the same way here, in completions and in diagnostics;
- schemas are walked by the one :class:`~wf_core.models.schema_nav.SchemaNavigator`
  (``$ref``, ``allOf``/``anyOf``/``oneOf``) for every root, and each option's
  ``schema`` is standalone: a reference inside it resolves on its own.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import TypedDict

from wf_core.analysis.context_scopes import ContextFieldAvailability, ContextModel
from wf_core.language.context_contracts import FOREACH_CONTEXT_KEY, FOREACH_ENTRY_KEYS
from wf_core.language.paths import format_segments
from wf_core.models.schema_nav import SchemaNavigator, SchemaView
from wf_core.models.workflow import Workflow

MAX_DEPTH = 32

_ROOTS = {
    "input": ("input", "workflow_input"),
    "state": ("state", "workflow_state"),
    "context": ("context", "runtime_context"),
    "step_input": ("step_input", "step_input"),
    "step_output": ("step_output", "step_output"),
    "output": ("output", "workflow_output"),
    "workflow_output": ("output", "workflow_output"),
}


class AuthoringPathOption(TypedDict, total=False):
    path: str
    label: str
    origin: str
    schema: dict[str, object]
    type: str
    required: bool
    availability: str
    uses: list[str]
    description: str
    reason: str


def _label(name: str, title: object = None) -> str:
    if isinstance(title, str):
        return title
    return name.replace("_", " ").replace("-", " ").title()


def view_schema(navigator: SchemaNavigator, view: SchemaView) -> dict[str, object]:
    """One standalone schema for a view: each declaring branch detached from its document.

    A property declared in several branches (two ``anyOf`` members) may be either
    declaration, hence ``anyOf`` of the detached copies.
    """
    copies = [navigator.standalone(node) for node in view.nodes]
    if len(copies) == 1:
        return copies[0]
    return {"anyOf": copies}


def view_options(
    navigator: SchemaNavigator,
    view: SchemaView,
    segments: tuple[str, ...],
    *,
    origin: str,
    uses: Sequence[str],
    depth: int = 0,
    on_branch: frozenset[int] = frozenset(),
) -> Iterator[AuthoringPathOption]:
    """Options for the members of ``view``, depth first, parent before child.

    Arrays are not expanded and open objects invent no children (lda-wf's rules);
    a schema already expanded on this branch (a recursive ``$ref``) is listed but
    not expanded again, and depth stops at :data:`MAX_DEPTH`.
    """
    if depth >= MAX_DEPTH or view.declares_array():
        return
    for name in view.declared_names():
        child = view.child(name)
        if child is None:
            continue
        path = (*segments, name)
        option: AuthoringPathOption = {
            "path": format_segments(path),
            "label": _label(name, child.first("title")),
            "origin": origin,
            "schema": view_schema(navigator, child),
            "type": child.type_summary(),
            "required": view.is_required(name),
            "availability": "available",
            "uses": list(uses),
        }
        description = child.first("description")
        if isinstance(description, str):
            option["description"] = description
        yield option
        seen = {id(branch.schema) for branch in child.branches()}
        if seen & on_branch:
            continue
        yield from view_options(
            navigator,
            child,
            path,
            origin=origin,
            uses=uses,
            depth=depth + 1,
            on_branch=on_branch | seen,
        )


def schema_path_options(
    schema: Mapping[str, object],
    *,
    root: str,
    uses: Sequence[str],
    navigator: SchemaNavigator | None = None,
) -> list[AuthoringPathOption]:
    """Options for every declared member of ``schema`` under ``root``."""
    if root not in _ROOTS:
        raise ValueError(f"unsupported authoring schema root {root!r}")
    prefix, origin = _ROOTS[root]
    navigator = navigator or SchemaNavigator(schema)
    return list(view_options(navigator, navigator.root, (prefix,), origin=origin, uses=uses))


def context_path_options(
    fields: Sequence[ContextFieldAvailability], navigator: SchemaNavigator | None = None
) -> list[AuthoringPathOption]:
    """The context fields, then each ``context.foreach.<owner>`` entry and its item members."""
    options: list[AuthoringPathOption] = []
    foreach_field: ContextFieldAvailability | None = None
    for field in fields:
        option: AuthoringPathOption = {
            "path": format_segments(("context", field.name)),
            "label": _label(field.name),
            "origin": "runtime_context",
            "schema": copy.deepcopy(field.schema),
            "required": False,
            "availability": field.availability,
            "uses": ["step_input"],
            "description": field.description,
        }
        if navigator is not None:
            view = navigator.at_path((field.name,))
            if view is not None:
                option["schema"] = view_schema(navigator, view)
                option["type"] = view.type_summary()
        if field.reason:
            option["reason"] = field.reason
        options.append(option)
        if field.name == FOREACH_CONTEXT_KEY:
            foreach_field = field
    if foreach_field is None:
        return options
    navigator = navigator or SchemaNavigator(
        {"type": "object", "properties": {FOREACH_CONTEXT_KEY: foreach_field.schema}}
    )
    owners = foreach_field.schema.get("properties", {})
    for owner in owners if isinstance(owners, Mapping) else ():
        for prop in FOREACH_ENTRY_KEYS:
            segments = ("context", FOREACH_CONTEXT_KEY, owner, prop)
            view = navigator.at_path(segments[1:])
            if view is None:
                continue
            options.append(
                {
                    "path": format_segments(segments),
                    "label": _label(prop),
                    "origin": "runtime_context",
                    "schema": view_schema(navigator, view),
                    "type": view.type_summary(),
                    "required": True,
                    "availability": "available",
                    "uses": ["step_input"],
                }
            )
            if prop == "item":
                options.extend(
                    view_options(
                        navigator, view, segments, origin="runtime_context", uses=["step_input"]
                    )
                )
    return options


def missing_context_reason(
    model: ContextModel, node_id: str, *, left_out: Collection[str] = ()
) -> str | None:
    """Why ``node_id`` has no context schema, in the author's terms; None when it has one.

    The cause is named where it lies: a node is "unreachable" only when there is a start
    to reach it from. ``left_out`` holds the ids of nodes that failed to load, so a start
    naming one of them is said to have failed to load rather than to name no node.
    """
    if model.stack_of(node_id) is not None:
        return None
    start = model.workflow.start
    if not start:
        return "the workflow's start is not set"
    if start not in model.nodes_by_id:
        if start in left_out:
            return f"the workflow's start node {start!r} failed to load"
        return f"the workflow's start {start!r} names no node"
    if node_id in model.regions.conflicted:
        return f"node {node_id!r} is reachable under two foreach control regions"
    return f"node {node_id!r} is unreachable from start {start!r}"


def context_path_options_for_node(
    workflow: Workflow, node_id: str, *, model: ContextModel | None = None
) -> list[AuthoringPathOption]:
    model = model or ContextModel(workflow)
    stack = model.stack_of(node_id)
    if stack is None:
        return []
    return context_path_options(model.fields_for_stack(stack), model.navigator_for_stack(stack))


def readable_sources_for_node(
    workflow: Workflow, node_id: str, *, model: ContextModel | None = None
) -> list[AuthoringPathOption]:
    """Input options, then the node's context entries, then state options (§8.2)."""
    model = model or ContextModel(workflow)
    uses = ["step_input", "workflow_output"]
    options = schema_path_options(
        model.input_schema, root="input", uses=uses, navigator=model.source_navigator("input")
    )
    options.extend(context_path_options_for_node(workflow, node_id, model=model))
    options.extend(
        schema_path_options(
            model.state_schema, root="state", uses=uses, navigator=model.source_navigator("state")
        )
    )
    return options

"""The authoring inventory: every path an author may use, with its schema (lda-wf-model §8).

Unlike lda-wf, every ``path`` here is printed by the one canonical formatter
(workflow-format.md, decision 2), so ``input."a b"`` is quoted the same way
in the inventory, in completions and in diagnostics.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict

from wf_core.analysis.context_scopes import ContextFieldAvailability, ContextModel
from wf_core.context_contracts import FOREACH_CONTEXT_KEY, FOREACH_ENTRY_KEYS
from wf_core.paths import format_segments
from wf_core.schema_nav import SchemaNavigator, SchemaView

MAX_DEPTH = 32
MAX_REF_HOPS = 32

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
    schema: dict[str, Any]
    required: bool
    availability: str
    uses: list[str]
    description: str
    reason: str


def _label(name: str, *schemas: Any) -> str:
    for schema in schemas:
        if isinstance(schema, Mapping) and isinstance(schema.get("title"), str):
            return schema["title"]
    return name.replace("_", " ").replace("-", " ").title()


def _description(*schemas: Any) -> str | None:
    for schema in schemas:
        if isinstance(schema, Mapping) and isinstance(schema.get("description"), str):
            return schema["description"]
    return None


def _resolve_local(schema: Any, root: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """Follow ``#/$defs/`` and ``#/definitions/`` pointers, at most 32 hops."""
    refs: list[str] = []
    current = schema
    for _ in range(MAX_REF_HOPS):
        if not isinstance(current, Mapping):
            break
        ref = current.get("$ref")
        if not isinstance(ref, str):
            break
        target = None
        for prefix in ("#/$defs/", "#/definitions/"):
            if ref.startswith(prefix):
                name = ref[len(prefix) :].replace("~1", "/").replace("~0", "~")
                holder = root.get(prefix[2:-1])
                if isinstance(holder, Mapping):
                    target = holder.get(name)
        if target is None or ref in refs:
            refs.append(ref)
            break
        refs.append(ref)
        current = target
    return current, refs


def _self_contained(fragment: Any, root: Mapping[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(dict(fragment)) if isinstance(fragment, Mapping) else {}
    for key in ("$defs", "definitions"):
        if isinstance(root.get(key), Mapping):
            result.setdefault(key, {}).update(copy.deepcopy(dict(root[key])))
    return result


def schema_path_options(
    schema: Mapping[str, Any], *, root: str, uses: Sequence[str]
) -> list[AuthoringPathOption]:
    if root not in _ROOTS:
        raise ValueError(f"unsupported authoring schema root '{root}'")
    prefix, origin = _ROOTS[root]
    options: list[AuthoringPathOption] = []

    def visit(node: Any, segments: tuple[str, ...], branch_refs: frozenset[str], depth: int):
        if depth >= MAX_DEPTH:
            return
        resolved, _ = _resolve_local(node, schema)
        if not isinstance(resolved, Mapping) or resolved.get("type") == "array":
            return
        properties = resolved.get("properties")
        if not isinstance(properties, Mapping):
            return
        required = resolved.get("required") if isinstance(resolved.get("required"), list) else []
        for name, fragment in properties.items():
            target, refs = _resolve_local(fragment, schema)
            option: AuthoringPathOption = {
                "path": format_segments((prefix, *segments, name)),
                "label": _label(name, target, fragment),
                "origin": origin,
                "schema": _self_contained(target, schema),
                "required": name in required,
                "availability": "available",
                "uses": list(uses),
            }
            description = _description(target, fragment)
            if description:
                option["description"] = description
            options.append(option)
            if any(ref in branch_refs for ref in refs):
                continue
            visit(fragment, (*segments, name), branch_refs | set(refs), depth + 1)

    visit(schema, (), frozenset(), 0)
    return options


def _view_options(
    view: SchemaView, segments: tuple[str, ...], depth: int
) -> Iterable[AuthoringPathOption]:
    """Object members under a context item, through every structural branch."""
    if depth >= MAX_DEPTH or view.declares_array():
        return
    for name in view.declared_names():
        child = view.child(name)
        if child is None:
            continue
        path = (*segments, name)
        option: AuthoringPathOption = {
            "path": format_segments(("context", *path)),
            "label": _label(name, child.first("title") and {"title": child.first("title")}),
            "origin": "runtime_context",
            "schema": _first_schema(child),
            "required": view.is_required(name),
            "availability": "available",
            "uses": ["step_input"],
        }
        description = child.first("description")
        if isinstance(description, str):
            option["description"] = description
        yield option
        yield from _view_options(child, path, depth + 1)


def _first_schema(view: SchemaView) -> dict[str, Any]:
    schema = view.nodes[0].schema if view.nodes else {}
    return copy.deepcopy(dict(schema)) if isinstance(schema, Mapping) else {}


def context_path_options(
    fields: Sequence[ContextFieldAvailability], navigator: SchemaNavigator | None = None
) -> list[AuthoringPathOption]:
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
    entries = foreach_field.schema.get("properties", {})
    for owner, entry in entries.items():
        for prop in FOREACH_ENTRY_KEYS:
            prop_schema = entry.get("properties", {}).get(prop, {})
            options.append(
                {
                    "path": format_segments(("context", FOREACH_CONTEXT_KEY, owner, prop)),
                    "label": _label(prop),
                    "origin": "runtime_context",
                    "schema": copy.deepcopy(prop_schema),
                    "required": True,
                    "availability": "available",
                    "uses": ["step_input"],
                }
            )
            if prop == "item":
                view = navigator.at_path((FOREACH_CONTEXT_KEY, owner, "item"))
                if view is not None:
                    options.extend(_view_options(view, (FOREACH_CONTEXT_KEY, owner, "item"), 1))
    return options


def context_path_options_for_node(
    workflow: Any, node_id: str, *, model: ContextModel | None = None
) -> list[AuthoringPathOption]:
    model = model or ContextModel(workflow)
    stack = model.stack_of(node_id)
    if stack is None:
        return []
    return context_path_options(model.fields_for_stack(stack), model.navigator_for_stack(stack))


def readable_sources_for_node(
    workflow: Any, node_id: str, *, model: ContextModel | None = None
) -> list[AuthoringPathOption]:
    """Input options, then the node's context entries, then state options (§8.2)."""
    model = model or ContextModel(workflow)
    uses = ["step_input", "workflow_output"]
    options = schema_path_options(model.input_schema, root="input", uses=uses)
    options.extend(context_path_options_for_node(workflow, node_id, model=model))
    options.extend(schema_path_options(model.state_schema, root="state", uses=uses))
    return options

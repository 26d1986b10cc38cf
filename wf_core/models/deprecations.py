"""Warnings, with quick-fix replacements, for the deprecated input forms.

The model folds these forms into canonical fields while parsing; this module
finds them in the plain document values, where their keys still exist, and
computes each replacement with the same folding functions the model uses, so
applying a quick fix cannot change what the document means.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeVar

from pydantic import TypeAdapter, ValidationError

from wf_core.base.issues import Issue, ProjectCode, Severity
from wf_core.base.locations import Location
from wf_core.base.mappings import is_mapping
from wf_core.models.input_bindings import StepInputBinding
from wf_core.models.schemas import StateSchema
from wf_core.models.steps import NODE_TABLE, WRITE_LISTS, OutputBinding, legacy_binding_lists

_STEP_INPUTS = TypeAdapter(list[StepInputBinding])
_OUTPUTS = TypeAdapter(list[OutputBinding])
_Bindings = TypeVar("_Bindings")

# deprecated key -> (the list it stands for: the node type's input or output bindings,
# binding shape), per node kind
_NODE_BINDING_KEYS: dict[str, tuple[Literal["reads", "writes"], str]] = {
    "input_values": ("reads", "{ target, value }"),
    "in_map": ("reads", "{ target, path }"),
    "out_map": ("writes", "{ source, target }"),
}
_INTERRUPT_BINDING_KEYS: dict[str, tuple[Literal["reads", "writes"], str]] = {
    "request_map": ("reads", "{ target, path }"),
    "out_map": ("writes", "{ source, target }"),
}


def _warning(location: Location, message: str, replacement: object, **data: object) -> Issue:
    return Issue(
        code=ProjectCode.DEPRECATED_INPUT_FORM,
        location=location,
        message=message,
        severity=Severity.WARNING,
        data={"replacement": replacement, **data},
    )


def _canonical_bindings(
    bindings: list[dict[str, object]], canonical_key: str
) -> list[dict[str, object]]:
    """Bindings in canonical JSON (paths re-formatted); as written when they do not validate."""
    try:
        if canonical_key in WRITE_LISTS:
            return _dumped(_OUTPUTS, bindings)
        return _dumped(_STEP_INPUTS, bindings)
    except ValidationError:
        return bindings


def _dumped(
    adapter: TypeAdapter[_Bindings], bindings: list[dict[str, object]]
) -> list[dict[str, object]]:
    dumped: list[dict[str, object]] = adapter.dump_python(
        adapter.validate_python(bindings), mode="json"
    )
    return dumped


def _binding_forms(node: Mapping[str, object], location: Location, issues: list[Issue]) -> None:
    interrupt = node.get("type") == "interrupt"
    keys = _INTERRUPT_BINDING_KEYS if interrupt else _NODE_BINDING_KEYS
    spec = NODE_TABLE["interrupt" if interrupt else "node"]
    for key, (side, shape) in keys.items():
        value = node.get(key)
        if value is None:
            continue
        canonical_key = str(spec.reads if side == "reads" else spec.writes)
        replacement: list[dict[str, object]] | None = None
        if is_mapping(value):
            lists = legacy_binding_lists({key: value}, interrupt=interrupt)
            replacement = _canonical_bindings(lists[canonical_key], canonical_key)
        issues.append(
            _warning(
                (*location, key),
                f"'{key}' is deprecated; use '{canonical_key}' bindings ({shape})",
                replacement,
                canonical_key=canonical_key,
            )
        )


def _foreach_forms(node: Mapping[str, object], location: Location, issues: list[Issue]) -> None:
    if node.get("mode") == "parallel":
        issues.append(
            _warning(
                (*location, "mode"),
                "mode 'parallel' is deprecated; use 'concurrent'",
                "concurrent",
                canonical_key="mode",
            )
        )
    if "parallel" in node:
        issues.append(
            _warning(
                (*location, "parallel"),
                "'parallel' is deprecated; use 'concurrent'",
                node["parallel"],
                canonical_key="concurrent",
            )
        )
    if node.get("on_item_error") is not None:
        issues.append(
            _warning(
                (*location, "on_item_error"),
                "'on_item_error' is deprecated; use 'item_error' ({ action })",
                {"action": node["on_item_error"]},
                canonical_key="item_error",
            )
        )


def _state_fields_form(state_schema: Mapping[str, object], issues: list[Issue]) -> None:
    if "fields" not in state_schema:
        return
    try:
        properties: object = StateSchema.model_validate(state_schema).model_dump(mode="json")[
            "properties"
        ]
    except ValidationError:
        properties = None
    issues.append(
        _warning(
            ("state_schema", "fields"),
            "'fields' is deprecated; declare state fields as nested 'properties'",
            properties,
            canonical_key="properties",
        )
    )


def find_deprecated_forms(values: Mapping[str, object]) -> list[Issue]:
    """One warning per deprecated key, at that key, in document order: the state schema's
    (``top_deprecated_forms``), then each node's (``node_deprecated_forms``).

    ``data["replacement"]`` is the canonical JSON for the quick fix, and
    ``data["canonical_key"]`` the key it belongs under (beside the deprecated
    key's parent). The replacement is None when the deprecated value is itself
    malformed; the model reports that as an error.
    """
    if not is_mapping(values):
        return []
    issues = top_deprecated_forms(values)
    nodes = values.get("nodes")
    for index, node in enumerate(nodes if isinstance(nodes, list) else ()):
        _node_forms(index, node, issues)
    return issues


def top_deprecated_forms(values: Mapping[str, object]) -> list[Issue]:
    issues: list[Issue] = []
    state_schema = values.get("state_schema")
    if is_mapping(state_schema):
        _state_fields_form(state_schema, issues)
    return issues


def node_deprecated_forms(index: int, node: object) -> list[Issue]:
    """The deprecated keys of ``nodes[index]``."""
    issues: list[Issue] = []
    _node_forms(index, node, issues)
    return issues


def _node_forms(index: int, node: object, issues: list[Issue]) -> None:
    if not is_mapping(node):
        return
    kind = node.get("type")
    if kind in ("node", "interrupt"):
        _binding_forms(node, ("nodes", index), issues)
    elif kind == "foreach":
        _foreach_forms(node, ("nodes", index), issues)

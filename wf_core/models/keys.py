"""The keys a document may write at each place, derived from the model.

lda-wf ignores keys it does not know, so an author's ``descripton = "x"`` or
``timout = 3`` silently does nothing. wfls reports them (``unknown_key``, a
warning with the closest allowed key), offers the allowed keys in completion,
and closes the published JSON Schema (``additionalProperties: false``) at the
same places. All three read this module, so they cannot disagree.

Schemas (``input_schema``, a node def's schemas, ...) are open JSON Schema: their
keys are not ours and are never checked. Models that forbid extra keys
(bindings, expressions, ``item_error``, ``concurrent``, ``workflow``) already
make an unknown key an error while loading; they are not checked twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import get_args

from pydantic import BaseModel

from wf_core.base.issues import Issue, ProjectCode, Severity
from wf_core.base.locations import Location
from wf_core.base.mappings import is_mapping
from wf_core.base.suggest import did_you_mean
from wf_core.models.conditions import (
    BinaryCondition,
    ExistsCondition,
    LiteralOperand,
    NotCondition,
    PathOperand,
    VariadicCondition,
)
from wf_core.models.schemas import NodeDef
from wf_core.models.steps import NODE_TABLE, NODE_TYPES
from wf_core.models.workflow import Edge, Workflow

TOP_LEVEL_EXTRAS = ("$schema",)
"""Keys allowed at the top level beyond the model's: ``$schema`` lets editors
associate the format's JSON Schema with a document."""

DOCUMENT_ORDER = (
    *TOP_LEVEL_EXTRAS,
    "name",
    "description",
    "start",
    "outcomes",
    "edges",
    "output",
    "input_schema",
    "state_schema",
    "output_schema",
    "node_defs",
    "nodes",
)
"""The order in which a document writes its top-level keys, for how people read a
workflow: what it is, where it starts and ends, its edges and output, the schemas, then
the node defs and the nodes (``wfls fmt`` and ``wfls export`` write them so).
``description`` is no key of the model, but authors write one and it reads best here."""

STEP_MODELS: dict[str, type[BaseModel]] = NODE_TYPES
"""Each node type's model (the node-type table's, ``wf_core.models.steps.NODE_TABLE``)."""

DEPRECATED_KEYS: dict[type[BaseModel], tuple[str, ...]] = {
    spec.model: spec.deprecated_keys for spec in NODE_TABLE.values() if spec.deprecated_keys
}
"""Keys the model still reads (and reports as deprecated) but does not keep."""

_INTERNAL = frozenset({"has_explicit_contract"})

CONDITION_MODELS: dict[str, type[BaseModel]] = {
    "exists": ExistsCondition,
    "not": NotCondition,
    "and": VariadicCondition,
    "or": VariadicCondition,
    **dict.fromkeys(("eq", "ne", "gt", "ge", "lt", "le"), BinaryCondition),
}


@cache
def model_keys(model: type[BaseModel]) -> tuple[str, ...]:
    """The document keys of ``model``: its fields by alias, in declaration order."""
    keys = [
        info.alias or name for name, info in model.model_fields.items() if name not in _INTERNAL
    ]
    keys.extend(k for k in DEPRECATED_KEYS.get(model, ()) if k not in keys)
    return tuple(keys)


def top_level_keys() -> tuple[str, ...]:
    return model_keys(Workflow)


def node_keys(node_type: str | None) -> tuple[str, ...]:
    model = STEP_MODELS.get(node_type or "")
    return model_keys(model) if model is not None else ("id", "type")


def _admitted_models(annotation: object) -> Iterator[type[BaseModel]]:
    """The models a field's annotation admits, through lists, unions and ``Annotated``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    for argument in get_args(annotation):
        yield from _admitted_models(argument)


@cache
def element_keys(model: type[BaseModel], field: str) -> tuple[str, ...]:
    """The keys an element of ``model``'s list ``field`` may hold: those of every model
    its elements may be (a binding union: ``target`` and one of ``path``, ``value``,
    ``expression`` where the list admits them), in declaration order."""
    annotation = model.model_fields[field].annotation
    return tuple(
        dict.fromkeys(key for member in _admitted_models(annotation) for key in model_keys(member))
    )


def binding_keys(node_type: object, list_key: object) -> tuple[str, ...]:
    """The keys an element of the binding list ``list_key`` of a ``node_type`` node may
    hold, as that node type's model reads them: an input binding's (``target`` and one of
    ``path``, ``value``, ``expression``) or an output binding's (``source``, ``target``);
    none where the type has no such list."""
    spec = NODE_TABLE.get(node_type) if isinstance(node_type, str) else None
    if spec is None or list_key not in spec.binding_lists:
        return ()
    return element_keys(spec.model, list_key)


def workflow_output_keys() -> tuple[str, ...]:
    """The keys of an entry of the workflow's ``output`` list (no ``expression`` there)."""
    return element_keys(Workflow, "output")


Table = tuple[Location, Mapping[str, object], tuple[str, ...]]


def _list_tables(kind: str, elements: Iterable[tuple[int, object]]) -> Iterator[Table]:
    """The tables of the ``(index, element)`` pairs of ``values[kind]`` (edges, node defs or
    nodes) whose keys are a fixed set, with their locations and allowed keys (one
    generator for a whole list: at 14,000 nodes one per element cost 15 ms)."""
    if kind != "nodes":
        allowed = model_keys(Edge if kind == "edges" else NodeDef)
        for index, item in elements:
            if is_mapping(item):
                yield (kind, index), item, allowed
        return
    for index, node in elements:
        if not is_mapping(node):
            continue
        node_type = node.get("type")
        if not isinstance(node_type, str) or node_type not in STEP_MODELS:
            continue  # (a table or an array cannot be looked up: it is no node type)
        yield ("nodes", index), node, node_keys(node_type)
        check = node.get("check")
        if node_type == "condition" and is_mapping(check):
            yield from _condition_tables(check, ("nodes", index, "check"))


def _condition_tables(condition: Mapping[str, object], location: Location) -> Iterator[Table]:
    stack: list[tuple[Mapping[str, object], Location]] = [(condition, location)]
    while stack:
        cond, where = stack.pop()
        op = cond.get("op")
        model = CONDITION_MODELS.get(op) if isinstance(op, str) else None
        if model is None:
            continue
        yield where, cond, model_keys(model)
        arg = cond.get("arg")
        if is_mapping(arg):
            stack.append((arg, (*where, "arg")))
        args = cond.get("args")
        for k, arg in enumerate(args if isinstance(args, list) else ()):
            if is_mapping(arg):
                stack.append((arg, (*where, "args", k)))
        for side in ("left", "right"):
            operand = cond.get(side)
            if is_mapping(operand):
                operand_model = PathOperand if "path" in operand else LiteralOperand
                yield (*where, side), operand, model_keys(operand_model)


def unknown_keys(values: object) -> list[Issue]:
    """An ``unknown_key`` warning for each key the model does not know (document locations):
    the top level's, then each edge's, node def's and node's (``element_unknown_keys``)."""
    if not is_mapping(values):
        return []
    return _unknown(_checked_tables(values))


def _checked_tables(values: Mapping[str, object]) -> Iterator[Table]:
    yield (), values, (*top_level_keys(), *TOP_LEVEL_EXTRAS)
    for kind in ("edges", "node_defs", "nodes"):
        items = values.get(kind)
        yield from _list_tables(kind, enumerate(items if isinstance(items, list) else ()))


def top_unknown_keys(values: Mapping[str, object]) -> list[Issue]:
    return _unknown([((), values, (*top_level_keys(), *TOP_LEVEL_EXTRAS))])


def element_unknown_keys(kind: str, index: int, item: object) -> list[Issue]:
    return _unknown(_list_tables(kind, ((index, item),)))


def _unknown(tables: Iterable[Table]) -> list[Issue]:
    issues: list[Issue] = []
    for location, table, allowed in tables:
        for key in table:
            if key in allowed:
                continue
            issues.append(
                Issue(
                    code=ProjectCode.UNKNOWN_KEY,
                    location=(*location, key),
                    message=f"unknown key {key!r}: lda-wf ignores it",
                    severity=Severity.WARNING,
                    data={"key": key, **did_you_mean(key, allowed).get("data", {})},
                    on_key=True,
                )
            )
    return issues

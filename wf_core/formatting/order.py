"""The order of the keys of a workflow document, read from the model's key tables.

Nothing here lists a node type's keys: the top level follows ``DOCUMENT_ORDER``, a
node its type's model (``NODE_TABLE`` through ``wf_core.models.keys``) with ``id`` and
``type`` first and its binding lists last, an edge, a node def, a binding and a
condition their models' field order. Only tables are reordered, never the elements of
a list (the order of nodes, edges and bindings means something), and never a schema's
keys (JSON Schema is the author's). A key no table knows moves with the known key
before it, so it keeps its neighbours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from wf_core.models.keys import (
    CONDITION_MODELS,
    DOCUMENT_ORDER,
    binding_keys,
    model_keys,
    node_keys,
    workflow_output_keys,
)
from wf_core.models.schemas import NodeDef
from wf_core.models.steps import binding_lists
from wf_core.models.workflow import Edge


def in_order(table: Mapping[str, object], order: Sequence[str]) -> dict[str, object]:
    """``table`` with the keys of ``order`` in that order. A key ``order`` does not name
    stays right after the key it followed (at the front when it came first), so keys
    nobody knows are moved only with their neighbour."""
    rank = {key: i for i, key in enumerate(order)}
    groups: list[tuple[int, list[str]]] = []
    for key in table:
        if key in rank:
            groups.append((rank[key], [key]))
        elif groups:
            groups[-1][1].append(key)
        else:
            groups.append((-1, [key]))
    groups.sort(key=lambda group: group[0])
    return {key: table[key] for _rank, keys in groups for key in keys}


def node_order(node_type: object) -> tuple[str, ...]:
    """A node's keys in the order they are written: ``id``, ``type``, the type's own
    keys in its model's order, its binding lists last (the input bindings' first)."""
    lists = binding_lists(node_type)
    keys = node_keys(node_type if isinstance(node_type, str) else None)
    return (*(key for key in keys if key not in lists), *lists)


def ordered_document(values: Mapping[str, object]) -> dict[str, object]:
    """A document's values with every table the model knows in its order (new tables;
    ``values``, which parsed documents share between versions, is never changed)."""
    document = in_order(values, DOCUMENT_ORDER)
    for kind, order in (
        ("edges", model_keys(Edge)),
        ("node_defs", model_keys(NodeDef)),
        ("output", workflow_output_keys()),
    ):
        items = document.get(kind)
        if isinstance(items, list):
            document[kind] = [_table(item, order) for item in items]
    nodes = document.get("nodes")
    if isinstance(nodes, list):
        document["nodes"] = [_node(node) for node in nodes]
    return document


def _table(value: object, order: Sequence[str]) -> object:
    return in_order(value, order) if isinstance(value, Mapping) else value


def _node(value: object) -> object:
    if not isinstance(value, Mapping):
        return value
    node_type = value.get("type")
    node = in_order(value, node_order(node_type))
    for key in binding_lists(node_type):
        bindings = node.get(key)
        if isinstance(bindings, list):
            order = binding_keys(node_type, key)
            node[key] = [_table(binding, order) for binding in bindings]
    if "check" in node:
        node["check"] = _condition(node["check"])
    return node


def _condition(value: object) -> object:
    """A condition with each of its tables in its model's order (``op`` first), the
    conditions it holds too."""
    if not isinstance(value, Mapping):
        return value
    op = value.get("op")
    model = CONDITION_MODELS.get(op) if isinstance(op, str) else None
    if model is None:
        return value
    condition = in_order(value, model_keys(model))
    if "arg" in condition:
        condition["arg"] = _condition(condition["arg"])
    args = condition.get("args")
    if isinstance(args, list):
        condition["args"] = [_condition(arg) for arg in args]
    return condition

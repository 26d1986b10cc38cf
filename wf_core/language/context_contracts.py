"""The runtime context's contract: standard fields, foreach entries, root schema.

These are the building blocks of every per-node context schema
(lda-wf-model §7.1-§7.3). Each function returns fresh dicts, so callers may
embed the result without aliasing another node's schema.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from wf_core.base.records import record

PRIOR_OUTCOME_KEY = "prior_outcome"
ACTIVATED_INCOMING_EDGE_KEY = "activated_incoming_edge"
SCOPE_ID_KEY = "scope_id"
LINEAGE_ID_KEY = "lineage_id"
PARENT_LINEAGE_ID_KEY = "parent_lineage_id"
LOOP_ITEM_KEY = "loop_item"
LOOP_INDEX_KEY = "loop_index"
FOREACH_CONTEXT_KEY = "foreach"

FOREACH_ENTRY_KEYS = (
    "node_id",
    "activation_id",
    "frame_id",
    "scope_id",
    "lineage_id",
    "index",
    "item",
)


@record
class ContextFieldContract:
    name: str
    schema: dict[str, object]
    description: str


STANDARD_CONTEXT_FIELDS: tuple[ContextFieldContract, ...] = (
    ContextFieldContract(PRIOR_OUTCOME_KEY, {"type": ["string", "null"]}, "Prior route outcome"),
    ContextFieldContract(
        ACTIVATED_INCOMING_EDGE_KEY, {"type": ["string", "null"]}, "Incoming step id"
    ),
    ContextFieldContract(SCOPE_ID_KEY, {"type": "string"}, "Execution scope id"),
    ContextFieldContract(LINEAGE_ID_KEY, {"type": "string"}, "Execution lineage id"),
    ContextFieldContract(PARENT_LINEAGE_ID_KEY, {"type": ["string", "null"]}, "Parent lineage id"),
)
STANDARD_CONTEXT_NAMES = tuple(field.name for field in STANDARD_CONTEXT_FIELDS)

RESERVED_CONTEXT_KEYS = frozenset(
    (*STANDARD_CONTEXT_NAMES, LOOP_ITEM_KEY, LOOP_INDEX_KEY, FOREACH_CONTEXT_KEY)
)

FOREACH_ENTRY_DESCRIPTIONS = {
    "node_id": "Static id of the foreach node",
    "activation_id": "Id of this activation of the foreach (a new one on every entry)",
    "frame_id": "Execution frame of the current iteration",
    "scope_id": "Execution scope of the current iteration",
    "lineage_id": "Execution lineage of the current iteration",
    "index": "Index of the current item in the collection",
    "item": "Current foreach item",
}


def is_valid_alias(alias: str | None) -> bool:
    """An alias is published into the context only when non-empty and not reserved."""
    return bool(alias) and alias not in RESERVED_CONTEXT_KEYS


def foreach_context_fields(
    alias: str | None, item_schema: Mapping[str, object]
) -> list[ContextFieldContract]:
    fields = [
        ContextFieldContract(
            LOOP_ITEM_KEY, copy.deepcopy(dict(item_schema)), "Current foreach item"
        ),
        ContextFieldContract(LOOP_INDEX_KEY, {"type": "integer"}, "Current foreach item index"),
    ]
    if alias is not None and is_valid_alias(alias):
        fields.append(
            ContextFieldContract(alias, copy.deepcopy(dict(item_schema)), "Current foreach item")
        )
    return fields


def foreach_entry_schema(node_id: str, item: Mapping[str, object]) -> dict[str, object]:
    """``context.foreach.<node_id>``'s schema. ``item`` is embedded, not copied (a
    context schema's item is the item schema the context model shares between every
    stack and never mutates); a caller that hands the result out copies it."""
    return {
        "type": "object",
        "properties": {
            "node_id": {"const": node_id},
            "activation_id": {"type": "string"},
            "frame_id": {"type": "string"},
            "scope_id": {"type": "string"},
            "lineage_id": {"type": "string"},
            "index": {"type": "integer"},
            "item": dict(item),
        },
        "required": list(FOREACH_ENTRY_KEYS),
        "additionalProperties": False,
    }


def structured_foreach_contract(entries: Mapping[str, object]) -> ContextFieldContract:
    return ContextFieldContract(
        FOREACH_CONTEXT_KEY,
        {
            "type": "object",
            "properties": dict(entries),
            "required": sorted(entries),
            "additionalProperties": False,
        },
        "Structured foreach context by static node id",
    )


def root_context_schema() -> dict[str, object]:
    """The context outside every loop; also what workflow ``output`` reads."""
    properties: dict[str, object] = {
        f.name: copy.deepcopy(f.schema) for f in STANDARD_CONTEXT_FIELDS
    }
    properties[FOREACH_CONTEXT_KEY] = structured_foreach_contract({}).schema
    return {
        "type": "object",
        "properties": properties,
        "required": sorted(properties),
        "additionalProperties": False,
    }

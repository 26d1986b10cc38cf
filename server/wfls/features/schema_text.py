"""Schemas shown to people: a one-line type, the JSON Schema with references resolved.

An item written as ``{ "$ref" = "#/$defs/order" }`` is shown as the order's
own schema, so hover and completion documentation say what is really there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from wf_core.models.schema_nav import SchemaView

MAX_SCHEMA_CHARS = 4000


def resolved_schema(view: SchemaView) -> object:
    """The view's schema with a top-level ``$ref`` replaced by its target (siblings kept)."""
    if not view.nodes:
        return {}
    branch = view.nodes[0]
    schema = branch.schema
    if isinstance(schema, Mapping) and "$ref" in schema:
        target = branch.resolve_ref()
        if target is not None and isinstance(target.schema, Mapping):
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            return {**target.schema, **siblings} if siblings else target.schema
    return schema


def schema_markdown(view: SchemaView, *, title: str | None = None) -> str:
    parts: list[str] = []
    if title:
        parts.append(f"**{title}**: `{view.type_summary()}`")
    description = view.first("description")
    if isinstance(description, str):
        parts.append(description)
    schema = resolved_schema(view)
    text = json.dumps(without_defs(schema), indent=2, ensure_ascii=False, default=str)
    if len(text) > MAX_SCHEMA_CHARS:
        text = text[:MAX_SCHEMA_CHARS] + "\n…"
    parts.append(f"```json\n{text}\n```")
    return "\n\n".join(parts)


def without_defs(schema: object) -> object:
    """Attached ``$defs`` blocks are noise in a hover; the references still name them."""
    if isinstance(schema, Mapping):
        return {k: v for k, v in schema.items() if k not in ("$defs", "definitions", "$id")}
    return schema

"""Writing a workflow in either syntax.

JSON is lda-wf's canonical serialization. TOML is written for people, with
``tomlkit`` so quoting is always right: schemas as tables (``properties.x =
{ ... }`` lines, ``$defs`` entries as sub-tables), node defs and nodes as
arrays of tables, bindings and edges as inline tables one per line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import tomlkit
from tomlkit.items import Table

SCHEMA_KEYS = ("input_schema", "state_schema", "output_schema")
_DEFINITION_KEYS = ("$defs", "definitions")
_TOP_ORDER = ("name", "start", "outcomes", "edges", "output")


ONE_LINE_WIDTH = 80
"""A list of one table stays on one line up to this many characters."""
_LITERAL_SAFE = re.compile(r"[^'\x00-\x1f\x7f]*")


class ExportError(ValueError):
    """The workflow holds something the target syntax cannot express."""


def canonical_dump(workflow: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = workflow.model_dump(mode="json", by_alias=True)
    return dumped


def to_json(workflow: Any) -> str:
    return json.dumps(canonical_dump(workflow), indent=2, ensure_ascii=False) + "\n"


def to_toml(workflow: Any) -> str:
    """Readable TOML: values equal to the model's defaults are left out (they mean the
    same either way), so a converted document stays as short as one written by hand."""
    return dump_toml(workflow.model_dump(mode="json", by_alias=True, exclude_defaults=True))


def dump_toml(data: Mapping[str, Any]) -> str:
    data = _without_nulls(data, "")
    doc = tomlkit.document()
    for key in _TOP_ORDER:
        if key in data:
            doc.add(key, _inline(data[key]))
    for key, value in data.items():
        if key in _TOP_ORDER or key in SCHEMA_KEYS or key in ("node_defs", "nodes"):
            continue
        doc.add(key, _inline(value))
    for key in SCHEMA_KEYS:
        if key in data and isinstance(data[key], Mapping):
            doc.add(tomlkit.nl())
            doc.add(key, _schema_table(data[key]))
    for key in ("node_defs", "nodes"):
        items = data.get(key)
        if not items:
            if key == "nodes":
                doc.add(key, tomlkit.array())
            continue
        aot = tomlkit.aot()
        for item in items:
            aot.append(_record_table(item))
        doc.add(tomlkit.nl())
        doc.add(key, aot)
    return tomlkit.dumps(doc)


# Keys whose values are JSON data rather than model fields: a null there means
# something, and TOML cannot say it.
_JSON_DATA_KEYS = frozenset(("value", "const", "default", "enum", "examples"))


def _without_nulls(value: Any, where: str, *, data: bool = False) -> Any:
    """Drop null model fields (they are defaults); refuse nulls inside JSON data."""
    if value is None:
        raise ExportError(f"TOML has no null: cannot write the null at {where or 'the top level'}")
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            here = f"{where}.{key}" if where else str(key)
            if item is None and not data:
                continue
            out[key] = _without_nulls(item, here, data=data or key in _JSON_DATA_KEYS)
        return out
    if isinstance(value, list):
        return [_without_nulls(item, f"{where}[{i}]", data=data) for i, item in enumerate(value)]
    return value


def inline_toml(value: Any) -> str:
    """TOML text of one value as it is written after ``key = ``: tables inline
    (``{ a = 1 }``), a list of tables one per line. Raises ``ExportError`` for a null."""
    return _inline_text(_without_nulls(value, ""))


def _inline(value: Any) -> Any:
    """Nested values as inline tables ``{ a = 1 }``; lists of tables one element per line."""
    if isinstance(value, Mapping | list):
        return tomlkit.parse(f"x = {_inline_text(value)}\n")["x"]
    return _scalar(value)


def _scalar(value: Any) -> Any:
    if isinstance(value, str) and '"' in value and _LITERAL_SAFE.fullmatch(value):
        # Paths with quoted segments read best as literal strings: no escaping.
        return tomlkit.string(value, literal=True)
    return value


def _inline_text(value: Any, depth: int = 0) -> str:
    """TOML text of an inline value, spaced the way people write it (``{ a = 1 }``)."""
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        pairs = ", ".join(
            f"{tomlkit.key(str(k)).as_string()} = {_inline_text(v, depth + 1)}"
            for k, v in value.items()
        )
        return "{ " + pairs + " }"
    if isinstance(value, list):
        items = [_inline_text(v, depth + 1) for v in value]
        one_line = "[" + ", ".join(items) + "]"
        tables = any(isinstance(v, Mapping) for v in value)
        if depth == 0 and tables and (len(items) > 1 or len(one_line) > ONE_LINE_WIDTH):
            return "[\n" + "".join(f"  {item},\n" for item in items) + "]"
        return one_line
    text: str = tomlkit.item(_scalar(value)).as_string()
    return text


def _schema_table(schema: Mapping[str, Any]) -> Table:
    table = tomlkit.table()
    deferred: list[tuple[str, Mapping[str, Any]]] = []
    for key, value in schema.items():
        if key in _DEFINITION_KEYS and isinstance(value, Mapping) and value:
            deferred.append((key, value))
        elif key == "properties" and isinstance(value, Mapping) and value:
            for name, prop in value.items():
                table.add(tomlkit.key(["properties", name]), _inline(prop))
        else:
            table.add(key, _inline(value))
    for key, definitions in deferred:
        holder = tomlkit.table(is_super_table=True)
        for name, definition in definitions.items():
            if isinstance(definition, Mapping):
                holder.add(name, _schema_table(definition))
            else:
                holder.add(name, _inline(definition))
        table.add(key, holder)
    return table


def _record_table(record: Mapping[str, Any]) -> Table:
    table = tomlkit.table()
    for key, value in record.items():
        table.add(key, _inline(value))
    return table

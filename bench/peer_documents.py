"""Documents and schema for the peer servers: the generated workflow as YAML and TOML.

The peers (yaml-language-server, Taplo) validate against a JSON Schema, so they
get the workflow document format's own schema (``wfls schema``), restated as
draft-07 (``definitions`` instead of ``$defs``; every keyword it uses is
draft-07), and a workflow of ``generate.generate_toml`` cut to a given number
of lines: its first nodes, the edges between them, then comment lines up to the
exact count. Each document carries its schema association in the text (the
YAML modeline ``# yaml-language-server: $schema=...``, Taplo's ``#:schema``
directive) and exactly one deliberate schema error: ``retry = "twice"`` in a
task node, where the schema asks for an integer or null. A peer whose
diagnostics do not point at that line has not validated against the schema.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from generate import TASKS_PER_GROUP, generate_toml

from wf_core.models.document_schema import document_json_schema

ERROR_KEY, ERROR_VALUE = "retry", "twice"
PADDING = "# padding up to the benchmark's line count"
_BARE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def draft07_schema() -> dict[str, Any]:
    """The document format's JSON Schema with draft-07 spelling."""
    text = json.dumps(document_json_schema())
    text = text.replace('"#/$defs/', '"#/definitions/').replace('"$defs":', '"definitions":')
    schema = json.loads(text)
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    return schema


@dataclass(frozen=True)
class PeerDocument:
    text: str
    nodes: int
    error_line: int
    """0-based line of the deliberate schema error."""
    error_node_line: int
    """0-based first line of the node holding it."""

    def in_error_node(self, line: int) -> bool:
        return self.error_node_line <= line <= self.error_line


def _workflow(nodes: int) -> dict[str, Any]:
    data = tomllib.loads(generate_toml(nodes + TASKS_PER_GROUP + 2))
    data["nodes"] = data["nodes"][:nodes]
    kept = {node["id"] for node in data["nodes"]}
    data["edges"] = [e for e in data["edges"] if e["from"] in kept and e["to"] in kept]
    return data


def _with_error(data: dict[str, Any]) -> dict[str, Any]:
    tasks = [n for n in data["nodes"] if n["type"] == "node"]
    victim = tasks[len(tasks) // 2]
    victim[ERROR_KEY] = ERROR_VALUE
    return data


def peer_document(syntax: str, lines: int, schema_uri: str) -> PeerDocument:
    """The longest cut of the generated workflow that fits ``lines`` lines, padded to them."""
    render = {"yaml": to_yaml, "toml": to_toml}[syntax]
    directive = (
        f"# yaml-language-server: $schema={schema_uri}\n"
        if syntax == "yaml"
        else f"#:schema {schema_uri}\n"
    )
    # A node takes about nine lines with its edges in either syntax, so no document of
    # ``lines`` lines holds more than a quarter as many nodes: the bound keeps a long
    # document from rendering ten times its nodes first.
    low, high, best = 2, max(2, lines // 4), ""
    best_nodes = 0
    while low <= high:  # the rendered length grows with the node count
        middle = (low + high) // 2
        text = directive + render(_with_error(_workflow(middle)))
        if text.count("\n") <= lines:
            best, best_nodes, low = text, middle, middle + 1
        else:
            high = middle - 1
    if not best:
        raise ValueError(f"{lines} lines cannot hold a workflow")
    best += (PADDING + "\n") * (lines - best.count("\n"))
    marker = {"yaml": f'{ERROR_KEY}: "{ERROR_VALUE}"', "toml": f'{ERROR_KEY} = "{ERROR_VALUE}"'}
    at = best.index(marker[syntax])
    node_start = best.rindex({"yaml": "\n  - id: ", "toml": "\n[[nodes]]\n"}[syntax], 0, at) + 1
    return PeerDocument(best, best_nodes, best.count("\n", 0, at), best.count("\n", 0, node_start))


# -- YAML ----------------------------------------------------------------------------------


def _yaml_key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value)


def _flat(value: Any) -> bool:
    return isinstance(value, dict) and all(not isinstance(v, dict | list) for v in value.values())


def _yaml_flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_yaml_key(k)}: {_yaml_flow(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_flow(v) for v in value) + "]"
    return _scalar(value)


def _yaml_block(value: dict[str, Any], indent: int, out: list[str], first: str = "") -> None:
    pad = " " * indent
    for i, (key, item) in enumerate(value.items()):
        lead = first if i == 0 and first else pad
        if isinstance(item, dict) and item and not _flat(item):
            out.append(f"{lead}{_yaml_key(key)}:")
            _yaml_block(item, indent + 2, out)
        elif isinstance(item, list) and item and any(isinstance(v, dict) for v in item):
            out.append(f"{lead}{_yaml_key(key)}:")
            for element in item:
                if _flat(element):
                    out.append(f"{pad}  - {_yaml_flow(element)}")
                else:
                    _yaml_block(element, indent + 4, out, first=f"{pad}  - ")
        else:
            out.append(f"{lead}{_yaml_key(key)}: {_yaml_flow(item)}")


def to_yaml(data: dict[str, Any]) -> str:
    out: list[str] = []
    _yaml_block(data, 0, out)
    return "\n".join(out) + "\n"


# -- TOML ----------------------------------------------------------------------------------


def _toml_key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key)


def _toml_inline(value: Any) -> str:
    if isinstance(value, dict):
        return (
            "{ " + ", ".join(f"{_toml_key(k)} = {_toml_inline(v)}" for k, v in value.items()) + " }"
        )
    if isinstance(value, list):
        return "[" + ", ".join(_toml_inline(v) for v in value) + "]"
    return _scalar(value)


def _toml_entries(table: dict[str, Any], out: list[str]) -> None:
    """Entries of one table; arrays of tables go one inline table per line."""
    for key, value in table.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            out.append(f"{_toml_key(key)} = [")
            out.extend(f"  {_toml_inline(v)}," for v in value)
            out.append("]")
        else:
            out.append(f"{_toml_key(key)} = {_toml_inline(value)}")


def to_toml(data: dict[str, Any]) -> str:
    """Top-level entries, then ``[tables]``, then ``[[arrays of tables]]``, as generated."""
    top = {k: v for k, v in data.items() if not isinstance(v, dict) and k not in _ARRAYS}
    out: list[str] = []
    _toml_entries(top, out)
    for key, value in data.items():
        if isinstance(value, dict):
            out.append(f"\n[{_toml_key(key)}]")
            _toml_entries(value, out)
    for key in _ARRAYS:
        for element in data.get(key, []):
            out.append(f"\n[[{key}]]")
            _toml_entries(element, out)
    return "\n".join(out) + "\n"


_ARRAYS = ("node_defs", "nodes")

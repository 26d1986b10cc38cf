"""Pathological documents: the inputs no workflow author means to write, each built to size.

Deep nesting, megabyte lines, tens of thousands of nodes, ``$ref`` cycles and
chains, backtracking patterns, and folders holding what is not a document (a
FIFO, a directory named like one, symlink loops). ``bench/pathological.py``
measures each case at full size in a fresh process and
``tests/test_pathological.py`` asserts each outcome, the two largest at a
smaller size (``full=False``): both build them here, so that the figures and
the assertions are about the same documents. Each builder only makes a text
(or, for a folder, writes its files where it is told); what is run over it is
the caller's.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wf_core.authoring.generate import generate_toml
from wf_core.base.reading import Syntax

NESTING = 10_000
"""How deep the deep cases nest: a hundred times the front-ends' limit."""


@dataclass
class Case:
    """One pathological input: a document (``text``), or a folder built by ``make_folder``."""

    text: str = ""
    syntax: Syntax = "toml"
    cursors: tuple[int, ...] = ()
    """Offsets worth asking completion and hover at: inside the pathological part."""
    run_input: object = None
    """A workflow input: the case also runs the workflow with stand-ins."""
    make_folder: Callable[[Path], None] | None = None
    notes: dict[str, object] = field(default_factory=dict)
    """Sizes to report beside the outcome (bytes, nodes, ids)."""


# -- documents ----------------------------------------------------------------------------

TASK_DEF = """
[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object", properties = { x = {} } }
output_schema = { type = "object" }
"""


def _one_node(binding: str, header: str = "") -> str:
    """A valid one-node workflow whose node binds ``x`` with ``binding`` (TOML)."""
    return (
        'name = "patho"\nstart = "a"\noutcomes = ["ok"]\n'
        'edges = [{ from = "a", outcome = "ok", to = "__end__" }]\n'
        f"{header}{TASK_DEF}\n"
        f'[[nodes]]\nid = "a"\ntype = "node"\nnode = "task"\ninput = [{binding}]\n'
    )


def _one_node_json(value: str) -> str:
    """The same workflow in JSON, the binding's ``value`` spliced in as raw text."""
    head = json.dumps(
        {
            "name": "patho",
            "start": "a",
            "outcomes": ["ok"],
            "edges": [{"from": "a", "outcome": "ok", "to": "__end__"}],
            "node_defs": [
                {
                    "name": "task",
                    "outcomes": ["ok"],
                    "input_schema": {"type": "object", "properties": {"x": {}}},
                    "output_schema": {"type": "object"},
                }
            ],
        }
    )[:-1]
    return (
        head + ', "nodes": [{"id": "a", "type": "node", "node": "task", '
        '"input": [{"target": "x", "value": ' + value + "}]}]}"
    )


def json_deep_arrays(full: bool) -> Case:
    text = _one_node_json("[" * NESTING + "]" * NESTING)
    return Case(text, "json", (text.index("[[[") + NESTING // 2,))


def json_deep_objects(full: bool) -> Case:
    text = _one_node_json('{"a": ' * NESTING + "1" + "}" * NESTING)
    return Case(text, "json", (text.index('{"a": {"a"') + 3 * NESTING,))


def toml_deep_arrays(full: bool) -> Case:
    text = _one_node('{ target = "x", value = ' + "[" * NESTING + "]" * NESTING + " }")
    return Case(text, "toml", (text.index("[[[") + NESTING // 2,))


def toml_deep_inline_tables(full: bool) -> Case:
    deep = "{ a = " * NESTING + "1" + " }" * NESTING
    text = _one_node('{ target = "x", value = ' + deep + " }")
    return Case(text, "toml", (text.index("{ a = { a") + 3 * NESTING,))


def toml_deep_dotted_key(full: bool) -> Case:
    """A dotted key of 10,000 parts in a node's table: tables nested without brackets."""
    text = _one_node('{ target = "x", value = 1 }') + "check" + ".arg" * NESTING + " = 1\n"
    return Case(text, "toml", (len(text) - NESTING,))


def toml_deep_table_header(full: bool) -> Case:
    """A table header of 10,000 parts."""
    text = _one_node('{ target = "x", value = 1 }') + "\n[" + "a." * NESTING + "b]\nc = 1\n"
    return Case(text, "toml", (len(text) - NESTING,))


def json_deep_unclosed(full: bool) -> Case:
    """Deep nesting that is never closed: the text ends inside it."""
    text = _one_node_json("[" * NESTING)
    return Case(text, "json", (len(text),))


def json_long_line(full: bool) -> Case:
    """A generated workflow minified to one line of about a megabyte."""
    values = tomllib.loads(generate_toml(2_800))
    text = json.dumps(values, separators=(",", ":"))
    middle = text.index('"path":"context.foreach', len(text) // 2) + 20
    return Case(text, "json", (middle,), notes={"bytes": len(text.encode())})


def toml_long_line(full: bool) -> Case:
    """A megabyte comment line, then a megabyte array on one line that is never
    closed: the TOML reader asks at every element whether it starts a line."""
    size = 1_000_000 if full else 200_000
    text = (
        _one_node('{ target = "x", value = 1 }')
        + "# "
        + "x" * size
        + "\nlong = ["
        + "1, " * (size // 3)
        + "\n"
    )
    return Case(text, "toml", (len(text) // 2, len(text) - 2), notes={"bytes": len(text.encode())})


def _generated(nodes: int) -> Case:
    """A workflow of ``wf_core.authoring.generate``, with a cursor in a path string halfway down."""
    text = generate_toml(nodes)
    middle = text.index("path = ", len(text) // 2) + 20
    return Case(text, "toml", (middle,), notes={"nodes": nodes, "bytes": len(text.encode())})


def document_20mb(full: bool) -> Case:
    """A generated workflow of 20 MB (55,000 nodes); 1,000 nodes for the tests."""
    return _generated(55_000 if full else 1_000)


def nodes_100k(full: bool) -> Case:
    """A generated workflow of 100,000 nodes; 2,000 for the tests."""
    return _generated(100_000 if full else 2_000)


def duplicate_ids(full: bool) -> Case:
    """10,000 join nodes that all have the id ``same``."""
    count = 10_000
    nodes = "".join('\n[[nodes]]\nid = "same"\ntype = "join"\n' for _ in range(count))
    text = (
        'name = "dups"\nstart = "same"\noutcomes = ["ok"]\n'
        'edges = [{ from = "same", outcome = "done", to = "__end__" }]\n' + nodes
    )
    return Case(text, "toml", (text.index('"same"', len(text) // 2) + 2,), notes={"ids": count})


RECURSIVE_INPUT = """
[input_schema]
type = "object"
properties.a = { "$ref" = "#/$defs/a" }

[input_schema."$defs".a]
type = "object"
properties.a = { "$ref" = "#/$defs/a" }
"""


def path_10k_segments(full: bool) -> Case:
    """``input.a.a.a...`` of 10,000 segments through a recursive schema (all declared)."""
    path = "input" + ".a" * 10_000
    text = _one_node(f'{{ target = "x", path = "{path}" }}', RECURSIVE_INPUT)
    start = text.index('"input.a')
    return Case(text, "toml", (start + 10, start + len(path) // 2, start + len(path)))


def ref_cycle(full: bool) -> Case:
    """``$ref`` a → b → a, read through: no property is declared anywhere in the cycle."""
    header = (
        '\n[input_schema]\ntype = "object"\nproperties.x = { "$ref" = "#/$defs/a" }\n'
        '"$defs".a = { "$ref" = "#/$defs/b" }\n"$defs".b = { "$ref" = "#/$defs/a" }\n'
    )
    text = _one_node('{ target = "x", path = "input.x.y" }', header)
    return Case(text, "toml", (text.index('"input.x.y"') + 9,))


def ref_chain(full: bool) -> Case:
    """A chain of 1,000 ``$ref``s (d0 → d1 → ... → d999) ending in a declared property."""
    length = 1_000
    defs = "".join(f'"$defs".d{k} = {{ "$ref" = "#/$defs/d{k + 1}" }}\n' for k in range(length - 1))
    header = (
        '\n[input_schema]\ntype = "object"\nproperties.x = { "$ref" = "#/$defs/d0" }\n'
        + defs
        + f'"$defs".d{length - 1} = {{ type = "object", properties = {{ leaf = {{}} }} }}\n'
    )
    text = _one_node('{ target = "x", path = "input.x.leaf" }', header)
    return Case(text, "toml", (text.index('"input.x.leaf"') + 9,))


def schema_10k_properties(full: bool) -> Case:
    """An input schema declaring 10,000 properties; the path reads the last one."""
    count = 10_000
    props = "".join(f'properties.p{k} = {{ type = "string" }}\n' for k in range(count))
    header = '\n[input_schema]\ntype = "object"\n' + props
    text = _one_node(f'{{ target = "x", path = "input.p{count - 1}" }}', header)
    return Case(text, "toml", (text.index('"input.p') + 7,))


def foreach_1000_deep(full: bool) -> Case:
    """1,000 foreach loops, each over the previous loop's item; a task in the innermost."""
    depth = 1_000
    header = (
        '\n[input_schema]\ntype = "object"\n'
        'properties.children = { type = "array", items = { "$ref" = "#/$defs/tree" } }\n'
        '"$defs".tree = { type = "object", properties = { children = { type = "array", '
        'items = { "$ref" = "#/$defs/tree" } } } }\n'
    )
    edges = [f'  {{ from = "f{k}", outcome = "loop", to = "f{k + 1}" }},' for k in range(depth - 1)]
    edges += [
        f'  {{ from = "f{depth - 1}", outcome = "loop", to = "t" }},',
        f'  {{ from = "t", outcome = "ok", to = "f{depth - 1}" }},',
    ]
    edges += [f'  {{ from = "f{k}", outcome = "done", to = "f{k - 1}" }},' for k in range(1, depth)]
    edges.append('  { from = "f0", outcome = "done", to = "__end__" },')
    nodes = ['\n[[nodes]]\nid = "f0"\ntype = "foreach"\nover = "input.children"\nas = "c0"\n']
    nodes += [
        f'\n[[nodes]]\nid = "f{k}"\ntype = "foreach"\n'
        f'over = "context.foreach.f{k - 1}.item.children"\nas = "c{k}"\n'
        for k in range(1, depth)
    ]
    nodes.append(
        '\n[[nodes]]\nid = "t"\ntype = "node"\nnode = "task"\n'
        f'input = [{{ target = "x", path = "context.foreach.f{depth - 1}.item" }}]\n'
    )
    text = (
        'name = "deep_loops"\nstart = "f0"\noutcomes = ["ok"]\nedges = [\n'
        + "\n".join(edges)
        + "\n]\n"
        + header
        + TASK_DEF
        + "".join(nodes)
    )
    at = text.index(f'"context.foreach.f{depth - 1}.item"') + 17
    return Case(text, "toml", (at, text.index('over = "context.foreach.f500') + 25))


def long_id(full: bool) -> Case:
    """A node id of 100,000 characters, used in ``start``, an edge and a path."""
    node_id = "n" * 100_000
    text = (
        f'name = "long"\nstart = "{node_id}"\noutcomes = ["ok"]\n'
        f'edges = [{{ from = "{node_id}", outcome = "ok", to = "__end__" }}]\n'
        f'{TASK_DEF}\n[[nodes]]\nid = "{node_id}"\ntype = "node"\nnode = "task"\n'
    )
    return Case(text, "toml", (text.index(node_id) + 50_000, len(text) - 30))


def regex_backtracking(full: bool) -> Case:
    """``pattern = "^(a+)+$"`` (and as a ``patternProperties`` key) against 100,000 a's and
    a ``!``: a backtracking engine never finishes. The case also runs the workflow."""
    header = (
        '\n[input_schema]\ntype = "object"\n'
        'properties.s = { type = "string", pattern = "^(a+)+$" }\n'
        'properties.m = { type = "object", patternProperties = { "^(a+)+$" = { type = "string" } }'
        ", additionalProperties = false }\n"
    )
    text = _one_node('{ target = "x", path = "input.s" }', header)
    evil = "a" * 100_000 + "!"
    return Case(
        text, "toml", (text.index('"input.s"') + 8,), run_input={"s": evil, "m": {evil: "v"}}
    )


def run_deep_input(full: bool) -> Case:
    """A valid workflow run (stand-ins) on an input of 1,000 nested lists."""
    deep: list[object] = []
    for _ in range(1_000):
        deep = [deep]
    text = _one_node('{ target = "x", value = 1 }')
    return Case(text, "toml", (len(text) // 2,), run_input={"x": deep})


# -- on disk ------------------------------------------------------------------------------

GOOD = _one_node('{ target = "x", value = 1 }')


def _non_utf8(folder: Path) -> None:
    """A document in Latin-1: its name is not valid UTF-8."""
    (folder / "latin1.wf.toml").write_bytes(GOOD.replace("patho", "caf\xe9").encode("latin-1"))


def _fifo(folder: Path) -> None:
    """A FIFO named like a document: opening it to read would wait for a writer."""
    (folder / "good.wf.toml").write_text(GOOD)
    os.mkfifo(folder / "pipe.wf.toml")


def _directory(folder: Path) -> None:
    """A directory named like a document, holding one."""
    (folder / "good.wf.toml").write_text(GOOD)
    (folder / "x.wf.toml").mkdir()
    (folder / "x.wf.toml" / "inner.wf.toml").write_text(GOOD.replace("patho", "inner"))


def _symlink_loop(folder: Path) -> None:
    """A link to itself, two links to each other, and a link to the folder it is in."""
    (folder / "good.wf.toml").write_text(GOOD)
    (folder / "loop.wf.toml").symlink_to(folder / "loop.wf.toml")
    (folder / "a.wf.json").symlink_to(folder / "b.wf.json")
    (folder / "b.wf.json").symlink_to(folder / "a.wf.json")
    (folder / "cycle").symlink_to(folder, target_is_directory=True)


def disk_non_utf8(full: bool) -> Case:
    return Case(make_folder=_non_utf8)


def disk_fifo(full: bool) -> Case:
    return Case(make_folder=_fifo)


def disk_directory_named_like_a_document(full: bool) -> Case:
    return Case(make_folder=_directory)


def disk_symlink_loop(full: bool) -> Case:
    return Case(make_folder=_symlink_loop)


CASES: dict[str, Callable[[bool], Case]] = {
    "json_deep_arrays": json_deep_arrays,
    "json_deep_objects": json_deep_objects,
    "json_deep_unclosed": json_deep_unclosed,
    "toml_deep_arrays": toml_deep_arrays,
    "toml_deep_inline_tables": toml_deep_inline_tables,
    "toml_deep_dotted_key": toml_deep_dotted_key,
    "toml_deep_table_header": toml_deep_table_header,
    "json_long_line": json_long_line,
    "toml_long_line": toml_long_line,
    "document_20mb": document_20mb,
    "nodes_100k": nodes_100k,
    "duplicate_ids": duplicate_ids,
    "path_10k_segments": path_10k_segments,
    "ref_cycle": ref_cycle,
    "ref_chain": ref_chain,
    "schema_10k_properties": schema_10k_properties,
    "foreach_1000_deep": foreach_1000_deep,
    "long_id": long_id,
    "regex_backtracking": regex_backtracking,
    "run_deep_input": run_deep_input,
    "disk_non_utf8": disk_non_utf8,
    "disk_fifo": disk_fifo,
    "disk_directory_named_like_a_document": disk_directory_named_like_a_document,
    "disk_symlink_loop": disk_symlink_loop,
}

DESCRIPTIONS = {
    "json_deep_arrays": "10,000-deep nested arrays (JSON)",
    "json_deep_objects": "10,000-deep nested objects (JSON)",
    "json_deep_unclosed": "10,000 unclosed `[` (JSON)",
    "toml_deep_arrays": "10,000-deep nested arrays (TOML)",
    "toml_deep_inline_tables": "10,000-deep nested inline tables (TOML)",
    "toml_deep_dotted_key": "a dotted key of 10,000 parts (TOML)",
    "toml_deep_table_header": "a table header of 10,000 parts (TOML)",
    "json_long_line": "a 1 MB single line (minified JSON, 2,800 nodes)",
    "toml_long_line": "a 1 MB comment line and a 1 MB unclosed array on one line (TOML)",
    "document_20mb": "a 20 MB document (55,000 nodes)",
    "nodes_100k": "100,000 nodes (36 MB)",
    "duplicate_ids": "10,000 nodes with the same id",
    "path_10k_segments": "a path of 10,000 segments",
    "ref_cycle": "a `$ref` cycle",
    "ref_chain": "a chain of 1,000 `$ref`s",
    "schema_10k_properties": "a schema of 10,000 properties",
    "foreach_1000_deep": "1,000 nested foreach loops",
    "long_id": "an id of 100,000 characters",
    "regex_backtracking": "`pattern` `^(a+)+$` against 100,000 a's and `!` (run)",
    "run_deep_input": "a run-time input of 1,000 nested lists",
    "disk_non_utf8": "non-UTF-8 bytes on disk",
    "disk_fifo": "a FIFO named `pipe.wf.toml`",
    "disk_directory_named_like_a_document": "a directory named `x.wf.toml`",
    "disk_symlink_loop": "symlink loops (file and folder)",
}
"""Each case in a phrase, for a reader of the results."""


def build(name: str, *, full: bool = True) -> Case:
    """Case ``name`` at its full size, or (``full=False``) at the size the tests run."""
    return CASES[name](full)

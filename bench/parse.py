"""Parse times of the document front-end: from scratch and per editing step.

Run: ``.venv/bin/python bench/parse.py [sizes...]`` (default 500 1000 2000 4000
nodes of ``generate.generate_toml``; the JSON document is the same workflow
converted with ``tomllib`` and ``json.dumps(indent=2)``). Times are CPU seconds
(``time.process_time``), medians over several runs, so a loaded machine
distorts them less; single runs vary with garbage collection.

Per-edit times are ``DocumentParser.parse`` right after one editing step at
several places of the document (each step applied to a parser that has parsed
the unedited text): inserting and deleting a character inside a path string,
inserting one inside a key, and deleting a closing quote (the document is then
invalid in one node; tree-sitter must reparse from scratch). The figures go to the
``parse`` section of ``docs/performance.md`` (``make bench``).

``--readers [sizes...]`` (default 2000 16000) prints, without writing the page, what the
fast reader (``wf_core.documents.toml_chunks``) is worth: the TOML open and the parse
after inserting a character inside a path string, read the usual way, the tree path
(tree-sitter's tree, each clean statement read by the fast reader) and the tree path
alone (every statement converted from tree-sitter's nodes).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import tomllib
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate_toml
from report import table, write_section

from wf_core.base.edits import Edit
from wf_core.documents import DocumentParser, Syntax, parse_document, toml_syntax
from wf_core.documents import parser as parser_module

RUNS = 5
PLACES = 7


def _cpu(action: Callable[[], object]) -> float:
    start = time.process_time()
    action()
    return time.process_time() - start


def _places(text: str, needle: str) -> list[int]:
    """Offsets of ``needle`` spread over the document."""
    found = []
    for k in range(PLACES):
        at = text.find(needle, len(text) * (k + 1) // (PLACES + 1))
        if at >= 0:
            found.append(at)
    return found


# Per syntax: how a path binding, a key and the node's ``node`` member are written.
_NEEDLES = {
    "toml": ("path = ", "target = ", 'node = "charge_order"'),
    "json": ('"path": ', '"target": ', '"node": "charge_order"'),
}


def _edits(text: str, syntax: Syntax) -> dict[str, list[Edit]]:
    path, key, node = _NEEDLES[syntax]
    out: dict[str, list[Edit]] = {"path +1 char": [], "path -1 char": [], "key +1 char": []}
    out["unterminated string"] = []
    for at in _places(text, path):
        inside = text.index("context", at) + 8
        out["path +1 char"].append(Edit(inside, inside, "x"))
        out["path -1 char"].append(Edit(inside, inside + 1, ""))
    for at in _places(text, key):
        out["key +1 char"].append(Edit(at + 3, at + 3, "x"))
    for at in _places(text, node):
        quote = at + len(node) - 1
        out["unterminated string"].append(Edit(quote, quote + 1, ""))
    return out


def _edit_time(text: str, edit: Edit, syntax: Syntax) -> tuple[float, float]:
    """The parse of ``text`` after ``edit``, told the edit's region as the server tells it."""
    parser = DocumentParser(syntax)
    parser.parse(text)
    edited = edit.apply(text)
    parsed = None

    def step() -> None:
        nonlocal parsed
        parsed = parser.parse(edited, edit.region)

    spent = _cpu(step)
    assert parsed is not None
    middle = len(edited) // 2
    located = _cpu(lambda: parsed.source_map.locate(middle))
    return spent, located


EDITS = ("path +1 char", "path -1 char", "key +1 char", "unterminated string")


def _size(nodes: int) -> list[tuple[str, ...]]:
    toml_text = generate_toml(nodes)
    json_text = json.dumps(tomllib.loads(toml_text), indent=2)
    return [
        _report(nodes, syntax, text)  # type: ignore[arg-type]
        for syntax, text in (("toml", toml_text), ("json", json_text))
    ]


def _report(nodes: int, syntax: Syntax, text: str) -> tuple[str, ...]:
    """Prints the figures of one document; returns its row of the page's table."""
    lines = text.count("\n")
    scratch = [_cpu(lambda: parse_document(text, syntax)) for _ in range(RUNS)]
    parsed = parse_document(text, syntax)
    everything = _cpu(lambda: list(parsed.source_map.items()))
    print(f"{nodes} nodes, {syntax.upper()}, {lines} lines")
    print(f"  from scratch          {statistics.median(scratch):.4f} s")
    print(f"  first full items()    {everything:.4f} s  (entries are built on first use)")
    edits = []
    for name, placed in _edits(text, syntax).items():
        times = [_edit_time(text, edit, syntax) for edit in placed]
        parse = statistics.median(t[0] for t in times)
        locate = statistics.median(t[1] for t in times)
        print(f"  {name:<21} {parse:.4f} s   first locate after it {locate:.4f} s")
        edits.append(f"{parse * 1000:,.1f} ms")
    scratch_ms = statistics.median(scratch) * 1000
    return (f"{nodes:,}", syntax.upper(), f"{lines:,}", f"{scratch_ms:,.1f} ms", *edits)


def main(sizes: list[int]) -> None:
    rows = [row for nodes in sizes for row in _size(nodes)]
    header = ["nodes", "syntax", "lines", "from scratch", *EDITS]
    write_section(
        "parse",
        f"CPU time of the front-end: from scratch (median of {RUNS} runs), and parsing again "
        f"after one edit (median over {PLACES} places of the document).\n\n"
        + table(header, rows, "rlrrrrrr"),
    )


READERS: dict[str, list[tuple[object, str, object]]] = {
    "fast reader": [],
    "tree path": [(parser_module, "read_clean", lambda _text, _chunks: None)],
    "tree path alone": [
        (parser_module, "read_clean", lambda _text, _chunks: None),
        (toml_syntax, "read_chunk", lambda _text, _section: None),
    ],
}


def readers(sizes: list[int]) -> None:
    """The TOML open and the parse after a one-character edit in a path, each way."""
    for nodes in sizes:
        text = generate_toml(nodes)
        edits = _edits(text, "toml")["path +1 char"]
        runs = RUNS if nodes <= 4000 else 3
        for name, patches in READERS.items():
            with ExitStack() as stack:
                for module, attribute, replacement in patches:
                    stack.enter_context(mock.patch.object(module, attribute, replacement))
                scratch = statistics.median(
                    _cpu(partial(parse_document, text, "toml")) for _ in range(runs)
                )
                edit = statistics.median(_edit_time(text, e, "toml")[0] for e in edits)
            print(
                f"{nodes:>6,} nodes  {name:<16} open {scratch * 1000:7,.0f} ms"
                f"  edit {edit * 1000:6,.1f} ms",
                flush=True,
            )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--readers"]:
        readers([int(arg) for arg in sys.argv[2:]] or [2000, 16000])
    else:
        main([int(arg) for arg in sys.argv[1:]] or [500, 1000, 2000, 4000])

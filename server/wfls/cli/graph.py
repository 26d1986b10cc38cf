"""``wfls graph FILE``: the workflow graph as JSON, Graphviz DOT, Mermaid, or an
interactive HTML page (``wfls.graph_html``).

The document is read in the workspace ``wfls check FILE`` reads it in (``--root``
included: ``wfls.cli.check.workspace_for``), so a subgraph call names the document
that declares its child, and each node carries the worst finding ``check`` reports on
it. A document with mistakes is drawn all the same (docs/graph.md): the status is 0
whenever the graph is printed, 2 when the file or ``--root`` cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

FORMATS = ("json", "dot", "mermaid", "html")


def add_graph_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the workflow document (*.wf.toml or *.wf.json)")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="json",
        dest="fmt",
        help="json (default: nodes, edges, loops and subgraph calls), dot (Graphviz), "
        "mermaid (a Mermaid flowchart) or html (one self-contained page with the "
        "interactive view of VS Code's graph)",
    )
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="the workspace subgraph children are looked up in (the documents under DIR), "
        "as wfls check --root does; default: the file's folder and below",
    )


def run_graph(file: str, *, fmt: str = "json", root: str | None = None) -> int:
    from wf_core.graph import build_graph, to_dot, to_mermaid
    from wfls.cli.check import workspace_for
    from wfls.cli.exits import EXIT_OK, EXIT_USAGE
    from wfls.cli.reporting import terminal_safe
    from wfls.graph_html import render_html

    path = Path(file)
    if root is not None and not Path(root).is_dir():
        print(terminal_safe(f"wfls: --root {root!r} is not a folder"), file=sys.stderr)
        return EXIT_USAGE
    if not path.is_file():
        why = "no such file or directory" if not path.exists() else "not a regular file"
        print(terminal_safe(f"wfls: cannot read {file!r}: {why}"), file=sys.stderr)
        return EXIT_USAGE
    workspace, uri, problem = workspace_for(path, root)
    document = workspace.document(uri)
    if problem is not None or document is None:
        print(terminal_safe(f"wfls: cannot read {file!r}: {problem}"), file=sys.stderr)
        return EXIT_USAGE
    graph = build_graph(document.snapshot, workspace)

    def file_of(child: str) -> str | None:
        found = workspace.document(child)
        return str(found.path) if found is not None and found.path is not None else None

    printers: dict[str, Callable[[], str]] = {
        "json": lambda: json.dumps(graph.to_json(file_of), indent=2, ensure_ascii=False) + "\n",
        "dot": lambda: to_dot(graph),
        "mermaid": lambda: to_mermaid(graph),
        "html": lambda: render_html(graph.to_json(file_of), source=str(path)),
    }
    sys.stdout.write(printers[fmt]())
    return EXIT_OK

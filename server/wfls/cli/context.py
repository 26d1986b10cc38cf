"""``wfls context FILE NODE``: what one node can read."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from wf_core.language.paths import format_owner_stack
from wfls.features.node_context import node_context


def run_context(file: str, node_id: str, *, as_json: bool) -> int:
    from wfls.cli.check import load_file
    from wfls.cli.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE

    try:
        snapshot = load_file(Path(file))
    except OSError as error:
        print(f"wfls: cannot read '{file}': {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    result = node_context(snapshot, node_id)
    if result is None:
        known = sorted(snapshot.context.nodes_by_id) if snapshot.context else []
        print(
            f"wfls: no node '{node_id}' in '{file}'"
            + (f" (nodes: {', '.join(known)})" if known else ""),
            file=sys.stderr,
        )
        return EXIT_FINDINGS
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    out = sys.stdout
    out.write(f"node: {node_id}\n")
    if result["owner_stack"] is None:
        out.write(f"owner stack: none ({result['reason']})\n")
        return EXIT_OK
    out.write(f"owner stack: {format_owner_stack(result['owner_stack'])}\n")
    out.write("readable paths:\n")
    width = max((len(o["path"]) for o in result["paths"]), default=0)
    for option in result["paths"]:
        out.write(f"  {option['path']:<{width}}  {option.get('type', 'any')}\n")
    out.write("context schema:\n")
    out.write(json.dumps(result["schema"], indent=2, ensure_ascii=False) + "\n")
    return EXIT_OK

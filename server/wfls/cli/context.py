"""``wfls context FILE NODE``: what one node can read."""

from __future__ import annotations

import sys
from pathlib import Path

from wf_core.language.paths import format_owner_stack
from wfls.features.node_context import node_context


def run_context(file: str, node_id: str, *, as_json: bool) -> int:
    from wfls.cli.check import load_file
    from wfls.cli.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
    from wfls.cli.reporting import json_output, terminal_safe

    try:
        snapshot = load_file(Path(file))
    except OSError as error:
        reason = error.strerror or error
        print(terminal_safe(f"wfls: cannot read {file!r}: {reason}"), file=sys.stderr)
        return EXIT_USAGE
    result = node_context(snapshot, node_id)
    if result is None:
        known = sorted(snapshot.context.nodes_by_id) if snapshot.context else []
        print(
            terminal_safe(
                f"wfls: no node {node_id!r} in {file!r}"
                + (f" (nodes: {', '.join(known)})" if known else "")
            ),
            file=sys.stderr,
        )
        return EXIT_FINDINGS
    if as_json:
        sys.stdout.write(json_output(result))
        return EXIT_OK
    # Every line escaped (``terminal_safe``) before the paths are aligned by their widths.
    lines = [terminal_safe(f"node: {node_id}")]
    if result["owner_stack"] is None:
        lines.append(terminal_safe(f"owner stack: none ({result['reason']})"))
    else:
        lines.append(terminal_safe(f"owner stack: {format_owner_stack(result['owner_stack'])}"))
        lines.append("readable paths:")
        paths = [(terminal_safe(o["path"]), o.get("type", "any")) for o in result["paths"]]
        width = max((len(path) for path, _ in paths), default=0)
        lines.extend(terminal_safe(f"  {path:<{width}}  {kind}") for path, kind in paths)
    sys.stdout.write("".join(line + "\n" for line in lines))
    if result["owner_stack"] is not None:
        sys.stdout.write("context schema:\n" + json_output(result["schema"]))
    return EXIT_OK

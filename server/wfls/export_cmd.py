"""``wfls export``: a workflow document converted to the other format.

A module of its own, so that ``wfls check`` does not import the TOML writer.
"""

from __future__ import annotations

import sys
from pathlib import Path

from wf_core.export import ExportError, to_json, to_toml
from wf_core.issues import Severity
from wfls.check_cmd import load_file
from wfls.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from wfls.reporting import findings_for, render_text


def run_export(file: str, target: str) -> int:
    path = Path(file)
    try:
        snapshot = load_file(path)
    except OSError as error:
        print(f"wfls: cannot read '{file}': {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    blocking = [
        p
        for p in snapshot.issues
        if p.severity == Severity.ERROR and p.code in ("syntax_error", "invalid_model")
    ]
    if blocking or snapshot.workflow is None:
        sys.stderr.write(render_text(findings_for(file, snapshot)))
        print(f"wfls: '{file}' cannot be exported until these errors are fixed", file=sys.stderr)
        return EXIT_FINDINGS
    try:
        output = to_json(snapshot.workflow) if target == "json" else to_toml(snapshot.workflow)
    except ExportError as error:
        print(f"wfls: {error}", file=sys.stderr)
        return EXIT_FINDINGS
    sys.stdout.write(output)
    return EXIT_OK

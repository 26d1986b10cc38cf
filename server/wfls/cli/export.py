"""``wfls export``: a workflow document converted to the other format.

A module of its own, so that ``wfls check`` does not import the TOML writer.
The document is parsed and its model loaded, nothing more: the conversion needs
no validation, so an export takes less time than a check of the same file.
"""

from __future__ import annotations

import sys
from pathlib import Path

from wf_core.authoring.export import ExportError, export_document
from wf_core.base.issues import Issue, ProjectCode, Severity
from wf_core.version.snapshot import DocumentSnapshot
from wfls.cli.check import load_file
from wfls.cli.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from wfls.cli.reporting import findings_for, render_text

_BLOCKING = frozenset((ProjectCode.SYNTAX_ERROR, ProjectCode.INVALID_MODEL))


def run_export(file: str, target: str, kept: list[object] | None = None) -> int:
    """Print ``file`` converted to ``target``; exit 1, with the reason on stderr, when the
    document has syntax or model errors or holds what the target cannot."""
    path = Path(file)
    try:
        snapshot = load_file(path)
    except OSError as error:
        print(f"wfls: cannot read '{file}': {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    if kept is not None:
        kept.append(snapshot)  # freed by the exit, not as this returns
    if _blocked(snapshot):
        sys.stderr.write(render_text(findings_for(file, snapshot)))
        print(f"wfls: '{file}' cannot be exported until these errors are fixed", file=sys.stderr)
        return EXIT_FINDINGS
    try:
        exported = export_document(snapshot.parsed, snapshot.load, target)
    except ExportError as error:
        print(f"wfls: cannot export '{file}': {error}", file=sys.stderr)
        return EXIT_FINDINGS
    if exported.dropped_comments:
        count = exported.dropped_comments
        print(
            f"wfls: warning: JSON has no comments: the {count} comment"
            f"{'s' if count != 1 else ''} of '{file}' {'are' if count != 1 else 'is'} not in "
            "the output",
            file=sys.stderr,
        )
    if kept is not None:
        kept.append(exported)
    sys.stdout.write(exported.text)
    return EXIT_OK


def _blocked(snapshot: DocumentSnapshot) -> bool:
    """Whether a syntax or model error stops the export: read from the parse and the
    model's load alone (the same errors ``wfls check`` reports for them)."""
    if snapshot.workflow is None:
        return True
    issues: tuple[Issue, ...] = (
        *snapshot.extra_issues,
        *snapshot.parsed.issues,
        *snapshot.load.issues,
    )
    return any(i.severity == Severity.ERROR and i.code in _BLOCKING for i in issues)

"""The workflow a test document runs: found in a workspace by name, or by a path.

A test runs what ``wfls run`` would: the workflow only when ``wfls check`` finds no
error in it or in a child its subgraph nodes reach, with those children found in the
same workspace (``called_workflows``, the one walk the runs share).
"""

from __future__ import annotations

from pathlib import Path

from wf_core.base.issues import Severity
from wf_core.base.reading import is_workflow_file
from wf_core.base.records import record
from wf_core.models import Workflow
from wf_core.validation.subgraphs import ChildMissing, called_workflows
from wf_core.workflow_tests.findings import TestCode
from wf_core.workspace.catalog import Workspace, WorkspaceDocument
from wf_core.workspace.checks import document_issues

__all__ = ["Subject", "SubjectProblem", "find_subject"]


@record
class Subject:
    """A runnable workflow: its document's URI and the children it may call."""

    workflow: Workflow
    subgraphs: dict[str, Workflow]
    uri: str


@record
class SubjectProblem:
    """Why the workflow of a test document cannot be run."""

    code: TestCode
    message: str


def _document(workspace: Workspace, reference: str, base: Path | None) -> WorkspaceDocument | None:
    document = workspace.resolve(reference)
    if document is not None or base is None:
        return document
    if not (is_workflow_file(reference) or "/" in reference):
        return None
    path = (base / reference).resolve()
    found = workspace.document(path.as_uri())
    if found is None and path.is_file() and workspace.load(path, named=True) is None:
        found = workspace.document(path.as_uri())
    return found


def _errors(workspace: Workspace, document: WorkspaceDocument) -> int:
    return sum(
        1 for issue in document_issues(workspace, document.uri) if issue.severity == Severity.ERROR
    )


def find_subject(
    workspace: Workspace, reference: str, base: Path | None
) -> Subject | SubjectProblem:
    """The workflow ``reference`` names: a workflow name of ``workspace``, or a path
    relative to ``base`` (the test document's folder; None when it has none)."""
    document = _document(workspace, reference, base)
    if document is None:
        known = ", ".join(sorted(workspace.names())) or "none"
        return SubjectProblem(
            TestCode.UNKNOWN_WORKFLOW,
            f"no workflow named '{reference}' in the workspace (known: {known})",
        )
    errors = _errors(workspace, document)
    workflow = document.snapshot.workflow
    if errors or workflow is None:
        return SubjectProblem(
            TestCode.WORKFLOW_ERRORS,
            f"workflow '{reference}' has {errors} error(s) (wfls check shows them); fix "
            "them before testing it",
        )
    broken: list[str] = []

    def child(name: str) -> Workflow | None:
        found = workspace.resolve(name)
        if found is None:
            return None
        if _errors(workspace, found) or found.snapshot.workflow is None:
            broken.append(name)
        return found.snapshot.workflow

    try:
        subgraphs = called_workflows(workflow, child)
    except ChildMissing as missing:
        return SubjectProblem(
            TestCode.WORKFLOW_ERRORS,
            f"workflow '{reference}' calls '{missing.display}', which is not in the workspace",
        )
    if broken:
        return SubjectProblem(
            TestCode.WORKFLOW_ERRORS,
            f"workflow '{reference}' calls '{broken[0]}', which has errors",
        )
    return Subject(workflow, subgraphs, document.uri)

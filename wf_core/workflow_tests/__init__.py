"""Workflow tests: a document of cases that run a workflow with pinned node results and
check what happened (``wfls test``, docs/testing.md).

- :func:`read_test_document` reads a ``*.wf.test.toml`` / ``*.wf.test.json`` text;
- :func:`check_test_document` gives every finding about it (codes in ``findings.CODES``);
- :func:`run_test_document` runs its cases and :func:`to_json` writes the results;
- :func:`save_test` writes a test document from a run (``wfls run --save-test``).
"""

from __future__ import annotations

from wf_core.workflow_tests.cases import (
    FAILED_ATTEMPT,
    Attempt,
    Case,
    Expect,
    InterruptAnswer,
    Pin,
    Saw,
    TestDocument,
    workflow_tests_json_schema,
)
from wf_core.workflow_tests.checker import check_test_document, checked_subject
from wf_core.workflow_tests.findings import CODES, TestCode, TestFinding
from wf_core.workflow_tests.loader import (
    LoadedCase,
    LoadedTests,
    is_test_document,
    read_test_document,
)
from wf_core.workflow_tests.results import CaseResult, Failure, FileResult, summary, to_json
from wf_core.workflow_tests.runner import (
    PinnedHandlers,
    activation_label,
    case_handlers,
    run_case,
    run_test_document,
)
from wf_core.workflow_tests.subject import Subject, SubjectProblem, find_subject

__all__ = [
    "CODES",
    "FAILED_ATTEMPT",
    "Attempt",
    "Case",
    "CaseResult",
    "Expect",
    "Failure",
    "FileResult",
    "InterruptAnswer",
    "LoadedCase",
    "LoadedTests",
    "Pin",
    "PinnedHandlers",
    "Saw",
    "Subject",
    "SubjectProblem",
    "TestCode",
    "TestDocument",
    "TestFinding",
    "activation_label",
    "case_handlers",
    "check_test_document",
    "checked_subject",
    "find_subject",
    "is_test_document",
    "read_test_document",
    "run_case",
    "run_test_document",
    "summary",
    "to_json",
    "workflow_tests_json_schema",
]

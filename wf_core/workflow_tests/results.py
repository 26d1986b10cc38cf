"""What running test documents found, as plain data, and its one JSON form.

``to_json`` writes the object that ``wfls test --format json`` prints and the server
command ``wfls.test`` answers: lines and columns 1-based, columns in code points (as
``wfls check --format json``). The text, JUnit and GitHub forms of the command line are
made from the same records.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import field
from typing import Literal

from wf_core.base.records import record
from wf_core.base.spans import LineIndex, Span
from wf_core.runtime.json_values import JsonObject, JsonValue

__all__ = ["CaseResult", "Failure", "FileResult", "Summary", "summary", "to_json"]

CaseStatus = Literal["passed", "failed", "error"]


@record
class Failure:
    """One expectation that did not hold (or why a case could not run), at its key and
    value in the test document. ``activations``: for a wrong path, what ran."""

    message: str
    span: Span
    expected: JsonValue = None
    actual: JsonValue = None
    activations: tuple[str, ...] = ()


@record
class CaseResult:
    name: str
    span: Span
    status: CaseStatus
    duration_ms: float
    failures: tuple[Failure, ...] = ()


@record
class FileResult:
    """One test document: its path as given, the workflow it ran (None when it could
    not be resolved), the first finding that stops it (its ``error``) and its cases."""

    path: str
    workflow: str | None
    error: Failure | None
    cases: tuple[CaseResult, ...]
    lines: LineIndex = field(compare=False)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based line and code-point column of ``offset``."""
        return self.lines.one_based(offset)


@record
class Summary:
    passed: int
    failed: int
    errors: int

    @property
    def exit_status(self) -> int:
        """0 all passed, 1 any failed, 2 a document could not be run as written."""
        return 2 if self.errors else 1 if self.failed else 0


def summary(files: Sequence[FileResult]) -> Summary:
    """Cases by status; a document with an error and no case counts as one error."""
    statuses = [case.status for file in files for case in file.cases]
    errors = statuses.count("error") + sum(
        1 for file in files if file.error is not None and not file.cases
    )
    if any(file.error is not None for file in files) and not errors:
        errors = 1
    return Summary(statuses.count("passed"), statuses.count("failed"), errors)


def _range(file: FileResult, span: Span) -> JsonObject:
    start_line, start_column = file.position(span.start)
    end_line, end_column = file.position(span.end)
    return {
        "start": {"line": start_line, "column": start_column},
        "end": {"line": end_line, "column": end_column},
    }


def _failure(file: FileResult, failure: Failure) -> JsonObject:
    return {
        "message": failure.message,
        "range": _range(file, failure.span),
        "expected": failure.expected,
        "actual": failure.actual,
        "activations": list(failure.activations),
    }


def to_json(files: Iterable[FileResult]) -> JsonObject:
    """The contract's object: ``files`` (each with its cases) and the ``summary``."""
    listed = list(files)
    totals = summary(listed)
    return {
        "files": [
            {
                "path": file.path,
                "workflow": file.workflow,
                "error": None
                if file.error is None
                else {"message": file.error.message, "range": _range(file, file.error.span)},
                "cases": [
                    {
                        "name": case.name,
                        "range": _range(file, case.span),
                        "status": case.status,
                        "duration_ms": round(case.duration_ms, 3),
                        "failures": [_failure(file, failure) for failure in case.failures],
                    }
                    for case in file.cases
                ],
            }
            for file in listed
        ],
        "summary": {"passed": totals.passed, "failed": totals.failed, "errors": totals.errors},
    }

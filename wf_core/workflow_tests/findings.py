"""The findings about a test document: one table of codes, and the finding record.

The codes start with ``test_`` so they never collide with a workflow finding's code
(``wf_core.validation.codes``, ``wf_core.base.issues.ProjectCode``); docs/testing.md
lists the same table. Every finding is an error: a test document with one cannot be
run as written (``wfls test`` exits 2).
"""

from __future__ import annotations

from enum import StrEnum

from wf_core.base.records import record
from wf_core.base.spans import Span

__all__ = ["CODES", "TestCode", "TestFinding"]


class TestCode(StrEnum):
    __test__ = False  # not a pytest class

    SYNTAX = "test_syntax"
    INVALID = "test_invalid"
    DUPLICATE_CASE = "test_duplicate_case"
    UNKNOWN_WORKFLOW = "test_unknown_workflow"
    WORKFLOW_ERRORS = "test_workflow_errors"
    UNKNOWN_NODE = "test_unknown_node"
    NOT_PINNABLE = "test_not_pinnable"
    UNKNOWN_OUTCOME = "test_unknown_outcome"
    INVALID_WHEN_PATH = "test_invalid_when_path"
    OUTPUT_SCHEMA = "test_output_schema"
    INPUT_SCHEMA = "test_input_schema"
    ANSWER_SCHEMA = "test_answer_schema"


CODES: dict[TestCode, str] = {
    TestCode.SYNTAX: "the document is not valid TOML or JSON",
    TestCode.INVALID: "a key or value the test document format does not accept",
    TestCode.DUPLICATE_CASE: "two cases have the same name",
    TestCode.UNKNOWN_WORKFLOW: "`workflow` names no workflow of the workspace and no file",
    TestCode.WORKFLOW_ERRORS: "the workflow (or a child it calls) has errors and cannot run",
    TestCode.UNKNOWN_NODE: "a pin, interrupt answer or `saw` names no node of the workflow",
    TestCode.NOT_PINNABLE: "a pin names a node that is not of type `node`, or an interrupt "
    "answer a node that is not an interrupt",
    TestCode.UNKNOWN_OUTCOME: "an outcome the node (or the workflow) does not declare",
    TestCode.INVALID_WHEN_PATH: "a `when` key that is not a context path valid at the pinned node",
    TestCode.OUTPUT_SCHEMA: "a pinned `output` the node def's `output_schema` rejects",
    TestCode.INPUT_SCHEMA: "a case `input` the workflow's `input_schema` rejects",
    TestCode.ANSWER_SCHEMA: "an interrupt `answer` the interrupt's `resume_schema` rejects",
}
"""Every code and what it means: the one table (docs/testing.md shows it)."""


@record
class TestFinding:
    """One finding: its code, message and the characters of the test document it is
    about (code points; ``wf_core.base.spans``)."""

    __test__ = False  # not a pytest class

    code: TestCode
    message: str
    span: Span

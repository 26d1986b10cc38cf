"""lda-wf's validation issue codes and report (lda-wf-model §5.1-§5.2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Unpack

from wf_core.base.issues import Issue, IssueExtras, Severity
from wf_core.base.locations import Location
from wf_core.base.records import record


class ValidationIssueCode(StrEnum):
    DUPLICATE_NODE_DEF = "duplicate_node_def"
    DUPLICATE_NODE_ID = "duplicate_node_id"
    UNKNOWN_START = "unknown_start"
    DUPLICATE_EDGE = "duplicate_edge"
    UNKNOWN_EDGE_SOURCE = "unknown_edge_source"
    UNKNOWN_EDGE_DESTINATION = "unknown_edge_destination"
    UNDECLARED_EDGE_OUTCOME = "undeclared_edge_outcome"
    MISSING_OUTCOME_EDGE = "missing_outcome_edge"
    UNDECLARED_WORKFLOW_OUTCOME = "undeclared_workflow_outcome"
    UNKNOWN_NODE_DEF = "unknown_node_def"
    INVALID_NODE_INPUT_FIELD = "invalid_node_input_field"
    INVALID_SOURCE_PATH = "invalid_source_path"
    INVALID_NODE_OUTPUT_FIELD = "invalid_node_output_field"
    INVALID_WORKFLOW_OUTPUT_FIELD = "invalid_workflow_output_field"
    INVALID_DESTINATION_PATH = "invalid_destination_path"
    EMPTY_CONDITION_ARGS = "empty_condition_args"
    INVALID_CONDITION_PATH = "invalid_condition_path"
    INVALID_FOREACH_SOURCE = "invalid_foreach_source"
    INVALID_FOREACH_COLLECT_DESTINATION = "invalid_foreach_collect_destination"
    INVALID_INTERRUPT_SOURCE = "invalid_interrupt_source"
    INVALID_INTERRUPT_DESTINATION = "invalid_interrupt_destination"
    UNREACHABLE_NODE = "unreachable_node"
    FOREACH_REGION_CONFLICT = "foreach_region_conflict"
    INVALID_FOREACH_RETURN = "invalid_foreach_return"
    INVALID_FOREACH_TERMINAL = "invalid_foreach_terminal"
    EMPTY_FOREACH_BODY = "empty_foreach_body"
    FOREACH_BODY_NO_RETURN = "foreach_body_no_return"
    INVALID_CONTEXT_PATH = "invalid_context_path"
    FOREACH_CONTEXT_ALIAS_CONFLICT = "foreach_context_alias_conflict"


LDA_WF_CODES = frozenset(code.value for code in ValidationIssueCode)


@record
class ValidationIssue:
    """lda-wf's issue shape: no severity, every one an error."""

    code: ValidationIssueCode
    path: str
    message: str


@dataclass
class ValidationReport:
    """All findings of :func:`validate_workflow`.

    ``issues`` holds everything, in lda-wf's order for lda-wf's codes followed
    by this project's additions; ``errors`` is lda-wf's view of it.
    """

    issues: list[Issue] = field(default_factory=list)

    @property
    def errors(self) -> list[ValidationIssue]:
        return [
            ValidationIssue(ValidationIssueCode(i.code), i.model_path or "", i.message)
            for i in self.issues
            if i.code in LDA_WF_CODES
        ]

    @property
    def ok(self) -> bool:
        return not any(i.severity == Severity.ERROR for i in self.issues)

    def add(
        self, code: str, location: Location, message: str, **extra: Unpack[IssueExtras]
    ) -> None:
        self.issues.append(Issue(code=str(code), location=location, message=message, **extra))

    def raise_for_errors(self) -> None:
        errors = self.errors
        if errors:
            lines = "\n".join(f"- [{e.code}] {e.path}: {e.message}" for e in errors)
            raise ValueError(f"Workflow validation failed:\n{lines}")

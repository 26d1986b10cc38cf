"""Checks of ``input.*``/``state.*`` reads and ``state.*`` writes.

lda-wf's coarse rule looks at the first segment only; this project then walks
the rest with the same navigator as context paths (workflow-format.md,
decision 3). A segment a closed schema rejects is an error under the read's
own lda-wf code; one an open-ended object merely does not declare is an
``undeclared_property`` warning with the closest declared name.
"""

from __future__ import annotations

from typing import Unpack

from wf_core.analysis.context_scopes import ContextModel, dump_schema
from wf_core.base.issues import Issue, IssueData, IssueExtras, ProjectCode, Severity
from wf_core.base.locations import Location
from wf_core.base.suggest import did_you_mean
from wf_core.language.paths import GraphSourcePath, StatePath, format_segments
from wf_core.models.schema_nav import SchemaNavigator
from wf_core.models.schemas import SchemaRef
from wf_core.validation.report import ValidationIssueCode as Code

_SHOWN_FIELDS = 10
"""Declared root fields a help note lists before it says how many there are."""


class SourceChecker:
    """Collects errors (drained into the report in lda-wf order) and extras (appended last)."""

    def __init__(self, model: ContextModel) -> None:
        self.model = model
        self._errors: list[Issue] = []
        self._extras: list[Issue] = []
        self._roots: dict[str, list[str]] = {}
        self._declared: dict[int, tuple[SchemaRef, list[str]]] = {}

    def root_fields(self, root: str) -> list[str]:
        """The names ``input.<name>``/``state.<name>`` may start with, through the same
        navigator as every deeper segment (``allOf``/``anyOf``/``oneOf``/``$ref``)."""
        fields = self._roots.get(root)
        if fields is None:
            fields = self.model.source_navigator(root).root.declared_names()
            self._roots[root] = fields
        return fields

    def unknown_root_field(
        self, root: str, name: str, candidates: list[str] | None = None
    ) -> IssueData:
        """Issue extras for a path whose first segment after ``root`` is not declared: the
        closest declared name (``data["suggestion"]``) and a help note naming the declared
        root fields. lda-wf's message for it ("must start with input., state., or
        context. and reference a declared root field") is kept, and reads as if the root
        were wrong; the note says what is."""
        declared = self.root_fields(root)
        extras = did_you_mean(name, declared if candidates is None else candidates)
        shown = ", ".join(repr(field) for field in declared[:_SHOWN_FIELDS])
        if len(declared) > _SHOWN_FIELDS:
            shown += f", ... ({len(declared)} in all)"
        note = (
            f"{name!r} is not declared in {root}_schema (its root fields: {shown})"
            if declared
            else f"{name!r} is not declared in {root}_schema, which declares no root fields"
        )
        suggestion = extras.get("data", {}).get("suggestion")
        if suggestion is not None:
            note += f"; did you mean {suggestion!r}?"
        data: dict[str, object] = {"help": note}
        if suggestion is not None:
            data["suggestion"] = suggestion
        return {"data": data}

    def declared_names(self, schema: SchemaRef) -> list[str]:
        """Top-level names a node's (or the workflow's output) schema declares.

        Node defs are shared by many nodes, so each schema object is walked once.
        """
        key = id(schema)
        hit = self._declared.get(key)
        if hit is None or hit[0] is not schema:
            navigator = SchemaNavigator(dump_schema(schema))
            hit = (schema, navigator.root.declared_names())
            self._declared[key] = hit
        return hit[1]

    def error(
        self, code: str, location: Location, message: str, **extra: Unpack[IssueExtras]
    ) -> None:
        self._errors.append(Issue(code=str(code), location=location, message=message, **extra))

    def drain_errors(self) -> list[Issue]:
        out, self._errors = self._errors, []
        return out

    def drain_extras(self) -> list[Issue]:
        out, self._extras = self._extras, []
        return out

    def check(
        self,
        path: GraphSourcePath,
        location: Location,
        code: str,
        message: str,
        *,
        extra_location: Location | None = None,
    ) -> bool:
        """lda-wf's coarse check, then the full-depth walk; True when the coarse check passed."""
        root, parts = path.root, path.parts
        if root == "context" or not parts:
            return True
        if parts[0] not in self.root_fields(root):
            self.error(
                code,
                location,
                message,
                segment=1,
                span_at=extra_location,
                **self.unknown_root_field(
                    root,
                    parts[0],
                    self.model.source_navigator(root).replacements(
                        parts, 0, self.root_fields(root)
                    ),
                ),
            )
            return False
        self._walk(path, extra_location or location, code)
        return True

    def _walk(self, path: GraphSourcePath, location: Location, code: str) -> None:
        navigator = self.model.source_navigator(path.root)
        unknown = navigator.first_unknown(path.parts)
        if unknown is None or unknown.index == 0:
            return
        segment = path.parts[unknown.index]
        prefix = format_segments((path.root, *path.parts[: unknown.index]))
        suggestion = did_you_mean(
            segment, navigator.replacements(path.parts, unknown.index, unknown.available)
        )
        if unknown.allows_undeclared:
            self._extras.append(
                Issue(
                    code=ProjectCode.UNDECLARED_PROPERTY,
                    location=location,
                    message=f"{segment!r} is not declared in the schema of {prefix!r}",
                    severity=Severity.WARNING,
                    segment=unknown.index + 1,
                    **suggestion,
                )
            )
            return
        available = f" (available: {','.join(unknown.available)})" if unknown.available else ""
        self.error(
            code,
            location,
            f"source path {str(path)!r} has unknown segment {segment!r}{available}",
            segment=unknown.index + 1,
            **suggestion,
        )

    def check_destination(self, target: StatePath, location: Location) -> None:
        if target.parts[0] not in self.root_fields("state"):
            self.error(
                Code.INVALID_DESTINATION_PATH,
                location,
                "destination path must start with state. and reference a declared root field",
                segment=1,
                **self.unknown_root_field("state", target.parts[0]),
            )

    def check_resume_destination(self, target: StatePath, location: Location) -> None:
        """Resume targets are checked like output bindings (workflow-format.md, decision 5)."""
        if target.parts[0] not in self.root_fields("state"):
            self.error(
                Code.INVALID_INTERRUPT_DESTINATION,
                location,
                "interrupt resume destination must start with state. and reference a declared "
                "state field",
                segment=1,
                **self.unknown_root_field("state", target.parts[0]),
            )

"""Reading a test document: text → its cases, where each value sits, and shape findings.

The text goes through the workflow documents' own front-end (``parse_document``), so
a test document is TOML or JSON exactly as a workflow is, with the same source map of
positions. The top level and each case are validated on their own, so that one wrong
case leaves the others readable (and runnable).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field

from pydantic import ValidationError

from wf_core.base.locations import Location, LocationPart
from wf_core.base.reading import Syntax
from wf_core.base.records import record
from wf_core.base.spans import LineIndex, Span
from wf_core.documents import ParsedDocument, SourceMap, parse_document
from wf_core.workflow_tests.cases import Case, TestDocument
from wf_core.workflow_tests.findings import TestCode, TestFinding

__all__ = ["LoadedCase", "LoadedTests", "is_test_document", "read_test_document"]

TEST_SUFFIXES = (".wf.test.toml", ".wf.test.json")


def is_test_document(path: str) -> bool:
    """A ``*.wf.test.toml`` or ``*.wf.test.json`` file (by name)."""
    return path.lower().endswith(TEST_SUFFIXES)


@record
class LoadedCase:
    """A case as written: its index among ``case``, its name (when it has one) and its
    model (None when it does not validate)."""

    index: int
    name: str | None
    case: Case | None


@record
class LoadedTests:
    """A test document read: the parsed text, the workflow it names, its cases, and
    the findings about its syntax and shape."""

    parsed: ParsedDocument
    workflow: str | None
    cases: tuple[LoadedCase, ...]
    findings: tuple[TestFinding, ...]
    case_spans: tuple[Span, ...]
    lines: LineIndex = field(compare=False)

    def span(self, location: Location, *, key: bool = True) -> Span:
        """The characters of ``location``: its key and value when it has a key (and
        ``key``), else its value; the nearest written ancestor's when it is not
        written (a default), the whole text for the top."""
        return _span_of(self.parsed.source_map, location, len(self.parsed.text), key=key)

    def case_span(self, index: int) -> Span:
        """A case from its ``[[case]]`` header (its ``{`` in JSON) through its last
        value, the tables under it (``[[case.pin]]``, ...) included."""
        return self.case_spans[index]

    def case_at(self, offset: int) -> int | None:
        """The index of the case whose span holds ``offset``, if any."""
        for index, span in enumerate(self.case_spans):
            if span.start <= offset < span.end or offset == span.end:
                return index
        return None

    def expect_location(self, index: int, expect: int) -> Location:
        """Where the ``expect``-th table of case ``index``'s ``expect`` is written: an
        array element, or the one table."""
        written = self.parsed.values.get("case")
        case = written[index] if isinstance(written, list) and index < len(written) else None
        one = isinstance(case, Mapping) and isinstance(case.get("expect"), Mapping)
        return ("case", index, "expect") if one else ("case", index, "expect", expect)


def _pydantic_findings(
    error: ValidationError, base: Location, values: object, parsed: ParsedDocument
) -> list[TestFinding]:
    """One finding per pydantic error, at the deepest written part of its location."""
    findings: list[TestFinding] = []
    source_map = parsed.source_map
    for detail in error.errors():
        loc: list[LocationPart] = list(base)
        current: object = values
        for part in detail["loc"]:
            if isinstance(current, Mapping) and part in current:
                current = current[part]
            elif _is_index(current, part):
                current = current[part]  # type: ignore[index]
            else:
                if detail["type"] == "extra_forbidden" and isinstance(part, str):
                    loc.append(part)
                break
            loc.append(part)
        where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in loc)
        where = where.replace(".[", "[")
        message = str(detail["msg"])
        if detail["type"] == "extra_forbidden":
            message = f"unknown key '{loc[-1]}'"
        elif detail["type"] == "missing":
            missing = detail["loc"][-1]
            message = f"'{missing}' is required"
        found: Location = tuple(loc)
        span = _span_of(source_map, found, len(parsed.text))
        findings.append(TestFinding(TestCode.INVALID, f"{where}: {message}", span))
    return findings


def _is_index(container: object, part: str | int) -> bool:
    """Whether ``part`` is an index of a written array."""
    return isinstance(container, list) and isinstance(part, int) and part < len(container)


def _span_of(source_map: SourceMap, location: Location, end: int, *, key: bool = True) -> Span:
    """``location``'s key and value (or value alone), else its nearest written
    ancestor's; the whole text for the top."""
    loc = tuple(location)
    while loc:
        entry = source_map.get(loc)
        if entry is not None:
            start = entry.key.start if key and entry.key is not None else entry.value.start
            return Span(start, entry.value.end)
        loc = loc[:-1]
    return Span(0, end)


def read_test_document(text: str, syntax: Syntax) -> LoadedTests:
    """Read a test document's text; never raises on what the text holds."""
    parsed = parse_document(text, syntax)
    findings = [
        TestFinding(TestCode.SYNTAX, issue.message, issue.span or Span(0, 0))
        for issue in parsed.issues
    ]
    values = parsed.values
    top = {key: value for key, value in values.items() if key != "case"}
    workflow: str | None = None
    try:
        document = TestDocument.model_validate(top)
        workflow = document.workflow
    except ValidationError as error:
        findings += _pydantic_findings(error, (), top, parsed)
        written = values.get("workflow")
        workflow = written if isinstance(written, str) else None
    cases: list[LoadedCase] = []
    written_cases = values.get("case", [])
    if not isinstance(written_cases, list):
        span = _span_of(parsed.source_map, ("case",), len(text))
        findings.append(TestFinding(TestCode.INVALID, "case: expected an array of tables", span))
        written_cases = []
    names: dict[str, int] = {}
    for index, raw in enumerate(written_cases):
        name = raw.get("name") if isinstance(raw, Mapping) else None
        try:
            case: Case | None = Case.model_validate(raw)
        except ValidationError as error:
            findings += _pydantic_findings(error, ("case", index), raw, parsed)
            case = None
        if isinstance(name, str):
            if name in names:
                span = _span_of(parsed.source_map, ("case", index, "name"), len(text))
                findings.append(
                    TestFinding(
                        TestCode.DUPLICATE_CASE,
                        f"case '{name}' is already defined (case [{names[name]}])",
                        span,
                    )
                )
            names.setdefault(name, index)
        cases.append(LoadedCase(index, name if isinstance(name, str) else None, case))
    findings.sort(key=lambda f: (f.span.start, f.span.end))
    spans = _case_spans(parsed, len(cases))
    return LoadedTests(parsed, workflow, tuple(cases), tuple(findings), spans, LineIndex(text))


def _case_spans(parsed: ParsedDocument, count: int) -> tuple[Span, ...]:
    """Each case's first character through the last of anything written under it (in
    TOML a case's sub-tables are separate sections after its header)."""
    starts: list[int | None] = [None] * count
    ends = [0] * count
    for location, entry in parsed.source_map.items():
        if len(location) >= 2 and location[0] == "case" and isinstance(location[1], int):
            index = location[1]
            if index < count:
                keyed = len(location) > 2 and entry.key is not None
                start = entry.key.start if keyed and entry.key is not None else entry.value.start
                first = starts[index]
                starts[index] = start if first is None else min(first, start)
                ends[index] = max(ends[index], entry.value.end)
    return tuple(
        Span(start or 0, max(end, start or 0)) for start, end in zip(starts, ends, strict=True)
    )

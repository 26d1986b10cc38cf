"""The editor features of workflow test documents (``*.wf.test.toml``, ``*.wf.test.json``).

A test document is read by the core's reader (``wf_core.workflow_tests``) and
checked by its one function (``check_test_document``), whose findings are the
document's diagnostics. Completion, hover and go to definition look at the value or
key under the cursor through the reader's source map and answer from the workflow the
document names, as the workflow's own features do: a node id is hovered with the
workflow hover's node summary and leads to the node's ``id``; a ``when`` key is a
context path of the pinned node, completed from the paths that node can read
(``wfls context``'s inventory) and hovered with its schema. A "Run case" code lens
above each case runs it through the server command ``wfls.test``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from wf_core.base.locations import Location
from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.language.paths import GraphSourcePath, PathResolutionError, format_segments
from wf_core.models import InterruptNode, NodeUse
from wf_core.models.workflow import node_defs_by_name
from wf_core.version.view import AnalysisView
from wf_core.workflow_tests import (
    FAILED_ATTEMPT,
    Attempt,
    Case,
    Expect,
    LoadedTests,
    Pin,
    Saw,
    Subject,
    TestFinding,
    check_test_document,
    find_subject,
)
from wf_core.workspace.catalog import Workspace, WorkspaceDocument
from wfls.features.definition import node_field
from wfls.features.hover import node_markdown, workflow_markdown
from wfls.features.schema_text import schema_markdown
from wfls.features.types import CompletionCandidate, HoverResult, OutlineSymbol, Target

RUN_CASE = "Run case"
"""The title of the code lens above each case (its command is ``wfls.test``)."""


@record
class CaseLens:
    """A "Run case" lens: the first line of a case, and the case's name."""

    span: Span
    name: str


class TestDocumentView:
    """A test document read, and the workspace its workflow is looked up in (by name,
    or by a path relative to ``base``, the document's folder). The workflow is looked up
    when made: views are made off the event loop (``wfls.test_documents``)."""

    __test__ = False  # not a pytest class

    def __init__(self, uri: str, loaded: LoadedTests, workspace: Workspace, base: Path | None):
        self.uri = uri
        self.loaded = loaded
        self.workspace = workspace
        self.base = base
        document = _workflow_document(loaded.workflow, workspace, base)
        # Errors or not: the features answer while the author fixes the workflow.
        self.workflow: AnalysisView | None = document.snapshot if document else None
        self.workflow_uri: str | None = document.uri if document else None


def _workflow_document(
    name: str | None, workspace: Workspace, base: Path | None
) -> WorkspaceDocument | None:
    """The workflow document a test names: a workflow name first (whatever its findings),
    else a path, as a run finds it."""
    if name is None:
        return None
    document = workspace.resolve(name)
    if document is None:
        found = find_subject(workspace, name, base)
        document = workspace.document(found.uri) if isinstance(found, Subject) else None
    return document


def diagnostics(view: TestDocumentView) -> list[TestFinding]:
    """The findings of the one check the command line runs too."""
    return check_test_document(view.loaded, view.workspace, base=view.base)


def case_lenses(loaded: LoadedTests) -> list[CaseLens]:
    """One lens per named case, on the first line of its text (its ``[[case]]`` header)."""
    text = loaded.parsed.text
    lenses: list[CaseLens] = []
    for case in loaded.cases:
        if case.name is None or case.index >= len(loaded.case_spans):
            continue
        start = loaded.case_span(case.index).start
        end = text.find("\n", start)
        lenses.append(CaseLens(Span(start, len(text) if end < 0 else end), case.name))
    return lenses


def outline(loaded: LoadedTests) -> list[OutlineSymbol]:
    """Each named case, its pins (by node) and interrupt answers under it."""
    symbols: list[OutlineSymbol] = []
    values = loaded.parsed.values.get("case")
    for case in loaded.cases:
        if case.name is None or case.index >= len(loaded.case_spans):
            continue
        children: list[OutlineSymbol] = []
        written = values[case.index] if isinstance(values, list) else None
        for table, kind in (("pin", "Variable"), ("interrupt", "Event")):
            entries = written.get(table) if isinstance(written, Mapping) else None
            for number, entry in enumerate(entries if isinstance(entries, list) else ()):
                node = entry.get("node") if isinstance(entry, Mapping) else None
                if not isinstance(node, str):
                    continue
                at = ("case", case.index, table, number)
                children.append(
                    OutlineSymbol(
                        node, kind, loaded.span(at), loaded.span((*at, "node"), key=False), table
                    )
                )
        name = loaded.span(("case", case.index, "name"), key=False)
        symbols.append(
            OutlineSymbol(
                case.name, "Method", loaded.case_span(case.index), name, "case", tuple(children)
            )
        )
    return symbols


# -- what the cursor is on -------------------------------------------------------------


@record
class _At:
    """The innermost written location holding the offset, and whether in its key."""

    location: Location
    span: Span  # of the key when ``in_key``, else of the value
    in_key: bool


def _at(loaded: LoadedTests, offset: int) -> _At | None:
    best: _At | None = None
    for location, entry in loaded.parsed.source_map.items():
        for span, in_key in ((entry.key, True), (entry.value, False)):
            if span is None or not span.start <= offset <= span.end:
                continue
            if (
                best is None
                or len(location) > len(best.location)
                or (len(location) == len(best.location) and in_key)
            ):
                best = _At(tuple(location), span, in_key)
    return best


def _case_part(location: Location) -> tuple[int, Location] | None:
    """The case index and the rest of a location under ``case``."""
    if len(location) >= 2 and location[0] == "case" and isinstance(location[1], int):
        return location[1], location[2:]
    return None


def _without_expect_index(rest: Location) -> Location:
    """``expect, 0, saw, ...`` and ``expect, saw, ...`` alike: one table or an array."""
    if len(rest) >= 2 and rest[0] == "expect" and isinstance(rest[1], int):
        return ("expect", *rest[2:])
    return rest


def _string_at(loaded: LoadedTests, location: Location) -> str | None:
    value: object = loaded.parsed.values
    for part in location:
        if isinstance(value, list):
            if not (isinstance(part, int) and part < len(value)):
                return None
            value = value[part]
        elif isinstance(value, Mapping) and part in value:
            value = value[part]
        else:
            return None
    return value if isinstance(value, str) else None


def _node_id_location(rest: Location) -> bool:
    """Whether a case's location holds a node id: a pin's, an interrupt answer's or a
    ``saw``'s ``node``, or an entry of ``visited``."""
    rest = _without_expect_index(rest)
    match rest:
        case ("pin" | "interrupt", int(), "node"):
            return True
        case ("expect", "saw", int(), "node"):
            return True
        case ("expect", "visited", int()):
            return True
    return False


def _pinned_node(loaded: LoadedTests, case: int, rest: Location) -> str | None:
    if len(rest) >= 2 and rest[0] in ("pin", "interrupt") and isinstance(rest[1], int):
        return _string_at(loaded, ("case", case, rest[0], rest[1], "node"))
    return None


# -- hover and definition --------------------------------------------------------------


def hover(view: TestDocumentView, offset: int) -> HoverResult | None:
    at = _at(view.loaded, offset)
    workflow = view.workflow
    if at is None or workflow is None:
        return None
    if at.location == ("workflow",) and not at.in_key and workflow.workflow is not None:
        return HoverResult(
            workflow_markdown(workflow, workflow.workflow.name, view.workspace), at.span
        )
    part = _case_part(at.location)
    if part is None:
        return None
    case, rest = part
    if _node_id_location(rest) and not at.in_key:
        node = _string_at(view.loaded, at.location)
        text = node_markdown(workflow, node) if node is not None else None
        return HoverResult(text, at.span) if text else None
    when = _when_key(view.loaded, case, rest, at)
    if when is not None:
        node, key = when
        text = _when_markdown(workflow, node, key)
        return HoverResult(text, at.span) if text else None
    return None


def _when_key(loaded: LoadedTests, case: int, rest: Location, at: _At) -> tuple[str, str] | None:
    """The pinned node and the path of a ``when`` key under the cursor."""
    match rest:
        case ("pin", int(), "when", str() as key) if at.in_key:
            node = _pinned_node(loaded, case, rest)
            return (node, key) if node is not None else None
    return None


def _when_markdown(workflow: AnalysisView, node: str, key: str) -> str | None:
    """The schema of a context path at ``node``, as a path's hover shows it."""
    model = workflow.context
    try:
        path = GraphSourcePath.parse(key)
    except PathResolutionError:
        return None
    if model is None or path.root != "context" or node not in model.nodes_by_id:
        return None
    navigator = model.navigator_for_node(node)
    found = navigator.at_path(path.parts) if navigator is not None else None
    if found is None:
        return None
    return schema_markdown(found, title=format_segments(("context", *path.parts)))


def definition(view: TestDocumentView, offset: int) -> list[Target]:
    """A node id → its node's ``id`` in the workflow; the ``workflow`` value → the
    workflow document's ``name``."""
    at = _at(view.loaded, offset)
    workflow, uri = view.workflow, view.workflow_uri
    if at is None or at.in_key or workflow is None or uri is None:
        return []
    if at.location == ("workflow",):
        literal = workflow.parsed.source_map.string(("name",))
        span = literal.span if literal is not None else Span(0, 0)
        return [Target(span, uri)]
    part = _case_part(at.location)
    if part is None or not _node_id_location(part[1]):
        return []
    node = _string_at(view.loaded, at.location)
    if node is None:
        return []
    return [Target(target.span, uri) for target in node_field(workflow, node, "id")]


# -- completion ------------------------------------------------------------------------

_KEYS: dict[str, tuple[str, ...]] = {
    "": ("workflow", "case", "$schema"),
    "case": tuple(Case.model_fields),
    "pin": tuple(Pin.model_fields),
    "interrupt": ("node", "request", "answer", "outcome"),
    "expect": tuple(Expect.model_fields),
    "saw": tuple(Saw.model_fields),
    "attempts": tuple(Attempt.model_fields),
}


def complete(view: TestDocumentView, offset: int) -> list[CompletionCandidate]:
    """Node ids where a node is named, the pinned node's outcomes where an outcome is,
    its readable context paths as ``when`` keys, and the keys of the table the cursor
    is in."""
    at = _at(view.loaded, offset)
    if at is None:
        return []
    part = _case_part(at.location)
    workflow = view.workflow
    if part is not None and workflow is not None and workflow.workflow is not None:
        case, rest = part
        replace = _inner(at.span, view.loaded.parsed.text)
        if not at.in_key and _node_id_location(rest):
            return _node_candidates(workflow, rest, replace)
        if not at.in_key and (rest[-1:] == ("outcome",) or rest[-2:-1] == ("attempts",)):
            node = _pinned_node(view.loaded, case, rest)
            if node is not None:
                return _outcome_candidates(workflow, node, rest, replace)
        when = _when_key(view.loaded, case, rest, at)
        if when is not None or rest[-1:] == ("when",) or rest[-2:-1] == ("when",):
            node = _pinned_node(view.loaded, case, rest)
            if node is not None:
                return _path_candidates(
                    workflow, node, replace if at.in_key else Span(offset, offset)
                )
    return _key_candidates(at, offset)


def _inner(span: Span, text: str) -> Span:
    """A string's characters without its quotes (the span itself for anything else)."""
    if (
        span.end - span.start >= 2
        and text[span.start] in "\"'"
        and text[span.end - 1] == text[span.start]
    ):
        return Span(span.start + 1, span.end - 1)
    return span


def _node_candidates(
    workflow: AnalysisView, rest: Location, replace: Span
) -> list[CompletionCandidate]:
    model = workflow.workflow
    assert model is not None
    wanted: type | None = None
    if rest[:1] == ("pin",):
        wanted = NodeUse
    elif rest[:1] == ("interrupt",):
        wanted = InterruptNode
    return [
        CompletionCandidate(node.id, "reference", replace, node.id, detail=node.type)
        for node in model.nodes
        if wanted is None or isinstance(node, wanted)
    ]


def _outcome_candidates(
    workflow: AnalysisView, node_id: str, rest: Location, replace: Span
) -> list[CompletionCandidate]:
    model = workflow.workflow
    assert model is not None
    node = next((n for n in model.nodes if n.id == node_id), None)
    outcomes: list[str] = []
    if isinstance(node, NodeUse):
        definition = node_defs_by_name(model.node_defs).get(node.node)
        outcomes = list(definition.outcomes) if definition is not None else []
        if rest[-2:-1] == ("attempts",):
            outcomes.append(FAILED_ATTEMPT)
    elif isinstance(node, InterruptNode):
        outcomes = list(node.outcomes)
    return [
        CompletionCandidate(outcome, "enum", replace, outcome, detail=f"outcome of {node_id}")
        for outcome in outcomes
    ]


def _path_candidates(
    workflow: AnalysisView, node_id: str, replace: Span
) -> list[CompletionCandidate]:
    """The context paths ``node_id`` can read (``wfls context``'s inventory), quoted as a key."""
    from wf_core.analysis.inventory import readable_sources_for_node

    model = workflow.workflow
    if model is None or workflow.context is None:
        return []
    options = readable_sources_for_node(model, node_id, model=workflow.context)
    candidates: list[CompletionCandidate] = []
    for option in options:
        path = option.get("path")
        if not isinstance(path, str) or not path.startswith("context."):
            continue
        candidates.append(
            CompletionCandidate(
                path,
                "variable",
                replace,
                path,
                detail=option.get("type"),
                documentation=option.get("description"),
            )
        )
    return candidates


def _key_candidates(at: _At, offset: int) -> list[CompletionCandidate]:
    """The keys of the table holding the cursor: the top level's, a case's, a pin's..."""
    location = at.location if not at.in_key else at.location[:-1]
    names = [part for part in location if isinstance(part, str)]
    table = names[-1] if names else ""
    if table in ("when", "input", "output", "answer", "request", "context"):
        return []
    keys = _KEYS.get(table, _KEYS[""] if not names else ())
    replace = at.span if at.in_key else Span(offset, offset)
    return [CompletionCandidate(key, "field", replace, key) for key in keys]

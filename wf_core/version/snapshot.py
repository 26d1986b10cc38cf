"""One immutable analysis of one document version.

Everything an editor feature or the command line needs hangs off a
:class:`DocumentSnapshot`: the parsed document and its source map, the model
built from what validated, the context model, the validation report, and every
issue placed on the exact characters at fault. Parts are computed lazily and
then never change, so concurrent requests can share a snapshot freely.

Invariant: issue locations inside the snapshot's ``issues`` are *document*
locations (``nodes[3]`` is the fourth ``[[nodes]]`` table of the text, even
when an earlier node failed to validate and is missing from the model).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import cached_property, partial

from wf_core.analysis.context_scopes import ContextModel, context_model
from wf_core.base.collector import collector_paused
from wf_core.base.derived import MISSING, Derivations, Run
from wf_core.base.issues import Issue, Related, Severity
from wf_core.base.locations import Location, NodeRef, format_location
from wf_core.base.records import record
from wf_core.base.spans import LineIndex, Span
from wf_core.documents import DocumentParser, ParsedDocument, Syntax, parse_document
from wf_core.documents.source_map import ELEMENT_LISTS, ElementKey, key_at, plain_span
from wf_core.language.path_scan import scan_path
from wf_core.models.loading import LoadResult, load_workflow
from wf_core.models.steps import AnyStep, NodeUse
from wf_core.models.workflow import Workflow, first_index_by_id
from wf_core.semantic.index import SemanticIndex
from wf_core.validation.core import validate_workflow
from wf_core.validation.document_checks import document_checks
from wf_core.validation.report import ValidationReport

NO_CONTEXT_SCHEMA = "no context schema for this program location"
_SEVERITY_ORDER = {
    Severity.ERROR: 0,
    Severity.WARNING: 1,
    Severity.INFORMATION: 2,
    Severity.HINT: 3,
}


def _same_finding(placed: Issue, issue: Issue) -> bool:
    """Whether a placement made for ``placed`` is ``issue``'s: the same finding, or an
    equal one with the same extras (an issue's equality leaves out its ``data``, where a
    "did you mean" lives)."""
    return placed is issue or (placed == issue and placed.data == issue.data)


def _names_node_by_id(location: Location) -> bool:
    """A graph-level location that names its node by id (``nodes[<id>]``), as lda-wf
    prints it, rather than by index."""
    return len(location) >= 2 and isinstance(location[1], NodeRef)


@record
class PlacedIssue:
    """An issue with its printed location and its text range resolved.

    ``location`` is the model location as printed: list indexes are the
    document's (``nodes[3]`` is the fourth ``[[nodes]]`` table of the text,
    even when an earlier node failed to load), graph-level findings keep the
    node id (``nodes[<id>]``), as lda-wf prints them.
    """

    issue: Issue
    location: Location | None
    span: Span
    related: tuple[Related, ...] = ()

    @property
    def model_path(self) -> str | None:
        return format_location(self.location) if self.location is not None else None

    @property
    def code(self) -> str:
        return self.issue.code

    @property
    def help(self) -> str | None:
        """Advice shown under the message: a given hint, or "did you mean" a close name."""
        given = self.issue.data.get("help")
        if isinstance(given, str):
            return given
        suggestion = self.issue.data.get("suggestion")
        return f"did you mean {suggestion!r}?" if isinstance(suggestion, str) else None

    @property
    def message(self) -> str:
        return self.issue.message

    @property
    def severity(self) -> Severity:
        return self.issue.severity


_PLAIN, _IN_DOCUMENT, _REPORTED = "plain", "in document", "reported"


@record
class _Finding:
    """A finding before it is placed. ``kind``: placed by its own range (``_PLAIN``: a
    syntax error), at a document location (``_IN_DOCUMENT``: the loader's, the document
    checks'), or at a model location mapped to ``where`` (``_REPORTED``: validation's).
    ``at``: the document location its range is found at (its ``span_at``'s, if any)."""

    issue: Issue
    where: Location | None
    at: Location | None
    kind: str


def placed_order(placed: PlacedIssue) -> tuple[int, int, int]:
    """Where a placed finding goes among a document's: by position, then severity."""
    return placed.span.start, placed.span.end, _SEVERITY_ORDER[placed.severity]


class DocumentSnapshot:
    """The analysis of one version of one workflow document."""

    def __init__(
        self,
        parsed: ParsedDocument,
        *,
        uri: str | None = None,
        version: int | None = None,
        extra_issues: tuple[Issue, ...] = (),
        derived: Derivations | None = None,
        lines: LineIndex | None = None,
    ):
        self.parsed = parsed
        self.uri = uri
        self.version = version
        self.extra_issues = extra_issues
        # Shared with the document's other versions: only touched while ``load`` is
        # first computed, which the owner of the cache serialises.
        self._derived = derived
        # The text's line index when the caller has it (the store derives it edit by edit).
        if lines is not None:
            vars(self)["lines"] = lines  # where cached_property keeps it
        # The semantic index, made once by whichever thread asks first.
        self._index: SemanticIndex | None = None
        self._index_lock = threading.Lock()

    @property
    def text(self) -> str:
        return self.parsed.text

    @property
    def syntax(self) -> Syntax:
        return self.parsed.syntax

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.parsed.text)

    @cached_property
    def load(self) -> LoadResult:
        values = self.parsed.values if isinstance(self.parsed.values, dict) else {}
        parsed = self.parsed
        if not values and parsed.issues:
            # Nothing parsed (TOML text in a .wf.json file, a first key being typed): the
            # syntax errors are the mistakes; a workflow missing every key is not another.
            return LoadResult(workflow=None, issues=())
        written = parsed.source_map.keys_without_value() if parsed.issues else frozenset()
        return load_workflow(
            values, derived=self._derived, keys=parsed.source_map.element_keys, written=written
        )

    @property
    def workflow(self) -> Workflow | None:
        return self.load.workflow

    @cached_property
    def context(self) -> ContextModel | None:
        workflow = self.workflow
        if workflow is None:
            return None
        if self._derived is None:
            return ContextModel(workflow)
        edges = self._model_keys("edges", self.load.edge_positions)
        return context_model(workflow, self._derived, self._node_keys, edges)

    @property
    def index(self) -> SemanticIndex:
        """Every name and path of this version, each part made when first asked for
        (``wf_core.semantic.index``)."""
        index = self._index
        if index is None:
            with self._index_lock:
                index = self._index
                if index is None:
                    index = self._index = self._make_index()
        return index

    def _make_index(self) -> SemanticIndex:
        from wf_core.semantic.build import PathResolver, node_mappings, node_names
        from wf_core.semantic.parts import SnapshotParts, node_shapes

        values = self.parsed.values
        source_map = self.parsed.source_map
        # A version analysed on its own (no document's derivations) keeps its parts too.
        derived = self._derived if self._derived is not None else Derivations()
        nodes = node_mappings(values)
        shapes = node_shapes(nodes, source_map, derived)
        names = derived.latest("index:names", shapes, partial(node_names, shapes))
        resolver = PathResolver(values, self.context, nodes, names)
        return SemanticIndex(
            SnapshotParts(
                values, source_map, self.context, derived, resolver, self.parsed.text, shapes
            )
        )

    def with_version(self, version: int | None) -> DocumentSnapshot:
        """The same analysis under another version number: a version whose text equals
        an analysed one's (an undo, a save that changed nothing) is not analysed again."""
        _ = self.index  # made first, so that both share it (its parts are made lazily)
        twin = copy.copy(self)  # shares every part computed so far; none of them holds the version
        twin.version = version
        return twin

    @cached_property
    def report(self) -> ValidationReport:
        if self.workflow is None or self.context is None:
            return ValidationReport()
        return validate_workflow(
            self.workflow,
            context=self.context,
            derived=self._derived,
            node_keys=self._node_keys,
        )

    @cached_property
    def _node_keys(self) -> Sequence[ElementKey | None]:
        """The content key of each of the model's nodes (the document's node it was
        loaded from), for the values derived from them."""
        return self._model_keys("nodes", self.load.node_positions)

    def _model_keys(self, kind: str, positions: Sequence[int]) -> Sequence[ElementKey | None]:
        """The content keys of the model's list ``kind``, whose elements were loaded from
        the document's at ``positions``."""
        if self._derived is None:
            return ()
        keys = self.parsed.source_map.element_keys(kind)
        if kind in self.load.complete:
            return keys
        return [key_at(keys, p) for p in positions]

    @cached_property
    def document_checks(self) -> tuple[Issue, ...]:
        """What the document's values alone say (deprecated forms, unknown keys, schema
        keywords), in document locations: independent of the validation."""
        values = self.parsed.values if isinstance(self.parsed.values, dict) else {}
        return document_checks(values, self._derived, self.parsed.source_map.element_keys)

    # -- locations --------------------------------------------------------------

    def document_location(self, location: Location) -> Location:
        """Map a model location (model list indexes, node references) to a document one."""
        if len(location) >= 2 and location[0] == "nodes" and isinstance(location[1], NodeRef):
            doc_index = self.node_document_index(location[1].id)
            return ("nodes",) if doc_index is None else ("nodes", doc_index, *location[2:])
        return self.load.document_location(location)

    def _about_left_out_node(self, issue: Issue) -> bool:
        """An edge or ``start`` naming a node that failed to load is not a second mistake."""
        left_out = self.load.invalid_node_ids
        workflow = self.workflow
        location = issue.location
        if not left_out or workflow is None or location is None:
            return False
        if issue.code == "unknown_start":
            return workflow.start in left_out
        if issue.code == "unreachable_node" and isinstance(location[-1], NodeRef):
            return location[-1].id in self._reachable_through_left_out_nodes
        if issue.code == "invalid_context_path" and issue.message.endswith(NO_CONTEXT_SCHEMA):
            # A node cut off by a broken one has no context schema only because of it.
            if location[:1] == ("nodes",) and isinstance(location[1], int):
                node_id = workflow.nodes[location[1]].id
                regions = self.context.regions if self.context is not None else None
                return (
                    regions is not None
                    and node_id not in regions.conflicted
                    and node_id in self._reachable_through_left_out_nodes
                )
            return False
        if issue.code not in ("unknown_edge_source", "unknown_edge_destination"):
            return False
        if (
            len(location) == 3
            and isinstance(location[1], int)
            and location[1] < len(workflow.edges)
        ):
            edge = workflow.edges[location[1]]
            return (edge.from_ if location[2] == "from" else edge.to) in left_out
        return False

    def _about_broken_node_def(self, issue: Issue) -> Issue:
        """A node naming a node def that failed to load: a consequence of that def's error."""
        workflow = self.workflow
        location = issue.location or ()
        if workflow is None or len(location) < 2 or not isinstance(location[1], int):
            return issue
        node = workflow.nodes[location[1]]
        name = node.node if isinstance(node, NodeUse) else None  # (its node def is unknown)
        if name not in self.load.invalid_node_def_names:
            return issue
        defs = self.parsed.values.get("node_defs") if isinstance(self.parsed.values, dict) else None
        index = next(
            (
                i
                for i, d in enumerate(defs if isinstance(defs, list) else ())
                if isinstance(d, dict) and d.get("name") == name
            ),
            None,
        )
        if index is None:
            return issue
        return replace(
            issue,
            severity=Severity.INFORMATION,
            related=(Related(("node_defs", index), f"node def {name!r} failed to load"),),
        )

    @cached_property
    def _reachable_through_left_out_nodes(self) -> frozenset[str]:
        """Nodes reached from ``start`` when nodes that failed to load still pass edges on.

        A node cut off only because a node before it is being edited is not
        unreachable in the author's workflow; only the broken node is reported.
        """
        workflow = self.workflow
        if workflow is None:
            return frozenset()
        successors: dict[str, list[str]] = {}
        for edge in workflow.edges:
            successors.setdefault(edge.from_, []).append(edge.to)
        seen = {workflow.start}
        stack = [workflow.start]
        while stack:
            for target in successors.get(stack.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        return frozenset(seen)

    def about_stand_in(self, location: Location) -> bool:
        """True for findings about a stand-in value the loader put in the author's place."""
        stand_ins = self.load.stand_ins
        return bool(stand_ins) and any(location[: len(s)] == s for s in stand_ins)

    def node_document_index(self, node_id: str) -> int | None:
        """Document index of the node ``node_id`` names (its first node)."""
        model_index = self._model_index_by_id.get(node_id)
        return None if model_index is None else self.load.node_positions[model_index]

    @cached_property
    def _model_index_by_id(self) -> dict[str, int]:
        """Each node id's index among the model's nodes: made once, as every finding that
        names its node by id asks (a graph-level finding on each of 16,000 nodes made it
        16,000 times, 50 s)."""
        workflow = self.workflow
        return {} if workflow is None else first_index_by_id(node.id for node in workflow.nodes)

    def span_of(self, location: Location, *, segment: int | None = None) -> Span:
        """The narrowest text range for a document location (and path segment)."""
        source_map = self.parsed.source_map
        if segment is not None:
            span = self._segment_span(location, segment)
            if span is not None:
                return span
        if len(location) == 2 and location[0] == "nodes" and isinstance(location[1], int):
            entry = source_map.get((*location, "id"))
            if entry is not None:
                return entry.value
        probe = location
        while probe:
            entry = source_map.get(probe)
            if entry is not None:
                if entry.key is not None and probe != location:
                    return entry.key
                return entry.value
            probe = probe[:-1]
        return Span(0, 0)

    def _segment_span(self, location: Location, segment: int) -> Span | None:
        source_map = self.parsed.source_map
        doc_span: Callable[[int, int], Span]
        # A string without escapes is read straight from its chunk, without making its
        # literal: a large check places 11,200 findings inside path strings.
        plain = source_map.plain_string(location)
        if plain is not None:
            value, content = plain
            doc_span = partial(plain_span, content, len(value))
        elif (literal := source_map.string(location)) is not None:
            value, doc_span = literal.value, literal.doc_span
        else:
            if segment == 0:
                entry = source_map.get((*location, "root"))
            else:
                entry = source_map.get((*location, "parts", segment - 1))
            return entry.value if entry is not None else None
        scan = scan_path(value)
        if not 0 <= segment < len(scan.segments):
            return None
        part = scan.segments[segment]
        return doc_span(part.start, part.end)

    def printed_location(self, location: Location, where: Location | None = None) -> Location:
        """The location as printed: document list indexes, node references kept. ``where``
        is ``document_location(location)`` when the caller has it already: for a location
        that names no node by id, that is the printed one."""
        if _names_node_by_id(location):
            return location
        return where if where is not None else self.load.document_location(location)

    def _place_reusing(self, issue: Issue, document_location: Location, run: Run) -> PlacedIssue:
        """``place``, reusing the last version's placement of an equal finding in the same
        statement: a finding placed inside a statement sits at the same offset from the
        statement's start in every version holding that statement, so placing it again
        is an addition, and nothing at all where nothing before the statement changed
        length (the very same :class:`PlacedIssue` is handed out). Only findings placed
        from their own location alone are kept: no range given, no other location, no
        related places, no node named by id (printed as such, not at its location)."""
        location = issue.location
        if (
            issue.span is not None
            or issue.span_at is not None
            or issue.related
            or location is None
            or _names_node_by_id(location)
        ):
            return self.place(issue, document_location)
        found = self.parsed.source_map.chunk_at(document_location)
        if found is None:
            return self.place(issue, document_location)
        chunk, base = found
        key = (document_location, issue.code, issue.message, issue.segment, chunk.text)
        entry = run.found(key)
        if entry is not MISSING and not _same_finding(entry[1].issue, issue):
            entry = MISSING  # the same words, but another finding (its help, its severity)
        if entry is MISSING:
            placed = self.place(issue, document_location)
            span = placed.span
            if not (base <= span.start and span.end <= base + len(chunk.text)):
                return placed  # a range outside its statement moves with other text
            entry = (base, placed)
        elif entry[0] != base:
            shift, span = base - entry[0], entry[1].span
            entry = (base, replace(entry[1], span=Span(span.start + shift, span.end + shift)))
        run.keep(key, entry)
        placed_issue: PlacedIssue = entry[1]
        return placed_issue

    def place(self, issue: Issue, where: Location | None = None) -> PlacedIssue:
        """Resolve an analysis issue (model indexes) to its text range and printed location;
        ``where`` is the issue's location as ``document_location`` maps it, when the caller
        has it already (one of a large check's 11,200 findings is placed per call)."""
        location = issue.location
        if location is None:
            return PlacedIssue(issue, None, issue.span or Span(0, 0), issue.related)
        if where is None:
            where = self.document_location(location)
        span = issue.span or self.span_of(
            where if issue.span_at is None else self.document_location(issue.span_at),
            segment=issue.segment,
        )
        related = (
            tuple(
                replace(
                    r,
                    location=self.printed_location(r.location) if r.location is not None else None,
                    span=r.span
                    if r.span is not None or r.location is None
                    else self.span_of(self.document_location(r.location)),
                )
                for r in issue.related
            )
            if issue.related
            else ()
        )
        return PlacedIssue(issue, self.printed_location(location, where), span, related)

    @property
    def modelled(self) -> bool:
        """Whether ``context`` (and so ``load``) is made already."""
        return "context" in vars(self)

    @property
    def diagnosed(self) -> bool:
        """Whether ``issues`` are made already (the whole analysis is done)."""
        return "issues" in vars(self)

    @cached_property
    def issues(self) -> tuple[PlacedIssue, ...]:
        """Every finding of this version, ordered by position then severity: the whole
        analysis, which allocates what lives as long as the snapshot (``collector``)."""
        with collector_paused():
            run = self._derived.begin("placing") if self._derived is not None else None
            placed = [
                placed
                for finding in self._findings()
                if (placed := self._placed(finding, run)) is not None
            ]
            placed.sort(key=placed_order)
            return tuple(placed)

    @property
    def reported(self) -> bool:
        """Whether every finding is made, placed or not (``report`` and
        ``document_checks``): what ``issues_touching`` reads first."""
        return self.diagnosed or ("report" in vars(self) and "document_checks" in vars(self))

    def issues_touching(self, span: Span) -> tuple[PlacedIssue, ...]:
        """The findings of ``issues`` whose range touches ``span`` (either end included), in
        their order there. Before ``issues`` is made, a span inside one element of a
        clean document's top-level lists (a cursor in a node) places only the findings
        that can land there: a finding is placed inside the element its location lies
        under, and elements do not overlap, so one located under another element is
        left unplaced (at 5,000 nodes with 4,000 findings, placing them all is a third
        of what a cursor's code actions wait for)."""
        element = None if self.diagnosed else self._element_around(span)
        if element is None:
            return tuple(p for p in self.issues if p.span.touches(span))
        placed = [
            placed
            for finding in self._findings()
            if self._may_land_in(finding, element)
            and (placed := self._placed(finding, None)) is not None
        ]
        placed.sort(key=placed_order)
        return tuple(p for p in placed if p.span.touches(span))

    def issues_with_code(self, code: str) -> Iterator[PlacedIssue]:
        """The findings of ``issues`` with ``code``; before ``issues`` is made, placed one at
        a time as they are asked for, in the order they are made (not by position): what
        asks whether there is one places no other."""
        if self.diagnosed:
            yield from (p for p in self.issues if p.code == code)
            return
        for finding in self._findings():
            if finding.issue.code == code and (placed := self._placed(finding, None)) is not None:
                yield placed

    def _element_around(self, span: Span) -> Location | None:
        """The element (``("nodes", 3)``) whose range holds ``span`` strictly inside, in a
        document without syntax errors; None for any other span."""
        if self.parsed.issues:
            return None
        source_map = self.parsed.source_map
        located = source_map.locate(span.start)
        location = located.location if located is not None else ()
        if len(location) < 2 or location[0] not in ELEMENT_LISTS:
            return None
        element = location[:2]
        entry = source_map.get(element)
        if entry is None or entry.key is not None or type(element[1]) is not int:
            return None
        if not (entry.value.start < span.start and span.end < entry.value.end):
            return None
        return element

    def _may_land_in(self, finding: _Finding, element: Location) -> bool:
        """Whether ``finding`` may be placed inside ``element``: not when the location
        its range comes from lies under another element that has a range."""
        if finding.issue.span is not None or finding.at is None:
            return True
        under = finding.at[:2]
        return (
            under == element
            or len(under) < 2
            or under[0] not in ELEMENT_LISTS
            or type(under[1]) is not int
            or under not in self.parsed.source_map
        )

    def _findings(self) -> Iterator[_Finding]:
        """Every finding of this version before it is placed, in the order ``issues``
        places them (its sort is stable): what ``issues`` and ``issues_touching`` read."""
        # The validation first: a large one makes the document checks meanwhile.
        report = self.report
        for issue in (*self.extra_issues, *self.parsed.issues):
            yield _Finding(issue, None, None, _PLAIN)
        for issue in (*self.load.issues, *self.document_checks):
            # Loader and deprecation findings are already in document locations.
            yield _Finding(issue, issue.location, issue.location, _IN_DOCUMENT)
        for issue in report.issues:
            if self._about_left_out_node(issue):
                continue
            if issue.code == "unknown_node_def":
                issue = self._about_broken_node_def(issue)
            if issue.code == "unknown_start" and "start" in self.load.substituted:
                issue = replace(
                    issue,
                    severity=Severity.INFORMATION,
                    related=(Related((), "the workflow's 'start' is missing or invalid"),),
                )
            where = None if issue.location is None else self.document_location(issue.location)
            if where is not None and self.about_stand_in(where):
                continue
            at = where if issue.span_at is None else self.document_location(issue.span_at)
            yield _Finding(issue, where, at, _REPORTED)

    def _placed(self, finding: _Finding, run: Run | None) -> PlacedIssue | None:
        """``finding`` placed; None for one that is not shown (a finding on an
        unterminated string: the syntax error says it all). ``run``: the placements of
        the last version, found again (``_place_reusing``)."""
        issue, where = finding.issue, finding.where
        if finding.kind == _PLAIN:
            return PlacedIssue(issue, None, issue.span or Span(0, 0), issue.related)
        if finding.kind == _IN_DOCUMENT:
            location = where or ()
            literal = self.parsed.source_map.string(location) if location else None
            if literal is not None and not literal.closed:
                return None
            span = self.span_of(location, segment=issue.segment) if location else Span(0, 0)
            if issue.on_key and (entry := self.parsed.source_map.get(location)) is not None:
                span = entry.key or span
            return PlacedIssue(issue, issue.location, issue.span or span, issue.related)
        if run is None or where is None:
            return self.place(issue, where)
        return self._place_reusing(issue, where, run)

    def node_at_document_index(self, index: int) -> AnyStep | None:
        """The model node built from the document's ``nodes[index]``, if it validated."""
        workflow = self.workflow
        if workflow is None:
            return None
        try:
            model_index = self.load.node_positions.index(index)
        except ValueError:
            return None
        return workflow.nodes[model_index]


def analyze_text(
    text: str,
    syntax: Syntax,
    *,
    parser: DocumentParser | None = None,
    uri: str | None = None,
    version: int | None = None,
    extra_issues: tuple[Issue, ...] = (),
) -> DocumentSnapshot:
    parsed = parser.parse(text) if parser is not None else parse_document(text, syntax)
    return DocumentSnapshot(parsed, uri=uri, version=version, extra_issues=extra_issues)

"""Completion: path members where the path is read, names, enum values, keys.

Path members come from the same navigators validation walks, so a completion
is never rejected by a diagnostic (and a path validation accepts is always
offered). Inserted segments go through the canonical formatter and are then
written for the string literal that holds them. Keys come from the one table
of document keys (``wf_core.models.keys``) that also closes the published
JSON Schema and reports unknown keys.

In a node that no edge reaches yet (how a new node is usually written), the
context it *would* have is offered: the standard fields and every loop of the
workflow, each loop marked with where it is active.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping

from wf_core.base.locations import Location
from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.base.suggest import RUN_REACH
from wf_core.documents.source_map import Located, StringLiteral
from wf_core.documents.writing import inside_literal, write_key
from wf_core.language.context_contracts import FOREACH_CONTEXT_KEY, STANDARD_CONTEXT_NAMES
from wf_core.language.path_scan import CursorScan, scan_at
from wf_core.language.paths import format_segment
from wf_core.language.tokens import END
from wf_core.models.keys import (
    CONDITION_MODELS,
    DEPRECATED_KEYS,
    STEP_MODELS,
    binding_keys,
    model_keys,
    node_keys,
    top_level_keys,
    workflow_output_keys,
)
from wf_core.models.schema_nav import SchemaView
from wf_core.models.schemas import NodeDef
from wf_core.models.steps import NODE_TABLE, outcomes_as_written
from wf_core.models.workflow import Edge
from wf_core.semantic.cursor import Cursor, StringCursor, classify, literal_interior
from wf_core.semantic.occurrences import PathOccurrence, PathRole
from wf_core.version.view import AnalysisView, WorkspaceView
from wfls.features.common import document_nodes, node_values, read_navigator, value_at
from wfls.features.hover import ROOTS
from wfls.features.schema_text import schema_markdown
from wfls.features.types import CompletionCandidate

CONDITION_OPS = tuple(CONDITION_MODELS)
ENUMS: dict[str, tuple[str, ...]] = {
    "mode": ("serial", "concurrent"),
    "action": ("fail", "skip", "collect"),
    "interrupt": ("quiesce",),
}
JSON_SCHEMA_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
JSON_SCHEMA_KEYWORDS = (
    "type",
    "properties",
    "required",
    "items",
    "additionalProperties",
    "description",
    "title",
    "enum",
    "const",
    "default",
    "$ref",
    "$defs",
    "anyOf",
    "allOf",
    "oneOf",
    "not",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "examples",
)
_EXPRESSION_KEYS = ("kind", "path", "value", "items", "fields")
_LOCAL_ROLES = (PathRole.LOCAL_TARGET, PathRole.LOCAL_SOURCE, PathRole.OUTPUT_TARGET)


def complete(
    view: AnalysisView, offset: int, workspace: WorkspaceView | None = None
) -> list[CompletionCandidate]:
    cursor = classify(view, offset)
    if cursor.path is not None:
        return path_completions(view, cursor.path, offset, cursor, workspace)
    if cursor.string is not None:
        if cursor.located is not None and cursor.located.in_key:
            return key_completions(view, cursor, offset)
        return value_completions(view, cursor.string, workspace)
    return key_completions(view, cursor, offset)


# -- paths --------------------------------------------------------------------------


def path_completions(
    view: AnalysisView,
    path: PathOccurrence,
    offset: int,
    cursor: Cursor,
    workspace: WorkspaceView | None = None,
) -> list[CompletionCandidate]:
    """The members offered where the cursor is typing a segment, and, when bare segments
    precede it, the dotted names they start where the first of them stands:
    ``context.foreach.orders.v|`` is typing the loop id ``orders.v2`` unquoted, read as
    the segments ``orders`` and ``v``, and accepting ``"orders.v2"`` replaces both."""
    literal = path.literal
    decoded = cursor.string.offset if cursor.string is not None else len(literal.value)
    at = scan_at(literal.value, decoded)
    out = _completions_at(view, path, at, _typing(view.text, literal, at), None, workspace)
    if at.partial.quote is not None:
        return out  # a quoted segment is one name of its own
    for start in range(len(at.before) - 1, max(-1, len(at.before) - 1 - RUN_REACH), -1):
        if at.before[start].quote is not None:
            break
        typed = ".".join([*(s.value for s in at.before[start:]), at.partial.value])
        replace = _typing(view.text, literal, at, start)
        out += _completions_at(view, path, at, replace, (start, typed), workspace)
    return out


def _completions_at(
    view: AnalysisView,
    path: PathOccurrence,
    at: CursorScan,
    replace: _Typing,
    dotted: tuple[int, str] | None,
    workspace: WorkspaceView | None,
) -> list[CompletionCandidate]:
    """The members after the path's first segments: all of ``at.before`` (``dotted``
    None), or those before ``at.before[k]`` for ``dotted = (k, typed)``, offering only the
    names that start with ``typed``, the bare segments from there to the cursor."""
    kept = at.before if dotted is None else at.before[: dotted[0]]
    starting = None if dotted is None else dotted[1]
    before = [segment.value for segment in kept]
    style = path.literal.style
    if path.role in _LOCAL_ROLES:
        navigator = read_navigator(view, path, "", workspace)
        members = navigator.at_path(before) if navigator is not None else None
        return _members(members, (), replace, style, context_top=False, starting=starting)
    if not before:
        if starting is not None:
            return []  # a root is no dotted name
        roots = ("state",) if path.role == PathRole.STATE_TARGET else tuple(ROOTS)
        return [
            _candidate(root, "module", replace, style, detail="root", doc=ROOTS[root])
            for root in roots
        ]
    root, rest = before[0], tuple(before[1:])
    if path.role == PathRole.STATE_TARGET and root != "state":
        return []
    navigator = read_navigator(view, path, root)
    if root == "context" and navigator is None and path.role.reads_graph:
        return _unwired_context(view, path, rest, replace, style, starting)
    if navigator is None:
        return []
    return _members(
        navigator.at_path(rest),
        (root, *rest),
        replace,
        style,
        context_top=root == "context" and not rest,
        foreach_level=root == "context" and rest == (FOREACH_CONTEXT_KEY,),
        starting=starting,
    )


@record
class _Typing:
    """The path segment a completion replaces, as the author has written it so far.

    ``replace`` covers that segment, quotes included. ``lead`` is the quote the author
    opened it with, as the document spells it (``"``, ``\\"`` inside a basic or JSON
    string, ``'``), empty when there is none. ``spelled`` pairs the segment joined by
    dots with each further run of bare segments behind it (``orders.v2``,
    ``orders.v2.item``, ...) with the range up to that run's end: ``orders.v2`` read
    unquoted is two segments, and accepting ``"orders.v2"`` replaces both.
    """

    replace: Span
    lead: str = ""
    spelled: tuple[tuple[str, Span], ...] = ()

    def span_for(self, name: str) -> Span:
        """What accepting ``name`` replaces: the typed segment and the segments behind it
        that, joined with it by dots, spell ``name`` or its start (``orders.v`` while the
        author types ``orders.v2``)."""
        span = self.replace
        for text, reach in self.spelled:
            if not name.startswith(text):
                break
            span = reach
        return span

    def filter_for(self, name: str, insert: str) -> str:
        """Text that starts the way the typed text does, for clients that filter by it:
        the bare name after no quote (``o`` keeps ``"orders.v2"``), else the written
        form (``\\"o`` keeps ``\\"orders.v2\\"``), in the author's quotes when the
        inserted text uses others (``'o`` keeps ``'orders.v2'``)."""
        if not self.lead:
            return name
        return insert if insert.startswith(self.lead) else f"{self.lead}{name}{self.lead}"


def _typing(text: str, literal: StringLiteral, at: CursorScan, start: int | None = None) -> _Typing:
    """The segment at the cursor, or, with ``start``, the bare segments from
    ``at.before[start]`` to the cursor read as the start of one dotted name."""
    partial = at.partial
    begin = partial.start if start is None else at.before[start].start
    replace = literal.doc_span(begin, partial.end)
    lead = ""
    if partial.quote is not None:
        lead = literal.doc_span(partial.start, partial.start + 1).slice(text)
    spelled: list[tuple[str, Span]] = []
    if at.replaced is not None:
        spelling = at.before[start:] if start is not None else ()
        joined = ".".join([*(segment.value for segment in spelling), at.replaced.value])
        for segment in at.after:
            if segment.quote is not None:
                break
            joined = f"{joined}.{segment.value}"
            spelled.append((joined, literal.doc_span(begin, segment.end)))
    return _Typing(replace, lead, tuple(spelled))


def _unwired_context(
    view: AnalysisView,
    path: PathOccurrence,
    rest: tuple[str, ...],
    replace: _Typing,
    style: str,
    starting: str | None = None,
) -> list[CompletionCandidate]:
    """A node with no context yet: every loop of the workflow, marked with where it is
    active, so the author can write the read before wiring the node."""
    model = view.context
    if model is None:
        return []
    loops = tuple(n for n, node in model.nodes_by_id.items() if node.type == "foreach")
    navigator = model.navigator_for_stack(loops)
    candidates = _members(
        navigator.at_path(rest),
        ("context", *rest),
        replace,
        style,
        context_top=not rest,
        foreach_level=rest == (FOREACH_CONTEXT_KEY,),
        starting=starting,
    )
    if rest != (FOREACH_CONTEXT_KEY,):
        return candidates
    where = path.node_id or "this node"
    marked = []
    for candidate in candidates:
        owner = _unformat(candidate.label)
        note = (
            f"active only in the body of foreach `{owner}`: wire `{where}` into that body "
            "(an edge from its `loop` outcome) to read it"
        )
        marked.append(
            dataclasses.replace(
                candidate,
                detail=f"not active here yet ({candidate.detail})",
                documentation=f"{note}\n\n{candidate.documentation or ''}",
            )
        )
    return marked


def _unformat(label: str) -> str:
    return label[1:-1] if label.startswith('"') and label.endswith('"') else label


def _members(
    members: SchemaView | None,
    prefix: tuple[str, ...],
    replace: _Typing,
    style: str,
    *,
    context_top: bool,
    foreach_level: bool = False,
    starting: str | None = None,
) -> list[CompletionCandidate]:
    """The members declared in ``members`` (those whose name starts with ``starting``,
    when given)."""
    if members is None:
        return []
    out = []
    for name in members.declared_names():
        if starting is not None and not name.startswith(starting):
            continue
        child = members.child(name)
        if child is None:
            continue
        convenience = context_top and name not in STANDARD_CONTEXT_NAMES and name != "foreach"
        title = ".".join(format_segment(s) for s in (*prefix, name))
        doc = schema_markdown(child, title=title)
        if convenience:
            doc = "Convenience key: prefer the structured `context.foreach.<id>` path.\n\n" + doc
        out.append(
            _candidate(
                name,
                "module" if foreach_level else ("variable" if convenience else "field"),
                replace,
                style,
                detail=child.type_summary(),
                doc=doc,
                sort_group=1 if convenience else 0,
                deprecated=convenience,
            )
        )
    return out


def _candidate(
    name: str,
    kind: str,
    replace: Span | _Typing,
    style: str | None,
    *,
    detail: str | None = None,
    doc: str | None = None,
    sort_group: int = 0,
    deprecated: bool = False,
    raw: bool = False,
) -> CompletionCandidate:
    """``replace``: a path segment being typed, or the span of any other value."""
    text = name if raw else format_segment(name)
    insert = inside_literal(text, style)
    if insert is None:  # a literal string cannot hold it: offer it unquoted text instead
        insert = text
    if isinstance(replace, _Typing):
        span, filter_text = replace.span_for(name), replace.filter_for(name, insert)
    else:
        span, filter_text = replace, insert
    return CompletionCandidate(
        label=text,
        kind=kind,
        replace=span,
        insert_text=insert,
        detail=detail,
        documentation=doc,
        sort_text=f"{sort_group}_{name}",
        filter_text=filter_text,
        deprecated=deprecated,
    )


# -- values -------------------------------------------------------------------------


def value_completions(
    view: AnalysisView, string: StringCursor, workspace: WorkspaceView | None = None
) -> list[CompletionCandidate]:
    location = string.location
    literal = string.literal
    replace = literal_interior(literal)
    style = literal.style
    values = view.parsed.values if isinstance(view.parsed.values, Mapping) else {}

    def plain(names: Iterable[tuple[str, str | None]], kind: str) -> list[CompletionCandidate]:
        return [_candidate(n, kind, replace, style, detail=d, raw=True) for n, d in names if n]

    last = location[-1] if location else None
    head = location[:1]
    if location == ("start",) or (head == ("edges",) and last in ("from", "to")):
        names: list[tuple[str, str | None]] = [
            (str(n.get("id")), str(n.get("type", ""))) for n in document_nodes(view) if n.get("id")
        ]
        if last == "to":
            names.append((END, "ends the workflow with outcome ok"))
        return plain(names, "reference")
    if head == ("edges",) and last == "outcome" and isinstance(location[1], int):
        return plain(((o, None) for o in _edge_outcomes(view, location[1])), "enum")
    if head == ("nodes",) and len(location) == 3 and last == "type":
        return plain(((t, spec.summary[:60]) for t, spec in NODE_TABLE.items()), "keyword")
    if head == ("nodes",) and len(location) == 3 and last == "node":
        defs = values.get("node_defs")
        found = [
            (d["name"], "node def")
            for d in (defs if isinstance(defs, list) else ())
            if isinstance(d, Mapping) and isinstance(d.get("name"), str)
        ]
        return plain(found, "reference")
    if head == ("nodes",) and len(location) >= 3 and location[2] == "workflow":
        workflows = workspace.names() if workspace is not None else []
        own = values.get("name")
        return plain(((n, "workflow") for n in workflows if n != own), "module")
    if head == ("nodes",) and "check" in location and last == "op":
        return plain(((o, None) for o in CONDITION_OPS), "keyword")
    if head == ("nodes",) and len(location) == 3 and last == "outcome":
        outcomes = values.get("outcomes", ["ok"])
        listed = outcomes if isinstance(outcomes, list) else ()
        return plain(((o, None) for o in listed if isinstance(o, str)), "enum")
    if head == ("nodes",) and isinstance(last, str) and last in ENUMS:
        return plain(((v, None) for v in ENUMS[last]), "enum")
    if _in_schema(view, location[:-1]) and last == "type":
        return plain(((t, None) for t in JSON_SCHEMA_TYPES), "enum")
    return []


def _edge_outcomes(view: AnalysisView, edge_index: int) -> list[str]:
    """The outcomes the edge's ``from`` node declares (the node-type table's rule, as
    validation and the semantic index read it), sorted as the client shows them."""
    values = view.parsed.values if isinstance(view.parsed.values, Mapping) else {}
    edges = values.get("edges")
    if not isinstance(edges, list) or not (0 <= edge_index < len(edges)):
        return []
    edge = edges[edge_index]
    source = edge.get("from") if isinstance(edge, Mapping) else None
    index = view.index.resolver.node_ids.get(source) if isinstance(source, str) else None
    if index is None:
        return []
    declared = outcomes_as_written(node_values(view, index), values.get("node_defs"))
    return sorted(declared.outcomes) if declared is not None else []


# -- keys ---------------------------------------------------------------------------


def key_completions(view: AnalysisView, cursor: Cursor, offset: int) -> list[CompletionCandidate]:
    """Keys allowed in the table holding the cursor: while a key is being typed, and on
    an empty line or in empty braces, where nothing has been typed yet."""
    located = cursor.located
    if located is not None and located.in_key:
        parent = tuple(located.location[:-1])
        replace = located.span
        typed: Location | None = tuple(located.location)
    else:
        found = _enclosing_table(view, offset, located)
        if found is None:
            return []
        parent, replace, typed = found, Span(offset, offset), None
    keys = allowed_keys(view, parent)
    present = {loc[-1] for loc in view.parsed.source_map.children(parent) if tuple(loc) != typed}
    quote = view.syntax == "json" and not (located is not None and located.in_key)
    out = []
    for key, deprecated in keys:
        if key in present:
            continue
        if view.syntax == "json":
            insert = write_key(key, "json") + ": " if quote else inside_literal(key, "json") or key
        else:
            # A key typed on a blank line comes with its ``=``; one being edited does not.
            insert = write_key(key, "toml") + ("" if typed is not None else " = ")
        out.append(
            CompletionCandidate(
                label=key,
                kind="property",
                replace=replace,
                insert_text=insert,
                sort_text=f"{1 if deprecated else 0}_{key}",
                filter_text=key,
                deprecated=deprecated,
                detail="deprecated" if deprecated else None,
            )
        )
    return out


_HEADER = re.compile(r"^[ \t]*\[\[?([^\]\n]*)\]\]?[ \t]*(?:#.*)?$", re.MULTILINE)


def _enclosing_table(view: AnalysisView, offset: int, located: Located | None) -> Location | None:
    """The table whose keys may be written at a cursor on blank space, or None when the
    cursor is not on blank space (inside a value, after a key on the same line)."""
    text = view.text
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    before = text[line_start:offset]
    if view.syntax == "json":
        if located is None or before.strip(" \t{,") not in ("",):
            return None
        location = tuple(located.location)
        entry = view.parsed.source_map.get(location)
        value = value_at(view, location)
        return location if entry is not None and isinstance(value, Mapping) else None
    if before.strip() or (line.strip() and not line[len(before) :].strip().startswith("#")):
        if not (located is not None and _inline_table_gap(view, located, offset)):
            return None
        return tuple(located.location)
    # Blank TOML line: the table of the nearest header above, or the top level.
    header = None
    for match in _HEADER.finditer(text, 0, line_start):
        header = match
    if header is None:
        return ()
    found = view.parsed.source_map.locate(header.start() + header.group(0).index("[") + 1)
    if found is None:
        return ()
    location = tuple(found.location)
    while location and not isinstance(value_at(view, location), Mapping):
        location = location[:-1]
    return location


def _inline_table_gap(view: AnalysisView, located: Located, offset: int) -> bool:
    """A cursor in an inline table between pairs (``{ a = 1, | }``)."""
    value = value_at(view, tuple(located.location))
    if not isinstance(value, Mapping) or located.in_key:
        return False
    before = view.text[:offset].rstrip(" \t")
    return before.endswith(("{", ","))


_NESTED_SCHEMAS = ("input_schema", "output_schema", "request_schema", "resume_schema")


def _in_schema(view: AnalysisView, location: Location) -> bool:
    """True when ``location`` is a schema object (not a ``properties`` map, not data)."""
    if location[:1] in (("input_schema",), ("state_schema",), ("output_schema",)):
        rest = location[1:]
    elif (
        len(location) >= 3
        and location[0] in ("node_defs", "nodes")
        and location[2] in (_NESTED_SCHEMAS)
    ):
        rest = location[3:]
    else:
        return False
    return not rest or rest[-1] != "properties"


def allowed_keys(view: AnalysisView, parent: Location) -> list[tuple[str, bool]]:
    """``(key, deprecated)`` pairs the table at ``parent`` may hold."""
    if parent == ():
        return [(k, False) for k in top_level_keys()] + [("$schema", False)]
    if _in_schema(view, parent):
        return [(k, False) for k in JSON_SCHEMA_KEYWORDS]
    head = parent[0]
    if len(parent) == 2 and head == "nodes":
        node_type = node_values(view, parent[1] if isinstance(parent[1], int) else None).get("type")
        model = STEP_MODELS.get(str(node_type))
        deprecated = set(DEPRECATED_KEYS.get(model, ())) if model is not None else set()
        return [(k, k in deprecated) for k in node_keys(str(node_type))]
    if len(parent) == 2 and head == "edges":
        return [(k, False) for k in model_keys(Edge)]
    if len(parent) == 2 and head == "node_defs":
        return [(k, False) for k in model_keys(NodeDef)]
    if len(parent) == 2 and head == "output":
        return [(k, False) for k in workflow_output_keys()]
    if len(parent) == 4 and head == "nodes" and isinstance(parent[1], int):
        node_type = node_values(view, parent[1]).get("type")
        if keys := binding_keys(node_type, parent[2]):
            return [(k, False) for k in keys]
    if head == "nodes" and "expression" in parent:
        return [(k, False) for k in _EXPRESSION_KEYS]
    if head == "nodes" and "check" in parent:
        return [(k, False) for k in ("op", "path", "arg", "args", "left", "right", "value")]
    if len(parent) == 3 and head == "nodes" and parent[2] == "item_error":
        return [("action", False), ("collect_to", False)]
    if len(parent) == 3 and head == "nodes" and parent[2] == "concurrent":
        return [("max_active", False), ("max_outstanding", False), ("interrupt", False)]
    if len(parent) == 3 and head == "nodes" and parent[2] == "workflow":
        return [("name", False), ("artifact_id", False), ("version", False)]
    return []

"""Rename a node id, a foreach alias, a node def or a schema property everywhere it is used.

A path segment is rewritten by the canonical formatter (``orders`` → ``orders.v2``
turns ``context.foreach.orders.item`` into ``context.foreach."orders.v2".item``,
and back) and then written for the string literal that holds it; when that
literal's style cannot hold the new text (a TOML literal string and a ``'``),
the whole string is rewritten as a basic string. A property's ``required``
entries are renamed with it, so the schema keeps its meaning.

Invariant: a rename either yields edits after which every occurrence names the
new symbol, or it is refused with a reason; it never half-renames.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from wf_core.base.locations import Location
from wf_core.base.spans import Span
from wf_core.documents.writing import inside_literal, write_key, write_string
from wf_core.language.context_contracts import RESERVED_CONTEXT_KEYS
from wf_core.language.paths import format_segment
from wf_core.language.tokens import END, START
from wf_core.semantic.cursor import classify
from wf_core.semantic.occurrences import NameSyntax, Occurrence, Symbol, SymbolKind
from wf_core.version.view import AnalysisView, WorkspaceView
from wfls.features.common import node_index_of, node_values, value_at
from wfls.features.types import DocumentEdit, Refusal, TextEdit

RENAMEABLE = {
    SymbolKind.WORKFLOW: "workflow name",
    SymbolKind.NODE: "node id",
    SymbolKind.ALIAS: "alias",
    SymbolKind.NODE_DEF: "node def",
    SymbolKind.PROPERTY: "property",
}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def prepare_rename(view: AnalysisView, offset: int) -> tuple[Span, str]:
    """The range of the name under the cursor and its current text, or a refusal."""
    cursor = classify(view, offset)
    occurrence = cursor.occurrence
    if occurrence is None:
        if cursor.string is not None and cursor.string.literal.value == END:
            raise Refusal(f"{END!r} is the workflow's end, not a node: it cannot be renamed")
        if cursor.segment is not None:
            raise Refusal(f"{cursor.segment.value!r} is part of the path syntax, not a name")
        raise Refusal("there is no name to rename here")
    if occurrence.symbol is None:
        raise Refusal(f"{occurrence.name!r} does not name anything declared in this document")
    if occurrence.symbol.kind not in RENAMEABLE:
        raise Refusal(f"{occurrence.kind.value}s cannot be renamed")
    return occurrence.span, occurrence.name


def rename(view: AnalysisView, offset: int, new_name: str) -> list[TextEdit]:
    """Every edit of the rename, or a refusal saying why it cannot be done."""
    prepare_rename(view, offset)
    occurrence = classify(view, offset).occurrence
    assert occurrence is not None and occurrence.symbol is not None
    symbol = occurrence.symbol
    if new_name == symbol.name:
        return []
    _check_name(view, symbol, new_name)
    occurrences = view.index.occurrences_of(symbol)
    edits = _edits(view, occurrences, new_name)
    if symbol.kind == SymbolKind.PROPERTY:
        edits.extend(_required_edits(view, symbol, new_name))
    return sorted(edits, key=lambda e: e.span.start)


def rename_everywhere(
    view: AnalysisView, offset: int, new_name: str, workspace: WorkspaceView | None = None
) -> list[DocumentEdit]:
    """The rename as edits per document: a workflow name is renamed in every document of
    the workspace that declares or calls it; everything else within this document."""
    occurrence = classify(view, offset).occurrence
    symbol = occurrence.symbol if occurrence is not None else None
    if symbol is None or symbol.kind != SymbolKind.WORKFLOW or workspace is None:
        return [DocumentEdit(None, view.version, tuple(rename(view, offset, new_name)))]
    prepare_rename(view, offset)
    if new_name == symbol.name:
        return []
    _check_name(view, symbol, new_name)
    if new_name in workspace.names():
        raise Refusal(f"a workflow {new_name!r} already exists in the workspace")
    out = []
    for document in workspace.documents():
        snapshot = view if document.uri == view.uri else document.snapshot
        occurrences = snapshot.index.occurrences_of(symbol)
        if occurrences:
            edits = sorted(_edits(snapshot, occurrences, new_name), key=lambda e: e.span.start)
            uri = None if document.uri == view.uri else document.uri
            out.append(DocumentEdit(uri, snapshot.version, tuple(edits)))
    return out


def _check_name(view: AnalysisView, symbol: Symbol, new: str) -> None:
    what = RENAMEABLE[symbol.kind]
    if not new.strip():
        raise Refusal(f"a {what} cannot be empty")
    if _CONTROL.search(new):
        raise Refusal(f"a {what} cannot hold control characters")
    resolver = view.index.resolver
    if symbol.kind == SymbolKind.NODE:
        if new in (END, START):
            raise Refusal(f"{new!r} is reserved for the workflow's start and end")
        if new in resolver.node_ids:
            raise Refusal(f"a node {new!r} already exists")
    elif symbol.kind == SymbolKind.ALIAS:
        if new in RESERVED_CONTEXT_KEYS:
            raise Refusal(f"{new!r} is a reserved context key and cannot be an alias")
        owner = symbol.key[0]
        for other in aliases_active_with(view, owner):
            if other == new:
                raise Refusal(f"the alias {new!r} is already active together with {owner!r}")
    elif symbol.kind == SymbolKind.NODE_DEF:
        values = view.parsed.values if isinstance(view.parsed.values, Mapping) else {}
        defs = values.get("node_defs")
        names = {
            d.get("name")
            for d in (defs if isinstance(defs, list) else ())
            if isinstance(d, Mapping)
        }
        if new in names:
            raise Refusal(f"a node def {new!r} already exists")
    elif symbol.kind == SymbolKind.PROPERTY:
        location: Location = symbol.key[0]
        siblings = value_at(view, location[:-1])
        if isinstance(siblings, Mapping) and new in siblings:
            raise Refusal(f"a property {new!r} is already declared beside {symbol.name!r}")


def aliases_active_with(view: AnalysisView, owner: str) -> set[str]:
    """Aliases of the other loops active together with ``owner`` anywhere."""
    model = view.context
    stacks: Iterable[tuple[str, ...]] = (
        model.regions.owner_stack_by_node.values() if model is not None else ()
    )
    out: set[str] = set()
    for stack in set(stacks):
        if owner not in stack:
            continue
        for other in stack:
            alias = node_values(view, node_index_of(view, other)).get("as")
            if other != owner and isinstance(alias, str):
                out.add(alias)
    return out


def _edits(view: AnalysisView, occurrences: list[Occurrence], new: str) -> list[TextEdit]:
    edits: list[TextEdit] = []
    by_path: dict[Location, list[Occurrence]] = {}
    for occurrence in occurrences:
        if occurrence.syntax == NameSyntax.SEGMENT:
            by_path.setdefault(occurrence.location, []).append(occurrence)
        elif occurrence.syntax == NameSyntax.KEY:
            edits.append(TextEdit(occurrence.span, write_key(new, view.syntax)))
        else:
            literal = view.parsed.source_map.string(occurrence.location)
            body = inside_literal(new, occurrence.style)
            if body is not None or literal is None:
                edits.append(TextEdit(occurrence.span, body if body is not None else new))
            else:
                edits.append(TextEdit(literal.span, write_string(new, occurrence.style)))
    for location, segments in by_path.items():
        edits.extend(_path_edits(view, location, segments, new))
    return edits


def _path_edits(
    view: AnalysisView, location: Location, segments: list[Occurrence], new: str
) -> list[TextEdit]:
    """Rename segments of one path string: in place when the literal can hold the new
    segment, otherwise by rewriting the whole string."""
    text = format_segment(new)
    body = inside_literal(text, segments[0].style)
    if body is not None:
        return [TextEdit(s.span, body) for s in segments]
    literal = view.parsed.source_map.string(location)
    path = view.index.path_at(segments[0].span.start)
    if literal is None or path is None:
        return []
    value = literal.value
    for index in sorted((s.segment for s in segments if s.segment is not None), reverse=True):
        scanned = path.scan.segments[index]
        value = value[: scanned.start] + text + value[scanned.end :]
    return [TextEdit(literal.span, write_string(value, literal.style))]


def _required_edits(view: AnalysisView, symbol: Symbol, new: str) -> list[TextEdit]:
    """The declaring schema's ``required`` entries naming the property."""
    location: Location = symbol.key[0]
    schema_location = location[:-2]
    required = value_at(view, (*schema_location, "required"))
    edits = []
    for index, name in enumerate(required if isinstance(required, list) else ()):
        if name != symbol.name:
            continue
        literal = view.parsed.source_map.string((*schema_location, "required", index))
        if literal is not None:
            edits.append(TextEdit(literal.span, write_string(new, literal.style)))
    return edits

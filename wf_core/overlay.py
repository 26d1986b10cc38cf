"""Answering while the author types: a snapshot derived from its predecessor.

Typing inside a path string changes nothing but that string, yet a full
re-analysis of a large workflow takes far longer than a completion may. When
every change between two versions lies inside one string literal of the
analysed version, :func:`derive_edited_snapshot` answers with the analysed
version's model and context plus that one literal re-read from the new text:
the owner stacks and schemas that decide a completion cannot have changed.

Invariant: an :class:`EditedSnapshot` is only ever built for such an edit, and
it reports every span in the *new* text's offsets (spans after the edit are
shifted by its length change).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

from wf_core.documents import Entry, Located, StringLiteral
from wf_core.documents.strings import scan_json_string, scan_toml_string
from wf_core.edits import Region
from wf_core.issues import Issue
from wf_core.locations import Location
from wf_core.records import record
from wf_core.semantic.build import PathResolver, path_occurrence, path_role_at, segment_occurrences
from wf_core.semantic.cursor import in_literal
from wf_core.semantic.index import IndexView, SemanticIndex
from wf_core.semantic.model import (
    Occurrence,
    PathOccurrence,
    Role,
    Symbol,
    SymbolKind,
)
from wf_core.snapshot import DocumentSnapshot
from wf_core.spans import LineIndex, Span
from wf_core.view import SourceMapView

if TYPE_CHECKING:
    from wf_core.analysis.context_scopes import ContextModel
    from wf_core.models.loading import LoadResult
    from wf_core.models.steps import AnyStep
    from wf_core.models.workflow import Workflow


@record
class _Shift:
    """Old-text offsets → new-text offsets around one replaced region."""

    start: int
    old_end: int
    delta: int

    def offset(self, old: int) -> int:
        return old + self.delta if old >= self.old_end else old

    def span(self, span: Span) -> Span:
        return Span(
            span.start if span.start <= self.start else self.offset(span.start),
            span.end if span.end < self.start else max(self.start, self.offset(span.end)),
        )

    def back(self, new: int) -> int:
        """New-text offset → old-text offset (inside the new region: its start)."""
        if new < self.start:
            return new
        if new >= self.old_end + self.delta:
            return new - self.delta
        return self.start


def _shift_literal(literal: StringLiteral, shift: _Shift) -> StringLiteral:
    if literal.span.end < shift.start:
        return literal
    return replace(
        literal,
        span=shift.span(literal.span),
        content=shift.span(literal.content),
        _doc=tuple(shift.offset(d) for d in literal._doc),
    )


class _OverlaySourceMap:
    """The analysed version's source map seen through the edit, with one literal re-read."""

    def __init__(
        self, base: SourceMapView, shift: _Shift, location: Location, literal: StringLiteral
    ):
        self._base = base
        self._shift = shift
        self._location = location
        self._literal = literal

    @property
    def shift(self) -> _Shift:
        return self._shift

    @property
    def edited_location(self) -> Location:
        return self._location

    @property
    def edited_literal(self) -> StringLiteral:
        return self._literal

    def get(self, location: Location) -> Entry | None:
        entry = self._base.get(location)
        if entry is None:
            return None
        key = self._shift.span(entry.key) if entry.key is not None else None
        return Entry(key, self._shift.span(entry.value), entry.kind)

    def string(self, location: Location) -> StringLiteral | None:
        if tuple(location) == self._location:
            return self._literal
        literal = self._base.string(location)
        return _shift_literal(literal, self._shift) if literal is not None else None

    def locate(self, offset: int) -> Located | None:
        if self._literal.span.start <= offset <= self._literal.span.end:
            return Located(self._location, False, self._literal.span, True)
        found = self._base.locate(self._shift.back(offset))
        if found is None:
            return None
        return replace(found, span=self._shift.span(found.span))

    def children(self, location: Location) -> list[Location]:
        return self._base.children(location)

    def locations(self) -> Iterator[Location]:
        return self._base.locations()

    def items(self) -> Iterator[tuple[Location, Entry]]:
        for location, entry in self._base.items():
            if location == self._location:
                yield location, Entry(entry.key, self._literal.span, entry.kind)
                continue
            key = self._shift.span(entry.key) if entry.key is not None else None
            yield location, Entry(key, self._shift.span(entry.value), entry.kind)

    def __contains__(self, location: object) -> bool:
        return location in self._base


@record
class _OverlayParsed:
    text: str
    syntax: str
    values: dict[str, object]
    source_map: _OverlaySourceMap
    issues: tuple[Issue, ...] = ()


def _shift_occurrence(occurrence: Occurrence, shift: _Shift) -> Occurrence:
    return replace(occurrence, span=shift.span(occurrence.span))


def _shift_path(path: PathOccurrence, shift: _Shift) -> PathOccurrence:
    return replace(
        path,
        literal=_shift_literal(path.literal, shift),
        segments=tuple(replace(s, span=shift.span(s.span)) for s in path.segments),
    )


class _EditedIndex:
    """The analysed version's index seen through the edit.

    Everything outside the edited literal is the base's, shifted; the edited
    literal is resolved again with the base's resolver (same schemas, same
    stacks: the edit cannot have changed them).
    """

    def __init__(
        self,
        base: SemanticIndex,
        shift: _Shift,
        old: StringLiteral,
        location: Location,
        literal: StringLiteral,
    ) -> None:
        self._base = base
        self._shift = shift
        self._old = old.span
        self._span = literal.span
        self.resolver: PathResolver = base.resolver
        self._path: PathOccurrence | None = None
        self._occurrences: list[Occurrence] = []
        old_path = base.path_at(old.content.start)
        if old_path is not None and old_path.location == location:
            self._path = path_occurrence(
                base.resolver,
                location,
                old_path.role,
                literal,
                old_path.node_index,
                old_path.node_id,
            )
            self._occurrences = list(segment_occurrences(self._path))
            return
        old_name = base.occurrence_at(old.content.start)
        if old_name is not None and old_name.location == location:
            symbol = old_name.symbol
            if old_name.kind == SymbolKind.NODE:
                known = literal.value in base.resolver.node_ids
                symbol = Symbol(SymbolKind.NODE, (literal.value,), literal.value) if known else None
            elif literal.value != old_name.name:
                symbol = None
            self._occurrences = [
                replace(old_name, name=literal.value, span=literal.content, symbol=symbol)
            ]

    def _inside_old(self, span: Span) -> bool:
        return self._old.start <= span.start and span.end <= self._old.end

    def occurrence_at(self, offset: int) -> Occurrence | None:
        if self._span.start <= offset <= self._span.end:
            return next((o for o in self._occurrences if o.span.contains(offset)), None)
        found = self._base.occurrence_at(self._shift.back(offset))
        if found is None or self._inside_old(found.span):
            return None
        return _shift_occurrence(found, self._shift)

    def path_at(self, offset: int) -> PathOccurrence | None:
        if self._span.start <= offset <= self._span.end:
            return self._path
        found = self._base.path_at(self._shift.back(offset))
        if found is None or found.literal.span == self._old:
            return None
        return _shift_path(found, self._shift)

    @property
    def occurrences(self) -> Iterator[Occurrence]:
        edited = iter(self._occurrences)
        for occurrence in self._base.occurrences:
            if self._inside_old(occurrence.span):
                yield from edited
                continue
            yield _shift_occurrence(occurrence, self._shift)
        yield from edited

    @property
    def paths(self) -> Iterator[PathOccurrence]:
        for path in self._base.paths:
            if path.literal.span == self._old:
                if self._path is not None:
                    yield self._path
                continue
            yield _shift_path(path, self._shift)

    def occurrences_of(self, symbol: Symbol) -> list[Occurrence]:
        return [o for o in self.occurrences if o.symbol is not None and _same(o.symbol, symbol)]

    def definitions(self, symbol: Symbol) -> list[Occurrence]:
        return [o for o in self.occurrences_of(symbol) if o.role == Role.DEFINITION]

    def references(self, symbol: Symbol, *, include_declaration: bool = True) -> list[Occurrence]:
        return [
            o
            for o in self.occurrences_of(symbol)
            if include_declaration or o.role == Role.REFERENCE
        ]

    def symbols(self) -> Iterator[Symbol]:
        return iter(self._base.symbols())


def _same(a: Symbol, b: Symbol) -> bool:
    return a.kind == b.kind and a.key == b.key


class EditedSnapshot:
    """A snapshot for features that read one edited string (completion while typing).

    Model, context and values are the analysed version's; the text, the edited
    literal and every span are the new version's. Diagnostics never come from
    here: they wait for the full analysis.
    """

    def __init__(
        self,
        base: DocumentSnapshot,
        parsed: _OverlayParsed,
        version: int | None,
        base_index: SemanticIndex | None = None,
    ):
        self.base = base
        self.parsed = parsed
        self.version = version
        self.uri = base.uri
        self._base_index = base_index  # None: the base's whole index

    def over_index(self, base_index: SemanticIndex) -> EditedSnapshot:
        """This snapshot seen through ``base_index`` (one node's, ``wf_core.node_view``)
        instead of the base's whole index; ``IndexIncomplete`` when the edited string
        is not in it."""
        edited = EditedSnapshot(self.base, self.parsed, self.version, base_index)
        _ = edited.index
        return edited

    @property
    def text(self) -> str:
        return self.parsed.text

    @property
    def syntax(self) -> str:
        return self.parsed.syntax

    @cached_property
    def lines(self) -> LineIndex:
        # The edit lies inside one line (no line break in it): the base's line starts,
        # shifted, rather than a scan of the whole text on the event loop.
        shift = self.parsed.source_map.shift
        return self.base.lines.edited(self.parsed.text, shift.start, shift.delta)

    @property
    def load(self) -> LoadResult:
        return self.base.load

    @property
    def workflow(self) -> Workflow | None:
        return self.base.workflow

    @property
    def context(self) -> ContextModel | None:
        return self.base.context

    def node_at_document_index(self, index: int) -> AnyStep | None:
        return self.base.node_at_document_index(index)

    @cached_property
    def index(self) -> IndexView:
        overlay = self.parsed.source_map
        old = self.base.parsed.source_map.string(overlay.edited_location)
        assert old is not None  # the edit was found inside this literal
        base = self._base_index if self._base_index is not None else self.base.index
        return _EditedIndex(
            base, overlay.shift, old, overlay.edited_location, overlay.edited_literal
        )


_READ_AS_TEXT = frozenset(("start", "from", "to", "outcome", "node", "op", "type"))


def editable_without_reanalysis(base: DocumentSnapshot, location: Location) -> bool:
    """Strings whose edits leave the graph, the stacks and the schemas as they were.

    Paths (where the index builder reads them) and references by name only read the
    model, so completion while they are being typed may answer from the previous
    analysis (an edited ``over`` changes only what its body reads, not what the ``over``
    itself may read); an edited ``id`` would change the graph that analysis describes.
    The question is answered from the parsed values, never by building the index:
    this runs on the event loop for every request while typing.
    """
    if path_role_at(base.parsed.values, location) is not None:
        return True
    return (
        bool(location)
        and location[-1] in _READ_AS_TEXT
        and (location[0] in ("start", "edges") or (location[0] == "nodes" and len(location) >= 3))
    )


def derive_edited_snapshot(
    base: DocumentSnapshot,
    text: str,
    region: Region,
    version: int | None = None,
    *,
    allowed: Callable[[DocumentSnapshot, Location], bool] | None = None,
) -> EditedSnapshot | None:
    """The snapshot of ``text`` derived from ``base``, or None when the change, inside
    ``region`` (see ``wf_core.edits``: where ``base.text`` and ``text`` may differ), is
    not confined to one string literal that stays one string literal.

    ``allowed`` says which string values may be edited this way: only those whose
    change cannot alter what the caller will read from the base analysis (an
    edited node ``id`` changes the graph; an edited path does not).
    """
    if region.is_empty:
        return None
    old = base.text
    start, old_end, new_end = region.start, region.old_end, region.new_end
    source_map = base.parsed.source_map
    located = source_map.locate(start)
    allowed = allowed or editable_without_reanalysis
    if located is None or located.in_key or not allowed(base, tuple(located.location)):
        return None
    literal = source_map.string(located.location)
    if literal is None or literal.style.startswith("multiline"):
        return None
    if not (in_literal(literal, start) and in_literal(literal, old_end)):
        return None
    edited = text[start:new_end] + old[start:old_end]
    if "\n" in edited or "\r" in edited:
        return None
    delta = new_end - old_end
    scan = scan_json_string if base.syntax == "json" else scan_toml_string
    line_end = text.find("\n", literal.span.start)
    limit = len(text) if line_end == -1 else line_end
    try:
        new_literal, _ = scan(text, literal.span.start, limit)
    except Exception:
        return None
    if new_literal.closed != literal.closed or new_literal.style != literal.style:
        return None
    expected_end = literal.span.end + delta
    if new_literal.span.end != expected_end:
        return None
    shift = _Shift(start, old_end, delta)
    overlay = _OverlaySourceMap(source_map, shift, tuple(located.location), new_literal)
    parsed = _OverlayParsed(text, base.syntax, base.parsed.values, overlay)
    return EditedSnapshot(base, parsed, version)

"""Answering while the author types: a snapshot derived from its predecessor.

Typing inside a path string changes nothing but that string, yet a full
re-analysis of a large workflow takes far longer than a completion may. When
every change between two versions lies inside one string literal of the
analysed version, :func:`derive_edited_snapshot` answers with the analysed
version's model and context plus that one literal re-read from the new text:
the owner stacks and schemas that decide a completion cannot have changed.

Its semantic index is the analysed version's parts (``wf_core.semantic.parts``) seen
through the edit: the edited element's part written again from the new text, the
parts after it placed further by the edit's change of length.

Invariant: an :class:`EditedSnapshot` is only ever built for such an edit, and
it reports every span in the *new* text's offsets (spans after the edit are
shifted by its length change).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

from wf_core.base.edits import Region
from wf_core.base.issues import Issue
from wf_core.base.locations import Location
from wf_core.base.records import record
from wf_core.base.spans import LineIndex, Span
from wf_core.documents import Entry, Kind, Located, StringLiteral
from wf_core.documents.source_map import shift_literal
from wf_core.documents.strings import scan_json_string, scan_toml_string
from wf_core.semantic.build import PartWriter, PathResolver, path_role_at
from wf_core.semantic.cursor import in_literal
from wf_core.semantic.index import SemanticIndex
from wf_core.semantic.parts import IndexPart, PartKind, PartSource, WrittenParts, holder_of
from wf_core.version.snapshot import DocumentSnapshot
from wf_core.version.view import SourceMapView

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

    def get(self, location: Location, origin: int = 0) -> Entry | None:
        entry = self._base.get(location)
        if entry is None:
            return None
        key = self._shift.span(entry.key) if entry.key is not None else None
        value = self._shift.span(entry.value)
        if origin:
            key = Span(key.start - origin, key.end - origin) if key is not None else None
            value = Span(value.start - origin, value.end - origin)
        return Entry(key, value, entry.kind)

    def string(self, location: Location, origin: int = 0) -> StringLiteral | None:
        if tuple(location) == self._location:
            literal: StringLiteral | None = self._literal
        else:
            found = self._base.string(location)
            literal = _shift_literal(found, self._shift) if found is not None else None
        return shift_literal(literal, -origin) if literal is not None else None

    def prepare_locate(self) -> None:
        self._base.prepare_locate()  # what ``locate`` reads of the analysed version

    def locate(self, offset: int) -> Located | None:
        if self._literal.span.start <= offset <= self._literal.span.end:
            return Located(self._location, False, self._literal.span, True)
        found = self._base.locate(self._shift.back(offset))
        if found is None:
            return None
        return replace(found, span=self._shift.span(found.span))

    def children(self, location: Location) -> list[Location]:
        return self._base.children(location)

    def ranges_of(self, kinds: frozenset[Kind]) -> Iterator[tuple[int, int, int, Kind]]:
        shift = self._shift
        for key, start, end, kind in self._base.ranges_of(kinds):
            value = shift.span(Span(start, end))
            yield (shift.offset(key) if key >= 0 else -1), value.start, value.end, kind

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


def _with_value(values: dict[str, object], location: Location, value: str) -> dict[str, object]:
    """``values`` with the string at ``location`` replaced by ``value``: the containers on
    the way copied (the others shared, never mutated), as the new text reads."""

    def put(container: object, rest: Location) -> object:
        if not rest:
            return value
        head = rest[0]
        if isinstance(container, dict) and isinstance(head, str) and head in container:
            copied = dict(container)
            copied[head] = put(container[head], rest[1:])
            return copied
        if isinstance(container, list) and isinstance(head, int) and 0 <= head < len(container):
            items = list(container)
            items[head] = put(container[head], rest[1:])
            return items
        return container

    edited = put(values, location)
    return edited if isinstance(edited, dict) else values


class EditedParts(WrittenParts):
    """The analysed version's index parts seen through the edit (``PartSource``).

    The part of the element holding the edited string is written again from the new
    text, with the analysed version's resolver (same schemas, same owner stacks: the
    edit cannot have changed them); a part after the edit is the analysed version's,
    placed ``delta`` further; the rest of the document is written again (it is small).
    """

    def __init__(
        self,
        base: PartSource,
        shift: _Shift,
        location: Location,
        source_map: _OverlaySourceMap,
        values: dict[str, object],
        text: str,
    ) -> None:
        super().__init__(PartWriter(values, source_map, base.resolver), source_map, text)
        self._base = base
        self._shift = shift
        self._edited = holder_of(location)
        self._fresh: dict[tuple[PartKind, int], IndexPart] = {}

    @property
    def resolver(self) -> PathResolver:
        return self._base.resolver

    def count(self, kind: PartKind) -> int:
        return self._base.count(kind)

    def part(self, kind: PartKind, index: int) -> tuple[IndexPart, int]:
        if (kind, index) != self._edited:
            seen = self._seen_through(*self._base.part(kind, index))
            if seen is not None:
                return seen
        return self._written(kind, index)

    def every(self, kind: PartKind) -> list[tuple[IndexPart, int]]:
        """``part`` of each element, the analysed version's found at once (``every``)."""
        edited = self._edited[1] if self._edited is not None and self._edited[0] == kind else -1
        return [
            seen
            if index != edited and (seen := self._seen_through(part, base)) is not None
            else self._written(kind, index)
            for index, (part, base) in enumerate(self._base.every(kind))
        ]

    def _seen_through(self, part: IndexPart, base: int) -> tuple[IndexPart, int] | None:
        """The analysed version's part of an element the edit did not touch, placed in the
        new text; None when it must be written again."""
        shift = self._shift
        if base >= shift.old_end:
            return part, base + shift.delta
        extent = part.extent
        if extent is None or base + extent.end < shift.start:
            return part, base
        # Placed at a base before the edit but written after it (elements of one
        # ``edges = [...]`` share the pair's base): written again from the new text.
        return None

    def _written(self, kind: PartKind, index: int) -> tuple[IndexPart, int]:
        with self._lock:
            fresh = self._fresh.get((kind, index))
            if fresh is None:
                fresh = self._fresh[(kind, index)] = self._writer.write(kind, index, 0)
        return fresh, 0


class EditedSnapshot:
    """A snapshot for features that read one edited string (completion while typing).

    Model, context and values are the analysed version's; the text, the edited
    literal and every span are the new version's. Diagnostics never come from
    here: they wait for the full analysis.
    """

    def __init__(self, base: DocumentSnapshot, parsed: _OverlayParsed, version: int | None):
        self.base = base
        self.parsed = parsed
        self.version = version
        self.uri = base.uri

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
    def index(self) -> SemanticIndex:
        overlay = self.parsed.source_map
        values = _with_value(
            self.parsed.values, overlay.edited_location, overlay.edited_literal.value
        )
        parts = EditedParts(
            self.base.index.parts,
            overlay.shift,
            overlay.edited_location,
            overlay,
            values,
            self.parsed.text,
        )
        return SemanticIndex(parts)


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
    ``region`` (see ``wf_core.base.edits``: where ``base.text`` and ``text`` may differ), is
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

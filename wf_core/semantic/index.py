"""The semantic index of one document version: every name, every path, by place and by symbol.

Made of parts (``wf_core.semantic.parts``): a question about one place makes the part
holding that place; about a range, the parts of the elements there; about one symbol, the
parts of the elements whose text may spell its name; about the whole document (every
path, every occurrence), every part. After an edit only the parts whose text changed are
made again. References, rename, highlights, tokens, hover and definition all answer
from here, so they agree on what every name means.

Invariant: every span it answers with is a document span of the version it belongs to
(a part's relative spans are placed at the part's base before they leave this module).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Protocol

from wf_core.base.collector import collector_paused
from wf_core.base.spans import Span
from wf_core.semantic.occurrences import (
    Occurrence,
    PathOccurrence,
    Role,
    Symbol,
    in_document_order,
)
from wf_core.semantic.parts import (
    PART_KINDS,
    IndexPart,
    occurrence_span,
    path_span,
    shift_occurrence,
    shift_path,
    symbol_key,
)

if TYPE_CHECKING:
    from wf_core.semantic.build import PathResolver
    from wf_core.semantic.parts import SnapshotParts


class IndexView(Protocol):
    """The queries features make of an index."""

    @property
    def resolver(self) -> PathResolver: ...
    @property
    def parts(self) -> SnapshotParts: ...
    @property
    def occurrences(self) -> Iterable[Occurrence]: ...
    @property
    def paths(self) -> Iterable[PathOccurrence]: ...
    def occurrences_in(self, span: Span) -> list[Occurrence]: ...
    def paths_in(self, span: Span) -> list[PathOccurrence]: ...
    def placed(self, span: Span | None = None) -> Iterator[tuple[IndexPart, int]]: ...
    def occurrence_at(self, offset: int) -> Occurrence | None: ...
    def path_at(self, offset: int) -> PathOccurrence | None: ...
    def occurrences_of(self, symbol: Symbol) -> list[Occurrence]: ...
    def definitions(self, symbol: Symbol) -> list[Occurrence]: ...
    def references(
        self, symbol: Symbol, *, include_declaration: bool = True
    ) -> list[Occurrence]: ...
    @property
    def is_complete(self) -> bool: ...
    def complete(self, cancelled: Callable[[], bool] | None = None) -> bool: ...


def _in(span: Span, lo: int, hi: int) -> bool:
    return span.end >= lo and span.start <= hi


class SemanticIndex:
    """One version's index, its parts made as they are asked for (see the module)."""

    def __init__(self, parts: SnapshotParts) -> None:
        self._parts = parts
        self._complete = False

    @property
    def resolver(self) -> PathResolver:
        return self._parts.resolver

    @property
    def parts(self) -> SnapshotParts:
        return self._parts

    # -- parts ---------------------------------------------------------------------------

    def _placed(self) -> Iterator[tuple[IndexPart, int]]:
        """Every part and its base: the nodes', the edges', then the rest's."""
        parts = self._parts
        for kind in PART_KINDS:
            yield from parts.every(kind)
        yield parts.document(), 0

    @property
    def is_complete(self) -> bool:
        """Whether every part of this version is made (a question about the whole
        document then costs no walk of the document)."""
        return self._complete

    def complete(self, cancelled: Callable[[], bool] | None = None) -> bool:
        """Make every part unless ``cancelled`` turns true first (asked before the first
        part and every 64th); whether the index is complete. What was made is kept either
        way: the parts are derived values, found again by this version and the next ones."""
        if self._complete:
            return True
        made = 0
        parts = self._parts
        # (the parts outlive the build: nothing to collect while it runs, see ``collector``)
        with collector_paused():
            for kind in PART_KINDS:
                for index in range(parts.count(kind)):
                    if cancelled is not None and made % 64 == 0 and cancelled():
                        return False
                    parts.part(kind, index)
                    made += 1
            parts.document()
            parts.prepare()
        self._complete = True
        return True

    def _candidates(self, offset: int) -> list[tuple[IndexPart, int]]:
        """The parts that may hold a name at ``offset``: the element there (or just
        before it: a span touching its end holds it too) and the rest's."""
        parts = self._parts
        found: list[tuple[IndexPart, int]] = []
        seen: set[tuple[str, int]] = set()
        for at in (offset, offset - 1):
            holder = parts.holder(at) if at >= 0 else None
            if holder is not None and holder not in seen:
                seen.add(holder)
                found.append(parts.part(*holder))
        found.append((parts.document(), 0))
        return found

    # -- by place ------------------------------------------------------------------------

    def occurrence_at(self, offset: int) -> Occurrence | None:
        """The innermost occurrence whose span holds ``offset`` (touching its end counts)."""
        best: Occurrence | None = None
        for part, base in self._candidates(offset):
            found: Occurrence | None = part.occurrences.at(offset - base, occurrence_span)
            if found is not None and (best is None or _narrower(found.span, best.span)):
                best = shift_occurrence(found, base)
        return best

    def path_at(self, offset: int) -> PathOccurrence | None:
        best: PathOccurrence | None = None
        for part, base in self._candidates(offset):
            found: PathOccurrence | None = part.paths.at(offset - base, path_span)
            if found is not None and (best is None or _narrower(path_span(found), path_span(best))):
                best = shift_path(found, base)
        return best

    def placed(self, span: Span | None = None) -> Iterator[tuple[IndexPart, int]]:
        """Each part holding a name in ``span`` (every part when None) with its base: its
        items' offsets plus the base are document offsets. For a feature that reads many
        items (every token of the document) and needs only their offsets, which it moves
        itself rather than have every item copied to its place."""
        if span is None:
            placed = self._placed()
        else:  # only the parts of the elements there are made
            placed = self._placed_in(span)
        for part, base in placed:
            extent = part.extent
            if extent is None:
                continue
            if span is None or _in(extent, span.start - base, span.end - base):
                yield part, base

    def _placed_in(self, span: Span) -> Iterator[tuple[IndexPart, int]]:
        parts = self._parts
        for kind in PART_KINDS:
            for index in parts.elements_in(kind, span.start, span.end):
                yield parts.part(kind, index)
        yield parts.document(), 0

    def occurrences_in(self, span: Span) -> list[Occurrence]:
        """The occurrences touching ``span``, in document order."""
        found: list[Occurrence] = []
        for part, base in self.placed(span):
            lo, hi = span.start - base, span.end - base
            found.extend(shift_occurrence(o, base) for o in part.occurrences if _in(o.span, lo, hi))
        return in_document_order(found, occurrence_span)

    def paths_in(self, span: Span) -> list[PathOccurrence]:
        """The paths touching ``span``, in document order."""
        found: list[PathOccurrence] = []
        for part, base in self.placed(span):
            lo, hi = span.start - base, span.end - base
            found.extend(shift_path(p, base) for p in part.paths if _in(p.literal.span, lo, hi))
        return in_document_order(found, path_span)

    @property
    def occurrences(self) -> list[Occurrence]:
        """Every occurrence, in document order."""
        found = [
            shift_occurrence(o, base) for part, base in self._placed() for o in part.occurrences
        ]
        return in_document_order(found, occurrence_span)

    @property
    def paths(self) -> list[PathOccurrence]:
        """Every path string, in document order."""
        found = [shift_path(p, base) for part, base in self._placed() for p in part.paths]
        return in_document_order(found, path_span)

    # -- by symbol -----------------------------------------------------------------------

    def occurrences_of(self, symbol: Symbol) -> list[Occurrence]:
        """Every occurrence of ``symbol``: definitions and references, in document order."""
        key = symbol_key(symbol)
        parts = self._parts
        found: list[Occurrence] = []
        for kind in PART_KINDS:  # only the parts of the elements that may name it are made
            for index in parts.elements_mentioning(kind, symbol.name):
                part, base = parts.part(kind, index)
                found.extend(shift_occurrence(o, base) for o in part.by_symbol.get(key, ()))
        found.extend(parts.document().by_symbol.get(key, ()))
        return in_document_order(found, occurrence_span)

    def definitions(self, symbol: Symbol) -> list[Occurrence]:
        return [o for o in self.occurrences_of(symbol) if o.role == Role.DEFINITION]

    def references(self, symbol: Symbol, *, include_declaration: bool = True) -> list[Occurrence]:
        return [
            o
            for o in self.occurrences_of(symbol)
            if include_declaration or o.role == Role.REFERENCE
        ]


def _narrower(a: Span, b: Span) -> bool:
    return a.end - a.start < b.end - b.start

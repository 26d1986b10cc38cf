"""The semantic index of one document version: every name, every path, by place and by symbol.

Built once per snapshot (lazily, the first time a feature asks) by
``wf_core.semantic.build``. References, rename, highlights, tokens, hover and
definition all answer from here, so they agree on what every name means.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from wf_core.semantic.model import (
    Occurrence,
    PathOccurrence,
    Role,
    SpanIndex,
    Symbol,
)
from wf_core.spans import Span

if TYPE_CHECKING:
    from wf_core.semantic.build import PathResolver


def _occurrence_span(item: Occurrence) -> Span:
    return item.span


def _path_span(item: PathOccurrence) -> Span:
    return item.literal.span


class IndexView(Protocol):
    """The queries features make of an index; the full index and the while-typing
    overlay (``wf_core.overlay``) both answer them."""

    @property
    def resolver(self) -> PathResolver: ...
    @property
    def occurrences(self) -> Iterable[Occurrence]: ...
    @property
    def paths(self) -> Iterable[PathOccurrence]: ...
    def occurrence_at(self, offset: int) -> Occurrence | None: ...
    def path_at(self, offset: int) -> PathOccurrence | None: ...
    def occurrences_of(self, symbol: Symbol) -> list[Occurrence]: ...
    def definitions(self, symbol: Symbol) -> list[Occurrence]: ...
    def references(
        self, symbol: Symbol, *, include_declaration: bool = True
    ) -> list[Occurrence]: ...
    def symbols(self) -> Iterable[Symbol]: ...


class SemanticIndex:
    def __init__(
        self,
        occurrences: list[Occurrence],
        paths: list[PathOccurrence],
        resolver: PathResolver,
    ) -> None:
        self._occurrences = SpanIndex(occurrences, _occurrence_span)
        self._paths = SpanIndex(paths, _path_span)
        self._resolver = resolver
        self._by_symbol: dict[tuple[object, ...], list[Occurrence]] = {}
        for occurrence in self._occurrences:
            if occurrence.symbol is not None:
                self._by_symbol.setdefault(_key(occurrence.symbol), []).append(occurrence)

    @property
    def resolver(self) -> PathResolver:
        return self._resolver

    @property
    def occurrences(self) -> Iterable[Occurrence]:
        """Every occurrence, in document order."""
        return self._occurrences

    @property
    def paths(self) -> Iterable[PathOccurrence]:
        """Every path string, in document order."""
        return self._paths

    def occurrence_at(self, offset: int) -> Occurrence | None:
        found: Occurrence | None = self._occurrences.at(offset, _occurrence_span)
        return found

    def path_at(self, offset: int) -> PathOccurrence | None:
        found: PathOccurrence | None = self._paths.at(offset, _path_span)
        return found

    def occurrences_of(self, symbol: Symbol) -> list[Occurrence]:
        """Every occurrence of ``symbol``: definitions and references, in document order."""
        return list(self._by_symbol.get(_key(symbol), ()))

    def definitions(self, symbol: Symbol) -> list[Occurrence]:
        return [o for o in self.occurrences_of(symbol) if o.role == Role.DEFINITION]

    def references(self, symbol: Symbol, *, include_declaration: bool = True) -> list[Occurrence]:
        return [
            o
            for o in self.occurrences_of(symbol)
            if include_declaration or o.role == Role.REFERENCE
        ]

    def symbols(self) -> Iterable[Symbol]:
        for occurrences in self._by_symbol.values():
            symbol = occurrences[0].symbol
            if symbol is not None:
                yield symbol


class IndexIncomplete(Exception):
    """A query a node's own index cannot answer: it needs the whole document's."""


class NodeIndex(SemanticIndex):
    """The index of one ``nodes`` entry: every name and path written inside its text
    (``span``), resolved as the whole document's index resolves them.

    Built in a few milliseconds for a request about a place inside that entry while
    the document's own index is still being built (seconds at 16,000 nodes). Only the
    queries that look at an offset inside the entry are answered; any other raises
    ``IndexIncomplete``, and the request is then answered from the whole index, once
    built (``wfls.registry``, which asks again). Invariant, checked in
    ``tests/test_node_index.py``: its occurrences and paths are exactly the whole
    index's inside ``span``.
    """

    def __init__(
        self,
        occurrences: list[Occurrence],
        paths: list[PathOccurrence],
        resolver: PathResolver,
        span: Span,
    ) -> None:
        super().__init__(occurrences, paths, resolver)
        self.span = span

    def _inside(self, offset: int) -> None:
        if not (self.span.start <= offset <= self.span.end):
            raise IndexIncomplete(f"offset {offset} is outside the indexed node")

    @property
    def occurrences(self) -> Iterable[Occurrence]:
        raise IndexIncomplete("every occurrence")

    @property
    def paths(self) -> Iterable[PathOccurrence]:
        raise IndexIncomplete("every path")

    def occurrence_at(self, offset: int) -> Occurrence | None:
        self._inside(offset)
        return super().occurrence_at(offset)

    def path_at(self, offset: int) -> PathOccurrence | None:
        self._inside(offset)
        return super().path_at(offset)

    def occurrences_of(self, symbol: Symbol) -> list[Occurrence]:
        raise IndexIncomplete(f"the occurrences of {symbol.name!r}")

    def symbols(self) -> Iterable[Symbol]:
        raise IndexIncomplete("every symbol")

    def local_occurrences(self) -> list[Occurrence]:
        """The occurrences inside the node, in document order (for tests)."""
        return list(self._occurrences)

    def local_paths(self) -> list[PathOccurrence]:
        return list(self._paths)


def _key(symbol: Symbol) -> tuple[object, ...]:
    """Symbols are the same when kind and key agree (the written name may differ: an
    alias is named by its owner foreach)."""
    return (symbol.kind, *symbol.key)

"""The semantic index in parts: one per ``nodes`` entry, one per ``edges`` entry, one for
the rest of the document.

Everything a part holds is a function of its element's text and of a few values of the
whole document (the graph's structure, the schemas, the node defs, the outcomes): so a
part is a derived value (``wf_core.base.derived``), found again by its element's key while
those values stay the same, and its offsets are relative to where the element's text
begins (``SourceMap.element_bases``), so a part made for one version serves the next
ones wherever the element has moved. The index of a version (``semantic.index``) places
parts at their bases when it is asked, and makes only the parts it is asked about: a
completion inside a node makes that node's part, a search for references every part
(after an edit, only the parts of the elements it changed are made again).

The rest of the document (node defs, the workflow's name, start, outcomes, output, the
top-level schemas) is small and is made again for each version, at its own offsets.

Invariant (``tests/test_semantic_parts.py``): the occurrences and paths of the parts,
placed, are exactly those one walk over the whole document finds, whatever the editing
history that led to the version.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Literal

from wf_core.base.derived import Derivations, exactly
from wf_core.base.spans import Span
from wf_core.documents.source_map import shift_literal
from wf_core.semantic.occurrences import Occurrence, PathOccurrence, PathSegment, SpanIndex, Symbol

if TYPE_CHECKING:
    from wf_core.analysis.context_scopes import ContextModel
    from wf_core.base.derived import Run
    from wf_core.documents import SourceMap
    from wf_core.semantic.build import PathResolver

PartKind = Literal["nodes", "edges"]
PART_KINDS: tuple[PartKind, ...] = ("nodes", "edges")

SymbolKey = tuple[object, ...]


def symbol_key(symbol: Symbol) -> SymbolKey:
    """Symbols are the same when kind and key agree (the written name may differ: an
    alias is named by its owner foreach)."""
    return (symbol.kind, *symbol.key)


def occurrence_span(item: Occurrence) -> Span:
    return item.span


def path_span(item: PathOccurrence) -> Span:
    return item.literal.span


def shift_occurrence(o: Occurrence, delta: int) -> Occurrence:
    """``o`` ``delta`` code points further into the text (made directly, not with
    ``dataclasses.replace``, which took four times as long: a whole-document query
    places every occurrence)."""
    if not delta:
        return o
    span = o.span
    return Occurrence(
        o.kind,
        o.name,
        Span(span.start + delta, span.end + delta),
        o.role,
        o.syntax,
        o.location,
        o.symbol,
        o.segment,
        o.style,
    )


def shift_path(path: PathOccurrence, delta: int) -> PathOccurrence:
    """``path`` ``delta`` code points further into the text."""
    if not delta:
        return path
    return PathOccurrence(
        path.location,
        path.role,
        path.node_index,
        path.node_id,
        shift_literal(path.literal, delta),
        path.scan,
        tuple(
            PathSegment(
                s.index,
                s.value,
                Span(s.span.start + delta, s.span.end + delta),
                s.kind,
                s.symbol,
                s.deprecated,
            )
            for s in path.segments
        ),
    )


class IndexPart:
    """The occurrences and paths of one part, sorted, in offsets relative to its base.
    Never mutated once made, but for ``memo``: what a feature derives from this part
    alone (its semantic tokens), kept as long as the part is, so found again with it."""

    __slots__ = ("by_symbol", "extent", "memo", "occurrences", "paths")

    def __init__(self, occurrences: list[Occurrence], paths: list[PathOccurrence]) -> None:
        self.occurrences = SpanIndex(occurrences, occurrence_span)
        self.paths = SpanIndex(paths, path_span)
        self.by_symbol: dict[SymbolKey, list[Occurrence]] = {}
        for occurrence in occurrences:
            if occurrence.symbol is not None:
                self.by_symbol.setdefault(symbol_key(occurrence.symbol), []).append(occurrence)
        spans = [o.span for o in occurrences] + [p.literal.span for p in paths]
        # Where the part's names lie (empty: it has none).
        self.extent = (
            Span(min(s.start for s in spans), max(s.end for s in spans)) if spans else None
        )
        self.memo: dict[str, object] = {}


class SnapshotParts:
    """The parts of one version, each derived under the document-wide values it reads
    (see the module docstring), made on first use by whichever thread asks (the worker
    ahead of requests, or a request on the event loop), one at a time."""

    def __init__(
        self,
        values: Mapping[str, object],
        source_map: SourceMap,
        context: ContextModel | None,
        derived: Derivations,
        resolver: PathResolver,
        text: str | None,
        shapes: Sequence[NodeShape],
    ) -> None:
        """``shapes``: ``node_shapes`` of the resolver's nodes."""
        from wf_core.semantic.build import PartWriter

        self._writer = PartWriter(values, source_map, resolver)
        self._source_map = source_map
        self._text = text
        self._lock = threading.Lock()
        self._document: IndexPart | None = None
        self._resolver = resolver
        self._counts = {
            "nodes": len(resolver.nodes),
            "edges": len(_list(values.get("edges"))),
        }
        # Each element's part is found again under its key, and placed at its base.
        self._keys: dict[str, Sequence[object]] = {}
        self._bases: dict[str, Sequence[int]] = {}
        self._runs: dict[str, Run] = {}
        dependencies = self.dependencies = _dependencies(values, context, derived, shapes)
        """What every part reads of the whole document: the same object for two versions
        whose parts are each a function of its element's text alone."""
        for kind in PART_KINDS:
            count = self._counts[kind]
            keys: Sequence[object] = exactly(source_map.element_keys(kind), count)
            bases = source_map.element_bases(kind)[:count]
            if None in keys:
                # An element not read from statements of its own: its part is found again
                # within this version only (under a key of its own), its offsets absolute.
                unkeyed = object()
                written = source_map.element_bases(kind)
                bases = [written[i] if key is not None else 0 for i, key in enumerate(keys)]
                keys = [key if key is not None else unkeyed for key in keys]
            self._keys[kind], self._bases[kind] = keys, bases
            self._runs[kind] = derived.begin(f"index:{kind}", dependencies, lazy=True)

    @property
    def resolver(self) -> PathResolver:
        return self._resolver

    def document(self) -> IndexPart:
        with self._lock:
            if self._document is None:
                self._document = self._writer.document()
            return self._document

    def holder(self, offset: int) -> tuple[PartKind, int] | None:
        located = self._source_map.locate(offset)
        return holder_of(located.location) if located is not None else None

    def prepare(self) -> None:
        self._source_map.prepare_locate()

    def keys(self, kind: PartKind) -> Sequence[object]:
        """Each element's key (``SourceMap.element_keys``), what its part is found by."""
        return self._keys[kind]

    def begins(self, kind: PartKind, index: int) -> int | None:
        """Where the element's text begins (None when it has no entry)."""
        entry = self._source_map.get((kind, index))
        return entry.value.start if entry is not None else None

    def elements_in(self, kind: PartKind, start: int, end: int) -> range:
        """From the last element beginning at or before ``start`` to the last beginning at
        or before ``end``: every statement of an element lies before the next element
        begins (a TOML table extending a ``[[nodes]]`` entry extends the last one), so no
        other element's part holds a name there. Found by bisection over where the
        elements begin; every element when one has no entry."""
        count = self.count(kind)

        def begins(index: int) -> int:
            start = self.begins(kind, index)
            if start is None:
                raise LookupError(index)
            return start

        try:
            first = bisect.bisect_right(range(count), start, key=begins) - 1
            last = bisect.bisect_right(range(count), end, key=begins) - 1
        except LookupError:
            return range(count)
        return range(max(first, 0), last + 1)

    def elements_mentioning(self, kind: PartKind, name: str) -> Sequence[int]:
        """The elements whose text holds ``name`` or a backslash, found from where the text
        holds them (``elements_in``). An occurrence's span holds its name as written,
        which spells the symbol's name unless an escape (TOML's, JSON's or a path's own
        quoting, each a backslash) wrote it otherwise; a name with a line break may have
        been written with another one. Every element when that cannot be told, or when
        the text holds the name so often that finding each element costs more than
        taking them all."""
        count = self.count(kind)
        text = self._text
        if text is None or not name or "\n" in name or "\r" in name:
            return range(count)
        found: set[int] = set()
        most = max(64, count // 8)
        hits = 0
        for needle in (name, "\\"):
            at = text.find(needle)
            while at >= 0:
                hits += 1
                if hits > most:
                    return range(count)
                found.update(self.elements_in(kind, at, at + len(needle)))
                at = text.find(needle, at + 1)
        return sorted(found)

    def count(self, kind: PartKind) -> int:
        return self._counts[kind]

    def part(self, kind: PartKind, index: int) -> tuple[IndexPart, int]:
        base = self._bases[kind][index]
        make: Callable[[], IndexPart] = partial(self._writer.write, kind, index, base)
        with self._lock:
            part = self._runs[kind].at(index, self._keys[kind][index], make)
        return part, base

    def every(self, kind: PartKind) -> list[tuple[IndexPart, int]]:
        """``part`` of each element, the ones found again looked up at once
        (``found_at_all``): a whole-document question after an edit (every token) finds
        thousands. The others are made one by one, as ``part`` makes them: a request on
        the loop asking for one part never waits for all of them."""
        run, keys = self._runs[kind], self._keys[kind]
        with self._lock:
            parts, missing = run.found_at_all(keys, self._counts[kind])
        for index in missing:
            parts[index] = self.part(kind, index)[0]  # each made under the lock on its own
        with self._lock:
            run.keep_at_all(keys, parts)
        return list(zip(parts, self._bases[kind], strict=True))


def holder_of(location: Sequence[object]) -> tuple[PartKind, int] | None:
    """The node or edge whose text holds ``location``, if any."""
    if len(location) >= 2 and isinstance(location[1], int):
        kind = location[0]
        if kind == "nodes" and location[1] >= 0:
            return "nodes", location[1]
        if kind == "edges" and location[1] >= 0:
            return "edges", location[1]
    return None


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


NodeShape = tuple[object, object, object, object, object, object]
"""What the index reads of a node beyond its own part: its id, type, ``as``, ``over``,
node def and listed outcomes (what a path or an edge names)."""


def node_shape(node: Mapping[str, object]) -> NodeShape:
    from wf_core.models.steps import NODE_TABLE

    kind = node.get("type")
    spec = NODE_TABLE.get(kind) if isinstance(kind, str) else None
    listed = spec.outcomes.listed if spec is not None else None
    outcomes = node.get(listed) if listed is not None else None
    return (node.get("id"), kind, node.get("as"), node.get("over"), node.get("node"), outcomes)


def node_shapes(
    nodes: Sequence[Mapping[str, object]], source_map: SourceMap, derived: Derivations
) -> Sequence[NodeShape]:
    """Each node's shape, found again under its element's key: an edit inside one node
    makes that node's shape alone, and the list is equal to the last one, element by
    element the same objects, while no shape changed (never changed once handed out:
    ``Run.keep_all``)."""
    run = derived.begin("index:structure")
    keys = source_map.element_keys("nodes")
    return run.get_all(keys, len(nodes), lambda i: node_shape(nodes[i]))


def _dependencies(
    values: Mapping[str, object],
    context: ContextModel | None,
    derived: Derivations,
    shapes: Sequence[NodeShape],
) -> object:
    """What every part reads of the whole document, as one object kept while it stays
    equal: the context model (owner stacks, kept while the graph's structure is), each
    node's shape, the schemas, the node defs and the workflow's outcomes."""
    everything = (
        context,
        shapes,
        values.get("input_schema"),
        values.get("state_schema"),
        values.get("output_schema"),
        values.get("node_defs"),
        "outcomes" in values,
        values.get("outcomes"),
    )
    return derived.latest("index:dependencies", everything, object)

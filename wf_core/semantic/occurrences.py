"""The records of the semantic index: symbols, their occurrences, and path strings.

A *symbol* is something a workflow names and refers to by name: a node id, a
foreach alias, a node def, an outcome, a schema property. An *occurrence* is
one place in the text where that name is written, as its definition or as a
reference; a name that resolves to nothing is still an occurrence, with no
symbol, so features can say what is wrong with it. A *path occurrence* is one
path string with its role and every segment classified.

Invariant: every span is a document span of the snapshot the index was built
for; every occurrence inside a path string is also a segment of that path's
:class:`PathOccurrence` (same span, same symbol).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import Any, Generic, TypeVar

from wf_core.base.locations import Location
from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.documents import StringLiteral
from wf_core.language.path_scan import PathScan


class SymbolKind(StrEnum):
    NODE = "node"
    ALIAS = "alias"
    NODE_DEF = "node_def"
    OUTCOME = "outcome"
    PROPERTY = "property"
    WORKFLOW = "workflow"


@record
class Symbol:
    """A named thing, identified by ``kind`` and ``key`` within one document.

    Keys: a node ``(id,)``; an alias ``(owner foreach id,)``; a node def
    ``(name,)``; an outcome ``(scope, owner, outcome)`` with scope ``node_def``,
    ``node`` (a subgraph's or interrupt's own outcomes), ``workflow`` or
    ``builtin`` (foreach, condition, join: nothing declares them); a schema
    property ``(location of its declaration)``; a workflow ``(name,)`` (declared by the
    top-level ``name``, referred to by subgraphs, across documents). ``name`` is the
    name as written.
    """

    kind: SymbolKind
    key: tuple[Any, ...]
    name: str


class Role(StrEnum):
    DEFINITION = "definition"
    REFERENCE = "reference"


class NameSyntax(StrEnum):
    """How the name is written, which decides how a new name is written there."""

    STRING = "string"  # the whole content of a string value (``start = "a"``)
    SEGMENT = "segment"  # one segment of a path string, quotes included when quoted
    KEY = "key"  # a table key (``properties.name``)


@record
class Occurrence:
    """One written name. ``symbol`` is None when the name resolves to nothing."""

    kind: SymbolKind
    name: str
    span: Span
    role: Role
    syntax: NameSyntax
    location: Location  # of the value (or key) that holds the name
    symbol: Symbol | None
    segment: int | None = None  # for a path segment: its index in the path
    style: str | None = None  # string literal style, for STRING and SEGMENT names


class PathRole(StrEnum):
    """What a path string does where it is written."""

    SOURCE = "source"  # a binding's or expression's ``path``: a read
    OVER = "over"  # a foreach ``over``: a read
    CONDITION = "condition"  # a condition's ``path`` or operand: a read
    OUTPUT = "output"  # a workflow ``output`` binding's ``path``: a read of the root context
    LOCAL_TARGET = "local_target"  # a binding's ``target`` in the node's input payload
    LOCAL_SOURCE = "local_source"  # an output binding's ``source`` in the node's output
    STATE_TARGET = "state_target"  # an output/resume ``target`` or ``collect_to``
    OUTPUT_TARGET = "output_target"  # a workflow ``output`` binding's ``target``

    @property
    def reads_graph(self) -> bool:
        return self in _READS


_READS = frozenset((PathRole.SOURCE, PathRole.OVER, PathRole.CONDITION, PathRole.OUTPUT))


class SegmentKind(StrEnum):
    ROOT = "root"  # input, state, context
    FOREACH = "foreach"  # context.foreach
    FOREACH_ID = "foreach_id"  # context.foreach.<id>
    ENTRY_FIELD = "entry_field"  # context.foreach.<id>.<field>
    STANDARD_FIELD = "standard_field"  # context.scope_id ...
    ALIAS = "alias"  # context.<alias>
    CONVENIENCE = "convenience"  # context.loop_item, context.loop_index
    MEMBER = "member"  # a declared property
    UNKNOWN = "unknown"  # nothing declares it (validation says why)


@record
class PathSegment:
    index: int
    value: str
    span: Span
    kind: SegmentKind
    symbol: Symbol | None = None
    deprecated: bool = False


@record
class PathOccurrence:
    """One path string. ``node_index`` is the document index of the node that consumes
    it (None for the workflow output); ``node_id`` its id when it has one."""

    location: Location
    role: PathRole
    node_index: int | None
    node_id: str | None
    literal: StringLiteral
    scan: PathScan
    segments: tuple[PathSegment, ...]

    def segment_at(self, offset: int) -> PathSegment | None:
        for segment in self.segments:
            if segment.span.start <= offset <= segment.span.end:
                return segment
        return None


_Item = TypeVar("_Item")


def in_document_order(items: list[_Item], span_of: Callable[[_Item], Span]) -> list[_Item]:
    """``items`` sorted in place by where their spans start, an outer span before the
    spans it holds (runs already in order, as the parts' are, cost the sort a merge)."""
    items.sort(key=lambda item: (span_of(item).start, -span_of(item).end))
    return items


class SpanIndex(Generic[_Item]):
    """Items sorted by span start, answering "what is at this offset" by bisection."""

    __slots__ = ("_items", "_starts")

    def __init__(self, items: list[_Item], span_of: Callable[[_Item], Span]) -> None:
        self._items = in_document_order(items, span_of)
        self._starts = [span_of(item).start for item in items]

    def at(self, offset: int, span_of: Callable[[_Item], Span]) -> _Item | None:
        """The innermost item whose span holds ``offset`` (touching its end counts)."""
        position = bisect.bisect_right(self._starts, offset)
        best = None
        for item in reversed(self._items[max(0, position - 8) : position]):
            span = span_of(item)
            if span.start <= offset <= span.end and (
                best is None or span.end - span.start < span_of(best).end - span_of(best).start
            ):
                best = item
        return best

    def __iter__(self) -> Iterator[_Item]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

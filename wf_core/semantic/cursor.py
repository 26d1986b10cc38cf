"""What is under an offset: the one classifier every editor feature starts from.

Modelled on "what is at this position" queries of other language servers: the
innermost name (an occurrence of a symbol), the path string and segment, the
string value and its location, or the key being written. A feature looks at
the most specific answer it can use.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from wf_core.base.locations import Location
from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.documents import Located, StringLiteral
from wf_core.semantic.occurrences import Occurrence, PathOccurrence, PathSegment

if TYPE_CHECKING:
    from wf_core.version.view import AnalysisView


@record
class StringCursor:
    """The cursor inside a string value: its location, literal and decoded offset."""

    location: Location
    literal: StringLiteral
    offset: int


@record
class Cursor:
    offset: int
    occurrence: Occurrence | None
    path: PathOccurrence | None
    segment: PathSegment | None
    string: StringCursor | None
    located: Located | None
    node_index: int | None  # the ``nodes`` entry whose text holds the offset

    @property
    def in_key(self) -> bool:
        return self.located is not None and self.located.in_key


def literal_interior(literal: StringLiteral) -> Span:
    """Where a cursor is inside a string literal, the one rule every feature uses: from
    just after the opening quote to just before the closing one, both ends included, or,
    while the literal is not closed yet, to the end of what is typed (its line)."""
    return Span(literal.content.start, literal.content.end if literal.closed else literal.span.end)


def in_literal(literal: StringLiteral, offset: int) -> bool:
    """Whether ``offset`` is inside ``literal`` (``literal_interior``)."""
    interior = literal_interior(literal)
    return interior.start <= offset <= interior.end


def decoded_offset(literal: StringLiteral, offset: int) -> int:
    """Inverse of ``StringLiteral.doc_offset``: the decoded index at a document offset."""
    if offset <= literal.content.start:
        return 0
    positions = range(len(literal.value) + 1)
    index = bisect.bisect_right(positions, offset, key=literal.doc_offset) - 1
    return max(0, min(index, len(literal.value)))


def string_at(view: AnalysisView, offset: int) -> StringCursor | None:
    source_map = view.parsed.source_map
    located = source_map.locate(offset)
    if located is None or located.in_key:
        return None
    literal = source_map.string(located.location)
    if literal is None or not in_literal(literal, offset):
        return None
    return StringCursor(tuple(located.location), literal, decoded_offset(literal, offset))


def classify(view: AnalysisView, offset: int) -> Cursor:
    index = view.index
    path = index.path_at(offset)
    if path is not None and not in_literal(path.literal, offset):
        path = None
    segment = path.segment_at(offset) if path is not None else None
    occurrence = index.occurrence_at(offset)
    located = view.parsed.source_map.locate(offset)
    node = node_index_at(view, offset, located)
    return Cursor(offset, occurrence, path, segment, string_at(view, offset), located, node)


def node_of(located: Located | None) -> int | None:
    """The document index of the ``nodes`` entry a located key or value lies in (a
    ``[[nodes]]`` header, or the space between JSON elements, lies in none: see
    ``node_index_at``)."""
    if located is None:
        return None
    location = located.location
    if len(location) >= 2 and location[0] == "nodes" and isinstance(location[1], int):
        return location[1]
    return None


def node_index_at(view: AnalysisView, offset: int, located: Located | None) -> int | None:
    """The document index of the node whose entry holds ``offset``.

    A TOML ``[[nodes]]`` entry runs from its header through its last pair, a
    JSON node from its opening to its closing brace; the key of a ``[[nodes]]``
    header and the space between JSON elements belong to the array, so the
    element is found by its span.
    """
    inside = node_of(located)
    if inside is not None or located is None:
        return inside
    if tuple(located.location) != ("nodes",):
        return None
    source_map = view.parsed.source_map
    count = len(view.index.resolver.nodes)
    spans = [source_map.get(("nodes", index)) for index in range(count)]
    starts = [entry.value.start if entry else -1 for entry in spans]
    index = bisect.bisect_right(starts, offset) - 1
    entry = spans[index] if index >= 0 else None
    if entry is not None and entry.value.start <= offset <= entry.value.end:
        return index
    return None

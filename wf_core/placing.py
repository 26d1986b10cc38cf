"""Placed findings of a document's previous version, reused by the next one.

Placing a finding (``DocumentSnapshot.place``) resolves its location to the
characters at fault: the string literal, the path segment inside it. After an
edit inside one node, every other node's findings are the very same
:class:`Issue` objects (``validation.memo``) and their text has not changed,
only moved: each node is a chunk of the source map, converted once and placed
at a new base offset in every version that contains its text. So a finding
placed inside a chunk sits at the same offset relative to that chunk in every
version that contains the chunk, and placing it again is an addition. A
version where nothing before the chunk changed length hands out the very same
:class:`PlacedIssue`.

Invariant, kept by :meth:`PlacementMemo.get`: an entry is only read back for the
same issue object (held by the entry, so its ``id()`` is not reused), at the
same document location, resolved in the same chunk object; the entry's range
lay inside that chunk when it was made. Findings whose placement reads other
parts of the document (related places, ranges given by the analysis, a range
found elsewhere than the location) are not kept.

One memo belongs to one document and is used by one analysis at a time (the
server's store analyses a document under its lock); :meth:`begin` starts each.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from wf_core.issues import Issue
from wf_core.locations import Location
from wf_core.spans import Span

if TYPE_CHECKING:
    from wf_core.documents.source_map import Chunk
    from wf_core.snapshot import PlacedIssue

# issue, its document location, the chunk and base it was placed in, the placed finding
_Entry = tuple[Issue, Location, "Chunk", int, "PlacedIssue"]


class PlacementMemo:
    def __init__(self) -> None:
        self._previous: dict[int, _Entry] = {}
        self._current: dict[int, _Entry] = {}

    def begin(self) -> None:
        """Start placing a new version: what the last one placed may be read back."""
        self._previous, self._current = self._current, {}

    def get(self, issue: Issue, location: Location, chunk: Chunk, base: int) -> PlacedIssue | None:
        """``issue`` placed in this version, if the last version placed it in ``chunk``."""
        entry = self._previous.get(id(issue))
        if entry is None or entry[0] is not issue or entry[2] is not chunk or entry[1] != location:
            return None
        placed = entry[4]
        shift = base - entry[3]
        if shift:
            span = placed.span
            placed = replace(placed, span=Span(span.start + shift, span.end + shift))
            entry = (issue, location, chunk, base, placed)
        self._current[id(issue)] = entry  # unmoved: carried over as it is (no new object)
        return placed

    def put(self, location: Location, chunk: Chunk, base: int, placed: PlacedIssue) -> None:
        """Keep ``placed`` for the next version, if its range lies inside ``chunk``
        (whose text starts at ``base``)."""
        span = placed.span
        if base <= span.start and span.end <= base + len(chunk.text):
            self._current[id(placed.issue)] = (placed.issue, location, chunk, base, placed)

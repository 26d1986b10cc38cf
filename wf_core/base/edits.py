"""Edits of a document's text, and the region a run of them changed.

A change the client sends enters once, as an :class:`Edit` (code-point offsets in
the text it applies to); the text is made by applying it, and everything that
follows a document from one version to the next (the parser's tree and statements,
the line index) reads the :class:`Region` the edits changed
instead of comparing the two texts to find it. Comparing texts is left to
:func:`edit_between`, for a change that replaces the whole text.

Invariant: a region says where two texts may differ; outside it they are equal
(``old[:start] == new[:start]`` and ``old[old_end:] == new[new_end:]``). It may be
wider than the characters that changed (an edit that writes what was there
already), never narrower.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import field
from typing import TYPE_CHECKING

from wf_core.base.records import record

if TYPE_CHECKING:
    from wf_core.base.spans import LineIndex


@record
class Region:
    """Where a text changed: ``[start, old_end)`` of the old text became
    ``[start, new_end)`` of the new one."""

    start: int
    old_end: int
    new_end: int

    @property
    def delta(self) -> int:
        """How much longer the new text is."""
        return self.new_end - self.old_end

    @property
    def is_empty(self) -> bool:
        """Nothing replaced by nothing: the two texts are equal."""
        return self.start == self.old_end == self.new_end

    def then(self, later: Region) -> Region:
        """The region of this change followed by ``later`` (a region of the text this
        change made): their union, in the first text's and the last text's offsets."""
        # The union's end in the middle text, then mapped back through this change
        # (where it lies at or after ``new_end``) and forward through ``later`` (at or
        # after its ``old_end``).
        middle_end = max(self.new_end, later.old_end)
        return Region(
            min(self.start, later.start),
            middle_end - self.new_end + self.old_end,
            middle_end - later.old_end + later.new_end,
        )


UNCHANGED = Region(0, 0, 0)
"""The region of no change at all."""


@record
class Edit:
    """``[start, end)`` of a text replaced by ``new_text`` (code-point offsets)."""

    start: int
    end: int
    new_text: str
    # A text and what the edit makes of it, when that is known already: a client's
    # change of the whole text (``edit_between``), not to be put together again (5 MB:
    # 4 ms). Only for that very text (compared by identity).
    known: tuple[str, str] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"invalid edit range {self.start}..{self.end}")

    def apply(self, text: str) -> str:
        if self.known is not None and self.known[0] is text:
            return self.known[1]
        return text[: self.start] + self.new_text + text[self.end :]

    @property
    def region(self) -> Region:
        return Region(self.start, self.end, self.start + len(self.new_text))


EditAt = Callable[["LineIndex"], Edit]
"""An edit whose offsets are read with the line index of the text it applies to: a
client's change, given in lines and columns of the text the changes before it made."""


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` after ``edits``, each in the offsets of the text the ones before it made."""
    for edit in edits:
        text = edit.apply(text)
    return text


def region_of(edits: Iterable[Edit]) -> Region | None:
    """The region ``edits``, applied one after the other, changed (None for no edits),
    found from the edits alone."""
    region = None
    for edit in edits:
        region = edit.region if region is None else region.then(edit.region)
    return region


def apply_in_order(
    lines: LineIndex, edits: Iterable[Edit | EditAt]
) -> tuple[LineIndex, Region | None]:
    """The line index of the text ``edits`` make of ``lines.text`` (its ``text`` is the
    new text) and the region they changed (None for no edits).

    Each edit is applied to the text the ones before it made, and one given as an
    :data:`EditAt` is read with that text's index, so a client's changes, each in the
    positions of the text before it, land where the client meant them. Each index
    after an edit inside one line is derived from the one before (``LineIndex.following``),
    so typing never rescans the text.
    """
    region = None
    for item in edits:
        edit = item if isinstance(item, Edit) else item(lines)
        changed = edit.region
        lines = lines.following(edit.apply(lines.text), changed)
        region = changed if region is None else region.then(changed)
    return lines, region


def edit_between(old: str, new: str) -> Edit:
    """The edit that makes ``new`` of ``old``, narrowed to the one region where they
    differ: what a change replacing the whole text becomes.

    The only place where two texts are compared to find what changed: a client that
    sends whole texts gives nothing else to go on. Bisection over slice comparisons
    keeps the work in C, and each step compares only the half still in doubt, so the
    whole search copies each text about once (two 5 MB texts: a few milliseconds).
    """
    limit = min(len(old), len(new))
    prefix = _common_length(old, new, limit, lambda text, a, b: text[a:b])
    suffix = _common_length(
        old, new, limit - prefix, lambda text, a, b: text[len(text) - b : len(text) - a]
    )
    return Edit(prefix, len(old) - suffix, new[prefix : len(new) - suffix], (old, new))


def _common_length(old: str, new: str, limit: int, part: Callable[[str, int, int], str]) -> int:
    """The largest ``n <= limit`` with ``part(old, 0, n) == part(new, 0, n)``, where
    ``part(text, a, b)`` is the piece from ``a`` to ``b`` of a prefix (or suffix) and
    the pieces agree up to ``n`` exactly when they agree piece by piece."""
    lo, hi = 0, limit  # invariant: the first ``lo`` agree; the first ``hi + 1`` do not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if part(old, lo, mid) == part(new, lo, mid):
            lo = mid
        else:
            hi = mid - 1
    return lo

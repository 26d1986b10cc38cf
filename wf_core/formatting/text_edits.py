"""The smallest edits that turn one text into another.

An editor applies a formatter's edits to the text the author is looking at: one edit
replacing the whole text moves the cursor to its end and makes undo coarse, and so do
edits larger than what changed. The lines are compared first (``difflib``), then each
changed block is trimmed of the characters it shares with its replacement at both
ends, so an already formatted document gets no edit at all and a changed indentation
one edit of its spaces.
"""

from __future__ import annotations

import difflib
from itertools import accumulate

from wf_core.base.records import record


@record
class Replacement:
    """``[start, end)`` of the old text (code-point offsets) becomes ``text``."""

    start: int
    end: int
    text: str


def minimal_edits(old: str, new: str) -> list[Replacement]:
    """Replacements, in text order and not overlapping, that make ``new`` of ``old``."""
    if old == new:
        return []
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    starts = [0, *accumulate(len(line) for line in old_lines)]
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    edits: list[Replacement] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        edit = _trimmed(starts[i1], "".join(old_lines[i1:i2]), "".join(new_lines[j1:j2]))
        if edit is not None:
            edits.append(_inside(edit, old))
    return edits


def _trimmed(start: int, old: str, new: str) -> Replacement | None:
    """The replacement of ``old`` (at ``start``) by ``new`` without their common ends, the
    common end trimmed first: a line added after the last keeps the text's final line
    break after it, so the edit stays inside the document's lines."""
    if old == new:
        return None
    limit = min(len(old), len(new))
    tail = 0
    while tail < limit and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    head = 0
    while head < limit - tail and old[head] == new[head]:
        head += 1
    return Replacement(start + head, start + len(old) - tail, new[head : len(new) - tail])


def _inside(edit: Replacement, text: str) -> Replacement:
    """``edit`` moved one character back when it reaches the end of ``text`` after a line
    break and adds or removes whole lines (it then means the same): some clients (Neovim)
    add a line for an edit that ends past the last line."""
    start, end, new = edit.start, edit.end, edit.text
    if (
        end == len(text)
        and start > 0
        and text[start - 1] == "\n"
        and text[end - 1] == "\n"
        and (not new or new.endswith("\n"))
    ):
        return Replacement(start - 1, end - 1, "\n" + new[:-1] if new else "")
    return edit


def apply_edits(text: str, edits: list[Replacement]) -> str:
    """``text`` with ``edits`` (from ``minimal_edits``) applied."""
    out: list[str] = []
    at = 0
    for edit in edits:
        out.append(text[at : edit.start])
        out.append(edit.text)
        at = edit.end
    out.append(text[at:])
    return "".join(out)

""" "Did you mean": the closest declared name for an unknown one."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Iterable, Sequence

from wf_core.base.issues import IssueData


def closest_name(name: str, candidates: Iterable[str]) -> str | None:
    """The declared name most like ``name``; a misspelt prefix of a longer name counts
    (``timout`` → ``timeout_seconds``)."""
    pool = [c for c in candidates if c != name]
    matches = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if matches:
        return matches[0]
    if len(name) < 4:
        return None
    heads = {c[: len(name) + 1]: c for c in pool if len(c) > len(name) + 1}
    matches = difflib.get_close_matches(name, list(heads), n=1, cutoff=0.8)
    return heads[matches[0]] if matches else None


def did_you_mean(name: str, candidates: Iterable[str]) -> IssueData:
    """Issue extras for an unknown ``name``: ``data["suggestion"]`` for quick fixes, which
    the presentation layers also show as "did you mean ...?"; empty when nothing is close."""
    suggestion = closest_name(name, candidates)
    return {"data": {"suggestion": suggestion}} if suggestion else {}


RUN_REACH = 6
"""Segments a dotted run may span on either side of the unknown one."""


def dotted_run(
    parts: Sequence[str],
    index: int,
    names_at: Callable[[tuple[str, ...]], Collection[str]],
    fits: Callable[[tuple[str, ...]], bool],
) -> tuple[int, int] | None:
    """``(start, end)``: the segments ``parts[start:end]`` (two or more, the unknown
    ``parts[index]`` among them) that, joined by their dots, are one name declared where
    ``parts[start]`` stands: a dotted name read without its quotes
    (``context.foreach.orders.v2.item`` for the loop ``orders.v2``). ``names_at(prefix)``
    lists the names declared after ``prefix``; of several runs, the first whose path
    then ``fits`` (walks to its end), else the first, nearest and longest first. None
    when no run names anything."""
    found: tuple[int, int] | None = None
    for start in range(index, max(-1, index - RUN_REACH), -1):
        dotted = {name for name in names_at(tuple(parts[:start])) if "." in name}
        if not dotted:
            continue
        for end in range(min(len(parts), start + RUN_REACH), start + 1, -1):
            if end <= index or ".".join(parts[start:end]) not in dotted:
                continue
            if fits(joined(parts, start, end)):
                return start, end
            found = found or (start, end)
    return found


def joined(parts: Sequence[str], start: int, end: int) -> tuple[str, ...]:
    """``parts`` with ``parts[start:end]`` read as the one dotted name they spell."""
    return (*parts[:start], ".".join(parts[start:end]), *parts[end:])

""" "Did you mean": the closest declared name for an unknown one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


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


def did_you_mean(name: str, candidates: Iterable[str]) -> dict[str, Any]:
    """Issue extras for an unknown ``name``: ``data["suggestion"]`` for quick fixes, which
    the presentation layers also show as "did you mean ...?"; empty when nothing is close."""
    suggestion = closest_name(name, candidates)
    return {"data": {"suggestion": suggestion}} if suggestion else {}

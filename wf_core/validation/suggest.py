""" "Did you mean": the closest declared name for an unknown one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


def closest_name(name: str, candidates: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


def did_you_mean(name: str, candidates: Iterable[str]) -> dict[str, Any]:
    """Issue extras for an unknown ``name``: ``data["suggestion"]`` for quick fixes, which
    the presentation layers also show as "did you mean ...?"; empty when nothing is close."""
    suggestion = closest_name(name, candidates)
    return {"data": {"suggestion": suggestion}} if suggestion else {}

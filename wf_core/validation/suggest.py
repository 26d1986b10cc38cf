""" "Did you mean": the closest declared name for an unknown one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest_name(name: str, candidates: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None

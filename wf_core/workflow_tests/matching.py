"""How an expectation matches what happened: subsets of JSON values, subsequences of ids.

An expected object matches an actual object holding at least its keys, each matching;
an expected array matches an array of the same length whose elements match in order;
any other value matches an equal value of the same JSON type (``1`` matches ``1.0``,
never ``true``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["first_missing", "is_subset"]


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def is_subset(expected: object, actual: object) -> bool:
    """Whether ``actual`` holds ``expected`` (see the module's rule)."""
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and is_subset(value, actual[key]) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(is_subset(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return _kind(expected) == _kind(actual) and expected == actual


def first_missing(expected: Sequence[str], actual: Sequence[str]) -> int | None:
    """The index in ``expected`` of the first id that does not follow the ones before it
    in ``actual`` (None when ``expected`` is a subsequence of ``actual``)."""
    position = 0
    for index, name in enumerate(expected):
        try:
            position = actual.index(name, position) + 1
        except ValueError:
            return index
    return None

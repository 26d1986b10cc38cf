"""What a document's values alone say: deprecated forms, unknown keys, schema keywords.

These checks read the document's plain values, not the model, and each finding is
in a document location. Apart from the top level's, every finding belongs to one
element of ``edges``, ``node_defs`` or ``nodes``, and depends on nothing but that
element and its index. The document front-ends hand out the very same value
object for an element an edit did not touch (as the model loader relies on,
``wf_core.models.loading.ModelCache``), so an element's findings are kept with
the object and its index, and an edit checks only the elements it touched: at
16,000 nodes the whole checks took 80 to 90 ms of every edit.

Invariant, kept by :meth:`DocumentChecksMemo.checks`: an entry is read back only
for the very value object it was made for, at the same list and index (the
entry holds the object, so its identity cannot be reused meanwhile); each run
keeps just the entries it used or made. The order of the findings is that of
the three checks one after the other, as ``find_deprecated_forms``,
``unknown_keys`` and ``schema_issues`` give them for the whole document.
"""

from __future__ import annotations

from typing import Any

from wf_core.issues import Issue
from wf_core.mappings import is_mapping
from wf_core.models.deprecations import (
    find_deprecated_forms,
    node_deprecated_forms,
    top_deprecated_forms,
)
from wf_core.models.keys import element_unknown_keys, top_unknown_keys, unknown_keys
from wf_core.validation.schema_checks import (
    element_schema_issues,
    schema_issues,
    top_schema_issues,
)

ELEMENT_LISTS = ("edges", "node_defs", "nodes")
Checks = tuple[tuple[Issue, ...], tuple[Issue, ...], tuple[Issue, ...]]
"""One element's findings: (deprecated forms, unknown keys, schema keywords)."""


def element_checks(kind: str, index: int, item: Any) -> Checks:
    return (
        tuple(node_deprecated_forms(index, item)) if kind == "nodes" else (),
        tuple(element_unknown_keys(kind, index, item)),
        tuple(element_schema_issues(kind, index, item)) if kind != "edges" else (),
    )


class DocumentChecksMemo:
    """The elements' findings of a document's last version (one memo per document,
    used by one analysis at a time). Entries are filed by list, then under the element's
    integer index, and an entry read back is carried over as it is: no new object for an
    untouched element, as in ``wf_core.validation.memo`` (a key tuple per element would
    be 30,000 survivors of every edit at 16,000 nodes for the collector to scan)."""

    __slots__ = ("_current", "_previous")

    def __init__(self) -> None:
        self._previous: dict[str, dict[int, tuple[Any, Checks]]] = _by_list()
        self._current: dict[str, dict[int, tuple[Any, Checks]]] = _by_list()

    def begin(self) -> None:
        self._previous, self._current = self._current, _by_list()

    def checks(self, kind: str, index: int, item: Any) -> Checks:
        entry = self._previous[kind].get(index)
        if entry is None or entry[0] is not item:
            entry = (item, element_checks(kind, index, item))
        self._current[kind][index] = entry
        return entry[1]


def _by_list() -> dict[str, dict[int, tuple[Any, Checks]]]:
    return {kind: {} for kind in ELEMENT_LISTS}


def document_checks(values: Any, memo: DocumentChecksMemo | None = None) -> tuple[Issue, ...]:
    """Every finding of the three checks, in their order; with ``memo``, an element the
    last run checked as the very same object is not checked again."""
    if not is_mapping(values):
        return ()
    if memo is None:  # the same checks of the whole document, without a tuple per element
        return (*find_deprecated_forms(values), *unknown_keys(values), *schema_issues(values))
    memo.begin()
    found: dict[str, list[Checks]] = {}
    for kind in ELEMENT_LISTS:
        items = values.get(kind)
        items = items if isinstance(items, list) else ()
        found[kind] = [memo.checks(kind, i, item) for i, item in enumerate(items)]
    return (
        *top_deprecated_forms(values),
        *_part(found["nodes"], 0),
        *top_unknown_keys(values),
        *_part(found["edges"], 1),
        *_part(found["node_defs"], 1),
        *_part(found["nodes"], 1),
        *top_schema_issues(values),
        *_part(found["node_defs"], 2),
        *_part(found["nodes"], 2),
    )


def _part(checks: list[Checks], which: int) -> list[Issue]:
    return [issue for found in checks for issue in found[which]]

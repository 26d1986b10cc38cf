"""What a document's values alone say: deprecated forms, unknown keys, schema keywords.

These checks read the document's plain values, not the model, and each finding is
in a document location. Apart from the top level's, every finding belongs to one
element of ``edges``, ``node_defs`` or ``nodes``, and depends on nothing but that
element and its index. So an element's findings are derived (``wf_core.base.derived``)
under its content key and its index, and an edit checks only the elements it touched:
at 16,000 nodes the whole checks took 80 to 90 ms of every edit.

The order of the findings is that of the three checks one after the other, as
``find_deprecated_forms``, ``unknown_keys`` and ``schema_issues`` give them for the
whole document.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from wf_core.base.derived import Derivations
from wf_core.base.issues import Issue
from wf_core.base.mappings import is_mapping
from wf_core.documents.source_map import ElementKey
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

CHECKED_LISTS = ("edges", "node_defs", "nodes")
Checks = tuple[tuple[Issue, ...], tuple[Issue, ...], tuple[Issue, ...]]
"""One element's findings: (deprecated forms, unknown keys, schema keywords)."""


def element_checks(kind: str, index: int, item: object) -> Checks:
    return (
        tuple(node_deprecated_forms(index, item)) if kind == "nodes" else (),
        tuple(element_unknown_keys(kind, index, item)),
        tuple(element_schema_issues(kind, index, item)) if kind != "edges" else (),
    )


def document_checks(
    values: object,
    derived: Derivations | None = None,
    keys: Callable[[str], Sequence[ElementKey | None]] | None = None,
) -> tuple[Issue, ...]:
    """Every finding of the three checks, in their order; with ``derived`` and the
    elements' ``keys``, an element the last run checked at the same index with the same
    key is not checked again."""
    if not is_mapping(values):
        return ()
    if derived is None or keys is None:
        # The same checks of the whole document, without a tuple per element.
        return (*find_deprecated_forms(values), *unknown_keys(values), *schema_issues(values))
    found: dict[str, list[Checks]] = {}
    for kind in CHECKED_LISTS:
        items = values.get(kind)
        items = items if isinstance(items, list) else ()
        found[kind] = derived.begin(f"checks:{kind}").at_all(
            keys(kind), len(items), partial(_checks_at, kind, items)
        )
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


def _checks_at(kind: str, items: Sequence[object], index: int) -> Checks:
    return element_checks(kind, index, items[index])


def _part(checks: list[Checks], which: int) -> list[Issue]:
    return [issue for found in checks for issue in found[which]]

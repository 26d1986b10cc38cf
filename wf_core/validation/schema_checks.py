"""Checks of the document's JSON Schemas that lda-wf does not make.

- ``$ref`` resolves within the document only (language-server.md, "Bad
  input"): a reference to ``http://...``, ``file:///...`` or ``other.json#/x``
  is never fetched or read, by the analysis or by the runtime. It is an error
  (``invalid_model``) where it is written, as is a ``#/...`` pointer that
  names nothing in the document: the runtime refuses every value checked
  against such a schema, and the analysis treats the reference as absent.
- A ``pattern`` (or ``patternProperties`` key) that Python accepts but the
  linear-time engine refuses (look-around, backreferences, too large; see
  :mod:`wf_core.base.patterns`) is an error too: the runtime refuses every value it
  would have to match. An invalid pattern is the meta-schema's to report.

The schemas are walked iteratively, and ``$ref`` targets are looked up one by
one (never followed), so cycles and long chains cost nothing extra.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from wf_core.base.issues import Issue, ProjectCode, Severity
from wf_core.base.locations import Location
from wf_core.base.mappings import is_mapping
from wf_core.base.patterns import pattern_problem
from wf_core.models.schema_nav import DATA_KEYWORDS, Branch, SchemaNavigator

_NODE_SCHEMAS = ("input_schema", "output_schema", "request_schema", "resume_schema")
_TOP_SCHEMAS = ("input_schema", "state_schema", "output_schema")


def schema_issues(values: object) -> list[Issue]:
    """``invalid_model`` errors for references and patterns the document cannot honour: in
    the top-level schemas, then in each node def's and node's."""
    if not is_mapping(values):
        return []
    issues = top_schema_issues(values)
    for kind in ("node_defs", "nodes"):
        items = values.get(kind)
        for location, schema in _list_schemas(
            kind, enumerate(items if isinstance(items, list) else ())
        ):
            issues.extend(_check(location, schema))
    return issues


def top_schema_issues(values: Mapping[str, object]) -> list[Issue]:
    issues: list[Issue] = []
    for key in _TOP_SCHEMAS:
        schema = values.get(key)
        if is_mapping(schema):
            issues.extend(_check((key,), schema))
    return issues


def element_schema_issues(kind: str, index: int, item: object) -> list[Issue]:
    """The schema issues of ``values[kind][index]``, a node def or a node."""
    return [i for site in _list_schemas(kind, ((index, item),)) for i in _check(*site)]


def _list_schemas(
    kind: str, elements: Iterable[tuple[int, object]]
) -> Iterator[tuple[Location, Mapping[str, object]]]:
    """The schemas of the ``(index, element)`` pairs of ``values[kind]`` (node defs or
    nodes), with their locations."""
    keys = _NODE_SCHEMAS[:2] if kind == "node_defs" else _NODE_SCHEMAS
    for index, item in elements:
        if not is_mapping(item):
            continue
        for key in keys:
            schema = item.get(key)
            if is_mapping(schema):
                yield (kind, index, key), schema


def _check(prefix: Location, schema: Mapping[str, object]) -> Iterator[Issue]:
    # Only schemas that use $ref pay for a registry; the branch of each mapping keeps
    # its resolver (``$id`` scopes) so each ``$ref`` is looked up where it is written.
    root = SchemaNavigator(schema).root.nodes[0] if _mentions_ref(schema) else None
    stack: list[tuple[object, Location, Branch | None]] = [(schema, prefix, None)]
    while stack:
        value, location, scope = stack.pop()
        if isinstance(value, list):
            stack.extend((item, (*location, k), scope) for k, item in enumerate(value))
            continue
        if not is_mapping(value):
            continue
        branch = root if location == prefix else scope.subbranch(value) if scope else None
        ref = value.get("$ref")
        if isinstance(ref, str) and branch is not None and branch.resolve_ref() is None:
            yield _ref_issue((*location, "$ref"), ref)
        pattern = value.get("pattern")
        if isinstance(pattern, str):
            yield from _pattern_issue((*location, "pattern"), pattern, on_key=False)
        patterns = value.get("patternProperties")
        if is_mapping(patterns):
            for key in patterns:
                if isinstance(key, str):
                    yield from _pattern_issue(
                        (*location, "patternProperties", key), key, on_key=True
                    )
        for key, item in value.items():
            if key not in DATA_KEYWORDS and isinstance(item, Mapping | list):
                stack.append((item, (*location, key), branch))


def _mentions_ref(schema: object) -> bool:
    stack = [schema]
    while stack:
        item = stack.pop()
        if is_mapping(item):
            if isinstance(item.get("$ref"), str):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _ref_issue(location: Location, ref: str) -> Issue:
    if ref.startswith("#"):
        message = f"$ref {ref!r} does not resolve in this document"
    else:
        message = (
            f"$ref {ref!r} points outside the document: references resolve within the "
            "document only, and nothing is fetched"
        )
    return Issue(
        code=ProjectCode.INVALID_MODEL,
        location=location,
        message=message,
        severity=Severity.ERROR,
    )


def _pattern_issue(location: Location, pattern: str, *, on_key: bool) -> Iterator[Issue]:
    try:
        re.compile(pattern)  # compiled only, never matched: invalid ones are not ours
    except (re.error, RecursionError, OverflowError):
        return
    problem = pattern_problem(pattern)
    if problem is not None:
        yield Issue(
            code=ProjectCode.INVALID_MODEL,
            location=location,
            message=f"pattern {pattern!r} cannot be evaluated in linear time: {problem}",
            severity=Severity.ERROR,
            on_key=on_key,
        )

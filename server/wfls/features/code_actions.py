"""Code actions: a quick fix for each diagnostic that has a clear one, and a source action
that migrates every convenience key of the document.

Every fix is computed from what validation already worked out and left in the
issue's ``data`` (the closest declared name, the structured replacement of a
convenience key, the canonical form of a deprecated input, the missing
outcomes), so a fix can never disagree with the diagnostic it fixes. Text is
written through ``document_edits`` and ``wf_core.documents.writing`` and paths
through the canonical formatter.

Two actions are costly enough to be computed lazily when the client can resolve
them (``resolve_code_action``): renaming a conflicting alias with its reads, and
the migration. Their ``data`` names what to compute, never offsets, so resolving
against a newer version of the document still does the right thing.

Invariant: applying a fix leaves a document that parses, no longer reports the
diagnostic the fix is attached to, and has no new error — except that wiring an
unreachable node in makes that node's own missing edges count
(``tests/features/test_code_actions_properties.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from wf_core.base.issues import ProjectCode
from wf_core.base.locations import Location, NodeRef
from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.base.suggest import closest_name
from wf_core.documents.writing import write_key
from wf_core.language.context_contracts import is_valid_alias
from wf_core.language.path_scan import scan_path
from wf_core.language.paths import format_segment, format_segments, quote_bare_segments
from wf_core.language.tokens import END
from wf_core.models.steps import AnyStep, declared_outcomes
from wf_core.models.workflow import Workflow, node_defs_by_name, nodes_by_id
from wf_core.validation.core import reachable_nodes
from wf_core.validation.report import ValidationIssueCode as Code
from wf_core.validation.wiring import wiring_errors
from wf_core.version.snapshot import PlacedIssue
from wf_core.version.view import DiagnosedView
from wfls.features.document_edits import (
    add_schema_property,
    append_elements,
    remove_pair,
    replace_pair,
    string_edit,
)
from wfls.features.rename import aliases_active_with, rename
from wfls.features.types import (
    MIGRATE_CONVENIENCE_KEYS,
    QUICK_FIX,
    CodeAction,
    Refusal,
    TextEdit,
)

MIGRATE_TITLE = "Migrate convenience keys"
ALIAS_FIX = "alias"
MIGRATE = "migrate"


def code_actions(
    view: DiagnosedView,
    span: Span,
    *,
    only: Sequence[str] | None = None,
    lazy: bool = False,
    shown: Callable[[PlacedIssue], bool] = lambda issue: True,
    issues: Sequence[PlacedIssue] | None = None,
) -> list[CodeAction]:
    """The actions for ``span``: quick fixes of the shown issues it touches, then the
    migration when the document reads any convenience key. ``only`` filters by kind
    (LSP's hierarchy: ``source`` takes ``source.migrateConvenienceKeys.wfls``);
    ``lazy`` leaves the costly edits to ``resolve_code_action``. ``issues``: the
    document's findings in its workspace that touch ``span`` (cross-file ones
    included), else its own (``issues_touching``: those alone are placed)."""
    actions: list[CodeAction] = []
    if _wanted(QUICK_FIX, only):
        for issue in view.issues_touching(span) if issues is None else issues:
            if shown(issue) and issue.span.touches(span):
                actions.extend(quick_fixes(view, issue, lazy=lazy))
    if _wanted(MIGRATE_CONVENIENCE_KEYS, only):
        migration = migrate_action(view, lazy=lazy)
        if migration is not None:
            actions.append(migration)
    return actions


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    return only is None or any(kind == o or kind.startswith(o + ".") for o in only)


def resolve_code_action(view: DiagnosedView, data: Mapping[str, object]) -> tuple[TextEdit, ...]:
    """The edits of a lazily offered action, computed on ``view`` (a refusal when they
    cannot be computed any more)."""
    if data.get("fix") == ALIAS_FIX:
        edits = _alias_edits(view, str(data.get("owner")), str(data.get("alias")))
        if edits is None:
            raise Refusal(f"the alias of {data.get('owner')!r} can no longer be renamed")
        return edits
    if data.get("fix") == MIGRATE:
        return _migration_edits(view)
    raise Refusal("this code action is not known to wfls")


def quick_fixes(view: DiagnosedView, issue: PlacedIssue, *, lazy: bool = False) -> list[CodeAction]:
    """Every quick fix of one issue (none when it has no clear fix)."""
    make = _FIXES.get(issue.code)
    fixes = make(view, issue, lazy) if make is not None else []
    if "suggestion" in issue.issue.data:
        fixes = [*_suggestion_fixes(view, issue), *fixes]
    return fixes


def _fix(
    title: str,
    issue: PlacedIssue,
    edits: Iterable[TextEdit | None],
    *,
    preferred: bool = False,
) -> list[CodeAction]:
    """A one-action list, or nothing when an edit could not be written."""
    written = list(edits)
    checked = tuple(e for e in written if e is not None)
    if not checked or len(checked) != len(written):
        return []
    return [CodeAction(title, QUICK_FIX, checked, (issue,), preferred)]


# -- names --------------------------------------------------------------------------


def _suggestion_fixes(view: DiagnosedView, issue: PlacedIssue) -> list[CodeAction]:
    """An unknown name, segment or key → the closest declared one."""
    suggestion = str(issue.issue.data["suggestion"])
    text = view.text
    if issue.code == ProjectCode.UNKNOWN_KEY:
        written = write_key(suggestion, view.syntax)
        old = issue.issue.data.get("key", text[issue.span.start : issue.span.end])
        return _fix(
            f"Rename key {old!r} to {suggestion!r}",
            issue,
            [TextEdit(issue.span, written)],
            preferred=True,
        )
    if issue.issue.segment is not None:
        path = path_text(view, issue.span.start)
        scan = scan_path(path.value) if path is not None else None
        if path is None or scan is None or not 0 <= issue.issue.segment < len(scan.segments):
            return []
        part = scan.segments[issue.issue.segment]
        new = path.value[: part.start] + format_segment(suggestion) + path.value[part.end :]
        title = f"Change {part.value!r} to {suggestion!r}"
        return _fix(title, issue, [path.write(view, new)], preferred=True)
    located = view.parsed.source_map.locate(issue.span.start)
    literal = view.parsed.source_map.string(located.location) if located else None
    if located is None or literal is None:
        return []
    edit = string_edit(view, located.location, suggestion)
    return _fix(f"Change {literal.value!r} to {suggestion!r}", issue, [edit], preferred=True)


@record
class PathText:
    """A path as written: a string value, or a key (the paths of a deprecated ``in_map``)."""

    location: Location
    value: str
    key: Span | None  # the key's text when the path is a key

    def write(self, view: DiagnosedView, value: str) -> TextEdit | None:
        if self.key is not None:
            return TextEdit(self.key, write_key(value, view.syntax))
        return string_edit(view, self.location, value)


def path_text(view: DiagnosedView, offset: int) -> PathText | None:
    """The path written at ``offset``."""
    source_map = view.parsed.source_map
    located = source_map.locate(offset)
    if located is None:
        return None
    if located.in_key:
        entry = source_map.get(located.location)
        name = located.location[-1] if located.location else None
        if entry is None or entry.key is None or not isinstance(name, str):
            return None
        return PathText(tuple(located.location), name, entry.key)
    literal = source_map.string(located.location)
    if literal is None:
        return None
    return PathText(tuple(located.location), literal.value, None)


# -- paths ---------------------------------------------------------------------------


def _deprecated_context_key(
    view: DiagnosedView, issue: PlacedIssue, lazy: bool
) -> list[CodeAction]:
    edit = _convenience_edit(view, issue)
    replacement = issue.issue.data.get("replacement")
    return _fix(f"Read {replacement!r}", issue, [edit], preferred=True)


def _convenience_edit(view: DiagnosedView, issue: PlacedIssue) -> TextEdit | None:
    replacement = issue.issue.data.get("replacement")
    path = path_text(view, issue.span.start)
    if not isinstance(replacement, str) or path is None:
        return None
    return path.write(view, replacement)


def _invalid_model(view: DiagnosedView, issue: PlacedIssue, lazy: bool) -> list[CodeAction]:
    """A path segment a bare key cannot hold → that segment quoted."""
    if "invalid TOML path" not in issue.message:
        return []
    path = path_text(view, issue.span.start)
    fixed = quote_bare_segments(path.value) if path is not None else None
    if path is None or fixed is None:
        return []
    return _fix(f"Quote the path: {fixed!r}", issue, [path.write(view, fixed)], preferred=True)


def migrate_action(view: DiagnosedView, *, lazy: bool = False) -> CodeAction | None:
    """Every convenience key of the document → its structured path (None when none)."""
    if lazy:
        # Whether there is one: the findings of its code alone are placed, one at a time.
        found = view.issues_with_code(ProjectCode.DEPRECATED_CONTEXT_KEY)
        if not any(path_text(view, issue.span.start) for issue in found):
            return None
        return CodeAction(MIGRATE_TITLE, MIGRATE_CONVENIENCE_KEYS, None, data={"fix": MIGRATE})
    edits = _migration_edits(view)
    return CodeAction(MIGRATE_TITLE, MIGRATE_CONVENIENCE_KEYS, edits) if edits else None


def _convenience_issues(view: DiagnosedView) -> Iterator[PlacedIssue]:
    """The convenience-key reads that a fix can rewrite."""
    for issue in view.issues:
        if issue.code == ProjectCode.DEPRECATED_CONTEXT_KEY and path_text(view, issue.span.start):
            yield issue


def _migration_edits(view: DiagnosedView) -> tuple[TextEdit, ...]:
    edits = (_convenience_edit(view, issue) for issue in _convenience_issues(view))
    return tuple(e for e in edits if e is not None)


# -- aliases -------------------------------------------------------------------------


def _alias_conflict(view: DiagnosedView, issue: PlacedIssue, lazy: bool) -> list[CodeAction]:
    """A conflicting or reserved alias → a free one, its reads renamed with it."""
    location = issue.location or ()
    if len(location) != 3 or location[0] != "nodes" or not isinstance(location[1], int):
        return []
    owner = view.index.resolver.nodes[location[1]].get("id")
    literal = view.parsed.source_map.string(location)
    if not isinstance(owner, str) or literal is None:
        return []
    new = free_alias(view, owner, literal.value)
    if new is None:
        return []
    title = f"Rename alias {literal.value!r} to {new!r}"
    if lazy:
        data = {"fix": ALIAS_FIX, "owner": owner, "alias": new}
        return [CodeAction(title, QUICK_FIX, None, (issue,), True, data)]
    return _fix(title, issue, _alias_edits(view, owner, new) or [None], preferred=True)


def free_alias(view: DiagnosedView, owner: str, current: str) -> str | None:
    """An alias for ``owner`` that is valid and taken by none of the loops active with it:
    one derived from its id (``stores`` → ``store``), else ``<alias>_2``, ``_3``..."""
    taken = aliases_active_with(view, owner) | {current}
    derived = re.sub(r"[^A-Za-z0-9_]+", "_", owner).strip("_")
    if len(derived) > 1 and derived.endswith("s"):
        derived = derived[:-1]
    base = current if is_valid_alias(current) and re.fullmatch(r"\w+", current) else derived
    candidates = [derived, *(f"{base}_{n}" for n in range(2, 100))]
    return next((c for c in candidates if is_valid_alias(c) and c not in taken), None)


def _alias_edits(view: DiagnosedView, owner: str, new: str) -> tuple[TextEdit, ...] | None:
    index = view.index.resolver.node_ids.get(owner)
    if index is None:
        return None
    literal = view.parsed.source_map.string(("nodes", index, "as"))
    if literal is None:
        return None
    try:
        return tuple(rename(view, literal.content.start, new))
    except Refusal:
        # A reserved alias names no symbol: nothing reads it, only the value changes.
        edit = string_edit(view, ("nodes", index, "as"), new)
        return (edit,) if edit is not None else None


# -- graph ---------------------------------------------------------------------------


def _node(workflow: Workflow, node_id: str) -> AnyStep | None:
    return nodes_by_id(workflow.nodes).get(node_id)


def _outcomes(workflow: Workflow, node: AnyStep) -> frozenset[str]:
    return declared_outcomes(node, node_defs_by_name(workflow.node_defs))


def _wired(workflow: Workflow) -> dict[str, set[str]]:
    wired: dict[str, set[str]] = {}
    for edge in workflow.edges:
        wired.setdefault(edge.from_, set()).add(edge.outcome)
    return wired


def stub_target(view: DiagnosedView, node_id: str, outcome: str) -> str | None:
    """Where a new edge for ``outcome`` out of ``node_id`` most plausibly leads. A foreach's
    ``loop``: the body node that leads back to it (None when there is none). Otherwise
    back to the innermost loop that owns the node (a body node) or encloses it (a nested
    foreach), else to the first ``end`` node, else to ``__end__`` when the workflow
    declares ``ok``, else the node itself. The author sets the real target."""
    workflow = view.workflow
    model = view.context
    if workflow is None:
        return None
    node = _node(workflow, node_id)
    if node is not None and node.type == "foreach" and outcome == "loop":
        returns = (str(e.from_) for e in workflow.edges if e.to == node_id and e.from_ != node_id)
        return next(returns, None)
    stack = model.stack_of(node_id) if model is not None else None
    if stack:
        return stack[-1]
    ends = [str(n.id) for n in workflow.nodes if n.type == "end"]
    if ends:
        return ends[0]
    if "ok" in workflow.outcomes:
        return END
    return node_id


def _edge(from_: str, outcome: str, to: str) -> dict[str, str]:
    return {"from": from_, "outcome": outcome, "to": to}


def _missing_outcome_edge(view: DiagnosedView, issue: PlacedIssue, lazy: bool) -> list[CodeAction]:
    workflow = view.workflow
    missing = issue.issue.data.get("missing")
    location = issue.location or ()
    if (
        workflow is None
        or not isinstance(missing, list)
        or not missing
        or not isinstance(location[-1], NodeRef)
    ):
        return []
    node_id = location[-1].id
    # An edge written with a misspelt outcome is that outcome's edge: the fix is the
    # spelling (its own quick fix), not a second edge.
    node = _node(workflow, node_id)
    declared = _outcomes(workflow, node) if node is not None else frozenset()
    misspelt = {
        closest_name(e.outcome, missing)
        for e in workflow.edges
        if e.from_ == node_id and e.outcome not in declared
    }
    stubs = [(o, stub_target(view, node_id, o)) for o in missing if o not in misspelt]
    edges = [_edge(node_id, o, target) for o, target in stubs if target is not None]
    if not edges:
        return []
    edit = append_elements(view, ("edges",), edges)
    listed = ", ".join(f"{e['outcome']!r} to {e['to']!r}" for e in edges)
    plural = "s" if len(edges) > 1 else ""
    title = f"Add edge{plural} for outcome{plural} {listed} (set the target{plural})"
    return _fix(title, issue, [edit])


def _unreachable_node(view: DiagnosedView, issue: PlacedIssue, lazy: bool) -> list[CodeAction]:
    """An edge into the node from the nearest reachable node (before it in the document,
    else after it) that has a declared outcome nothing is wired to yet, and whose edge
    brings no new error (``wiring_errors``: from inside a loop body, an edge to an
    ``end`` node, or to a node that leads out of the body, is not one)."""
    workflow = view.workflow
    model = view.context
    location = issue.location or ()
    if workflow is None or model is None or not location or not isinstance(location[-1], NodeRef):
        return []
    node_id = location[-1].id
    reachable = set(reachable_nodes(workflow))
    wired = _wired(workflow)
    order = list(workflow.nodes)
    position = next((i for i, n in enumerate(order) if n.id == node_id), None)
    if position is None:
        return []
    candidates = [*reversed(order[:position]), *order[position + 1 :]]
    tried = 0
    for node in candidates:
        if node.id not in reachable or node.id == node_id:
            continue
        for outcome in sorted(_outcomes(workflow, node) - wired.get(node.id, set())):
            if tried == MAX_WIRINGS_TRIED:
                return []
            tried += 1
            if wiring_errors(workflow, model, node.id, outcome, node_id):
                continue
            edit = append_elements(view, ("edges",), [_edge(node.id, outcome, node_id)])
            title = f"Add an edge from {node.id!r} (outcome {outcome!r}) to {node_id!r}"
            return _fix(title, issue, [edit])
    return []


MAX_WIRINGS_TRIED = 16
"""Edges into one unreachable node weighed before giving up: each is a control-region
analysis of the whole graph (about 0.15 s at 16,000 nodes)."""


# -- keys ----------------------------------------------------------------------------


def _deprecated_input_form(view: DiagnosedView, issue: PlacedIssue, lazy: bool) -> list[CodeAction]:
    """The deprecated key → the canonical key and value (computed by the model's own
    folding), written in place; not when the canonical key is already there."""
    data = issue.issue.data
    location = issue.location or ()
    replacement, canonical = data.get("replacement"), data.get("canonical_key")
    if replacement is None or not isinstance(canonical, str) or not location:
        return []
    key = location[-1]
    parent: object = view.parsed.values
    for part in location[:-1]:
        parent = parent[part] if isinstance(parent, list | dict) else None  # type: ignore[index]
    if canonical != key and isinstance(parent, dict) and canonical in parent:
        return []
    edit = replace_pair(view, location, canonical, replacement)
    if key == canonical:
        title = f"Change {key!r} to {replacement!r}"
    else:
        title = f"Replace {key!r} with {canonical!r}"
    return _fix(title, issue, [edit], preferred=True)


def _unknown_key(view: DiagnosedView, issue: PlacedIssue, lazy: bool) -> list[CodeAction]:
    location = issue.location or ()
    if not location:
        return []
    key = issue.issue.data.get("key", location[-1])
    return _fix(f"Remove the key {key!r}", issue, [remove_pair(view, location)])


def _pass_item(view: DiagnosedView, issue: PlacedIssue, lazy: bool) -> list[CodeAction]:
    """A child reading its caller's loop: declare an input field for the item and read
    it (the caller then binds it; the finding on the caller says so)."""
    passing = issue.issue.data.get("pass_item")
    location = issue.location
    if not isinstance(passing, dict) or location is None:
        return []
    field, owner = str(passing["field"]), str(passing["owner"])
    literal = view.parsed.source_map.string(location)
    path = view.index.path_at(literal.content.start) if literal is not None else None
    if literal is None or path is None or len(path.segments) < 4:
        return []
    rest = [s.value for s in path.segments[4:]]
    read = format_segments(("input", field, *rest))
    declare = add_schema_property(view, "input_schema", field, {})
    title = f"Declare input {field!r} and read {read!r} (the caller passes {owner!r}'s item)"
    return _fix(title, issue, [declare, string_edit(view, location, read)], preferred=True)


_FIXES: dict[str, Callable[[DiagnosedView, PlacedIssue, bool], list[CodeAction]]] = {
    ProjectCode.DEPRECATED_CONTEXT_KEY: _deprecated_context_key,
    ProjectCode.INVALID_MODEL: _invalid_model,
    ProjectCode.DEPRECATED_INPUT_FORM: _deprecated_input_form,
    ProjectCode.UNKNOWN_KEY: _unknown_key,
    Code.FOREACH_CONTEXT_ALIAS_CONFLICT: _alias_conflict,
    Code.MISSING_OUTCOME_EDGE: _missing_outcome_edge,
    Code.UNREACHABLE_NODE: _unreachable_node,
}


def _context_path_fixes(view: DiagnosedView, issue: PlacedIssue, lazy: bool) -> list[CodeAction]:
    if "pass_item" in issue.issue.data:
        return _pass_item(view, issue, lazy)
    if "replacement" in issue.issue.data:
        return _quoted_path(view, issue)
    return []


def _quoted_path(view: DiagnosedView, issue: PlacedIssue) -> list[CodeAction]:
    """A dotted name read without its quotes → the path validation wrote with them
    (``context.foreach.orders.v2.item`` → ``context.foreach."orders.v2".item``)."""
    replacement, name = issue.issue.data.get("replacement"), issue.issue.data.get("dotted")
    path = path_text(view, issue.span.start)
    if not isinstance(replacement, str) or path is None:
        return []
    title = f"Quote {name!r}: {replacement!r}"
    return _fix(title, issue, [path.write(view, replacement)], preferred=True)


_FIXES[Code.INVALID_CONTEXT_PATH] = _context_path_fixes

"""Findings that need more than one document.

A subgraph's ``workflow = { name = ... }`` resolves to the document whose
``name`` matches. The child runs in a new scope and sees only what the
caller's input bindings pass, so:

- an unknown name is an error (with "did you mean"); a registry artifact
  reference is accepted as it is: the registry is not visible here;
- the caller's subgraph node is checked against the child's contract
  (``wf_core.validation.subgraphs``, the rule every front door shares): a side
  the node declares no schema for binds to the child's own schema; a side it
  declares must not promise fields the child lacks; every field the child
  requires must be bound;
- a cycle of subgraphs is reported once per cycle, on each ``workflow`` value
  in it, and never followed;
- two documents with the same ``name``: a warning on both, an error where a
  subgraph calls that name;
- a child's ``context.foreach.<id>`` read of a loop that is not its own but a
  caller's says how to pass the value instead.

Invariant: these findings are computed from the workspace's current snapshots
only; nothing here reads a file.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace

from wf_core.analysis.components import strongly_connected_components
from wf_core.base.issues import Issue, ProjectCode, Related, Severity
from wf_core.base.locations import Location
from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.base.suggest import did_you_mean
from wf_core.language.path_scan import scan_path
from wf_core.language.paths import format_segments
from wf_core.models import SubgraphNode
from wf_core.models.workflow import first_index_by_id
from wf_core.validation.subgraphs import contract_issues
from wf_core.version.snapshot import DocumentSnapshot, PlacedIssue, placed_order
from wf_core.workspace.catalog import SubgraphUse, Workspace, WorkspaceDocument


def document_issues(
    workspace: Workspace, uri: str, touching: Span | None = None
) -> tuple[PlacedIssue, ...]:
    """The findings of ``uri`` in its workspace: its own, adjusted, plus the cross-file ones;
    with ``touching``, those whose range touches it alone (its own placed alone:
    ``DocumentSnapshot.issues_touching``; adjusting one keeps its range)."""
    document = workspace.document(uri)
    if document is None:
        return ()
    snapshot = document.snapshot
    checker = _Checker(workspace, document)
    extra = [_place(snapshot, issue) for issue in checker.issues()]
    if touching is None:
        own = [checker.adjust(placed) for placed in snapshot.issues]
    else:
        own = [checker.adjust(placed) for placed in snapshot.issues_touching(touching)]
        extra = [p for p in extra if p.span.touches(touching)]
    placed = own + extra
    placed.sort(key=placed_order)
    return tuple(placed)


def _node_ids(values: object) -> dict[str, int]:
    """Each node id's document index (its first node), from the parsed values."""
    nodes = values.get("nodes") if isinstance(values, Mapping) else None
    return first_index_by_id(
        node.get("id") if isinstance(node, Mapping) else None
        for node in (nodes if isinstance(nodes, list) else ())
    )


def _place(snapshot: DocumentSnapshot, issue: Issue) -> PlacedIssue:
    """Place a finding written in document locations (cross-file findings are)."""
    location = issue.location or ()
    span = snapshot.span_of(location, segment=issue.segment) if location else Span(0, 0)
    related = tuple(
        r
        if r.span is not None or r.location is None
        else replace(r, span=snapshot.span_of(r.location))
        for r in issue.related
    )
    return PlacedIssue(issue, location, span, related)


class _Checker:
    def __init__(self, workspace: Workspace, document: WorkspaceDocument) -> None:
        self.workspace = workspace
        self.document = document
        self.snapshot = document.snapshot
        self.values: Mapping[str, object] = (
            document.snapshot.parsed.values
            if isinstance(document.snapshot.parsed.values, Mapping)
            else {}
        )
        self._node_ids: dict[str, dict[str, int]] = {}  # per document uri, built when needed

    # -- the document's own findings ---------------------------------------------------

    def adjust(self, placed: PlacedIssue) -> PlacedIssue:
        """A child's read of a caller's loop: say how to pass it."""
        if placed.code != "invalid_context_path" or placed.location is None:
            return placed
        loop = self._foreign_loop(placed.location)
        if loop is None:
            return placed
        caller, use, owner_index, owner = loop
        field = owner.replace(".", "_").replace(" ", "_")
        read = format_segments(("context", "foreach", owner, "item"))
        binding = f'{{ target = "{field}", path = "{read}" }}'
        help_text = (
            f"{self.document.name!r} runs as a subgraph of {caller.name!r} in its own scope: it "
            f"does not see the caller's loop {owner!r}. Pass the item in the caller's subgraph "
            f"node {use.node_id!r} with {binding} and read it here as 'input.{field}'"
        )
        literal = caller.snapshot.parsed.source_map.string(("nodes", owner_index, "id"))
        related = placed.related
        if literal is not None:
            related = (
                *related,
                Related(
                    ("nodes", owner_index, "id"),
                    f"the caller's loop {owner!r}",
                    literal.content,
                    caller.uri,
                ),
            )
        data = {
            **placed.issue.data,
            "help": help_text,
            "pass_item": {"field": field, "owner": owner},
        }
        return replace(placed, issue=replace(placed.issue, data=data), related=related)

    def _foreign_loop(
        self, location: Location
    ) -> tuple[WorkspaceDocument, SubgraphUse, int, str] | None:
        """The caller's foreach a read of an unknown loop names. Only the parsed values
        are read (not the semantic index): this runs for every diagnostic of every edit."""
        callers = list(self.workspace.callers(self.document.name))
        if not callers:
            return None
        literal = self.snapshot.parsed.source_map.string(location)
        if literal is None:
            return None
        parts = scan_path(literal.value).values
        if len(parts) < 3 or parts[:2] != ("context", "foreach"):
            return None
        owner = parts[2]
        if owner in self._ids(self.document):
            return None  # the child's own loop: an ordinary context error
        for caller, use in callers:
            index = self._ids(caller).get(owner)
            if index is None:
                continue
            nodes = caller.snapshot.parsed.values.get("nodes")  # (where the id was found)
            node = nodes[index] if isinstance(nodes, list) else None
            if isinstance(node, Mapping) and node.get("type") == "foreach":
                return caller, use, index, owner
        return None

    def _ids(self, document: WorkspaceDocument) -> dict[str, int]:
        ids = self._node_ids.get(document.uri)
        if ids is None:
            ids = self._node_ids[document.uri] = _node_ids(document.snapshot.parsed.values)
        return ids

    # -- cross-file findings ------------------------------------------------------------

    def issues(self) -> Iterator[Issue]:
        yield from self._duplicate_name()
        cycles = _cycles(self.workspace)
        for use in self.document.uses:
            if use.name is None:
                continue
            children = self.workspace.by_name(use.name)
            if not children:
                yield Issue(
                    code=ProjectCode.UNKNOWN_SUBGRAPH,
                    location=use.location,
                    message=f"no workflow named {use.name!r} in the workspace",
                    **did_you_mean(use.name, self.workspace.names()),
                )
                continue
            cycle = cycles.get(use.name)
            if cycle is not None and self.document.name in cycle.members:
                yield Issue(
                    code=ProjectCode.SUBGRAPH_CYCLE,
                    location=use.location,
                    message=f"subgraphs call each other in a cycle: {cycle.text}",
                )
                continue
            yield from self._contract(use, children[0])

    def _duplicate_name(self) -> Iterator[Issue]:
        """Two documents named alike: an error where a subgraph calls the name (which of
        them it runs is ambiguous), a warning otherwise (a backup copy, a draft). Each
        note covers the other document's ``name`` value as the finding covers this one's:
        both are placed by ``span_of(("name",))``, in their own documents."""
        name = self.document.name
        others = [d for d in self.workspace.by_name(name) if d.uri != self.document.uri]
        if not others:
            return
        related = [
            Related(
                ("name",), f"also named {name!r} here", other.snapshot.span_of(("name",)), other.uri
            )
            for other in others
        ]
        callers = self.workspace.callers(name)
        if callers:
            caller, use = callers[0]
            span = caller.snapshot.span_of(use.location)
            note = f"subgraph {use.node_id!r} calls {name!r} here: which one it runs is ambiguous"
            related.append(Related(use.location, note, span, caller.uri))
        yield Issue(
            code=ProjectCode.DUPLICATE_WORKFLOW_NAME,
            location=("name",),
            message=f"another workflow document is also named {name!r}",
            severity=Severity.ERROR if callers else Severity.WARNING,
            related=tuple(related),
        )

    def _contract(self, use: SubgraphUse, child: WorkspaceDocument) -> Iterator[Issue]:
        """The caller's subgraph node against the child's contract (one rule, in
        ``wf_core.validation.subgraphs``), placed in this document."""
        node = self.snapshot.node_at_document_index(use.node_index)
        workflow = child.snapshot.workflow
        if not isinstance(node, SubgraphNode) or workflow is None or use.name is None:
            return
        yield from contract_issues(
            node,
            ("nodes", use.node_index),
            workflow,
            use.name,
            binding_index=lambda side, j: self._binding_index(use.node_index, side, j),
            name_at=use.location,
        )

    def _binding_index(self, node_index: int, side: str, model_index: int) -> int:
        """The document index of the ``side`` binding the model kept at ``model_index``."""
        load = self.snapshot.load
        try:
            model_node = load.node_positions.index(node_index)
        except ValueError:
            return model_index
        kept = load.binding_positions.get((model_node, side))
        return kept[model_index] if kept is not None and model_index < len(kept) else model_index


@record
class Cycle:
    members: frozenset[str]
    text: str  # ``a -> b -> a``


def _cycles(workspace: Workspace) -> dict[str, Cycle]:
    """Each workflow name in a cycle of subgraph calls → its cycle."""
    graph = workspace.calls()
    out: dict[str, Cycle] = {}
    for component in strongly_connected_components(
        sorted(graph), lambda name: sorted(c for c in graph[name] if c in graph)
    ):
        if len(component) > 1 or component[0] in graph[component[0]]:
            ordered = sorted(component)
            cycle = Cycle(frozenset(component), " -> ".join([*ordered, ordered[0]]))
            out.update(dict.fromkeys(component, cycle))
    return out

"""A subgraph node's contract: the one rule for what crosses its boundary.

A subgraph node runs a child workflow in a new scope. What its input bindings
may write and its output bindings may read is its *contract*, decided per side:

- a side whose schema the node declares (``input_schema``/``output_schema``
  written in the document) is that schema, as lda-wf has it;
- a side the node leaves out is the child workflow's own ``input_schema`` /
  ``output_schema`` when the child is known. lda-wf would check the bindings
  against an empty default object and reject every one; wfls binds them to the
  child instead, so a caller need not repeat the child's schemas;
- a side the node leaves out while the child is unknown has no contract: a
  finding about it could only follow from the missing child, which is reported
  once (``unknown_subgraph``), so none is made.

The same rule holds both ways: a binding field must be a property the contract
declares (``undeclared_field``), whatever the schema says of undeclared ones —
an output ``source`` the child does not declare would silently never be
written at run time.

Every front door decides a subgraph node's boundary here: the document's own
validation (a side it declares), the workspace's cross-file findings and the
editor features (the child's side), the runtime (``check_runnable`` and the
boundary checks of a running subgraph) and so ``wfls run`` and the server's run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from typing import Literal

from wf_core.analysis.context_scopes import dump_schema
from wf_core.base.issues import Issue, IssueExtras, ProjectCode
from wf_core.base.locations import Location
from wf_core.base.records import record
from wf_core.base.suggest import did_you_mean
from wf_core.language.paths import LocalPath
from wf_core.models import SubgraphNode, Workflow
from wf_core.models.schema_nav import SchemaNavigator
from wf_core.models.schemas import SchemaRef

__all__ = [
    "Boundary",
    "ChildMissing",
    "Side",
    "Source",
    "SubgraphContract",
    "called_workflows",
    "contract_issues",
    "declared_fields",
    "declares_schema",
    "subgraph_contract",
    "undeclared_field",
]

Side = Literal["input", "output"]
SIDES: tuple[Side, Side] = ("input", "output")


class Source(StrEnum):
    """Where a side's contract comes from."""

    NODE = "node"  # the node's own schema
    CHILD = "child"  # the child workflow's schema
    UNKNOWN = "unknown"  # neither: the node declares none and the child is unknown


@record
class Boundary:
    """One side of a subgraph node's contract. ``schema`` is None when ``source`` is
    ``UNKNOWN``."""

    side: Side
    source: Source
    schema: SchemaRef | None


@record
class SubgraphContract:
    input: Boundary
    output: Boundary

    def side(self, side: Side) -> Boundary:
        return self.input if side == "input" else self.output


def declares_schema(node: SubgraphNode, side: Side) -> bool:
    """Whether the document writes the node's ``<side>_schema`` (a default the model
    filled in is not declared)."""
    return f"{side}_schema" in node.model_fields_set


def subgraph_contract(node: SubgraphNode, child: Workflow | None) -> SubgraphContract:
    """The node's contract, with ``child`` the workflow it calls (None when unknown)."""

    def boundary(side: Side) -> Boundary:
        if declares_schema(node, side):
            return Boundary(side, Source.NODE, getattr(node, f"{side}_schema"))
        if child is not None:
            return Boundary(side, Source.CHILD, getattr(child, f"{side}_schema"))
        return Boundary(side, Source.UNKNOWN, None)

    return SubgraphContract(boundary("input"), boundary("output"))


def declared_fields(schema: SchemaRef | None) -> list[str]:
    """The top-level property names a boundary schema declares."""
    return SchemaNavigator(dump_schema(schema)).root.declared_names()


def undeclared_field(field: LocalPath, declared: Sequence[str]) -> IssueExtras | None:
    """None when the local path ``field``'s first segment is declared (or it is the root
    ``.``); else the issue extras: the segment to mark and the closest declared name.

    The one rule for binding fields: node and subgraph input targets, output sources,
    workflow output targets."""
    if not field.parts or field.parts[0] in declared:
        return None
    extras: IssueExtras = {"segment": 0}
    suggestion = did_you_mean(field.parts[0], declared)
    if "data" in suggestion:
        extras["data"] = suggestion["data"]
    return extras


def contract_issues(
    node: SubgraphNode,
    base: Location,
    child: Workflow,
    child_name: str,
    *,
    binding_index: Callable[[Side, int], int] | None = None,
    name_at: Location | None = None,
) -> Iterator[Issue]:
    """What the known child says of the node's boundary, in model locations under
    ``base`` (``("nodes", i)``); ``binding_index(side, j)`` maps a model binding index to
    the printed one (identity by default); ``name_at`` is where the child is named
    (default: the node's ``workflow``).

    - A side the child decides: each binding field must be one the child declares.
    - A side the node declares is checked by the document's own validation (lda-wf's
      codes); here, each field it declares must be one the child declares too.
    - Every input the child requires must be bound (unless a binding writes the whole
      payload, target ``.``).
    """
    contract = subgraph_contract(node, child)
    for side in SIDES:
        boundary = contract.side(side)
        child_names = declared_fields(getattr(child, f"{side}_schema"))
        if boundary.source == Source.CHILD:
            verb = "accept input" if side == "input" else "produce output"
            fields = (
                [b.target for b in node.input]
                if side == "input"
                else [b.source for b in node.output]
            )
            for j, field in enumerate(fields):
                undeclared = undeclared_field(field, child_names)
                if undeclared is None:
                    continue
                index = binding_index(side, j) if binding_index is not None else j
                yield Issue(
                    code=ProjectCode.SUBGRAPH_BINDING,
                    location=(*base, side, index, "target" if side == "input" else "source"),
                    message=f"child workflow {child_name!r} does not {verb} field "
                    f"{field.parts[0]!r}",
                    **undeclared,
                )
        else:
            for name in declared_fields(boundary.schema):
                if name not in child_names:
                    yield Issue(
                        code=ProjectCode.SUBGRAPH_BINDING,
                        location=(*base, f"{side}_schema", "properties", name),
                        message=f"the subgraph declares {side} field {name!r}, which child "
                        f"workflow {child_name!r} does not have",
                        **did_you_mean(name, child_names),
                    )
    yield from _unbound_required(node, name_at or (*base, "workflow"), child, child_name)


def _unbound_required(
    node: SubgraphNode, name_at: Location, child: Workflow, child_name: str
) -> Iterator[Issue]:
    if any(not b.target.parts for b in node.input):
        return  # a binding writes the whole payload
    provided = {b.target.parts[0] for b in node.input}
    required = SchemaNavigator(dump_schema(child.input_schema)).root.required_names()
    missing = [name for name in required if name not in provided]
    if missing:
        listed = ", ".join(repr(n) for n in missing)
        yield Issue(
            code=ProjectCode.SUBGRAPH_BINDING,
            location=name_at,
            message=f"child workflow {child_name!r} requires input {listed}, which no binding "
            "provides",
            data={"missing_inputs": missing},
        )


class ChildMissing(Exception):
    """A subgraph node calls a workflow the caller of :func:`called_workflows` cannot
    give: ``published`` when it is a registry artifact, which no workspace holds."""

    def __init__(self, display: str, *, published: bool) -> None:
        super().__init__(display)
        self.display = display
        self.published = published


def called_workflows(
    workflow: Workflow, child: Callable[[str], Workflow | None]
) -> dict[str, Workflow]:
    """Every workflow the subgraph nodes of ``workflow`` reach, transitively, by the
    name the runtime looks a child up under; ``child(name)`` finds one (None: there is
    none). Each name is looked up once, so a cycle ends. Raises :class:`ChildMissing`.

    The one walk ``wfls run`` and the editor's run share, so that both run the
    children ``wfls check`` resolved."""

    def called(source: Workflow) -> list[str]:
        names = []
        for node in source.nodes:
            if isinstance(node, SubgraphNode):
                if node.workflow.name is None:
                    raise ChildMissing(node.workflow.display, published=True)
                names.append(node.workflow.display)
        return sorted(set(names))

    found: dict[str, Workflow] = {}
    pending = called(workflow)
    while pending:
        name = pending.pop()
        if name in found:
            continue
        reached = child(name)
        if reached is None:
            raise ChildMissing(name, published=False)
        found[name] = reached
        pending.extend(n for n in called(reached) if n not in found)
    return found

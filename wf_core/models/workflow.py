"""The workflow: schemas, node defs, nodes and the edges between them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from pydantic import BaseModel, Field

from wf_core.models.input_bindings import InputBinding
from wf_core.models.schemas import NodeDef, SchemaRef, StateSchema
from wf_core.models.steps import Step

if TYPE_CHECKING:
    from wf_core.validation.report import ValidationReport


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


_N = TypeVar("_N", bound=_Identified)


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_D = TypeVar("_D", bound=_Named)


def first_index_by_id(ids: Iterable[object]) -> dict[str, int]:
    """Each node id's position among ``ids`` (the nodes' ids in order; a non-string id
    is skipped but keeps its position), at its first node.

    The node an id names when several nodes share it is the first: validation reports
    the others as ``duplicate_node_id`` pointing at it, and edges, ``start``, loop
    owners, the runtime and the editor's index all resolve the id through this one
    function, so they cannot read different nodes."""
    listed = ids if isinstance(ids, list) else list(ids)
    try:
        each = dict(zip(listed, range(len(listed)), strict=True))
    except TypeError:  # an id that is no key at all (a list): one by one below
        each = {}
    if len(each) == len(listed) and set(map(type, each)) <= {str}:
        return each  # every id a string and none repeated (at C speed: 16,000 nodes)
    out: dict[str, int] = {}
    for index, node_id in enumerate(listed):
        if isinstance(node_id, str):
            out.setdefault(node_id, index)
    return out


def nodes_by_id(nodes: Sequence[_N]) -> dict[str, _N]:
    """Each node id → the node it names (its first node, see :func:`first_index_by_id`)."""
    return {node_id: nodes[i] for node_id, i in first_index_by_id(n.id for n in nodes).items()}


def node_defs_by_name(node_defs: Sequence[_D]) -> dict[str, _D]:
    """Each node def name → the node def it names: the first of that name, as validation
    reads it (it reports the others as ``duplicate_node_def`` pointing at it)."""
    out: dict[str, _D] = {}
    for definition in node_defs:
        out.setdefault(definition.name, definition)
    return out


class Edge(BaseModel):
    """The one successor of ``from`` for ``outcome``; ``to`` may be ``END``.

    Input must say ``from`` (the alias): ``from_`` is only the Python name.
    """

    from_: str = Field(alias="from")
    outcome: str
    to: str


class Workflow(BaseModel):
    """A workflow document's model; unknown top-level keys are ignored.

    Canonical JSON is ``model_dump(mode="json", by_alias=True)``.
    """

    name: str
    input_schema: SchemaRef
    state_schema: StateSchema
    output_schema: SchemaRef
    output: list[InputBinding] = Field(default_factory=list)
    node_defs: list[NodeDef] = Field(default_factory=list)
    outcomes: list[str] = Field(default_factory=lambda: ["ok"], min_length=1)
    start: str
    nodes: list[Step]
    edges: list[Edge]

    def validate_structure(self) -> ValidationReport:
        """lda-wf's structural validation (imported lazily: validation depends on the model)."""
        from wf_core.validation.core import validate_workflow

        return validate_workflow(self)

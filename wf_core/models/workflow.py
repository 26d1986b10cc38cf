"""The workflow: schemas, node defs, nodes and the edges between them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from wf_core.models.input_bindings import InputBinding
from wf_core.models.schemas import NodeDef, SchemaRef, StateSchema
from wf_core.models.steps import Step

if TYPE_CHECKING:
    from wf_core.validation.issues import ValidationReport


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

"""The condition tree of a ``ConditionNode``, discriminated on ``op``.

Operands have no discriminator in lda-wf: the key decides (``path`` before
``value``), which is what the keyed selector below reproduces.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, Tag

from wf_core.language.paths import GraphSourcePath
from wf_core.models.input_bindings import keyed_union, select_by_present_key, select_by_value


class PathOperand(BaseModel):
    path: GraphSourcePath


class LiteralOperand(BaseModel):
    value: object


Operand = Annotated[
    Annotated[PathOperand, Tag("PathOperand")] | Annotated[LiteralOperand, Tag("LiteralOperand")],
    *keyed_union(
        (PathOperand, LiteralOperand),
        select_by_present_key(
            {"path": PathOperand, "value": LiteralOperand}, "operand needs one of path or value"
        ),
    ),
]


class ExistsCondition(BaseModel):
    op: Literal["exists"]
    path: GraphSourcePath


class NotCondition(BaseModel):
    op: Literal["not"]
    arg: Condition


class VariadicCondition(BaseModel):
    op: Literal["and", "or"]
    args: list[Condition] = Field(min_length=1)


class BinaryCondition(BaseModel):
    op: Literal["eq", "ne", "gt", "ge", "lt", "le"]
    left: Operand
    right: Operand


CONDITION_OPS: dict[str, type[BaseModel]] = {
    "exists": ExistsCondition,
    "not": NotCondition,
    "and": VariadicCondition,
    "or": VariadicCondition,
    "eq": BinaryCondition,
    "ne": BinaryCondition,
    "gt": BinaryCondition,
    "ge": BinaryCondition,
    "lt": BinaryCondition,
    "le": BinaryCondition,
}

Condition = Annotated[
    Annotated[ExistsCondition, Tag("ExistsCondition")]
    | Annotated[NotCondition, Tag("NotCondition")]
    | Annotated[VariadicCondition, Tag("VariadicCondition")]
    | Annotated[BinaryCondition, Tag("BinaryCondition")],
    *keyed_union(
        (ExistsCondition, NotCondition, VariadicCondition, BinaryCondition),
        select_by_value("op", CONDITION_OPS, "condition op"),
    ),
]

NotCondition.model_rebuild()
VariadicCondition.model_rebuild()

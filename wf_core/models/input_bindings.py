"""Input bindings: how a node's (or the workflow output's) payload is assembled.

A binding is told apart only by which key it has (``path``, ``value`` or
``expression``), and the branches forbid each other's keys, so choosing the
branch by key accepts exactly what trying them left to right would, while
reporting only the chosen branch's errors. The same keyed choice, written
once here (``keyed_union``), serves every tagged union of the model.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, cast

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    PlainValidator,
    Tag,
    field_validator,
)
from pydantic_core import PydanticCustomError

from wf_core.base.locations import Location, format_location
from wf_core.language.paths import GraphSourcePath, LocalPath

# ---------------------------------------------------------------------------
# Tagged unions chosen by a key


def json_type_name(value: object) -> str:
    """The JSON/TOML name of a value's type, for messages in the author's terms."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping | BaseModel):
        return "object"
    return type(value).__name__


def show_value(value: object) -> str:
    """A short rendering of an offending scalar for messages: ``'loop'``, ``5``, ``true``."""
    if isinstance(value, str):
        return repr(value)
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    return json_type_name(value)


def keyed_union(
    members: tuple[type[BaseModel], ...], select: Callable[[Mapping[str, object]], type[BaseModel]]
) -> tuple[Discriminator, BeforeValidator]:
    """Metadata for ``Annotated[A | B | ..., *keyed_union(...)]``.

    ``select`` maps an input mapping to its member class, raising a
    ``PydanticCustomError`` that names the key at fault. Members are tagged
    with their class names, which never collide with document keys, so a
    validation error's ``loc`` can be mapped back to document keys by
    dropping the names that are not in the document.
    """
    allowed = tuple(members)
    # The value ``guard`` selected a member for last, and that member's tag: pydantic
    # hands the value ``guard`` returns straight to ``pick``, which then need not select
    # again (a binding, condition or node at a time, two selections each). One tuple,
    # replaced whole: a thread reading it sees one value's pair or another's, never a
    # mix, and a value that is not the one it holds is selected again.
    last: list[tuple[object, str]] = [(None, "")]

    # A document's values are plain dicts: they are recognised first, because an
    # ``isinstance`` against model classes (whose metaclass is an ABC) or ``Mapping``
    # is ten times as slow, and both run for every binding, condition and node.
    def guard(value: object) -> object:
        if type(value) is not dict:
            if isinstance(value, allowed):
                return value
            if not isinstance(value, Mapping):
                raise PydanticCustomError(
                    "object_type",
                    "expected an object, got {got}",
                    {"got": json_type_name(value)},
                )
        last[0] = (value, select(value).__name__)
        return value

    def pick(value: object) -> str:
        selected, tag = last[0]
        if selected is value:
            return tag
        if type(value) is not dict and isinstance(value, allowed):
            return type(value).__name__
        # ``guard`` ran first and let nothing else through but a mapping
        return select(cast(Mapping[str, object], value)).__name__

    return Discriminator(pick), BeforeValidator(guard)


def select_by_value(
    key: str, by_value: Mapping[str, type[BaseModel]], what: str
) -> Callable[[Mapping[str, object]], type[BaseModel]]:
    """A selector on ``value[key]`` (node ``type``, condition ``op``, expression ``kind``).

    Errors are ``missing_tag`` (at the mapping) and ``unknown_tag`` (at the key):
    the error type tells the loader where the fault sits.
    """
    expected = ", ".join(by_value)

    def select(value: Mapping[str, object]) -> type[BaseModel]:
        if key not in value:
            raise PydanticCustomError(
                "missing_tag",
                "missing required key '{key}'; expected one of {expected}",
                {"key": key, "expected": expected},
            )
        tag = value[key]
        member = by_value.get(tag) if isinstance(tag, str) else None
        if member is None:
            shown = show_value(tag)
            raise PydanticCustomError(
                "unknown_tag",
                "unknown {what} {shown}; expected one of {expected}",
                {"key": key, "what": what, "shown": shown, "expected": expected},
            )
        return member

    return select


def select_by_present_key(
    by_key: Mapping[str, type[BaseModel]], message: str
) -> Callable[[Mapping[str, object]], type[BaseModel]]:
    """A selector on which key is present, in ``by_key`` order (lda-wf's left-to-right)."""

    def select(value: Mapping[str, object]) -> type[BaseModel]:
        for key, member in by_key.items():
            if key in value:
                return member
        raise PydanticCustomError("missing_variant_key", message, {"keys": tuple(by_key)})

    return select


# ---------------------------------------------------------------------------
# JSON values


def _check_json_value(value: object) -> object:
    """Accept exactly what JSON can carry; iterative, since literals may nest deeply."""
    pending = [value]
    while pending:
        item = pending.pop()
        if item is None or isinstance(item, bool | int | str):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                raise ValueError("JSON numbers must be finite")
            continue
        if isinstance(item, list):
            pending.extend(item)
            continue
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    raise ValueError("JSON object keys must be strings")
                pending.append(child)
            continue
        raise ValueError("value must be a finite JSON value")
    return value


JsonValue = Annotated[Any, PlainValidator(_check_json_value)]
"""``None | bool | int | finite float | str | list[JsonValue] | dict[str, JsonValue]``."""


# ---------------------------------------------------------------------------
# Expressions

MAX_INPUT_EXPRESSION_DEPTH = 64
MAX_INPUT_EXPRESSION_NODES = 1024


class LiteralExpression(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    kind: Literal["literal"]
    value: JsonValue


class PathExpression(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["path"]
    path: GraphSourcePath


class ArrayExpression(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["array"]
    items: list[InputExpression]


class ObjectExpression(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["object"]
    fields: dict[str, InputExpression]


_EXPRESSION_KINDS: dict[str, type[BaseModel]] = {
    "literal": LiteralExpression,
    "path": PathExpression,
    "array": ArrayExpression,
    "object": ObjectExpression,
}

InputExpression = Annotated[
    Annotated[LiteralExpression, Tag("LiteralExpression")]
    | Annotated[PathExpression, Tag("PathExpression")]
    | Annotated[ArrayExpression, Tag("ArrayExpression")]
    | Annotated[ObjectExpression, Tag("ObjectExpression")],
    *keyed_union(
        tuple(_EXPRESSION_KINDS.values()),
        select_by_value("kind", _EXPRESSION_KINDS, "expression kind"),
    ),
]


def _get(value: object, key: str) -> object:
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


def check_expression_limits(raw: object, location: Location = ("expression",)) -> None:
    """Bound an expression's size before pydantic recurses into it.

    The top-level expression is at depth 1; every expression node counts one,
    and so does every list or dict inside a literal ``value`` (one level
    deeper than its holder); scalars are free. Nodes are counted in document
    order, so the reported location is the first node past a limit.
    """
    count = 0
    # (value, depth, location, is an expression node rather than literal content)
    stack: list[tuple[object, int, Location, bool]] = [(raw, 1, location, True)]
    while stack:
        value, depth, where, is_expression = stack.pop()
        count += 1
        if depth > MAX_INPUT_EXPRESSION_DEPTH:
            raise ValueError(f"input expression depth limit exceeded at {format_location(where)}")
        if count > MAX_INPUT_EXPRESSION_NODES:
            raise ValueError(f"input expression node limit exceeded at {format_location(where)}")
        children: list[tuple[object, int, Location, bool]] = []
        if is_expression:
            kind = _get(value, "kind")
            items, fields = _get(value, "items"), _get(value, "fields")
            literal = _get(value, "value")
            if kind == "array" and isinstance(items, list):
                children = [
                    (item, depth + 1, (*where, "items", i), True) for i, item in enumerate(items)
                ]
            elif kind == "object" and isinstance(fields, Mapping):
                children = [
                    (item, depth + 1, (*where, "fields", str(name)), True)
                    for name, item in fields.items()
                ]
            elif kind == "literal" and isinstance(literal, list | dict):
                children = [(literal, depth + 1, (*where, "value"), False)]
        elif isinstance(value, list):
            children = [
                (item, depth + 1, (*where, i), False)
                for i, item in enumerate(value)
                if isinstance(item, list | dict)
            ]
        elif isinstance(value, dict):
            children = [
                (item, depth + 1, (*where, str(key)), False)
                for key, item in value.items()
                if isinstance(item, list | dict)
            ]
        stack.extend(reversed(children))


# ---------------------------------------------------------------------------
# Bindings


class InputPathBinding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: LocalPath
    path: GraphSourcePath


class InputValueBinding(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    target: LocalPath
    value: JsonValue


class InputExpressionBinding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: LocalPath
    expression: InputExpression

    @field_validator("expression", mode="before")
    @classmethod
    def _check_limits(cls, value: object) -> object:
        check_expression_limits(value)
        return value


InputBinding = Annotated[
    Annotated[InputPathBinding, Tag("InputPathBinding")]
    | Annotated[InputValueBinding, Tag("InputValueBinding")],
    *keyed_union(
        (InputPathBinding, InputValueBinding),
        select_by_present_key(
            {"path": InputPathBinding, "value": InputValueBinding},
            "binding needs one of path or value",
        ),
    ),
]
"""Workflow output bindings: path or value (no expressions)."""

StepInputBinding = Annotated[
    Annotated[InputPathBinding, Tag("InputPathBinding")]
    | Annotated[InputValueBinding, Tag("InputValueBinding")]
    | Annotated[InputExpressionBinding, Tag("InputExpressionBinding")],
    *keyed_union(
        (InputPathBinding, InputValueBinding, InputExpressionBinding),
        select_by_present_key(
            {
                "path": InputPathBinding,
                "value": InputValueBinding,
                "expression": InputExpressionBinding,
            },
            "binding needs one of path, value or expression",
        ),
    ),
]
"""Node, subgraph and interrupt request bindings."""

ArrayExpression.model_rebuild()
ObjectExpression.model_rebuild()
InputExpressionBinding.model_rebuild()

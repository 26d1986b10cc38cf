"""The seven node types, discriminated on ``type``, and their declared outcomes.

Deprecated input keys (``input_values``, ``in_map``, ``out_map``,
``request_map``, ``parallel``, ``mode = "parallel"``, ``on_item_error``) are
folded into the canonical fields while parsing; the model never holds them, so
dumps are always canonical. ``wf_core.models.deprecations`` reports each use
with its replacement, computed by the same folding functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    Tag,
    field_validator,
    model_serializer,
    model_validator,
)

from wf_core.models.conditions import Condition
from wf_core.models.input_bindings import StepInputBinding, keyed_union, select_by_value
from wf_core.models.schemas import NodeDef, SchemaRef, check_object_schema
from wf_core.paths import GraphSourcePath, LocalPath, StatePath

# ---------------------------------------------------------------------------
# Shared parts


class OutputBinding(BaseModel):
    """Copies ``source`` of a node's output payload to ``target`` in state."""

    model_config = ConfigDict(extra="forbid")

    source: LocalPath
    target: StatePath


def _mapping_items(data: Mapping[str, Any], key: str) -> list[tuple[Any, Any]]:
    value = data[key]
    if not isinstance(value, Mapping):
        raise ValueError(f"{key} must be a mapping")
    return list(value.items())


def legacy_binding_lists(
    data: Mapping[str, Any], *, interrupt: bool
) -> dict[str, list[dict[str, Any]]]:
    """The canonical lists that a node's deprecated mapping keys stand for.

    ``input_values`` (target → literal) and ``in_map`` (graph path → local
    target) become ``input``, in that order; ``out_map`` (local source → state
    target) becomes ``output``, or ``resume`` for an interrupt, whose
    ``request_map`` (graph path → target) becomes ``request``. A key whose
    value is null counts as absent.
    """
    lists: dict[str, list[dict[str, Any]]] = {}
    if interrupt:
        if data.get("request_map") is not None:
            lists["request"] = [
                {"target": target, "path": path}
                for path, target in _mapping_items(data, "request_map")
            ]
    else:
        bindings: list[dict[str, Any]] = []
        if data.get("input_values") is not None:
            bindings += [
                {"target": target, "value": value}
                for target, value in _mapping_items(data, "input_values")
            ]
        if data.get("in_map") is not None:
            bindings += [
                {"target": target, "path": path} for path, target in _mapping_items(data, "in_map")
            ]
        if data.get("input_values") is not None or data.get("in_map") is not None:
            lists["input"] = bindings
    if data.get("out_map") is not None:
        lists["resume" if interrupt else "output"] = [
            {"source": source, "target": target}
            for source, target in _mapping_items(data, "out_map")
        ]
    return lists


def _fold_legacy_bindings(
    value: Any, deprecated: tuple[str, ...], canonical: tuple[str, str], *, interrupt: bool
) -> Any:
    # A plain dict without the deprecated keys, as nearly every node is, is answered by
    # one set operation (this runs for every node).
    if type(value) is dict and value.keys().isdisjoint(deprecated):
        return value
    if not isinstance(value, Mapping) or not any(key in value for key in deprecated):
        return value
    present = [key for key in deprecated if key in value]
    if any(key in value for key in canonical):
        raise ValueError(
            f"cannot mix canonical {'/'.join(canonical)} with deprecated fields: "
            + ", ".join(present)
        )
    data = dict(value)
    data.update(legacy_binding_lists(data, interrupt=interrupt))
    for key in present:
        del data[key]
    return data


# ---------------------------------------------------------------------------
# node


class NodeUse(BaseModel):
    """Runs a node def (or a capability) with a payload built from its input bindings."""

    id: str
    type: Literal["node"]
    node: str
    desc: str | None = None
    input: list[StepInputBinding] = Field(default_factory=list)
    output: list[OutputBinding] = Field(default_factory=list)
    retry: int | None = Field(default=None, ge=0)
    timeout_seconds: int | None = Field(default=None, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, value: Any) -> Any:
        return _fold_legacy_bindings(
            value, ("input_values", "in_map", "out_map"), ("input", "output"), interrupt=False
        )


# ---------------------------------------------------------------------------
# subgraph

ARTIFACT_REF = re.compile(r"workflow\.(?P<artifact_id>.+)\.v(?P<version>[0-9]+)")


class WorkflowRef(BaseModel):
    """Which workflow a subgraph runs: a local name or a published artifact version."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    artifact_id: str | None = None
    version: int | None = Field(default=None, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            match = ARTIFACT_REF.fullmatch(value)
            if match:
                return {"artifact_id": match["artifact_id"], "version": int(match["version"])}
            return {"name": value}
        return value

    @model_validator(mode="after")
    def _one_shape(self) -> WorkflowRef:
        has_artifact = self.artifact_id is not None or self.version is not None
        if (self.name is not None) == has_artifact:
            raise ValueError("workflow ref requires exactly one of name or artifact_id/version")
        if has_artifact and (self.artifact_id is None or self.version is None):
            raise ValueError("workflow artifact ref requires both artifact_id and version")
        if self.name is not None and not self.name.strip():
            raise ValueError("workflow ref name must not be empty")
        if self.artifact_id is not None and not self.artifact_id.strip():
            raise ValueError("workflow artifact id must not be empty")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if value is not None}
        return data

    @property
    def display(self) -> str:
        if self.name is not None:
            return self.name
        return f"workflow.{self.artifact_id}.v{self.version}"


def _object_schema() -> SchemaRef:
    return SchemaRef(type="object")


class SubgraphNode(BaseModel):
    """Runs another workflow in a fresh scope; it sees only what the input bindings pass."""

    id: str
    type: Literal["subgraph"]
    workflow: WorkflowRef
    desc: str | None = None
    input_schema: SchemaRef = Field(default_factory=_object_schema)
    output_schema: SchemaRef = Field(default_factory=_object_schema)
    input: list[StepInputBinding] = Field(default_factory=list)
    output: list[OutputBinding] = Field(default_factory=list)
    outcomes: list[str] = Field(default_factory=lambda: ["ok"], min_length=1)


# ---------------------------------------------------------------------------
# condition


class ConditionNode(BaseModel):
    id: str
    type: Literal["condition"]
    check: Condition


# ---------------------------------------------------------------------------
# foreach


class ForeachItemErrorPolicy(BaseModel):
    """What a failing item does to the loop: fail it, skip the item, or collect the error."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["fail", "skip", "collect"] = "fail"
    collect_to: StatePath | None = None

    @model_validator(mode="before")
    @classmethod
    def _bare_action(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"action": value}
        return value

    @model_validator(mode="after")
    def _collect_target(self) -> ForeachItemErrorPolicy:
        if self.action == "collect" and self.collect_to is None:
            raise ValueError("collect item error policy requires collect_to")
        if self.action != "collect" and self.collect_to is not None:
            raise ValueError("collect_to is only valid when action='collect'")
        return self


class ForeachConcurrentPolicy(BaseModel):
    """Bounds for concurrent iterations; ``max_outstanding`` counts started but unreturned items."""

    model_config = ConfigDict(extra="forbid")

    max_active: int = Field(default=4, ge=1)
    max_outstanding: int = Field(default=20, ge=1)
    interrupt: Literal["quiesce"] = "quiesce"

    @model_validator(mode="after")
    def _bounds(self) -> ForeachConcurrentPolicy:
        if self.max_outstanding < self.max_active:
            raise ValueError("max_outstanding must be >= max_active")
        return self


_ITEM_ERROR_ACTIONS = ("fail", "collect", "skip")


def fold_legacy_foreach(value: Mapping[str, Any]) -> dict[str, Any]:
    """Canonical foreach keys for the deprecated ones.

    ``mode = "parallel"`` reads as ``concurrent``, a ``parallel`` policy as
    ``concurrent``, a valid ``on_item_error`` as ``item_error.action`` (an
    invalid one is left for the field's own error). ``on_item_error`` itself is
    kept: the model parses it but never dumps it.
    """
    data = dict(value)
    if data.get("mode") == "parallel":
        data["mode"] = "concurrent"
    if "parallel" in data:
        if "concurrent" in data:
            raise ValueError("cannot mix deprecated parallel with concurrent")
        data["concurrent"] = data.pop("parallel")
    legacy_action = data.get("on_item_error")
    if legacy_action is not None:
        if "item_error" in data:
            raise ValueError("cannot mix deprecated on_item_error with item_error")
        if legacy_action in _ITEM_ERROR_ACTIONS:
            data["item_error"] = {"action": legacy_action}
    return data


class ForeachNode(BaseModel):
    """Runs its ``loop`` body once per item of ``over``; the body returns by an edge back here."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    type: Literal["foreach"]
    over: GraphSourcePath
    as_: str = Field(alias="as")
    mode: Literal["serial", "concurrent"] = "serial"
    item_error: ForeachItemErrorPolicy = Field(default_factory=ForeachItemErrorPolicy)
    concurrent: ForeachConcurrentPolicy | None = None
    on_item_error: Literal["fail", "collect", "skip"] | None = Field(default=None, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return fold_legacy_foreach(value)
        return value

    @model_validator(mode="after")
    def _policy_matches_mode(self) -> ForeachNode:
        if self.mode == "concurrent" and self.concurrent is None:
            raise ValueError("concurrent foreach requires concurrent policy")
        if self.concurrent is not None and self.mode != "concurrent":
            raise ValueError("concurrent policy is only valid when mode='concurrent'")
        return self

    @property
    def item(self) -> GraphSourcePath:
        """``context.foreach.<id>.item``, built from literal segments so any id is quoted right.

        Raises ``PathResolutionError`` when the id is not a valid path segment
        (blank or holding control characters).
        """
        return GraphSourcePath("context", ("foreach", self.id, "item"))

    @property
    def index(self) -> GraphSourcePath:
        """``context.foreach.<id>.index``; same caveat as ``item``."""
        return GraphSourcePath("context", ("foreach", self.id, "index"))


# ---------------------------------------------------------------------------
# join, end, interrupt


class JoinNode(BaseModel):
    """Emits ``done`` at once; it neither waits nor merges."""

    id: str
    type: Literal["join"]


class EndNode(BaseModel):
    """Ends the workflow with ``outcome``, which must be a declared workflow outcome."""

    id: str
    type: Literal["end"]
    outcome: str = Field(default="ok", min_length=1)


def _open_object_schema() -> dict[str, Any]:
    return {"type": "object", "additionalProperties": True}


class InterruptNode(BaseModel):
    """Pauses the run with a public request; the resume payload is mapped into state."""

    id: str
    type: Literal["interrupt"]
    kind: str
    request: list[StepInputBinding] = Field(default_factory=list)
    resume: list[OutputBinding] = Field(default_factory=list)
    outcomes: list[str] = Field(default_factory=lambda: ["submitted"])
    request_schema: dict[str, Any] = Field(default_factory=_open_object_schema)
    resume_schema: dict[str, Any] = Field(default_factory=_open_object_schema)
    has_explicit_contract: bool = Field(default=False, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _legacy_and_contract(cls, value: Any) -> Any:
        value = _fold_legacy_bindings(
            value, ("request_map", "out_map"), ("request", "resume"), interrupt=True
        )
        if isinstance(value, Mapping):
            data = dict(value)
            data["has_explicit_contract"] = "request_schema" in data or "resume_schema" in data
            return data
        return value

    @field_validator("request_schema", "resume_schema", mode="before")
    @classmethod
    def _payload_schema(cls, value: Any, info: Any) -> Any:
        return check_object_schema(value, info.field_name)


# ---------------------------------------------------------------------------
# The union

NODE_TYPES: dict[str, type[BaseModel]] = {
    "node": NodeUse,
    "subgraph": SubgraphNode,
    "condition": ConditionNode,
    "foreach": ForeachNode,
    "join": JoinNode,
    "end": EndNode,
    "interrupt": InterruptNode,
}

Step = Annotated[
    Annotated[NodeUse, Tag("NodeUse")]
    | Annotated[SubgraphNode, Tag("SubgraphNode")]
    | Annotated[ConditionNode, Tag("ConditionNode")]
    | Annotated[ForeachNode, Tag("ForeachNode")]
    | Annotated[JoinNode, Tag("JoinNode")]
    | Annotated[EndNode, Tag("EndNode")]
    | Annotated[InterruptNode, Tag("InterruptNode")],
    *keyed_union(
        (NodeUse, SubgraphNode, ConditionNode, ForeachNode, JoinNode, EndNode, InterruptNode),
        select_by_value("type", NODE_TYPES, "node type"),
    ),
]

AnyStep = NodeUse | SubgraphNode | ConditionNode | ForeachNode | JoinNode | EndNode | InterruptNode
"""The plain union, for annotations outside pydantic."""

_CONDITION_OUTCOMES = frozenset({"true", "false"})
_FOREACH_OUTCOMES = frozenset({"loop", "done"})
_FOREACH_OUTCOMES_WITH_ERRORS = frozenset({"loop", "done", "completed_with_errors"})
_JOIN_OUTCOMES = frozenset({"done"})


def declared_outcomes(node: AnyStep, node_defs_by_name: Mapping[str, NodeDef]) -> frozenset[str]:
    """The outcomes a node may emit, hence the only ones its edges may use.

    A ``NodeUse`` of an unknown node def declares nothing, so each of its
    edges is undeclared; an ``EndNode`` declares nothing, so it has no edges.
    """
    if isinstance(node, NodeUse):
        node_def = node_defs_by_name.get(node.node)
        return frozenset(node_def.outcomes) if node_def is not None else frozenset()
    if isinstance(node, SubgraphNode | InterruptNode):
        return frozenset(node.outcomes)
    if isinstance(node, ConditionNode):
        return _CONDITION_OUTCOMES
    if isinstance(node, ForeachNode):
        if node.item_error.action in ("skip", "collect"):
            return _FOREACH_OUTCOMES_WITH_ERRORS
        return _FOREACH_OUTCOMES
    if isinstance(node, JoinNode):
        return _JOIN_OUTCOMES
    return frozenset()

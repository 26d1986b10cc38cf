"""The seven node types, discriminated on ``type``, and their declared outcomes.

Deprecated input keys (``input_values``, ``in_map``, ``out_map``,
``request_map``, ``parallel``, ``mode = "parallel"``, ``on_item_error``) are
folded into the canonical fields while parsing; the model never holds them, so
dumps are always canonical. ``wf_core.models.deprecations`` reports each use
with its replacement, computed by the same folding functions.

``NODE_TABLE`` is the one table of node types: each type's model (its keys and
defaults), what it does, where its declared outcomes come from and which keys
hold its binding lists. ``declared_outcomes`` reads it for a loaded node and
``outcomes_as_written`` for a node's plain values (the editor's view, which
includes nodes that failed to load).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    Tag,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from wf_core.language.paths import GraphSourcePath, LocalPath, StatePath
from wf_core.models.conditions import Condition
from wf_core.models.input_bindings import StepInputBinding, keyed_union, select_by_value
from wf_core.models.schemas import NodeDef, SchemaRef, check_object_schema

# ---------------------------------------------------------------------------
# Shared parts

_NODE_LISTS = ("input", "output")
"""A node's (and a subgraph's) binding lists: its input bindings', its output bindings'."""
_INTERRUPT_LISTS = ("request", "resume")
"""An interrupt's binding lists: its request's, its resume payload's."""
_NODE_LEGACY = ("input_values", "in_map", "out_map")
_INTERRUPT_LEGACY = ("request_map", "out_map")


class OutputBinding(BaseModel):
    """Copies ``source`` of a node's output payload to ``target`` in state."""

    model_config = ConfigDict(extra="forbid")

    source: LocalPath
    target: StatePath


def _mapping_items(data: Mapping[str, object], key: str) -> list[tuple[object, object]]:
    value = data[key]
    if not isinstance(value, Mapping):
        raise ValueError(f"{key} must be a mapping")
    return list(value.items())


def legacy_binding_lists(
    data: Mapping[str, object], *, interrupt: bool
) -> dict[str, list[dict[str, object]]]:
    """The canonical lists that a node's deprecated mapping keys stand for.

    ``input_values`` (target → literal) and ``in_map`` (graph path → local
    target) become ``input``, in that order; ``out_map`` (local source → state
    target) becomes ``output``, or ``resume`` for an interrupt, whose
    ``request_map`` (graph path → target) becomes ``request``. A key whose
    value is null counts as absent.
    """
    lists: dict[str, list[dict[str, object]]] = {}
    if interrupt:
        if data.get("request_map") is not None:
            lists[_INTERRUPT_LISTS[0]] = [
                {"target": target, "path": path}
                for path, target in _mapping_items(data, "request_map")
            ]
    else:
        bindings: list[dict[str, object]] = []
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
            lists[_NODE_LISTS[0]] = bindings
    if data.get("out_map") is not None:
        lists[_INTERRUPT_LISTS[1] if interrupt else _NODE_LISTS[1]] = [
            {"source": source, "target": target}
            for source, target in _mapping_items(data, "out_map")
        ]
    return lists


def _fold_legacy_bindings(
    value: object, deprecated: tuple[str, ...], canonical: tuple[str, str], *, interrupt: bool
) -> object:
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
    def _legacy(cls, value: object) -> object:
        return _fold_legacy_bindings(value, _NODE_LEGACY, _NODE_LISTS, interrupt=False)


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
    def _from_string(cls, value: object) -> object:
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
    def _dump(self, handler: SerializerFunctionWrapHandler) -> object:
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
    def _bare_action(cls, value: object) -> object:
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


def fold_legacy_foreach(value: Mapping[str, object]) -> dict[str, object]:
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
    def _legacy(cls, value: object) -> object:
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


def _open_object_schema() -> dict[str, object]:
    return {"type": "object", "additionalProperties": True}


class InterruptNode(BaseModel):
    """Pauses the run with a public request; the resume payload is mapped into state."""

    id: str
    type: Literal["interrupt"]
    kind: str
    request: list[StepInputBinding] = Field(default_factory=list)
    resume: list[OutputBinding] = Field(default_factory=list)
    outcomes: list[str] = Field(default_factory=lambda: ["submitted"])
    request_schema: dict[str, object] = Field(default_factory=_open_object_schema)
    resume_schema: dict[str, object] = Field(default_factory=_open_object_schema)
    has_explicit_contract: bool = Field(default=False, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _legacy_and_contract(cls, value: object) -> object:
        value = _fold_legacy_bindings(value, _INTERRUPT_LEGACY, _INTERRUPT_LISTS, interrupt=True)
        if isinstance(value, Mapping):
            data = dict(value)
            data["has_explicit_contract"] = "request_schema" in data or "resume_schema" in data
            return data
        return value

    @field_validator("request_schema", "resume_schema", mode="before")
    @classmethod
    def _payload_schema(cls, value: object, info: ValidationInfo) -> dict[str, object]:
        return check_object_schema(value, str(info.field_name))


# ---------------------------------------------------------------------------
# The table of node types
#
# What each node type is, which outcomes it declares and which keys hold its binding
# lists, in one place: the model (``declared_outcomes``, the loader, the key table of
# ``wf_core.models.keys``), validation, the semantic index, completion and hover all
# read it, so an outcome that validation accepts is the one the editor colours as
# valid, offers and lists.

ERRORS_KEPT_ACTIONS = ("skip", "collect")
"""The ``item_error`` actions that let a foreach finish with errors kept."""


@dataclass(frozen=True)
class OutcomeRule:
    """Where a node type's declared outcomes come from (lda-wf-model §2).

    ``builtin``: outcomes every node of the type declares. ``errors_kept``: added when
    the node's ``item_error`` action is one of ``ERRORS_KEPT_ACTIONS``. ``listed``: the
    key of the node's own list of outcomes (its default is the model's). ``node_def``:
    the key naming the node def whose ``outcomes`` the node declares. A rule with
    none of them (``end``) declares nothing, so such a node has no edges.
    """

    builtin: tuple[str, ...] = ()
    errors_kept: tuple[str, ...] = ()
    listed: str | None = None
    node_def: str | None = None

    @cached_property
    def always(self) -> frozenset[str]:
        return frozenset(self.builtin)

    @cached_property
    def with_errors_kept(self) -> frozenset[str]:
        return frozenset((*self.builtin, *self.errors_kept))


@dataclass(frozen=True)
class NodeType:
    """One node type: its model (hence its keys and defaults), what it does, its
    outcomes, and the keys of its input-binding (``reads``) and output-binding
    (``writes``) lists."""

    name: str
    model: type[BaseModel]
    summary: str
    outcomes: OutcomeRule
    reads: str | None = None
    writes: str | None = None
    deprecated_keys: tuple[str, ...] = ()

    @property
    def binding_lists(self) -> tuple[str, ...]:
        """The keys holding binding lists, the input bindings' first."""
        return tuple(key for key in (self.reads, self.writes) if key is not None)

    @property
    def default_outcomes(self) -> tuple[str, ...]:
        """The model's default for the node's own ``outcomes`` list (none without one)."""
        if self.outcomes.listed is None:
            return ()
        field = self.model.model_fields[self.outcomes.listed]
        return tuple(field.get_default(call_default_factory=True))


NODE_TABLE: dict[str, NodeType] = {
    spec.name: spec
    for spec in (
        NodeType(
            "node",
            NodeUse,
            "runs a node def's handler with the node's input bindings; its outcomes are "
            "the node def's",
            OutcomeRule(node_def="node"),
            reads=_NODE_LISTS[0],
            writes=_NODE_LISTS[1],
            deprecated_keys=_NODE_LEGACY,
        ),
        NodeType(
            "subgraph",
            SubgraphNode,
            "runs another workflow in a new scope: only the input bindings cross into it, "
            "output bindings bring its output back; its outcomes are its `outcomes`",
            OutcomeRule(listed="outcomes"),
            reads=_NODE_LISTS[0],
            writes=_NODE_LISTS[1],
        ),
        NodeType(
            "condition",
            ConditionNode,
            "evaluates `check` against the graph context; outcomes `true` and `false`",
            OutcomeRule(builtin=("true", "false")),
        ),
        NodeType(
            "foreach",
            ForeachNode,
            "loops over the list `over` reads: `loop` enters one item's body, a body edge "
            "back to the foreach returns the item, `done` leaves once every item is done "
            "(`completed_with_errors` too when `item_error` skips or collects); the body "
            "reads the item as `context.foreach.<id>.item`",
            OutcomeRule(builtin=("loop", "done"), errors_kept=("completed_with_errors",)),
            deprecated_keys=("parallel",),
        ),
        NodeType(
            "join",
            JoinNode,
            "continues at once with outcome `done`",
            OutcomeRule(builtin=("done",)),
        ),
        NodeType(
            "end",
            EndNode,
            "ends the workflow with its `outcome`; it has no edges",
            OutcomeRule(),
        ),
        NodeType(
            "interrupt",
            InterruptNode,
            "pauses the run with a request built from `request`; the answer is written "
            "to state through `resume`; its outcomes are its `outcomes`",
            OutcomeRule(listed="outcomes"),
            reads=_INTERRUPT_LISTS[0],
            writes=_INTERRUPT_LISTS[1],
            deprecated_keys=_INTERRUPT_LEGACY,
        ),
    )
}

NODE_TYPES: dict[str, type[BaseModel]] = {name: spec.model for name, spec in NODE_TABLE.items()}
"""Each node type's model, by its ``type``."""

READ_LISTS = frozenset(spec.reads for spec in NODE_TABLE.values() if spec.reads)
"""Every key that holds a list of input bindings in some node type."""
WRITE_LISTS = frozenset(spec.writes for spec in NODE_TABLE.values() if spec.writes)
"""Every key that holds a list of output bindings in some node type."""


def binding_lists(node_type: object) -> tuple[str, ...]:
    """The keys of a node type's binding lists (none for an unknown type)."""
    spec = NODE_TABLE.get(node_type) if isinstance(node_type, str) else None
    return spec.binding_lists if spec is not None else ()


# ---------------------------------------------------------------------------
# The union

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


# ---------------------------------------------------------------------------
# Declared outcomes, of a loaded node and of a node as written


def declared_outcomes(node: AnyStep, node_defs_by_name: Mapping[str, NodeDef]) -> frozenset[str]:
    """The outcomes a node may emit, hence the only ones its edges may use (``NODE_TABLE``).

    A ``NodeUse`` of an unknown node def declares nothing, so each of its
    edges is undeclared; an ``EndNode`` declares nothing, so it has no edges.
    """
    rule = NODE_TABLE[node.type].outcomes
    if rule.node_def is not None:
        node_def = node_defs_by_name.get(getattr(node, rule.node_def))
        return frozenset(node_def.outcomes) if node_def is not None else frozenset()
    if rule.listed is not None:
        return frozenset(getattr(node, rule.listed))
    kept = isinstance(node, ForeachNode) and node.item_error.action in ERRORS_KEPT_ACTIONS
    return rule.with_errors_kept if kept else rule.always


OutcomeScope = Literal["node_def", "node", "builtin"]


@dataclass(frozen=True)
class WrittenOutcomes:
    """The outcomes a node as written declares, in declaration order, and what declares
    them: a node def (``owner`` its name), the node itself (its id) or its type (the
    type's name)."""

    outcomes: tuple[str, ...]
    scope: OutcomeScope
    owner: str


def outcomes_as_written(node: object, node_defs: object) -> WrittenOutcomes | None:
    """``declared_outcomes`` for a node's plain values (``node_defs``: the document's
    ``node_defs`` values), for the editor, which sees nodes that did not load too.

    For a node that loads, the set of ``outcomes`` is ``declared_outcomes`` of its model.
    None when the node has no known ``type`` or nothing declares its outcomes (a node
    def reference that is not a string, a node without an id).
    """
    if not isinstance(node, Mapping):
        return None
    node_type = node.get("type")
    spec = NODE_TABLE.get(node_type) if isinstance(node_type, str) else None
    if spec is None:
        return None
    rule = spec.outcomes
    if rule.node_def is not None:
        name = node.get(rule.node_def)
        if not isinstance(name, str):
            return None
        # the first node def of the name, as validation takes it (a later one is a
        # duplicate_node_def error)
        definition = next(
            (
                d
                for d in (node_defs if isinstance(node_defs, list) else ())
                if isinstance(d, Mapping) and d.get("name") == name
            ),
            None,
        )
        written = definition.get("outcomes") if definition is not None else None
        return WrittenOutcomes(_strings(written), "node_def", name)
    if rule.listed is not None:
        node_id = node.get("id")
        if not isinstance(node_id, str):
            return None
        written = node.get(rule.listed) if rule.listed in node else spec.default_outcomes
        return WrittenOutcomes(_strings(written), "node", node_id)
    outcomes = rule.builtin
    if rule.errors_kept and _item_error_action(node) in ERRORS_KEPT_ACTIONS:
        outcomes = (*outcomes, *rule.errors_kept)
    return WrittenOutcomes(outcomes, "builtin", spec.name)


def _strings(values: object) -> tuple[str, ...]:
    """The distinct strings of a written list, in order."""
    if not isinstance(values, list | tuple):
        return ()
    return tuple(dict.fromkeys(v for v in values if isinstance(v, str)))


def _item_error_action(node: Mapping[str, object]) -> object:
    """A foreach's ``item_error`` action as written: a bare action or ``{ action }``, and
    the deprecated ``on_item_error`` where ``item_error`` is absent (``fold_legacy_foreach``)."""
    policy = node.get("item_error")
    if policy is None:
        policy = node.get("on_item_error")
    return policy.get("action") if isinstance(policy, Mapping) else policy

"""Per-node context: the one model that validation, completion and hover read.

:class:`ContextModel` is built once per workflow (a pure function of it) and
memoises everything by owner stack: nodes that share a stack share one schema
and one navigator, which keeps a 2,000-node workflow cheap. The module-level
functions are lda-wf's API over it (lda-wf-model §7.3-§7.5).

Invariant: a node without an entry in ``owner_stack_by_node`` (conflicted or
unreachable) has no context schema; callers treat that as invalid, never as
the root context.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from functools import cached_property, partial

from pydantic import BaseModel

from wf_core.analysis.control_regions import (
    ControlRegionAnalysis,
    ForeachOwnerStack,
    analyze_control_regions,
)
from wf_core.base.derived import Derivations
from wf_core.base.locations import format_location
from wf_core.base.records import record
from wf_core.documents.source_map import ElementKey
from wf_core.language.context_contracts import (
    FOREACH_CONTEXT_KEY,
    LOOP_INDEX_KEY,
    LOOP_ITEM_KEY,
    STANDARD_CONTEXT_FIELDS,
    STANDARD_CONTEXT_NAMES,
    ContextFieldContract,
    foreach_context_fields,
    foreach_entry_schema,
    is_valid_alias,
    root_context_schema,
    structured_foreach_contract,
)
from wf_core.language.tokens import END
from wf_core.models.schema_nav import (
    DetachedSchemas,
    SchemaNavigator,
    SchemaView,
    UnknownSegment,
    has_ref,
    schema_urn,
)
from wf_core.models.steps import AnyStep, ForeachNode
from wf_core.models.workflow import Edge, Workflow, nodes_by_id


@record
class ContextFieldAvailability:
    contract: ContextFieldContract
    availability: str = "available"
    reason: str | None = None

    @property
    def name(self) -> str:
        return self.contract.name

    @property
    def schema(self) -> dict[str, object]:
        return self.contract.schema

    @property
    def description(self) -> str:
        return self.contract.description


def dump_schema(schema: object) -> dict[str, object]:
    if isinstance(schema, BaseModel):
        return schema.model_dump(mode="json", exclude_none=True, by_alias=True)
    if isinstance(schema, Mapping):
        return dict(schema)
    return {}


class ContextModel:
    """Everything a workflow's nodes can read from ``context``, memoised by stack."""

    def __init__(self, workflow: Workflow, control_regions: ControlRegionAnalysis | None = None):
        self.workflow = workflow
        self.regions = control_regions or analyze_control_regions(workflow)
        self.nodes_by_id: dict[str, AnyStep] = nodes_by_id(workflow.nodes)
        self._item_schemas: dict[str, dict[str, object]] = {}
        self._in_progress: set[str] = set()
        self._schemas: dict[ForeachOwnerStack, dict[str, object]] = {}
        self._navigators: dict[ForeachOwnerStack | None, SchemaNavigator] = {}
        self._source_navigators: dict[str, SchemaNavigator] = {}
        self._entries: dict[str, dict[str, object]] = {}
        self._detached = DetachedSchemas()
        self._self_contained: dict[str, bool] = {}
        # By the identity of the item schema (kept alive by the entry): loops over one
        # collection share their item schema, and with it one navigator.
        self._item_navigators: dict[int, tuple[dict[str, object], SchemaNavigator]] = {}

    def warm(self) -> None:
        """Compute every item and stack schema now.

        After this the model's own tables are only read, so it may be shared by
        threads (navigator memo tables fill benignly: the same key always gets
        the same value).
        """
        for node in self.workflow.nodes:
            if node.type == "foreach":
                self.item_schema(node.id)
                self.item_navigator(node.id)
        for stack in set(self.regions.owner_stack_by_node.values()):
            self.navigator_for_stack(stack)
        self.navigator_for_stack(None)

    # -- stacks -------------------------------------------------------------

    def stack_of(self, node_id: str) -> ForeachOwnerStack | None:
        return self.regions.owner_stack_by_node.get(node_id)

    def alias_of(self, owner: str) -> str | None:
        node = self.nodes_by_id.get(owner)
        return node.as_ if isinstance(node, ForeachNode) else None

    # -- declared input/state schemas ---------------------------------------

    @cached_property
    def input_schema(self) -> dict[str, object]:
        return dump_schema(self.workflow.input_schema)

    @cached_property
    def state_schema(self) -> dict[str, object]:
        return dump_schema(self.workflow.state_schema)

    @cached_property
    def output_schema(self) -> dict[str, object]:
        return dump_schema(self.workflow.output_schema)

    def source_navigator(self, root: str) -> SchemaNavigator:
        """The navigator over the declared ``input`` or ``state`` schema."""
        navigator = self._source_navigators.get(root)
        if navigator is None:
            document = self.input_schema if root == "input" else self.state_schema
            navigator = SchemaNavigator(document)
            self._source_navigators[root] = navigator
        return navigator

    # -- item schemas -------------------------------------------------------

    def item_schema(self, foreach_id: str) -> dict[str, object]:
        """The item schema inferred from ``over`` in the controller's own region."""
        known = self._item_schemas.get(foreach_id)
        if known is not None:
            return known
        if foreach_id in self._in_progress:
            return {}
        self._in_progress.add(foreach_id)
        try:
            schema = self._infer_item_schema(foreach_id)
        finally:
            self._in_progress.discard(foreach_id)
        self._item_schemas[foreach_id] = schema
        identifier = schema.get("$id")
        if isinstance(identifier, str):
            self._detached.add(identifier, schema)
        return schema

    def entry_schema(self, owner: str) -> dict[str, object]:
        """``context.foreach.<owner>``'s schema, shared by every stack holding ``owner``.

        Invariant: schemas handed out by this model are shared, never mutated.
        """
        entry = self._entries.get(owner)
        if entry is None:
            entry = foreach_entry_schema(owner, self.item_schema(owner))
            self._entries[owner] = entry
        return entry

    def _infer_item_schema(self, foreach_id: str) -> dict[str, object]:
        node = self.nodes_by_id.get(foreach_id)
        over = node.over if isinstance(node, ForeachNode) else None
        stack = self.stack_of(foreach_id)
        if over is None or stack is None:
            return {}
        parts = over.parts
        if over.root != "context":
            navigator = self.source_navigator(over.root)
        elif self._reads_own_entry(over.parts, stack, foreach_id):
            into_item = self._into_item(stack, over.parts)
            if into_item is None:
                navigator = self.navigator_for_stack(stack)
            else:
                navigator, consumed = into_item
                parts = over.parts[consumed:]
        else:
            # Named by the stack, not by hashing the document: that document grows with
            # the nesting, and hashing it for every loop was quadratic in the depth.
            navigator = SchemaNavigator(
                self._context_source_document(stack),
                known=self._detached,
                uri=schema_urn(("context-source", stack)),
            )
        view = navigator.at_path(parts)
        if view is None:
            return {}
        items = view.array_items()
        if items is None:
            return {}
        return navigator.standalone(items)

    def _reads_own_entry(
        self, parts: tuple[str, ...], stack: ForeachOwnerStack, foreach_id: str
    ) -> bool:
        """True when ``context.<parts>`` walks the same schema in the stack's context as
        in the context ``over`` is read from (``_context_source_document``), so the
        stack's navigator (built for the controller's own reads anyway) can answer.

        Both documents hold the same ``foreach`` entries; they differ only in the
        convenience keys. The walk is the same when it goes through an active loop's
        entry, and that loop's item schema resolves its references within itself
        (it has its own ``$id``, or no reference): a reference left relative to the
        root would resolve against two different roots.
        """
        if len(parts) < 2 or parts[0] != FOREACH_CONTEXT_KEY:
            return False
        owner = parts[1]
        if owner not in stack or owner == foreach_id:
            return False
        return self._self_contained_item(owner)

    def _self_contained_item(self, owner: str) -> bool:
        """Whether ``owner``'s item schema resolves its references within itself (it has
        its own ``$id``, or no reference): walked anywhere, it walks the same."""
        known = self._self_contained.get(owner)
        if known is None:
            item = self.item_schema(owner)
            known = self._self_contained[owner] = "$id" in item or not has_ref(item)
        return known

    # -- reads that enter a loop's item ------------------------------------

    def item_navigator(self, owner: str) -> SchemaNavigator | None:
        """A navigator over ``owner``'s item schema alone, shared by every loop whose item
        schema is the same object; None unless the item is self-contained, the condition
        under which walking it alone is walking it inside any context that holds it."""
        if not self._self_contained_item(owner):
            return None
        item = self.item_schema(owner)
        known = self._item_navigators.get(id(item))
        if known is None:
            identifier = item.get("$id")
            uri = identifier if isinstance(identifier, str) else schema_urn(("item", owner))
            known = (item, SchemaNavigator(item, known=self._detached, uri=uri))
            self._item_navigators[id(item)] = known
        return known[1]

    def _into_item(
        self, stack: ForeachOwnerStack | None, parts: tuple[str, ...]
    ) -> tuple[SchemaNavigator, int] | None:
        """For a read of ``context.<parts>`` at ``stack`` that enters a loop's item
        (``foreach.<owner>.item``, the owner's alias, ``loop_item``): the item's own
        navigator and the number of parts that lead into it, as ``schema_for_stack``
        places the item (an alias names the innermost loop that has it). None for any
        other read, and for an item that is not self-contained."""
        if not stack or not parts:
            return None
        head = parts[0]
        if head == FOREACH_CONTEXT_KEY:
            if len(parts) < 3 or parts[2] != "item" or parts[1] not in stack:
                return None
            owner, consumed = parts[1], 3
        elif head == LOOP_ITEM_KEY:
            owner, consumed = stack[-1], 1
        else:
            if not is_valid_alias(head):
                return None
            found = next((o for o in reversed(stack) if self.alias_of(o) == head), None)
            if found is None:
                return None
            owner, consumed = found, 1
        navigator = self.item_navigator(owner)
        return None if navigator is None else (navigator, consumed)

    def first_unknown(
        self, stack: ForeachOwnerStack | None, parts: tuple[str, ...]
    ) -> UnknownSegment | None:
        """``navigator_for_stack(stack).first_unknown(parts)``. A read that enters a loop's
        item walks the item's own navigator instead, shared by every stack holding the
        loop (and every loop over the same collection): a body's nodes mostly read
        their items, and a stack's context schema is then never built for them."""
        into_item = self._into_item(stack, parts)
        if into_item is None:
            return self.navigator_for_stack(stack).first_unknown(parts)
        navigator, consumed = into_item
        unknown = navigator.first_unknown(parts[consumed:])
        if unknown is None:
            return None
        return UnknownSegment(
            unknown.index + consumed, unknown.available, unknown.allows_undeclared
        )

    def view_at(self, stack: ForeachOwnerStack | None, parts: tuple[str, ...]) -> SchemaView | None:
        """``navigator_for_stack(stack).at_path(parts)``, by the same way as ``first_unknown``."""
        into_item = self._into_item(stack, parts)
        if into_item is None:
            return self.navigator_for_stack(stack).at_path(parts)
        navigator, consumed = into_item
        return navigator.at_path(parts[consumed:])

    def _context_source_document(self, stack: ForeachOwnerStack) -> dict[str, object]:
        """The context a controller reads ``over`` from (lda-wf-model §7.5 step 2)."""
        properties: dict[str, object] = {f.name: dict(f.schema) for f in STANDARD_CONTEXT_FIELDS}
        entries = {owner: self.entry_schema(owner) for owner in stack}
        properties[FOREACH_CONTEXT_KEY] = structured_foreach_contract(entries).schema
        for position, owner in enumerate(stack):
            innermost = position == len(stack) - 1
            item = self.item_schema(owner)
            alias = self.alias_of(owner)
            published = {LOOP_ITEM_KEY: item, LOOP_INDEX_KEY: {"type": "integer"}}
            if alias is not None and is_valid_alias(alias):
                published[alias] = item
            for name, schema in published.items():
                if name not in properties or innermost:
                    properties[name] = schema
        return {"type": "object", "properties": properties}

    # -- per-node context schemas ---------------------------------------------

    def schema_for_stack(self, stack: ForeachOwnerStack) -> dict[str, object]:
        schema = self._schemas.get(stack)
        if schema is not None:
            return schema
        if not stack:
            schema = root_context_schema()
        else:
            properties: dict[str, object] = {
                f.name: dict(f.schema) for f in STANDARD_CONTEXT_FIELDS
            }
            entries = {owner: self.entry_schema(owner) for owner in stack}
            properties[FOREACH_CONTEXT_KEY] = structured_foreach_contract(entries).schema
            innermost = stack[-1]
            properties[LOOP_ITEM_KEY] = dict(self.item_schema(innermost))
            properties[LOOP_INDEX_KEY] = {"type": "integer"}
            for owner in stack:
                alias = self.alias_of(owner)
                if alias is not None and is_valid_alias(alias):
                    properties[alias] = dict(self.item_schema(owner))
            schema = {
                "type": "object",
                "properties": properties,
                "required": sorted(set(properties)),
                "additionalProperties": False,
            }
        self._schemas[stack] = schema
        return schema

    def schema_for_node(self, node_id: str) -> dict[str, object] | None:
        stack = self.stack_of(node_id)
        return None if stack is None else self.schema_for_stack(stack)

    def navigator_for_stack(self, stack: ForeachOwnerStack | None) -> SchemaNavigator:
        """``None`` stands for the workflow output, which reads the root context."""
        navigator = self._navigators.get(stack)
        if navigator is None:
            schema = self.schema_for_stack(stack or ())
            navigator = SchemaNavigator(
                schema, known=self._detached, uri=schema_urn(("context", stack))
            )
            self._navigators[stack] = navigator
        return navigator

    def navigator_for_node(self, node_id: str) -> SchemaNavigator | None:
        stack = self.stack_of(node_id)
        return None if stack is None else self.navigator_for_stack(stack)

    def schemas_by_node(self) -> dict[str, dict[str, object]]:
        return {
            node_id: self.schema_for_stack(stack)
            for node_id, stack in self.regions.owner_stack_by_node.items()
        }

    # -- fields (ordered, described) -------------------------------------------

    def fields_for_stack(self, stack: ForeachOwnerStack) -> list[ContextFieldAvailability]:
        fields = [ContextFieldAvailability(f) for f in STANDARD_CONTEXT_FIELDS]
        entries = {owner: copy.deepcopy(self.entry_schema(owner)) for owner in stack}
        fields.append(ContextFieldAvailability(structured_foreach_contract(entries)))
        if not stack:
            return fields
        seen = set(STANDARD_CONTEXT_NAMES) | {FOREACH_CONTEXT_KEY}
        for owner in stack[:-1]:
            alias = self.alias_of(owner)
            if alias is not None and is_valid_alias(alias) and alias not in seen:
                seen.add(alias)
                fields.append(
                    ContextFieldAvailability(
                        ContextFieldContract(
                            alias, dict(self.item_schema(owner)), "Current foreach item"
                        )
                    )
                )
        innermost = stack[-1]
        for contract in foreach_context_fields(
            self.alias_of(innermost), self.item_schema(innermost)
        ):
            fields = [f for f in fields if f.name != contract.name]
            fields.append(ContextFieldAvailability(contract))
        return fields

    def fields_by_node(self) -> dict[str, list[ContextFieldAvailability]]:
        if self.workflow.start not in self.nodes_by_id:
            return {}
        return {
            node_id: self.fields_for_stack(stack)
            for node_id, stack in self.regions.owner_stack_by_node.items()
        }

    def warnings(self) -> list[str]:
        out: dict[str, None] = {}
        node_ids = self.nodes_by_id
        for edge in self.workflow.edges:
            if edge.from_ not in node_ids:
                out.setdefault(f"edge source {edge.from_!r} is not a workflow node", None)
            if edge.to not in node_ids and edge.to != END:
                out.setdefault(f"edge from {edge.from_!r} targets missing node {edge.to!r}", None)
        loop_sources = {e.from_ for e in self.workflow.edges if e.outcome == "loop"}
        for node in self.workflow.nodes:
            if node.type == "foreach" and node.id not in loop_sources:
                out.setdefault(
                    f"foreach node {node.id!r} has no loop route; no scoped alias is guaranteed",
                    None,
                )
        if self.workflow.start not in node_ids:
            out.setdefault(f"workflow start targets missing node {self.workflow.start!r}", None)
        else:
            for issue in self.regions.issues:
                text = f"at {format_location(issue.location)}: {issue.message}"
                out.setdefault(f"control region {issue.kind.value} {text}", None)
        return list(out)


# Everything a :class:`ContextModel` reads from a workflow: two workflows with equal
# keys, node by node and edge by edge, have the same owner stacks, item schemas, context
# schemas and warnings, so the model of one serves the other.


def _outer_key(workflow: Workflow) -> tuple[object, ...]:
    return (workflow.start, workflow.input_schema, workflow.state_schema, workflow.output_schema)


def _node_key(node: AnyStep) -> tuple[str, str, str | None, str | None]:
    if isinstance(node, ForeachNode):
        return (node.id, node.type, str(node.over), node.as_)
    return (node.id, node.type, None, None)


def _edge_key(edge: Edge) -> tuple[str, str, str]:
    return (edge.from_, edge.outcome, edge.to)


def context_model(
    workflow: Workflow,
    derived: Derivations | None = None,
    node_keys: Sequence[ElementKey | None] = (),
    edge_keys: Sequence[ElementKey | None] = (),
) -> ContextModel:
    """The context model of ``workflow``: with ``derived``, the last one while the graph's
    structure stays the same (typing inside a binding's path leaves it alone, so the
    next version reuses the model with every navigator walk it already memoised).

    The structure is the start, the schemas, each node's id, type and (a foreach) its
    ``over`` and ``as``, and the edges. Each node's and edge's part is derived under its
    content key (``node_keys[i]`` of ``workflow.nodes[i]``), so an edit computes only the
    parts of what it touched: at 16,000 nodes the whole structure took 35 ms to make."""
    if derived is None:
        return ContextModel(workflow)
    nodes, edges = workflow.nodes, workflow.edges
    # (The lists as ``get_all`` hands them out: compared, never changed.)
    structure = (
        _outer_key(workflow),
        derived.begin("structure:nodes").get_all(
            node_keys, len(nodes), lambda i: _node_key(nodes[i])
        ),
        derived.begin("structure:edges").get_all(
            edge_keys, len(edges), lambda i: _edge_key(edges[i])
        ),
    )
    return derived.latest("context", structure, partial(_warm_model, workflow))


def _warm_model(workflow: Workflow) -> ContextModel:
    model = ContextModel(workflow)
    model.warm()
    return model


def context_schemas_by_node(
    workflow: Workflow, *, control_regions: ControlRegionAnalysis | None = None
) -> dict[str, dict[str, object]]:
    return ContextModel(workflow, control_regions).schemas_by_node()


def context_schema_for_node(workflow: Workflow, node_id: str) -> dict[str, object]:
    schema = ContextModel(workflow).schema_for_node(node_id)
    if schema is None:
        raise KeyError(f"no context schema for node {node_id!r}")
    return schema


def context_fields_by_node(workflow: Workflow) -> dict[str, list[ContextFieldAvailability]]:
    return ContextModel(workflow).fields_by_node()


def context_analysis_warnings(workflow: Workflow) -> list[str]:
    return ContextModel(workflow).warnings()

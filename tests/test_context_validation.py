"""Context schemas and context-path validation (lda-wf-model §7), scenario by scenario."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from builders import build, every_read_kind, foreach, task

from wf_core.analysis.context_scopes import (
    ContextModel,
    context_analysis_warnings,
    context_fields_by_node,
    context_schema_for_node,
    context_schemas_by_node,
)
from wf_core.authoring.generate import generate_toml
from wf_core.language.context_contracts import root_context_schema
from wf_core.models.schema_nav import DetachedSchemas, SchemaNavigator, schema_urn
from wf_core.validation.core import validate_workflow
from wf_core.version.snapshot import analyze_text

CUSTOMERS_INPUT = {
    "type": "object",
    "properties": {
        "customers": {"type": "array", "items": {"$ref": "#/$defs/customer"}},
        "limit": {"type": "number"},
    },
    "$defs": {
        "customer": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "orders": {"type": "array", "items": {"$ref": "#/$defs/order"}},
            },
        },
        "order": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
        },
    },
}


def nested(
    *paths: str,
    output: list[dict[str, Any]] | None = None,
    body: tuple[str, ...] = ("charge",),
    **kwargs: Any,
):
    """customers > orders.v2 > charge(paths...) (or the ``body`` tasks, in a chain), then
    after(paths...)."""
    chain = [*body, "orders.v2"]
    return build(
        [
            foreach("customers", "input.customers", "customer"),
            foreach("orders.v2", "context.foreach.customers.item.orders", "order"),
            *(task(name, *paths) for name in body),
            task("after", *paths),
        ],
        [
            "customers:loop->orders.v2",
            f"orders.v2:loop->{body[0]}",
            *(f"{a}:ok->{b}" for a, b in itertools.pairwise(chain)),
            "orders.v2:done->customers",
            "customers:done->after",
            "after:ok->__end__",
        ],
        output=output,
        **{"input_schema": CUSTOMERS_INPUT, **kwargs},
    )


def errors(workflow: Any, code: str | None = None) -> list[tuple[str, str, str]]:
    # lda-wf's view: every lda-wf code, whatever severity wfls shows it with.
    report = validate_workflow(workflow)
    return [(e.code, e.path, e.message) for e in report.errors if code is None or e.code == code]


def test_nested_bodies_read_outer_and_inner_entries() -> None:
    workflow = nested(
        'context.foreach."orders.v2".item.sku',
        "context.foreach.customers.item.name",
        "context.order.qty",
    )
    found = errors(workflow, "invalid_context_path")
    # `after` is outside both loops: each of its three reads fails at `foreach`'s child.
    assert found == [
        (
            "invalid_context_path",
            "nodes[3].input[0].path",
            "invalid context path 'context.foreach.\"orders.v2\".item.sku' at 'after': unknown "
            "segment 'orders.v2'",
        ),
        (
            "invalid_context_path",
            "nodes[3].input[1].path",
            "invalid context path 'context.foreach.customers.item.name' at 'after': unknown "
            "segment 'customers'",
        ),
        (
            "invalid_context_path",
            "nodes[3].input[2].path",
            "invalid context path 'context.order.qty' at 'after': unknown segment 'order' "
            "(available: activated_incoming_edge,foreach,lineage_id,parent_lineage_id,"
            "prior_outcome,scope_id)",
        ),
    ]


def test_item_schema_is_inferred_through_refs_and_outer_items() -> None:
    model = ContextModel(nested())
    schema = model.schema_for_node("charge")
    entries = schema["properties"]["foreach"]["properties"]
    assert list(entries) == ["customers", "orders.v2"]
    assert schema["properties"]["foreach"]["required"] == ["customers", "orders.v2"]
    order = entries["orders.v2"]["properties"]["item"]
    assert order["properties"] == {"sku": {"type": "string"}, "qty": {"type": "integer"}}
    customer = entries["customers"]["properties"]["item"]
    assert customer["$id"].startswith("urn:wf:schema:")
    assert "$defs" in customer  # the nested `orders` items still reference #/$defs/order
    assert schema["properties"]["loop_item"] == order
    assert schema["properties"]["order"] == order
    assert schema["properties"]["customer"] == customer
    assert schema["required"] == sorted(
        [
            "activated_incoming_edge",
            "customer",
            "foreach",
            "lineage_id",
            "loop_index",
            "loop_item",
            "order",
            "parent_lineage_id",
            "prior_outcome",
            "scope_id",
        ]
    )
    assert schema["additionalProperties"] is False
    assert model.schema_for_node("after") == root_context_schema()


def test_schema_api_and_field_order() -> None:
    workflow = nested()
    assert set(context_schemas_by_node(workflow)) == {"customers", "orders.v2", "charge", "after"}
    with pytest.raises(KeyError, match="no context schema for node 'nope'"):
        context_schema_for_node(workflow, "nope")
    names = [f.name for f in context_fields_by_node(workflow)["charge"]]
    assert names == [
        "prior_outcome",
        "activated_incoming_edge",
        "scope_id",
        "lineage_id",
        "parent_lineage_id",
        "foreach",
        "customer",
        "loop_item",
        "loop_index",
        "order",
    ]
    assert [f.name for f in context_fields_by_node(workflow)["after"]][-1] == "foreach"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            "context.foreach.ghost.item",
            "unknown segment 'ghost' (available: customers,orders.v2)",
        ),
        (
            'context.foreach."orders.v2".item.price',
            "unknown segment 'price' (available: qty,sku)",
        ),
        (
            "context.foreach.customers.frame",
            "unknown segment 'frame' (available: activation_id,frame_id,index,item,lineage_id,"
            "node_id,scope_id)",
        ),
        ("context.order.sku.deeper", "unknown segment 'deeper'"),
    ],
)
def test_missing_and_unknown_entries(path: str, message: str) -> None:
    found = errors(nested(path), "invalid_context_path")
    assert found[0] == (
        "invalid_context_path",
        "nodes[2].input[0].path",
        f"invalid context path '{path}' at 'charge': {message}",
    )


def test_valid_reads_in_the_body() -> None:
    workflow = nested(
        "context.foreach.customers.index",
        "context.loop_index",
        "context.foreach",
    )
    assert [e for e in errors(workflow) if "'charge'" in e[2]] == []


def test_unreachable_node_gets_no_root_fallback() -> None:
    workflow = build(
        [task("a"), task("lost", "context.scope_id")],
        ["a:ok->__end__", "lost:ok->__end__"],
    )
    assert errors(workflow, "invalid_context_path") == [
        (
            "invalid_context_path",
            "nodes[1].input[0].path",
            "invalid context path 'context.scope_id' at 'lost': no context schema for this "
            "program location",
        )
    ]


def test_workflow_output_cannot_read_a_completed_entry() -> None:
    workflow = nested(
        output=[
            {"target": "result", "path": "context.foreach.customers.item"},
            {"target": "result", "path": "context.scope_id"},
        ]
    )
    found = errors(workflow)
    assert (
        "invalid_context_path",
        "output[0].path",
        "invalid context path 'context.foreach.customers.item' at 'workflow_output': unknown "
        "segment 'customers'",
    ) in found
    assert not [e for e in found if e[1] == "output[1].path"]
    assert (
        "invalid_workflow_output_field",
        "output",
        "workflow output has overlapping output payload paths",
    ) in found


def test_exact_locations_through_expressions_conditions_over_and_requests() -> None:
    bad = "context.foreach.nope"
    workflow = build(*every_read_kind(bad))
    locations = [e[1] for e in errors(workflow, "invalid_context_path")]
    assert locations == [
        "nodes[1].input[0].expression.items[1].fields.deep.path",
        "nodes[2].check.arg.args[0].path",
        "nodes[2].check.arg.args[1].left.path",
        "nodes[3].request[0].path",
        "nodes[4].over",
    ]


def test_over_must_resolve_to_an_array() -> None:
    workflow = build(
        [foreach("outer", "input.items"), foreach("inner", "context.loop_index"), task("t")],
        [
            "outer:loop->inner",
            "inner:loop->t",
            "t:ok->inner",
            "inner:done->outer",
            "outer:done->__end__",
        ],
    )
    assert errors(workflow, "invalid_foreach_source") == [
        (
            "invalid_foreach_source",
            "nodes[1].over",
            "foreach source 'context.loop_index' must resolve to an array",
        )
    ]


def test_over_of_every_root_must_be_an_array() -> None:
    workflow = build(
        [foreach("loop", "input.limit"), task("t")],
        ["loop:loop->t", "t:ok->loop", "loop:done->__end__"],
        input_schema={"type": "object", "properties": {"limit": {"type": "number"}}},
    )
    assert errors(workflow, "invalid_foreach_source") == [
        (
            "invalid_foreach_source",
            "nodes[0].over",
            "foreach source 'input.limit' must resolve to an array",
        )
    ]


def _two_loops(inner_alias: str, outer_alias: str = "item_a") -> Any:
    return build(
        [
            foreach("a", "input.items", outer_alias),
            foreach("b", "input.items", inner_alias),
            task("t"),
        ],
        ["a:loop->b", "b:loop->t", "t:ok->b", "b:done->a", "a:done->__end__"],
    )


def test_duplicate_active_alias() -> None:
    report = validate_workflow(_two_loops("item_a"))
    conflicts = [i for i in report.issues if i.code == "foreach_context_alias_conflict"]
    assert [(i.model_path, i.message) for i in conflicts] == [
        ("nodes[1].as", "foreach alias 'item_a' for node 'b' collides with active alias from 'a'")
    ]
    assert conflicts[0].related[0].model_path == "nodes[0].as"


@pytest.mark.parametrize("alias", ["loop_item", "foreach", "scope_id", ""])
def test_reserved_alias(alias: str) -> None:
    assert errors(_two_loops(alias), "foreach_context_alias_conflict") == [
        (
            "foreach_context_alias_conflict",
            "nodes[1].as",
            f"foreach alias '{alias}' for node 'b' collides with reserved context keys",
        )
    ]


def test_siblings_may_share_an_alias() -> None:
    workflow = build(
        [
            foreach("a", "input.items", "row"),
            task("t1"),
            foreach("b", "input.items", "row"),
            task("t2"),
        ],
        ["a:loop->t1", "t1:ok->a", "a:done->b", "b:loop->t2", "t2:ok->b", "b:done->__end__"],
    )
    assert errors(workflow) == []


REF_INPUT = {
    "type": "object",
    "properties": {
        "plain": {"type": "array", "items": {"$ref": "#/$defs/node"}},
        "tight": {"type": "array", "items": {"$ref": "#/$defs/node", "required": ["name"]}},
        "untyped": {"type": "array"},
        "mixed": {
            "type": "array",
            "items": {"anyOf": [{"$ref": "#/$defs/node"}, {"properties": {"extra": {}}}]},
        },
    },
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
        }
    },
}


def _loop_over(source: str, *paths: str) -> Any:
    return build(
        [foreach("loop", source, "row"), task("t", *paths)],
        ["loop:loop->t", "t:ok->loop", "loop:done->__end__"],
        input_schema=REF_INPUT,
    )


def test_recursive_ref_item() -> None:
    workflow = _loop_over(
        "input.plain", "context.row.children", "context.foreach.loop.item.name", "context.row.kids"
    )
    assert [e[2].partition("': ")[2] for e in errors(workflow, "invalid_context_path")] == [
        "unknown segment 'kids' (available: children,name)"
    ]


def test_nested_loop_over_recursive_children() -> None:
    workflow = build(
        [
            foreach("outer", "input.plain", "parent"),
            foreach("inner", "context.foreach.outer.item.children", "child"),
            task("t", "context.child.children", "context.foreach.inner.item.name"),
        ],
        [
            "outer:loop->inner",
            "inner:loop->t",
            "t:ok->inner",
            "inner:done->outer",
            "outer:done->__end__",
        ],
        input_schema=REF_INPUT,
    )
    assert errors(workflow) == []


def _two_loops_over_customers(first: tuple[str, ...], second: tuple[str, ...]) -> Any:
    """``first`` (alias ``customer``) over ``input.customers``, its task ``a`` reading
    ``first``'s paths, then ``second`` (alias ``client``) over them, ``b`` reading the
    other paths."""
    return build(
        [
            foreach("first", "input.customers", "customer"),
            task("a", *first),
            foreach("second", "input.customers", "client"),
            task("b", *second),
        ],
        [
            "first:loop->a",
            "a:ok->first",
            "first:done->second",
            "second:loop->b",
            "b:ok->second",
            "second:done->__end__",
        ],
        input_schema=CUSTOMERS_INPUT,
    )


def test_loops_over_one_collection_share_one_detached_item_schema() -> None:
    """Two loops over ``input.customers`` (one after the other) get the same copy, not two
    equal ones: a workflow with a thousand such loops detached the same schema, defs and
    all, a thousand times. The copy is still detached from the input schema."""
    workflow = _two_loops_over_customers(("context.customer.name",), ("context.client.orders",))
    model = ContextModel(workflow)
    first, second = model.item_schema("first"), model.item_schema("second")
    assert first is second
    assert first["$id"].startswith("urn:wf:schema:")
    assert first["properties"]["orders"]["items"] == {"$ref": "#/$defs/order"}
    assert first["$defs"] == CUSTOMERS_INPUT["$defs"]
    assert errors(workflow) == []


def test_inner_loops_over_one_outer_collection_share_their_item_schema() -> None:
    """Inner loops that read their collection through an outer loop's alias walk each
    stack's own context, yet a schema without references is copied once for them all."""
    orders = {"type": "array", "items": {"type": "object", "properties": {"sku": {}}}}
    customers = {"type": "array", "items": {"type": "object", "properties": {"orders": orders}}}
    workflow = build(
        [
            foreach("a", "input.customers", "customer"),
            foreach("a_in", "context.customer.orders", "order"),
            task("ta", "context.order.sku"),
            foreach("b", "input.customers", "client"),
            foreach("b_in", "context.client.orders", "order"),
            task("tb", "context.order.sku"),
        ],
        [
            "a:loop->a_in",
            "a_in:loop->ta",
            "ta:ok->a_in",
            "a_in:done->a",
            "a:done->b",
            "b:loop->b_in",
            "b_in:loop->tb",
            "tb:ok->b_in",
            "b_in:done->b",
            "b:done->__end__",
        ],
        input_schema={"type": "object", "properties": {"customers": customers}},
    )
    model = ContextModel(workflow)
    assert model.item_schema("a_in") is model.item_schema("b_in")
    assert model.item_schema("a_in") == orders["items"]
    assert errors(workflow) == []


def test_detached_schemas_resolve_for_navigators_built_before_and_after_they_come() -> None:
    detached = DetachedSchemas()
    document = {
        "type": "object",
        "properties": {"x": {"$ref": "urn:wf:schema:order#/$defs/order"}},
    }
    before = SchemaNavigator(document, known=detached, uri="urn:test:before")
    order = {
        "$id": "urn:wf:schema:order",
        "$defs": {"order": {"type": "object", "properties": {"sku": {"type": "string"}}}},
    }
    detached.add("urn:wf:schema:order", order)
    detached.add("urn:wf:schema:order", {"$id": "urn:wf:schema:order"})  # the first one stays
    after = SchemaNavigator(document, known=detached, uri="urn:test:after")
    for navigator in (before, after):
        assert navigator.first_unknown(("x", "sku")) is None
        unknown = navigator.first_unknown(("x", "qty"))
        assert unknown is not None and unknown.available == ("sku",)
    assert detached.by_id == {"urn:wf:schema:order": order}


def _item_from_the_source_document(model: ContextModel, foreach_id: str) -> dict[str, Any]:
    """A loop's item schema by walking the context its ``over`` is read from, as the
    context model does for any path it cannot answer from the loop's own stack."""
    stack = model.stack_of(foreach_id)
    assert stack is not None
    navigator = SchemaNavigator(
        model._context_source_document(stack),
        known=model._detached,
        uri=schema_urn(("context-source", stack)),
    )
    view = navigator.at_path(model.nodes_by_id[foreach_id].over.parts)
    items = view.array_items() if view is not None else None
    return navigator.standalone(items) if items is not None else {}


RELATIVE_REF_INPUT = {
    "type": "object",
    "properties": {
        "customers": {
            "type": "array",
            "items": {"type": "object", "properties": {"orders": {"$ref": "#/properties/all"}}},
        },
        "all": {"type": "array", "items": {"type": "object", "properties": {"sku": {}}}},
    },
}


@pytest.mark.parametrize(
    ("workflow", "own_entry"),
    [
        (nested("context.order.qty"), True),
        (nested("context.order.qty", input_schema=RELATIVE_REF_INPUT), False),
    ],
)
def test_a_loop_over_an_outer_item_reads_it_from_its_own_stack(
    workflow: Any, own_entry: bool
) -> None:
    """An inner loop's ``over`` through an outer loop's entry is walked in the inner
    loop's stack context; it must find what the context ``over`` is read from holds,
    and fall back to that context when the outer item keeps a reference relative to a
    root (which would resolve against a different root)."""
    model = ContextModel(workflow)
    inner = model.nodes_by_id["orders.v2"]
    stack = model.stack_of("orders.v2")
    assert stack is not None
    assert model._reads_own_entry(inner.over.parts, stack, "orders.v2") is own_entry
    assert model.item_schema("orders.v2") == _item_from_the_source_document(
        ContextModel(workflow), "orders.v2"
    )


def test_every_loop_over_context_in_a_generated_workflow_gets_its_source_item() -> None:
    workflow = analyze_text(generate_toml(60), "toml").workflow
    assert workflow is not None
    model = ContextModel(workflow)
    loops = [n.id for n in workflow.nodes if n.type == "foreach" and n.over.root == "context"]
    assert len(loops) >= 5
    for loop in loops:
        assert model.item_schema(loop) == _item_from_the_source_document(
            ContextModel(workflow), loop
        ), loop


def _shadowing_aliases() -> Any:
    """outer (alias ``row``) > inner (alias ``row`` too, over the outer item's children):
    the alias names the inner loop's item, ``loop_item`` too."""
    return build(
        [
            foreach("outer", "input.plain", "row"),
            foreach("inner", "context.foreach.outer.item.children", "row"),
            task("t"),
        ],
        [
            "outer:loop->inner",
            "inner:loop->t",
            "t:ok->inner",
            "inner:done->outer",
            "outer:done->__end__",
        ],
        input_schema=REF_INPUT,
    )


def _reads_at(model: ContextModel, stack: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Paths into every part of a stack's context: each loop's entry and item (declared
    names, unknown ones, deeper), the aliases, ``loop_item``, and heads that are none."""
    tails = [(), ("name",), ("sku",), ("qty",), ("orders",), ("children", "name"), ("nope",)]
    heads: list[tuple[str, ...]] = [("loop_item",), ("loop_index",), ("scope_id",), ("zzz",)]
    for owner in stack:
        heads += [("foreach", owner, "item"), ("foreach", owner, "index"), ("foreach", owner)]
        alias = model.alias_of(owner)
        if alias:
            heads.append((alias,))
    heads.append(("foreach", "not_a_loop", "item"))
    return [(*head, *tail) for head in heads for tail in tails]


@pytest.mark.parametrize(
    "workflow",
    [
        nested(),
        nested(input_schema=RELATIVE_REF_INPUT),
        _loop_over("input.plain"),
        _loop_over("input.mixed"),
        _loop_over("input.untyped"),
        _shadowing_aliases(),
    ],
    ids=["refs", "relative-ref", "recursive", "any-of", "untyped", "shadowing-aliases"],
)
def test_a_read_into_a_loops_item_walks_as_in_the_stacks_context(workflow: Any) -> None:
    """``ContextModel.first_unknown`` and ``view_at`` answer a read that enters a loop's
    item from the item's own navigator: for every read, what the stack's own context
    schema answers (the unknown segment, the names there; the view's names and type)."""
    model = ContextModel(workflow)
    stacks = {s for s in model.regions.owner_stack_by_node.values() if s}
    assert stacks
    entered = 0
    for stack in sorted(stacks):
        navigator = ContextModel(workflow).navigator_for_stack(stack)
        for parts in _reads_at(model, stack):
            assert model.first_unknown(stack, parts) == navigator.first_unknown(parts), parts
            view, expected = model.view_at(stack, parts), navigator.at_path(parts)
            assert (view is None) == (expected is None), parts
            if view is not None and expected is not None:
                assert view.declared_names() == expected.declared_names(), parts
                assert view.type_summary() == expected.type_summary(), parts
                assert view.declares_array() == expected.declares_array(), parts
            entered += model._into_item(stack, parts) is not None
    assert entered  # the shortcut was taken, not only the stack's navigator


def test_reads_into_items_build_no_context_schema_and_share_a_navigator() -> None:
    """A thousand loops over one collection read their items through one navigator, and
    a body that reads only items never has its stack's context schema built (a mistaken
    read has: its did-you-mean looks at the whole context)."""
    workflow = _two_loops_over_customers(
        ("context.customer.name", "context.foreach.first.item.orders"),
        ("context.loop_item.name", "context.client.nope"),
    )
    model = ContextModel(workflow)
    assert model.item_navigator("first") is model.item_navigator("second") is not None
    report = validate_workflow(workflow, context=model)
    assert [(e.path, e.message.partition(": ")[2]) for e in report.errors] == [
        ("nodes[3].input[1].path", "unknown segment 'nope' (available: name,orders)")
    ]
    assert set(model._schemas) == {("second",)}


def test_ref_with_sibling_constraints_tightens() -> None:
    item = ContextModel(_loop_over("input.tight")).item_schema("loop")
    assert item["allOf"][1] == {"required": ["name"]}
    assert item["allOf"][0]["properties"]["name"] == {"type": "string"}


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ({"$ref": "#/$defs/never"}, {"not": {}}),
        ({"$ref": "#/$defs/never", "title": "t"}, {"allOf": [{"not": {}}, {"title": "t"}]}),
        ({"$ref": "#/$defs/always"}, {}),
    ],
)
def test_ref_to_a_boolean_schema_detaches_as_an_object_schema(
    items: dict[str, Any], expected: dict[str, Any]
) -> None:
    workflow = build(
        [foreach("loop", "input.rows", "row"), task("t", "context.row.name")],
        ["loop:loop->t", "t:ok->loop", "loop:done->__end__"],
        input_schema={
            "type": "object",
            "properties": {"rows": {"type": "array", "items": items}},
            "$defs": {"never": False, "always": True},
        },
    )
    model = ContextModel(workflow)
    model.warm()
    assert model.item_schema("loop") == expected


def test_array_without_items_is_unconstrained() -> None:
    workflow = _loop_over("input.untyped", "context.row.anything.at.all")
    assert ContextModel(workflow).item_schema("loop") == {}
    assert errors(workflow) == []


def test_any_of_members_contribute_properties() -> None:
    workflow = _loop_over("input.mixed", "context.row.extra", "context.row.name", "context.row.x")
    found = errors(workflow, "invalid_context_path")
    assert [e[2].partition("': ")[2] for e in found] == [
        "unknown segment 'x' (available: children,extra,name)"
    ]


def test_cyclic_refs_terminate() -> None:
    workflow = build(
        [foreach("loop", "input.loop_items", "row"), task("t", "context.row.a")],
        ["loop:loop->t", "t:ok->loop", "loop:done->__end__"],
        input_schema={
            "type": "object",
            "properties": {"loop_items": {"type": "array", "items": {"$ref": "#/$defs/a"}}},
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
        },
    )
    found = errors(workflow, "invalid_context_path")
    assert [e[2].partition("': ")[2] for e in found] == ["unknown segment 'a'"]


def test_deprecated_convenience_keys_get_hints() -> None:
    report = validate_workflow(nested("context.loop_item.sku", "context.customer.name"))
    hints = [
        (i.model_path, i.data["replacement"])
        for i in report.issues
        if i.code == "deprecated_context_key"
    ]
    assert hints == [
        ("nodes[2].input[0].path", 'context.foreach."orders.v2".item.sku'),
        ("nodes[2].input[1].path", "context.foreach.customers.item.name"),
    ]
    assert all(i.severity == "hint" for i in report.issues if i.code == "deprecated_context_key")


def test_one_path_read_by_many_nodes_gets_each_reads_own_findings() -> None:
    """A path is walked once per owner stack; each read still gets its own finding, at its
    own location, naming its own node, and a node under another stack its own walk."""
    paths = ("context.order.qty", "context.foreach.customers.item.nme")
    workflow = nested(*paths, body=("charge", "refund"))
    found = [
        (str(i.code), i.model_path, i.message)
        for i in validate_workflow(workflow).issues
        if i.code in ("invalid_context_path", "deprecated_context_key")
    ]
    hint = (
        "'context.order' is a convenience key; read 'context.foreach.\"orders.v2\".item.qty' "
        "instead"
    )
    assert found == [
        (
            "invalid_context_path",
            "nodes[2].input[1].path",
            "invalid context path 'context.foreach.customers.item.nme' at 'charge': unknown "
            "segment 'nme' (available: name,orders)",
        ),
        (
            "invalid_context_path",
            "nodes[3].input[1].path",
            "invalid context path 'context.foreach.customers.item.nme' at 'refund': unknown "
            "segment 'nme' (available: name,orders)",
        ),
        (
            "invalid_context_path",
            "nodes[4].input[0].path",
            "invalid context path 'context.order.qty' at 'after': unknown segment 'order' "
            "(available: activated_incoming_edge,foreach,lineage_id,parent_lineage_id,"
            "prior_outcome,scope_id)",
        ),
        (
            "invalid_context_path",
            "nodes[4].input[1].path",
            "invalid context path 'context.foreach.customers.item.nme' at 'after': unknown "
            "segment 'customers'",
        ),
        ("deprecated_context_key", "nodes[2].input[0].path", hint),
        ("deprecated_context_key", "nodes[3].input[0].path", hint),
    ]


def test_input_paths_are_walked_to_full_depth() -> None:
    workflow = build(
        [task("t", "input.customers", "input.limit.digits", "input.nope")],
        ["t:ok->__end__"],
        input_schema={
            "type": "object",
            "properties": {
                "customers": {"type": "object", "properties": {"name": {}}},
                "limit": {"type": "number"},
            },
        },
    )
    workflow2 = build(
        [task("t", "input.customers.nmae")],
        ["t:ok->__end__"],
        input_schema={
            "type": "object",
            "properties": {"customers": {"type": "object", "properties": {"name": {}}}},
        },
    )
    assert errors(workflow) == [
        (
            "invalid_source_path",
            "nodes[0].input[1].path",
            "source path 'input.limit.digits' has unknown segment 'digits'",
        ),
        (
            "invalid_source_path",
            "nodes[0].input[2].path",
            "source path must start with input., state., or context. and reference a declared "
            "root field when applicable",
        ),
    ]
    warnings = [i for i in validate_workflow(workflow2).issues if i.severity == "warning"]
    assert [(i.code, i.segment, i.message) for i in warnings] == [
        (
            "undeclared_property",
            2,
            "'nmae' is not declared in the schema of 'input.customers'",
        )
    ]
    assert warnings[0].data == {"suggestion": "name"}


def test_warnings() -> None:
    workflow = build(
        [foreach("loop", "input.items"), task("t")],
        ["loop:done->t", "t:ok->gone", "ghost:ok->t"],
    )
    assert context_analysis_warnings(workflow) == [
        "edge from 't' targets missing node 'gone'",
        "edge source 'ghost' is not a workflow node",
        "foreach node 'loop' has no loop route; no scoped alias is guaranteed",
    ]


def test_region_conflict_names_both_ways_in() -> None:
    workflow = build(
        [foreach("loop", "input.items"), task("body"), task("after")],
        ["loop:loop->body", "body:ok->loop", "loop:done->after", "after:ok->body"],
    )
    (conflict,) = [
        i for i in validate_workflow(workflow).issues if i.code == "foreach_region_conflict"
    ]
    assert [(r.model_path, r.message) for r in conflict.related] == [
        ("edges[3]", "this edge enters the body of foreach 'loop' from outside it"),
        ("edges[0]", "'body' is reached here with owner stack: loop"),
        ("edges[3]", "'body' is reached here with owner stack: no active loop"),
    ]

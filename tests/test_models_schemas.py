"""SchemaRef, StateSchema, NodeDef, reducers and capability refs (lda-wf-model §1.4, §3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from pydantic import ValidationError

from wf_core.language.paths import StatePath
from wf_core.models import (
    CapabilityRef,
    NodeDef,
    ReducerRef,
    ReducerSpec,
    SchemaRef,
    StateField,
    StateFieldDecl,
    StateSchema,
)

# --- SchemaRef ---------------------------------------------------------------


def test_schema_ref_dumps_empty_properties_and_required_but_no_none_keys() -> None:
    schema = SchemaRef.model_validate({"type": "object"})
    assert schema.model_dump(mode="json") == {"type": "object", "properties": {}, "required": []}


def test_schema_ref_keeps_every_other_keyword() -> None:
    raw = {
        "type": "object",
        "title": "T",
        "$defs": {"x": {"type": "string"}},
        "properties": {"a": {"$ref": "#/$defs/x"}},
        "additionalProperties": False,
        "required": ["a"],
    }
    schema = SchemaRef.model_validate(raw)
    assert schema.model_dump(mode="json") == raw
    assert schema.model_extra == {"$defs": {"x": {"type": "string"}}, "additionalProperties": False}


def test_schema_ref_keeps_meaningful_null_extra_keywords() -> None:
    schema = SchemaRef.model_validate({"const": None})
    assert schema.model_dump(mode="json") == {"const": None, "properties": {}, "required": []}


def test_schema_ref_type_may_be_a_list() -> None:
    assert SchemaRef.model_validate({"type": ["string", "null"]}).type == ["string", "null"]


def test_schema_ref_rejects_invalid_json_schema() -> None:
    with pytest.raises(ValidationError, match=r"invalid JSON Schema: 'objekt' is not valid"):
        SchemaRef.model_validate({"type": "objekt"})


def test_schema_ref_honours_dollar_schema_dialect() -> None:
    # Draft 4 requires exclusiveMaximum to be a boolean; Draft 2020-12 a number.
    draft4 = "http://json-schema.org/draft-04/schema#"
    SchemaRef.model_validate({"$schema": draft4, "maximum": 3, "exclusiveMaximum": True})
    with pytest.raises(ValidationError, match="invalid JSON Schema"):
        SchemaRef.model_validate({"exclusiveMaximum": True})


@pytest.mark.parametrize(
    ("schema", "first"),
    [
        (
            {"properties": {"a": {}, "id": "x", "type": "end", "outcome": "y"}},
            "'x' is not of type 'object', 'boolean'",
        ),
        (
            {"properties": {"zeta": 1, "alpha": 2}, "$defs": {"d": 3}},
            "1 is not of type 'object', 'boolean'",
        ),
    ],
)
def test_the_violation_reported_is_the_first_in_the_schema_whatever_the_hashing(
    schema: dict[str, object], first: str
) -> None:
    """The meta-schema's validator yields a schema's violations in an order that follows
    the interpreter's string hashing; the one reported is the first in the document, so
    two processes (the server and ``wfls check``) name the same one."""
    code = (
        "import json, sys\n"
        "from wf_core.models.schemas import json_schema_error\n"
        "print(json_schema_error(json.loads(sys.argv[1])))"
    )
    named = {
        subprocess.run(
            [sys.executable, "-c", code, json.dumps(schema)],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in range(6)
    }
    assert named == {first}


# --- NodeDef -------------------------------------------------------------------


def _node_def(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "name": "charge",
        "input_schema": {"type": "object"},
        "output_schema": {"type": "object"},
        "outcomes": ["ok"],
    }
    base.update(overrides)
    return base


def test_node_def_defaults_and_dump() -> None:
    node_def = NodeDef.model_validate(_node_def(handler="ignored"))
    assert node_def.retry is None and node_def.timeout_seconds is None
    assert node_def.model_dump(mode="json")["input_schema"] == {
        "type": "object",
        "properties": {},
        "required": [],
    }
    assert "handler" not in node_def.model_dump()


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"outcomes": []}, "outcomes"),
        ({"retry": -1}, "retry"),
        ({"timeout_seconds": 0}, "timeout_seconds"),
    ],
)
def test_node_def_constraints(overrides: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        NodeDef.model_validate(_node_def(**overrides))
    assert info.value.errors()[0]["loc"] == (field,)


# --- Capability and reducer refs ------------------------------------------------


def test_capability_ref_splits_at_last_dot_and_dumps_structurally() -> None:
    ref = CapabilityRef.model_validate("wf.std.append")
    assert (ref.source, ref.name) == ("wf.std", "append")
    assert str(ref) == "wf.std.append"
    assert ref.model_dump(mode="json") == {"source": "wf.std", "capability_key": "append"}


@pytest.mark.parametrize(
    "raw",
    [{"source": "wf.std", "capability_key": "append"}, {"source": "wf.std", "name": "append"}],
)
def test_capability_ref_accepts_structural_forms(raw: dict[str, str]) -> None:
    assert str(CapabilityRef.model_validate(raw)) == "wf.std.append"


def test_capability_ref_needs_a_source() -> None:
    with pytest.raises(ValidationError, match="invalid capability ref 'append'"):
        CapabilityRef.model_validate("append")


@pytest.mark.parametrize(
    "raw", ["wf.std.append", {"ref": "wf.std.append"}, {"name": "wf.std.append"}]
)
def test_reducer_ref_forms(raw: object) -> None:
    reducer = ReducerRef.model_validate(raw)
    assert reducer.name == "wf.std.append"
    assert reducer.config == {}


def test_reducer_ref_and_name_are_exclusive() -> None:
    with pytest.raises(ValidationError, match="reducer ref and name are mutually exclusive"):
        ReducerRef.model_validate({"ref": "wf.std.append", "name": "wf.std.append"})


def test_reducer_ref_json_round_trip() -> None:
    reducer = ReducerRef.model_validate({"ref": "wf.std.merge", "config": {"depth": 2}})
    dumped = reducer.model_dump(mode="json")
    assert dumped == {
        "ref": {"source": "wf.std", "capability_key": "merge"},
        "config": {"depth": 2},
    }
    assert ReducerRef.model_validate(dumped) == reducer


def test_reducer_spec_defaults() -> None:
    spec = ReducerSpec(name="wf.std.append")
    assert spec.config_schema == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }
    assert spec.sibling_write_policy == "mergeable"


# --- StateSchema ---------------------------------------------------------------


def test_state_schema_defaults_to_object() -> None:
    schema = StateSchema.model_validate({})
    assert schema.model_dump(mode="json") == {"type": "object", "properties": {}, "required": []}


def test_state_schema_accepts_extension_keywords_at_any_depth() -> None:
    schema = StateSchema.model_validate(
        {
            "properties": {
                "log": {"type": "array", "reducer": "wf.std.append", "trace": False},
                "deep": {
                    "type": "object",
                    "properties": {
                        "x": {"type": "integer", "reducer": {"ref": "wf.std.sum", "config": {}}}
                    },
                },
            }
        }
    )
    index = schema.field_index()
    assert list(index) == [StatePath(("log",)), StatePath(("deep",)), StatePath(("deep", "x"))]
    log = index[StatePath(("log",))]
    assert log.reducer.name == "wf.std.append"
    assert log.trace is False
    assert log.validation_schema == {"type": "array"}
    assert log.type == "array"
    assert index[StatePath(("deep", "x"))].reducer.name == "wf.std.sum"
    assert index[StatePath(("deep",))].reducer.name == "wf.std.replace"


def test_state_schema_invalid_trace() -> None:
    with pytest.raises(
        ValidationError, match=r"invalid trace for state field 'a\.b': expected bool"
    ):
        StateSchema.model_validate(
            {"properties": {"a": {"properties": {"b": {"type": "string", "trace": "yes"}}}}}
        )


def test_state_schema_reducer_of_wrong_type() -> None:
    with pytest.raises(
        ValidationError, match="invalid reducer for state field 'a': expected string or object"
    ):
        StateSchema.model_validate({"properties": {"a": {"reducer": 3}}})


def test_state_schema_unparsable_reducer() -> None:
    with pytest.raises(
        ValidationError, match="invalid reducer for state field 'a': invalid capability ref"
    ):
        StateSchema.model_validate({"properties": {"a": {"reducer": "nodots"}}})


def test_state_schema_checks_extensions_through_one_defs_hop() -> None:
    raw = {
        "$defs": {"Counter": {"type": "integer", "reducer": "nodots"}},
        "properties": {"count": {"$ref": "#/$defs/Counter"}},
    }
    with pytest.raises(ValidationError, match="invalid reducer for state field 'count'"):
        StateSchema.model_validate(raw)


def test_field_index_resolves_defs_and_attaches_root_defs() -> None:
    defs = {"Item": {"type": "object", "properties": {"n": {"type": "integer", "trace": False}}}}
    schema = StateSchema.model_validate(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": defs,
            "properties": {"item": {"$ref": "#/$defs/Item"}},
        }
    )
    index = schema.field_index()
    assert list(index) == [StatePath(("item",)), StatePath(("item", "n"))]
    item = index[StatePath(("item",))].validation_schema
    assert item["$defs"] == defs
    assert item["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert item["type"] == "object"
    n = index[StatePath(("item", "n"))]
    assert n.trace is False
    assert "trace" not in n.validation_schema


def test_field_index_stops_at_recursive_defs() -> None:
    schema = StateSchema.model_validate(
        {
            "$defs": {
                "Tree": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Tree"}}}
            },
            "properties": {"root": {"$ref": "#/$defs/Tree"}},
        }
    )
    assert [str(path) for path in schema.field_index()] == ["state.root", "state.root.child"]


def test_field_map_root_fields_and_fields() -> None:
    schema = StateSchema.model_validate(
        {"properties": {"a": {"type": "object", "properties": {"b.c": {"type": "string"}}}}}
    )
    assert list(schema.field_map()) == ["a", "a.b.c"]
    assert schema.root_fields() == {"a"}
    assert [decl.path for decl in schema.fields] == [StatePath(("a",)), StatePath(("a", "b.c"))]


def test_legacy_fields_mapping_is_normalised_into_properties() -> None:
    schema = StateSchema.model_validate(
        {
            "fields": {
                "total": {"type": "number"},
                "audit.log": {"type": "array", "reducer": "wf.std.append", "trace": False},
                "audit.cfg": {
                    "type": "object",
                    "reducer": {"ref": "wf.std.merge", "config": {"deep": True}},
                    "default": {},
                },
            }
        }
    )
    dumped = schema.model_dump(mode="json")
    assert "fields" not in dumped
    assert dumped["properties"] == {
        "total": {
            "type": "number",
            "properties": {},
            "required": [],
            "reducer": "wf.std.replace",
            "trace": True,
        },
        "audit": {
            "type": "object",
            "properties": {
                "log": {
                    "type": "array",
                    "properties": {},
                    "required": [],
                    "reducer": "wf.std.append",
                    "trace": False,
                },
                "cfg": {
                    "type": "object",
                    "properties": {},
                    "required": [],
                    "reducer": {
                        "ref": {"source": "wf.std", "capability_key": "merge"},
                        "config": {"deep": True},
                    },
                    "trace": True,
                    "default": {},
                },
            },
        },
    }
    assert schema.field_index()[StatePath(("audit", "cfg"))].reducer.config == {"deep": True}


def test_legacy_fields_list_of_decls_with_legacy_type() -> None:
    schema = StateSchema.model_validate(
        {
            "fields": [
                {"path": "state.a", "type": "string"},
                {"path": "state.b", "schema": {"type": "array"}, "reducer": "wf.std.append"},
            ]
        }
    )
    assert schema.properties["a"] == {
        "type": "string",
        "properties": {},
        "required": [],
        "reducer": "wf.std.replace",
        "trace": True,
    }
    assert schema.properties["b"]["reducer"] == "wf.std.append"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            [{"path": "state.a", "type": "string"}, {"path": "state.a", "type": "string"}],
            "duplicate state field path 'a'",
        ),
        ({"a.b": {"type": "string"}, "a": {"type": "object"}}, "state field path 'a' overlaps"),
        ("a", "state_schema.fields must be a mapping or list"),
    ],
)
def test_legacy_fields_errors(fields: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        StateSchema.model_validate({"fields": fields})


@pytest.mark.parametrize(
    "fields",
    [
        [
            {"path": "state.person", "schema": {"type": "object"}},
            {"path": "state.person.name", "schema": {"type": "string"}},
        ],
        {"person": {"type": "object"}, "person.name": {"type": "string"}},
    ],
)
def test_legacy_fields_may_refine_a_declared_field(fields: object) -> None:
    """lda-wf accepts a field and then a deeper one inside it: the leaf gains a property."""
    schema = StateSchema.model_validate({"fields": fields})
    person = schema.properties["person"]
    assert person["type"] == "object"
    assert person["properties"]["name"]["type"] == "string"
    assert person["properties"]["name"]["reducer"] == "wf.std.replace"


def test_state_field_and_from_field_map() -> None:
    field = StateField(type="array", reducer=ReducerRef.model_validate("wf.std.append"))
    assert field.trace is True and field.default is None
    schema = StateSchema.from_field_map({"items": field, "count": {"type": "integer"}})
    assert schema.field_index()[StatePath(("items",))].reducer.name == "wf.std.append"
    assert schema.root_fields() == {"items", "count"}


def test_state_field_decl_dumps_schema_alias() -> None:
    decl = StateFieldDecl.model_validate({"path": "state.a.b", "type": "integer"})
    assert decl.model_dump(mode="json", by_alias=True) == {
        "path": "state.a.b",
        "schema": {"type": "integer"},
        "reducer": {"ref": {"source": "wf.std", "capability_key": "replace"}, "config": {}},
        "trace": True,
        "default": None,
    }
    assert StateFieldDecl.model_validate({"path": "state.a", "schema": {}}).type is None

"""Schemas in the model: JSON Schema contracts, the state schema and node defs.

A schema is kept as the author's JSON Schema (every keyword allowed) and
checked with ``jsonschema``'s meta-schema before the model is built, so a
workflow never carries a schema that the runtime validators would refuse.
The state schema adds two extension keywords per property (``reducer`` and
``trace``); JSON Schema ignores them, so they are checked here by walking
``properties``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.protocols import Validator
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from wf_core.language.paths import StatePath, format_segments
from wf_core.models.capabilities import ReducerRef, default_reducer

# ---------------------------------------------------------------------------
# JSON Schema checking

_CHECK_CACHE: dict[str, str | None] = {}
_CHECK_CACHE_LIMIT = 4096


def _meta_check(schema: Mapping[str, object]) -> str | None:
    """The meta-schema's first violation in ``schema``, in document order.

    ``check_schema`` raises the first error the meta-schema's validator yields, and
    that order follows a set of property names (``additionalProperties``), so it
    changes with the interpreter's string hashing: the server and ``wfls check``, two
    processes, named different violations of one schema. Every violation is taken
    and the first by its place in the schema is reported.
    """
    dialect = schema.get("$schema")
    validator_cls: type[Validator] = Draft202012Validator
    if isinstance(dialect, str):
        validator_cls = validators.validator_for(schema, default=Draft202012Validator)
    meta = validators.validator_for(validator_cls.META_SCHEMA, default=validator_cls)
    checker = meta(validator_cls.META_SCHEMA, format_checker=meta.FORMAT_CHECKER)
    instance: dict[str, Any] = dict(schema)  # JSON, as the validator's stubs want it
    try:
        errors = list(checker.iter_errors(instance))
    except RecursionError:
        return "schema nesting is too deep"
    if not errors:
        return None
    first = min(errors, key=lambda e: (_document_order(instance, e.absolute_path), e.message))
    return str(first.message)


def _document_order(instance: object, path: Iterable[object]) -> tuple[int, ...]:
    """Where ``path`` leads in ``instance``: each key's index among its table's keys,
    each array index as it is."""
    order: list[int] = []
    for part in path:
        if isinstance(instance, Mapping) and part in instance:
            order.append(list(instance).index(part))
            instance = instance[part]
        elif isinstance(instance, list) and isinstance(part, int) and part < len(instance):
            order.append(part)
            instance = instance[part]
        else:
            break
    return tuple(order)


def json_schema_error(schema: Mapping[str, object]) -> str | None:
    """The meta-schema violation in ``schema``, or None when it is a valid schema.

    Checking costs about a millisecond, and editors re-validate the same node
    defs on every keystroke, so results are memoised by canonical JSON text.
    Values that are not JSON (only possible from code) skip the memo.
    """
    try:
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return _meta_check(schema)
    try:
        return _CHECK_CACHE[key]
    except KeyError:
        pass
    result = _meta_check(schema)
    if len(_CHECK_CACHE) >= _CHECK_CACHE_LIMIT:
        _CHECK_CACHE.clear()
    _CHECK_CACHE[key] = result
    return result


def check_json_schema(schema: Mapping[str, object]) -> None:
    error = json_schema_error(schema)
    if error is not None:
        raise ValueError(f"invalid JSON Schema: {error}")


def check_object_schema(value: object, field: str) -> dict[str, object]:
    """A payload contract (interrupt request/resume): a valid schema of a JSON object."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{field} must be a JSON Schema object")
    check_json_schema(value)
    if value.get("type") != "object":
        raise ValueError(f"{field} must describe a JSON object")
    return dict(value)


def _drop_none_fields(data: object, names: tuple[str, ...]) -> object:
    """Leave out unset optional keywords; extra keywords keep a null value.

    An extra keyword's null is meaningful JSON Schema (``"const": null``), so only
    the model's own optional fields are dropped when None.
    """
    if isinstance(data, dict):
        for name in names:
            if name in data and data[name] is None:
                del data[name]
    return data


# ---------------------------------------------------------------------------
# SchemaRef


class SchemaRef(BaseModel):
    """A JSON Schema contract (workflow input/output, node def input/output)."""

    model_config = ConfigDict(extra="allow")

    title: str | None = None
    type: str | list[str] | None = None
    properties: dict[str, object] = Field(default_factory=dict)
    required: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _check_schema(cls, value: object) -> object:
        if isinstance(value, Mapping):
            check_json_schema(value)
        return value

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> object:
        return _drop_none_fields(handler(self), ("title", "type"))


# ---------------------------------------------------------------------------
# State fields


class StateField(BaseModel):
    """Legacy per-field declaration (the deprecated ``state_schema.fields`` map)."""

    type: str
    reducer: ReducerRef = Field(default_factory=default_reducer)
    trace: bool = True
    default: object = None


class StateFieldDecl(BaseModel):
    """One declared state property at any depth, with its extension keywords parsed.

    ``validation_schema`` (JSON key ``schema``) is the property's JSON Schema
    without ``reducer``/``trace``, detached from the state schema: the root
    ``$defs`` and ``$schema`` are copied in so local references still resolve.
    """

    path: StatePath
    validation_schema: dict[str, object] = Field(default_factory=dict, alias="schema")
    reducer: ReducerRef = Field(default_factory=default_reducer)
    trace: bool = True
    default: object = None

    @model_validator(mode="before")
    @classmethod
    def _legacy_type(cls, value: object) -> object:
        if isinstance(value, Mapping) and "type" in value:
            data = dict(value)
            legacy_type = data.pop("type")
            schema = data.get("schema")
            schema = dict(schema) if isinstance(schema, Mapping) else {}
            schema.setdefault("type", legacy_type)
            data["schema"] = schema
            return data
        return value

    @property
    def type(self) -> str | None:
        value = self.validation_schema.get("type")
        return value if isinstance(value, str) else None


_DEFS_REF_PREFIX = "#/$defs/"


def _unescape_pointer(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _resolve_defs_ref(entry: object, defs: object) -> tuple[object, str | None]:
    """One hop through ``{"$ref": "#/$defs/X"}`` (nothing else beside ``$ref``).

    Returns the target and the ``$defs`` name followed, or the entry itself and
    None when it is not such a reference or the target does not exist.
    """
    if isinstance(entry, Mapping) and len(entry) == 1 and isinstance(defs, Mapping):
        ref = entry.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEFS_REF_PREFIX):
            name = _unescape_pointer(ref[len(_DEFS_REF_PREFIX) :])
            if "/" not in ref[len(_DEFS_REF_PREFIX) :] and name in defs:
                return defs[name], name
    return entry, None


def iter_state_properties(
    root: Mapping[str, object],
) -> Iterator[tuple[tuple[str, ...], object]]:
    """Every property under ``root["properties"]`` at any depth, parent before children.

    Each entry comes after one-hop ``#/$defs/`` resolution. A ``$defs`` entry
    already being expanded on the current branch is yielded but not descended
    into again, so recursive definitions cannot loop. The walk is iterative:
    documents may nest deeper than Python's recursion limit.
    """
    defs = root.get("$defs")
    stack: list[tuple[tuple[str, ...], object, frozenset[str]]] = []

    def push_children(prefix: tuple[str, ...], schema: object, active: frozenset[str]) -> None:
        props = schema.get("properties") if isinstance(schema, Mapping) else None
        if isinstance(props, Mapping):
            for name in reversed(list(props)):
                if isinstance(name, str):
                    stack.append(((*prefix, name), props[name], active))

    push_children((), root, frozenset())
    while stack:
        parts, entry, active = stack.pop()
        target, ref_name = _resolve_defs_ref(entry, defs)
        if ref_name is not None and ref_name in active:
            yield parts, target
            continue
        yield parts, target
        push_children(parts, target, active | {ref_name} if ref_name is not None else active)


def _check_state_extensions(root: Mapping[str, object]) -> None:
    for parts, entry in iter_state_properties(root):
        if not isinstance(entry, Mapping):
            continue
        where = format_segments(parts)
        if "reducer" in entry:
            _parse_reducer(entry["reducer"], where)
        if "trace" in entry and not isinstance(entry["trace"], bool):
            raise ValueError(f"invalid trace for state field {where!r}: expected bool")


_VALIDATOR_PREFIXES = ("Value error, ", "Assertion failed, ")


def validator_message(msg: str) -> str:
    """A validator's own text, without the prefix pydantic puts before it."""
    for prefix in _VALIDATOR_PREFIXES:
        if msg.startswith(prefix):
            return msg[len(prefix) :]
    return msg


def _first_error_text(exc: ValidationError) -> str:
    return validator_message(str(exc.errors()[0]["msg"]))


def _parse_reducer(value: object, where: str) -> ReducerRef:
    if not isinstance(value, str | Mapping | ReducerRef):
        raise ValueError(f"invalid reducer for state field {where!r}: expected string or object")
    try:
        return ReducerRef.model_validate(value)
    except ValidationError as exc:
        raise ValueError(
            f"invalid reducer for state field {where!r}: {_first_error_text(exc)}"
        ) from None


def _leaf_from_state_field(field: StateField) -> dict[str, object]:
    leaf: dict[str, object] = {
        "type": field.type,
        "properties": {},
        "required": [],
        "reducer": field.reducer.short_form(),
        "trace": field.trace,
    }
    if field.default is not None:
        leaf["default"] = field.default
    return leaf


def _leaf_from_decl(decl: StateFieldDecl) -> dict[str, object]:
    leaf = dict(decl.validation_schema)
    leaf.setdefault("properties", {})
    leaf.setdefault("required", [])
    leaf["reducer"] = decl.reducer.short_form()
    leaf["trace"] = decl.trace
    if decl.default is not None:
        leaf["default"] = decl.default
    return leaf


def _legacy_entries(fields: object) -> list[tuple[tuple[str, ...], dict[str, object]]]:
    entries: list[tuple[tuple[str, ...], dict[str, object]]] = []
    if isinstance(fields, Mapping):
        for name, spec in fields.items():
            parts = tuple(str(name).split("."))
            where = ".".join(parts)
            if not all(part.strip() for part in parts):
                raise ValueError(f"invalid state field path {where!r}")
            try:
                field = StateField.model_validate(spec)
            except ValidationError as exc:
                raise ValueError(
                    f"invalid state field {where!r}: {_first_error_text(exc)}"
                ) from None
            entries.append((parts, _leaf_from_state_field(field)))
    elif isinstance(fields, list | tuple):
        for index, spec in enumerate(fields):
            try:
                decl = StateFieldDecl.model_validate(spec)
            except ValidationError as exc:
                raise ValueError(
                    f"invalid state field at index {index}: {_first_error_text(exc)}"
                ) from None
            entries.append((decl.path.parts, _leaf_from_decl(decl)))
    else:
        raise ValueError("state_schema.fields must be a mapping or list")
    return entries


def _normalise_legacy_fields(data: dict[str, object]) -> None:
    """Fold deprecated ``fields`` into nested ``properties`` (in place).

    Intermediate levels become ``{"type": "object", "properties": {}}``. A path
    written twice is a duplicate. A field may be declared and then refined by a
    deeper one (``person``, then ``person.name``: the leaf gains a property), as
    lda-wf accepts; the other order overlaps, since the later, shallower field
    would replace what the deeper one declared.
    """
    entries = _legacy_entries(data.pop("fields"))
    existing = data.get("properties")
    properties: dict[str, object] = dict(existing) if isinstance(existing, Mapping) else {}
    data["properties"] = properties
    written: set[tuple[str, ...]] = set()
    for parts, leaf in entries:
        where = ".".join(parts)
        if parts in written:
            raise ValueError(f"duplicate state field path {where!r}")
        level = properties
        for part in parts[:-1]:
            written_node = level.get(part)
            inner_level: dict[str, object]
            if written_node is None:
                inner_level = {}
                node: dict[str, object] = {"type": "object", "properties": inner_level}
            elif not isinstance(written_node, Mapping):
                raise ValueError(f"state field path {where!r} overlaps")
            else:
                node = dict(written_node)
                inner = node.get("properties")
                inner_level = dict(inner) if isinstance(inner, Mapping) else {}
                node["properties"] = inner_level
            level[part] = node
            level = inner_level
        if parts[-1] in level:
            if any(p[: len(parts)] == parts for p in written):
                raise ValueError(f"state field path {where!r} overlaps")
            raise ValueError(f"duplicate state field path {where!r}")
        level[parts[-1]] = leaf
        written.add(parts)


class StateSchema(BaseModel):
    """The workflow state contract: a JSON Schema whose properties may carry
    ``reducer`` (default ``wf.std.replace``) and ``trace`` (default true)."""

    model_config = ConfigDict(extra="allow")

    title: str | None = None
    type: str | list[str] | None = "object"
    properties: dict[str, object] = Field(default_factory=dict)
    required: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _normalise_and_check(cls, value: object) -> object:
        if not isinstance(value, Mapping):
            return value
        data = dict(value)
        if "fields" in data:
            _normalise_legacy_fields(data)
        check_json_schema(data)
        _check_state_extensions(data)
        return data

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> object:
        return _drop_none_fields(handler(self), ("title", "type"))

    def _root_document(self) -> dict[str, object]:
        extra = self.__pydantic_extra__ or {}
        return {**extra, "properties": self.properties}

    def field_index(self) -> dict[StatePath, StateFieldDecl]:
        """One declaration per property at every depth, keyed by its state path."""
        root = self._root_document()
        attached = {key: root[key] for key in ("$defs", "$schema") if key in root}
        index: dict[StatePath, StateFieldDecl] = {}
        for parts, entry in iter_state_properties(root):
            if isinstance(entry, Mapping):
                schema = {k: v for k, v in entry.items() if k not in ("reducer", "trace")}
                reducer = (
                    _parse_reducer(entry["reducer"], format_segments(parts))
                    if "reducer" in entry
                    else default_reducer()
                )
                trace = entry.get("trace", True)
                default = entry.get("default")
            else:
                # Boolean schemas: ``true`` accepts anything, ``false`` nothing.
                schema = {} if entry is True else {"not": {}}
                reducer, trace, default = default_reducer(), True, None
            for key, value in attached.items():
                schema.setdefault(key, value)
            index[StatePath(parts)] = StateFieldDecl.model_validate(
                {
                    "path": StatePath(parts),
                    "schema": schema,
                    "reducer": reducer,
                    "trace": trace,
                    "default": default,
                }
            )
        return index

    @property
    def fields(self) -> list[StateFieldDecl]:
        return list(self.field_index().values())

    def field_map(self) -> dict[str, StateFieldDecl]:
        """The field index keyed by plain dotted path (``a.b``), as lda-wf's callers expect."""
        return {".".join(path.parts): decl for path, decl in self.field_index().items()}

    def root_fields(self) -> set[str]:
        return set(self.properties)

    @classmethod
    def from_field_map(cls, field_map: Mapping[str, object]) -> StateSchema:
        """Build from a map of dotted path to ``StateField`` (or a dict like one)."""
        fields = {
            name: spec.model_dump() if isinstance(spec, StateField) else spec
            for name, spec in field_map.items()
        }
        return cls.model_validate({"type": "object", "fields": fields})


# ---------------------------------------------------------------------------
# Node defs


class NodeDef(BaseModel):
    """A reusable node contract; ``NodeUse.node`` names it, the handler registry is keyed
    by the same name (handlers are not part of the workflow document)."""

    name: str
    input_schema: SchemaRef
    output_schema: SchemaRef
    outcomes: list[str] = Field(min_length=1)
    retry: int | None = Field(default=None, ge=0)
    timeout_seconds: int | None = Field(default=None, gt=0)

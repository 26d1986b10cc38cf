"""JSON Schema checks of the values that cross a contract at run time.

The workflow input, node inputs and outputs, subgraph boundaries, interrupt
requests and answers, and the workflow output are each checked against the
schema the workflow declares for them (Draft 2020-12 unless the schema's
``$schema`` names another dialect). Validators are compiled once per schema
text: a run checks the same few schemas many times.

Two guarantees hold for every check, whatever the schema says:

- ``$ref`` resolves within the schema only. The validators get a registry
  that retrieves nothing, so ``http://...``, ``file:///...`` or ``other.json``
  is reported as unresolvable and never fetched or read (jsonschema's default
  registry would fetch it with ``urlopen``).
- ``pattern`` and ``patternProperties`` (also as ``additionalProperties``
  sees them) are matched by :func:`wf_core.base.patterns.search`, in time linear in
  the value, never by the backtracking ``re``. ``unevaluatedProperties`` in a
  schema that also has ``patternProperties`` would need jsonschema's own
  ``re`` matching, so such a check refuses every value with that reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from pydantic import BaseModel
from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import Schema

from wf_core.base.patterns import UnsafePattern, search
from wf_core.language.paths import format_segments

__all__ = ["SchemaCheck", "compile_schema", "schema_dict", "schema_problem"]

_COMPILED: dict[str, SchemaCheck] = {}
_COMPILED_LIMIT = 1024


def schema_dict(schema: object) -> dict[str, object]:
    """A model schema (``SchemaRef``/``StateSchema``) or a plain mapping as plain JSON."""
    if isinstance(schema, BaseModel):
        return schema.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(schema, Mapping):
        return dict(schema)
    return {}


_Check = Callable[[object], bool]
_ANNOTATIONS = frozenset(("title", "description", "default", "examples", "$comment"))
_TYPE_TESTS: dict[str, _Check] = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _fast_check(schema: object) -> _Check | None:
    """A plain-Python check for the schemas node contracts mostly are, or None.

    Covers ``type``, ``properties``, ``required``, boolean
    ``additionalProperties`` and ``items`` (plus annotations); anything else
    is left to ``jsonschema``. It only ever answers "valid" where jsonschema
    would: a value it rejects is re-checked by jsonschema for the message.
    """
    if schema is True:
        return lambda v: True
    if schema is False:
        return lambda v: False
    if not isinstance(schema, Mapping):
        return None
    allowed = {"type", "properties", "required", "additionalProperties", "items"} | _ANNOTATIONS
    if not set(schema) <= allowed:
        return None
    tests: list[_Check] = []
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else kind
        if not isinstance(kinds, list) or not all(k in _TYPE_TESTS for k in kinds):
            return None
        type_tests = [_TYPE_TESTS[k] for k in kinds]
        tests.append(lambda v: any(t(v) for t in type_tests))
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        return None
    if not isinstance(extra, bool):
        return None
    sub: dict[str, _Check] = {}
    for name, child in properties.items():
        check = _fast_check(child)
        if check is None:
            return None
        sub[name] = check
    if sub or required or extra is False:
        names = frozenset(sub)
        needed = tuple(required)

        def object_test(v: object) -> bool:
            if not isinstance(v, dict):
                return True
            if any(name not in v for name in needed):
                return False
            if not extra and any(key not in names for key in v):
                return False
            return all(check(v[name]) for name, check in sub.items() if name in v)

        tests.append(object_test)
    if "items" in schema:
        item_check = _fast_check(schema["items"])
        if item_check is None:
            return None
        tests.append(lambda v: not isinstance(v, list) or all(item_check(i) for i in v))
    return lambda v: all(test(v) for test in tests)


class SchemaCheck:
    """A compiled schema: ``problem(value)`` says why a value does not match, or None."""

    __slots__ = ("_fast", "_validator")

    def __init__(self, validator: Any, fast: _Check | None = None) -> None:
        self._validator = validator
        self._fast = fast

    def problem(self, value: object) -> str | None:
        if self._fast is not None and self._fast(value):
            return None
        try:
            if self._validator.is_valid(value):
                return None
            error = best_match(self._validator.iter_errors(value))
        except Unresolvable as unresolvable:
            return (
                f"cannot resolve $ref {getattr(unresolvable, 'ref', '')!r}: references "
                "resolve within the schema only, nothing is fetched"
            )
        except RecursionError:  # jsonschema descends recursively, a frame or more per level
            return "the value nests too deeply to be checked against the schema"
        if error is None:  # pragma: no cover - is_valid said there was one
            return "value does not match the schema"
        path = [str(p) for p in error.absolute_path]
        return f"{format_segments(path)}: {error.message}" if path else error.message


_NOTHING_FETCHED: Registry[Schema] = Registry()
"""A registry without ``retrieve``: a reference outside the schema is unresolvable."""

_Keyword = Callable[[Any, Any, Any, Any], Iterator[Any]]
"""A keyword's check: (validator, the keyword's value, the instance, the schema) → errors."""


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "string") or not isinstance(pattern, str):
        return
    try:
        matched = search(pattern, instance)
    except UnsafePattern as unsafe:
        yield ValidationError(str(unsafe))
        return
    if not matched:
        shown = repr(instance)
        if len(shown) > 200:  # a megabyte of input is not repeated in the message
            shown = f"{shown[:100]}… ({len(instance):,} characters)"
        yield ValidationError(f"{shown} does not match {pattern!r}")


def _matching(patterns: Mapping[str, object], key: str) -> list[str]:
    """The patterns among ``patterns`` that match ``key`` (raises UnsafePattern)."""
    return [pattern for pattern in patterns if search(pattern, key)]


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, Mapping):
        return
    for key, value in instance.items():
        try:
            matched = _matching(patterns, key)
        except UnsafePattern as unsafe:
            yield ValidationError(str(unsafe))
            return
        for pattern in matched:
            yield from validator.descend(value, patterns[pattern], path=key, schema_path=pattern)


def _additional_properties(original: _Keyword) -> _Keyword:
    """jsonschema's ``additionalProperties``, except that keys are tested against
    ``patternProperties`` by :func:`search` (jsonschema joins them into one ``re``)."""

    def check(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
        patterns = schema.get("patternProperties") if isinstance(schema, Mapping) else None
        if not isinstance(patterns, Mapping) or not patterns:
            yield from original(validator, extra, instance, schema)
            return
        if not validator.is_type(instance, "object"):
            return
        declared = schema.get("properties", {})
        try:
            extras = [
                key for key in instance if key not in declared and not _matching(patterns, key)
            ]
        except UnsafePattern as unsafe:
            yield ValidationError(str(unsafe))
            return
        if validator.is_type(extra, "object"):
            for key in extras:
                yield from validator.descend(instance[key], extra, path=key)
        elif extra is False and extras:
            verb = "does" if len(extras) == 1 else "do"
            names = ", ".join(repr(key) for key in sorted(extras))
            listed = ", ".join(repr(pattern) for pattern in sorted(patterns))
            yield ValidationError(f"{names} {verb} not match any of the regexes: {listed}")

    return check


def _refused(reason: str) -> _Keyword:
    def check(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "object"):
            yield ValidationError(reason)

    return check


_UNEVALUATED_WITH_PATTERNS = (
    "unevaluatedProperties is not evaluated in a schema that also has patternProperties "
    "(wfls matches patterns in linear time only)"
)


def _keywords_of(schema: object) -> set[str]:
    """Every key used in ``schema``'s mappings (iteratively: schemas may nest deeply)."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            found.update(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _bounded(cls: type[Validator], schema: object) -> type[Validator]:
    """``cls`` with every regular-expression keyword matched in linear time."""
    known = cls.VALIDATORS
    changes: dict[str, _Keyword] = {}
    if "pattern" in known:
        changes["pattern"] = _pattern
    if "patternProperties" in known:
        changes["patternProperties"] = _pattern_properties
    if "additionalProperties" in known:
        changes["additionalProperties"] = _additional_properties(known["additionalProperties"])
    used = _keywords_of(schema)
    if "unevaluatedProperties" in known and {"unevaluatedProperties", "patternProperties"} <= used:
        changes["unevaluatedProperties"] = _refused(_UNEVALUATED_WITH_PATTERNS)
    extended: type[Validator] = validators.extend(cls, changes)  # type: ignore[no-untyped-call]
    return extended


def compile_schema(schema: object) -> SchemaCheck:
    """The check for ``schema`` (a model schema or a mapping), compiled once per schema text."""
    plain = schema_dict(schema)
    key = json.dumps(plain, sort_keys=True, default=str)
    check = _COMPILED.get(key)
    if check is None:
        cls = _bounded(validators.validator_for(plain, default=Draft202012Validator), plain)
        fast = _fast_check(plain) if "$schema" not in plain else None
        check = SchemaCheck(cls(plain, registry=_NOTHING_FETCHED), fast)
        if len(_COMPILED) >= _COMPILED_LIMIT:
            _COMPILED.clear()
        _COMPILED[key] = check
    return check


def schema_problem(schema: object, value: object) -> str | None:
    """Why ``value`` does not match ``schema`` (the most relevant error), or None."""
    return compile_schema(schema).problem(value)

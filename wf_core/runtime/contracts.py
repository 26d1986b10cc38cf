"""JSON Schema checks of the values that cross a contract at run time.

The workflow input, node inputs and outputs, subgraph boundaries, interrupt
requests and answers, and the workflow output are each checked against the
schema the workflow declares for them (Draft 2020-12 unless the schema's
``$schema`` names another dialect). Validators are compiled once per schema
text: a run checks the same few schemas many times.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator

from wf_core.paths import format_segments

__all__ = ["SchemaCheck", "compile_schema", "schema_dict", "schema_problem"]

_COMPILED: dict[str, SchemaCheck] = {}
_COMPILED_LIMIT = 1024


def schema_dict(schema: Any) -> dict[str, Any]:
    """A model schema (``SchemaRef``/``StateSchema``) or a plain mapping as plain JSON."""
    if hasattr(schema, "model_dump"):
        dumped: dict[str, Any] = schema.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped
    if isinstance(schema, Mapping):
        return dict(schema)
    return {}


class SchemaCheck:
    """A compiled schema: ``problem(value)`` says why a value does not match, or None."""

    __slots__ = ("_validator",)

    def __init__(self, validator: Validator) -> None:
        self._validator = validator

    def problem(self, value: Any) -> str | None:
        if self._validator.is_valid(value):
            return None
        error = best_match(self._validator.iter_errors(value))
        if error is None:  # pragma: no cover - is_valid said there was one
            return "value does not match the schema"
        path = [str(p) for p in error.absolute_path]
        return f"{format_segments(path)}: {error.message}" if path else error.message


def compile_schema(schema: Any) -> SchemaCheck:
    """The check for ``schema`` (a model schema or a mapping), compiled once per schema text."""
    plain = schema_dict(schema)
    key = json.dumps(plain, sort_keys=True, default=str)
    check = _COMPILED.get(key)
    if check is None:
        cls = validators.validator_for(plain, default=Draft202012Validator)
        check = SchemaCheck(cls(plain))
        if len(_COMPILED) >= _COMPILED_LIMIT:
            _COMPILED.clear()
        _COMPILED[key] = check
    return check


def schema_problem(schema: Any, value: object) -> str | None:
    """Why ``value`` does not match ``schema`` (the most relevant error), or None."""
    return compile_schema(schema).problem(value)

"""Stand-in handlers: run a workflow before any real handler exists.

A stand-in returns a sample of its node def's ``output_schema`` and the
def's first outcome (or one chosen per node id or node def name). Samples
are deterministic, so two previews of the same workflow show the same
values. :func:`sample_value` covers the JSON Schema most contracts use
(``type``, ``properties``/``required``, ``items``/``prefixItems``, ``enum``,
``const``, ``default``, ``$ref``, ``anyOf``/``oneOf``/``allOf``, numeric and
length bounds); a schema it cannot satisfy gives a value the output check
then rejects, with the schema's own reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012, Schema

from wf_core.base.suggest import closest_name
from wf_core.models import InterruptNode, NodeDef, NodeUse, Workflow
from wf_core.models.schema_nav import schema_urn
from wf_core.models.steps import declared_outcomes
from wf_core.models.workflow import node_defs_by_name
from wf_core.runtime.contracts import schema_dict
from wf_core.runtime.handlers import Handler, NodeResult, RuntimeContext
from wf_core.runtime.json_values import JsonObject, JsonValue

__all__ = ["outcome_choice_problems", "sample_value", "stand_in_handlers"]

_MAX_DEPTH = 12


class _Sampler:
    def __init__(self, root: Mapping[str, object]) -> None:
        uri = schema_urn(root)
        registry: Registry[Schema] = Registry().with_resource(
            uri, DRAFT202012.create_resource(root)
        )
        self._resolver = registry.resolver(base_uri=uri)

    def _deref(self, schema: Mapping[str, object]) -> Mapping[str, object] | bool | None:
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            return None
        try:
            target = self._resolver.lookup(ref).contents
        except (Unresolvable, Exception):
            return None
        if isinstance(target, Mapping | bool):
            return target
        return None

    def sample(self, schema: object, name: str, depth: int) -> JsonValue:
        if schema is True or schema is None:
            return None
        if schema is False or not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
            return None
        if "const" in schema:
            const: JsonValue = schema["const"]
            return const
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            first: JsonValue = enum[0]
            return first
        if "default" in schema:
            default: JsonValue = schema["default"]
            return default
        target = self._deref(schema)
        if target is not None:
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            merged = _merge(target, siblings) if isinstance(target, Mapping) else siblings
            return self.sample(merged, name, depth + 1)
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and all_of:
            merged_schema: Mapping[str, object] = {k: v for k, v in schema.items() if k != "allOf"}
            for member in all_of:
                if isinstance(member, Mapping):
                    resolved = self._deref(member)
                    if isinstance(resolved, Mapping):
                        member = _merge(resolved, {k: v for k, v in member.items() if k != "$ref"})
                    merged_schema = _merge(merged_schema, member)
            return self.sample(merged_schema, name, depth + 1)
        for keyword in ("anyOf", "oneOf"):
            members = schema.get(keyword)
            if isinstance(members, list) and members:
                rest = {k: v for k, v in schema.items() if k != keyword}
                first_member = members[0]
                if isinstance(first_member, Mapping):
                    return self.sample(_merge(rest, first_member), name, depth + 1)
                return self.sample(first_member, name, depth + 1)
        kind = _first_type(schema)
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, name, depth)
        if kind == "string":
            return _string(schema, name)
        if kind == "integer":
            return _integer(schema)
        if kind == "number":
            return _number(schema)
        if kind == "boolean":
            return True
        return None

    def _object(self, schema: Mapping[str, object], depth: int) -> JsonObject:
        out: JsonObject = {}
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            for key, sub in properties.items():
                out[str(key)] = self.sample(sub, str(key), depth + 1)
        required = schema.get("required")
        if isinstance(required, list):
            for key in required:
                if isinstance(key, str) and key not in out:
                    extra = schema.get("additionalProperties")
                    out[key] = self.sample(extra if isinstance(extra, Mapping) else {}, key, depth)
        return out

    def _array(self, schema: Mapping[str, object], name: str, depth: int) -> list[JsonValue]:
        minimum = schema.get("minItems", 0)
        minimum = minimum if isinstance(minimum, int) else 0
        maximum = schema.get("maxItems")
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        out: list[JsonValue] = []
        if isinstance(prefix, list):
            out.extend(self.sample(sub, name, depth + 1) for sub in prefix)
        count = max(minimum, 1 if isinstance(items, Mapping) else 0)
        if isinstance(maximum, int):
            count = min(count, maximum)
        while len(out) < count:
            out.append(self.sample(items if items is not None else {}, name, depth + 1))
        if isinstance(maximum, int):
            del out[maximum:]
        return out


def _merge(base: Mapping[str, object], extra: Mapping[str, object]) -> dict[str, object]:
    """Two schemas as one for sampling: properties and required lists are united."""
    merged = dict(base)
    for key, value in extra.items():
        # (a valid schema's ``properties`` is an object and its ``required`` an array)
        current = merged.get(key)
        if key == "properties" and isinstance(value, Mapping):
            merged[key] = {**(current if isinstance(current, Mapping) else {}), **value}
        elif key == "required" and isinstance(value, list):
            known = current if isinstance(current, list) else []
            merged[key] = list(dict.fromkeys([*known, *value]))
        else:
            merged[key] = value
    return merged


def _first_type(schema: Mapping[str, object]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        named = [k for k in kind if isinstance(k, str) and k != "null"]
        return named[0] if named else ("null" if "null" in kind else None)
    if isinstance(kind, str):
        return kind
    if "properties" in schema or "required" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    return None


def _string(schema: Mapping[str, object], name: str) -> str:
    text = name if name else "text"
    minimum = schema.get("minLength")
    maximum = schema.get("maxLength")
    if isinstance(minimum, int) and len(text) < minimum:
        text = text + "x" * (minimum - len(text))
    if isinstance(maximum, int):
        text = text[:maximum]
    return text


def _bounds(schema: Mapping[str, object]) -> tuple[float | None, float | None]:
    low: float | None = None
    high: float | None = None
    for key, strict in (("minimum", False), ("exclusiveMinimum", True)):
        value = schema.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            candidate = float(value) + (1e-9 if strict else 0.0)
            low = candidate if low is None else max(low, candidate)
    for key, strict in (("maximum", False), ("exclusiveMaximum", True)):
        value = schema.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            candidate = float(value) - (1e-9 if strict else 0.0)
            high = candidate if high is None else min(high, candidate)
    return low, high


def _integer(schema: Mapping[str, object]) -> int:
    low, high = _bounds(schema)
    value = 1
    if low is not None and value < low:
        value = math.ceil(low)
    if high is not None and value > high:
        value = math.floor(high)
    step = schema.get("multipleOf")
    if isinstance(step, int) and not isinstance(step, bool) and step > 0 and value % step:
        value = (value // step + 1) * step
    return value


def _number(schema: Mapping[str, object]) -> int | float:
    step = schema.get("multipleOf")
    if isinstance(step, int | float) and not isinstance(step, bool) and step > 0:
        return _integer({**schema, "multipleOf": None}) * step
    low, high = _bounds(schema)
    value: float = 1.0
    if low is not None and value < low:
        value = low if float(low).is_integer() else low + 0.5
    if high is not None and value > high:
        value = high
    return int(value) if value.is_integer() else value


def sample_value(schema: object, *, name: str = "") -> JsonValue:
    """A deterministic value meant to satisfy ``schema`` (a mapping or a model schema)."""
    plain = schema_dict(schema) if not isinstance(schema, bool) else {}
    return _Sampler(plain).sample(plain, name, 0)


def stand_in_handlers(
    workflow: Workflow,
    *,
    outcomes: Mapping[str, str] | None = None,
    subgraphs: Mapping[str, Workflow] | None = None,
) -> dict[str, Handler]:
    """A stand-in for every node def of ``workflow`` and of the given subgraphs.

    ``outcomes`` maps a node id, or a node def name, to the outcome its
    stand-in returns; a node id wins over its def's name. Any other node
    returns its def's first outcome.
    """
    chosen = dict(outcomes or {})
    handlers: dict[str, Handler] = {}
    for source in (workflow, *(subgraphs or {}).values()):
        for definition in source.node_defs:
            if definition.name in handlers:
                continue
            output = sample_value(definition.output_schema)
            handlers[definition.name] = _stand_in(
                definition.name, definition.outcomes[0], output, chosen
            )
    return handlers


def _stand_in(name: str, default: str, output: JsonValue, chosen: Mapping[str, str]) -> Handler:
    def handler(payload: JsonObject, ctx: RuntimeContext) -> NodeResult:
        outcome = chosen.get(ctx.node_id, chosen.get(name, default))
        value = output if isinstance(output, dict) else {}
        return NodeResult(outcome=outcome, output=value)

    handler.__name__ = f"stand_in_{name}"
    return handler


def outcome_choice_problems(
    workflow: Workflow,
    outcomes: Mapping[str, str],
    *,
    subgraphs: Mapping[str, Workflow] | None = None,
    stand_ins: bool = True,
) -> dict[str, str]:
    """Why each chosen outcome (by node id or node def name, as :func:`stand_in_handlers`
    and interrupts read them) cannot be taken, by key; empty when all can.

    Only a node of type ``node`` run by its stand-in (``stand_ins``) and an interrupt take
    a chosen outcome, and only one they declare (:func:`declared_outcomes`, the rule
    validation applies to edges). Checked before a run, a mistake is a clear refusal
    instead of a node failing halfway, or a choice silently ignored.
    """
    sources = [workflow, *(subgraphs or {}).values()]
    problems: dict[str, str] = {}
    for key, outcome in outcomes.items():
        problem = _choice_problem(sources, key, outcome, stand_ins)
        if problem is not None:
            problems[key] = problem
    return problems


def _choice_problem(sources: list[Workflow], key: str, outcome: str, stand_ins: bool) -> str | None:
    """What is wrong with choosing ``outcome`` for ``key``, if anything. A node id wins
    over a node def name, as in the stand-ins."""
    uses = [(node, source) for source in sources for node in source.nodes if node.id == key]
    by_id = bool(uses)
    if not by_id:
        uses = [
            (node, source)
            for source in sources
            for node in source.nodes
            if isinstance(node, NodeUse) and node.node == key
        ]
    if not uses:
        return _unknown(sources, key)
    for node, source in uses:
        what = f"node '{node.id}'" if by_id else f"node def '{key}'"
        if isinstance(node, NodeUse) and not stand_ins:
            return f"{what} runs a handler you gave, which chooses its own outcome"
        if not isinstance(node, NodeUse | InterruptNode):
            return (
                f"node '{node.id}' is of type {node.type}, whose outcome cannot be chosen "
                "(only nodes of type node, run by their stand-ins, and interrupts can)"
            )
        defs: dict[str, NodeDef] = node_defs_by_name(source.node_defs)
        declared = declared_outcomes(node, defs)
        if outcome not in declared:
            listed = [o for o in _declaration_order(node, defs) if o in declared]
            suggestion = closest_name(outcome, declared)
            hint = f"; did you mean '{suggestion}'?" if suggestion else ""
            return (
                f"{what} does not declare outcome '{outcome}' "
                f"(declared: {', '.join(listed) or 'none'}{hint})"
            )
    return None


def _declaration_order(node: NodeUse | InterruptNode, defs: Mapping[str, NodeDef]) -> list[str]:
    """The outcomes as the document lists them, for messages."""
    if isinstance(node, InterruptNode):
        return list(node.outcomes)
    definition = defs.get(node.node)
    return list(definition.outcomes) if definition is not None else []


def _unknown(sources: list[Workflow], key: str) -> str:
    if any(d.name == key for source in sources for d in source.node_defs):
        return f"no node uses node def '{key}'"
    names: list[str] = []
    for source in sources:
        names.extend(node.id for node in source.nodes)
        names.extend(d.name for d in source.node_defs)
    called = " or the workflows it calls" if len(sources) > 1 else ""
    suggestion = closest_name(key, names)
    hint = f" (did you mean '{suggestion}'?)" if suggestion else ""
    return f"workflow '{sources[0].name}'{called} has no node or node def '{key}'{hint}"

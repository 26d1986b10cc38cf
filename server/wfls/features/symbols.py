"""Document and workspace symbols: the outline of a workflow.

The outline holds the nodes, each under the foreach that owns it (the last
entry of its owner stack, from the context model), so the outline reads like
the loops run; nodes without an owner stack (unreachable, reached under two
foreach regions, or not analysed because of their own errors) stay at the top
level with a detail saying so. Beside them: the node defs with their outcomes
and schemas, and the workflow's ``input_schema``, ``state_schema`` and
``output_schema`` with their declared properties, nested ones too (an object's
properties, an array's items' properties, through ``$ref`` into ``$defs``).

A symbol's range is the text of its own entry (a node's table), never the
nodes nested under it, which are written elsewhere: the nesting is the loops',
not the text's.

Workspace symbols are the workflow's name, its nodes and its node defs, matched
against the query as a case-insensitive subsequence (``cust`` finds
``customers``, ``ordv2`` finds ``orders.v2``).
"""

from __future__ import annotations

from collections.abc import Mapping

from wf_core.base.locations import Location
from wf_core.base.spans import Span
from wf_core.models.schema_nav import SchemaView
from wf_core.semantic.declarations import SchemaSite
from wf_core.version.view import AnalysisView, ParsedView, SourceMapView
from wfls.features.common import document_nodes
from wfls.features.types import OutlineSymbol

NODE_KINDS = {
    "foreach": "Namespace",
    "node": "Function",
    "subgraph": "Module",
    "condition": "Boolean",
    "join": "Operator",
    "interrupt": "Event",
    "end": "Event",
}
WORKFLOW_SCHEMAS = ("input_schema", "state_schema", "output_schema")
UNREACHABLE = "unreachable"
CONFLICTED = "reached under two foreach regions"
NOT_ANALYSED = "not analysed: it has errors"
MAX_SCHEMA_DEPTH = 16
"""Schema properties nest in the outline this deep at most."""
MAX_SCHEMA_SYMBOLS = 2_000
"""Properties listed per schema at most: ``$ref``s shared along many properties multiply
what a schema declares, which a recursion guard alone does not bound."""
MAX_OUTLINE_DEPTH = 32
"""Loops nest in the outline this deep at most; the nodes of deeper loops are listed,
flat, under the loop at that depth. Clients walk and serialise the outline
recursively, and 1,000 nested loops would exhaust their stacks (and ours)."""


def document_symbols(view: AnalysisView) -> list[OutlineSymbol]:
    """The outline, top-level symbols in document order."""
    top = _node_outline(view)
    top += _node_defs(view.parsed, view)
    for key in WORKFLOW_SCHEMAS:
        schema = _schema_symbol(view, (key,), key)
        if schema is not None:
            top.append(schema)
    top.sort(key=lambda symbol: symbol.span.start)
    return top


def workspace_symbols(view: ParsedView, query: str) -> list[tuple[OutlineSymbol, str | None]]:
    """The workflow, its nodes and node defs whose names match ``query``, with the
    name of the workflow that holds them: read from the parsed document alone, as a
    search of the whole workspace reads every document (no model, no index)."""
    values = view.values if isinstance(view.values, Mapping) else {}
    name = values.get("name")
    workflow = name if isinstance(name, str) else None
    found: list[tuple[OutlineSymbol, str | None]] = []
    literal = view.source_map.string(("name",))
    if workflow is not None and literal is not None and matches(query, workflow):
        found.append((OutlineSymbol(workflow, "Package", literal.span, literal.content), None))
    nodes = values.get("nodes")
    for index, node in enumerate(nodes if isinstance(nodes, list) else ()):
        written = node if isinstance(node, Mapping) else {}
        if not matches(query, _node_name(index, written)):
            continue  # (the name first: a symbol is made only for what matches)
        symbol = _node_symbol(view.source_map, index, written)
        if symbol is not None:
            found.append((symbol, workflow))
    for definition in _node_defs(view):
        if matches(query, definition.name):
            found.append((definition, workflow))
    return found


def matches(query: str, name: str) -> bool:
    """Whether ``query``'s characters appear in ``name`` in order, ignoring case."""
    rest = iter(name.casefold())
    return all(char in rest for char in query.casefold())


# -- nodes ---------------------------------------------------------------------------------


def _node_outline(view: AnalysisView, *, nest: bool = True) -> list[OutlineSymbol]:
    source_map = view.parsed.source_map
    nodes = document_nodes(view)
    node_ids = view.index.resolver.node_ids
    model = view.context
    loaded = set(view.load.node_positions) if view.workflow is not None else set()
    conflicted = model.regions.conflicted if model is not None else frozenset()
    entries: list[tuple[OutlineSymbol, str | None]] = []  # (symbol without children, owner)
    for index, node in enumerate(nodes):
        symbol = _node_symbol(source_map, index, node)
        if symbol is None:
            continue
        written_id = node.get("id")
        node_id = written_id if isinstance(written_id, str) else None
        detail = symbol.detail or ""
        owner = None
        if model is not None and index not in loaded:
            detail += f" · {NOT_ANALYSED}"
        elif model is not None and node_id is not None:
            stack = model.stack_of(node_id)
            if stack is None:
                detail += f" · {CONFLICTED if node_id in conflicted else UNREACHABLE}"
            elif stack and stack[-1] != node_id and node_ids.get(stack[-1]) is not None:
                owner = stack[-1]
        symbol = OutlineSymbol(symbol.name, symbol.kind, symbol.span, symbol.selection, detail)
        entries.append((symbol, owner if nest else None))
    children: dict[str, list[OutlineSymbol]] = {}
    first: dict[str, int] = {}  # a node id's first entry, the one references name
    for position, (symbol, _) in enumerate(entries):
        first.setdefault(symbol.name, position)
    for symbol, owner in entries:
        if owner is not None:
            children.setdefault(owner, []).append(symbol)
    position_of = {id(symbol): position for position, (symbol, _) in enumerate(entries)}

    def descendants(symbol: OutlineSymbol, seen: set[str]) -> list[OutlineSymbol]:
        """Every symbol nested under ``symbol``, in outline order, each once (no recursion)."""
        out: list[OutlineSymbol] = []
        stack = list(reversed(children.get(symbol.name, [])))
        while stack:
            child = stack.pop()
            out.append(child)
            if first.get(child.name) == position_of[id(child)] and child.name not in seen:
                seen.add(child.name)
                stack.extend(reversed(children.get(child.name, [])))
        return out

    def build(
        position: int, symbol: OutlineSymbol, seen: frozenset[str], depth: int
    ) -> OutlineSymbol:
        if first.get(symbol.name) != position or symbol.name in seen:
            return symbol
        if depth >= MAX_OUTLINE_DEPTH:
            nested = tuple(descendants(symbol, {*seen, symbol.name}))
        else:
            nested = tuple(
                build(first.get(child.name, -1), child, seen | {symbol.name}, depth + 1)
                for child in children.get(symbol.name, [])
            )
        return OutlineSymbol(
            symbol.name, symbol.kind, symbol.span, symbol.selection, symbol.detail, nested
        )

    return [
        build(position, symbol, frozenset(), 1)
        for position, (symbol, owner) in enumerate(entries)
        if owner is None
    ]


def _node_symbol(
    source_map: SourceMapView, index: int, node: Mapping[str, object]
) -> OutlineSymbol | None:
    """The symbol of the document's ``nodes[index]`` as its text says it (no model): its
    id (or its place), kind, range and the detail its own values give."""
    entry = source_map.get(("nodes", index))
    if entry is None:
        return None
    literal = source_map.string(("nodes", index, "id"))
    selection = (
        literal.content if literal is not None else Span(entry.value.start, entry.value.start)
    )
    kind = NODE_KINDS.get(str(node.get("type")), "Object")
    return OutlineSymbol(_node_name(index, node), kind, entry.value, selection, _node_detail(node))


def _node_name(index: int, node: Mapping[str, object]) -> str:
    """What a node is called in the outline: its id, or its place when it has none."""
    written_id = node.get("id")
    return written_id if isinstance(written_id, str) else f"nodes[{index}]"


def _node_detail(node: Mapping[str, object]) -> str:
    node_type = node.get("type")
    kind = node_type if isinstance(node_type, str) else "node"
    if node_type == "foreach" and isinstance(node.get("over"), str):
        return f"foreach over {node['over']}"
    if node_type == "node" and isinstance(node.get("node"), str):
        return f"node {node['node']}"
    if node_type == "subgraph" and isinstance(node.get("workflow"), str):
        return f"subgraph {node['workflow']}"
    if node_type == "end" and isinstance(node.get("outcome"), str):
        return f"end {node['outcome']}"
    return kind


# -- node defs and schemas -------------------------------------------------------------------


def _node_defs(parsed: ParsedView, view: AnalysisView | None = None) -> list[OutlineSymbol]:
    """Each node def's symbol; with the analysis ``view``, its outcomes and schemas as its
    children."""
    source_map = parsed.source_map
    values = parsed.values if isinstance(parsed.values, Mapping) else {}
    definitions = values.get("node_defs")
    out = []
    for index, definition in enumerate(definitions if isinstance(definitions, list) else ()):
        base: Location = ("node_defs", index)
        entry = source_map.get(base)
        name = definition.get("name") if isinstance(definition, Mapping) else None
        literal = source_map.string((*base, "name"))
        if entry is None or not isinstance(name, str) or literal is None:
            continue
        inner: list[OutlineSymbol] = []
        outcomes = definition.get("outcomes")
        declared = [o for o in outcomes if isinstance(o, str)] if isinstance(outcomes, list) else []
        if view is not None:
            for k, outcome in enumerate(outcomes if isinstance(outcomes, list) else ()):
                at = source_map.string((*base, "outcomes", k))
                if isinstance(outcome, str) and at is not None:
                    inner.append(
                        OutlineSymbol(outcome, "EnumMember", at.span, at.content, "outcome")
                    )
            for key in ("input_schema", "output_schema"):
                schema = _schema_symbol(view, (*base, key), key)
                if schema is not None:
                    inner.append(schema)
        detail = "node def" + (f" · outcomes {', '.join(declared)}" if declared else "")
        out.append(OutlineSymbol(name, "Class", entry.value, literal.content, detail, tuple(inner)))
    return out


def _schema_symbol(view: AnalysisView, location: Location, name: str) -> OutlineSymbol | None:
    entry = view.parsed.source_map.get(location)
    site = view.index.resolver.site(location)
    if entry is None or site is None:
        return None
    root = site.navigator.root
    selection = _name(view, entry.key) if entry.key is not None else entry.value
    on_branch = frozenset(id(branch.schema) for branch in root.branches())
    budget = [MAX_SCHEMA_SYMBOLS]
    properties = tuple(_properties(view, site, root, 1, on_branch, budget))
    return OutlineSymbol(
        name, "Struct", _pair(entry.key, entry.value), selection, root.type_summary(), properties
    )


def _properties(
    view: AnalysisView,
    site: SchemaSite,
    schema: SchemaView,
    depth: int,
    on_branch: frozenset[int],
    budget: list[int],
) -> list[OutlineSymbol]:
    """The properties ``schema`` declares, each where it is written, with its own members.

    Asked of the one schema navigator, so a property declared through ``$ref``,
    ``allOf``/``anyOf``/``oneOf`` counts as completion and validation count it; a
    property holding an array has its items' properties as members. A schema already
    expanded on this branch (a recursive ``$ref``) is listed but not expanded again.
    """
    if depth > MAX_SCHEMA_DEPTH:
        return []
    source_map = view.parsed.source_map
    out = []
    for name in schema.declared_names():
        child = schema.child(name)
        where = _written_at(site, schema, name)
        entry = source_map.get(where) if where is not None else None
        if child is None or entry is None or entry.key is None or budget[0] <= 0:
            continue
        budget[0] -= 1
        members = _members(child)
        nested: tuple[OutlineSymbol, ...] = ()
        if members is not None:
            seen = {id(branch.schema) for branch in members.branches()}
            if not seen & on_branch:
                nested = tuple(
                    _properties(view, site, members, depth + 1, on_branch | seen, budget)
                )
        pair = _pair(entry.key, entry.value)
        out.append(
            OutlineSymbol(
                name, "Property", pair, _name(view, entry.key), child.type_summary(), nested
            )
        )
    return out


def _written_at(site: SchemaSite, schema: SchemaView, name: str) -> Location | None:
    """Where the first branch of ``schema`` that declares ``name`` is written in the
    document (a ``$ref`` target in its ``$defs`` counts); None when none is."""
    for branch in schema.branches():
        declared = branch.declared_properties()
        if declared is not None and name in declared:
            location = site.location_of(branch.schema)
            if location is not None:
                return (*location, "properties", name)
    return None


def _members(schema: SchemaView) -> SchemaView | None:
    """What a property's members are: its items' properties for an array, else its own."""
    if schema.declares_array():
        items = schema.array_items()
        return SchemaView((items,)) if items is not None else None
    return schema


def _name(view: AnalysisView, key: Span) -> Span:
    """A key's name without its quotes."""
    text = view.text
    if (
        key.end - key.start >= 2
        and text[key.start] in "\"'"
        and text[key.end - 1] == text[key.start]
    ):
        return Span(key.start + 1, key.end - 1)
    return key


def _pair(key: Span | None, value: Span) -> Span:
    """A key and its value together (a TOML section's header holds its key)."""
    if key is None:
        return value
    return Span(min(key.start, value.start), max(key.end, value.end))

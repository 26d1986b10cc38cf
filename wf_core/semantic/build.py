"""Building the parts of the semantic index of one document version.

A walk over one part of the document's values (a node, an edge, the rest) finds
every name and every path string there;
each path segment is resolved at the node that reads it (its owner stack from
the context model) against the document's schemas. Nodes that failed to load
are still walked: their names and paths are written, so they are indexed, and
what cannot be resolved without the model (an owner stack) is left
unresolved rather than guessed.

Where path strings live (their roles) is decided here and only here for the
editor; ``wf_core.validation.reads`` walks the model for validation, and a
test checks that both find the same reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from wf_core.analysis.context_scopes import ContextModel
from wf_core.base.locations import Location
from wf_core.documents import StringLiteral
from wf_core.language.context_contracts import (
    FOREACH_CONTEXT_KEY,
    FOREACH_ENTRY_KEYS,
    LOOP_INDEX_KEY,
    LOOP_ITEM_KEY,
    STANDARD_CONTEXT_NAMES,
    is_valid_alias,
)
from wf_core.language.path_scan import PathScan, scan_path
from wf_core.language.tokens import END

if TYPE_CHECKING:
    from wf_core.version.view import SourceMapView
from wf_core.models.schema_nav import SchemaView
from wf_core.models.steps import ARTIFACT_REF, NODE_TABLE, outcomes_as_written
from wf_core.models.workflow import first_index_by_id
from wf_core.semantic.declarations import SchemaSite, property_declarations
from wf_core.semantic.occurrences import (
    NameSyntax,
    Occurrence,
    PathOccurrence,
    PathRole,
    PathSegment,
    Role,
    SegmentKind,
    Symbol,
    SymbolKind,
)
from wf_core.semantic.parts import IndexPart, NodeShape, PartKind

ROOTS = ("input", "state", "context")

_SCHEMA_KEYS = ("input_schema", "state_schema", "output_schema")

_Kinds = tuple[tuple[SegmentKind, Symbol | None, bool], ...]
"""What a path's segments are, each: its kind, the symbol it names, whether deprecated."""


def _dict(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def node_mappings(values: Mapping[str, object]) -> list[Mapping[str, object]]:
    """The document's nodes as written, each a mapping (an empty one for a node that is
    no table)."""
    nodes = _list(values.get("nodes"))
    if set(map(type, nodes)) <= {dict}:  # at C speed: the list itself, as read
        return nodes  # type: ignore[return-value]
    return [n if type(n) is dict else _dict(n) for n in nodes]


NodeNames = tuple[dict[str, int], dict[str, list[str]]]
"""Which node each id names (``first_index_by_id``) and the foreach loops each alias
names, in the order they are written."""


def node_names(shapes: Sequence[NodeShape]) -> NodeNames:
    """The names of the nodes whose shapes (``node_shape``) are ``shapes``."""
    node_ids = first_index_by_id([shape[0] for shape in shapes])
    aliases: dict[str, list[str]] = {}
    for owner, kind, alias, *_ in shapes:
        if kind == "foreach" and isinstance(alias, str) and isinstance(owner, str):
            aliases.setdefault(alias, []).append(owner)
    return node_ids, aliases


class PathResolver:
    """Classifies the segments of path strings, one per document version: the index's
    parts of that version are written with it."""

    def __init__(
        self,
        values: Mapping[str, object],
        context: ContextModel | None,
        nodes: list[Mapping[str, object]],
        names: NodeNames,
    ) -> None:
        """``nodes``: ``node_mappings`` of the values; ``names``: ``node_names`` of their
        shapes (found again while the shapes are unchanged)."""
        self.values = values
        self.context = context
        self.nodes = nodes
        self.node_ids, self.aliases = names
        self._sites: dict[Location, SchemaSite | None] = {}
        self._origins: dict[str, tuple[SchemaSite, SchemaView] | None] = {}
        self._kinds: dict[tuple[object, ...], _Kinds] = {}

    # -- schemas ------------------------------------------------------------------

    def site(self, location: Location) -> SchemaSite | None:
        """The schema value written at ``location`` (None when there is none)."""
        if location not in self._sites:
            value: object = self.values
            for part in location:
                if isinstance(part, int):
                    items = _list(value)
                    value = items[part] if 0 <= part < len(items) else None
                elif isinstance(part, str):
                    value = _dict(value).get(part)
                else:
                    value = None
            site = SchemaSite(location, value) if isinstance(value, Mapping) else None
            self._sites[location] = site
        return self._sites[location]

    def node_schema_site(self, node_index: int, want_output: bool) -> SchemaSite | None:
        """The schema a node's binding targets (or output sources) name fields of."""
        node = self.nodes[node_index]
        key = "output_schema" if want_output else "input_schema"
        if node.get("type") == "subgraph":
            return self.site(("nodes", node_index, key))
        name = node.get("node")
        for index, definition in enumerate(_list(self.values.get("node_defs"))):
            if _dict(definition).get("name") == name:
                return self.site(("node_defs", index, key))
        return None

    def stack_at(self, node_id: str | None) -> tuple[str, ...] | None:
        if self.context is None or node_id is None:
            return None
        return self.context.stack_of(node_id)

    # -- foreach items ------------------------------------------------------------

    def item_origin(self, owner: str) -> tuple[SchemaSite, SchemaView] | None:
        """Where a foreach's item schema is written: the ``items`` its ``over`` reads.

        An ``over`` may read the item of an outer loop, whose ``over`` reads the item of
        one further out, and so on: the chain is followed outwards first and resolved
        from its outermost loop in, each loop's origin memoised before the next needs it,
        so nesting a thousand deep never recurses a thousand deep. Loops whose ``over``s
        read each other's items in a cycle have no origin (whichever is asked first)."""
        origins = self._origins
        if owner in origins:
            return origins[owner]
        chain: list[str] = []
        seen: set[str] = set()
        current: str | None = owner
        while current is not None and current not in origins and current not in seen:
            seen.add(current)
            chain.append(current)
            current = self._read_owner(current)
        if current is not None and current in seen:
            for member in chain[chain.index(current) :]:
                origins[member] = None
        for member in reversed(chain):
            if member not in origins:
                origins[member] = self._item_origin(member)
        return origins[owner]

    def _read_owner(self, owner: str) -> str | None:
        """The foreach whose item the ``over`` of foreach ``owner`` reads, if any."""
        index = self.node_ids.get(owner)
        if index is None or self.nodes[index].get("type") != "foreach":
            return None
        over = self.nodes[index].get("over")
        if not isinstance(over, str):
            return None
        scan = scan_path(over)
        parts = scan.values
        if not scan.valid or len(parts) < 2 or parts[0] != "context":
            return None
        return self._item_owner(parts[1:], self.stack_at(owner) or ())[0]

    def _item_origin(self, owner: str) -> tuple[SchemaSite, SchemaView] | None:
        index = self.node_ids.get(owner)
        if index is None or self.nodes[index].get("type") != "foreach":
            return None
        over = self.nodes[index].get("over")
        if not isinstance(over, str):
            return None
        scan = scan_path(over)
        if not scan.valid or not scan.segments:
            return None
        parts = scan.values
        found = self._value_at(parts[0], parts[1:], self.stack_at(owner) or ())
        if found is None:
            return None
        site, view = found
        items = view.array_items()
        return (site, SchemaView((items,))) if items is not None else None

    def _value_at(
        self, root: str, rest: tuple[str, ...], stack: tuple[str, ...]
    ) -> tuple[SchemaSite, SchemaView] | None:
        """The written schema a read ``root.rest`` resolves to, when it has one."""
        if root in ("input", "state"):
            site = self.site((f"{root}_schema",))
            if site is None:
                return None
            view = site.navigator.at_path(rest)
            return (site, view) if view is not None else None
        if root != "context" or not rest:
            return None
        owner, members = self._item_owner(rest, stack)
        if owner is None:
            return None
        origin = self.item_origin(owner)
        if origin is None:
            return None
        site, view = origin
        for part in members:
            child = view.child(part)
            if child is None:
                return None
            view = child
        return site, view

    def _item_owner(
        self, rest: tuple[str, ...], stack: tuple[str, ...]
    ) -> tuple[str | None, tuple[str, ...]]:
        """The foreach whose item a context read names, and the members after the item."""
        head = rest[0]
        if head == FOREACH_CONTEXT_KEY and len(rest) >= 3 and rest[2] == "item":
            return rest[1], rest[3:]
        if head == LOOP_ITEM_KEY and stack:
            return stack[-1], rest[1:]
        owner = self.alias_owner(head, stack)
        return (owner, rest[1:]) if owner is not None else (None, ())

    def alias_owner(self, alias: str, stack: tuple[str, ...] | None) -> str | None:
        """The foreach an alias read stands for: the innermost active one, or, where no
        stack is known, the only foreach with that alias."""
        if not is_valid_alias(alias):
            return None
        for owner in reversed(stack or ()):
            index = self.node_ids.get(owner)
            if index is not None and self.nodes[index].get("as") == alias:
                return owner
        candidates = self.aliases.get(alias, [])
        return candidates[0] if stack is None and len(candidates) == 1 else None

    # -- segments -------------------------------------------------------------------

    def segments(
        self,
        role: PathRole,
        literal: StringLiteral,
        node_index: int | None,
        node_id: str | None,
    ) -> tuple[PathScan, tuple[PathSegment, ...]]:
        scan = scan_path(literal.value)
        spans = [literal.doc_span(s.start, s.end) for s in scan.segments]
        values = [s.value for s in scan.segments]
        # What the segments mean depends only on the values and on where they are read
        # (the schema a local path names, or the owner stack of a read), so paths
        # written many times over (every body node reading its loop) resolve once.
        key: tuple[object, ...]
        site: SchemaSite | None = None
        if role in (PathRole.LOCAL_TARGET, PathRole.LOCAL_SOURCE, PathRole.OUTPUT_TARGET):
            if role == PathRole.OUTPUT_TARGET:
                site = self.site(("output_schema",))
            elif node_index is not None:
                site = self.node_schema_site(node_index, role == PathRole.LOCAL_SOURCE)
            key = ("local", site.location if site is not None else None, *values)
        elif role == PathRole.STATE_TARGET:
            key = ("state", *values)
        else:
            stack = () if role == PathRole.OUTPUT else self.stack_at(node_id)
            key = ("read", stack, *values)
        kinds = self._kinds.get(key)
        if kinds is None:
            kinds = self._kinds[key] = tuple(self._segment_kinds(role, site, values, node_id))
        segments = tuple(
            PathSegment(i, values[i], spans[i], kind, symbol, deprecated)
            for i, (kind, symbol, deprecated) in enumerate(kinds[: len(values)])
        )
        return scan, segments

    def _segment_kinds(
        self, role: PathRole, site: SchemaSite | None, values: list[str], node_id: str | None
    ) -> list[tuple[SegmentKind, Symbol | None, bool]]:
        if role in (PathRole.LOCAL_TARGET, PathRole.LOCAL_SOURCE, PathRole.OUTPUT_TARGET):
            return self._members(site, site.navigator.root if site else None, values)
        if role == PathRole.STATE_TARGET:
            state = self.site(("state_schema",))
            kinds = [
                (SegmentKind.ROOT if values[:1] == ["state"] else SegmentKind.UNKNOWN, None, False)
            ]
            return kinds + self._members(state, state.navigator.root if state else None, values[1:])
        return self._read_kinds(values, node_id, role)

    def _members(
        self, site: SchemaSite | None, view: SchemaView | None, values: list[str]
    ) -> list[tuple[SegmentKind, Symbol | None, bool]]:
        out: list[tuple[SegmentKind, Symbol | None, bool]] = []
        for value in values:
            child = view.child(value) if view is not None else None
            if child is None or site is None:
                out.append((SegmentKind.UNKNOWN, None, False))
                view = None
                continue
            out.append((SegmentKind.MEMBER, site.property_symbol(child, value), False))
            view = child
        return out

    def _read_kinds(
        self, values: list[str], node_id: str | None, role: PathRole
    ) -> list[tuple[SegmentKind, Symbol | None, bool]]:
        if not values:
            return []
        root = values[0]
        if root not in ROOTS:
            return [(SegmentKind.UNKNOWN, None, False)] * len(values)
        out: list[tuple[SegmentKind, Symbol | None, bool]] = [(SegmentKind.ROOT, None, False)]
        if root in ("input", "state"):
            site = self.site((f"{root}_schema",))
            return out + self._members(site, site.navigator.root if site else None, values[1:])
        rest = values[1:]
        if not rest:
            return out
        stack = () if role == PathRole.OUTPUT else self.stack_at(node_id)
        head = rest[0]
        if head == FOREACH_CONTEXT_KEY:
            out.append((SegmentKind.FOREACH, None, False))
            if len(rest) >= 2:
                owner = rest[1]
                symbol = (
                    Symbol(SymbolKind.NODE, (owner,), owner) if owner in self.node_ids else None
                )
                kind = SegmentKind.FOREACH_ID if symbol is not None else SegmentKind.UNKNOWN
                out.append((kind, symbol, False))
            if len(rest) >= 3:
                field = rest[2]
                known = field in FOREACH_ENTRY_KEYS
                out.append((SegmentKind.ENTRY_FIELD if known else SegmentKind.UNKNOWN, None, False))
                if field == "item":
                    out += self._item_members(rest[1], rest[3:])
                else:
                    out += [(SegmentKind.UNKNOWN, None, False)] * len(rest[3:])
            return out
        if head in STANDARD_CONTEXT_NAMES:
            return (
                out
                + [(SegmentKind.STANDARD_FIELD, None, False)]
                + [(SegmentKind.UNKNOWN, None, False)] * len(rest[1:])
            )
        if head in (LOOP_ITEM_KEY, LOOP_INDEX_KEY):
            out.append((SegmentKind.CONVENIENCE, None, bool(stack)))
            if head == LOOP_ITEM_KEY and stack:
                return out + self._item_members(stack[-1], rest[1:])
            return out + [(SegmentKind.UNKNOWN, None, False)] * len(rest[1:])
        alias_owner = self.alias_owner(head, stack)
        if alias_owner is not None:
            alias = Symbol(SymbolKind.ALIAS, (alias_owner,), head)
            out.append((SegmentKind.ALIAS, alias, bool(stack)))
            return out + self._item_members(alias_owner, rest[1:])
        return out + [(SegmentKind.UNKNOWN, None, False)] * len(rest)

    def _item_members(
        self, owner: str, members: tuple[str, ...] | list[str]
    ) -> list[tuple[SegmentKind, Symbol | None, bool]]:
        origin = self.item_origin(owner)
        if origin is None:
            # The item is unconstrained or its schema is not written in this document:
            # members are still members, only not traceable to a declaration.
            return [(SegmentKind.MEMBER, None, False)] * len(members)
        site, view = origin
        return self._members(site, view, list(members))


class PartWriter:
    """Writes the parts of one document version's index (``wf_core.semantic.parts``):
    one ``nodes`` entry's, one ``edges`` entry's, or the rest of the document's, each
    in offsets relative to where its text begins (``base``), so that a part made for
    one version serves every later one whose element has the same text, wherever it
    now lies. One caller at a time (the resolver memoises as it answers)."""

    def __init__(self, values: object, source_map: SourceMapView, resolver: PathResolver) -> None:
        self.values: Mapping[str, object] = _dict(values)
        self.source_map = source_map
        self.resolver = resolver
        self.base = 0
        self.occurrences: list[Occurrence] = []
        self.paths: list[PathOccurrence] = []

    def _part(self, base: int, write: Callable[[], None]) -> IndexPart:
        self.base, self.occurrences, self.paths = base, [], []
        write()
        return IndexPart(self.occurrences, self.paths)

    def node(self, index: int, base: int) -> IndexPart:
        """Every name and path written in ``nodes[index]``, a subgraph's schemas included."""

        def write() -> None:
            self._node(index)
            if self._node_value(index).get("type") == "subgraph":
                self._schema_properties(
                    [("nodes", index, "input_schema"), ("nodes", index, "output_schema")]
                )

        return self._part(base, write)

    def edge(self, index: int, base: int) -> IndexPart:
        """The node and outcome names written in ``edges[index]``."""
        return self._part(base, lambda: self._edge(index))

    def write(self, kind: PartKind, index: int, base: int) -> IndexPart:
        """The part of ``kind[index]`` (``node`` or ``edge``)."""
        return self.node(index, base) if kind == "nodes" else self.edge(index, base)

    def document(self) -> IndexPart:
        """Everything written outside ``nodes`` and ``edges``, at its own offsets."""

        def write() -> None:
            self._node_defs()
            self._workflow()
            self._schemas()

        return self._part(0, write)

    # -- names written as string values -----------------------------------------------

    def _string(
        self, location: Location, kind: SymbolKind, role: Role, symbol: Symbol | None
    ) -> None:
        literal = self.source_map.string(location, self.base)
        if literal is None:
            return
        self.occurrences.append(
            Occurrence(
                kind,
                literal.value,
                literal.content,
                role,
                NameSyntax.STRING,
                location,
                symbol,
                style=literal.style,
            )
        )

    def _node_value(self, index: int) -> Mapping[str, object]:
        nodes = self.resolver.nodes
        return nodes[index] if 0 <= index < len(nodes) else {}

    def _node_symbol(self, node_id: object) -> Symbol | None:
        if isinstance(node_id, str) and node_id in self.resolver.node_ids:
            return Symbol(SymbolKind.NODE, (node_id,), node_id)
        return None

    def _node(self, index: int) -> None:
        """Every name and path written in ``nodes[index]`` (its schemas aside)."""
        node = self._node_value(index)
        base: Location = ("nodes", index)
        written_id = node.get("id")
        node_id = written_id if isinstance(written_id, str) else None
        node_type = node.get("type")
        self._string((*base, "id"), SymbolKind.NODE, Role.DEFINITION, self._node_symbol(node_id))
        node_def = node.get("node")
        if node_type == "node" and isinstance(node_def, str):
            self._string(
                (*base, "node"),
                SymbolKind.NODE_DEF,
                Role.REFERENCE,
                self._node_def_symbol(node_def),
            )
        alias = node.get("as")
        if node_type == "foreach" and node_id is not None and isinstance(alias, str):
            self._string(
                (*base, "as"),
                SymbolKind.ALIAS,
                Role.DEFINITION,
                Symbol(SymbolKind.ALIAS, (node_id,), alias),
            )
        spec = NODE_TABLE.get(node_type) if isinstance(node_type, str) else None
        listed = spec.outcomes.listed if spec is not None else None
        if listed is not None and node_id is not None:
            for k, outcome in enumerate(_list(node.get(listed))):
                if isinstance(outcome, str):
                    symbol = Symbol(SymbolKind.OUTCOME, ("node", node_id, outcome), outcome)
                    self._string((*base, listed, k), SymbolKind.OUTCOME, Role.DEFINITION, symbol)
        if node_type == "subgraph":
            ref = node.get("workflow")
            where: Location | None = None
            if isinstance(ref, str) and not ARTIFACT_REF.fullmatch(ref):
                where, child = (*base, "workflow"), ref
            elif isinstance(ref, Mapping) and isinstance(ref.get("name"), str):
                where, child = (*base, "workflow", "name"), ref["name"]
            if where is not None:
                symbol = Symbol(SymbolKind.WORKFLOW, (child,), child)
                self._string(where, SymbolKind.WORKFLOW, Role.REFERENCE, symbol)
        end_outcome = node.get("outcome")
        if node_type == "end" and isinstance(end_outcome, str):
            self._string(
                (*base, "outcome"),
                SymbolKind.OUTCOME,
                Role.REFERENCE,
                self._workflow_outcome(end_outcome),
            )
        for location, role in _node_paths(node, base):
            self._path(location, role, index, node_id)

    def _node_def_symbol(self, name: str) -> Symbol | None:
        for definition in _list(self.values.get("node_defs")):
            if _dict(definition).get("name") == name:
                return Symbol(SymbolKind.NODE_DEF, (name,), name)
        return None

    def _workflow_outcome(self, outcome: str) -> Symbol | None:
        declared = self.values.get("outcomes", ["ok"])
        if outcome in _list(declared) or ("outcomes" not in self.values and outcome == "ok"):
            return Symbol(SymbolKind.OUTCOME, ("workflow", "", outcome), outcome)
        return None

    def _node_defs(self) -> None:
        for index, definition in enumerate(_list(self.values.get("node_defs"))):
            name = _dict(definition).get("name")
            if not isinstance(name, str):
                continue
            base: Location = ("node_defs", index)
            symbol = Symbol(SymbolKind.NODE_DEF, (name,), name)
            self._string((*base, "name"), SymbolKind.NODE_DEF, Role.DEFINITION, symbol)
            for k, outcome in enumerate(_list(_dict(definition).get("outcomes"))):
                if isinstance(outcome, str):
                    self._string(
                        (*base, "outcomes", k),
                        SymbolKind.OUTCOME,
                        Role.DEFINITION,
                        Symbol(SymbolKind.OUTCOME, ("node_def", name, outcome), outcome),
                    )

    def _workflow(self) -> None:
        name = self.values.get("name")
        if isinstance(name, str):
            symbol = Symbol(SymbolKind.WORKFLOW, (name,), name)
            self._string(("name",), SymbolKind.WORKFLOW, Role.DEFINITION, symbol)
        if isinstance(self.values.get("start"), str):
            self._string(
                ("start",),
                SymbolKind.NODE,
                Role.REFERENCE,
                self._node_symbol(self.values["start"]),
            )
        for k, outcome in enumerate(_list(self.values.get("outcomes"))):
            if isinstance(outcome, str):
                self._string(
                    ("outcomes", k),
                    SymbolKind.OUTCOME,
                    Role.DEFINITION,
                    Symbol(SymbolKind.OUTCOME, ("workflow", "", outcome), outcome),
                )
        for j, binding in enumerate(_list(self.values.get("output"))):
            binding = _dict(binding)
            if "target" in binding:
                self._path(("output", j, "target"), PathRole.OUTPUT_TARGET, None, None)
            if "path" in binding:
                self._path(("output", j, "path"), PathRole.OUTPUT, None, None)

    def _edge(self, index: int) -> None:
        edge = _dict(_at(_list(self.values.get("edges")), index))
        source = edge.get("from")
        self._string(
            ("edges", index, "from"), SymbolKind.NODE, Role.REFERENCE, self._node_symbol(source)
        )
        target = edge.get("to")
        if target != END:
            self._string(
                ("edges", index, "to"), SymbolKind.NODE, Role.REFERENCE, self._node_symbol(target)
            )
        outcome = edge.get("outcome")
        if not isinstance(outcome, str):
            return
        symbol = None
        node_index = self.resolver.node_ids.get(source) if isinstance(source, str) else None
        if node_index is not None:
            symbol = self._outcome_of(self.resolver.nodes[node_index], outcome)
        self._string(("edges", index, "outcome"), SymbolKind.OUTCOME, Role.REFERENCE, symbol)

    def _outcome_of(self, node: Mapping[str, object], outcome: str) -> Symbol | None:
        """What declares ``outcome`` for edges leaving ``node`` (the node-type table's
        rule, ``outcomes_as_written``): None when the node does not declare it."""
        declared = outcomes_as_written(node, self.values.get("node_defs"))
        if declared is None or outcome not in declared.outcomes:
            return None
        return Symbol(SymbolKind.OUTCOME, (declared.scope, declared.owner, outcome), outcome)

    def _schemas(self) -> None:
        roots: list[Location] = [(key,) for key in _SCHEMA_KEYS]
        for index in range(len(_list(self.values.get("node_defs")))):
            roots += [("node_defs", index, "input_schema"), ("node_defs", index, "output_schema")]
        self._schema_properties(roots)

    def _schema_properties(self, roots: list[Location]) -> None:
        for root in roots:
            site = self.resolver.site(root)
            if site is None:
                continue
            for location, name in property_declarations(site.value, root):
                entry = self.source_map.get(location, self.base)
                if entry is None or entry.key is None:
                    continue
                self.occurrences.append(
                    Occurrence(
                        SymbolKind.PROPERTY,
                        name,
                        entry.key,
                        Role.DEFINITION,
                        NameSyntax.KEY,
                        location,
                        Symbol(SymbolKind.PROPERTY, (location,), name),
                    )
                )

    # -- path strings -------------------------------------------------------------------

    def _path(
        self, location: Location, role: PathRole, node_index: int | None, node_id: str | None
    ) -> None:
        literal = self.source_map.string(location, self.base)
        if literal is None:
            return
        occurrence = path_occurrence(self.resolver, location, role, literal, node_index, node_id)
        self.paths.append(occurrence)
        self.occurrences.extend(segment_occurrences(occurrence))


def path_occurrence(
    resolver: PathResolver,
    location: Location,
    role: PathRole,
    literal: StringLiteral,
    node_index: int | None,
    node_id: str | None,
) -> PathOccurrence:
    scan, segments = resolver.segments(role, literal, node_index, node_id)
    return PathOccurrence(location, role, node_index, node_id, literal, scan, segments)


_SEGMENT_SYMBOLS = {
    SegmentKind.FOREACH_ID: SymbolKind.NODE,
    SegmentKind.ALIAS: SymbolKind.ALIAS,
    SegmentKind.MEMBER: SymbolKind.PROPERTY,
}


def segment_occurrences(path: PathOccurrence) -> Iterator[Occurrence]:
    """The names a path string refers to, as occurrences (members of unknown schemas too)."""
    for segment in path.segments:
        kind = _SEGMENT_SYMBOLS.get(segment.kind)
        if kind is None:
            continue
        yield Occurrence(
            kind,
            segment.value,
            segment.span,
            Role.REFERENCE,
            NameSyntax.SEGMENT,
            path.location,
            segment.symbol,
            segment=segment.index,
            style=path.literal.style,
        )


def _at(items: list[object], index: object) -> object:
    return items[index] if isinstance(index, int) and 0 <= index < len(items) else None


def _node_paths(node: Mapping[str, object], base: Location) -> Iterator[tuple[Location, PathRole]]:
    """Where a node writes path strings, and what each one does."""
    node_type = node.get("type")
    spec = NODE_TABLE.get(node_type) if isinstance(node_type, str) else None
    reads = spec.reads if spec is not None else None
    if reads is not None:
        for j, binding in enumerate(_list(node.get(reads))):
            binding = _dict(binding)
            if "target" in binding:
                yield (*base, reads, j, "target"), PathRole.LOCAL_TARGET
            if "path" in binding:
                yield (*base, reads, j, "path"), PathRole.SOURCE
            if "expression" in binding:
                yield from _expression_paths(binding["expression"], (*base, reads, j, "expression"))
    writes = spec.writes if spec is not None else None
    if writes is not None:
        for j, binding in enumerate(_list(node.get(writes))):
            binding = _dict(binding)
            if "source" in binding:
                yield (*base, writes, j, "source"), PathRole.LOCAL_SOURCE
            if "target" in binding:
                yield (*base, writes, j, "target"), PathRole.STATE_TARGET
    if node_type == "foreach":
        yield (*base, "over"), PathRole.OVER
        if "collect_to" in _dict(node.get("item_error")):
            yield (*base, "item_error", "collect_to"), PathRole.STATE_TARGET
    if node_type == "condition":
        yield from _condition_paths(node.get("check"), (*base, "check"))


def _expression_paths(
    expression: object, location: Location
) -> Iterator[tuple[Location, PathRole]]:
    stack: list[tuple[object, Location]] = [(expression, location)]
    while stack:
        expr, where = stack.pop()
        expr = _dict(expr)
        kind = expr.get("kind")
        if kind == "path":
            yield (*where, "path"), PathRole.SOURCE
        elif kind == "array":
            items = list(enumerate(_list(expr.get("items"))))
            stack.extend((item, (*where, "items", k)) for k, item in reversed(items))
        elif kind == "object":
            fields = list(_dict(expr.get("fields")).items())
            stack.extend((item, (*where, "fields", name)) for name, item in reversed(fields))


def _condition_paths(condition: object, location: Location) -> Iterator[tuple[Location, PathRole]]:
    stack: list[tuple[object, Location]] = [(condition, location)]
    while stack:
        cond, where = stack.pop()
        cond = _dict(cond)
        if "path" in cond:
            yield (*where, "path"), PathRole.CONDITION
        if "arg" in cond:
            stack.append((cond["arg"], (*where, "arg")))
        args = list(enumerate(_list(cond.get("args"))))
        stack.extend((arg, (*where, "args", k)) for k, arg in reversed(args))
        for side in ("left", "right"):
            operand = _dict(cond.get(side))
            if "path" in operand:
                yield (*where, side, "path"), PathRole.CONDITION

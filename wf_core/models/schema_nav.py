"""One navigator over JSON Schema documents, used by every path-aware feature.

Context item inference, context-path validation, the `input.*`/`state.*` walk,
completion and hover all ask the same questions of a schema: which properties
does it declare at this prefix, is it open, what are its array items. Answering
them in one place is what keeps the editor from offering a path that validation
then rejects.

Rules (lda-wf-model §7.5-§7.6):

- A schema node's *branches* are the node itself, its ``$ref`` target
  (recursively, cutting a target already seen on this expansion by object
  identity), and every member of ``anyOf``, ``oneOf`` and ``allOf``, recursively.
- ``$ref`` is resolved with ``referencing`` against a Draft 2020-12 registry
  rooted at ``urn:wf:schema:<sha256>``; nothing is ever fetched. An unresolvable
  reference counts as absent, which fails closed.
- A view may hold several schema nodes at once (a property declared in two
  ``anyOf`` members); its children are the union of the branches' declared
  children with that name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Protocol, TypeGuard

from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012, Schema

from wf_core.base.records import record

SCHEMA_URN_PREFIX = "urn:wf:schema:"
DATA_KEYWORDS = frozenset(("const", "enum", "default", "examples", "required"))
"""Keywords whose values are data, not schemas: nothing under them declares a property
or holds a subschema to check."""
_COMBINATORS = ("allOf", "anyOf", "oneOf")
_EXPANDING = frozenset(("$ref", *_COMBINATORS))
"""The keywords that give a schema node branches beyond itself."""


def canonical_json(value: object) -> str:
    """Key-sorted compact JSON; values TOML may carry (dates) are stringified."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def schema_urn(document: object) -> str:
    return SCHEMA_URN_PREFIX + hashlib.sha256(canonical_json(document).encode()).hexdigest()


class Resolved(Protocol):
    """What ``referencing`` answers a lookup with: the schema found and the resolver its
    own ``$ref``s are relative to."""

    @property
    def contents(self) -> object: ...
    @property
    def resolver(self) -> Resolver: ...


class Resolver(Protocol):
    """The part of ``referencing``'s resolver the navigator uses (the library does not
    export the class itself)."""

    def lookup(self, ref: str) -> Resolved: ...
    def in_subresource(self, subresource: Resource[Schema]) -> Resolver: ...


@record
class Branch:
    """One schema node together with the resolver that its ``$ref``s are relative to."""

    schema: object
    resolver: Resolver

    def get(self, key: str, default: object = None) -> object:
        if isinstance(self.schema, (dict, Mapping)):
            return self.schema.get(key, default)
        return default

    def types(self) -> tuple[str, ...]:
        value = self.get("type")
        if isinstance(value, str):
            return (value,)
        if isinstance(value, list):
            return tuple(v for v in value if isinstance(v, str))
        return ()

    def declared_properties(self) -> Mapping[str, object] | None:
        props = self.get("properties")
        return props if isinstance(props, (dict, Mapping)) else None

    def is_open(self) -> bool:
        """lda-wf's notion of open: ``{}`` (or ``true``), or an object with no
        ``properties`` mapping and ``additionalProperties`` not false."""
        schema = self.schema
        if schema is True:
            return True
        if not isinstance(schema, Mapping):
            return False
        if not schema:
            return True
        return (
            schema.get("type") == "object"
            and not isinstance(schema.get("properties"), Mapping)
            and schema.get("additionalProperties", True) is not False
        )

    def allows_undeclared(self) -> bool:
        """True when an object schema would accept a property it does not declare.

        Stricter than :meth:`is_open`: lda-wf rejects such segments in context
        paths, this project only warns about them in ``input.*``/``state.*``.
        """
        if self.is_open():
            return True
        if not isinstance(self.schema, Mapping):
            return False
        types = self.types()
        if types and "object" not in types:
            return False
        extra = self.schema.get("additionalProperties", True)
        if extra is False:
            return False
        return not (
            self.schema.get("unevaluatedProperties", True) is False
            and not isinstance(self.schema.get("patternProperties"), Mapping)
        )

    def declares_array(self) -> bool:
        return "array" in self.types()

    def subbranch(self, schema: object) -> Branch:
        """A child schema, keeping ``$id`` scoping right for its own ``$ref``s."""
        if isinstance(schema, (dict, Mapping)) and "$id" in schema:
            try:
                resource = DRAFT202012.create_resource(schema)
                return Branch(schema, self.resolver.in_subresource(resource))
            except Exception:
                return Branch(schema, self.resolver)
        return Branch(schema, self.resolver)

    def resolve_ref(self) -> Branch | None:
        ref = self.get("$ref")
        if not isinstance(ref, str):
            return None
        try:
            resolved = self.resolver.lookup(ref)
        except (Unresolvable, Exception):
            return None
        return Branch(resolved.contents, resolved.resolver)


def _own_only_branch(schema: object) -> TypeGuard[dict[str, object]]:
    """A plain object schema with no keyword that gives it other branches."""
    return type(schema) is dict and not _EXPANDING.intersection(schema)


def expand_branches(nodes: Sequence[Branch]) -> list[Branch]:
    """All structural branches of ``nodes``, each schema object at most once.

    Cutting by identity (not equality) is what lets recursive and cyclic
    ``$ref`` chains terminate while two equal but distinct subschemas still
    both count.
    """
    if len(nodes) == 1 and _own_only_branch(nodes[0].schema):
        return [nodes[0]]  # the common case
    out: list[Branch] = []
    seen: set[int] = set()
    stack: list[Branch] = list(reversed(nodes))
    while stack:
        branch = stack.pop()
        if id(branch.schema) in seen:
            continue
        seen.add(id(branch.schema))
        out.append(branch)
        if not isinstance(branch.schema, Mapping):
            continue
        pending: list[Branch] = []
        target = branch.resolve_ref()
        if target is not None:
            pending.append(target)
        for keyword in _COMBINATORS:
            members = branch.schema.get(keyword)
            if isinstance(members, list):
                pending.extend(branch.subbranch(m) for m in members)
        stack.extend(reversed(pending))
    return out


@record
class SchemaView:
    """The schema(s) describing one value reached by a path."""

    nodes: tuple[Branch, ...]

    def branches(self) -> list[Branch]:
        return expand_branches(self.nodes)

    def declared_names(self) -> list[str]:
        """Declared property names across branches, in declaration order, de-duplicated."""
        names: dict[str, None] = {}
        for branch in self.branches():
            props = branch.declared_properties()
            if props:
                for name in props:
                    names.setdefault(name, None)
        return list(names)

    def child(self, name: str) -> SchemaView | None:
        nodes = self.nodes
        if len(nodes) == 1:
            # The common case, one plain object schema that is its own only branch (see
            # ``expand_branches``), answered without expanding: every read of a context
            # path walks a few of them, and a workflow with a thousand loops has a
            # thousand contexts, each walked afresh.
            branch = nodes[0]
            schema = branch.schema
            if _own_only_branch(schema):
                props = schema.get("properties")
                if type(props) is dict:
                    if name not in props:
                        return None
                    return SchemaView((branch.subbranch(props[name]),))
        children = [
            branch.subbranch(props[name])
            for branch in self.branches()
            if (props := branch.declared_properties()) is not None and name in props
        ]
        return SchemaView(tuple(children)) if children else None

    def is_open(self) -> bool:
        return any(branch.is_open() for branch in self.branches())

    def allows_undeclared(self) -> bool:
        return any(branch.allows_undeclared() for branch in self.branches())

    def declares_array(self) -> bool:
        return any(branch.declares_array() for branch in self.branches())

    def array_items(self) -> Branch | None:
        """The ``items`` of the first branch declaring an array with a mapping ``items``."""
        for branch in self.branches():
            items = branch.get("items")
            if branch.declares_array() and isinstance(items, Mapping):
                return branch.subbranch(items)
        return None

    def required_names(self) -> list[str]:
        """Names some branch requires, declared or not, in order, de-duplicated."""
        names: dict[str, None] = {}
        for branch in self.branches():
            required = branch.get("required")
            if isinstance(required, list):
                names.update(dict.fromkeys(n for n in required if isinstance(n, str)))
        return list(names)

    def is_required(self, name: str) -> bool:
        for branch in self.branches():
            required = branch.get("required")
            if isinstance(required, list) and name in required:
                return True
        return False

    def first(self, key: str) -> object:
        """The first value of ``key`` across branches (``description``, ``title``...)."""
        for branch in self.branches():
            value = branch.get(key)
            if value is not None:
                return value
        return None

    def type_summary(self) -> str:
        """A short, human type name for completion details and hover headers."""
        kinds: list[str] = []
        for branch in self.branches():
            for kind in branch.types():
                if kind == "array":
                    items = branch.get("items")
                    inner = "any"
                    if isinstance(items, Mapping):
                        inner = SchemaView((branch.subbranch(items),)).type_summary()
                    kind = f"array<{inner}>"
                if kind not in kinds:
                    kinds.append(kind)
            if "const" in (branch.schema if isinstance(branch.schema, Mapping) else {}):
                kinds.append(f"const {json.dumps(branch.get('const'), default=str)}")
            elif isinstance(branch.get("enum"), list) and not branch.types():
                kinds.append("enum")
        if not kinds:
            if self.declared_names():
                return "object"
            return "any"
        return " | ".join(kinds)


@record
class UnknownSegment:
    """Where a walk failed: the index into ``parts`` and the names declared there."""

    index: int
    available: tuple[str, ...]
    allows_undeclared: bool


class DetachedSchemas:
    """Detached schemas (context item schemas, see ``standalone_schema``) by ``$id``, and
    one registry holding them all.

    The registry grows by one resource per schema added (a persistent map: adding
    shares the rest), so a navigator built over it adds only its own document: its
    cost does not grow with the number of detached schemas, which a workflow with a
    thousand loops over different collections has a thousand of. Schemas added after
    a navigator was built are still found, through the registry's ``retrieve``.
    """

    __slots__ = ("by_id", "plain_copies", "registry")

    def __init__(self) -> None:
        self.by_id: dict[str, Schema] = {}
        # ``standalone``'s copies of schemas without references, by the identity of the
        # schema copied (the value keeps it, so the identity is not reused): such a copy
        # depends on nothing else, so every navigator sharing these schemas shares it.
        self.plain_copies: dict[int, tuple[object, dict[str, object]]] = {}
        self.registry: Registry[Schema] = Registry(retrieve=_retrieve_from(self.by_id))  # type: ignore[call-arg]

    def add(self, uri: str, schema: Schema) -> None:
        if uri in self.by_id:
            return
        self.by_id[uri] = schema
        self.registry = self.registry.with_resource(uri, DRAFT202012.create_resource(schema))


class SchemaNavigator:
    """Navigation over one JSON Schema document (the root of ``$ref`` resolution)."""

    __slots__ = ("_at_path", "_plain_copies", "_standalone", "_unknown", "document", "root", "uri")

    def __init__(
        self,
        document: object,
        *,
        uri: str | None = None,
        known: DetachedSchemas | None = None,
    ) -> None:
        """``known`` holds the detached schemas embedded in ``document`` (context item
        schemas): they resolve from its registry instead of crawling the document,
        which keeps a navigator per owner stack cheap."""
        self.document = document
        self.uri = uri or schema_urn(document)
        contents = document if isinstance(document, Mapping | bool) else {}
        try:
            resource = DRAFT202012.create_resource(contents)
            if known is None:
                registry: Registry[Schema] = Registry().with_resource(self.uri, resource).crawl()
            else:
                registry = known.registry.with_resource(self.uri, resource)
            resolver = registry.resolver(base_uri=self.uri)
            if isinstance(contents, Mapping) and isinstance(contents.get("$id"), str):
                resolver = resolver.in_subresource(resource)
        except Exception:
            registry = Registry()
            resolver = registry.resolver(base_uri=self.uri)
        self.root = SchemaView((Branch(contents, resolver),))
        # Walks are pure functions of the parts; workflows repeat the same paths a lot.
        self._at_path: dict[tuple[str, ...], SchemaView | None] = {}
        self._unknown: dict[tuple[str, ...], UnknownSegment | None] = {}
        # Keyed by the identities of a branch's schema and resolver; the value keeps the
        # branch, so neither identity can be reused by another object while it is here.
        self._standalone: dict[tuple[int, int], tuple[Branch, dict[str, object]]] = {}
        self._plain_copies = known.plain_copies if known is not None else None

    def at_path(self, parts: Sequence[str]) -> SchemaView | None:
        """The view at ``parts`` following declared properties only (None when undeclared)."""
        key = tuple(parts)
        if key not in self._at_path:
            self._at_path[key] = self._at_path_uncached(key)
        return self._at_path[key]

    def _at_path_uncached(self, parts: tuple[str, ...]) -> SchemaView | None:
        view: SchemaView = self.root
        for part in parts:
            child = view.child(part)
            if child is None:
                return None
            view = child
        return view

    def walk(self, parts: Sequence[str]) -> Iterator[tuple[int, SchemaView | None]]:
        """Yield the view after each segment; stops after the first None."""
        view: SchemaView | None = self.root
        for index, part in enumerate(parts):
            view = view.child(part) if view is not None else None
            yield index, view
            if view is None:
                return

    def first_unknown(self, parts: Sequence[str]) -> UnknownSegment | None:
        """lda-wf's context-path walk: the first segment that fails, or None.

        A segment with no declared child is accepted (and ends the walk) when
        some branch at that point is open; otherwise the walk fails there.
        """
        key = tuple(parts)
        if key not in self._unknown:
            self._unknown[key] = self._first_unknown_uncached(key)
        return self._unknown[key]

    def _first_unknown_uncached(self, parts: tuple[str, ...]) -> UnknownSegment | None:
        view = self.root
        for index, part in enumerate(parts):
            child = view.child(part)
            if child is None:
                if view.is_open():
                    return None
                return UnknownSegment(
                    index, tuple(sorted(view.declared_names())), view.allows_undeclared()
                )
            view = child
        return None

    def replacements(self, parts: Sequence[str], index: int, names: Iterable[str]) -> list[str]:
        """The ``names`` that, written in place of ``parts[index]``, make the whole path
        walk: a "did you mean" must not trade one unknown segment for another further on."""
        head, tail = tuple(parts[:index]), tuple(parts[index + 1 :])
        return [name for name in names if self.first_unknown((*head, name, *tail)) is None]

    def standalone(self, branch: Branch) -> dict[str, object]:
        """A detached, valid Draft 2020-12 copy of ``branch`` (lda-wf-model §7.5 step 5).

        Memoised: loops over the same collection (a thousand loops over
        ``input.customers``) share one copy, which is what lets the context model
        share it in turn. A schema without references is copied once for every
        navigator over the same detached schemas: the loops nested in those thousand
        loops (over ``context.foreach.<outer>.item.orders``) read it through a
        navigator each. Invariant: the copy is shared, so no caller mutates it.
        """
        schema = branch.schema
        plain = self._plain_copies
        if plain is not None and (copied := plain.get(id(schema))) is not None:
            return copied[1]
        key = (id(schema), id(branch.resolver))
        known = self._standalone.get(key)
        if known is None:
            known = (branch, standalone_schema(branch, self.document))
            self._standalone[key] = known
            if plain is not None and isinstance(schema, Mapping) and not has_ref(schema):
                plain[id(schema)] = (schema, known[1])
        return known[1]


def _retrieve_from(known: Mapping[str, Schema]) -> Callable[[str], Resource[Schema]]:
    def retrieve(uri: str) -> Resource[Schema]:
        if uri not in known:
            raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs field, not in stubs
        return DRAFT202012.create_resource(known[uri])

    return retrieve


def has_ref(value: object) -> bool:
    """True when a ``$ref`` or ``$dynamicRef`` appears anywhere in ``value``."""
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if "$ref" in item or "$dynamicRef" in item:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def standalone_schema(branch: Branch, document: object) -> dict[str, object]:
    """Detach an item schema from its document so it can live inside a context schema.

    A pure ``$ref`` is replaced by its target; sibling keywords only tighten the
    target (``allOf``), never replace it. When references remain, the root
    document's ``$defs``/``definitions`` travel with the copy under a
    content-addressed ``$id`` so they still resolve.
    """
    schema = branch.schema
    if schema is True or not isinstance(schema, Mapping):
        return {}
    body = _plain_mapping(schema)
    if "$ref" in body:
        target = branch.resolve_ref()
        if target is not None and isinstance(target.schema, Mapping | bool):
            target_body = _plain_mapping(target.schema)
            siblings = {k: v for k, v in body.items() if k != "$ref"}
            body = {"allOf": [target_body, siblings]} if siblings else target_body
    if not has_ref(body):
        return body
    if "$id" in body and ("$defs" in body or "definitions" in body):
        return body  # already detached (an item schema), its references resolve inside it
    home = _resource_root(branch) or document
    if not isinstance(home, Mapping):
        return body
    defs = {k: _plain_copy(home[k]) for k in ("$defs", "definitions") if k in home}
    if not defs:
        return body
    urn = schema_urn({"body": body, "defs": defs})
    if "$id" in body or any(k in body for k in defs):
        return {"$id": urn, **defs, "allOf": [body]}
    return {"$id": urn, **body, **defs}


def _resource_root(branch: Branch) -> object:
    """The root of the resource ``branch`` lives in: where its local ``$ref``s point."""
    try:
        return branch.resolver.lookup("#").contents
    except Exception:
        return None


def _plain_mapping(value: Mapping[str, object] | bool) -> dict[str, object]:
    """``_plain_copy`` of a schema as an object schema: ``true`` is ``{}`` and ``false`` is
    ``{"not": {}}``, so that a detached schema is always an object its readers can look
    keywords up in (a ``$ref`` to ``false`` is a valid item schema that no item meets)."""
    if isinstance(value, Mapping):
        return {k: _plain_copy(v) for k, v in value.items()}
    return {} if value else {"not": {}}


def _plain_copy(value: object) -> object:
    """Deep copy into plain dicts and lists (schemas are shared; callers may mutate copies)."""
    if isinstance(value, Mapping):
        return {k: _plain_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_copy(v) for v in value]
    return value

"""Schema values of the document, navigated where they are written.

The context model navigates dumped copies of the schemas; the semantic index
needs to know *where* a declaration is written, so it navigates the
document's own values and maps each schema object back to its location by
identity. The navigator is the same :class:`~wf_core.models.schema_nav.SchemaNavigator`
(``$ref``, ``allOf``/``anyOf``/``oneOf``), so what a path means is decided by
the same rules everywhere.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from wf_core.base.locations import Location
from wf_core.models.schema_nav import DATA_KEYWORDS, SchemaNavigator, SchemaView
from wf_core.semantic.occurrences import Symbol, SymbolKind


class SchemaSite:
    """One schema value of the document (``input_schema``, a node def's schemas, ...)."""

    __slots__ = ("_locations", "location", "navigator", "value")

    def __init__(self, location: Location, value: object) -> None:
        self.location = location
        self.value = value
        self.navigator = SchemaNavigator(value if isinstance(value, Mapping) else {})
        self._locations: dict[int, Location] | None = None

    def location_of(self, schema: object) -> Location | None:
        if self._locations is None:
            self._locations = dict(_locations_by_identity(self.value, self.location))
        return self._locations.get(id(schema))

    def property_symbol(self, view: SchemaView, name: str) -> Symbol | None:
        """The property ``name`` as declared by the first branch of ``view`` that is
        written in this document (a ``$ref`` target elsewhere in it counts)."""
        for branch in view.nodes:
            location = self.location_of(branch.schema)
            if location is not None and len(location) >= 2 and location[-2] == "properties":
                return Symbol(SymbolKind.PROPERTY, (location,), name)
        return None


def _locations_by_identity(root: object, prefix: Location) -> Iterator[tuple[int, Location]]:
    stack: list[tuple[object, Location]] = [(root, prefix)]
    while stack:
        value, location = stack.pop()
        if isinstance(value, Mapping):
            yield id(value), location
            stack.extend(
                (item, (*location, key))
                for key, item in value.items()
                if key not in DATA_KEYWORDS and isinstance(item, Mapping | list)
            )
        elif isinstance(value, list):
            stack.extend(
                (item, (*location, index))
                for index, item in enumerate(value)
                if isinstance(item, Mapping | list)
            )


def property_declarations(root: object, prefix: Location) -> Iterator[tuple[Location, str]]:
    """Every ``properties.<name>`` declaration under a schema value, with its location."""
    stack: list[tuple[object, Location]] = [(root, prefix)]
    while stack:
        value, location = stack.pop()
        if isinstance(value, Mapping):
            for key, item in value.items():
                if key in DATA_KEYWORDS:
                    continue
                if key == "properties" and isinstance(item, Mapping):
                    for name, declared in item.items():
                        yield (*location, "properties", name), name
                        stack.append((declared, (*location, "properties", name)))
                elif isinstance(item, Mapping | list):
                    stack.append((item, (*location, key)))
        elif isinstance(value, list):
            stack.extend((item, (*location, index)) for index, item in enumerate(value))

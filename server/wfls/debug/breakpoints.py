"""Breakpoints on nodes: which node a line of a workflow document belongs to, and when
a breakpoint stops a run.

A line anywhere inside a node's entry (its ``[[nodes]]`` table, or its object in a JSON
document) binds to that node and is reported at the line of the entry's ``id``: the
debugger stops before each activation of the node. The entries' ranges come from the
workflow graph (``wf_core.graph.build_graph``), the analysis ``wfls graph`` and the
editor's graph view read, so a breakpoint binds where the graph draws the node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from wf_core.graph import WorkflowGraph
from wf_core.models.workflow import first_index_by_id
from wf_core.version.view import DiagnosedView
from wfls.debug.conditions import Condition, ConditionError, parse_condition

__all__ = [
    "Binding",
    "Breakpoint",
    "HitCondition",
    "NodeSpot",
    "bind_line",
    "node_spots",
    "parse_hit_condition",
]


@dataclass(frozen=True, slots=True)
class NodeSpot:
    """Where a node is written: the 1-based lines of its entry and of its ``id``."""

    node_id: str
    first_line: int
    last_line: int
    id_line: int


@dataclass(frozen=True, slots=True)
class Binding:
    """What a requested line binds to: a node (``node_id`` and the line it is shown
    at), or nothing, with ``message`` saying why."""

    node_id: str | None
    line: int
    message: str | None = None

    @property
    def verified(self) -> bool:
        return self.node_id is not None


def node_spots(snapshot: DiagnosedView, graph: WorkflowGraph) -> tuple[NodeSpot, ...]:
    """The spot of each node the graph draws: its entry's lines from the graph, its
    ``id`` line from the document's source map (the entry of ``("nodes", i, "id")``)."""
    values = snapshot.parsed.values if isinstance(snapshot.parsed.values, dict) else {}
    written = values.get("nodes")
    entries = written if isinstance(written, list) else []
    first = first_index_by_id(
        entry.get("id") if isinstance(entry, Mapping) else None for entry in entries
    )
    source_map = snapshot.parsed.source_map
    lines = graph.lines
    spots: list[NodeSpot] = []
    for node in graph.nodes:
        first_line = lines.line_of(node.span.start) + 1
        last_line = lines.line_of(max(node.span.start, node.span.end - 1)) + 1
        id_entry = source_map.get(("nodes", first[node.id], "id"))
        id_span = id_entry.key if id_entry is not None and id_entry.key is not None else None
        id_line = lines.line_of(id_span.start) + 1 if id_span is not None else first_line
        spots.append(NodeSpot(node.id, first_line, last_line, id_line))
    return tuple(spots)


def bind_line(spots: Sequence[NodeSpot], line: int) -> Binding:
    """The node whose entry holds ``line`` (1-based), or why none does."""
    for spot in spots:
        if spot.first_line <= line <= spot.last_line:
            return Binding(spot.node_id, spot.id_line)
    return Binding(
        None,
        line,
        "not inside a node: a breakpoint goes on a line of a [[nodes]] entry (or a node "
        "object in JSON), and stops before each activation of that node",
    )


@dataclass(frozen=True, slots=True)
class HitCondition:
    """When the n-th hit of a breakpoint stops: ``N`` (exactly the N-th), ``== N``,
    ``>= N``, ``> N``, ``% N`` (every N-th)."""

    operator: str
    count: int

    def stops(self, hits: int) -> bool:
        if self.operator == ">=":
            return hits >= self.count
        if self.operator == ">":
            return hits > self.count
        if self.operator == "%":
            return hits % self.count == 0
        return hits == self.count


def parse_hit_condition(text: str) -> HitCondition:
    """``text`` as a :class:`HitCondition`; raises ``ConditionError`` with the forms."""
    stripped = text.strip()
    for operator in (">=", "==", ">", "%"):
        if stripped.startswith(operator):
            number = stripped[len(operator) :].strip()
            break
    else:
        operator, number = "==", stripped
    if not number.isdigit() or int(number) < 1 or (operator == "%" and int(number) == 0):
        raise ConditionError(
            f"hit count '{text}': expected N, == N, >= N, > N or % N with N a whole number "
            "of at least 1"
        )
    return HitCondition(operator, int(number))


@dataclass(slots=True)
class Breakpoint:
    """One breakpoint on a node (from a line or a function breakpoint), its condition
    and hit count, and how often it was reached with its condition true."""

    id: int
    node_id: str | None
    source: str | None  # the document's path, None for a function breakpoint
    line: int
    condition: Condition | None = None
    hit_condition: HitCondition | None = None
    message: str | None = None
    hits: int = field(default=0)

    @property
    def verified(self) -> bool:
        return self.node_id is not None and self.message is None

    @classmethod
    def make(
        cls,
        id: int,
        binding: Binding,
        source: str | None,
        condition: str | None,
        hit_condition: str | None,
    ) -> Breakpoint:
        """A breakpoint for ``binding``; a condition or hit count that does not parse
        leaves it unverified with the reason."""
        made = cls(id, binding.node_id, source, binding.line, message=binding.message)
        try:
            if condition:
                made.condition = parse_condition(condition)
            if hit_condition:
                made.hit_condition = parse_hit_condition(hit_condition)
        except ConditionError as error:
            made.message = str(error)
        return made

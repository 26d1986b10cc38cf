"""Per-node findings of a document's previous version, reused by the next one.

An edit inside one node leaves every other node's model object as it was (the
model loader hands out the very object it validated before) and, while the
graph's structure is unchanged, the same :class:`ContextModel`. A node's own
checks and the checks of its context reads depend on nothing else but its list
index (in every location), the node defs (a ``node`` node's schemas, did-you-mean
over their names) and the workflow's outcomes (an ``end`` node). So when those
are the same objects as last time, the node's findings are the same: the very
:class:`Issue` objects are handed out again, and only the edited node is checked.

Invariant, kept by :meth:`ValidationMemo.begin`: an entry is only ever read back
under the same context model, the same node def objects and equal outcomes as
when it was made; otherwise the whole memo is dropped. An entry is filed under its
node's list index and holds its node, which must be the very object asked about;
each validation keeps just the entries it used or made.

The whole-graph findings (``core.graph_findings``: the start, the edges, the outcomes of
reachable nodes) are kept too, with the nodes they were made for. They read the start,
the edges and the node ids (all part of the context model's structure key, so the same
model means the same), the node defs and the workflow's outcomes, and what each node
declares it may emit: a node that is the very object of last time declares what it
declared then, and any other node is asked. When nothing of that differs, the very
findings are handed out again.

A reused entry is carried over as it is, under an integer key: at 16,000 nodes an
edit used to make 32,000 key tuples, all of them survivors the cyclic garbage
collector then scanned (see ``wf_core.collector``).

One memo belongs to one document and is used by one validation at a time (the
server's store analyses a document under its lock).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from wf_core.issues import Issue
from wf_core.models.steps import declared_outcomes

Part = Literal["node", "context"]
Findings = tuple[tuple[Issue, ...], tuple[Issue, ...]]
"""(issues in lda-wf's order, this project's extras appended after them)."""


class ValidationMemo:
    def __init__(self) -> None:
        self._previous: dict[Part, dict[int, tuple[Any, Findings]]] = _empty()
        self._current: dict[Part, dict[int, tuple[Any, Findings]]] = _empty()
        self._model: Any = None
        self._defs: tuple[Any, ...] = ()
        self._outcomes: tuple[str, ...] = ()
        # (model, node defs, outcomes, nodes, findings) of the last whole-graph checks.
        self._graph: tuple[
            Any, tuple[Any, ...], tuple[str, ...], tuple[Any, ...], tuple[Issue, ...]
        ]
        self._graph = (None, (), (), (), ())

    def begin(self, model: Any, node_defs: Sequence[Any], outcomes: Sequence[str]) -> None:
        """Start a validation under ``model``: what the last one made is kept for reading
        only when every dependency outside the nodes themselves is unchanged."""
        defs, wanted = tuple(node_defs), tuple(outcomes)
        same = model is self._model and _same_objects(defs, self._defs) and wanted == self._outcomes
        self._previous = self._current if same else _empty()
        self._current = _empty()
        self._model, self._defs, self._outcomes = model, defs, wanted

    def graph(
        self,
        model: Any,
        workflow: Any,
        node_defs: Mapping[str, Any],
        make: Callable[[], list[Issue]],
    ) -> list[Issue]:
        """The whole-graph findings of ``workflow`` under ``model``: the last ones when
        nothing they read changed (see the module's docstring), else ``make()``'s."""
        defs, outcomes, nodes = (
            tuple(workflow.node_defs),
            tuple(workflow.outcomes),
            tuple(workflow.nodes),
        )
        kept_model, kept_defs, kept_outcomes, kept_nodes, kept = self._graph
        same = (
            model is kept_model
            and _same_objects(defs, kept_defs)
            and outcomes == kept_outcomes
            and len(nodes) == len(kept_nodes)
            and all(
                node is before
                or declared_outcomes(node, node_defs) == declared_outcomes(before, node_defs)
                for node, before in zip(nodes, kept_nodes, strict=True)
            )
        )
        findings = kept if same else tuple(make())
        self._graph = (model, defs, outcomes, nodes, findings)
        return list(findings)

    def get(self, part: Part, index: int, node: Any) -> Findings | None:
        entry = self._previous[part].get(index)
        if entry is None or entry[0] is not node:
            return None
        self._current[part][index] = entry
        return entry[1]

    def put(self, part: Part, index: int, node: Any, findings: Findings) -> None:
        self._current[part][index] = (node, findings)

    def adopt(self, nodes: Sequence[Any], found: dict[Part, dict[int, Findings]]) -> None:
        """File findings made for ``nodes[index]`` elsewhere (``core.node_findings``,
        maybe in a forked child) under the model this memo began with."""
        for part, by_index in found.items():
            current = self._current[part]
            for index, findings in by_index.items():
                current[index] = (nodes[index], findings)


def _same_objects(these: Sequence[Any], those: Sequence[Any]) -> bool:
    return len(these) == len(those) and all(a is b for a, b in zip(these, those, strict=True))


def _empty() -> dict[Part, dict[int, tuple[Any, Findings]]]:
    return {"node": {}, "context": {}}

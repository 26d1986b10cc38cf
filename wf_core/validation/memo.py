"""A validation's derived values: per node, and the whole graph's (``wf_core.base.derived``).

A node's own checks and the checks of its ``context.*`` reads depend on nothing but the
node, its index (in every location), the node defs (a ``node`` node's schemas,
did-you-mean over their names), the workflow's outcomes (an ``end`` node) and the
context model. So they are derived under the node's content key and index, with the
context model, the node defs and the outcomes as the run's dependencies: while those are
the same objects (the context model is kept while the graph's structure is; a node def's
model while its statement is), only the nodes an edit touched are checked again.

The whole-graph findings (``core.graph_findings``: the start, the edges, the outcomes of
reachable nodes, the cycles no run leaves) read the start, the edges and the node ids
(all part of the context model's structure, so the same model means the same), the node
defs and the outcomes, and what each node declares it may emit: they are derived under
the tuple of what the nodes declare, itself derived per node.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from wf_core.base.derived import Derivations
from wf_core.base.issues import Issue
from wf_core.documents.source_map import ElementKey
from wf_core.models.schemas import NodeDef
from wf_core.models.steps import declared_outcomes
from wf_core.models.workflow import Workflow

if TYPE_CHECKING:
    from wf_core.analysis.context_scopes import ContextModel

Part = Literal["node", "context"]
Findings = tuple[tuple[Issue, ...], tuple[Issue, ...]]
"""(issues in lda-wf's order, this project's extras appended after them)."""


class ValidationRuns:
    """One validation's runs of the per-node queries, under its dependencies.

    ``keys[i]`` is the content key of the model's ``nodes[i]`` (None: not known, made
    every time)."""

    __slots__ = ("_derived", "_keys", "_runs", "dependencies")

    def __init__(
        self,
        derived: Derivations | None,
        keys: Sequence[ElementKey | None],
        model: ContextModel,
        node_defs: Sequence[NodeDef],
        outcomes: Sequence[str],
    ) -> None:
        self._derived = derived if derived is not None else Derivations()
        self._keys = keys
        self.dependencies = (model, tuple(node_defs), tuple(outcomes))
        self._runs = {
            part: self._derived.begin(f"validation:{part}", self.dependencies)
            for part in ("node", "context")
        }

    def get_all(self, part: Part, count: int, make: Callable[[int], Findings]) -> list[Findings]:
        """The findings of each of the first ``count`` nodes (``make(i)`` of ``nodes[i]``).
        They name the node's index: found again at the same index for an equal key."""
        return self._runs[part].at_all(self._keys, count, make)

    def graph(
        self, workflow: Workflow, node_defs: Mapping[str, NodeDef], make: Callable[[], list[Issue]]
    ) -> list[Issue]:
        """The whole-graph findings: the last ones when nothing they read changed (see the
        module's docstring), else ``make()``'s."""
        nodes = workflow.nodes
        emits = tuple(
            self._derived.begin("declared", self.dependencies).get_all(
                self._keys, len(nodes), lambda i: declared_outcomes(nodes[i], node_defs)
            )
        )
        run = self._derived.begin("validation:graph", self.dependencies)
        return list(run.get(emits, lambda: tuple(make())))

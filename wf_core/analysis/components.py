"""Strongly connected components of a directed graph: the one implementation.

Both graphs wfls looks for cycles in use it: a workflow's node graph (loops no run
can leave, ``wf_core.validation.cycles``) and the workspace's graph of subgraph calls
(``wf_core.workspace.checks``).

Tarjan's algorithm, iterative: a workflow of 16,000 nodes in one long chain would
exceed Python's recursion limit many times over. Each node and each edge is visited
once, so it takes time linear in the size of the part of the graph reached.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TypeVar

N = TypeVar("N", bound=Hashable)


def strongly_connected_components(
    roots: Iterable[N], successors: Callable[[N], Iterable[N]]
) -> list[list[N]]:
    """The components of the graph reachable from ``roots``, each once.

    A component comes after every component it reaches (Tarjan's order: the reverse
    of a topological order of the components), so a caller can decide something for
    a component from the components it leads to, in one pass over the list. A
    component of one node is a cycle only when that node is its own successor; the
    caller checks that.
    """
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    stack: list[N] = []
    on_stack: set[N] = set()
    found: list[list[N]] = []

    def enter(node: N) -> tuple[N, Iterator[N]]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return node, iter(successors(node))

    for root in roots:
        if root in index:
            continue
        work = [enter(root)]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    work.append(enter(child))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[N] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    found.append(component)
    return found

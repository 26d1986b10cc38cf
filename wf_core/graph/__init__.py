"""The workflow graph: one model of a document's nodes, edges, loops and subgraph calls
(``model``), and its printers: plain JSON (``WorkflowGraph.to_json``), Graphviz DOT
(``dot``) and Mermaid (``mermaid``). ``wfls graph`` and the server's ``wfls.graph``
command only convert what these return."""

from __future__ import annotations

from wf_core.graph.dot import to_dot
from wf_core.graph.mermaid import to_mermaid
from wf_core.graph.model import (
    EdgeProblem,
    GraphEdge,
    GraphLoop,
    GraphNode,
    SubgraphCall,
    WorkflowGraph,
    build_graph,
)

__all__ = [
    "EdgeProblem",
    "GraphEdge",
    "GraphLoop",
    "GraphNode",
    "SubgraphCall",
    "WorkflowGraph",
    "build_graph",
    "to_dot",
    "to_mermaid",
]

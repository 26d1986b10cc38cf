// The workflow graph as the server's `wfls.graph` command gives it (and as
// `wfls graph --format json` prints it), and the pure functions that both the
// extension and the graph view read it with: which loop region holds a node,
// which node lies under a position, and what a run's trace says per node and
// edge. Nothing here touches the DOM or VS Code, so it is tested in Node.

/** A position in the document: 1-based line, 1-based column counted in code points. */
export interface Point {
  line: number;
  column: number;
}

export interface Span {
  start: Point;
  end: Point;
}

export interface GraphNode {
  id: string;
  /** As written; null when it is not a string. */
  type: string | null;
  /** The node def a `node` runs. */
  node_def?: string | null;
  /** The loops active at the node, outermost first; null where the analysis has none. */
  owner_stack: string[] | null;
  /** The node's whole entry. */
  range: Span | null;
  /** The worst finding on the node. */
  severity: string | null;
  /** That finding's message: the server does not send it; the extension adds it from the diagnostics. */
  message?: string | null;
}

export interface GraphEdge {
  from: string;
  outcome: string | null;
  to: string;
  valid: boolean;
  /** What makes it invalid: `unknown_source`, `undeclared_outcome`, `unknown_target`. */
  problems?: string[];
}

export interface GraphLoop {
  id: string;
  over: string | null;
  alias: string | null;
  parent: string | null;
  /** The nodes whose innermost loop this is (a nested loop's nodes are in its own body). */
  body: string[];
}

export interface GraphSubgraph {
  node: string;
  /** The name (or artifact) it calls. */
  workflow: string | null;
  /** The document of the workspace that declares it: its path (`wfls graph`) and URI. */
  file?: string | null;
  uri?: string | null;
}

export interface Graph {
  workflow: string | null;
  start: string | null;
  nodes: GraphNode[];
  edges: GraphEdge[];
  loops: GraphLoop[];
  subgraphs: GraphSubgraph[];
  /** The nodes found unreachable from the start. */
  unreachable?: string[];
}

/** The id an edge names to end the workflow (`to = "__end__"`). */
export const END = '__end__';

/** Where a subgraph node's child is: its path, else its URI, else null (no document declares it). */
export function childLocation(call: GraphSubgraph): string | null {
  return call.file ?? call.uri ?? null;
}

/** A diagnostic of the document, its start in graph positions (for `withMessages`). */
export interface Finding {
  start: Point;
  severity: string;
  message: string;
}

/**
 * The graph with, on each node that has a severity, the message of a finding of that
 * severity inside the node's entry (the first in the document), so that the view can
 * show it on hover: the server gives the worst severity on a node, not its message.
 */
export function withMessages(graph: Graph, findings: readonly Finding[]): Graph {
  const sorted = [...findings].sort((a, b) => a.start.line - b.start.line || a.start.column - b.start.column);
  const nodes = graph.nodes.map((node) => {
    const range = node.range;
    if (!node.severity || !range) return node;
    const found = sorted.find(
      (f) => f.severity === node.severity && before(range.start, f.start) && before(f.start, range.end),
    );
    return found ? { ...node, message: found.message } : node;
  });
  return { ...graph, nodes };
}

/** The part of an activation record of a run that the view reads. */
export interface Activation {
  node: string;
  outcome: string | null;
}

/**
 * The loop region each node is drawn in: the innermost loop whose body holds it. A
 * foreach node sits outside its own region, where it runs (its `loop` edge enters the
 * region, the body's last edge comes back to it, its `done` edge leaves), as in
 * `wfls graph --format dot`. Nodes outside every loop are absent. Works whether a
 * loop's `body` lists its direct body only or every node nested in it: the deepest
 * loop wins.
 */
export function regionOf(graph: Graph): Map<string, string> {
  const depth = loopDepths(graph);
  const region = new Map<string, string>();
  for (const loop of graph.loops) {
    for (const id of loop.body) {
      const current = region.get(id);
      if (current === undefined || (depth.get(loop.id) ?? 0) > (depth.get(current) ?? 0)) {
        region.set(id, loop.id);
      }
    }
  }
  return region;
}

/** How deep each loop is nested (0 for a loop outside every other). */
export function loopDepths(graph: Graph): Map<string, number> {
  const parent = new Map(graph.loops.map((loop) => [loop.id, loop.parent]));
  const depth = new Map<string, number>();
  for (const loop of graph.loops) {
    let d = 0;
    const seen = new Set<string>([loop.id]);
    for (let p = loop.parent; p !== null && p !== undefined && !seen.has(p); p = parent.get(p) ?? null) {
      seen.add(p);
      d += 1;
    }
    depth.set(loop.id, d);
  }
  return depth;
}

/** Every node id inside a loop's region, nested loops' nodes included. */
export function loopMembers(graph: Graph): Map<string, Set<string>> {
  const region = regionOf(graph);
  const parent = new Map(graph.loops.map((loop) => [loop.id, loop.parent]));
  const members = new Map<string, Set<string>>(graph.loops.map((loop) => [loop.id, new Set<string>()]));
  for (const node of graph.nodes) {
    const seen = new Set<string>();
    for (let l = region.get(node.id) ?? null; l !== null && !seen.has(l); l = parent.get(l) ?? null) {
      seen.add(l);
      members.get(l)?.add(node.id);
    }
  }
  return members;
}

function before(a: Point, b: Point): boolean {
  return a.line < b.line || (a.line === b.line && a.column <= b.column);
}

/** The node whose range holds `at` (the narrowest, when ranges nest), or null. */
export function nodeAt(graph: Graph, at: Point): string | null {
  let best: GraphNode | null = null;
  for (const node of graph.nodes) {
    const range = node.range;
    if (!range || !before(range.start, at) || !before(at, range.end)) continue;
    if (!best?.range || before(best.range.start, range.start)) best = node;
  }
  return best?.id ?? null;
}

/** Per node: how many times it ran and its last outcome; per `from` and outcome: how often that edge was taken. */
export interface TraceOverlay {
  nodes: Map<string, { count: number; last: string | null }>;
  edges: Map<string, number>;
}

/** The key of an edge in `TraceOverlay.edges`: an edge is named by its `from` node and outcome. */
export function edgeKey(from: string, outcome: string): string {
  return JSON.stringify([from, outcome]);
}

/**
 * What a run's activations say on the graph. An edge is counted once for each
 * activation of its `from` node that ended with its outcome: that is exact however
 * concurrent items interleave in the trace.
 */
export function traceOverlay(activations: readonly Activation[]): TraceOverlay {
  const nodes = new Map<string, { count: number; last: string | null }>();
  const edges = new Map<string, number>();
  for (const { node, outcome } of activations) {
    if (typeof node !== 'string') continue;
    const seen = nodes.get(node);
    nodes.set(node, { count: (seen?.count ?? 0) + 1, last: outcome });
    if (outcome !== null) {
      const key = edgeKey(node, outcome);
      edges.set(key, (edges.get(key) ?? 0) + 1);
    }
  }
  return { nodes, edges };
}

/** The code-point column (1-based) of a UTF-16 offset into a line, as VS Code counts characters. */
export function codePointColumn(lineText: string, utf16: number): number {
  let column = 1;
  for (let i = 0; i < utf16 && i < lineText.length; i++) {
    const code = lineText.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < lineText.length) i++;
    column++;
  }
  return column;
}

/** The UTF-16 offset of a code-point column (1-based) of a line: the inverse of `codePointColumn`. */
export function utf16Offset(lineText: string, column: number): number {
  let offset = 0;
  for (let c = 1; c < column && offset < lineText.length; c++) {
    const code = lineText.charCodeAt(offset);
    offset += code >= 0xd800 && code <= 0xdbff && offset + 1 < lineText.length ? 2 : 1;
  }
  return offset;
}

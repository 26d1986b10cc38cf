// The workflow graph written in Graphviz's DOT language, which the view lays out
// with Graphviz (compiled to WebAssembly and bundled) and draws as SVG. Loops are
// clusters nested as the loops are, each headed by its foreach node; a collapsed
// loop is one node standing for everything inside it. Graphviz element ids are
// short and index-based (`wn-3` is `graph.nodes[3]`): the view maps them back
// with the tables returned beside the DOT text.
import {
  END,
  type Graph,
  type GraphLoop,
  type GraphNode,
  type TraceOverlay,
  childLocation,
  edgeKey,
  loopDepths,
  loopMembers,
  regionOf,
} from './model';

/** Above this many nodes the view starts with the outermost loops collapsed, so it opens fast. */
export const COLLAPSE_ABOVE = 400;

export interface DotOptions {
  /** Loop ids drawn as one node. */
  collapsed: ReadonlySet<string>;
  trace?: TraceOverlay | null;
}

export interface DotDrawing {
  dot: string;
  /** Graph node index → its element id; nodes hidden in a collapsed loop are absent. */
  nodeElement: Map<number, string>;
  /** Element id → the graph edges (indexes) drawn as that one edge. */
  edgeElement: Map<string, number[]>;
  /** Element id (`wl-i` for a region, `wc-i` for a collapsed loop) → loop id. */
  loopElement: Map<string, string>;
  /** Element id → the missing node name it stands for (an edge to an undeclared node). */
  ghostElement: Map<string, string>;
  /** Node id → the element id it is drawn as (its own, or its collapsed loop's). */
  drawnAs: Map<string, string>;
}

/** The loops the view collapses when it first opens a graph. */
export function defaultCollapsed(graph: Graph): Set<string> {
  if (graph.nodes.length <= COLLAPSE_ABOVE) return new Set();
  const depth = loopDepths(graph);
  return new Set(graph.loops.filter((loop) => (depth.get(loop.id) ?? 0) === 0).map((loop) => loop.id));
}

/** A DOT quoted string. */
export function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/** Text inside a Graphviz HTML-like label. */
function html(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\]/g, '&#93;')
    .replace(/\[/g, '&#91;');
}

const MARK: Record<string, string> = { error: '✖ ', warning: '⚠ ' };

/** The shape of each node type: those of `wfls graph --format dot`. */
const SHAPES: Record<string, string> = {
  node: 'box',
  subgraph: 'component',
  condition: 'diamond',
  foreach: 'hexagon',
  join: 'oval',
  end: 'doubleoctagon',
  interrupt: 'parallelogram',
};

/** How an invalid edge's label says what is wrong with it, as `wfls graph` prints it. */
const PROBLEM_WORDS: Record<string, string> = {
  unknown_source: 'unknown source',
  undeclared_outcome: 'undeclared outcome',
  unknown_target: 'unknown target',
};

/** The second line of a node's label: its type, with the node def it runs or the workflow it calls. */
function what(node: GraphNode, calls: string | null | undefined): string {
  if (node.type === 'node' && node.node_def) return `node ${node.node_def}`;
  if (node.type === 'subgraph' && calls) return `subgraph ${calls}`;
  return node.type ?? '?';
}

/** A loop region's title: the foreach, and its alias and `over` when they are known. */
export function loopTitle(loop: GraphLoop): string {
  if (loop.over === null) return `foreach ${loop.id}`;
  return `foreach ${loop.id}: ${loop.alias ?? 'item'} in ${loop.over}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function ranText(ran: { count: number; last: string | null } | undefined): string {
  if (!ran) return 'not run';
  return `×${ran.count}${ran.last !== null ? ` → ${ran.last}` : ''}`;
}

export function toDot(graph: Graph, options: DotOptions): DotDrawing {
  const { collapsed, trace } = options;
  const region = regionOf(graph);
  const members = loopMembers(graph);
  const depth = loopDepths(graph);
  const loopIndex = new Map(graph.loops.map((loop, i) => [loop.id, i]));
  const loopById = new Map(graph.loops.map((loop) => [loop.id, loop]));
  const nodeIndex = new Map<string, number>();
  graph.nodes.forEach((node, i) => {
    if (!nodeIndex.has(node.id)) nodeIndex.set(node.id, i);
  });
  const subgraphs = new Map(graph.subgraphs.map((s) => [s.node, s]));

  const drawing: DotDrawing = {
    dot: '',
    nodeElement: new Map(),
    edgeElement: new Map(),
    loopElement: new Map(),
    ghostElement: new Map(),
    drawnAs: new Map(),
  };

  // The outermost collapsed loop around a node, if any: it is drawn as that loop.
  const parentOf = (loop: string) => loopById.get(loop)?.parent ?? null;
  const collapsedAround = (id: string): string | null => {
    let found: string | null = null;
    const seen = new Set<string>();
    for (let l = region.get(id) ?? null; l !== null && !seen.has(l); l = parentOf(l)) {
      seen.add(l);
      if (collapsed.has(l)) found = l;
    }
    return found;
  };
  for (const [i, node] of graph.nodes.entries()) {
    const around = collapsedAround(node.id);
    if (around !== null) {
      drawing.drawnAs.set(node.id, `wc-${loopIndex.get(around)}`);
    } else {
      drawing.nodeElement.set(i, `wn-${i}`);
      if (!drawing.drawnAs.has(node.id)) drawing.drawnAs.set(node.id, `wn-${i}`);
    }
  }

  const lines: string[] = [
    'digraph wfls {',
    // newrank: the nodes are ranked all together, clusters kept whole, so that the ranks
    // of a loop's region and of what follows the loop are those of the edges between them.
    '  graph [rankdir=TB, newrank=true, nodesep=0.3, ranksep=0.4, fontname="Courier", fontsize=10, bgcolor="transparent", id="wf-drawing"];',
    '  node [shape=box, style="rounded,filled", fillcolor="white", color="#777777", fontname="Courier", fontsize=11, margin="0.12,0.04", height=0.3];',
    '  edge [fontname="Courier", fontsize=9, arrowsize=0.7, color="#777777"];',
  ];

  const unreachable = new Set(graph.unreachable ?? []);
  const nodeLine = (i: number, indent: string) => {
    const node = graph.nodes[i];
    const classes = ['wf-node'];
    if (node.type !== null) classes.push(`t-${node.type.replace(/[^A-Za-z0-9_-]/g, '_')}`);
    if (node.severity) classes.push(`sev-${node.severity}`);
    if (unreachable.has(node.id)) classes.push('unreachable');
    if (graph.start === node.id) classes.push('start');
    const sub = subgraphs.get(node.id);
    const rows = [
      `<B>${html((MARK[node.severity ?? ''] ?? '') + node.id)}</B>`,
      `<FONT POINT-SIZE="9">${html(what(node, sub?.workflow))}</FONT>`,
    ];
    if (trace) {
      const ran = trace.nodes.get(node.id);
      classes.push(ran ? 'ran' : 'not-run');
      rows.push(`<FONT POINT-SIZE="9">${html(ranText(ran))}</FONT>`);
    }
    let label = rows.join('<BR/>');
    if (sub) {
      classes.push('subgraph');
      // The child's name is a link of its own: a click on it opens the child document.
      const child = childLocation(sub);
      const title = child ? `open ${child}` : `no document of the workspace declares ${sub.workflow ?? '?'}`;
      label =
        `<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0"><TR><TD>${label}</TD></TR>` +
        `<TR><TD HREF="#" ID="wo-${i}" TITLE="${html(title)}"><FONT POINT-SIZE="9">↗ open</FONT></TD></TR></TABLE>`;
    }
    const shape = SHAPES[node.type ?? ''] ?? 'box';
    // The nodes of one region share a group, which Graphviz keeps in a straight line:
    // a chain of nodes reads downwards, with each loop's region beside its foreach.
    const r = region.get(node.id);
    let attributes = `, group=${r === undefined ? 'top' : `r${loopIndex.get(r)}`}`;
    if (shape !== 'box') attributes += `, shape=${shape}`;
    return `${indent}n${i} [id="wn-${i}", class="${classes.join(' ')}", label=<${label}>${attributes}];`;
  };

  const collapsedLine = (loop: GraphLoop, indent: string) => {
    const index = loopIndex.get(loop.id) ?? 0;
    drawing.loopElement.set(`wc-${index}`, loop.id);
    const inside = [...(members.get(loop.id) ?? [])];
    const classes = ['wf-collapsed', `depth-${depth.get(loop.id) ?? 0}`];
    const severities = new Set(inside.map((id) => graph.nodes[nodeIndex.get(id) ?? -1]?.severity));
    const worst = ['error', 'warning'].find((s) => severities.has(s));
    if (worst) classes.push(`sev-${worst}`);
    if (inside.includes(graph.start ?? '')) classes.push('start');
    const rows = [
      `<B>${html(`${MARK[worst ?? ''] ?? ''}⊞ ${loopTitle(loop)}`)}</B>`,
      `<FONT POINT-SIZE="9">${html(`${plural(inside.length, 'node')} inside`)}</FONT>`,
    ];
    if (trace) {
      const runs = inside.reduce((sum, id) => sum + (trace.nodes.get(id)?.count ?? 0), 0);
      rows.push(`<FONT POINT-SIZE="9">${html(runs ? `${plural(runs, 'activation')}` : 'not run')}</FONT>`);
      classes.push(runs ? 'ran' : 'not-run');
    }
    return `${indent}c${index} [id="wc-${index}", class="${classes.join(' ')}", shape=box3d, style=filled, margin="0.15,0.08", label=<${rows.join('<BR/>')}>];`;
  };

  // Each region lists, in document order, its own nodes and the loops nested in it
  // (a loop at the place of its foreach node).
  const order = (id: string) => nodeIndex.get(id) ?? Number.MAX_SAFE_INTEGER;
  const childLoops = new Map<string | null, GraphLoop[]>();
  for (const loop of graph.loops) {
    const parent = loop.parent !== null && loopById.has(loop.parent) ? loop.parent : null;
    const list = childLoops.get(parent) ?? [];
    list.push(loop);
    childLoops.set(parent, list);
  }
  const ownNodes = new Map<string | null, number[]>();
  for (const [i, node] of graph.nodes.entries()) {
    const r = region.get(node.id) ?? null;
    const list = ownNodes.get(r) ?? [];
    list.push(i);
    ownNodes.set(r, list);
  }

  const emitRegion = (loopId: string | null, indent: string, seen: Set<string>) => {
    const items: Array<[number, () => void]> = [];
    for (const i of ownNodes.get(loopId) ?? []) {
      if (drawing.nodeElement.has(i)) items.push([i, () => lines.push(nodeLine(i, indent))]);
    }
    for (const loop of childLoops.get(loopId) ?? []) {
      if (seen.has(loop.id)) continue; // a cycle of parents: draw each loop once
      items.push([order(loop.id), () => emitLoop(loop, indent, seen)]);
    }
    items.sort((a, b) => a[0] - b[0]);
    for (const [, emit] of items) emit();
  };

  const emitLoop = (loop: GraphLoop, indent: string, seen: Set<string>) => {
    seen.add(loop.id);
    if (collapsed.has(loop.id)) {
      lines.push(collapsedLine(loop, indent));
      return;
    }
    const index = loopIndex.get(loop.id) ?? 0;
    drawing.loopElement.set(`wl-${index}`, loop.id);
    const label = html(`⊟ ${loopTitle(loop)}`);
    lines.push(`${indent}subgraph cluster_${index} {`);
    lines.push(
      `${indent}  graph [id="wl-${index}", class="wf-loop depth-${depth.get(loop.id) ?? 0}", label=<${label}>, labeljust=l, style="rounded,dashed", color="#888888", margin=10];`,
    );
    emitRegion(loop.id, `${indent}  `, seen);
    lines.push(`${indent}}`);
  };

  emitRegion(null, '  ', new Set());
  // Loops whose parent chain never reaches the top level (a cycle) are drawn at the top.
  const drawnLoops = new Set(drawing.loopElement.values());
  for (const loop of graph.loops) {
    if (!drawnLoops.has(loop.id) && collapsedAround(loop.id) === null) emitLoop(loop, '  ', new Set(drawnLoops));
  }

  // Stand-ins for the undeclared nodes `start` and edges name, the start marker, the end.
  const dotName = (element: string) => element.replace(/^w([ncg])-/, '$1');
  const ghosts = new Map<string, string>();
  const ends = (id: string): string => {
    const drawn = drawing.drawnAs.get(id);
    if (drawn !== undefined) return dotName(drawn);
    if (id === END) return 'end';
    let ghost = ghosts.get(id);
    if (ghost === undefined) {
      ghost = `wg-${ghosts.size}`;
      ghosts.set(id, ghost);
      drawing.ghostElement.set(ghost, id);
      lines.push(`  ${dotName(ghost)} [id="${ghost}", class="wf-missing", style="dashed,rounded", label=${quote(`${id}\n(no such node)`)}];`);
    }
    return dotName(ghost);
  };
  if (graph.start !== null) {
    const target = ends(graph.start);
    const missing = !drawing.drawnAs.has(graph.start);
    lines.push('  start [id="wf-start", class="wf-start", shape=circle, style=filled, label="", width=0.18, fixedsize=true];');
    lines.push(
      `  start -> ${target} [id="wf-start-edge", class="wf-start-edge${missing ? ' invalid' : ''}"${missing ? ', style=dashed' : ''}];`,
    );
  }
  if (graph.edges.some((edge) => edge.to === END || edge.from === END) && !drawing.drawnAs.has(END)) {
    lines.push('  end [id="wf-end", class="wf-end", shape=doublecircle, label="end", fontsize=9, width=0.3, margin=0];');
  }

  const merged = new Map<string, { element: string; indexes: number[]; line: (count: number | null) => string }>();
  for (const [i, edge] of graph.edges.entries()) {
    const from = ends(edge.from);
    const to = ends(edge.to);
    if (from === to && from.startsWith('c')) continue; // inside one collapsed loop
    const key = JSON.stringify([from, to, edge.outcome]);
    const existing = merged.get(key);
    if (existing) {
      existing.indexes.push(i);
      continue;
    }
    const element = `we-${i}`;
    const classes = ['wf-edge'];
    if (!edge.valid) classes.push('invalid');
    merged.set(key, {
      element,
      indexes: [i],
      line: (count) => {
        if (trace) classes.push(count ? 'taken' : 'idle');
        const outcome = edge.outcome ?? '?';
        let label = count ? `${outcome} ×${count}` : outcome;
        if (!edge.valid && edge.problems?.length) {
          label += `\n(${edge.problems.map((p) => PROBLEM_WORDS[p] ?? p).join(', ')})`;
        }
        let style = edge.valid ? '' : ', style=dashed';
        // An edge from inside a loop back to its foreach (an item done) does not rank
        // the nodes: the loop's body stays below its foreach, however Graphviz would
        // break the cycle.
        if (loopById.has(edge.to) && members.get(edge.to)?.has(edge.from)) style += ', constraint=false';
        return `  ${from} -> ${to} [id="${element}", class="${classes.join(' ')}", label=${quote(label)}${style}];`;
      },
    });
  }
  for (const { element, indexes, line } of merged.values()) {
    drawing.edgeElement.set(element, indexes);
    let count: number | null = null;
    if (trace) {
      count = 0;
      for (const i of indexes) {
        const { from, outcome } = graph.edges[i];
        if (outcome !== null) count += trace.edges.get(edgeKey(from, outcome)) ?? 0;
      }
    }
    lines.push(line(count));
  }
  // What a loop's `done` edge leads to runs after the whole loop: it is ranked below
  // everything drawn inside the loop's region (invisible edges from each of them).
  for (const loop of graph.loops) {
    const inside = members.get(loop.id);
    if (!inside || inside.size === 0 || !drawing.drawnAs.has(loop.id)) continue;
    for (const edge of graph.edges) {
      if (edge.from !== loop.id || edge.outcome !== 'done' || inside.has(edge.to) || edge.to === loop.id) continue;
      if (loopById.has(edge.to) && members.get(edge.to)?.has(loop.id)) continue; // back to an enclosing foreach
      if (!drawing.drawnAs.has(edge.to) && edge.to !== END) continue;
      const target = ends(edge.to);
      const sources = new Set<string>();
      for (const id of inside) {
        const element = drawing.drawnAs.get(id);
        if (element !== undefined) sources.add(dotName(element));
      }
      for (const source of sources) if (source !== target) lines.push(`  ${source} -> ${target} [style=invis];`);
    }
  }
  lines.push('}');
  drawing.dot = lines.join('\n') + '\n';
  return drawing;
}

// The DOT the graph view lays out (src/graph/dot.ts), and Graphviz (the bundled
// @viz-js/viz) drawing it: loop regions nested as the loops, collapsed loops, a
// run's counts, stand-ins for undeclared nodes, and ids that need quoting.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { instance } from '@viz-js/viz';
import { loadSource } from './support/load.mjs';
import { extensionRoot } from './support/manifest.mjs';
import { createVscodeStub } from './support/vscode-stub.mjs';

const stub = createVscodeStub();
const { toDot, defaultCollapsed, COLLAPSE_ABOVE } = await loadSource('graph/dot', stub);
const { traceOverlay } = await loadSource('graph/model', stub);
const viz = await instance();

const node = (id, type, owner_stack, extra = {}) => ({ id, type, owner_stack, range: null, severity: null, ...extra });
const edge = (from, outcome, to, valid = true, problems = []) => ({ from, outcome, to, valid, problems });

const billing = {
  workflow: 'billing',
  start: 'customers',
  nodes: [
    node('customers', 'foreach', []),
    node('orders.v2', 'foreach', ['customers']),
    node('charge', 'node', ['customers', 'orders.v2'], { node_def: 'charge_order', severity: 'warning' }),
  ],
  edges: [
    edge('customers', 'loop', 'orders.v2'),
    edge('orders.v2', 'loop', 'charge'),
    edge('charge', 'ok', 'orders.v2'),
    edge('orders.v2', 'done', 'customers'),
    edge('customers', 'done', '__end__'),
  ],
  loops: [
    { id: 'customers', over: 'input.customers', alias: 'customer', parent: null, body: ['orders.v2'] },
    { id: 'orders.v2', over: 'context.foreach.customers.item.orders', alias: 'order', parent: 'customers', body: ['charge'] },
  ],
  subgraphs: [],
  unreachable: [],
};

/** The element ids Graphviz drew, by kind (`wn`, `wc`, `wl`, `we`, `wg`, `wf`). */
function drawn(dot) {
  const svg = viz.renderString(dot, { format: 'svg' }).replaceAll('&#45;', '-');
  const ids = [...svg.matchAll(/<g id="([^"]+)" class="([^"]*)"/g)].map((m) => m[1]);
  const by = {};
  for (const id of ids) (by[id.split('-')[0]] ??= []).push(id);
  return { svg, by };
}

test('loops are clusters nested as the loops are, each foreach outside its own region', () => {
  const drawing = toDot(billing, { collapsed: new Set() });
  const lines = drawing.dot.split('\n');
  const at = (text) => lines.findIndex((l) => l.includes(text));
  // customers' region holds the orders.v2 foreach and orders.v2's region, which holds charge.
  assert.ok(at('subgraph cluster_0 {') < at('id="wn-1"'));
  assert.ok(at('id="wn-1"') < at('subgraph cluster_1 {'));
  assert.ok(at('subgraph cluster_1 {') < at('id="wn-2"'));
  assert.ok(at('id="wn-0"') < at('subgraph cluster_0 {'), 'customers is drawn before (outside) its region');
  assert.match(drawing.dot, /label=<⊟ foreach orders\.v2: order in context\.foreach\.customers\.item\.orders>/);
  assert.match(drawing.dot, /n2 \[id="wn-2", class="wf-node t-node sev-warning"/);
  assert.match(drawing.dot, /<FONT POINT-SIZE="9">node charge_order<\/FONT>/);
  assert.deepEqual(Object.fromEntries(drawing.loopElement), { 'wl-0': 'customers', 'wl-1': 'orders.v2' });
  const { by } = drawn(drawing.dot);
  assert.deepEqual(by.wn, ['wn-0', 'wn-1', 'wn-2']);
  assert.deepEqual(by.wl, ['wl-0', 'wl-1']);
  assert.deepEqual(by.we.sort(), ['we-0', 'we-1', 'we-2', 'we-3', 'we-4']);
  assert.deepEqual(by.wf.sort(), ['wf-drawing', 'wf-end', 'wf-start', 'wf-start-edge']);
});

test('a loop reads downwards: what its done edge leads to is ranked below its region, edges back up rank nothing', () => {
  const drawing = toDot(billing, { collapsed: new Set() });
  // customers is done into the end: the end is below both nodes of its region.
  assert.match(drawing.dot, /n1 -> end \[style=invis\];\n  n2 -> end \[style=invis\];/);
  // Back to a foreach from inside its loop: the body's last edge, the inner loop's done.
  assert.match(drawing.dot, /n2 -> n1 \[id="we-2", class="wf-edge", label="ok", constraint=false\]/);
  assert.match(drawing.dot, /n1 -> n0 \[id="we-3", class="wf-edge", label="done", constraint=false\]/);
  assert.match(drawing.dot, /n0 -> n1 \[id="we-0", class="wf-edge", label="loop"\]/);
  // Graphviz's own positions (y grows upwards): customers, orders.v2, charge, then the end.
  const laid = viz.renderJSON(drawing.dot);
  const y = (id) => Number(laid.objects.find((o) => o.id === id).pos.split(',')[1]);
  assert.ok(y('wn-0') > y('wn-1') && y('wn-1') > y('wn-2') && y('wn-2') > y('wf-end'));
});

test('a collapsed loop is one node; the edges of its body leave with it, its foreach stays', () => {
  const drawing = toDot(billing, { collapsed: new Set(['orders.v2']) });
  assert.deepEqual([...drawing.nodeElement.values()], ['wn-0', 'wn-1']);
  assert.equal(drawing.drawnAs.get('charge'), 'wc-1');
  assert.match(drawing.dot, /c1 \[id="wc-1", class="wf-collapsed depth-1 sev-warning".*⊞ foreach orders\.v2: order in/);
  assert.match(drawing.dot, /1 node inside/);
  // orders.v2 → (loop) → the region, the region → (ok) → orders.v2.
  assert.match(drawing.dot, /n1 -> c1 \[id="we-1", class="wf-edge", label="loop"\]/);
  assert.match(drawing.dot, /c1 -> n1 \[id="we-2", class="wf-edge", label="ok", constraint=false\]/);
  const outer = toDot(billing, { collapsed: new Set(['customers']) });
  assert.deepEqual([...outer.nodeElement.values()], ['wn-0']);
  assert.equal(outer.drawnAs.get('charge'), 'wc-0');
  assert.match(outer.dot, /2 nodes inside/);
  // The edges inside the collapsed region are not drawn; those across its border are.
  assert.deepEqual([...outer.edgeElement.keys()], ['we-0', 'we-3', 'we-4']);
  assert.deepEqual(drawn(outer.dot).by.wc, ['wc-0']);
});

test('large graphs open with their outermost loops collapsed', () => {
  assert.deepEqual([...defaultCollapsed(billing)], []);
  const many = { ...billing, nodes: [...billing.nodes] };
  for (let i = billing.nodes.length; i <= COLLAPSE_ABOVE; i++) many.nodes.push(node(`n${i}`, 'node', []));
  assert.deepEqual([...defaultCollapsed(many)], ['customers']);
});

test('a run is written on the nodes and edges it went through', () => {
  const trace = traceOverlay([
    { node: 'customers', outcome: 'loop' },
    { node: 'orders.v2', outcome: 'loop' },
    { node: 'charge', outcome: 'ok' },
    { node: 'orders.v2', outcome: 'done' },
  ]);
  const drawing = toDot(billing, { collapsed: new Set(), trace });
  assert.match(drawing.dot, /id="wn-1", class="wf-node t-foreach ran".*×2 → done/);
  assert.match(drawing.dot, /id="we-1", class="wf-edge taken", label="loop ×1"/);
  assert.match(drawing.dot, /id="we-4", class="wf-edge idle", label="done"/);
  drawn(drawing.dot);
});

test('undeclared nodes get stand-ins, invalid edges say why, odd ids are quoted', () => {
  const odd = 'say "hi" \\ <b>&';
  const graph = {
    workflow: 'w',
    start: 'missing_start',
    nodes: [node(odd, 'node', []), node('typeless', null, null, { severity: 'error' })],
    edges: [edge(odd, 'ok', 'nowhere', false, ['unknown_target']), edge('typeless', null, odd, true)],
    loops: [],
    subgraphs: [],
    unreachable: ['typeless'],
  };
  const drawing = toDot(graph, { collapsed: new Set() });
  assert.deepEqual(Object.fromEntries(drawing.ghostElement), { 'wg-0': 'missing_start', 'wg-1': 'nowhere' });
  assert.match(drawing.dot, /<B>say &quot;hi&quot; \\ &lt;b&gt;&amp;<\/B>/);
  assert.match(drawing.dot, /class="wf-node sev-error unreachable", label=<<B>✖ typeless<\/B><BR\/><FONT POINT-SIZE="9">\?<\/FONT>>/);
  assert.match(drawing.dot, /label="ok\\n\(unknown target\)", style=dashed/);
  assert.match(drawing.dot, /class="wf-start-edge invalid", style=dashed/);
  const { svg, by } = drawn(drawing.dot);
  assert.deepEqual(by.wg.sort(), ['wg-0', 'wg-1']);
  assert.ok(svg.includes('say &quot;hi&quot; \\ &lt;b&gt;&amp;'), 'the id is drawn as written');
});

test('a subgraph node has a link to its child', () => {
  const graph = {
    workflow: 'caller',
    start: 'call',
    nodes: [node('call', 'subgraph', [])],
    edges: [edge('call', 'ok', '__end__')],
    loops: [],
    subgraphs: [{ node: 'call', workflow: 'billing', file: '/w/billing.wf.toml', uri: 'file:///w/billing.wf.toml' }],
  };
  const drawing = toDot(graph, { collapsed: new Set() });
  assert.match(drawing.dot, /subgraph billing/);
  assert.match(drawing.dot, /shape=component/);
  const { svg } = drawn(drawing.dot);
  assert.match(svg, /<g id="a_wo-0"><a xlink:href="#" xlink:title="open \/w\/billing\.wf\.toml">/);
});

test('every graph `wfls graph` keeps for its tests is laid out, each node drawn once', () => {
  // tests/graph/: the examples and a document for each kind of mistake, as `wfls graph` prints them.
  const folder = path.join(extensionRoot, '..', '..', 'tests', 'graph');
  const files = [
    ...readdirSync(folder).filter((f) => f.endsWith('.json') && !f.startsWith('package')),
    ...readdirSync(path.join(folder, 'examples')).map((f) => path.join('examples', f)).filter((f) => f.endsWith('.json')),
  ];
  assert.ok(files.length >= 10, `${files.length} graphs`);
  for (const file of files) {
    const graph = JSON.parse(readFileSync(path.join(folder, file), 'utf8'));
    for (const collapsed of [new Set(), new Set(graph.loops.map((l) => l.id))]) {
      const drawing = toDot(graph, { collapsed });
      const { by } = drawn(drawing.dot);
      const hidden = graph.nodes.filter((n) => drawing.drawnAs.get(n.id)?.startsWith('wc-')).length;
      assert.equal((by.wn ?? []).length, graph.nodes.length - hidden, file);
      assert.equal((by.wg ?? []).length, drawing.ghostElement.size, file);
    }
  }
});

// The pure functions the graph view and the extension share (src/graph/model.ts):
// loop regions, the node under a position, a run's counts, columns in code points,
// and the messages put on nodes from the diagnostics.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSource } from './support/load.mjs';
import { createVscodeStub } from './support/vscode-stub.mjs';

const model = await loadSource('graph/model', createVscodeStub());

const span = (l1, c1, l2, c2) => ({ start: { line: l1, column: c1 }, end: { line: l2, column: c2 } });
const node = (id, type, owner_stack, range, severity = null) => ({ id, type, owner_stack, range, severity });

// billing.wf.toml as `wfls graph` gives it: two nested loops, `charge` in both.
const billing = {
  workflow: 'billing',
  start: 'customers',
  nodes: [
    node('customers', 'foreach', [], span(46, 1, 50, 16)),
    node('orders.v2', 'foreach', ['customers'], span(52, 1, 56, 13)),
    node('charge', 'node', ['customers', 'orders.v2'], span(58, 1, 66, 57), 'warning'),
  ],
  edges: [
    { from: 'customers', outcome: 'loop', to: 'orders.v2', valid: true },
    { from: 'orders.v2', outcome: 'loop', to: 'charge', valid: true },
    { from: 'charge', outcome: 'ok', to: 'orders.v2', valid: true },
    { from: 'orders.v2', outcome: 'done', to: 'customers', valid: true },
    { from: 'customers', outcome: 'done', to: '__end__', valid: true },
  ],
  loops: [
    { id: 'customers', over: 'input.customers', alias: 'customer', parent: null, body: ['orders.v2'] },
    { id: 'orders.v2', over: 'context.foreach.customers.item.orders', alias: 'order', parent: 'customers', body: ['charge'] },
  ],
  subgraphs: [],
  unreachable: [],
};

test('a node is drawn in its innermost loop; a foreach sits in the loop around it, outside its own', () => {
  assert.deepEqual(Object.fromEntries(model.regionOf(billing)), { 'orders.v2': 'customers', charge: 'orders.v2' });
  assert.deepEqual(Object.fromEntries(model.loopDepths(billing)), { customers: 0, 'orders.v2': 1 });
  const members = model.loopMembers(billing);
  assert.deepEqual([...members.get('customers')], ['orders.v2', 'charge']);
  assert.deepEqual([...members.get('orders.v2')], ['charge']);
});

test('a body that lists every nested node still puts each in its innermost loop', () => {
  const transitive = { ...billing, loops: [{ ...billing.loops[0], body: ['orders.v2', 'charge'] }, billing.loops[1]] };
  assert.equal(model.regionOf(transitive).get('charge'), 'orders.v2');
});

test('the node under a position is the one whose entry holds it, ends included', () => {
  const cases = [
    [{ line: 46, column: 1 }, 'customers'],
    [{ line: 50, column: 16 }, 'customers'],
    [{ line: 50, column: 17 }, null],
    [{ line: 51, column: 1 }, null],
    [{ line: 60, column: 30 }, 'charge'],
    [{ line: 3, column: 1 }, null],
  ];
  for (const [at, expected] of cases) assert.equal(model.nodeAt(billing, at), expected, JSON.stringify(at));
});

test('a run counts activations and the last outcome per node, and per edge how often it was taken', () => {
  const activations = [
    ['customers', 'loop'],
    ['orders.v2', 'loop'],
    ['charge', 'ok'],
    ['orders.v2', 'loop'],
    ['charge', 'ok'],
    ['orders.v2', 'done'],
    ['customers', 'done'],
  ].map(([node, outcome]) => ({ node, outcome }));
  const overlay = model.traceOverlay(activations);
  assert.deepEqual(Object.fromEntries(overlay.nodes), {
    customers: { count: 2, last: 'done' },
    'orders.v2': { count: 3, last: 'done' },
    charge: { count: 2, last: 'ok' },
  });
  assert.equal(overlay.edges.get(model.edgeKey('orders.v2', 'loop')), 2);
  assert.equal(overlay.edges.get(model.edgeKey('orders.v2', 'done')), 1);
  assert.equal(overlay.edges.get(model.edgeKey('charge', 'retry')), undefined);
});

test('columns convert between UTF-16 offsets and code points both ways', () => {
  const line = 'id = "𝔸𝔹c"'; // two astral characters, each two UTF-16 units
  const cases = [
    [0, 1],
    [6, 7],
    [8, 8],
    [10, 9],
    [11, 10],
  ];
  for (const [utf16, column] of cases) {
    assert.equal(model.codePointColumn(line, utf16), column, `offset ${utf16}`);
    assert.equal(model.utf16Offset(line, column), utf16, `column ${column}`);
  }
});

test('a node with a severity gets the message of the first finding of that severity in its entry', () => {
  const findings = [
    { start: { line: 62, column: 5 }, severity: 'warning', message: 'undeclared_property: second' },
    { start: { line: 60, column: 5 }, severity: 'warning', message: 'undeclared_property: first' },
    { start: { line: 59, column: 5 }, severity: 'hint', message: 'deprecated_context_key: a hint' },
    { start: { line: 47, column: 5 }, severity: 'warning', message: 'in customers, which has no severity' },
  ];
  const messages = model.withMessages(billing, findings).nodes.map((n) => [n.id, n.message ?? null]);
  assert.deepEqual(messages, [
    ['customers', null],
    ['orders.v2', null],
    ['charge', 'undeclared_property: first'],
  ]);
});

test('a subgraph call is opened by its path, else its URI', () => {
  assert.equal(model.childLocation({ node: 'n', workflow: 'w', file: '/a/w.wf.toml', uri: 'file:///a/w.wf.toml' }), '/a/w.wf.toml');
  assert.equal(model.childLocation({ node: 'n', workflow: 'w', uri: 'file:///a/w.wf.toml' }), 'file:///a/w.wf.toml');
  assert.equal(model.childLocation({ node: 'n', workflow: 'w', file: null, uri: null }), null);
});

// What the Test Explorer reads of a workflow test document before any run (its
// cases, from the text alone) and of the server's answer to `wfls.test` (its
// positions in the editor's units, the failure text and the diff).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSource } from './support/load.mjs';
import { createVscodeStub } from './support/vscode-stub.mjs';

const tests = await loadSource('testDocuments', createVscodeStub());

const TOML = `workflow = "billing"

[[case]]
name = "two customers"   # a comment
input = { customers = [] }

[[case.pin]]
node = "charge"
name = "not a case name"

[[ case ]]
input = {}
name = 'literal \\n kept'

[[case]]
input = {}

[[case.expect]]
name = "a sub-table's key, not the case's"

[[case]]
name = "caf\\u00e9 \\U0001F600"
`;

test('a TOML document lists each [[case]] with the name among its own keys', () => {
  assert.deepEqual(tests.declaredCases(TOML, '/w/billing.wf.test.toml'), [
    { name: 'two customers', line: 2 },
    { name: 'literal \\n kept', line: 10 },
    { name: 'café 😀', line: 20 },
  ]);
});

test('a JSON document lists the objects of its case array, each on the line of its name', () => {
  const text = [
    '{"workflow": "billing",',
    ' "case": [',
    '  {"name": "first", "input": {"name": "first"}},',
    '  {"input": {},',
    '   "name": "caf\\u00e9"},',
    '  {"input": {}},',
    '  {"name": "first"}',
    ']}',
  ].join('\n');
  assert.deepEqual(tests.declaredCases(text, '/w/b.wf.test.json'), [
    { name: 'first', line: 2 },
    { name: 'café', line: 4 },
    { name: 'first', line: 6 },
  ]);
  assert.deepEqual(tests.declaredCases('{"case": [', '/w/b.wf.test.json'), []);
  assert.deepEqual(tests.declaredCases('{"case": {"name": "x"}}', '/w/b.wf.test.json'), []);
});

test('test documents are told by their names', () => {
  for (const path of ['/a/b.wf.test.toml', '/a/b.wf.test.json']) assert.ok(tests.isTestDocument(path), path);
  for (const path of ['/a/b.wf.toml', '/a/b.wf.json', '/a/b.test.toml', '/a/wf.test.toml.bak']) {
    assert.ok(!tests.isTestDocument(path), path);
  }
  assert.deepEqual(
    tests.TEST_SELECTOR.map((s) => `${s.scheme}:${s.pattern}`),
    ['file:**/*.wf.test.toml', 'file:**/*.wf.test.json', 'untitled:**/*.wf.test.toml', 'untitled:**/*.wf.test.json'],
  );
});

test('report positions become the editor’s: 0-based lines, columns counted in UTF-16', () => {
  const lines = ['plain', 'x = "😀😀" # ok'];
  const lineText = (line) => lines[line];
  assert.deepEqual(tests.editorPosition({ line: 1, column: 1 }, lineText), { line: 0, character: 0 });
  // Column 8 is after two emoji, each one code point and two UTF-16 units: character 9.
  assert.deepEqual(tests.editorPosition({ line: 2, column: 8 }, lineText), { line: 1, character: 9 });
  // Past the line's end (a range that ends after its last character) it stays past it.
  assert.deepEqual(tests.editorPosition({ line: 1, column: 8 }, lineText), { line: 0, character: 7 });
  assert.deepEqual(tests.editorPosition({ line: 9, column: 3 }, lineText), { line: 8, character: 2 });
});

const REPORT = {
  files: [
    {
      path: 'billing.wf.test.toml',
      workflow: 'billing',
      error: null,
      cases: [
        {
          name: 'declined',
          range: { start: { line: 3, column: 1 }, end: { line: 12, column: 20 } },
          status: 'failed',
          duration_ms: 3.5,
          failures: [
            {
              message: 'expected visited to contain charge',
              range: { start: { line: 12, column: 1 }, end: { line: 12, column: 20 } },
              expected: ['customers', 'charge'],
              actual: null,
              activations: ['customers [0]', 'orders.v2 [1]'],
            },
            {
              message: 'the case paused',
              range: { start: { line: 10, column: 1 }, end: { line: 10, column: 7 } },
              expected: null,
              actual: 'paused',
            },
          ],
        },
      ],
    },
  ],
  summary: { passed: 0, failed: 1, errors: 0 },
};

test('a failure shows its message with the activations that led there, and expected against actual as JSON', () => {
  const [first, second] = REPORT.files[0].cases[0].failures;
  assert.equal(tests.failureText(first), 'expected visited to contain charge\nactivations: customers [0] > orders.v2 [1]');
  assert.equal(tests.failureText(second), 'the case paused');
  assert.deepEqual(tests.diffTexts(first), { expected: '[\n  "customers",\n  "charge"\n]', actual: 'null' });
  assert.equal(tests.diffTexts(second), undefined);
});

test('an answer is taken as a report only with the report’s shape', () => {
  assert.ok(tests.isTestReport(REPORT));
  for (const answer of [null, {}, { files: {} }, { files: [null] }, { files: [{ cases: 'x' }] }]) {
    assert.ok(!tests.isTestReport(answer), JSON.stringify(answer));
  }
});

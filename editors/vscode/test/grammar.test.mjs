// Tokenizes workflow text with the grammars and checks the scopes that themes
// colour: TOML structure everywhere, and the parts of path strings.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { extensionRoot } from './support/manifest.mjs';
import { describe, tokenize, tokenizeLine } from './support/textmate.mjs';

const TOML = 'source.wf-toml';
const JSON_SCOPE = 'source.json';

const ROOT = 'variable.language.root.wf';
const FOREACH = 'keyword.other.foreach.wf';
const SEGMENT = 'string.quoted.segment.wf';
const MEMBER = 'variable.other.member.wf';
const DOT = 'punctuation.accessor.wf';
const PATH = 'meta.path.wf';

const has = (token, scope) => token.scopes.some((s) => s === scope || s.startsWith(`${scope}.`));

/** The path parts of a line: `[text, role]` for each token inside a path string. */
function pathParts(tokens) {
  const roles = [
    [ROOT, 'root'],
    [FOREACH, 'foreach'],
    [SEGMENT, 'quoted'],
    [MEMBER, 'member'],
    [DOT, 'dot'],
  ];
  return tokens
    .filter((t) => has(t, PATH))
    .map((t) => [t.text, roles.find(([scope]) => has(t, scope))?.[1] ?? 'other'])
    .filter(([, role]) => role !== 'other');
}

/** Path parts with each quoted segment (open quote, text, close quote) joined into one. */
function segmentsOf(tokens) {
  const joined = [];
  for (const [text, role] of pathParts(tokens)) {
    const last = joined.at(-1);
    // Two quoted segments are always separated by a dot, so adjacent quoted tokens are one segment.
    if (role === 'quoted' && last?.[1] === 'quoted') last[0] += text;
    else joined.push([text, role]);
  }
  return joined;
}

function tokenWith(tokens, text) {
  const token = tokens.find((t) => t.text === text);
  assert.ok(token, `no token ${JSON.stringify(text)} in\n${describe(tokens)}`);
  return token;
}

const ORDERS_V2_ITEM = (quote) => [
  ['context', 'root'],
  ['.', 'dot'],
  ['foreach', 'foreach'],
  ['.', 'dot'],
  [`${quote}orders.v2${quote}`, 'quoted'],
  ['.', 'dot'],
  ['item', 'member'],
];

test('a path in a basic string: root, foreach, escaped quoted segment, member', async () => {
  const tokens = await tokenizeLine(TOML, 'path = "context.foreach.\\"orders.v2\\".item"');
  assert.deepEqual(segmentsOf(tokens), ORDERS_V2_ITEM('\\"'));
  assert.ok(has(tokenWith(tokens, 'path'), 'support.type.property-name'));
});

test('a path in a literal string: the same parts, with plain quotes', async () => {
  const tokens = await tokenizeLine(TOML, "path = 'context.foreach.\"orders.v2\".item'");
  assert.deepEqual(segmentsOf(tokens), ORDERS_V2_ITEM('"'));
});

test('a path inside an inline table, as in node inputs', async () => {
  const tokens = await tokenizeLine(TOML, `  { target = "order", path = 'context.foreach."orders.v2".item' },`);
  assert.deepEqual(segmentsOf(tokens), ORDERS_V2_ITEM('"'));
  assert.ok(has(tokenWith(tokens, 'target'), 'support.type.property-name'));
  assert.ok(!has(tokenWith(tokens, 'order'), PATH), 'the target value is not a path');
});

test('input and state roots, and over', async () => {
  assert.deepEqual(segmentsOf(await tokenizeLine(TOML, 'over = "input.customers"')), [
    ['input', 'root'],
    ['.', 'dot'],
    ['customers', 'member'],
  ]);
  assert.deepEqual(segmentsOf(await tokenizeLine(TOML, 'x = { target = "total", path = "state.total" }')), [
    ['state', 'root'],
    ['.', 'dot'],
    ['total', 'member'],
  ]);
});

test('a string that starts with a root is a path whatever its key; a bare root is one too', async () => {
  assert.deepEqual(segmentsOf(await tokenizeLine(TOML, 'output = [{ source = "amount", target = "state.total" }]')), [
    ['state', 'root'],
    ['.', 'dot'],
    ['total', 'member'],
  ]);
  assert.deepEqual(segmentsOf(await tokenizeLine(TOML, "where = 'context'")), [['context', 'root']]);
});

test('other strings are not paths', async () => {
  for (const line of ['as = "customer"', 'to = "orders.v2"', 'name = "contextual"', 'note = "input is read"']) {
    const tokens = await tokenizeLine(TOML, line);
    assert.ok(!tokens.some((t) => has(t, PATH)), `${line}\n${describe(tokens)}`);
    assert.ok(tokens.some((t) => has(t, 'string.quoted.single')), line);
  }
});

test('path and over hold paths even without a known root', async () => {
  assert.deepEqual(segmentsOf(await tokenizeLine(TOML, 'path = "contxt.foreach.x"')), [
    ['contxt', 'member'],
    ['.', 'dot'],
    ['foreach', 'member'],
    ['.', 'dot'],
    ['x', 'member'],
  ]);
});

test('foreach is a keyword only directly after context', async () => {
  assert.deepEqual(segmentsOf(await tokenizeLine(TOML, 'path = "state.foreach"')), [
    ['state', 'root'],
    ['.', 'dot'],
    ['foreach', 'member'],
  ]);
  assert.deepEqual(segmentsOf(await tokenizeLine(TOML, 'path = "input.context"')), [
    ['input', 'root'],
    ['.', 'dot'],
    ['context', 'member'],
  ]);
});

test('escapes inside a quoted segment do not end the segment or the string', async () => {
  // The segment is `"a\"b"`; in a basic TOML string each of its quotes and backslashes is escaped.
  const tokens = await tokenizeLine(TOML, 'path = "input.\\"a\\\\\\"b\\".c" # note');
  const escape = tokenWith(tokens, '\\\\\\"');
  assert.ok(has(escape, SEGMENT) && has(escape, 'constant.character.escape'));
  assert.ok(has(tokenWith(tokens, 'c'), MEMBER));
  assert.ok(has(tokenWith(tokens, ' note'), 'comment.line.number-sign'));

  const literal = await tokenizeLine(TOML, `path = 'input."a\\"b".c' # note`);
  assert.ok(has(tokenWith(literal, '\\"'), SEGMENT));
  assert.ok(has(tokenWith(literal, 'c'), MEMBER));
  assert.ok(has(tokenWith(literal, ' note'), 'comment.line.number-sign'));
});

test('a single-quoted segment inside a basic string', async () => {
  const tokens = await tokenizeLine(TOML, `path = "context.foreach.'orders.v2'.item"`);
  assert.deepEqual(segmentsOf(tokens), ORDERS_V2_ITEM("'"));
});

test('comments, table headers and array-of-tables headers', async () => {
  const comment = await tokenizeLine(TOML, '# billing.wf.toml');
  assert.ok(comment.every((t) => has(t, 'comment.line.number-sign.toml')));

  const table = await tokenizeLine(TOML, '[input_schema."$defs".customer]');
  assert.ok(has(tokenWith(table, 'input_schema'), 'entity.name.tag.table'));
  assert.ok(has(tokenWith(table, '$defs'), 'entity.name.tag.table'));
  assert.ok(has(tokenWith(table, 'customer'), 'entity.name.tag.table'));
  assert.ok(has(tokenWith(table, '['), 'punctuation.definition.table.begin'));

  const arrayTable = await tokenizeLine(TOML, '[[nodes]]  # each node');
  assert.ok(has(tokenWith(arrayTable, 'nodes'), 'entity.name.tag.table.array'));
  assert.ok(has(tokenWith(arrayTable, '[['), 'punctuation.definition.table.array.begin'));
  assert.ok(has(tokenWith(arrayTable, ' each node'), 'comment.line'));
});

test('bare, quoted and dotted keys', async () => {
  const tokens = await tokenizeLine(TOML, 'properties.customers = { type = "array", items = { "$ref" = "#/$defs/customer" } }');
  for (const key of ['properties', 'customers', 'type', 'items', '$ref']) {
    assert.ok(has(tokenWith(tokens, key), 'support.type.property-name'), key);
  }
  assert.ok(has(tokenWith(tokens, '.'), 'punctuation.separator.dot'));
  assert.ok(has(tokenWith(tokens, '#/$defs/customer'), 'string.quoted.single.basic'));
  assert.ok(has(tokenWith(tokens, '{'), 'meta.inline-table'));
});

test('numbers, booleans, dates and arrays', async () => {
  const tokens = await tokenizeLine(
    TOML,
    'v = [42, -1_000, 3.14, 6.02e23, 0xff, 0o17, 0b101, inf, true, false, 1979-05-27T07:32:00Z, 07:32:00]',
  );
  const expected = {
    42: 'constant.numeric.integer',
    '-1_000': 'constant.numeric.integer',
    3.14: 'constant.numeric.float',
    '6.02e23': 'constant.numeric.float',
    '0xff': 'constant.numeric.hex',
    '0o17': 'constant.numeric.octal',
    '0b101': 'constant.numeric.binary',
    inf: 'constant.numeric.float',
    true: 'constant.language.boolean',
    false: 'constant.language.boolean',
    '1979-05-27T07:32:00Z': 'constant.other.datetime',
    '07:32:00': 'constant.other.time',
  };
  for (const [text, scope] of Object.entries(expected)) assert.ok(has(tokenWith(tokens, text), scope), text);
  assert.ok(tokens.slice(tokens.indexOf(tokenWith(tokens, '['))).every((t) => has(t, 'meta.array.toml')));
});

test('multi-line strings are not paths, and the lines after them are TOML again', async () => {
  const lines = await tokenize(TOML, ['doc = """', 'context.x "quoted"', '"""', "raw = '''", 'state.y', "'''", 'n = 1'].join('\n'));
  assert.ok(lines[1].every((t) => has(t, 'string.quoted.triple.basic') && !has(t, PATH)), describe(lines[1]));
  assert.ok(lines[4].every((t) => has(t, 'string.quoted.triple.literal') && !has(t, PATH)), describe(lines[4]));
  assert.ok(has(tokenWith(lines[6], '1'), 'constant.numeric.integer'));
});

test('arrays spanning lines keep their comments and values', async () => {
  const lines = await tokenize(TOML, ['outcomes = [', '  "ok",  # the normal end', '  "state.x",', ']'].join('\n'));
  assert.ok(has(tokenWith(lines[1], ' the normal end'), 'comment.line'));
  assert.ok(has(tokenWith(lines[2], 'state'), ROOT));
  assert.ok(has(tokenWith(lines[3], ']'), 'punctuation.definition.array.end'));
});

test('the example workflow of the format spec: no illegal tokens, and every path/over value is a path', async () => {
  const text = readFileSync(path.join(extensionRoot, 'test/fixtures/billing.wf.toml'), 'utf8');
  const lines = await tokenize(TOML, text);
  const all = lines.flat();
  assert.ok(!all.some((t) => t.scopes.some((s) => s.startsWith('invalid'))), 'no invalid scopes');
  let paths = 0;
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/\b(?:path|over) = (["'])(.*?)\1/g)) {
      const value = m[2];
      const inPath = lines[i].filter((t) => has(t, PATH) && !has(t, 'punctuation.definition.string'));
      assert.ok(inPath.map((t) => t.text).join('').includes(value), `line ${i + 1}: ${value}`);
      paths++;
    }
  });
  assert.equal(paths, 5);
});

test('JSON: string values that start with a root are paths, with the same parts', async () => {
  const [tokens] = await tokenize(JSON_SCOPE, '{"path": "context.foreach.\\"orders.v2\\".item", "over": "input.customers"}');
  assert.deepEqual(segmentsOf(tokens), [
    ...ORDERS_V2_ITEM('\\"'),
    ['input', 'root'],
    ['.', 'dot'],
    ['customers', 'member'],
  ]);
  // The JSON grammar still owns the structure around the path.
  assert.ok(has(tokenWith(tokens, ','), 'punctuation.separator.dictionary.pair.json'));
  assert.ok(has(tokenWith(tokens, 'path'), 'support.type.property-name.json'));
});

test('JSON: keys and other strings are left to the JSON grammar', async () => {
  const [tokens] = await tokenize(JSON_SCOPE, '{"context": "hello context.x", "as": "order", "to": ["orders.v2"]}');
  assert.ok(!tokens.some((t) => has(t, PATH)), describe(tokens));
  assert.ok(has(tokenWith(tokens, 'context'), 'support.type.property-name.json'));
});

test('JSON: the example workflow in its JSON form highlights every path', async () => {
  const text = readFileSync(path.join(extensionRoot, 'test/fixtures/billing.wf.json'), 'utf8');
  const all = (await tokenize(JSON_SCOPE, text)).flat();
  assert.ok(!all.some((t) => t.scopes.some((s) => s.startsWith('invalid'))), 'no invalid scopes');
  const roots = all.filter((t) => has(t, ROOT)).map((t) => t.text);
  // output target and path, two overs, two input paths, the charge output target
  assert.deepEqual(roots.sort(), ['context', 'context', 'context', 'input', 'state', 'state']);
  assert.equal(all.filter((t) => has(t, FOREACH)).length, 3);
});

test('the JSON injection carries the same path rules as the TOML grammar', () => {
  const read = (file) => JSON.parse(readFileSync(path.join(extensionRoot, 'syntaxes', file), 'utf8'));
  const toml = read('wf-toml.tmLanguage.json');
  const injection = read('wf-json-paths.tmLanguage.json');
  assert.deepEqual(injection.repository['path-basic-body'], toml.repository['path-basic-body']);
});

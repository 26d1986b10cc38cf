// Semantic tokens: the manifest maps the server's legend to the grammar's own
// scopes, so that a path string keeps its colours when the server's tokens
// arrive, and names the grammar cannot know (loop ids, node ids, node defs,
// aliases, outcomes) get scopes of their own.
//
// The one source of truth for the legend is the server's
// server/wfls/features/semantic_legend.json. test/fixtures/billing.tokens.json
// is what the server answers for the fixtures (kept up to date by the Python
// test tests/features/test_semantic_tokens.py).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { extensionRoot, manifest } from './support/manifest.mjs';
import { tokenize } from './support/textmate.mjs';

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const legend = readJson(path.join(extensionRoot, '../../server/wfls/features/semantic_legend.json'));
const served = readJson(path.join(extensionRoot, 'test/fixtures/billing.tokens.json'));

// The token types LSP predefines (3.17); VS Code knows these without a contribution.
const STANDARD_TYPES = [
  'namespace', 'type', 'class', 'enum', 'interface', 'struct', 'typeParameter', 'parameter',
  'variable', 'property', 'enumMember', 'event', 'function', 'method', 'macro', 'keyword',
  'modifier', 'comment', 'string', 'number', 'regexp', 'operator', 'decorator',
];
const STANDARD_MODIFIERS = [
  'declaration', 'definition', 'readonly', 'static', 'deprecated', 'abstract', 'async',
  'modification', 'documentation', 'defaultLibrary',
];

/** Every scope name a grammar of the extension assigns. */
function grammarScopes() {
  const names = new Set();
  const visit = (value) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if ((key === 'name' || key === 'contentName') && typeof inner === 'string') {
          for (const scope of inner.split(/\s+/)) names.add(scope);
        } else visit(inner);
      }
    }
  };
  for (const g of manifest.contributes.grammars) visit(readJson(path.join(extensionRoot, g.path)));
  return names;
}

const scopeEntries = manifest.contributes.semanticTokenScopes;

test('the manifest maps every type of the legend, for TOML and JSON workflows alike', () => {
  assert.deepEqual(scopeEntries.map((e) => e.language), ['wf-toml', 'json']);
  for (const entry of scopeEntries) {
    assert.deepEqual(Object.keys(entry.scopes), legend.tokenTypes, entry.language);
    assert.deepEqual(entry.scopes, scopeEntries[0].scopes);
    for (const scopes of Object.values(entry.scopes)) {
      assert.ok(scopes.length > 0 && scopes.every((s) => s.endsWith('.wf')), JSON.stringify(scopes));
    }
  }
});

test('the types LSP does not predefine are contributed, and only those', () => {
  const custom = legend.tokenTypes.filter((t) => !STANDARD_TYPES.includes(t));
  assert.deepEqual(manifest.contributes.semanticTokenTypes.map((t) => t.id), custom);
  for (const t of manifest.contributes.semanticTokenTypes) assert.ok(t.description, t.id);
  for (const m of legend.tokenModifiers) assert.ok(STANDARD_MODIFIERS.includes(m), m);
  assert.equal(manifest.contributes.semanticTokenModifiers, undefined);
});

test('path parts keep the scopes the grammar gives them', () => {
  const scopes = scopeEntries[0].scopes;
  const known = grammarScopes();
  assert.equal(scopes.variable[0], 'variable.language.root.wf');
  assert.equal(scopes.keyword[0], 'keyword.other.foreach.wf');
  assert.equal(scopes.property[0], 'variable.other.member.wf');
  for (const type of ['variable', 'keyword', 'property', 'unresolvedReference']) {
    assert.ok(known.has(scopes[type][0]), `${type}: ${scopes[type][0]} is not a grammar scope`);
  }
  // Names the grammar cannot tell apart get scopes of their own, not a grammar's.
  for (const type of ['namespace', 'function', 'type', 'parameter', 'enumMember']) {
    assert.ok(!known.has(scopes[type][0]), type);
  }
});

for (const [file, scopeName] of [
  ['billing.wf.toml', 'source.wf-toml'],
  ['billing.wf.json', 'source.json'],
]) {
  test(`the server's tokens of ${file} agree with the grammar`, async () => {
    const text = readFileSync(path.join(extensionRoot, 'test/fixtures', file), 'utf8');
    const lines = await tokenize(scopeName, text);
    const scopes = scopeEntries[0].scopes;
    const known = grammarScopes();
    const tokens = served[file];
    assert.ok(tokens.length > 20, `${file}: ${tokens.length} tokens`);
    for (const [line, start, length, type, modifiers] of tokens) {
      assert.ok(legend.tokenTypes.includes(type), type);
      for (const m of modifiers) assert.ok(legend.tokenModifiers.includes(m), m);
      let offset = 0;
      const covering = [];
      for (const t of lines[line]) {
        const end = offset + t.text.length;
        if (end > start && offset < start + length) covering.push(t);
        offset = end;
      }
      const where = `${file}:${line + 1}:${start + 1} ${type}`;
      assert.ok(covering.length > 0, where);
      // Semantic tokens colour names inside strings, never keys or punctuation.
      for (const t of covering) {
        assert.ok(t.scopes.some((s) => s.startsWith('string.') || s === 'meta.path.wf'), `${where}: ${t.scopes}`);
      }
      // Where the grammar has a scope of its own for the part (a root, foreach, a bare
      // member), the semantic token maps to that very scope.
      const mapped = scopes[type][0];
      const bare = covering.every((t) => !t.scopes.some((s) => s.startsWith('string.quoted.segment')));
      if (known.has(mapped) && bare && covering.some((t) => t.scopes.includes('meta.path.wf'))) {
        for (const t of covering) assert.ok(t.scopes.includes(mapped), `${where}: ${t.scopes} lacks ${mapped}`);
      }
    }
  });
}

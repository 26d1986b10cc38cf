// Loads dist/extension.js as the extension host would, with `vscode`
// replaced by a stand-in (the real module exists only inside VS Code).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { extensionRoot, manifest } from './support/manifest.mjs';

const require = createRequire(import.meta.url);
const Module = require('node:module');
const bundlePath = path.join(extensionRoot, manifest.main);

// vscode-languageclient subclasses a few vscode classes (CompletionItem,
// CodeAction, ...) when it loads, so every member of the stand-in is a class.
const vscodeStandIn = new Proxy({}, { get: (_, name) => (typeof name === 'string' ? class {} : undefined) });

function loadBundle() {
  const requested = new Set();
  const original = Module._load;
  Module._load = function (request, parent, isMain) {
    if (parent?.filename === bundlePath) requested.add(request);
    if (request === 'vscode') return vscodeStandIn;
    return original.call(this, request, parent, isMain);
  };
  try {
    delete require.cache[bundlePath];
    return { exports: require(bundlePath), requested };
  } finally {
    Module._load = original;
  }
}

test('the bundle exists (npm run build)', () => {
  assert.ok(existsSync(bundlePath), `${manifest.main} is missing: run npm run build first`);
});

test('the bundle loads and exports activate and deactivate', () => {
  const { exports } = loadBundle();
  assert.equal(typeof exports.activate, 'function');
  assert.equal(typeof exports.deactivate, 'function');
});

test('the bundle needs nothing at run time but vscode and node built-ins', () => {
  // The .vsix ships without node_modules, so anything else would fail to load in VS Code.
  const { requested } = loadBundle();
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  const foreign = [...requested].filter((r) => r !== 'vscode' && !builtins.has(r));
  assert.deepEqual(foreign, []);
  assert.ok(requested.has('vscode'));
});

// Packages the extension the way `npm run package` does, into a temporary
// folder (so this test does not depend on a .vsix left from an earlier run),
// and checks that the .vsix holds what VS Code loads and nothing else.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { extensionRoot, manifest } from './support/manifest.mjs';
import { listZip, readZipEntry } from './support/zip.mjs';

const require = createRequire(import.meta.url);
const vsceBin = path.join(path.dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');

let tmp;
let vsix;
let entries;
let said;

before(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'wfls-vsix-'));
  const out = path.join(tmp, 'wfls.vsix');
  // Same flags as the `package` script; vsce runs `vscode:prepublish` (the build) itself.
  const run = spawnSync(process.execPath, [vsceBin, 'package', '--no-dependencies', '-o', out], {
    cwd: extensionRoot,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  said = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.status, 0, said);
  vsix = readFileSync(out);
  entries = listZip(vsix);
});

after(() => rmSync(tmp, { recursive: true, force: true }));

test('vsce packages without a warning', () => {
  assert.doesNotMatch(said, /WARNING/i, said);
  assert.match(said, /DONE/);
});

test('the vsix holds exactly the bundle, graph view, grammars, language configuration, manifest, README, LICENSE, notices and icon', () => {
  assert.deepEqual(entries.map((e) => e.name).sort(), [
    '[Content_Types].xml',
    'extension.vsixmanifest',
    'extension/LICENSE.txt',
    'extension/ThirdPartyNotices.txt',
    'extension/dist/extension.js',
    'extension/dist/graph-view-style.css',
    'extension/dist/graph-view.js',
    'extension/images/icon.png',
    'extension/language-configuration.json',
    'extension/package.json',
    'extension/readme.md',
    'extension/syntaxes/wf-json-paths.tmLanguage.json',
    'extension/syntaxes/wf-test-toml.tmLanguage.json',
    'extension/syntaxes/wf-toml.tmLanguage.json',
  ]);
});

test('the packaged manifest is the project manifest', () => {
  const entry = entries.find((e) => e.name === 'extension/package.json');
  const packaged = JSON.parse(readZipEntry(vsix, entry).toString('utf8'));
  assert.equal(packaged.name, manifest.name);
  assert.equal(packaged.main, manifest.main);
  assert.deepEqual(packaged.contributes, manifest.contributes);
  assert.deepEqual(packaged.activationEvents, manifest.activationEvents);
});

test('the packaged bundle is the build output, with vscode-languageclient inside', () => {
  const entry = entries.find((e) => e.name === 'extension/dist/extension.js');
  const bundle = readZipEntry(vsix, entry);
  assert.deepEqual(bundle, readFileSync(path.join(extensionRoot, manifest.main)));
  // No node_modules ship (--no-dependencies), so the client must be bundled.
  assert.ok(bundle.includes('textDocument/publishDiagnostics'));
  assert.ok(!entries.some((e) => e.name.includes('node_modules/')));
});

test('the packaged grammars are the ones in syntaxes/', () => {
  for (const grammar of manifest.contributes.grammars) {
    const name = path.posix.join('extension', grammar.path);
    const entry = entries.find((e) => e.name === name);
    assert.ok(entry, `${name} is in the vsix`);
    assert.deepEqual(readZipEntry(vsix, entry), readFileSync(path.join(extensionRoot, grammar.path)));
  }
});

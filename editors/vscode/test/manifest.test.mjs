// package.json is what VS Code reads to decide when to load the extension and
// what it contributes; a mistake there fails silently in the editor.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { extensionRoot, manifest } from './support/manifest.mjs';

const readJson = (relative) => JSON.parse(readFileSync(path.join(extensionRoot, relative), 'utf8'));
const properties = manifest.contributes.configuration.properties;

test('main is the esbuild bundle', () => {
  assert.equal(manifest.main, './dist/extension.js');
  const build = readFileSync(path.join(extensionRoot, 'esbuild.mjs'), 'utf8');
  assert.match(build, /outfile: 'dist\/extension\.js'/);
});

test('publishing fields are present, and the licence file exists', () => {
  assert.equal(manifest.license, 'MIT');
  assert.match(readFileSync(path.join(extensionRoot, 'LICENSE'), 'utf8'), /^MIT License/);
  assert.ok(manifest.publisher);
  assert.ok(manifest.repository?.url);
  assert.equal(manifest.engines.vscode, '^1.90.0');
  // vsce refuses @types/vscode newer than the engine: the API used must exist in 1.90.
  assert.match(manifest.devDependencies['@types/vscode'], /^~1\.90\./);
});

test('the extension activates for *.wf.toml and *.wf.json and for its commands', () => {
  for (const event of [
    'onLanguage:wf-toml',
    'workspaceContains:**/*.wf.toml',
    'workspaceContains:**/*.wf.json',
    'onCommand:wfls.restartServer',
    'onCommand:wfls.showOutput',
  ]) {
    assert.ok(manifest.activationEvents.includes(event), event);
  }
});

test('wf-toml is a language for *.wf.toml; *.wf.json stays JSON', () => {
  const languages = manifest.contributes.languages;
  const wfToml = languages.find((l) => l.id === 'wf-toml');
  assert.deepEqual(wfToml.filenamePatterns, ['*.wf.toml']);
  assert.ok(!languages.some((l) => (l.filenamePatterns ?? []).some((p) => p.includes('.json'))));
  assert.ok(!languages.some((l) => l.id === 'json'));
});

test('the language configuration comments with # and pairs every TOML quote kind', () => {
  const wfToml = manifest.contributes.languages.find((l) => l.id === 'wf-toml');
  const config = readJson(wfToml.configuration);
  assert.equal(config.comments.lineComment, '#');
  assert.deepEqual(config.brackets, [
    ['[', ']'],
    ['{', '}'],
  ]);
  const opens = config.autoClosingPairs.map((p) => p.open);
  for (const open of ['[', '{', '"', "'", '"""', "'''"]) assert.ok(opens.includes(open), open);
  const surrounding = config.surroundingPairs.map(([open]) => open);
  for (const open of ['[', '{', '"', "'"]) assert.ok(surrounding.includes(open), open);
});

test('each grammar file exists and declares the scope the manifest gives it', () => {
  for (const g of manifest.contributes.grammars) {
    assert.ok(existsSync(path.join(extensionRoot, g.path)), g.path);
    assert.equal(readJson(g.path).scopeName, g.scopeName);
  }
  const toml = manifest.contributes.grammars.find((g) => g.language === 'wf-toml');
  assert.equal(toml.scopeName, 'source.wf-toml');
  assert.equal(toml.path, './syntaxes/wf-toml.tmLanguage.json');
  const injection = manifest.contributes.grammars.find((g) => g.injectTo);
  assert.deepEqual(injection.injectTo, ['source.json']);
  assert.ok(readJson(injection.path).injectionSelector);
  assert.equal(injection.language, undefined, 'an injection grammar must not claim a language');
});

test('both commands are contributed, titled, and registered by the bundle', () => {
  const commands = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
  assert.deepEqual(commands, {
    'wfls.restartServer': 'wfls: Restart Server',
    'wfls.showOutput': 'wfls: Show Server Output',
  });
  const source = readFileSync(path.join(extensionRoot, 'src/extension.ts'), 'utf8');
  for (const id of Object.keys(commands)) assert.ok(source.includes(`registerCommand('${id}'`), id);
});

test('the client settings have the documented defaults', () => {
  assert.equal(properties['wfls.server.path'].default, 'wfls');
  assert.equal(properties['wfls.server.pythonPath'].default, '');
  assert.deepEqual(properties['wfls.server.args'].default, []);
  assert.equal(properties['wfls.server.args'].items.type, 'string');
  assert.equal(properties['wfls.trace.server'].default, 'off');
  assert.deepEqual(properties['wfls.trace.server'].enum, ['off', 'messages', 'verbose']);
});

test('the server-side settings have the types and defaults the server expects', () => {
  assert.deepEqual(properties['wfls.undeclaredPropertySeverity'].enum, ['error', 'warning', 'information', 'hint', 'off']);
  assert.equal(properties['wfls.undeclaredPropertySeverity'].default, 'warning');
  assert.equal(properties['wfls.hintDeprecatedKeys'].type, 'boolean');
  assert.equal(properties['wfls.hintDeprecatedKeys'].default, true);
  assert.equal(properties['wfls.extraGlobs'].type, 'array');
  assert.equal(properties['wfls.extraGlobs'].items.type, 'string');
  assert.deepEqual(properties['wfls.extraGlobs'].default, []);
});

test('every setting is under wfls. so that the section `wfls` carries it', () => {
  for (const key of Object.keys(properties)) assert.match(key, /^wfls\./);
  const source = readFileSync(path.join(extensionRoot, 'src/extension.ts'), 'utf8');
  assert.match(source, /configurationSection: 'wfls'/);
});

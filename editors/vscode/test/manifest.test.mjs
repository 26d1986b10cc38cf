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
  assert.deepEqual(manifest.repository, {
    type: 'git',
    url: 'https://github.com/lda-wf/wfls',
    directory: 'editors/vscode',
  });
  assert.equal(manifest.engines.vscode, '^1.90.0');
  // vsce refuses @types/vscode newer than the engine: the API used must exist in 1.90.
  assert.match(manifest.devDependencies['@types/vscode'], /^~1\.90\./);
});

test('the icon is a 128×128 PNG', () => {
  const png = readFileSync(path.join(extensionRoot, manifest.icon));
  assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
  assert.ok(png.length < 16_000);
});

test('the extension activates for workflows and their test documents (contributed commands activate it by themselves)', () => {
  assert.deepEqual(manifest.activationEvents, [
    'onLanguage:wf-toml',
    'workspaceContains:**/*.wf.toml',
    'workspaceContains:**/*.wf.json',
    'onLanguage:wf-test-toml',
    'workspaceContains:**/*.wf.test.toml',
    'workspaceContains:**/*.wf.test.json',
    'onDebugResolve:wfls',
    'onDebugInitialConfigurations',
  ]);
});

test('the wfls debugger: breakpoints in workflows only, launch and attach with the adapter’s arguments', () => {
  assert.deepEqual(manifest.contributes.breakpoints, [
    { language: 'wf-toml' },
    { language: 'json', when: 'resourceFilename =~ /\\.wf\\.json$/' },
  ]);
  const [debug] = manifest.contributes.debuggers;
  assert.equal(debug.type, 'wfls');
  const launch = debug.configurationAttributes.launch;
  const attach = debug.configurationAttributes.attach;
  assert.equal(launch.required, undefined); // program, or tests and case
  assert.deepEqual(attach.required, ['program', 'run']);
  // What wfls.debug.target reads, and nothing it does not.
  const shared = ['program', 'handlers', 'outcomes', 'answers', 'maxSteps', 'root', 'stopOnEntry'];
  assert.deepEqual(Object.keys(launch.properties).sort(), [...shared, 'input', 'seed', 'tests', 'case'].sort());
  assert.deepEqual(Object.keys(attach.properties).sort(), [...shared, 'run'].sort());
  assert.deepEqual(debug.initialConfigurations.map((c) => [c.type, c.request, c.program]), [
    ['wfls', 'launch', '${file}'],
  ]);
  assert.deepEqual(debug.configurationSnippets.map((s) => s.body.request), ['launch', 'attach']);
});

test('wf-test-toml is a language for *.wf.test.toml, highlighted by the workflow grammar', () => {
  const wfTestToml = manifest.contributes.languages.find((l) => l.id === 'wf-test-toml');
  assert.deepEqual(wfTestToml.filenamePatterns, ['*.wf.test.toml']);
  const grammar = manifest.contributes.grammars.find((g) => g.language === 'wf-test-toml');
  assert.deepEqual(readJson(grammar.path).patterns, [{ include: 'source.wf-toml' }]);
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

test('the commands are contributed, titled, and registered by the bundle', () => {
  const commands = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
  assert.deepEqual(commands, {
    'wfls.restartServer': 'wfls: Restart Server',
    'wfls.showOutput': 'wfls: Show Server Output',
    'wfls.showNodeContext': 'wfls: Show Context at Node',
    'wfls.runWithSampleInput': 'wfls: Run with Sample Input',
    'wfls.showGraph': 'wfls: Show Graph',
  });
  const source = readFileSync(path.join(extensionRoot, 'src/extension.ts'), 'utf8');
  for (const id of Object.keys(commands)) assert.ok(source.includes(`registerCommand('${id}'`), id);
  // Commands the server advertises are registered by the language client under
  // their own names: none of ours may take one of them.
  for (const id of ['wfls.ownerStack', 'wfls.nodeContext', 'wfls.runWorkflow', 'wfls.graph']) assert.ok(!(id in commands), id);
});

test('the document commands are offered for workflow documents only', () => {
  const palette = Object.fromEntries(manifest.contributes.menus.commandPalette.map((m) => [m.command, m.when]));
  assert.match(palette['wfls.showNodeContext'], /resourceFilename =~ \/\\\.wf\\\.\(toml\|json\)\$\//);
  assert.match(palette['wfls.runWithSampleInput'], /wfls\.canRunWorkflow/);
  assert.match(palette['wfls.showGraph'], /resourceFilename =~ \/\\\.wf\\\.\(toml\|json\)\$\//);
  const title = manifest.contributes.menus['editor/title'].find((m) => m.command === 'wfls.showGraph');
  assert.equal(title.when, palette['wfls.showGraph']);
});

test('the client settings have the documented defaults', () => {
  assert.equal(properties['wfls.server.path'].default, '');
  assert.equal(properties['wfls.server.pythonPath'].default, '');
  assert.deepEqual(properties['wfls.server.args'].default, []);
  assert.equal(properties['wfls.server.args'].items.type, 'string');
  assert.equal(properties['wfls.trace.server'].default, 'off');
  assert.deepEqual(properties['wfls.trace.server'].enum, ['off', 'messages', 'verbose']);
});

// In code-server, with a user settings file that VS Code rewrites at start-up
// ("extensions.autoUpdate": false becomes "off"), settings of scope
// machine-overridable never reached the extension (their user value was
// dropped, with no change event later), so the server path was ignored.
test('the launch settings are window-scoped, and a workspace cannot set them without trust', () => {
  const launch = Object.keys(properties).filter((key) => key.startsWith('wfls.server.'));
  assert.deepEqual(launch.sort(), ['wfls.server.args', 'wfls.server.path', 'wfls.server.pythonPath']);
  for (const key of launch) assert.equal(properties[key].scope, 'window', key);
  const untrusted = manifest.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, 'limited');
  assert.deepEqual(untrusted.restrictedConfigurations.sort(), launch.sort());
});

test('the server-side settings have the types and defaults the server expects', () => {
  assert.deepEqual(properties['wfls.undeclaredPropertySeverity'].enum, ['error', 'warning', 'information', 'hint', 'off']);
  assert.equal(properties['wfls.undeclaredPropertySeverity'].default, 'warning');
  assert.equal(properties['wfls.hintDeprecatedKeys'].type, 'boolean');
  assert.equal(properties['wfls.hintDeprecatedKeys'].default, true);
  const hints = { itemTypes: true, pathTypes: true, ownerStacks: false };
  for (const [key, value] of Object.entries(hints)) {
    assert.equal(properties[`wfls.inlayHints.${key}`].type, 'boolean', key);
    assert.equal(properties[`wfls.inlayHints.${key}`].default, value, key);
  }
  // The bounds and default of wfls fmt --width (server/wfls/settings.py).
  const width = properties['wfls.format.width'];
  assert.deepEqual([width.type, width.default, width.minimum, width.maximum], ['integer', 100, 20, 1000]);
  // The canonical style's indentation, which formatting takes from the editor.
  assert.deepEqual(manifest.contributes.configurationDefaults['[wf-toml]'], {
    'editor.tabSize': 2,
    'editor.insertSpaces': true,
  });
});

test('every setting is documented in the README with its default', () => {
  const readme = readFileSync(path.join(extensionRoot, 'README.md'), 'utf8').split('\n');
  for (const [key, spec] of Object.entries(properties)) {
    const row = readme.find((line) => line.startsWith(`| \`${key}\` |`));
    assert.ok(row, `${key} has a row in the settings table`);
    const shown = spec.default === '' ? '(empty)' : `\`${typeof spec.default === 'string' ? spec.default : JSON.stringify(spec.default)}\``;
    assert.equal(row.split('|')[2].trim(), shown, key);
  }
});

test('the settings sent at initialize are the server-side ones the manifest declares', () => {
  const source = readFileSync(path.join(extensionRoot, 'src/extension.ts'), 'utf8');
  const sent = /SERVER_SIDE_SETTINGS = \[([^\]]*)\]/.exec(source)[1].match(/'([^']+)'/g).map((s) => s.slice(1, -1));
  const declared = Object.keys(properties)
    .filter((key) => !key.startsWith('wfls.server.') && !key.startsWith('wfls.trace.'))
    .map((key) => key.slice('wfls.'.length));
  assert.deepEqual(sent.sort(), declared.sort());
});

test('every setting is under wfls. so that the section `wfls` carries it', () => {
  for (const key of Object.keys(properties)) assert.match(key, /^wfls\./);
});

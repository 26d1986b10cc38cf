// The launch command built from the settings. src/server.ts does not import
// vscode, so it is compiled on the fly with esbuild and run here directly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import path from 'node:path';
import { extensionRoot } from './support/manifest.mjs';

const compiled = await esbuild.build({
  entryPoints: [path.join(extensionRoot, 'src/server.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  write: false,
});
const { serverCommand, DEFAULT_SERVER_PATH, SERVER_SIDE_SETTINGS } = await import(
  `data:text/javascript;base64,${Buffer.from(compiled.outputFiles[0].text).toString('base64')}`
);

const ctx = { homeDir: '/home/ada', workspaceFolder: '/work/flows' };
const unset = { path: 'wfls', pythonPath: '', args: [] };

test('by default the server is `wfls serve` from PATH', () => {
  assert.equal(DEFAULT_SERVER_PATH, 'wfls');
  assert.deepEqual(serverCommand(unset, ctx), { command: 'wfls', args: ['serve'] });
});

test('wfls.server.path replaces the executable', () => {
  assert.deepEqual(serverCommand({ ...unset, path: '/opt/wfls/bin/wfls' }, ctx), {
    command: '/opt/wfls/bin/wfls',
    args: ['serve'],
  });
});

test('wfls.server.pythonPath runs the package as a module and wins over the path', () => {
  assert.deepEqual(serverCommand({ ...unset, path: '/opt/wfls', pythonPath: '/usr/bin/python3' }, ctx), {
    command: '/usr/bin/python3',
    args: ['-m', 'wfls', 'serve'],
  });
});

test('wfls.server.args come after serve, for both launch forms', () => {
  const args = ['--log-level', 'debug'];
  assert.deepEqual(serverCommand({ ...unset, args }, ctx).args, ['serve', '--log-level', 'debug']);
  assert.deepEqual(serverCommand({ ...unset, pythonPath: 'python3', args }, ctx).args, [
    '-m',
    'wfls',
    'serve',
    '--log-level',
    'debug',
  ]);
});

test('~ and ${workspaceFolder} are expanded', () => {
  assert.equal(serverCommand({ ...unset, path: '~/.local/bin/wfls' }, ctx).command, '/home/ada/.local/bin/wfls');
  assert.equal(
    serverCommand({ ...unset, pythonPath: '${workspaceFolder}/.venv/bin/python' }, ctx).command,
    '/work/flows/.venv/bin/python',
  );
  // Without a folder the variable stays, so the launch error shows what was written.
  assert.equal(
    serverCommand({ ...unset, pythonPath: '${workspaceFolder}/python' }, { homeDir: '/h' }).command,
    '${workspaceFolder}/python',
  );
});

test('settings of the wrong type fall back to the defaults', () => {
  assert.deepEqual(serverCommand({ path: 42, pythonPath: null, args: 'serve --x' }, ctx), {
    command: 'wfls',
    args: ['serve'],
  });
  assert.deepEqual(serverCommand({ path: '  ', pythonPath: '   ', args: ['--a', 3, null, '--b'] }, ctx), {
    command: 'wfls',
    args: ['serve', '--a', '--b'],
  });
});

test('the server-side settings sent at initialize are the ones the manifest declares', async () => {
  const { manifest } = await import('./support/manifest.mjs');
  const declared = Object.keys(manifest.contributes.configuration.properties)
    .filter((key) => !key.startsWith('wfls.server.') && !key.startsWith('wfls.trace.'))
    .map((key) => key.slice('wfls.'.length));
  assert.deepEqual([...SERVER_SIDE_SETTINGS].sort(), declared.sort());
});

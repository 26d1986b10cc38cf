// Finding the server: the order of the candidates, what counts as working,
// and the log of everything tried. Candidates are real executables in a
// temporary folder (shell scripts that answer --version like wfls does).
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, beforeEach, test } from 'node:test';
import { loadSource } from './support/load.mjs';
import { createVscodeStub } from './support/vscode-stub.mjs';

const stub = createVscodeStub();
const discovery = await loadSource('discovery', stub);
const root = mkdtempSync(path.join(os.tmpdir(), 'wfls-discovery-'));
after(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
let sandbox;
beforeEach(() => {
  sandbox = path.join(root, String(++n));
  mkdirSync(sandbox);
});

/** An executable at `relative` that prints `said` when given --version, and exits 0. */
function fakeServer(relative, said = 'wfls 9.1.0') {
  const file = path.join(sandbox, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\nfor a in "$@"; do [ "$a" = --version ] && echo "${said}"; done\nexit 0\n`);
  chmodSync(file, 0o755);
  return file;
}

function inputs(overrides = {}) {
  const lines = [];
  return {
    settings: { path: '', pythonPath: '', args: [] },
    folders: [],
    trusted: true,
    platform: 'linux',
    env: { PATH: path.join(sandbox, 'nowhere') },
    homeDir: '/home/ada',
    pythonInterpreter: async () => undefined,
    run: (command, args) => discovery.runForOutput(command, args),
    log: (line) => lines.push(line),
    lines,
    ...overrides,
  };
}

test('wfls.server.path comes first, and its version is read from --version', async () => {
  const setting = fakeServer('custom/wfls', 'wfls 2.0.1');
  const folder = path.join(sandbox, 'ws');
  fakeServer('ws/.venv/bin/wfls');
  const found = await discovery.findServer(inputs({ settings: { path: setting, pythonPath: '', args: [] }, folders: [folder] }));
  assert.equal(found.command, setting);
  assert.deepEqual(found.prefix, []);
  assert.equal(found.source, 'wfls.server.path');
  assert.equal(found.version, '2.0.1');
});

test('a workspace .venv comes before venv, the Python extension and PATH', async () => {
  const folder = path.join(sandbox, 'ws');
  const venv = fakeServer('ws/.venv/bin/wfls', 'wfls 1.0.0');
  fakeServer('ws/venv/bin/wfls');
  fakeServer('bin/wfls');
  const found = await discovery.findServer(
    inputs({ folders: [folder], env: { PATH: path.join(sandbox, 'bin') }, pythonInterpreter: async () => '/usr/bin/python3' }),
  );
  assert.equal(found.command, venv);
  assert.equal(found.source, '.venv of the workspace folder');
});

test('venv is used when there is no .venv', async () => {
  const folder = path.join(sandbox, 'ws');
  const venv = fakeServer('ws/venv/bin/wfls');
  const found = await discovery.findServer(inputs({ folders: [folder] }));
  assert.equal(found.command, venv);
});

test('on Windows the virtual environment has Scripts/wfls.exe', async () => {
  const folder = path.join(sandbox, 'ws');
  const exe = path.join(folder, '.venv', 'Scripts', 'wfls.exe');
  mkdirSync(path.dirname(exe), { recursive: true });
  writeFileSync(exe, '');
  const ran = [];
  const found = await discovery.findServer(
    inputs({ folders: [folder], platform: 'win32', env: { Path: '' }, run: async (c, a) => (ran.push([c, ...a]), 'wfls 3.0\r\n') }),
  );
  assert.equal(found.command, exe);
  assert.deepEqual(ran, [[exe, '--version']]);
});

test('an untrusted workspace does not run its own virtual environment', async () => {
  const folder = path.join(sandbox, 'ws');
  fakeServer('ws/.venv/bin/wfls');
  const onPath = fakeServer('bin/wfls');
  const options = inputs({ folders: [folder], trusted: false, env: { PATH: path.join(sandbox, 'bin') } });
  const found = await discovery.findServer(options);
  assert.equal(found.command, onPath);
  assert.ok(options.lines.some((l) => l.includes('not trusted')));
});

test("the Python extension's interpreter runs the package as a module", async () => {
  const ran = [];
  const found = await discovery.findServer(
    inputs({
      pythonInterpreter: async () => '/envs/a/bin/python',
      run: async (command, args) => (ran.push([command, ...args]), 'wfls 0.1.0\n'),
    }),
  );
  assert.deepEqual([found.command, ...found.prefix], ['/envs/a/bin/python', '-m', 'wfls']);
  assert.deepEqual(ran, [['/envs/a/bin/python', '-m', 'wfls', '--version']]);
  assert.equal(found.version, '0.1.0');
});

test('an interpreter without wfls does not count: PATH is next', async () => {
  const onPath = fakeServer('bin/wfls');
  const options = inputs({
    env: { PATH: path.join(sandbox, 'bin') },
    pythonInterpreter: async () => path.join(sandbox, 'python-without-wfls'),
  });
  fakeServer('python-without-wfls', 'No module named wfls'); // answers, but not as wfls
  const found = await discovery.findServer(options);
  assert.equal(found.command, onPath);
  assert.equal(found.source, 'PATH');
  assert.ok(options.lines.some((l) => l.includes('not "wfls <version>"')));
});

test('a wfls.server.path that does not exist falls through, and says so', async () => {
  const folder = path.join(sandbox, 'ws');
  const venv = fakeServer('ws/.venv/bin/wfls');
  const options = inputs({ settings: { path: '/nowhere/wfls', pythonPath: '', args: [] }, folders: [folder] });
  const found = await discovery.findServer(options);
  assert.equal(found.command, venv);
  assert.ok(options.lines.some((l) => l.includes('/nowhere/wfls is not an executable file')));
});

test('a name in wfls.server.path is looked up on PATH', async () => {
  const named = fakeServer('bin/wfls-dev');
  const found = await discovery.findServer(
    inputs({ settings: { path: 'wfls-dev', pythonPath: '', args: [] }, env: { PATH: `/nowhere:${path.join(sandbox, 'bin')}` } }),
  );
  assert.equal(found.command, named);
});

test('nothing found: undefined, and the log names every candidate tried', async () => {
  const folder = path.join(sandbox, 'ws');
  const options = inputs({ folders: [folder], pythonInterpreter: async () => undefined });
  assert.equal(await discovery.findServer(options), undefined);
  const log = options.lines.join('\n');
  for (const expected of [
    'wfls.server.path: not set',
    'wfls.server.pythonPath: not set',
    `.venv of ${folder}: no ${path.join(folder, '.venv', 'bin', 'wfls')}`,
    `venv of ${folder}: no`,
    'Python extension: not installed',
    'PATH: no wfls in',
  ]) {
    assert.ok(log.includes(expected), `${expected} in\n${log}`);
  }
});

test('a server that fails --version does not count', async () => {
  const broken = path.join(sandbox, 'broken');
  writeFileSync(broken, '#!/bin/sh\necho boom >&2\nexit 3\n');
  chmodSync(broken, 0o755);
  const options = inputs({ settings: { path: broken, pythonPath: '', args: [] } });
  assert.equal(await discovery.findServer(options), undefined);
  assert.ok(options.lines.some((l) => l.includes('--version failed') && l.includes('boom')));
});

test('~ and ${workspaceFolder} are expanded', () => {
  assert.equal(discovery.expandPath('~/.local/bin/wfls', '/home/ada', '/ws'), '/home/ada/.local/bin/wfls');
  assert.equal(discovery.expandPath('${workspaceFolder}/.venv/bin/wfls', '/h', '/work/flows'), '/work/flows/.venv/bin/wfls');
  assert.equal(discovery.expandPath('${workspaceFolder}/x', '/h', undefined), '${workspaceFolder}/x');
});

test('settings of the wrong type read as unset', () => {
  stub.settings = { 'wfls.server.path': 42, 'wfls.server.pythonPath': '  /py  ', 'wfls.server.args': ['--a', 3, '--b'] };
  assert.deepEqual(discovery.readLaunchSettings(), { path: '', pythonPath: '/py', args: ['--a', '--b'] });
  stub.settings = { 'wfls.server.args': '--x' };
  assert.deepEqual(discovery.readLaunchSettings(), { path: '', pythonPath: '', args: [] });
});

test("the Python extension's API: the active environment, resolved to its executable", async () => {
  const asked = [];
  stub.extensions['ms-python.python'] = {
    isActive: false,
    activate: async () => ({
      environments: {
        getActiveEnvironmentPath: (resource) => (asked.push(resource), { path: '/envs/a' }),
        resolveEnvironment: async (env) => ({ executable: { uri: { fsPath: `${env.path}/bin/python` } } }),
      },
    }),
  };
  const folder = stub.vscode.Uri.file('/ws');
  assert.equal(await discovery.pythonExtensionInterpreter(folder), '/envs/a/bin/python');
  assert.deepEqual(asked, [folder]);

  stub.extensions['ms-python.python'] = {
    isActive: true,
    exports: { settings: { getExecutionDetails: () => ({ execCommand: ['/old/python'] }) } },
  };
  assert.equal(await discovery.pythonExtensionInterpreter(folder), '/old/python');

  delete stub.extensions['ms-python.python'];
  assert.equal(await discovery.pythonExtensionInterpreter(folder), undefined);
});

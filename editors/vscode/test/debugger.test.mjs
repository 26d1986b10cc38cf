// The wfls debugger's wiring, against the stub vscode: `wfls debug` started with the
// wfls the controller found, F5 without a launch.json debugging the open workflow and
// asking for its input (proposing <name>.input.json beside it), a cancelled dialog
// starting nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSource } from './support/load.mjs';
import { createVscodeStub } from './support/vscode-stub.mjs';

function debugStub() {
  const stub = createVscodeStub();
  stub.factories = {};
  stub.providers = {};
  stub.dialogs = [];
  stub.vscode.debug = {
    registerDebugAdapterDescriptorFactory(type, factory) {
      stub.factories[type] = factory;
      return { dispose() {} };
    },
    registerDebugConfigurationProvider(type, provider) {
      stub.providers[type] = provider;
      return { dispose() {} };
    },
  };
  stub.vscode.DebugAdapterExecutable = class {
    constructor(command, args, options) {
      Object.assign(this, { command, args, options });
    }
  };
  stub.vscode.Disposable = { from: (...items) => ({ dispose: () => items.forEach((i) => i.dispose()) }) };
  const showOpenDialog = stub.vscode.window.showOpenDialog;
  stub.vscode.window.showOpenDialog = async (options) => {
    stub.dialogs.push(options);
    return showOpenDialog(options);
  };
  return stub;
}

const found = { command: '/venv/bin/python', prefix: ['-m', 'wfls'], source: 'test', version: '0.1.0' };
const controller = (state) => ({ state, idle: async () => {} });

test('the adapter is `wfls debug` from the wfls the language server runs from', async () => {
  const stub = debugStub();
  stub.folders = ['/work'];
  const { registerDebugger } = await loadSource('debugger', stub);
  registerDebugger(controller({ kind: 'running', version: '0.1.0', found, commands: [] }));
  const adapter = await stub.factories.wfls.createDebugAdapterDescriptor({ workspaceFolder: undefined });
  assert.deepEqual([adapter.command, adapter.args, adapter.options], [
    '/venv/bin/python',
    ['-m', 'wfls', 'debug'],
    { cwd: '/work' },
  ]);
});

test('without a server there is no adapter, and the message says where to look', async () => {
  const stub = debugStub();
  const { registerDebugger } = await loadSource('debugger', stub);
  registerDebugger(controller({ kind: 'missing' }));
  await assert.rejects(stub.factories.wfls.createDebugAdapterDescriptor({}), /wfls: Show Output/);
});

test('F5 without a launch.json debugs the open workflow, with the input file picked', async () => {
  const stub = debugStub();
  const { registerDebugger } = await loadSource('debugger', stub);
  registerDebugger(controller({ kind: 'running', version: '0.1.0', found, commands: [] }));
  const provider = stub.providers.wfls;
  stub.openEditor('/work/examples/billing.wf.toml', 0, 0);
  stub.openDialogResult = [{ fsPath: '/work/examples/billing.input.json' }];
  const config = await provider.resolveDebugConfiguration(undefined, {});
  assert.deepEqual(config, {
    type: 'wfls',
    request: 'launch',
    name: 'Debug workflow',
    program: '/work/examples/billing.wf.toml',
    stopOnEntry: true,
    input: '/work/examples/billing.input.json',
  });
  assert.equal(stub.dialogs[0].defaultUri.fsPath, '/work/examples/billing.input.json');

  stub.openDialogResult = undefined; // cancelled: no session
  assert.equal(await provider.resolveDebugConfiguration(undefined, {}), undefined);

  // A launch configuration with its input is left as it is.
  const given = { type: 'wfls', request: 'launch', name: 'x', program: '/a.wf.toml', input: { customers: [] } };
  assert.equal(await provider.resolveDebugConfiguration(undefined, given), given);

  const aCase = { type: 'wfls', request: 'launch', name: 'x', program: '/a.wf.toml', tests: '/a.wf.test.toml' };
  assert.equal(await provider.resolveDebugConfiguration(undefined, aCase), aCase); // its own input
  assert.equal(stub.dialogs.length, 2);

  stub.openEditor('/work/notes.txt', 0, 0); // not a workflow: nothing to debug
  assert.equal(await provider.resolveDebugConfiguration(undefined, {}), undefined);
  assert.match(stub.infos.at(-1).message, /Open a workflow/);
});

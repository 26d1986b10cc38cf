// The server's life cycle: start, restarts on settings, the settings sent to a
// running server, start failures and deadlines. Clients are fakes that record
// what the controller asks of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSource } from './support/load.mjs';
import { createVscodeStub } from './support/vscode-stub.mjs';

const stub = createVscodeStub();
const { ServerController } = await loadSource('controller', stub);
const { readLaunchSettings } = await loadSource('discovery', stub);

class FakeClient {
  constructor(found, args, { start = async () => {}, version = '0.1.0', commands = ['wfls.ownerStack'] } = {}) {
    this.found = found;
    this.args = args;
    this.startImpl = start;
    this.initializeResult = undefined;
    this.result = { serverInfo: { name: 'wfls', version }, capabilities: { executeCommandProvider: { commands } } };
    this.notifications = [];
    this.requests = [];
    this.disposed = false;
    this.stateListeners = [];
  }
  async start() {
    await this.startImpl();
    this.initializeResult = this.result;
  }
  async dispose() {
    this.disposed = true;
  }
  async sendRequest(method, param) {
    this.requests.push([method, param]);
    return null;
  }
  async sendNotification(method, param) {
    this.notifications.push([method, param]);
  }
  onDidChangeState(listener) {
    this.stateListeners.push(listener);
    return { dispose() {} };
  }
}

/** A controller whose discovery finds `settings path` (or nothing when it is empty). */
function setup({ client = {}, startTimeoutMs } = {}) {
  const made = [];
  const log = [];
  const reports = { missing: 0, failures: [] };
  const controller = new ServerController({
    readSettings: readLaunchSettings,
    find: async (settings) =>
      settings.path ? { command: settings.path, prefix: [], source: 'wfls.server.path', version: '0.0.9' } : undefined,
    createClient: (found, args) => {
      const made_ = new FakeClient(found, args, typeof client === 'function' ? client(made.length) : client);
      made.push(made_);
      return made_;
    },
    serverSettings: () => ({ hintDeprecatedKeys: stub.settings['wfls.hintDeprecatedKeys'] }),
    log: (line) => log.push(line),
    reportMissing: () => reports.missing++,
    reportStartFailure: (found, reason) => reports.failures.push(reason),
    startTimeoutMs,
  });
  const states = [];
  controller.onDidChangeState((s) => states.push(s.kind));
  stub.vscode.workspace.onDidChangeConfiguration((e) => controller.onConfigurationChanged(e));
  return { controller, made, log, reports, states };
}

async function settle(controller) {
  await controller.idle();
}

test('start: the server found runs, with the version it reports', async () => {
  stub.settings = { 'wfls.server.path': '/venv/bin/wfls', 'wfls.server.args': ['--x'] };
  const { controller, made, states } = setup({ client: { version: '1.2.3', commands: ['wfls.ownerStack', 'wfls.nodeContext'] } });
  await controller.restart('Activated');
  assert.equal(made.length, 1);
  assert.equal(made[0].found.command, '/venv/bin/wfls');
  assert.deepEqual(made[0].args, ['--x']);
  assert.deepEqual(states, ['starting', 'running']);
  assert.equal(controller.state.version, '1.2.3');
  assert.deepEqual(controller.state.commands, ['wfls.ownerStack', 'wfls.nodeContext']);
  assert.equal(controller.running, made[0]);
  await controller.dispose();
  assert.equal(made[0].disposed, true);
});

test('nothing found: state "missing" and one report', async () => {
  stub.settings = {};
  const { controller, made, reports, log } = setup();
  await controller.restart('Activated');
  assert.equal(made.length, 0);
  assert.equal(controller.state.kind, 'missing');
  assert.equal(reports.missing, 1);
  assert.ok(log.includes('No wfls server was found.'));
  await controller.dispose();
});

// The defect seen in code-server: the extension read wfls.server.path before
// VS Code had applied the user settings, started without it, and the change
// that followed did not name wfls.server, so the server was never restarted.
test('a new wfls.server.path restarts the server even when the change names another key', async () => {
  stub.settings = {};
  const { controller, made } = setup();
  await controller.restart('Activated');
  assert.equal(controller.state.kind, 'missing');

  stub.changeSettings({ 'wfls.server.path': '/venv/bin/wfls' }, ['extensions.autoUpdate']);
  await settle(controller);
  assert.equal(controller.state.kind, 'running');
  assert.equal(made.at(-1).found.command, '/venv/bin/wfls');
  await controller.dispose();
});

test('a changed wfls.server setting stops the old server before starting the new one', async () => {
  stub.settings = { 'wfls.server.path': '/a/wfls' };
  const { controller, made } = setup();
  await controller.restart('Activated');
  stub.changeSettings({ 'wfls.server.path': '/b/wfls' });
  await settle(controller);
  assert.equal(made[0].found.command, '/a/wfls');
  assert.equal(made[0].disposed, true);
  assert.equal(controller.running.found.command, '/b/wfls');
  assert.equal(controller.running.disposed, false);
  await controller.dispose();
});

test('other wfls settings go to the running server, without a restart', async () => {
  stub.settings = { 'wfls.server.path': '/a/wfls', 'wfls.hintDeprecatedKeys': true };
  const { controller, made } = setup();
  await controller.restart('Activated');
  stub.changeSettings({ 'wfls.hintDeprecatedKeys': false });
  stub.changeSettings({ 'editor.fontSize': 20 }); // not ours: nothing sent
  assert.equal(made.length, 1);
  assert.deepEqual(made[0].notifications, [
    ['workspace/didChangeConfiguration', { settings: { hintDeprecatedKeys: false } }],
  ]);
  await controller.dispose();
});

test('a start that never answers fails after its deadline, and a later restart still works', async () => {
  stub.settings = { 'wfls.server.path': '/a/wfls' };
  const { controller, made, reports } = setup({
    client: (index) => ({ start: index === 0 ? () => new Promise(() => {}) : async () => {} }),
    startTimeoutMs: 200,
  });
  await controller.restart('Activated');
  assert.equal(controller.state.kind, 'failed');
  assert.match(controller.state.reason, /no answer to initialize/);
  assert.equal(made[0].disposed, true);
  assert.equal(reports.failures.length, 1);
  await controller.restart('Restart requested');
  assert.equal(controller.state.kind, 'running');
  await controller.dispose();
});

test('restarts asked for in a burst start one server, with the last settings', async () => {
  stub.settings = { 'wfls.server.path': '/a/wfls' };
  const { controller, made } = setup();
  const first = controller.restart('Activated');
  stub.changeSettings({ 'wfls.server.path': '/b/wfls' });
  stub.changeSettings({ 'wfls.server.path': '/c/wfls' });
  await first;
  await settle(controller);
  assert.deepEqual(
    made.filter((c) => !c.disposed).map((c) => c.found.command),
    ['/c/wfls'],
  );
  await controller.dispose();
});

test('a server that stops for good is reported as stopped', async () => {
  stub.settings = { 'wfls.server.path': '/a/wfls' };
  const { controller, made } = setup();
  await controller.restart('Activated');
  for (const listener of made[0].stateListeners) listener({ oldState: 2, newState: 1 });
  assert.equal(controller.state.kind, 'failed');
  assert.equal(controller.running, undefined);
  await controller.dispose();
});

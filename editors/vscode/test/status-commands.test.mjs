// The language status item, "Show Context at Node" and the gating of "Run
// with Sample Input", against the stub vscode and a fake running server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manifest } from './support/manifest.mjs';
import { loadSource } from './support/load.mjs';
import { createVscodeStub } from './support/vscode-stub.mjs';

const stub = createVscodeStub();
const status = await loadSource('status', stub);
const commands = await loadSource('commands', stub);

/** A controller stand-in: a state, listeners, and a client answering from `answer`. */
function fakeController(state, answer = async () => null) {
  const requests = [];
  const listeners = [];
  const client = {
    async sendRequest(method, param) {
      requests.push([method, param]);
      return answer(param);
    },
  };
  return {
    requests,
    state,
    get running() {
      return this.state.kind === 'running' ? client : undefined;
    },
    onDidChangeState(listener) {
      listeners.push(listener);
      return { dispose() {} };
    },
    setState(next) {
      this.state = next;
      for (const l of listeners) l(next);
    },
  };
}

const running = (commands_ = ['wfls.ownerStack', 'wfls.nodeContext']) => ({
  kind: 'running',
  version: '0.1.0',
  found: { command: '/venv/bin/wfls', prefix: [], source: 'PATH', version: '0.1.0' },
  commands: commands_,
});

const until = async (probe, ms = 2000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail('timed out');
};

test('the owner stack reads as the status detail', () => {
  assert.equal(status.describeOwnerStack(null), 'cursor outside the nodes');
  assert.equal(
    status.describeOwnerStack({ node: 'charge', owner_stack: ['customers', 'orders.v2'] }),
    'node charge: owner stack customers › orders.v2',
  );
  assert.equal(status.describeOwnerStack({ node: 'start', owner_stack: [] }), 'node start: no active loop');
  assert.match(status.describeOwnerStack({ node: 'orphan', owner_stack: null }), /node orphan: no context/);
});

test('each server state has its text, severity and command', () => {
  const { Error: error, Information: info } = stub.vscode.LanguageStatusSeverity;
  const starting = status.statusView({ kind: 'starting' }, undefined);
  assert.equal(starting.busy, true);
  assert.equal(starting.detail, 'starting');
  const up = status.statusView(running(), 'node charge: owner stack customers › orders.v2');
  assert.deepEqual([up.text, up.detail, up.severity], ['wfls 0.1.0', 'running · node charge: owner stack customers › orders.v2', info]);
  const missing = status.statusView({ kind: 'missing' }, undefined);
  assert.equal(missing.severity, error);
  assert.deepEqual(missing.command.arguments, ['wfls.server.path']);
  const failed = status.statusView({ kind: 'failed', reason: 'spawn ENOENT' }, undefined);
  assert.deepEqual([failed.text, failed.detail, failed.command.command], ['wfls stopped', 'spawn ENOENT', 'wfls.showOutput']);
});

test('the status item follows the cursor with wfls.ownerStack', async () => {
  const controller = fakeController(running(), async (param) =>
    param.arguments[0].position.line === 60 ? { node: 'charge', owner_stack: ['customers', 'orders.v2'] } : null,
  );
  const item = new status.StatusItem(controller, 5);
  const [statusItem] = stub.statusItems.slice(-1);
  assert.equal(statusItem.id, 'wfls.status');
  assert.deepEqual(statusItem.selector.map((f) => f.pattern).sort(), ['**/*.wf.json', '**/*.wf.json', '**/*.wf.toml', '**/*.wf.toml']);
  stub.openEditor('/ws/billing.wf.toml', 60, 4);
  await until(() => statusItem.detail === 'running · node charge: owner stack customers › orders.v2');
  assert.equal(statusItem.text, 'wfls 0.1.0');
  assert.deepEqual(controller.requests.at(-1), [
    'workspace/executeCommand',
    { command: 'wfls.ownerStack', arguments: [{ uri: 'file:///ws/billing.wf.toml', position: { line: 60, character: 4 } }] },
  ]);
  stub.moveCursor(3, 0);
  await until(() => statusItem.detail === 'running · cursor outside the nodes');
  controller.setState({ kind: 'failed', reason: 'the server stopped' });
  assert.equal(statusItem.text, 'wfls stopped');
  item.dispose();
  assert.equal(statusItem.disposed, true);
});

test('Show Context at Node opens the answer of wfls.nodeContext as JSON', async () => {
  const context = { node: 'charge', owner_stack: ['customers', 'orders.v2'], schema: { type: 'object' }, paths: [] };
  const controller = fakeController(running(), async () => context);
  stub.openEditor('/ws/billing.wf.toml', 60, 4);
  await commands.showNodeContext(controller);
  assert.equal(controller.requests.at(-1)[1].command, 'wfls.nodeContext');
  assert.deepEqual(stub.opened.at(-1), { language: 'json', content: JSON.stringify(context, null, 2) + '\n' });

  const outside = fakeController(running(), async () => null);
  const opened = stub.opened.length;
  await commands.showNodeContext(outside);
  assert.equal(stub.opened.length, opened);
  assert.match(stub.infos.at(-1).message, /not inside a node/);
});

test('Run with Sample Input is offered only when the server advertises wfls.runWorkflow', () => {
  assert.equal(commands.canRunWorkflow(running()), false);
  assert.equal(commands.canRunWorkflow(running(['wfls.ownerStack', 'wfls.runWorkflow'])), true);
  assert.equal(commands.canRunWorkflow({ kind: 'starting' }), false);

  const controller = fakeController({ kind: 'starting' });
  commands.trackRunWorkflow(controller);
  assert.equal(stub.contexts['wfls.canRunWorkflow'], false);
  controller.setState(running(['wfls.runWorkflow']));
  assert.equal(stub.contexts['wfls.canRunWorkflow'], true);
  controller.setState({ kind: 'failed', reason: 'x' });
  assert.equal(stub.contexts['wfls.canRunWorkflow'], false);

  // The manifest hides the command unless the context key is set.
  const palette = manifest.contributes.menus.commandPalette.find((m) => m.command === 'wfls.runWithSampleInput');
  assert.match(palette.when, /^wfls\.canRunWorkflow && /);
  const command = manifest.contributes.commands.find((c) => c.command === 'wfls.runWithSampleInput');
  assert.equal(command.enablement, 'wfls.canRunWorkflow');
});

test('Run with Sample Input sends the parsed file and opens the text answered', async () => {
  const controller = fakeController(running(['wfls.runWorkflow']), async () => ({ text: 'outcome: ok\n' }));
  stub.openEditor('/ws/billing.wf.toml', 0, 0);
  stub.files['/ws/input.json'] = '{"customers": [{"name": "Ada"}]}';
  stub.openDialogResult = [stub.vscode.Uri.file('/ws/input.json')];
  await commands.runWithSampleInput(controller);
  assert.deepEqual(controller.requests.at(-1), [
    'workspace/executeCommand',
    { command: 'wfls.runWorkflow', arguments: [{ uri: 'file:///ws/billing.wf.toml', input: { customers: [{ name: 'Ada' }] } }] },
  ]);
  assert.deepEqual(stub.opened.at(-1), { language: 'plaintext', content: 'outcome: ok\n' });

  const cannot = fakeController(running());
  await commands.runWithSampleInput(cannot);
  assert.deepEqual(cannot.requests, []);

  stub.files['/ws/input.json'] = '{not json';
  await commands.runWithSampleInput(controller);
  assert.match(stub.errors.at(-1).message, /is not valid JSON/);
});

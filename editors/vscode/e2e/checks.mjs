// The checks, one function each, run in this order against billing.wf.toml
// (a copy of examples/billing.wf.toml). Each starts from the file as it is on
// disk, with the cursor anywhere, leaves the editor reverted to it, and saves
// a screenshot of what it checked with `shot(name)`. A new check is a new
// function added to CHECKS.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { until, untilEqual } from './wait.mjs';

/** The server may still be starting: answers are awaited this long. */
const SERVER = 60_000;
const SHORT = 10_000;

/** 1-based line and column of `needle` (plus `offset`) in the fixture text. */
export function find(text, needle, offset = 0, after = '') {
  const index = text.indexOf(needle, after ? text.indexOf(after) : 0) + offset;
  assert.ok(index >= offset, `${needle} is in the fixture`);
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  return { line, column: index - before.lastIndexOf('\n') };
}

async function revert(wb) {
  await wb.runCommand('File: Revert File');
}

/** Opens the suggestions, again if needed, until the server's items show. */
async function suggestions(wb, labels) {
  return until(SERVER, `suggestions ${labels.join(', ')}`, async () => {
    await wb.press('Control+Space');
    const rows = await wb.page
      .waitForSelector('.suggest-widget.visible .monaco-list-row', { timeout: 3_000 })
      .then(() =>
        wb.page.$$eval('.suggest-widget.visible .monaco-list-row', (els) =>
          els.map((el) => el.getAttribute('aria-label') ?? ''),
        ),
      )
      .catch(() => []);
    if (labels.every((label) => rows.some((row) => row.startsWith(label)))) return rows;
    await wb.page.keyboard.press('Escape');
    return false;
  });
}

/** Completion after `context.foreach.` offers both loops; accepting one inserts it quoted. */
async function completion(wb, { text, shot }) {
  const { line, column } = find(text, 'context.foreach.customers.item.name', 'context.foreach.'.length);
  await wb.goto(line, column);
  // Delete `customers.item.name`, leaving `"context.foreach."`.
  for (let i = 0; i < 'customers.item.name'.length; i++) await wb.press('Shift+ArrowRight');
  await wb.press('Delete');
  const emptied = '  { target = "customer", path = "context.foreach." },';
  await untilEqual(SHORT, `line ${line} emptied after the loops`, () => wb.lineText(line), emptied);

  const rows = await suggestions(wb, ['customers', '"orders.v2"']);
  await shot('completion');
  // A small picture of the list and the line it completes, for the README.
  const box = await wb.page.$eval('.suggest-widget.visible', (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  await shot('completion-readme', {
    x: Math.max(0, box.x - 340),
    y: Math.max(0, box.y - 140),
    width: box.width + 360,
    height: box.height + 150,
  });
  const index = rows.findIndex((row) => row.startsWith('"orders.v2"'));
  await wb.page.click(`.suggest-widget.visible .monaco-list-row[data-index="${index}"]`);
  // In a basic string the quotes of the segment are escaped.
  const expected = '  { target = "customer", path = "context.foreach.\\"orders.v2\\"" },';
  await untilEqual(SHORT, 'the accepted item in the line', () => wb.lineText(line), expected);
  await revert(wb);
}

/** Hover on a foreach id in a path: the loop, and the owner stack at this node. */
async function hover(wb, { text, shot }) {
  const { line, column } = find(text, 'context.foreach.customers.item.name', 'context.foreach.cu'.length);
  await wb.goto(line, column);
  const shown = await until(SERVER, 'a hover with the owner stack', async () => {
    await wb.press('Control+K');
    await wb.press('Control+I');
    const content = await wb.page
      .waitForSelector('.monaco-hover .hover-contents', { visible: true, timeout: 3_000 })
      .then(() => wb.hoverText())
      .catch(() => undefined);
    if (content?.includes('owner stack here')) return content;
    await wb.page.keyboard.press('Escape');
    return false;
  });
  assert.match(shown, /foreach customers/);
  assert.match(shown, /owner stack here: customers > orders\.v2/);
  assert.match(shown, /over: input\.customers/);
  await shot('hover');
  await wb.page.keyboard.press('Escape');
}

/** A typo raises a Problems entry with its wfls code; undoing it clears it. */
async function diagnostics(wb, { text, shot }) {
  await until(SERVER, 'no problems in the example', async () => (await wb.problemCounts()).errors === 0);
  const { line, column } = find(text, 'context.foreach.customers.item.name', 'context.foreach.customers.item.'.length);
  await wb.goto(line, column);
  for (let i = 0; i < 'name'.length; i++) await wb.press('Shift+ArrowRight');
  await wb.type('nmae');
  await until(SERVER, 'one error in the status bar', async () => (await wb.problemCounts()).errors === 1);
  await wb.press('Control+Shift+M');
  const entry = await until(SHORT, 'the Problems entry', async () => {
    const rows = await wb.page
      .$$eval('.markers-panel .monaco-list-row', (els) => els.map((el) => el.textContent ?? ''))
      .catch(() => []);
    return rows.find((row) => row.includes('nmae'));
  });
  assert.match(entry, /invalid_context_path/);
  assert.match(entry, /wfls/);
  await shot('diagnostics');
  await wb.focusEditor();
  await wb.goto(line, column);
  await wb.press('Control+Z');
  await until(SHORT, 'the line restored', async () => (await wb.lineText(line))?.includes('item.name'));
  await until(SERVER, 'the error cleared', async () => (await wb.problemCounts()).errors === 0);
  await until(SHORT, 'the Problems entry gone', async () => {
    const rows = await wb.page
      .$$eval('.markers-panel .monaco-list-row', (els) => els.map((el) => el.textContent ?? ''))
      .catch(() => []);
    return !rows.some((row) => row.includes('nmae'));
  });
  await wb.runCommand('View: Hide Panel');
  await wb.focusEditor();
}

/** F12 on a foreach id in a path moves the cursor to that foreach node. */
async function definition(wb, { text, shot }) {
  const use = find(text, 'context.foreach.customers.item.name', 'context.foreach.cust'.length);
  const node = find(text, 'id = "customers"');
  await until(SERVER, `the cursor on line ${node.line}`, async () => {
    await wb.goto(use.line, use.column);
    await wb.press('F12');
    await new Promise((resolve) => setTimeout(resolve, 300)); // let a late answer land before looking
    return (await wb.cursor()).line === node.line;
  });
  await untilEqual(SHORT, 'the node line', async () => (await wb.lineText(node.line))?.trim(), 'id = "customers"');
  await shot('definition');
}

/** The language status item: the server's version, state, and the owner stack at the cursor. */
async function languageStatus(wb, { text, shot }) {
  const { line, column } = find(text, 'node = "charge_order"', 0, 'id = "charge"');
  await wb.goto(line, column);
  const label = await until(SERVER, 'the wfls language status', async () => {
    const said = await wb.ariaLabel('[id="status.languageStatus"]');
    return said.includes('owner stack') ? said : false;
  });
  assert.match(label, /wfls \d+\.\d+\.\d+, running · node charge: owner stack customers › orders\.v2/);
  // The same, as a person sees it: the hover of the {} item.
  await wb.page.hover('[id="status.languageStatus"]');
  const shown = await until(SHORT, 'the language status hover', async () => {
    const hover = await wb.hoverText();
    return hover.includes('owner stack') ? hover : false;
  });
  assert.match(shown, /wfls \d+\.\d+\.\d+/);
  await shot('language-status');
  await wb.page.mouse.move(600, 300);
}

/** "wfls: Show Context at Node" opens the node's context as an untitled JSON document. */
async function showContext(wb, { text, shot }) {
  const { line, column } = find(text, 'node = "charge_order"', 0, 'id = "charge"');
  await wb.goto(line, column);
  await wb.runCommand('wfls: Show Context at Node');
  await until(SHORT, 'an untitled editor', async () => /Untitled/.test(await wb.activeTab()));
  const json = await until(SHORT, 'the context in the editor', async () => {
    const shown = await wb.visibleText();
    return shown.includes('"owner_stack"') ? shown : false;
  });
  assert.match(json, /"node": "charge"/);
  assert.match(json, /"owner_stack": \[\s*"customers",\s*"orders\.v2"\s*\]/);
  assert.match(json, /"schema": \{/);
  const mode = await wb.textOf('[id="status.editor.mode"]');
  assert.match(mode ?? '', /JSON/);
  await shot('show-context');
  await wb.runCommand('View: Revert and Close Editor');
}

/** The rows of the widget VS Code shows its code actions in (Ctrl+.), by their text. */
async function actionRows(wb) {
  return wb.page
    .$$eval('.action-widget .monaco-list-row', (els) => els.map((el) => el.textContent ?? ''))
    .catch(() => []);
}

/** Ctrl+. on a typo offers its quick fix; picking it corrects the line and clears the error. */
async function quickFix(wb, { text, shot }) {
  await until(SERVER, 'no problems in the example', async () => (await wb.problemCounts()).errors === 0);
  const { line, column } = find(text, 'context.foreach.customers.item.name', 'context.foreach.customers.item.'.length);
  await wb.goto(line, column);
  for (let i = 0; i < 'name'.length; i++) await wb.press('Shift+ArrowRight');
  await wb.type('nmae');
  await until(SERVER, 'one error in the status bar', async () => (await wb.problemCounts()).errors === 1);
  const title = "Change 'nmae' to 'name'";
  await until(SERVER, `the quick fix "${title}"`, async () => {
    await wb.goto(line, column + 1);
    await wb.press('Control+.');
    const rows = await wb.page
      .waitForSelector('.action-widget .monaco-list-row', { visible: true, timeout: 3_000 })
      .then(() => actionRows(wb))
      .catch(() => []);
    if (rows.some((row) => row.includes(title))) return true;
    await wb.page.keyboard.press('Escape');
    return false;
  });
  await shot('quick-fix');
  const index = (await actionRows(wb)).findIndex((row) => row.includes(title));
  await wb.page.click(`.action-widget .monaco-list-row[data-index="${index}"]`);
  const fixed = '  { target = "customer", path = "context.foreach.customers.item.name" },';
  await untilEqual(SHORT, `line ${line} fixed`, () => wb.lineText(line), fixed);
  await until(SERVER, 'the error cleared', async () => (await wb.problemCounts()).errors === 0);
  await revert(wb);
}

/** Source Action… offers "Migrate convenience keys", which writes the structured path. */
async function migrate(wb, { text, shot }) {
  const structured = 'context.foreach."orders.v2".item';
  const { line, column } = find(text, structured);
  await wb.goto(line, column);
  for (let i = 0; i < structured.length; i++) await wb.press('Shift+ArrowRight');
  await wb.type('context.loop_item');
  const convenient = "  { target = \"order\", path = 'context.loop_item' },";
  await untilEqual(SHORT, `line ${line} with the convenience key`, () => wb.lineText(line), convenient);
  const title = 'Migrate convenience keys';
  await until(SERVER, `the source action "${title}"`, async () => {
    await wb.runCommand('Source Action...');
    const rows = await wb.page
      .waitForSelector('.action-widget .monaco-list-row', { visible: true, timeout: 3_000 })
      .then(() => actionRows(wb))
      .catch(() => []);
    if (rows.some((row) => row.includes(title))) return true;
    await wb.page.keyboard.press('Escape');
    return false;
  });
  await shot('migrate');
  const index = (await actionRows(wb)).findIndex((row) => row.includes(title));
  await wb.page.click(`.action-widget .monaco-list-row[data-index="${index}"]`);
  const migrated = `  { target = "order", path = '${structured}' },`;
  await untilEqual(SHORT, `line ${line} migrated`, () => wb.lineText(line), migrated);
  await revert(wb);
}

/** F2 on a foreach id, a new name and Enter: the id, start, edges and paths all change. */
async function rename(wb, { text, shot }) {
  const node = find(text, 'id = "customers"', 'id = "cu'.length);
  const start = find(text, 'start = "customers"');
  const path = find(text, 'context.foreach.customers.item.name');
  await until(SERVER, 'the rename box', async () => {
    await wb.goto(node.line, node.column);
    await wb.press('F2');
    const focused = await wb.page
      .waitForFunction(() => document.activeElement?.closest('.rename-box') != null, { timeout: 3_000 })
      .then(() => true)
      .catch(() => false);
    if (!focused) await wb.page.keyboard.press('Escape');
    return focused;
  });
  await wb.press('Control+A'); // inside the box: its whole text
  await wb.type('clients');
  await shot('rename');
  await wb.press('Enter');
  await wb.page.waitForSelector('.rename-box', { hidden: true, timeout: SHORT });
  await untilEqual(SHORT, 'the renamed id', () => wb.lineText(node.line), 'id = "clients"');
  await wb.goto(path.line, 1); // lines are read as rendered: bring each on screen
  await untilEqual(
    SHORT,
    'the renamed path',
    () => wb.lineText(path.line),
    '  { target = "customer", path = "context.foreach.clients.item.name" },',
  );
  await wb.goto(start.line, 1);
  await untilEqual(SHORT, 'the renamed start', () => wb.lineText(start.line), 'start = "clients"');
  await shot('rename-applied');
  await revert(wb);
}

/** Go to Symbol in Editor lists the server's outline: loops, the node inside them, the node def. */
async function outline(wb, { shot }) {
  await wb.focusEditor();
  const rows = await until(SERVER, 'the outline in Go to Symbol', async () => {
    await wb.press('Control+Shift+O');
    const labels = await wb.page
      .waitForSelector('.quick-input-list .monaco-list-row', { visible: true, timeout: 3_000 })
      .then(() =>
        wb.page.$$eval('.quick-input-list .monaco-list-row', (els) =>
          els.map((el) => el.getAttribute('aria-label') ?? el.textContent ?? ''),
        ),
      )
      .catch(() => []);
    const wanted = ['customers', 'orders.v2', 'charge', 'charge_order', 'input_schema'];
    if (wanted.every((name) => labels.some((label) => label.includes(name)))) return labels;
    await wb.page.keyboard.press('Escape');
    return false;
  });
  assert.ok(rows.some((row) => row.includes('orders.v2')));
  await shot('outline');
  await wb.page.keyboard.press('Escape');
  await wb.focusEditor();
}

/** Inlay hints: the item type after a foreach's `over`, the read type after a binding's path. */
async function inlayHints(wb, { text, shot }) {
  const over = find(text, 'over = "input.customers"');
  const path = find(text, 'path = "context.foreach.customers.item.name"');
  await wb.goto(over.line, over.column);
  await untilEqual(SERVER, 'the item type after over', async () => (await wb.lineText(over.line, { hints: true }))?.replace(/\s+/g, ' '), 'over = "input.customers": object');
  await wb.goto(path.line, path.column);
  await until(SHORT, 'the read type after the path', async () =>
    (await wb.lineText(path.line, { hints: true }))?.includes('"context.foreach.customers.item.name": string'),
  );
  await shot('inlay-hints');
}

/** The server's semantic token on a loop id in a path, as VS Code's token inspector shows it. */
async function semanticTokens(wb, { text, shot }) {
  const { line, column } = find(text, 'orders.v2".item', 1, "path = 'context.foreach.");
  await wb.goto(line, column);
  const shown = await until(SERVER, 'the semantic token type in the inspector', async () => {
    await wb.runCommand('Developer: Inspect Editor Tokens and Scopes');
    const widget = await wb.page
      .waitForSelector('.token-inspect-widget', { visible: true, timeout: 3_000 })
      .then(() => wb.page.$eval('.token-inspect-widget', (el) => el.textContent ?? ''))
      .catch(() => '');
    if (/semantic token type\s*namespace/.test(widget)) return widget;
    await wb.page.keyboard.press('Escape');
    return false;
  });
  // Coloured through the manifest's semanticTokenScopes.
  assert.match(shown, /entity\.name\.namespace\.wf/);
  await shot('semantic-tokens');
  await wb.page.keyboard.press('Escape');
}

/**
 * "wfls: Run with Sample Input" on `input`, picked in VS Code's own (simple) file dialog:
 * a quick input holding a path.
 */
async function runWithInput(wb, input) {
  await wb.runCommand('wfls: Run with Sample Input', { opensInput: true });
  const box = '.quick-input-widget .quick-input-box input';
  await until(SHORT, 'the file dialog', async () =>
    (await wb.page.$eval(box, (el) => el.value).catch(() => ''))?.includes('/workspace'),
  );
  await wb.press('Control+A');
  await wb.type(input);
  await until(SHORT, 'the path typed in the dialog', async () =>
    (await wb.page.$eval(box, (el) => el.value))?.endsWith(path.basename(input)),
  );
  await acceptDialog(wb, path.basename(input));
}

/**
 * Enter in VS Code's simple file dialog until it closes. The dialog checks the typed
 * path asynchronously: an Enter that comes before the check is refused ("Please select
 * a file.") and the dialog stays open with the path, so Enter is pressed again when the
 * dialog is still open a second after the last one.
 */
async function acceptDialog(wb, name) {
  const box = '.quick-input-widget .quick-input-box input';
  await wb.page.keyboard.press('Enter');
  let pressed = Date.now();
  await until(SHORT, 'the file dialog to take the path', async () => {
    const dialog = await wb.page
      .$eval(box, (el) => ({ open: el.offsetParent !== null, value: el.value }))
      .catch(() => ({ open: false, value: '' }));
    if (!dialog.open) return true;
    if (Date.now() - pressed >= 1_000 && dialog.value.endsWith(name)) {
      await wb.page.keyboard.press('Enter');
      pressed = Date.now();
    }
    return false;
  });
}

/**
 * "Run with Sample Input": pick billing.input.json in VS Code's file dialog, read the
 * trace the server returns in an untitled editor, then hover a body node's id for the
 * items its activations saw.
 */
async function runWorkflow(wb, { text, shot, workspace }) {
  await runWithInput(wb, `${workspace}/billing.input.json`);
  await until(SERVER, 'an untitled editor', async () => /Untitled/.test(await wb.activeTab()));
  const trace = await until(SHORT, 'the trace in the editor', async () => {
    const shown = await wb.visibleText();
    return shown.includes('run with stand-in handlers') ? shown : false;
  });
  assert.match(trace, /workflow 'billing', run with stand-in handlers \(\d+ activations\)/);
  assert.match(trace, /completed with outcome 'ok'/);
  assert.match(trace, /charge \(node\) \[customers > "orders\.v2"\] → ok/);
  await shot('run-workflow');
  await wb.runCommand('View: Revert and Close Editor');
  await wb.openFile('billing.wf.toml');
  const { line, column } = find(text, 'id = "charge"', 'id = "c'.length);
  await wb.goto(line, column);
  const shown = await until(SERVER, 'a hover with the last run', async () => {
    await wb.press('Control+K');
    await wb.press('Control+I');
    const content = await wb.page
      .waitForSelector('.monaco-hover .hover-contents', { visible: true, timeout: 3_000 })
      .then(() => wb.hoverText())
      .catch(() => undefined);
    if (content?.includes('Last run')) return content;
    await wb.page.keyboard.press('Escape');
    return false;
  });
  assert.match(shown, /Last run: 3 activations/);
  assert.match(shown, /customers\[1\] = \{"name": "Grace"/);
  await shot('run-workflow-hover');
  await wb.page.keyboard.press('Escape');
}

/** The rows of a pane of the Run and Debug view ("Call Stack", "Variables"), as text. */
async function debugRows(wb, title) {
  return wb.page.evaluate((wanted) => {
    const panes = [...document.querySelectorAll('.debug-viewlet .pane, .part.sidebar .pane')];
    const pane = panes.find((p) => (p.querySelector('.pane-header')?.textContent ?? '').trim().toLowerCase().startsWith(wanted.toLowerCase()));
    const rows = [...(pane?.querySelectorAll('.pane-body .monaco-list-row') ?? [])];
    return rows.map((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());
  }, title);
}

/** Opens the first scope of the Variables pane, with a click on its row (VS Code opens it
 * by itself only when the pane was showing as the run stopped). */
async function expandFirstScope(wb) {
  const row = await wb.page.evaluateHandle(() => {
    const panes = [...document.querySelectorAll('.pane')];
    const pane = panes.find((p) => (p.querySelector('.pane-header')?.textContent ?? '').trim().toLowerCase().startsWith('variables'));
    return pane?.querySelector('.pane-body .monaco-list-row[aria-expanded="false"]') ?? null;
  });
  const element = row.asElement();
  if (element) await element.click();
}

/**
 * The wfls debugger: a breakpoint set in the gutter of charge's input list binds to its
 * node (moved to its id line), "Start Debugging" stops there with the owning loops in
 * Call Stack and the context in Variables, the values of the bindings' paths show
 * beside them, and "Step Over" goes to the next order.
 */
async function debug(wb, { text, shot, workspace }) {
  const { mkdirSync, rmSync } = await import('node:fs');
  const launch = path.join(workspace, '.vscode', 'launch.json');
  mkdirSync(path.dirname(launch), { recursive: true });
  writeFileSync(
    launch,
    JSON.stringify({
      version: '0.2.0',
      configurations: [
        {
          type: 'wfls',
          request: 'launch',
          name: 'Debug billing',
          program: '${workspaceFolder}/billing.wf.toml',
          input: '${workspaceFolder}/billing.input.json',
        },
      ],
    }),
  );
  try {
    await wb.openFile('billing.wf.toml');
    const inputLine = find(text, 'input = [', 0, 'id = "charge"').line;
    await wb.goto(inputLine, 1);
    await wb.runCommand('Debug: Toggle Breakpoint');
    // The configuration picked by name: launch.json may not be read yet when started at once.
    await until(SERVER, 'the launch configuration offered', async () => {
      await wb.runCommand('Debug: Select and Start Debugging', { opensInput: true });
      const row = '.quick-input-list .monaco-list-row[aria-label*="Debug billing"]';
      const found = await wb.page.waitForSelector(row, { visible: true, timeout: 3_000 }).catch(() => null);
      if (found) await wb.page.click(row);
      else await wb.page.keyboard.press('Escape');
      return found !== null;
    }, { every: 1_000 });
    await until(SERVER, 'the debug toolbar', () => wb.visible('.debug-toolbar'));
    await wb.press('Control+Shift+D'); // Run and Debug
    const stack = await until(SERVER, 'the run stopped at charge', async () => {
      const rows = await debugRows(wb, 'Call Stack');
      return rows.some((row) => row.includes('"orders.v2" [0]')) ? rows : false;
    });
    // Each frame: its name, then its document and the line of its node's id.
    const at = (needle) => `billing.wf.toml${find(text, needle).line}:1`;
    assert.deepEqual(stack, [
      `charge${at('id = "charge"')}`,
      `"orders.v2" [0]${at('id = "orders.v2"')}`,
      `customers [0]${at('id = "customers"')}`,
    ]);
    // The breakpoint is shown where it binds: the node's id line.
    await until(SHORT, 'the breakpoint at the id line', async () =>
      (await wb.page.$$eval('.editor-group-container.active .codicon-debug-breakpoint, .editor-group-container.active .codicon-debug-stackframe', (els) => els.length)) > 0,
    );
    let seen = [];
    const variables = await until(SERVER, 'the Context scope', async () => {
      const rows = await debugRows(wb, 'Variables');
      seen = rows;
      if (rows[0] === 'Context' && !rows.some((row) => row.startsWith('foreach.'))) {
        await expandFirstScope(wb);
        return false;
      }
      return rows.some((row) => row.startsWith('foreach."orders.v2".item')) ? rows : false;
    }, { every: 1_000 }).catch((error) => {
      throw new Error(`${error.message}; Variables showed: ${JSON.stringify(seen)}`);
    });
    assert.ok(variables.some((row) => row.includes('foreach."orders.v2".item') && row.includes('"sku": "A-17"')), variables.join(' | '));
    const orderLine = find(text, `'context.foreach."orders.v2".item'`).line;
    const inline = await until(SERVER, 'the inline value of the order', async () => {
      const line = await wb.lineText(orderLine, { hints: true });
      return line?.includes('A-17') ? line : false;
    });
    assert.match(inline, /context\.foreach\."orders\.v2"\.item/);
    // Wide enough for the values beside the bindings (docs/images/vscode-debug.png).
    const viewport = wb.page.viewport();
    await wb.page.setViewport({ width: 1600, height: 820 });
    await wb.page.mouse.move(900, 700);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await shot('debug');
    await wb.page.setViewport(viewport);
    await wb.runCommand('Debug: Step Over');
    await until(SERVER, 'stopped at the next order', async () => {
      const rows = await debugRows(wb, 'Call Stack');
      return rows.some((row) => row.includes('"orders.v2" [1]')) ? rows : false;
    });
    let after = [];
    await until(SERVER, 'the next order in Variables', async () => {
      after = await debugRows(wb, 'Variables');
      if (after[0] === 'Context' && !after.some((row) => row.startsWith('foreach.'))) await expandFirstScope(wb);
      return after.some((row) => /^foreach\."orders\.v2"\.index =\s*1$/.test(row));
    }, { every: 1_000 }).catch((error) => {
      throw new Error(`${error.message}; Variables showed: ${JSON.stringify(after)}`);
    });
    await shot('debug-step');
    await wb.runCommand('Debug: Stop');
  } finally {
    await wb.runCommand('Debug: Remove All Breakpoints').catch(() => {});
    rmSync(launch, { force: true });
    await wb.runCommand('View: Show Explorer').catch(() => {});
    await wb.openFile('billing.wf.toml').catch(() => {});
  }
}

/** The frame of the graph view's webview (VS Code nests it in two iframes), once drawn. */
async function graphFrame(wb) {
  return until(SERVER, 'the graph view drawn', async () => {
    for (const frame of wb.page.frames()) {
      const state = await frame.$eval('#wfls-graph', (el) => el.dataset.state).catch(() => undefined);
      if (state === 'ready') return frame;
    }
    return false;
  });
}

/** What the graph view draws: node ids, loop regions, the highlighted node, each node's text. */
async function graphShown(frame) {
  return frame.evaluate(() => ({
    nodes: [...document.querySelectorAll('g.node[data-node]')].map((el) => el.dataset.node),
    loops: [...document.querySelectorAll('g.cluster[data-loop]')].map((el) => el.dataset.loop),
    missing: [...document.querySelectorAll('g.node.wf-missing text')].map((el) => el.textContent),
    highlighted: [...document.querySelectorAll('g.highlighted')].map((el) => el.dataset.node ?? el.dataset.loop),
    text: Object.fromEntries(
      [...document.querySelectorAll('g.node[data-node]')].map((el) => [el.dataset.node, el.textContent.replace(/\s+/g, ' ').trim()]),
    ),
    renders: Number(document.getElementById('wfls-graph')?.dataset.renders ?? 0),
    zoom: document.getElementById('wfls-graph')?.dataset.zoom,
  }));
}

/**
 * "wfls: Show Graph": the graph beside the editor, with its loops as regions; a click on
 * a node selects its entry, the cursor highlights its node, an edit of an id redraws
 * it, a run's counts are overlaid, and "Export SVG" saves the drawing.
 */
async function graph(wb, { text, shot, workspace }) {
  await wb.runCommand('wfls: Show Graph');
  let frame = await graphFrame(wb);
  const first = await until(SERVER, 'three nodes and two loop regions', async () => {
    const shown = await graphShown(frame);
    return shown.nodes.length === 3 && shown.loops.length === 2 ? shown : false;
  });
  assert.deepEqual(first.nodes, ['customers', 'orders.v2', 'charge']);
  assert.deepEqual(first.loops, ['customers', 'orders.v2']);
  assert.match(first.text.charge, /charge node charge_order/);
  assert.equal(await frame.$$eval('.wf-start, .wf-end', (els) => els.length), 2, 'the start and the end are marked');

  // A click on a node puts the cursor at the start of its [[nodes]] entry.
  const entry = find(text, '[[nodes]]\nid = "charge"');
  await (await frame.$('g.node[data-node="charge"]')).click();
  await until(SHORT, `the cursor on line ${entry.line}`, async () => {
    const at = await wb.cursor();
    return at.line === entry.line && at.column === 1;
  });
  await until(SHORT, 'charge highlighted', async () => (await graphShown(frame)).highlighted.join() === 'charge');

  // The cursor in another node's entry highlights that node.
  const inner = find(text, 'over = "context.foreach.customers.item.orders"');
  await wb.goto(inner.line, inner.column);
  await until(SHORT, 'orders.v2 highlighted', async () => (await graphShown(frame)).highlighted.join() === 'orders.v2');

  // An edit of an id: the graph follows, the edges now name a node that does not exist.
  const id = find(text, 'id = "charge"', 'id = "charge'.length);
  const zoom = (await graphShown(frame)).zoom;
  await wb.goto(id.line, id.column);
  await wb.type('s');
  const edited = await until(SERVER, 'the renamed node drawn', async () => {
    const shown = await graphShown(frame);
    return shown.nodes.includes('charges') ? shown : false;
  });
  assert.deepEqual(edited.nodes, ['customers', 'orders.v2', 'charges']);
  assert.ok(edited.missing.some((t) => t.includes('charge')), `a stand-in for charge: ${edited.missing}`);
  assert.equal(edited.zoom, zoom, 'the viewport is kept');
  await revert(wb);
  await until(SERVER, 'charge drawn again', async () => (await graphShown(frame)).nodes.includes('charge'));

  // A run: each node shows how often it ran and its last outcome.
  await wb.goto(id.line, id.column);
  await runWithInput(wb, `${workspace}/billing.input.json`);
  await until(SERVER, 'the run trace in an untitled editor', async () => /Untitled/.test(await wb.activeTab()));
  await wb.runCommand('View: Revert and Close Editor');
  frame = await graphFrame(wb);
  const ran = await until(SERVER, 'the run on the graph', async () => {
    const shown = await graphShown(frame);
    return shown.text.charge?.includes('×') ? shown : false;
  });
  assert.match(ran.text.charge, /×3 → ok/);
  assert.match(ran.text.customers, /×3 → done/);
  assert.match(
    await frame.$eval('g.edge[data-from="charge"][data-outcome="ok"]', (el) => el.textContent),
    /ok ×3/,
  );
  // Back to the document in the first group, the graph showing beside it again.
  await wb.press('Control+1');
  await wb.goto(id.line, id.column);
  await until(SHORT, 'charge highlighted', async () => (await graphShown(frame)).highlighted.join() === 'charge');
  // The picture for the README: without the side bar, the graph fitted to its panel.
  await wb.runCommand('View: Toggle Primary Side Bar Visibility');
  await (await frame.$('button[data-action="fit"]')).click();
  await shot('graph');
  await wb.runCommand('View: Toggle Primary Side Bar Visibility');

  // Export SVG through VS Code's save dialog, which offers the document's folder.
  const target = path.join(workspace, 'billing.graph.svg');
  await (await frame.$('button[data-action="export-svg"]')).click();
  await until(SHORT, 'the save dialog', async () =>
    (await wb.page.$eval('.quick-input-widget .quick-input-box input', (el) => el.value).catch(() => ''))?.endsWith(
      'billing.graph.svg',
    ),
  );
  await acceptDialog(wb, 'billing.graph.svg');
  const svg = await until(SHORT, `${target} written`, async () => (existsSync(target) ? readFileSync(target, 'utf8') : false));
  assert.match(svg, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg/);
  assert.match(svg, /data-node="charge"/);
  assert.match(svg, /foreach orders\.v2: order in context\.foreach\.customers\.item\.orders/);
  assert.match(svg, /--wf-fg: (?!initial)/, 'the theme colours are written as values');
  const pngTarget = path.join(workspace, 'billing.graph.png');
  await (await frame.$('button[data-action="export-png"]')).click();
  await until(SHORT, 'the save dialog', async () =>
    (await wb.page.$eval('.quick-input-widget .quick-input-box input', (el) => el.value).catch(() => ''))?.endsWith(
      'billing.graph.png',
    ),
  );
  await acceptDialog(wb, 'billing.graph.png');
  const png = await until(SHORT, `${pngTarget} written`, async () => (existsSync(pngTarget) ? readFileSync(pngTarget) : false));
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG file');
  await wb.runCommand('View: Close All Editor Groups');
  await wb.openFile('billing.wf.toml');
}

/** `wfls graph FILE --format html` into `out`. */
function writeGraphPage(server, file, out) {
  const made = spawnSync(server, ['graph', file, '--format', 'html'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(made.status, 0, made.stderr);
  writeFileSync(out, made.stdout);
  return pathToFileURL(out).href;
}

/**
 * Opens a page of `wfls graph --format html` in a new tab with every request but the
 * page itself refused and recorded, and content-security messages recorded too: the
 * page must draw without any.
 */
async function openGraphPage(wb, url) {
  const page = await wb.page.browser().newPage();
  const refused = [];
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.url() === url || request.url().startsWith('data:')) return void request.continue();
    refused.push(request.url());
    void request.abort();
  });
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });
  page.on('pageerror', (error) => refused.push(`page error: ${error.message}`));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('#wfls-graph[data-state="ready"]', { timeout: SERVER });
  return { page, refused };
}

/**
 * `wfls graph --format html`: one page that draws the same view with no network, for
 * the billing example and for a generated workflow of 2,000 nodes (its loops collapsed;
 * the time to the first drawing is printed, not asserted).
 */
async function graphPage(wb, { workspace, server, work, out }) {
  const url = writeGraphPage(server, path.join(workspace, 'billing.wf.toml'), path.join(work, 'billing.graph.html'));
  const { page, refused } = await openGraphPage(wb, url);
  try {
    const shown = () =>
      page.evaluate(() => ({
        nodes: [...document.querySelectorAll('g.node[data-node]')].map((el) => el.dataset.node),
        loops: [...document.querySelectorAll('g.cluster[data-loop]')].map((el) => el.dataset.loop),
        collapsed: [...document.querySelectorAll('g.node.wf-collapsed')].map((el) => el.dataset.loop),
        status: document.querySelector('.wf-status')?.textContent,
      }));
    assert.deepEqual(await shown(), {
      nodes: ['customers', 'orders.v2', 'charge'],
      loops: ['customers', 'orders.v2'],
      collapsed: [],
      status: '3 nodes',
    });
    await (await page.$('g.node[data-node="charge"]')).click();
    await until(SHORT, 'where charge is', async () => (await shown()).status.match(/^charge: .*billing\.wf\.toml, line 61$/));
    // Pan by dragging the background, zoom with the wheel.
    const stage = () => page.$eval('.wf-stage', (el) => el.style.transform);
    const before = await stage();
    await page.mouse.move(100, 600);
    await page.mouse.down();
    await page.mouse.move(160, 560, { steps: 4 });
    await page.mouse.up();
    const panned = await stage();
    assert.notEqual(panned, before);
    const zoom = () => page.$eval('#wfls-graph', (el) => Number(el.dataset.zoom));
    const unzoomed = await zoom();
    await page.mouse.wheel({ deltaY: -400 });
    await until(SHORT, 'zoomed in', async () => (await zoom()) > unzoomed);
    await (await page.$('button[data-action="collapse-all"]')).click();
    await until(SHORT, 'the loops collapsed', async () => (await shown()).collapsed.join() === 'customers');
    await (await page.$('g.node.wf-collapsed')).click();
    await until(SHORT, 'the loops expanded', async () => (await shown()).loops.length === 2);
    await page.screenshot({ path: path.join(out, 'graph-page.png') });
    assert.deepEqual(refused, []);
  } finally {
    await page.close();
  }

  // 2,000 nodes: the outermost loops start collapsed, and one expands on a click.
  const python = process.env.WFLS_E2E_PYTHON ?? path.join(path.dirname(server), 'python');
  const large = path.join(work, 'generated.wf.toml');
  const generated = spawnSync(python, ['-c', 'import sys; from wf_core.authoring.generate import generate_toml; sys.stdout.write(generate_toml(2000))'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  assert.equal(generated.status, 0, generated.stderr);
  writeFileSync(large, generated.stdout);
  const big = await openGraphPage(wb, writeGraphPage(server, large, path.join(work, 'generated.graph.html')));
  try {
    const root = await big.page.$eval('#wfls-graph', (el) => ({ ...el.dataset }));
    const drawn = await big.page.$$eval('g.node[data-node]', (els) => els.length);
    const collapsed = await big.page.$$eval('g.node.wf-collapsed', (els) => els.length);
    assert.equal(drawn, 200, 'the 200 outer foreach nodes');
    assert.equal(collapsed, 200, 'their 200 loops, collapsed');
    assert.match(await big.page.$eval('.wf-status', (el) => el.textContent), /^2000 nodes · 1800 inside collapsed loops$/);
    assert.ok(await big.page.$eval('button[data-action="expand-all"]', (el) => el.disabled), 'Expand all is not offered');
    const t0 = Date.now();
    await (await big.page.$('g.node.wf-collapsed[data-loop="g0_customers"]')).click();
    await until(SHORT, 'g0_customers expanded', async () =>
      big.page.$$eval('g.cluster[data-loop]', (els) => els.map((el) => el.dataset.loop).join() === 'g0_customers,g0_orders.v2'),
    );
    console.log(
      `graph page, 2,000 nodes: first drawing ${root.firstReadyMs} ms after the page started (layout and drawing ` +
        `${root.renderMs} ms); a loop expanded in ${Date.now() - t0} ms`,
    );
    await big.page.screenshot({ path: path.join(out, 'graph-page-2000.png') });
    assert.deepEqual(big.refused, []);
  } finally {
    await big.page.close();
  }
}

/** The golden files of the canonical style, which the Python tests hold to the formatter too. */
const GOLDEN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../tests/formatting/golden');

/**
 * "Format Document" on a messy document gives its golden file; then, with
 * editor.formatOnSave on, an edit saved is on disk formatted.
 */
async function format(wb, { workspace, shot }) {
  const messy = readFileSync(path.join(GOLDEN, 'messy.wf.toml'), 'utf8');
  const golden = readFileSync(path.join(GOLDEN, 'messy.wf.toml.formatted'), 'utf8');
  const file = path.join(workspace, 'messy.wf.toml');
  const settings = path.join(workspace, '.vscode', 'settings.json');
  writeFileSync(file, messy);
  try {
    await wb.openFile('messy.wf.toml');
    // Until the server has read the new document, there is no formatter for it yet.
    await until(SERVER, 'the document formatted', async () => {
      await wb.runCommand('Format Document');
      return (await wb.lineText(2)) === 'start = "customers"';
    }, { every: 1_000 });
    await shot('format');
    await wb.press('Control+S');
    await untilEqual(SHORT, 'the formatted document on disk', () => readFileSync(file, 'utf8'), golden);

    // Format on save: the messy text again (the saved editor follows the file), an edit, a save.
    mkdirSync(path.dirname(settings), { recursive: true });
    writeFileSync(settings, JSON.stringify({ 'editor.formatOnSave': true }) + '\n');
    writeFileSync(file, messy);
    await untilEqual(SHORT, 'the messy text in the editor', () => wb.lineText(2), messy.split('\n')[1]);
    await wb.goto(1, 1);
    await wb.type('# edited');
    await wb.press('Enter');
    const expected = `# edited\n${golden}`;
    // A save before the setting is read is not formatted: saved again, it is.
    await until(SERVER, 'the edit saved formatted', async () => {
      await wb.press('Control+S');
      return readFileSync(file, 'utf8') === expected;
    }, { every: 2_000 });
    await shot('format-on-save');
  } finally {
    rmSync(settings, { force: true });
    await wb.runCommand('View: Close Editor').catch(() => {});
    rmSync(file, { force: true });
  }
}

/** A test document of the workspace's own (examples/ has none that fails): its second case fails at its expectation. */
const FAILING_TESTS = `workflow = "billing"

[[case]]
name = "one order is charged"
input = { customers = [ { name = "Ada", orders = [ { sku = "A-17", qty = 2 } ] } ] }

[[case.expect]]
status = "completed"
visited = ["customers", "orders.v2", "charge"]

[[case]]
name = "the pinned amount is the total"
input = { customers = [ { name = "Ada", orders = [ { sku = "A-17", qty = 2 } ] } ] }

[[case.pin]]
node = "charge"
output = { amount = 34 }

[[case.expect]]
output = { total = 99 }  # wrong on purpose: the total is 34
`;

/** The rows of the Test Explorer, every one expanded: their aria-labels, top to bottom. */
async function testRows(wb) {
  const rows = '.pane-body .monaco-list-row[role="treeitem"]';
  const twisties = `${rows}[aria-expanded="false"] .monaco-tl-twistie`;
  for (let left = (await wb.page.$$(twisties)).length; left > 0; ) {
    await (await wb.page.$(twisties))?.click();
    left = await until(SHORT, 'a test row expanded', async () => {
      const now = (await wb.page.$$(twisties)).length;
      return now < left ? now : false;
    });
  }
  return wb.page.$$eval(rows, (els) => els.map((el) => el.getAttribute('aria-label') ?? ''));
}

/**
 * The Test Explorer lists every case of the workspace's test documents (examples/'s and
 * one that fails), "Run All Tests" shows each case passed or failed as `wfls test` says,
 * and the failure's message sits at its expectation: in the peek VS Code opens there,
 * with expected and actual, and after the line. A "Run case" code lens is above each case.
 */
async function testExplorer(wb, { workspace, server, shot }) {
  const file = path.join(workspace, 'failing.wf.test.toml');
  const settings = path.join(workspace, '.vscode', 'settings.json');
  writeFileSync(file, FAILING_TESTS);
  mkdirSync(path.dirname(settings), { recursive: true });
  writeFileSync(settings, JSON.stringify({ 'testing.automaticallyOpenPeekView': 'failureInVisibleDocument' }) + '\n');
  try {
    // What the command line says of the same documents: the names and states to show.
    const cli = spawnSync(server, ['test', '--format', 'json'], { cwd: workspace, encoding: 'utf8' });
    const report = JSON.parse(cli.stdout);
    const expected = report.files.flatMap((f) => f.cases.map((c) => [c.name, c.status]));
    assert.deepEqual(
      [...new Set(expected.map(([, status]) => status))].sort(),
      ['failed', 'passed'],
      'the workspace has passing and failing cases',
    );

    await wb.openFile('failing.wf.test.toml');
    await until(SERVER, 'a Run case lens above each case', async () => {
      const shown = await wb.page.$$eval('.editor-group-container.active .codelens-decoration', (els) =>
        els.map((el) => el.textContent ?? ''),
      );
      return shown.filter((t) => t === 'Run case').length === 2;
    });

    await wb.runCommand('Testing: Focus on Test Explorer View');
    await until(SERVER, 'every case listed', async () => {
      const rows = await testRows(wb);
      return expected.every(([name]) => rows.some((row) => row.startsWith(`${name} (`)));
    });
    await wb.runCommand('Test: Run All Tests');
    const rows = await until(SERVER, 'every case run', async () => {
      const shown = await testRows(wb);
      const states = expected.map(([name]) => shown.find((row) => row.startsWith(`${name} (`)) ?? '');
      return states.every((row) => /\((Passed|Failed)\)/.test(row)) ? shown : false;
    });
    for (const [name, status] of expected) {
      const row = rows.find((r) => r.startsWith(`${name} (`));
      assert.ok(row.startsWith(`${name} (${status === 'passed' ? 'Passed' : 'Failed'})`), `${row}: ${status}`);
    }

    // The failure at its expectation: the peek VS Code opened there.
    const line = FAILING_TESTS.split('\n').indexOf('output = { total = 99 }  # wrong on purpose: the total is 34') + 1;
    const peek = await until(SERVER, 'the failure peek', async () => {
      const text = await wb.textOf('.editor-group-container.active .peekview-widget');
      return text?.includes('the workflow output does not hold the expected values') ? text : false;
    });
    // The diff of expected against actual, each side titled.
    assert.match(peek, /\{\s*"total":\s*99\s*\}Expected/);
    assert.match(peek, /\{\s*"total":\s*34\s*\}Actual/);
    // The peek puts the cursor on the expectation it is about.
    assert.deepEqual(await wb.cursor(), { line, column: 1 });
    await shot('test-failure');
    await wb.page.keyboard.press('Escape');

    // "Run case" above the failing case runs it through the Test Explorer: its peek again.
    await wb.goto(1, 1);
    // VS Code may draw the lenses again between finding one and clicking it: found again.
    await until(SERVER, 'the two lenses, "Run case" clicked', async () => {
      const lenses = await wb.page.$$('.editor-group-container.active .codelens-decoration a');
      if (lenses.length !== 2) return false;
      try {
        await lenses[1].click();
        return true;
      } catch (error) {
        if (/detached/i.test(String(error))) return false;
        throw error;
      }
    });
    await until(SERVER, 'the failure peek after Run case', async () =>
      (await wb.textOf('.editor-group-container.active .peekview-widget'))?.includes('does not hold the expected values'),
    );
    assert.deepEqual(await wb.cursor(), { line, column: 1 });
    await wb.page.keyboard.press('Escape');
    await wb.runCommand('Testing: Focus on Test Explorer View');
    await shot('test-explorer');
  } finally {
    rmSync(path.dirname(settings), { recursive: true, force: true });
    await wb.runCommand('View: Close Editor').catch(() => {});
    rmSync(file, { force: true });
  }
}

export const CHECKS = [
  ['completion', completion],
  ['hover', hover],
  ['diagnostics', diagnostics],
  ['definition', definition],
  ['quick-fix', quickFix],
  ['migrate', migrate],
  ['rename', rename],
  ['language-status', languageStatus],
  ['show-context', showContext],
  ['outline', outline],
  ['inlay-hints', inlayHints],
  ['semantic-tokens', semanticTokens],
  ['run-workflow', runWorkflow],
  ['debug', debug],
  ['graph', graph],
  ['graph-page', graphPage],
  ['format', format],
  ['test-explorer', testExplorer],
];

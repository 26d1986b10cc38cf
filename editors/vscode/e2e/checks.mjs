// The checks, one function each, run in this order against billing.wf.toml
// (a copy of examples/billing.wf.toml). Each starts from the file as it is on
// disk, with the cursor anywhere, leaves the editor reverted to it, and saves
// a screenshot of what it checked with `shot(name)`. A new check is a new
// function added to CHECKS.
import assert from 'node:assert/strict';
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
 * "Run with Sample Input": pick billing.input.json in VS Code's file dialog, read the
 * trace the server returns in an untitled editor, then hover a body node's id for the
 * items its activations saw.
 */
async function runWorkflow(wb, { text, shot, workspace }) {
  await wb.runCommand('wfls: Run with Sample Input', { opensInput: true });
  // VS Code's own (simple) file dialog: a quick input holding a path.
  const input = '.quick-input-widget .quick-input-box input';
  await until(SHORT, 'the file dialog', async () =>
    (await wb.page.$eval(input, (el) => el.value).catch(() => ''))?.includes('/workspace'),
  );
  await wb.press('Control+A');
  await wb.type(`${workspace}/billing.input.json`);
  await until(SHORT, 'the path typed in the dialog', async () =>
    (await wb.page.$eval(input, (el) => el.value))?.endsWith('billing.input.json'),
  );
  // The dialog checks the typed path asynchronously: an Enter that comes before the check
  // is refused ("Please select a file.") and the dialog stays open with the path, so
  // Enter is pressed again when the dialog is still open a second after the last one.
  await wb.page.keyboard.press('Enter');
  let pressed = Date.now();
  await until(SHORT, 'the file dialog to take the path', async () => {
    const dialog = await wb.page
      .$eval(input, (el) => ({ open: el.offsetParent !== null, value: el.value }))
      .catch(() => ({ open: false, value: '' }));
    if (!dialog.open) return true;
    if (Date.now() - pressed >= 1_000 && dialog.value.endsWith('billing.input.json')) {
      await wb.page.keyboard.press('Enter');
      pressed = Date.now();
    }
    return false;
  });
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
];

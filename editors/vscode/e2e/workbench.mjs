// Driving VS Code's workbench in the browser the way a person does: keyboard
// shortcuts, the command palette, and reading back what the page shows.
// Every wait has a deadline (see wait.mjs).
import { until } from './wait.mjs';

const SHORT = 10_000;

export class Workbench {
  /** @param {import('puppeteer-core').Page} page */
  constructor(page) {
    this.page = page;
  }

  async open(url, folderName) {
    await this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await this.page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await this.page.waitForSelector(`.explorer-folders-view .monaco-list-row[aria-label*="${folderName}"]`, {
      timeout: 60_000,
    });
  }

  /** Presses a chord such as "Control+Shift+M" or "F12". */
  async press(chord) {
    const keys = chord.split('+');
    const last = keys.pop();
    for (const key of keys) await this.page.keyboard.down(key);
    await this.page.keyboard.press(last);
    for (const key of keys.reverse()) await this.page.keyboard.up(key);
  }

  async type(text) {
    await this.page.keyboard.type(text, { delay: 20 });
  }

  /** Picks the row labelled `rowLabel` after typing `text`; unless `opensInput`, waits
   * for the quick input to close (a command that opens another one keeps it open). */
  async quickInput(prefixChord, text, rowLabel, { opensInput = false } = {}) {
    await this.press(prefixChord);
    await this.page.waitForSelector('.quick-input-widget .quick-input-box input', { visible: true, timeout: SHORT });
    await this.type(text);
    const row = `.quick-input-list .monaco-list-row[aria-label*="${rowLabel}"]`;
    await this.page.waitForSelector(row, { visible: true, timeout: SHORT });
    await this.page.keyboard.press('Enter');
    if (opensInput) return;
    await this.page.waitForSelector('.quick-input-widget', { hidden: true, timeout: SHORT });
  }

  async openFile(name) {
    await this.quickInput('Control+P', name, name);
    await this.page.waitForSelector(`.tab.active[aria-label*="${name}"]`, { timeout: SHORT });
    await this.focusEditor();
  }

  /** Runs a command of the palette by its title ("wfls: Show Context at Node"). */
  async runCommand(title, options = {}) {
    await this.quickInput('F1', title, title, options);
  }

  async focusEditor() {
    const lines = '.editor-group-container.active .monaco-editor .view-lines';
    await this.page.waitForSelector(lines, { visible: true, timeout: SHORT });
    await this.page.click(lines);
  }

  /** Moves the cursor to a 1-based line and column and waits until the status bar says so. */
  async goto(line, column) {
    await this.quickInput('Control+G', `${line}:${column}`, `${line}`);
    await until(SHORT, `the cursor at ${line}:${column}`, async () => {
      const at = await this.cursor();
      return at.line === line && at.column === column;
    });
  }

  /** The cursor from the status bar ("Ln 64, Col 33"). */
  async cursor() {
    const text = await this.page
      .$eval('[id="status.editor.selection"]', (el) => el.textContent ?? '')
      .catch(() => '');
    const match = /Ln (\d+), Col (\d+)/.exec(text);
    return match ? { line: Number(match[1]), column: Number(match[2]) } : { line: 0, column: 0 };
  }

  /**
   * The text of a 1-based line of the active editor, as rendered (the line must be on
   * screen). Inlay hints are injected into the rendered line as spans styled by the
   * editor's dynamic CSS rules (class `dyn-rule-*`); they are left out unless `hints`.
   */
  async lineText(line, { hints = false } = {}) {
    return this.page.evaluate((wanted, withHints) => {
      const editor = document.querySelector('.editor-group-container.active .monaco-editor');
      if (!editor) return undefined;
      const number = [...editor.querySelectorAll('.margin-view-overlays .line-numbers')].find(
        (el) => el.textContent?.trim() === String(wanted),
      );
      if (!number) return undefined;
      const top = number.parentElement?.style.top;
      const row = [...editor.querySelectorAll('.view-lines .view-line')].find((el) => el.style.top === top);
      if (!row) return undefined;
      const copy = row.cloneNode(true);
      if (!withHints) copy.querySelectorAll('[class*="dyn-rule-"]').forEach((el) => el.remove());
      return copy.textContent?.replace(/\u00a0/g, ' ');
    }, line, hints);
  }

  /** Every rendered line of the active editor, top to bottom. */
  async visibleText() {
    return this.page.evaluate(() => {
      const editor = document.querySelector('.editor-group-container.active .monaco-editor');
      const rows = [...(editor?.querySelectorAll('.view-lines .view-line') ?? [])];
      rows.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
      return rows.map((el) => (el.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n');
    });
  }

  async activeTab() {
    return this.page
      .$eval('.editor-group-container.active .tab.active', (el) => el.getAttribute('aria-label') ?? '')
      .catch(() => '');
  }

  /** Errors and warnings counted by the status bar. */
  async problemCounts() {
    const label = await this.page
      .$eval('[id="status.problems"]', (el) => el.getAttribute('aria-label') ?? el.textContent ?? '')
      .catch(() => '');
    const count = (word) => {
      const match = new RegExp(`(\\d+)\\s+${word}|${word}s?:\\s*(\\d+)`, 'i').exec(label);
      return Number(match?.[1] ?? match?.[2] ?? 0);
    };
    return { errors: count('Error'), warnings: count('Warning'), label };
  }

  /** The text of the hovers on screen (VS Code keeps hidden ones in the page too). */
  async hoverText() {
    return this.page.$$eval('.monaco-hover:not(.hidden)', (els) => els.map((el) => el.textContent ?? '').join('\n'));
  }

  async ariaLabel(selector) {
    return this.page.$eval(selector, (el) => el.getAttribute('aria-label') ?? '').catch(() => '');
  }

  async textOf(selector) {
    return this.page.$eval(selector, (el) => el.textContent ?? '').catch(() => undefined);
  }

  async visible(selector) {
    return this.page
      .$eval(selector, (el) => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.height > 0;
      })
      .catch(() => false);
  }

  async screenshot(file) {
    await this.page.screenshot({ path: file });
  }
}

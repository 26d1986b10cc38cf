// Runs the checks of checks.mjs in a real VS Code: installs the .vsix into a
// throwaway code-server, opens a copy of examples/ in a headless Chromium,
// and saves a screenshot per check under e2e/out/. Run through run.sh.
//
//   --code-server FILE  code-server's out/node/entry.js
//   --browser DIR       the folder holding puppeteer-core and @sparticuz/chromium
//   --vsix FILE         the packaged extension
//   --server FILE       the wfls executable (given as wfls.server.path)
//   --work DIR          a temporary folder owned by this run
//   --only NAME         run this check only (repeatable)
//   --keep SECONDS      keep VS Code and the browser open that long after the checks
//                       (prints the browser's DevTools endpoint, for debugging)
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CHECKS } from './checks.mjs';
import { CodeServer } from './code-server.mjs';
import { deadline } from './wait.mjs';
import { Workbench } from './workbench.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..', '..');
const { values: options } = parseArgs({
  options: {
    'code-server': { type: 'string' },
    browser: { type: 'string' },
    vsix: { type: 'string' },
    server: { type: 'string' },
    work: { type: 'string' },
    only: { type: 'string', multiple: true },
    keep: { type: 'string' },
  },
});
for (const key of ['code-server', 'browser', 'vsix', 'server', 'work']) {
  assert.ok(options[key], `--${key} is required`);
}

const CHECK_TIMEOUT = 90_000;
const outDir = path.join(here, 'out');
const home = os.homedir();
// code-server writes here when not told otherwise; the run must not.
const homeConfig = [path.join(home, '.config', 'code-server'), path.join(home, '.local', 'share', 'code-server')];
const homeConfigBefore = homeConfig.filter((p) => existsSync(p));

async function launchBrowser() {
  const require = createRequire(path.join(options.browser, 'package.json'));
  const puppeteer = require('puppeteer-core');
  const chromium = (await import(pathToFileURL(require.resolve('@sparticuz/chromium')).href)).default;
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    // --single-process is meant for serverless hosts and makes VS Code's workers unreliable.
    args: chromium.args.filter((arg) => arg !== '--single-process'),
    headless: 'shell',
    defaultViewport: { width: 1200, height: 760 },
    timeout: 60_000,
  });
}

function userSettings() {
  return {
    'wfls.server.path': options.server,
    // VS Code rewrites this value at start-up (false → "off"); with it, settings of
    // the wrong scope were dropped (see the manifest test), so it stays here.
    'extensions.autoUpdate': false,
    'files.autoSave': 'off',
    'files.hotExit': 'off',
    'editor.wordBasedSuggestions': 'off', // every suggestion comes from the server
    'editor.minimap.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.ignoreRecommendations': true,
    'git.enabled': false,
  };
}

async function main() {
  const started = Date.now();
  const sandbox = path.join(options.work, 'sandbox');
  const workspace = path.join(options.work, 'workspace');
  mkdirSync(path.join(sandbox, 'user-data', 'User'), { recursive: true });
  // The clean examples only: the server checks every document of the workspace, and the
  // checks count the Problems the billing example's edits raise and clear.
  cpSync(path.join(repo, 'examples'), workspace, {
    recursive: true,
    filter: (source) => !source.endsWith('store_audit.wf.toml'),
  });
  const text = readFileSync(path.join(workspace, 'billing.wf.toml'), 'utf8');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  const codeServer = new CodeServer({ node: process.execPath, entry: options['code-server'], sandbox });
  let browser;
  // Interrupted (Ctrl+C, a CI timeout): stop code-server and the browser first.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      console.error(`VS Code e2e: ${signal}, stopping`);
      Promise.allSettled([browser?.close(), codeServer.stop()]).then(() => process.exit(130));
    });
  }
  const results = [];
  try {
    await codeServer.installExtension(options.vsix);
    codeServer.writeSettings(userSettings());
    const url = await codeServer.start(workspace);
    browser = await launchBrowser();
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    const wb = new Workbench(page);
    await deadline(90_000, 'the workbench with billing.wf.toml open', async () => {
      await wb.open(`${url}/?folder=${encodeURIComponent(workspace)}`, 'billing.wf.toml');
      await wb.openFile('billing.wf.toml');
    }).catch(async (error) => {
      await page.screenshot({ path: path.join(outDir, 'setup-failed.png') }).catch(() => {});
      throw error;
    });
    const shot = async (name, clip) => page.screenshot({ path: path.join(outDir, `${name}.png`), clip });
    const selected = options.only?.length ? CHECKS.filter(([name]) => options.only.includes(name)) : CHECKS;
    assert.ok(selected.length > 0, `no check named ${options.only}`);
    for (const [name, check] of selected) {
      const t0 = Date.now();
      try {
        const context = { text, shot, workspace, server: options.server, work: options.work, out: outDir };
        await deadline(CHECK_TIMEOUT, name, () => check(wb, context));
        results.push({ name, ok: true, ms: Date.now() - t0 });
      } catch (error) {
        results.push({ name, ok: false, ms: Date.now() - t0, error });
        await shot(`${name}-failed`).catch(() => {});
        // Escape whatever widget was left open, so that the next check starts clean.
        await page.keyboard.press('Escape').catch(() => {});
        await wb.runCommand('File: Revert File').catch(() => {});
      }
    }
    if (options.keep) {
      console.log(`keeping ${url} open for ${options.keep} s; browser: ${browser.wsEndpoint()}`);
      await new Promise((resolve) => setTimeout(resolve, Number(options.keep) * 1000));
    }
  } finally {
    await browser?.close().catch(() => {});
    await codeServer.stop();
    const wflsLog = codeServer.outputLog('wfls');
    if (results.some((r) => !r.ok) || results.length === 0) {
      console.log('--- wfls output channel ---\n' + (wflsLog || '(none)'));
    }
  }

  for (const p of homeConfig) {
    if (!homeConfigBefore.includes(p) && existsSync(p)) {
      results.push({ name: 'home untouched', ok: false, ms: 0, error: new Error(`the run created ${p}`) });
    }
  }
  assert.equal(readFileSync(path.join(repo, 'examples', 'billing.wf.toml'), 'utf8'), text, 'the fixture is unchanged');

  for (const r of results) {
    console.log(`${r.ok ? 'ok    ' : 'FAILED'} ${r.name} (${(r.ms / 1000).toFixed(1)} s)${r.ok ? '' : `: ${r.error?.stack ?? r.error}`}`);
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(
    `VS Code e2e: ${results.length - failed} passed, ${failed} failed in ${((Date.now() - started) / 1000).toFixed(0)} s (screenshots: ${path.relative(repo, outDir)}/)`,
  );
  return failed === 0 ? 0 : 1;
}

main().then(
  (status) => process.exit(status),
  (error) => {
    console.error(`VS Code e2e: ${error?.stack ?? error}`);
    process.exit(1);
  },
);

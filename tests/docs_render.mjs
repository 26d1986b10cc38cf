// Loads pages of the documentation site in a headless Chromium and reports, as one
// JSON object on stdout, what went wrong on each: console errors, uncaught exceptions,
// failed requests and error responses. Screenshots the pages named by --shot.
//
//   node docs_render.mjs --browser DIR --base URL --out DIR --shot PAGE... PAGE...
//
// DIR holds puppeteer-core and @sparticuz/chromium (the VS Code end-to-end test's
// browser, editors/vscode/e2e/install.sh); PAGE is a path under URL ("tutorial/").
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: options, positionals: pages } = parseArgs({
  allowPositionals: true,
  options: {
    browser: { type: 'string' },
    base: { type: 'string' },
    out: { type: 'string' },
    shot: { type: 'string', multiple: true, default: [] },
  },
});

const require = createRequire(path.join(options.browser, 'package.json'));
const puppeteer = require('puppeteer-core');
const chromium = (await import(pathToFileURL(require.resolve('@sparticuz/chromium')).href)).default;
const browser = await puppeteer.launch({
  executablePath: await chromium.executablePath(),
  args: chromium.args.filter((arg) => arg !== '--single-process'),
  headless: 'shell',
  defaultViewport: { width: 1280, height: 900 },
  timeout: 60_000,
});

const problems = {};
try {
  for (const page of pages) {
    const tab = await browser.newPage();
    const found = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') found.push(`console: ${message.text()}`);
    });
    tab.on('pageerror', (error) => found.push(`exception: ${error.message}`));
    tab.on('requestfailed', (request) =>
      found.push(`request failed: ${request.url()} (${request.failure()?.errorText})`),
    );
    tab.on('response', (response) => {
      if (response.status() >= 400) found.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    const response = await tab.goto(new URL(page, options.base).href, { waitUntil: 'networkidle0' });
    if (!response?.ok()) found.push(`HTTP ${response?.status()} for the page itself`);
    if (options.shot.includes(page)) {
      const name = page.replace(/\/$/, '').replaceAll('/', '-') || 'index';
      await tab.screenshot({ path: path.join(options.out, `${name}.png`) });
    }
    problems[page] = found;
    await tab.close();
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(problems) + '\n');

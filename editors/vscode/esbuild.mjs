// Bundles the extension and vscode-languageclient into dist/extension.js, so
// that the .vsix ships without node_modules, and the graph view (with Graphviz
// compiled to WebAssembly, from @viz-js/viz) into dist/graph-view.js and
// dist/graph-view.css, which the webview loads. `--watch` rebuilds on change with
// source maps for debugging; the default build is the one that gets packaged.
// `--assets` then copies the graph view into the Python package
// (server/wfls/assets/), where `wfls graph --format html` inlines it; the copy
// is committed, and test/graph-assets.test.mjs checks it is this build's.
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const watch = process.argv.includes('--watch');

const extension = {
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20', // the Node.js of VS Code 1.90
  external: ['vscode'], // provided by the extension host
  minify: !watch,
  sourcemap: watch,
  logLevel: 'info',
};

/** The graph view: one script and one stylesheet, for the webview and the standalone page. */
export const graphView = {
  entryPoints: { 'graph-view': 'src/graph/webview/main.ts', 'graph-view-style': 'src/graph/webview/graph-view.css' },
  outdir: 'dist',
  entryNames: '[name]',
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'chrome114', // the Chromium of VS Code 1.90's webviews, and any browser since
  // @viz-js/viz finds its WebAssembly inlined; the script's own URL, which it would
  // otherwise resolve files against, is never needed.
  define: { 'import.meta.url': 'undefined' },
  charset: 'utf8', // the inlined WebAssembly stays as compact as @viz-js/viz ships it
  minify: !watch,
  sourcemap: watch,
  logLevel: 'info',
};

/** The build outputs the Python package carries, by their names there. */
export const GRAPH_ASSETS = {
  'dist/graph-view.js': 'graph-view.js',
  'dist/graph-view-style.css': 'graph-view.css',
  'ThirdPartyNotices.txt': 'graph-view.NOTICE.txt',
};
export const ASSETS_DIR = path.resolve(here, '..', '..', 'server', 'wfls', 'assets');

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.chdir(here);
  if (watch) {
    for (const options of [extension, graphView]) await (await esbuild.context(options)).watch();
  } else {
    await Promise.all([esbuild.build(extension), esbuild.build(graphView)]);
    if (process.argv.includes('--assets')) {
      for (const [built, name] of Object.entries(GRAPH_ASSETS)) copyFileSync(built, path.join(ASSETS_DIR, name));
      console.log(`copied the graph view into ${path.relative(process.cwd(), ASSETS_DIR)}`);
    }
  }
}

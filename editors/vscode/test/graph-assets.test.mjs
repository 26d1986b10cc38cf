// The graph view the Python package carries (server/wfls/assets/, inlined by
// `wfls graph --format html`) is committed, so that no npm is needed there: it must
// be what the sources build today. After a change to src/graph/, `make graph-assets`
// (or `node esbuild.mjs --assets`) copies the new build there.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import { ASSETS_DIR, GRAPH_ASSETS, graphView } from '../esbuild.mjs';
import { extensionRoot } from './support/manifest.mjs';

const built = await esbuild.build({ ...graphView, absWorkingDir: extensionRoot, write: false, logLevel: 'silent' });
const outputs = new Map(built.outputFiles.map((f) => [path.relative(extensionRoot, f.path), f.contents]));

test('the committed graph view is the one the sources build', () => {
  for (const [source, name] of Object.entries(GRAPH_ASSETS)) {
    const fresh = outputs.get(source) ?? readFileSync(path.join(extensionRoot, source));
    const committed = readFileSync(path.join(ASSETS_DIR, name));
    assert.ok(
      Buffer.compare(Buffer.from(fresh), committed) === 0,
      `server/wfls/assets/${name} differs from a fresh build of ${source}: run make graph-assets`,
    );
  }
});

test('the graph view stays small and self-contained', () => {
  const script = Buffer.from(outputs.get('dist/graph-view.js')).toString('utf8');
  assert.ok(script.length < 2_000_000, `${script.length} bytes`);
  // Inlined into a page, these would end its <script> element early.
  assert.doesNotMatch(script, /<\/?script/i);
  // Graphviz is inside, and the view fetches nothing: it has no URL of its own to resolve.
  assert.match(script, /Graphviz/);
  assert.ok(script.includes('renderSVGElement') || script.includes('wasm'), 'the WebAssembly layout is bundled');
});

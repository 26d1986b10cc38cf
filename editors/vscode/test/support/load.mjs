// Compiles one module of src/ with esbuild (its imports of other src/ modules
// bundled in, `vscode` left out) and loads it with `vscode` replaced by a stub.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { extensionRoot } from './manifest.mjs';

const require = createRequire(import.meta.url);
const Module = require('node:module');

/** `src/<name>.ts` (`graph/model` for a module in a folder) loaded against `stub.vscode`; each call gets its own copy. */
export async function loadSource(name, stub) {
  const built = await esbuild.build({
    entryPoints: [path.join(extensionRoot, 'src', `${name}.ts`)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'vscode-languageclient', 'vscode-languageclient/*'],
    write: false,
    logLevel: 'silent',
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wfls-src-'));
  const file = path.join(dir, `${path.basename(name)}.cjs`);
  writeFileSync(file, built.outputFiles[0].text);
  const original = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request === 'vscode') return stub.vscode;
    return original.call(this, request, parent, isMain);
  };
  try {
    return require(file);
  } finally {
    Module._load = original;
    rmSync(dir, { recursive: true, force: true });
  }
}

// Tokenizes text with the extension's grammars the way VS Code does: the
// same TextMate engine (vscode-textmate), the same regex engine
// (vscode-oniguruma), and injections wired from the manifest's `injectTo`.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import vsctm from 'vscode-textmate';
import oniguruma from 'vscode-oniguruma';
import { extensionRoot, manifest } from './manifest.mjs';

const require = createRequire(import.meta.url);

async function loadOniguruma() {
  const wasmPath = require.resolve('vscode-oniguruma/release/onig.wasm');
  const wasm = await readFile(wasmPath);
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  return {
    createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
    createOnigString: (s) => new oniguruma.OnigString(s),
  };
}

// Our grammars come from the manifest; VS Code's own JSON grammar (which the
// injection targets) comes from the tm-grammars package.
function grammarFiles() {
  const files = new Map();
  for (const g of manifest.contributes.grammars) {
    files.set(g.scopeName, path.join(extensionRoot, g.path));
  }
  files.set('source.json', require.resolve('tm-grammars/grammars/json.json'));
  return files;
}

function injectionsByTarget() {
  const byTarget = new Map();
  for (const g of manifest.contributes.grammars) {
    for (const target of g.injectTo ?? []) {
      byTarget.set(target, [...(byTarget.get(target) ?? []), g.scopeName]);
    }
  }
  return byTarget;
}

const files = grammarFiles();
const injections = injectionsByTarget();
const registry = new vsctm.Registry({
  onigLib: loadOniguruma(),
  loadGrammar: async (scopeName) => {
    const file = files.get(scopeName);
    if (!file) return null;
    return vsctm.parseRawGrammar(await readFile(file, 'utf8'), file);
  },
  getInjections: (scopeName) => injections.get(scopeName),
});

/**
 * Returns one array per line of `{ text, scopes }` tokens.
 * @param {string} scopeName
 * @param {string} text
 */
export async function tokenize(scopeName, text) {
  const grammar = await registry.loadGrammar(scopeName);
  if (!grammar) throw new Error(`no grammar for ${scopeName}`);
  let state = vsctm.INITIAL;
  return text.split('\n').map((line) => {
    const result = grammar.tokenizeLine(line, state);
    state = result.ruleStack;
    return result.tokens.map((t) => ({
      text: line.slice(t.startIndex, t.endIndex),
      scopes: t.scopes,
    }));
  });
}

/** Tokens of a single line. */
export async function tokenizeLine(scopeName, line) {
  const [tokens] = await tokenize(scopeName, line);
  return tokens;
}

/** The innermost scopes of the tokens, as `text => last scope` pairs, for readable failure messages. */
export function describe(tokens) {
  return tokens.map((t) => `${JSON.stringify(t.text)} ${t.scopes.at(-1)}`).join('\n');
}

// Bundles the extension and vscode-languageclient into dist/extension.js, so
// that the .vsix ships without node_modules. `--watch` rebuilds on change with
// source maps for debugging; the default build is the one that gets packaged.
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');

const options = {
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

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  await esbuild.build(options);
}

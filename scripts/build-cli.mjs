// Bundles the CLI (and broker) into dist/cli.mjs so `npx countersign` runs plain JS.
import { build } from 'esbuild';

await build({
  entryPoints: { cli: 'electron/cli/main.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  // ESM bundles have no require(); some dependencies still call it.
  banner: { js: "import { createRequire as __csCreateRequire } from 'node:module'; const require = __csCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});

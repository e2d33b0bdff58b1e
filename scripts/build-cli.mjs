// Bundles the CLI (and broker) for Node: dist/cli.mjs, the entry bin/countersign.mjs starts, plus one
// chunk per command in dist/cli/. Each command is imported only when it runs, so `connect` (one process
// per MCP server per client) loads a small relay and no dependency at all, not the whole CLI.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

/** What both bundles share: ESM for Node 20, dependencies left to node_modules. */
const common = {
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  // ESM bundles have no require(); some dependencies still call it.
  banner: { js: "import { createRequire as __csCreateRequire } from 'node:module'; const require = __csCreateRequire(import.meta.url);" },
  logLevel: 'warning',
};

// Chunk names carry a content hash: clear the old ones so dist/cli/ holds one build.
rmSync('dist/cli', { recursive: true, force: true });
rmSync('dist/connect', { recursive: true, force: true });

await build({ ...common, entryPoints: { cli: 'electron/cli/main.ts' }, chunkNames: 'cli/[name]-[hash]' });
// `connect` once more on its own, as one file (dist/connect.mjs): bin/countersign.mjs starts it for
// `connect`, which then reads one module instead of the entry and its chunks (~10 ms of every cold start).
// What it imports only on a rare path (the broker not running) stays in a chunk of its own.
await build({ ...common, entryPoints: { connect: 'electron/cli/connect-main.ts' }, chunkNames: 'connect/[name]-[hash]' });

#!/usr/bin/env node
// Thin launcher: the CLI is bundled into dist/ by `npm install` (prepare) or `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = fileURLToPath(new URL('../dist/cli.mjs', import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write('countersign: not built yet. Run `npm install` (or `npm run build`) in the Countersign folder.\n');
  process.exit(1);
}
// `connect` (one process per MCP server per client) has a bundle of its own: one file to load, not the
// CLI's chunks. It hands anything that is not a plain `connect` on to the full CLI.
const connectOnly = fileURLToPath(new URL('../dist/connect.mjs', import.meta.url));
const isConnect = process.argv.includes('connect') && existsSync(connectOnly);
await import(pathToFileURL(isConnect ? connectOnly : entry).href);

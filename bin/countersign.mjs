#!/usr/bin/env node
// Thin launcher: the CLI is bundled into dist/ by `npm install` (prepare) or `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = fileURLToPath(new URL('../dist/cli.mjs', import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write('countersign: not built yet. Run `npm install` (or `npm run build`) in the Countersign folder.\n');
  process.exit(1);
}
await import(pathToFileURL(entry).href);

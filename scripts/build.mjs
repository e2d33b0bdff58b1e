// Builds everything into dist/: the CLI (and broker), the renderer, and the Electron shell.
// Each part has its own script so it can be built alone.
// dist/source-stamp.json records the sources this build read; the test runs check it (scripts/source-stamp.mjs).
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { clearStamp, sourceDigests, writeStamp } from './source-stamp.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
// Read before building: an edit made during the build then shows as stale, never as fresh.
const digests = sourceDigests(root);
clearStamp(root);

const parts = ['build-cli.mjs', 'build-renderer.mjs', 'build-electron.mjs'];
for (const part of parts) {
  const url = new URL(`./${part}`, import.meta.url);
  if (existsSync(url)) await import(url.href);
}

mkdirSync(new URL('../dist/', import.meta.url), { recursive: true });
writeStamp(root, digests);

// Builds everything into dist/: the CLI (and broker), the renderer, and the Electron shell.
// Each part has its own script so it can be built alone.
import { existsSync } from 'node:fs';

const parts = ['build-cli.mjs', 'build-renderer.mjs', 'build-electron.mjs'];
for (const part of parts) {
  const url = new URL(`./${part}`, import.meta.url);
  if (existsSync(url)) await import(url.href);
}

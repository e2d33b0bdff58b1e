// The `countersign` command under Node (bundled to dist/cli.mjs, started by bin/countersign.mjs).
import { fileURLToPath } from 'node:url';
import { runCli } from './run.js';

// This entry is dist/cli.mjs; the UI is built to dist/renderer.
process.exitCode = await runCli(process.argv.slice(2), { rendererDir: fileURLToPath(new URL('./renderer/', import.meta.url)) });

// Builds the approval UI (renderer/) into dist/renderer/ with Vite, using vite.config.ts.
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('../', import.meta.url));
await build({ configFile: `${root}vite.config.ts`, root: `${root}renderer`, logLevel: 'warn' });

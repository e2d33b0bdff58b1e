// Builds the Electron shell with esbuild:
//   dist/electron/entry.mjs    the app's entry: the desktop app, or (--cli) the command line
//   dist/electron/main.mjs     main process, ESM (all of the broker bundled in; 'electron' external)
//   dist/electron/cli/         the command line inside the app, every dependency bundled, one chunk per command
//   dist/electron/preload.cjs  preload, CommonJS: a sandboxed preload cannot load ES modules
//   dist/electron/icons/       tray and window icons (build/ is not packaged)
//   dist/packaging/after-pack.cjs  electron-builder's afterPack hook (flips the fuses; not packaged)
// COUNTERSIGN_BUILD_DIR puts all of it under another folder (the security test builds into a temp dir).
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const out = resolve(root, process.env.COUNTERSIGN_BUILD_DIR || 'dist');
const electronOut = join(out, 'electron');

const common = {
  absWorkingDir: root,
  bundle: true,
  sourcemap: true,
  logLevel: 'warning',
  legalComments: 'none',
  // jsonc-parser's "main" is a UMD build whose require('./impl/…') calls a bundle cannot follow.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

// An ESM bundle has no require(); bundled CommonJS dependencies still call it.
const requireBanner = { js: "import { createRequire as __csCreateRequire } from 'node:module'; const require = __csCreateRequire(import.meta.url);" };
// The keyring is a native module: loaded from node_modules (unpacked from the asar) at run time.
const nodeExternal = ['electron', '@napi-rs/keyring'];

// Chunk names carry a content hash: clear the old ones so the folder holds one build.
rmSync(join(electronOut, 'cli'), { recursive: true, force: true });

await Promise.all([
  build({
    ...common,
    entryPoints: ['electron/main/entry.ts'],
    outfile: join(electronOut, 'entry.mjs'),
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: nodeExternal,
  }),
  build({
    ...common,
    entryPoints: { 'app-cli': 'electron/main/app-cli.ts' },
    outdir: join(electronOut, 'cli'),
    outExtension: { '.js': '.mjs' },
    chunkNames: '[name]-[hash]',
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: nodeExternal,
    banner: requireBanner,
  }),
  build({
    ...common,
    entryPoints: ['electron/main/main.ts'],
    outfile: join(electronOut, 'main.mjs'),
    platform: 'node',
    format: 'esm',
    // Electron 45 runs Node 22.
    target: 'node22',
    external: nodeExternal,
    banner: requireBanner,
  }),
  build({
    ...common,
    entryPoints: ['electron/preload/index.ts'],
    outfile: join(electronOut, 'preload.cjs'),
    // A sandboxed preload gets a browser-like context whose require() knows only 'electron' and a few
    // polyfills: bundle everything else, and fail the build on any Node built-in.
    platform: 'browser',
    format: 'cjs',
    target: 'chrome140',
    external: ['electron'],
  }),
  build({
    ...common,
    entryPoints: ['electron/packaging/after-pack.ts'],
    outfile: join(out, 'packaging', 'after-pack.cjs'),
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Resolved from node_modules when electron-builder runs the hook.
    external: ['@electron/fuses'],
  }),
]);

const icons = join(electronOut, 'icons');
mkdirSync(icons, { recursive: true });
for (const name of ['icon.png', 'tray.png', 'tray@2x.png', 'trayTemplate.png', 'trayTemplate@2x.png']) {
  const from = join(root, 'build', name);
  if (existsSync(from)) copyFileSync(from, join(icons, name));
  else process.stderr.write(`build-electron: build/${name} is missing (run node build/make-icons.mjs)\n`);
}

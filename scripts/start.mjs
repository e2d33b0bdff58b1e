// `npm start`: finds the Electron binary in node_modules, builds, then runs the desktop app.
// It never downloads Electron: where the binary is missing (offline install) or cannot start, it says
// so and names `node bin/countersign.mjs serve`, which runs the same broker and UI in a browser.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const main = join(root, 'dist', 'electron', 'main.mjs');
const FALLBACK = 'To run the same app in your browser instead:  node bin/countersign.mjs serve';

function fail(reason, hint) {
  process.stderr.write(`countersign: ${reason}\n  ${FALLBACK}\n${hint ? `  ${hint}\n` : ''}`);
  process.exit(1);
}

/** Where electron's own index.js would look, without its download-on-require side effect. */
function electronBinary() {
  const pkg = join(root, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) return join(override, relative || 'electron');
  if (!relative) return undefined;
  const binary = join(pkg, 'dist', relative);
  return existsSync(binary) ? binary : undefined;
}

const binary = electronBinary();
if (!binary || !existsSync(binary)) {
  fail(
    'the Electron runtime is not installed here (node_modules/electron has no binary; it is downloaded on install, which needs the network).',
    'For the desktop app: with network access, run `node node_modules/electron/install.js`, then `npm start`.',
  );
}

try {
  await import('./build.mjs');
} catch (error) {
  fail(`the build failed: ${error instanceof Error ? error.message : String(error)}`);
}

// Chromium's own complaints that mean "this machine cannot show the app".
const CANNOT_START = /error while loading shared libraries|Missing X server or \$DISPLAY|cannot open display|Running as root without --no-sandbox/i;
let cannotStart = false;

const env = { ...process.env };
delete env.ELECTRON_RUN_AS_NODE;
const child = spawn(binary, [main, ...process.argv.slice(2)], { stdio: ['inherit', 'inherit', 'pipe'], env });
child.stderr.on('data', (chunk) => {
  process.stderr.write(chunk);
  if (CANNOT_START.test(chunk.toString())) cannotStart = true;
});
child.on('error', (error) => fail(`could not launch Electron (${error.message}).`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (cannotStart || (code !== 0 && code !== null && code >= 126)) fail(`Electron could not start on this machine (exit ${code ?? signal}).`);
  process.exit(code ?? 1);
});

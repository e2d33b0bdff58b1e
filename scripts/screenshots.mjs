// `npm run screenshots`: builds, then refreshes docs/screenshots/*.png with e2e/screenshots.spec.ts, a
// walk through every main screen against a real `countersign serve` with real MCP servers and clients.
// The browser is Debian's Chromium (CHROMIUM_PATH, else /usr/bin/chromium); nothing is downloaded.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
if (!existsSync(chromium)) {
  process.stderr.write(`screenshots: no Chromium at ${chromium}. Install it (apt-get install chromium) or set CHROMIUM_PATH.\n`);
  process.exit(1);
}
const run = (args, env = process.env) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run([join(root, 'scripts', 'build.mjs')]);
run([join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--project', 'screenshots'], {
  ...process.env,
  CS_SCREENSHOTS: '1',
  CHROMIUM_PATH: chromium,
});

// Builds the Electron shell into a fresh temp dir with the real build script (COUNTERSIGN_BUILD_DIR),
// so tests check what `npm run build` makes, even when dist/ is stale or absent.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let built: string | undefined;

/** Returns the build dir (holding electron/ and packaging/). */
export function buildShell(): string {
  if (built) return built;
  const dir = mkdtempSync(path.join(tmpdir(), 'cs-shell-build-'));
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-electron.mjs')], {
    cwd: ROOT,
    env: { ...process.env, COUNTERSIGN_BUILD_DIR: dir },
    stdio: 'pipe',
  });
  built = dir;
  return dir;
}

/** The built shell in a temp app dir (dist/electron/…), with the fake 'electron' as its only electron. */
export function installFakeApp(): string {
  const build = buildShell();
  const appDir = mkdtempSync(path.join(tmpdir(), 'cs-fake-app-'));
  cpSync(path.join(build, 'electron'), path.join(appDir, 'dist', 'electron'), { recursive: true });
  mkdirSync(path.join(appDir, 'node_modules'), { recursive: true });
  cpSync(path.join(ROOT, 'test', 'electron', 'fixtures', 'fake-electron'), path.join(appDir, 'node_modules', 'electron'), { recursive: true });
  return appDir;
}

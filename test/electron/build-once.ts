// Builds the Electron shell into a fresh temp dir with the real build script (COUNTERSIGN_BUILD_DIR),
// so tests check what `npm run build` makes, even when dist/ is stale or absent.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
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

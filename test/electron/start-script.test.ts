import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './build-once.js';

describe('npm start without the Electron runtime', () => {
  it('says so plainly, names `node bin/countersign.mjs serve` (never a registry name), and exits non-zero without building or downloading', () => {
    // An empty override dir stands for "no binary", whatever this machine has installed.
    const empty = mkdtempSync(path.join(tmpdir(), 'cs-no-electron-'));
    const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs')], {
      cwd: ROOT,
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: empty },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/Electron runtime is not installed/);
    expect(run.stderr).toContain('node bin/countersign.mjs serve');
    expect(run.stderr).not.toContain('npx');
    expect(run.stdout).toBe('');
  });
});

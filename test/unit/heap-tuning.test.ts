// The broker's young-generation setting, in a fresh Node process each (V8 flags are per process):
// under the same allocation, new space stays at its first size with it and grows without it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NODE, ROOT } from '../helpers/paths.js';

const run = promisify(execFile);

/**
 * New space's size (bytes) at start, the largest it reached, and its size after a workload whose objects
 * survive a few scavenges. Two things in V8 move with the load, not the setting, and are taken out:
 * mid-scavenge new space holds pages beyond its capacity (so "after" is read after one more scavenge), and
 * V8 shrinks new space when allocation per ms is slow, as on a busy machine (so growth is its largest size).
 */
async function newSpace(tuned: boolean): Promise<{ first: number; most: number; after: number }> {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { keepYoungGenerationSmall } from ${JSON.stringify(`${ROOT}electron/broker/core/heap-tuning.ts`)};
    const size = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const first = size();
    if (${tuned}) keepYoungGenerationSmall();
    let keep = [];
    let most = first;
    for (let i = 0; i < 3e6; i++) {
      keep.push({ i, s: 'x' + i });
      if (keep.length > 1e5) keep = [];
      if (i % 1e4 === 0) most = Math.max(most, size());
    }
    gc({ type: 'minor' });
    process.stdout.write(JSON.stringify({ first, most, after: size(), kept: keep.length }));`;
  const { stdout } = await run(NODE, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
  return JSON.parse(stdout) as { first: number; most: number; after: number };
}

describe('keepYoungGenerationSmall', () => {
  it('keeps new space at its first size where it would otherwise grow', async () => {
    const [tuned, plain] = await Promise.all([newSpace(true), newSpace(false)]);
    expect(tuned.after).toBeLessThanOrEqual(tuned.first);
    expect(plain.most).toBeGreaterThan(plain.first);
  });
});

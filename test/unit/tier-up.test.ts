// When a busy process has its hot code optimised (tier-up.ts): once, at its BUSY_AFTER_CALLS-th call, and
// the flag it sets at run time really makes this Node's V8 optimise sooner.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BUSY_AFTER_CALLS, callCounter, TIER_UP_FLAG } from '../../electron/broker/tier-up.js';

/** How many calls of a small hot function it takes until V8 has optimised it, with the flag set at run time or not. */
function callsUntilOptimised(withFlag: boolean): number {
  const script = `
    const v8 = require('node:v8');
    ${withFlag ? `v8.setFlagsFromString(${JSON.stringify(TIER_UP_FLAG)});` : ''}
    function work(a) { let s = 0; for (let i = 0; i < 20; i++) s += (a * i) % 7; return s; }
    let n = 0;
    // Bit 4 of the status: optimised code.
    while (n < 100000 && !(%GetOptimizationStatus(work) & 16)) work(n++);
    process.stdout.write(String(n));`;
  // Compiled on this thread, so the status changes at the call that triggered it.
  return Number(execFileSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', '-e', script], { encoding: 'utf8' }));
}

describe('tier-up', () => {
  it('runs its action once, at the count it was given', () => {
    let fired = 0;
    const count = callCounter(BUSY_AFTER_CALLS, () => fired++);
    for (let i = 1; i < BUSY_AFTER_CALLS; i++) count();
    expect(fired).toBe(0);
    count();
    expect(fired).toBe(1);
    for (let i = 0; i < 3 * BUSY_AFTER_CALLS; i++) count();
    expect(fired).toBe(1);
  });

  it('makes V8 optimise hot code sooner when set after start', () => {
    const withFlag = callsUntilOptimised(true);
    const without = callsUntilOptimised(false);
    expect(without).toBeLessThan(100000);
    expect(withFlag).toBeGreaterThan(0);
    expect(withFlag * 2).toBeLessThan(without);
  });
});

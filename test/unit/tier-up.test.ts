// When a busy process has its hot code optimised (tier-up.ts): once, at its BUSY_AFTER_CALLS-th call, and
// the flag it sets at run time really makes this Node's V8 optimise sooner.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BUSY_AFTER_CALLS, callCounter, TIER_UP_FLAG, tierUpFlag } from '../../electron/broker/core/tier-up.js';

/** How many calls of a small hot function it takes until V8 has optimised it, with the flag set at run time or not. */
function callsUntilOptimised(withFlag: boolean): number {
  const script = `
    const v8 = require('node:v8');
    ${withFlag ? `v8.setFlagsFromString(${JSON.stringify(TIER_UP_FLAG)});` : ''}
    function work(a) { let s = 0; for (let i = 0; i < 20; i++) s += (a * i) % 7; return s; }
    let n = 0;
    // Bit 6 of the status: optimised by TurboFan (a V8 with Maglev reaches bit 4 early either way).
    while (n < 100000 && !(%GetOptimizationStatus(work) & 64)) work(n++);
    process.stdout.write(String(n));`;
  // Compiled on this thread, so the status changes at the call that triggered it.
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', '-e', script], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return Number(out);
}

/** Whether this Node's V8 knows a flag: an unknown one is not an error to setFlagsFromString, only a line on stderr. */
function knowsFlag(flag: string): boolean {
  const name = flag.replace(/^--/, '').split('=')[0]!;
  const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  return options.includes(`  --${name} `);
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

  it('picks the flag in the unit each V8 counts, and this V8 knows it', () => {
    expect(tierUpFlag('11.3.244.8-node.33')).toBe('--interrupt-budget=8192');
    expect(tierUpFlag('12.4.254.21-node.57')).toBe('--invocation-count-for-turbofan=375');
    expect(tierUpFlag('13.6.233.17-node.63')).toBe('--invocation-count-for-turbofan=375');
    expect(knowsFlag(TIER_UP_FLAG)).toBe(true);
  });

  it('makes V8 optimise hot code sooner when set after start', () => {
    const withFlag = callsUntilOptimised(true);
    const without = callsUntilOptimised(false);
    expect(without).toBeLessThan(100000);
    expect(withFlag).toBeGreaterThan(0);
    expect(withFlag * 2).toBeLessThan(without);
  });
});

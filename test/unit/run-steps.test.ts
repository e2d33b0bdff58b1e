// `npm test` (scripts/test.mjs) runs every step through runSteps: a failed step does not hide the later
// ones, the run still fails, and a fatal step (the build) stops what would test stale code.
import { describe, expect, it } from 'vitest';
import { runSteps } from '../../scripts/run-steps.mjs';
import { NODE } from '../helpers/paths.js';

const step = (name: string, code: number, fatal = false) => ({ name, command: [NODE, '-e', `process.exit(${code})`], fatal });
const run = (steps: ReturnType<typeof step>[]) => {
  let out = '';
  const ok = runSteps(steps, (t) => (out += t));
  return { ok, out };
};

describe('runSteps', () => {
  it('runs the steps after a failed one, reports each, and fails', () => {
    const { ok, out } = run([step('unit', 1), step('browser', 0)]);
    expect(ok).toBe(false);
    expect(out).toMatch(/FAIL\s+unit\s+failed \(exit 1\)/);
    expect(out).toMatch(/ok\s+browser\s+passed/);
  });

  it('passes only when every step passed', () => {
    expect(run([step('a', 0), step('b', 0)]).ok).toBe(true);
    expect(run([step('a', 0), step('b', 3)]).ok).toBe(false);
  });

  it('stops at a failed fatal step and lists the rest as skipped', () => {
    const { ok, out } = run([step('build', 2, true), step('unit', 0), step('browser', 0)]);
    expect(ok).toBe(false);
    expect(out).toMatch(/FAIL\s+build/);
    expect(out).toMatch(/skip\s+unit/);
    expect(out).toMatch(/skip\s+browser/);
    expect(out).not.toMatch(/ok\s+unit/);
  });

  it('reports a command that cannot start', () => {
    const { ok, out } = run([{ name: 'ghost', command: ['/nonexistent/tool'], fatal: false }, step('after', 0)]);
    expect(ok).toBe(false);
    expect(out).toMatch(/FAIL\s+ghost\s+could not start/);
    expect(out).toMatch(/ok\s+after/);
  });
});

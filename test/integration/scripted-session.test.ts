// The scripted session of `npm run bench -- scripted-session` (bench/scripted-session.ts), asserted as
// counts: over 150 calls on real servers, no call the rulebook gives the person runs without them, no
// safe call is blocked, and every prompt is one the person had to answer.
import { describe, expect, it } from 'vitest';
import { runScriptedSession } from '../../bench/scripted-session.js';

describe('a scripted session answered by a scripted person', () => {
  it('asks exactly where the person decides: nothing runs without them, nothing safe is blocked', async () => {
    const r = await runScriptedSession();
    expect(r.mismatches).toEqual([]);
    expect(r.calls).toBeGreaterThanOrEqual(150);
    expect(r.ranWithoutPerson).toBe(0);
    expect(r.wronglyBlocked).toBe(0);
    // Each prompt is a call the person decides; a rule of theirs is never asked about again.
    expect(r.prompts).toBe(r.byLabel.person);
    expect(r.coveredButAsked).toBe(0);
    expect(r.byLabel.covered).toBeGreaterThan(40);
    expect(r.prompts).toBeLessThan(r.promptsWithoutRules);
  }, 180_000);
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RefusalAudit, type RefusalEntry } from '../../electron/broker/local/refusal-audit.js';

describe('RefusalAudit', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes the first refusal at once, and counts the rest into one entry per window', () => {
    const written: RefusalEntry[] = [];
    const audit = new RefusalAudit((e) => written.push(e), 1000);
    audit.refused({ role: 'api', why: 'no proof' });
    expect(written).toEqual([{ first: true, count: 1, reasons: { 'api: no proof': 1 }, latest: { role: 'api', why: 'no proof' } }]);
    for (let i = 0; i < 500; i++) audit.refused({ role: i % 2 ? 'api' : 'connect', why: 'no proof' });
    expect(written).toHaveLength(1);
    vi.advanceTimersByTime(1000);
    expect(written).toHaveLength(2);
    expect(written[1]).toMatchObject({ first: false, count: 500, reasons: { 'api: no proof': 250, 'connect: no proof': 250 } });
    // A steady flood: one entry per window, however many refusals.
    for (let w = 0; w < 3; w++) {
      for (let i = 0; i < 100; i++) audit.refused({ role: 'attach', why: 'unknown token' });
      vi.advanceTimersByTime(1000);
    }
    expect(written.map((e) => e.count)).toEqual([1, 500, 100, 100, 100]);
  });

  it('starts afresh after a quiet window, and writes what is counted when flushed', () => {
    const written: RefusalEntry[] = [];
    const audit = new RefusalAudit((e) => written.push(e), 1000);
    audit.refused({ role: 'api', why: 'a' });
    vi.advanceTimersByTime(1000); // nothing more: the window closes without an entry
    vi.advanceTimersByTime(5000);
    audit.refused({ role: 'api', why: 'b' });
    audit.refused({ role: 'api', why: 'c' });
    expect(written.map((e) => [e.first, e.count])).toEqual([
      [true, 1],
      [true, 1],
    ]);
    audit.flush();
    expect(written.map((e) => [e.first, e.count])).toEqual([
      [true, 1],
      [true, 1],
      [false, 1],
    ]);
    expect(written[2]!.latest.why).toBe('c');
    audit.flush();
    expect(written).toHaveLength(3);
    expect(vi.getTimerCount()).toBe(0);
  });
});
